"""``playtrace search DIR SQL``: one SQL query over every decision of every session under DIR.

The tables (``steps``: one row per decision; ``sessions``; ``questions``: one row per checked
intermediate answer) are documented by ``playtrace search --schema`` and :data:`sessions.search.TABLES`.
Results print as a table, or as CSV or JSON (``--format``). The index is kept in PlayTrace's user data
folder and brought up to date before each query (only sessions whose event log changed are read), so
the first query over a large folder takes a while and the next ones answer at once.

Examples::

    playtrace search runs/ "SELECT game, player, avg(parsed) FROM steps GROUP BY 1, 2"
    playtrace search runs/ "SELECT session, step, answer FROM steps WHERE fallback" --format csv
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any

from desktop.cli.common import EXIT_OK, EXIT_USAGE, UsageError, compact_table, err, one_line, stdout_console

COMMAND = "search"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        COMMAND,
        parents=[common],
        help="query every decision under a folder with SQL",
        description="Run one read-only SQL query over every session under DIR: table steps (one row per "
        "decision), sessions and questions. `playtrace search --schema` lists their columns.",
        epilog='example: playtrace search runs/ "SELECT game, player, avg(parsed) FROM steps GROUP BY 1, 2"',
    )
    p.add_argument(
        "folder", type=Path, nargs="?", metavar="DIR", help="a folder of sessions (searched at any depth)"
    )
    p.add_argument("sql", nargs="?", metavar="SQL", help="one SELECT statement")
    p.add_argument("--schema", action="store_true", help="print the tables and their columns, and exit")
    p.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="how results are printed (default: table)",
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="index in memory for this query only (nothing kept in the user data folder)",
    )
    p.add_argument(
        "--max-width",
        type=int,
        default=60,
        metavar="N",
        help="cut cells longer than N characters in the table format (0: never)",
    )


def run(args: argparse.Namespace) -> int:
    from sessions.search import QueryError, SearchIndex, schema_text

    if args.schema:
        print(schema_text())
        return EXIT_OK
    if args.folder is None or args.sql is None:
        raise UsageError("search needs a folder and a query: playtrace search DIR SQL (or --schema)")
    folder: Path = args.folder
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder of sessions")
    if not args.sql.strip():
        raise UsageError("the query is empty")
    with SearchIndex(folder, ":memory:" if args.no_cache else None) as index:
        stats = index.update(_progress if sys.stderr.isatty() else None)
        if sys.stderr.isatty():
            print("\r\033[K", end="", file=sys.stderr)
        for problem in stats.skipped[:5]:
            err(f"skipped {problem}")
        if len(stats.skipped) > 5:
            err(f"skipped {len(stats.skipped) - 5} more damaged sessions")
        try:
            result = index.query(args.sql)
        except QueryError as exc:
            err(f"the query failed: {one_line(exc)}")
            return EXIT_USAGE
    if args.format == "json":
        print(
            json.dumps(
                [dict(zip(result.columns, row, strict=True)) for row in result.rows],
                indent=1,
                ensure_ascii=False,
            )
        )
    elif args.format == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(result.columns)
        writer.writerows(result.rows)
    else:
        _table(result.columns, result.rows, args.max_width)
        noun = "row" if len(result.rows) == 1 else "rows"
        print(f"{len(result.rows):,} {noun} from {stats.sessions:,} sessions")
    return EXIT_OK


def _progress(done: int, total: int) -> None:
    print(f"\rindexing sessions: {done:,} / {total:,}", end="", file=sys.stderr, flush=True)


def _cell(value: Any, width: int) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        text = f"{value:.4g}"
    else:
        text = " ".join(str(value).split())
    return text if width <= 0 or len(text) <= width else text[: width - 1] + "…"


def _table(columns: tuple[str, ...], rows: list[tuple[Any, ...]], width: int) -> None:
    table = compact_table()
    for name in columns:
        table.add_column(name, overflow="ellipsis", no_wrap=True)
    for row in rows:
        table.add_row(*(_cell(v, width) for v in row))
    stdout_console().print(table)
