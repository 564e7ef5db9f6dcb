"""``playtrace leaderboard DIR ...``: per game each suite's figures, and the cross-suite view.

Per game and player: episodes, the headline figure the game declares (LMGame-Bench's raw score, the
win score S for games of several seats, else the score), the score with its standard error, S, the
intermediate-answer accuracy I, and the headline normalised to [0, 1] between the lowest and highest
player on the board; overall, the mean normalised headline over the games each player played. As a
table, Markdown, CSV, JSON or one self-contained HTML page (``--format``, ``--out FILE``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from desktop.cli.common import EXIT_OK, UsageError, compact_table, stdout_console

COMMAND = "leaderboard"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        COMMAND,
        parents=[common],
        help="leaderboards per game and across the suites",
        description="Per game, each player's figures as its suite reports them (score ± SE, S, I, raw and "
        "progress scores, points); overall, each game's headline normalised per game and averaged.",
    )
    p.add_argument("folders", type=Path, nargs="+", metavar="DIR", help="folders of sessions (any depth)")
    p.add_argument("--game", default=None, metavar="GAME", help="one game's board only")
    p.add_argument("--format", choices=("table", "md", "csv", "json", "html"), default="table")
    p.add_argument("--out", type=Path, default=None, metavar="FILE", help="write the board to FILE")


def run(args: argparse.Namespace) -> int:
    from sessions.leaderboard import build, to_csv, to_html, to_markdown
    from sessions.search import SearchIndex

    for folder in args.folders:
        if not folder.is_dir():
            raise UsageError(f"{folder} is not a folder of sessions")
    indexes = [SearchIndex(folder) for folder in args.folders]
    try:
        for index in indexes:
            index.update()
        board = build(indexes, args.game)
    finally:
        for index in indexes:
            index.close()
    if not board.entries:
        what = f"of {args.game} " if args.game else ""
        raise UsageError(f"no finished session {what}under the folders")
    if args.out is not None:
        _check_out(args.out, args.folders)
    text = {
        "md": lambda: to_markdown(board),
        "csv": lambda: to_csv(board),
        "html": lambda: to_html(board),
        "json": lambda: json.dumps(board.to_json(), indent=1) + "\n",
    }.get(args.format)
    if text is not None:
        out = text()
        if args.out is not None:
            args.out.write_text(out, encoding="utf-8")
            print(args.out)
        else:
            print(out, end="")
        return EXIT_OK
    _print(board)
    if args.out is not None:
        args.out.write_text(to_markdown(board), encoding="utf-8")
    return EXIT_OK


def _print(board: Any) -> None:
    from sessions.leaderboard import _overall_rows, _rows

    console = stdout_console()
    head, rows = _overall_rows(board)
    console.print(
        "Overall: each game's headline normalised to [0, 1] (lowest to highest player), averaged",
        soft_wrap=True,
    )
    t = compact_table()
    for h in head:
        t.add_column(h, justify="left" if h == "player" else "right")
    for r in rows:
        t.add_row(*r)
    console.print(t)
    head, rows = _rows(board)
    t = compact_table()
    for h in head:
        t.add_column(h, justify="left" if h in ("game", "player", "headline") else "right", no_wrap=True)
    for r in rows:
        t.add_row(*r)
    console.print(t)


def _check_out(out: Path, folders: list[Path]) -> None:
    from sessions.search import find_sessions

    target = out.resolve()
    for folder in folders:
        for session in find_sessions(folder):
            if target.is_relative_to(session.resolve()):
                raise UsageError(
                    f"--out {out} is inside the session {session.name}; only PlayTrace's "
                    "session writer writes there"
                )
