"""``playtrace ratings DIR ...``: people, bots, the simulated model and models rated in one pool.

Every finished session under the folders is a match (see :mod:`sessions.ratings`): per game with
``--game``, otherwise one pool over every game. Built-in bots are fixed anchors (⚓) learned from their
own matches. ``--suggest PLAYER`` names the opponent whose result against PLAYER is least certain,
the match that teaches the ratings most (``playtrace tournament --matchmake`` uses the same rule).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from desktop.cli.common import EXIT_OK, UsageError, compact_table, stdout_console

COMMAND = "ratings"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        COMMAND,
        parents=[common],
        help="rate people, bots and models in one pool (OpenSkill)",
        description="Rate every player of the finished sessions under DIR in one pool (OpenSkill's "
        "Plackett-Luce model), with 90%% intervals; built-in bots are fixed anchors.",
    )
    p.add_argument("folders", type=Path, nargs="+", metavar="DIR", help="folders of sessions (any depth)")
    p.add_argument("--game", default=None, metavar="GAME", help="rate one game's matches only")
    p.add_argument(
        "--suggest",
        default=None,
        metavar="PLAYER",
        help="name the opponent whose result against PLAYER is least certain",
    )
    p.add_argument("--json", action="store_true", help="print the standings as JSON")


def run(args: argparse.Namespace) -> int:
    from sessions.ratings import load_manifests, matches_from, rate, suggest_opponent

    for folder in args.folders:
        if not folder.is_dir():
            raise UsageError(f"{folder} is not a folder of sessions")
    matches = matches_from(load_manifests(args.folders))
    if args.game is not None:
        games = sorted({m.game for m in matches})
        matches = [m for m in matches if m.game == args.game]
        if not matches:
            known = ", ".join(games) or "none"
            raise UsageError(f"no rated match of {args.game} under the folders (games with matches: {known})")
    if not matches:
        raise UsageError("no finished match with two or more players under the folders")
    standings = rate(matches)
    suggestion = None
    if args.suggest is not None:
        pool = [s.player for s in standings]
        try:
            suggestion = suggest_opponent(args.suggest, matches, pool)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if args.json:
        payload: dict[str, Any] = {
            "game": args.game,
            "matches": len(matches),
            "standings": [s.to_json() for s in standings],
        }
        if suggestion is not None:
            payload["suggest"] = {
                "player": args.suggest,
                "opponent": suggestion[0],
                "win_chance": suggestion[1],
            }
        print(json.dumps(payload, indent=1))
        return EXIT_OK
    console = stdout_console()
    console.print(
        f"{args.game or 'all games'}: {len(matches)} matches, {len(standings)} players "
        "(OpenSkill, 90% intervals; ⚓ bots held fixed)",
        soft_wrap=True,
    )
    table = compact_table()
    for name, justify in (
        ("#", "right"),
        ("player", "left"),
        ("kind", "left"),
        ("rating", "right"),
        ("90% interval", "right"),
        ("games", "right"),
        ("W-D-L", "right"),
    ):
        table.add_column(name, justify=justify, overflow="fold" if name == "player" else "ellipsis")
    for n, s in enumerate(standings, 1):
        table.add_row(
            str(n),
            s.player + (" ⚓" if s.anchor else ""),
            s.kind,
            f"{s.mu:.1f}",
            f"{s.low:.1f} – {s.high:.1f}",
            str(s.games),
            f"{s.wins}-{s.draws}-{s.losses}",
        )
    console.print(table)
    if suggestion is not None:
        console.print(
            f"next opponent for {args.suggest}: {suggestion[0]} (win chance {suggestion[1]:.0%}, "
            "the least certain result)",
            soft_wrap=True,
        )
    return EXIT_OK
