"""``playtrace search`` over many sessions: the first (full) index, a query, and a query after the
index is up to date (nothing changed) and after one new session.

Run from the repository root::

    .venv/bin/python benchmarks/bench_search.py [--sessions 10000]

Sessions are recorded once by the real match loop (the simulated model against random at tic-tac-toe,
five of them with different seeds) and copied to make up the count, in a temporary folder.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop import cli  # noqa: E402
from sessions.search import SearchIndex, find_sessions  # noqa: E402

QUERY = (
    "SELECT player, count(*), avg(parsed), sum(fallback), sum(questions_correct) FROM steps GROUP BY player"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=10_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        seeds = root / "seed"
        code = cli.main(
            [
                "run",
                "tictactoe",
                "-p",
                "sim",
                "-p",
                "random",
                "-n",
                "5",
                "--sim-error-rate",
                "0.3",
                "--out",
                str(seeds),
            ]
        )
        assert code == 0
        originals = list(find_sessions(seeds))
        runs = root / "runs"
        t0 = time.perf_counter()
        for i in range(args.sessions):
            src = originals[i % len(originals)]
            shutil.copytree(src, runs / f"{i // 1000:03d}" / f"{src.name}-{i:06d}")
        copy_s = time.perf_counter() - t0
        size = sum(p.stat().st_size for p in runs.rglob("events.jsonl"))
        print(f"{args.sessions:,} sessions ({size / 1e6:.1f} MB of events) copied in {copy_s:.1f} s")

        cache = root / "index.sqlite"
        t0 = time.perf_counter()
        with SearchIndex(runs, cache) as index:
            stats = index.update()
            t_index = time.perf_counter() - t0
            t1 = time.perf_counter()
            rows = index.query(QUERY).rows
            t_query = time.perf_counter() - t1
        print(
            f"first query: index {stats.read:,} sessions {t_index:.2f} s, query {t_query * 1000:.1f} ms "
            f"({len(rows)} rows)"
        )

        t0 = time.perf_counter()
        with SearchIndex(runs, cache) as index:
            stats = index.update()
            index.query(QUERY)
        t_again = time.perf_counter() - t0
        print(f"next query, nothing changed: {t_again:.2f} s (sessions read again: {stats.read})")

        shutil.copytree(originals[0], runs / "new" / "one-more")
        t0 = time.perf_counter()
        with SearchIndex(runs, cache) as index:
            stats = index.update()
            index.query(QUERY)
        print(f"next query, one new session: {time.perf_counter() - t0:.2f} s (read: {stats.read})")

        t0 = time.perf_counter()
        code = cli.main(["search", str(runs), QUERY, "--no-cache", "--format", "csv"])
        print(
            f"`playtrace search --no-cache` (index in memory, then query): {time.perf_counter() - t0:.2f} s"
        )


if __name__ == "__main__":
    main()
