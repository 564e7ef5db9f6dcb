"""``playtrace protocols``: the papers' protocols PlayTrace ships.

- ``playtrace protocols`` lists them (id, paper, games, episodes);
- ``playtrace protocols show ID`` prints one as the file it is, to copy, edit and run as your own:
  ``playtrace protocols show lmgame-bench > mine.toml`` then ``playtrace reproduce mine.toml --player SPEC``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from desktop.cli.common import EXIT_OK, UsageError, compact_table, stdout_console

COMMAND = "protocols"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(COMMAND, parents=[common], help="the papers' protocols PlayTrace ships",
                       description="List the shipped protocols, or print one (show ID) as a file to copy, "
                       "edit and run with playtrace reproduce FILE.")
    p.add_argument("what", nargs="?", default=None, metavar="show",
                   help="show ID prints a protocol file")
    p.add_argument("id", nargs="?", default=None, metavar="ID", help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true", help="list as JSON")


def run(args: argparse.Namespace) -> int:
    from engine.protocols import ProtocolFileError, load_protocol, shipped, shipped_text

    if args.what is None:
        rows = []
        for pid in shipped():
            p = load_protocol(pid)
            episodes = sum(r.episodes * len(r.players) * len(p.games if r.games is None else r.games)
                           * (len(r.variants) or 1) for r in p.runs)
            rows.append({"id": pid, "title": p.title, "paper": p.paper, "games": len(p.games),
                         "runs": [r.name for r in p.runs], "task_sets": sum(len(t.games) * len(t.tasks)
                                                                             for t in p.tasks),
                         "episodes": episodes, "deviations": len(p.deviations)})
        if args.json:
            print(json.dumps(rows, indent=2))
            return EXIT_OK
        console = stdout_console()
        table = compact_table()
        for name, justify in (("id", "left"), ("title", "left"), ("games", "right"), ("episodes", "right"),
                              ("runs", "left")):
            table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
        for r in rows:
            extra = f" + {r['task_sets']} task sets" if r["task_sets"] else ""
            table.add_row(r["id"], r["title"], str(r["games"]), f"{r['episodes']}{extra}",
                          ", ".join(r["runs"]))
        console.print(table)
        console.print("Print one to copy and edit: playtrace protocols show ID > mine.toml; run it: "
                      "playtrace reproduce ID|FILE --player SPEC", soft_wrap=True)
        return EXIT_OK
    if args.what != "show" or not args.id:
        raise UsageError("usage: playtrace protocols [show ID]")
    try:
        print(shipped_text(args.id), end="")
    except ProtocolFileError as exc:
        raise UsageError(str(exc)) from None
    return EXIT_OK
