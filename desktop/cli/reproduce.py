"""``playtrace reproduce``: a paper's protocol in one command, and its tables beside the paper's.

- ``playtrace reproduce ID|FILE --player SPEC [--games a,b] [--episodes N] [--out DIR] [--ray ADDRESS]``
  plays the protocol (a shipped id or a protocol file a user edited): each of its runs is a sweep in
  ``DIR/<run>`` played by the sweep machinery (resumable: run the same command again after a stop; on Ray
  with ``--ray``), LVLM-Playground's task sets are made and answered in ``DIR/tasks``; then the report
  is printed. Without ``--player`` only the baseline runs play (random and the built-in bots).
- ``playtrace reproduce report DIR [--json]`` prints the paper's tables from ``DIR`` (ours beside the
  published rows, each baseline row checked against the paper's interval) and writes them, with the
  figures, as Markdown, CSV, LaTeX, PNG and SVG into ``DIR/report``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop.cli.common import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, UsageError, err, stdout_console
from engine.safeio import InputError, read_json

COMMAND = "reproduce"
#: What ``playtrace reproduce`` keeps beside the runs: the protocol as played and how it was called.
PROTOCOL_FILE = "protocol.toml"
META_FILE = "reproduce.json"
REPORT_DIR = "report"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        COMMAND, parents=[common], help="run a paper's protocol and print its tables beside the paper's",
        description="playtrace reproduce ID|FILE --player SPEC plays a paper's protocol (see `playtrace "
        "protocols`); playtrace reproduce report DIR prints its tables beside the published ones.")
    p.add_argument("what", metavar="ID | FILE | report DIR",
                   help="a shipped protocol id, a protocol file, or report followed by a results folder")
    p.add_argument("path", nargs="?", default=None, help=argparse.SUPPRESS)
    p.add_argument("--player", "-p", default=None, metavar="SPEC",
                   help="the model under test: sim, openai:MODEL, anthropic:MODEL, local:MODEL@URL "
                   "(without it only the baseline runs play)")
    p.add_argument("--games", default=None, metavar="A,B", help="only these games (labels or ids)")
    p.add_argument("--episodes", "-n", type=int, default=None, metavar="N",
                   help="episodes per cell (and items per task set) instead of the protocol's: a first look")
    p.add_argument("--max-steps", type=int, default=None, metavar="N",
                   help="cap every episode at N steps instead of the protocol's caps: a quick look whose "
                   "scores are not the paper's")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="the results folder (default: ./<protocol id>-reproduction)")
    p.add_argument("--input", action="append", default=[], metavar="NAME=DIR",
                   help="a folder the protocol needs (gvgai-llm: --input gvgai=DIR of GVGAI's games)")
    p.add_argument("--ray", default=None, metavar="ADDRESS", help="play the episodes as Ray tasks (or local)")
    p.add_argument("--concurrency", "-j", type=int, default=None, metavar="N", help="episodes at once")
    p.add_argument("--dry-run", action="store_true", help="show what would be played, play nothing")
    p.add_argument("--json", action="store_true", help="report: print JSON instead of tables")
    p.add_argument("--no-files", action="store_true", help="report: do not write DIR/report")


def run(args: argparse.Namespace) -> int:
    if args.what == "report":
        if not args.path:
            raise UsageError("usage: playtrace reproduce report DIR")
        return report(Path(args.path), as_json=args.json, files=not args.no_files)
    if args.path is not None:
        raise UsageError(f"unexpected {args.path!r}: give one protocol (or report DIR)")
    return reproduce(args)


# -- playing --------------------------------------------------------------------------------------------


def _inputs(values: Sequence[str]) -> dict[str, str]:
    out = {}
    for value in values:
        name, sep, folder = value.partition("=")
        if not sep or not name.strip() or not folder.strip():
            raise UsageError(f"--input {value!r}: expected NAME=DIR")
        path = Path(folder.strip()).expanduser()
        if not path.is_dir():
            raise UsageError(f"--input {name}: {path} is not a folder")
        out[name.strip()] = str(path.resolve())
    return out


def load_plan(args: argparse.Namespace) -> Any:
    """The protocol named on the command line, planned for its player (a usage error for a mistake)."""
    from engine.protocols import ProtocolFileError, load_protocol, plan

    if args.episodes is not None and args.episodes < 1:
        raise UsageError("--episodes must be at least 1")
    if args.max_steps is not None and args.max_steps < 1:
        raise UsageError("--max-steps must be at least 1")
    if args.player is not None:
        from desktop.cli.run import _validate_specs

        _validate_specs([args.player])
    try:
        protocol = load_protocol(args.what)
        games = [g for g in (args.games or "").split(",") if g.strip()] or None
        return plan(protocol, player=args.player, games=games, episodes=args.episodes,
                    inputs=_inputs(args.input), max_steps=args.max_steps)
    except ProtocolFileError as exc:
        raise UsageError(str(exc)) from None


def _check_folder(out: Path, the_plan: Any) -> None:
    """The folder is new, or holds a reproduction of the same protocol by the same player."""
    meta = out / META_FILE
    if not meta.exists():
        return
    try:
        old = read_json(meta, cap=1024 * 1024)
    except (OSError, ValueError, InputError):
        raise UsageError(f"{meta} is damaged; choose another --out") from None
    if old.get("protocol") != the_plan.protocol.id:
        raise UsageError(f"{out} holds a reproduction of {old.get('protocol')}; choose another --out")
    if old.get("player") not in (None, the_plan.player) and the_plan.player is not None:
        raise UsageError(f"{out} holds a reproduction with --player {old.get('player')}; "
                         "choose another --out")


def reproduce(args: argparse.Namespace) -> int:
    the_plan = load_plan(args)
    protocol = the_plan.protocol
    out = args.out if args.out is not None else Path(f"{protocol.id}-reproduction")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: expected a folder")
    _check_folder(out, the_plan)
    for note in the_plan.skipped:
        err(f"skipped {note}")
    sets = len(the_plan.tasks)
    print(f"protocol {protocol.id} ({protocol.title}): {len(the_plan.runs)} run(s), "
          f"{the_plan.episodes} episodes" + (f", {sets} task set(s)" if sets else ""), file=sys.stderr)
    if args.dry_run:
        for planned in the_plan.runs:
            s = planned.sweep
            print(f"  run {planned.run.name}: {len(s.cells)} cells × {len(s.seeds)} episodes",
                  file=sys.stderr)
        for t in the_plan.tasks:
            print(f"  tasks {t.game} {t.task}: {t.n} items, answered by {', '.join(t.players)}",
                  file=sys.stderr)
        return EXIT_OK
    out.mkdir(parents=True, exist_ok=True)
    (out / PROTOCOL_FILE).write_text(protocol.source, encoding="utf-8")
    old_player = None
    if (out / META_FILE).exists():
        kept = read_json(out / META_FILE, cap=1024 * 1024)
        old_player = kept.get("player") if isinstance(kept, dict) else None
    meta = {"protocol": protocol.id, "player": the_plan.player or old_player,
            "source": str(args.what), "runs": [p.run.name for p in the_plan.runs], "command": command(args),
            "inputs": _inputs(args.input), "max_steps": args.max_steps}
    (out / META_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    missing = 0
    try:
        for planned in the_plan.runs:
            missing += play_run(planned, out / planned.run.name, ray=args.ray, concurrency=args.concurrency)
        for task_set in the_plan.tasks:
            play_tasks(task_set, out / "tasks", concurrency=args.concurrency or protocol.concurrency)
    except (KeyboardInterrupt, asyncio.CancelledError):
        err("interrupted: run the same command again to play what is missing")
        return EXIT_INTERRUPTED
    if missing:
        err(f"{missing} episode(s) missing: run the same command again to play them")
    code = report(out, as_json=False, files=True)
    return EXIT_FAILURE if missing else code


def command(args: argparse.Namespace) -> str:
    """The command line that plays this reproduction (input folders shown by name, not path)."""
    parts = ["playtrace", "reproduce", str(args.what)]
    for flag, value in (("--player", args.player), ("--games", args.games), ("--episodes", args.episodes),
                        ("--max-steps", args.max_steps)):
        if value is not None:
            parts += [flag, str(value)]
    parts += [f"--input {v.partition('=')[0]}=DIR" for v in args.input]
    return " ".join(parts)


def play_run(planned: Any, folder: Path, *, ray: str | None = None, concurrency: int | None = None) -> int:
    """Play one run's sweep into ``folder`` (what is missing only); returns the episodes still missing."""
    from desktop.cli.common import until_sigterm
    from desktop.cli.sweep import _Bars, _check_keys, _estimate, board_png
    from desktop.episode import session_recorder
    from engine.sweep import SweepRunner

    sweep = planned.sweep
    _check_keys(sweep)
    (folder).mkdir(parents=True, exist_ok=True)
    runner = SweepRunner(sweep, folder, record=session_recorder, render=board_png, concurrency=concurrency)
    try:
        index = runner.open()
        done = index.done_keys()
        jobs = runner.pending()
        print(f"run {planned.run.name}: {len(sweep.episodes) - len(jobs)}/{len(sweep.episodes)} done, "
              f"{len(jobs)} to play", file=sys.stderr)
        if any(s.split(":", 1)[0] in ("openai", "anthropic") for j in jobs for s in j.specs):
            cost, notes = _estimate(sweep, jobs)
            if cost is not None:
                print(f"  estimated cost of what is left: about ${cost:.2f}", file=sys.stderr)
            for note in notes:
                print(f"  cost estimate unknown for {note}", file=sys.stderr)
        if not jobs:
            return 0
        bars = _Bars(sweep, done, enabled=sys.stderr.isatty())
        runner.on_done = bars.episode
        runner.on_notice = bars.say
        with bars:
            if ray:
                from engine.sweep.ray_runner import run_on_ray

                try:
                    import ray as _ray  # noqa: F401
                except ImportError:
                    raise UsageError("--ray needs Ray: pip install 'playtrace[ray]'") from None
                run_on_ray(runner, ray)
            else:
                asyncio.run(until_sigterm(runner.run(), []))
        return len(runner.pending())
    finally:
        runner.close()


def play_tasks(task_set: Any, root: Path, *, concurrency: int) -> None:
    """Make one LVLM task set (unless it is there) and let each player answer it (unless it has)."""
    from desktop.cli.common import ensure_offscreen_qt
    from desktop.cli.tasks import _label
    from engine.tasks import (
        evaluate,
        generate,
        load_task_set,
        player_slug,
        write_results,
        write_task_set,
    )

    folder = root / task_set.folder
    size = task_set.image_size
    if (folder / "manifest.json").exists():
        ts = load_task_set(folder)
        if ts.n != task_set.n or ts.seed != task_set.seed:
            raise UsageError(f"{folder} holds {ts.n} items of seed {ts.seed}, not {task_set.n} of seed "
                             f"{task_set.seed}; choose another --out")
    else:
        ensure_offscreen_qt()
        import renderers

        kwargs: dict[str, Any] = {"image_size": (size, size)} if size else {}
        ts = generate(task_set.game, task_set.task, task_set.n, task_set.seed, **kwargs)
        write_task_set(ts, folder, renderers.get(task_set.game).png)
        ts = load_task_set(folder)
    for spec in task_set.players:
        if (folder / "results" / f"{player_slug(spec)}.json").exists():
            continue
        print(f"tasks {task_set.game} {task_set.task}: {spec} answers {ts.n} items", file=sys.stderr)
        results = asyncio.run(evaluate(ts, spec, concurrency=concurrency))
        write_results(folder, ts, spec, _label(spec), results)


# -- reporting ------------------------------------------------------------------------------------------


def report(folder: Path, *, as_json: bool, files: bool) -> int:
    from desktop.reproduction import build_report, print_report, write_files

    if not (folder / PROTOCOL_FILE).is_file():
        raise UsageError(f"{folder} is not a reproduction folder (no {PROTOCOL_FILE}); "
                         "run playtrace reproduce ID --out DIR first")
    rep = build_report(folder)
    if as_json:
        print(json.dumps(rep.to_json(), indent=2, default=str))
    else:
        print_report(rep, stdout_console())
    if files:
        written = write_files(rep, folder / REPORT_DIR)
        if not as_json:
            print(f"tables and figures: {folder / REPORT_DIR} ({len(written)} files)", file=sys.stderr)
    return EXIT_OK
