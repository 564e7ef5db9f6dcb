"""The installer bundle's size and how long it takes to show its window.

Measures the PyInstaller one-folder bundle (``dist/playtrace/`` by default, or ``--bundle DIR``; with
``--build``, builds one first with ``packaging/build.sh --no-deb`` into a scratch folder):

- its size on disk (regular files; symbolic links are not counted twice) and its largest parts;
- its start-up time: from starting ``playtrace`` to its first window being on screen, taken from the
  ``playtrace: window shown`` line the app prints when ``PLAYTRACE_EXIT_WHEN_SHOWN=1`` (it then
  closes). Each start gets a fresh home folder (a first start, as an annotator's), a clean environment
  and, unless ``DISPLAY`` is set, Qt's offscreen platform. The first start is reported apart: it reads
  the bundle from disk, the later ones mostly from the page cache.

Goals: a bundle under 200 MB, a window in under 2 s.

Run with ``.venv/bin/python benchmarks/bench_bundle.py [--bundle DIR | --build] [--starts N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SIZE_GOAL_MB = 200
WINDOW_GOAL_S = 2.0
SHOWN = "playtrace: window shown"


def bundle_size(bundle: Path) -> tuple[float, list[tuple[float, str]]]:
    """Total megabytes and the ten largest top-level parts of ``_internal`` (megabytes, name)."""
    def size(path: Path) -> int:
        if path.is_symlink():
            return 0
        if path.is_file():
            return path.stat().st_size
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())

    total = size(bundle) / 1e6
    internal = bundle / "_internal"
    parts = [(size(p) / 1e6, p.name) for p in internal.iterdir()] if internal.is_dir() else []
    return total, sorted(parts, reverse=True)[:10]


def time_to_window(executable: Path, scratch: Path, timeout: float = 60) -> float:
    """Seconds from starting ``executable`` to its ``window shown`` line."""
    home = Path(tempfile.mkdtemp(dir=scratch, prefix="home-"))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "PLAYTRACE_EXIT_WHEN_SHOWN": "1"}
    if os.environ.get("DISPLAY"):
        env["DISPLAY"] = os.environ["DISPLAY"]
    else:
        env["QT_QPA_PLATFORM"] = "offscreen"
    started = time.perf_counter()
    proc = subprocess.Popen(
        [str(executable)], cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert proc.stdout is not None
    shown = None
    for line in proc.stdout:
        if line.strip() == SHOWN:
            shown = time.perf_counter() - started
            break
        if time.perf_counter() - started > timeout:
            break
    proc.stdout.close()
    if proc.wait(timeout=timeout) != 0 or shown is None:
        raise SystemExit(f"bench_bundle: {executable} did not show its window (exit code {proc.returncode})")
    return shown


def build(scratch: Path) -> Path:
    dist = scratch / "dist"
    env = {**os.environ, "PYTHON": sys.executable, "PLAYTRACE_DIST_DIR": str(dist),
           "PLAYTRACE_WORK_DIR": str(scratch / "work")}
    print("building the bundle with packaging/build.sh --no-deb ...", flush=True)
    started = time.perf_counter()
    subprocess.run([str(REPO / "packaging" / "build.sh"), "--no-deb"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    print(f"built in {time.perf_counter() - started:.0f} s")
    return dist / "playtrace"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--bundle", type=Path, default=REPO / "dist" / "playtrace", help="the bundle's folder")
    where.add_argument("--build", action="store_true", help="build a bundle first, in a scratch folder")
    parser.add_argument("--starts", type=int, default=5, metavar="N", help="starts timed (default 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-bundle-") as tmp:
        scratch = Path(tmp)
        bundle = build(scratch) if args.build else args.bundle
        executable = bundle / ("playtrace.exe" if sys.platform == "win32" else "playtrace")
        if not executable.is_file():
            print(f"bench_bundle: no bundle at {bundle}; build one with packaging/build.sh, or pass --build",
                  file=sys.stderr)
            return 2
        total, parts = bundle_size(bundle)
        verdict = "within" if total < SIZE_GOAL_MB else "OVER"
        print(f"bundle size: {total:.1f} MB ({verdict} the {SIZE_GOAL_MB} MB goal)")
        for mb, name in parts:
            print(f"  {mb:7.1f} MB  {name}")
        times = [time_to_window(executable, scratch) for _ in range(max(1, args.starts))]
        first, rest = times[0], times[1:] or times
        median = statistics.median(rest)
        verdict = "within" if median < WINDOW_GOAL_S else "OVER"
        print(f"first window: first start {first:.2f} s; later starts median {median:.2f} s, "
              f"best {min(rest):.2f} s ({verdict} the {WINDOW_GOAL_S:.0f} s goal)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
