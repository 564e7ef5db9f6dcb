"""``playtrace baseline``: a game's raw and progress scores over many episodes, mean ± SD and SE.

``playtrace baseline 2048 --episodes 30`` plays 30 random episodes (seeds 0..29) and prints the
figures LMGame-Bench reports for its random row; ``--player`` takes any player spec (a bot, ``sim``, a
model). ``--player human`` plays nothing: it reads the people's sessions of that game from the sessions
folder (or ``--sessions DIR``), finished games only, and with ``--study ID`` only that study's
counted games (practice rounds left out), so human baselines are computed exactly like the others.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from desktop.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    UsageError,
    compact_table,
    default_root,
    err,
    mean_sd,
    num,
    one_line,
    parse_game_options,
    stdout_console,
)

COMMAND = "baseline"
HUMAN = "human"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        COMMAND, parents=[common],
        help="a game's raw and progress scores over many episodes (random, a bot, a model or people)",
        description="Play N episodes (seeds S..S+N-1) with one player and print the mean ± SD and SE "
        "of the game's raw and progress scores, as LMGame-Bench reports them. With --player human, "
        "read the people's finished sessions of the game instead of playing.",
    )
    p.add_argument("game", help="game id (see `playtrace games`)")
    p.add_argument("--player", "-p", default="random", metavar="SPEC",
                   help="random (default), a bot, sim, a model spec, or human (recorded sessions)")
    p.add_argument("--episodes", "-n", type=int, default=30, metavar="N",
                   help="episodes to play (default 30)")
    p.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="seed of the first episode")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    p.add_argument("--max-steps", type=int, default=None, metavar="N", help="stop an episode after N steps")
    p.add_argument("--concurrency", "-j", type=int, default=None, metavar="N", help="episodes at once")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="keep the played sessions in DIR (default: nothing is saved)")
    p.add_argument("--sessions", type=Path, default=None, metavar="DIR",
                   help="with --player human: where the sessions are (default: the sessions folder)")
    p.add_argument("--study", default=None, metavar="ID",
                   help="with --player human: only that study's counted games (no practice rounds)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")


def run(args: argparse.Namespace) -> int:
    from engine.baseline import figure_names, summarise, values_of
    from engine.core import GameError
    from engine.registry import make

    if args.episodes < 1:
        raise UsageError("--episodes must be at least 1")
    if args.max_steps is not None and args.max_steps < 1:
        raise UsageError("--max-steps must be at least 1")
    options = parse_game_options(args.game, args.option)
    try:
        game = make(args.game, **options)
    except GameError as exc:
        raise UsageError(one_line(exc)) from exc
    human = args.player.strip().lower() == HUMAN
    if not human and (args.study or args.sessions):
        raise UsageError("--study and --sessions read people's sessions: use them with --player human")
    if human:
        figures, notes = _human_figures(game, args)
        where = str(args.sessions or default_root())
    else:
        figures, notes = _played_figures(game, args, options)
        where = ""
    raw_name, progress_name = figure_names(game)
    result: dict[str, Any] = {
        "game": game.id,
        "player": args.player,
        "episodes": len(figures),
        "raw_score": raw_name,
        "progress_score": progress_name,
        "notes": notes,
    }
    if figures:
        result["raw"] = summarise(values_of(figures, "raw")).to_json()
        progress = values_of(figures, "progress")
        if progress:
            result["progress"] = summarise(progress).to_json()
    if args.json:
        print(json.dumps(result, indent=2))
    elif figures:
        _print(result, where)
    if not figures:
        why = f" (no finished human sessions of {game.id} in {where})" if human else ""
        err("no episode counted" + why)
        return EXIT_FAILURE
    return EXIT_OK


def _played_figures(
    game: Any, args: argparse.Namespace, options: dict[str, Any]
) -> tuple[list[Any], list[str]]:
    from desktop.cli.run import _validate_specs
    from engine.baseline import play_episodes
    from engine.roster import make_player

    _validate_specs([args.player])
    try:
        make_player(args.player, game, seed=args.seed)  # a bad spec is a usage error before any episode
    except (ValueError, LookupError) as exc:
        raise UsageError(one_line(exc)) from exc
    record = None
    if args.out is not None:
        from desktop.episode import session_recorder

        args.out.mkdir(parents=True, exist_ok=True)
        record = session_recorder(args.out)
    figures, stats = asyncio.run(play_episodes(
        game.id, args.player, episodes=args.episodes, seed=args.seed, options=options,
        max_steps=args.max_steps, concurrency=args.concurrency, record=record,
    ))
    notes = [f"seed {s.seed}: {s.status}" + (f" ({s.error})" if s.error else "")
             for s in stats if s.status not in ("completed", "max_steps")]
    return figures, notes


def _human_sessions(root: Path) -> Iterator[Any]:
    from sessions.catalogue import Catalogue

    yield from Catalogue(root).list()


def _human_figures(game: Any, args: argparse.Namespace) -> tuple[list[Any], list[str]]:
    from engine.baseline import episode_figures
    from sessions.errors import SessionError
    from sessions.reader import load_session

    root = args.sessions or default_root()
    if not root.is_dir():
        raise UsageError(f"{root} is not a folder of sessions")
    figures, notes = [], []
    for summary in _human_sessions(root):
        if summary.game != game.id or summary.demo or summary.damaged:
            continue
        try:
            session = load_session(summary.path)
        except SessionError as exc:
            notes.append(f"{summary.id}: {one_line(exc)}")
            continue
        players = session.manifest.get("players") or []
        if not players or any(not isinstance(p, dict) or p.get("kind") != HUMAN for p in players):
            continue
        study = (session.manifest.get("extra") or {}).get("study") or {}
        if args.study is not None and (study.get("id") != args.study or study.get("practice")):
            continue
        finished = next((e for e in reversed(session.events) if e.get("type") == "session_finished"), None)
        if finished is None:
            continue
        fig = episode_figures(game, finished.get("data") or {}, steps=session.num_steps,
                              seed=session.manifest.get("seed"), source=summary.id)
        if fig is not None:
            figures.append(fig)
    return figures, notes


def _print(result: dict[str, Any], where: str) -> None:
    console = stdout_console()
    who = f"people's sessions in {where}" if where else f"{result['player']}"
    console.print(f"{result['game']}: {result['episodes']} episodes, {who}", soft_wrap=True)
    table = compact_table()
    for header in ("figure", "mean ± SD", "SE", "min", "max", "n"):
        table.add_column(header, justify="left" if header == "figure" else "right")
    for key, name in (("raw", result["raw_score"]), ("progress", result["progress_score"])):
        s = result.get(key)
        if s is None or name is None:
            continue
        table.add_row(f"{key} ({name})", mean_sd(s["mean"], s["sd"]), num(float(f"{s['se']:.4g}")),
                      num(s["low"]), num(s["high"]), num(s["n"]))
    console.print(table)
    for note in result["notes"][:10]:
        console.print(f"  {note}", soft_wrap=True)
