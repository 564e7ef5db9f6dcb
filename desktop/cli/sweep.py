"""``playtrace sweep``: a grid of games, players and harness settings, run as one resumable thing.

- ``playtrace sweep init FILE`` writes a small commented sweep file that plays offline in seconds;
- ``playtrace sweep FILE [--out DIR] [--ray ADDRESS|local]`` shows the sweep's size and estimated cost,
  then plays the episodes ``DIR`` does not hold yet (here with asyncio, or as Ray tasks), with a
  progress bar per game, lineup and harness setting. Killed at any moment and started again, it plays
  only what is missing (:mod:`engine.sweep.index`);
- ``playtrace sweep report DIR`` prints the grid of raw-score means ± SE per cell and, for games of
  LMGame-Bench, its harness ablation (ZS / +Memory / +Perception / +Both).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from desktop.cli.common import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    UsageError,
    check_output,
    compact_table,
    ensure_offscreen_qt,
    err,
    mean_sd,
    money,
    num,
    one_line,
    stdout_console,
    until_sigterm,
)
from engine.safeio import read_text

COMMAND = "sweep"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        COMMAND, parents=[common],
        help="a grid of games, players and harness settings, run as one resumable thing",
        description="playtrace sweep FILE plays a sweep file (resumable: run it again after a stop); "
        "playtrace sweep init FILE writes an example; playtrace sweep report DIR prints the results.",
    )
    p.add_argument("what", metavar="FILE | init FILE | report DIR",
                   help="a sweep file (TOML), or init / report followed by a path")
    p.add_argument("path", nargs="?", default=None, help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="the results folder (default: FILE's name with -results, beside it)")
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="run the episodes as Ray tasks: a cluster's address, or local")
    p.add_argument("--concurrency", "-j", type=int, default=None, metavar="N",
                   help="episodes played at once (default: the file's concurrency)")
    p.add_argument("--dry-run", action="store_true", help="show the size and cost estimate, play nothing")
    p.add_argument("--json", action="store_true", help="report: print JSON instead of tables")
    p.add_argument("--force", action="store_true", help="init: overwrite an existing file")


def run(args: argparse.Namespace) -> int:
    if args.what == "init":
        return _init(_needs_path(args, "init FILE"), force=args.force)
    if args.what == "report":
        return _report(_needs_path(args, "report DIR"), as_json=args.json)
    if args.path is not None:
        raise UsageError(f"unexpected {args.path!r}: give one sweep file (or init FILE / report DIR)")
    return _sweep(Path(args.what), args)


def _needs_path(args: argparse.Namespace, usage: str) -> Path:
    if not args.path:
        raise UsageError(f"usage: playtrace sweep {usage}")
    return Path(args.path)


# -- init --------------------------------------------------------------------------------------------


def _init(path: Path, *, force: bool) -> int:
    from engine.sweep import EXAMPLE

    if path.exists() and not force:
        raise UsageError(f"{path} exists; choose another name or add --force")
    try:
        path.write_text(EXAMPLE, encoding="utf-8")
    except OSError as exc:
        err(f"cannot write {path}: {exc.strerror or exc}")
        return EXIT_FAILURE
    print(f"wrote {path}; run it with: playtrace sweep {path}")
    return EXIT_OK


# -- running -----------------------------------------------------------------------------------------


def board_png(game_id: str) -> Callable[..., bytes] | None:
    """The board as PNG bytes for vision models, drawn offscreen (called on every Ray worker too)."""
    ensure_offscreen_qt()
    from desktop.episode import png_renderer

    return png_renderer(game_id)


def _load(path: Path) -> Any:
    from engine.sweep import SweepFileError, load_sweep

    try:
        return load_sweep(path)
    except SweepFileError as exc:
        raise UsageError(str(exc)) from None


def _check_keys(sweep: Any) -> None:
    from desktop.cli.models import KEY_VARS, key_present

    for cell in sweep.cells:
        for spec in cell.lineup.specs:
            prefix = spec.split(":", 1)[0]
            if prefix in KEY_VARS and not key_present(prefix):
                raise UsageError(f"no API key for {prefix}: set {KEY_VARS[prefix]} or add one in the app's "
                                 "settings (check with `playtrace check-model`)")


def _check_caps_enforceable(sweep: Any) -> None:
    """Refuse a spending cap that could never trigger: a paid model the price table does not know."""
    given = (("sweep_usd", sweep.sweep_usd), ("session_hard_usd", sweep.session_hard_usd))
    caps = [name for name, value in given if value is not None]
    if not caps:
        return
    from engine.llm import pricing

    for spec in dict.fromkeys(s for c in sweep.cells for s in c.lineup.specs):
        if spec.split(":", 1)[0] in ("openai", "anthropic"):
            note = pricing.price_note(spec)
            if note is not None:
                raise UsageError(f"[budget] {' and '.join(caps)} cannot be enforced for {spec}: {note}")


def _estimate(sweep: Any, jobs: list[Any]) -> tuple[float | None, list[str]]:
    """The cost of the episodes still to play, on the basis ``playtrace run`` estimates a batch with
    (:mod:`desktop.cli.run`'s tokens per step and the price table); notes for models it cannot price."""
    from desktop.cli import run as cli_run
    from engine.llm import pricing

    total: float | None = 0.0
    notes: list[str] = []
    for job in jobs:
        paid = [s for s in job.specs if s.split(":", 1)[0] in ("openai", "anthropic")]
        if not paid:
            continue
        opts = job.model_options
        tin = cli_run._EST_INPUT_TOKENS + (
            cli_run._EST_IMAGE_TOKENS if opts.get("perception") in ("image", "both") else 0)
        tout = cli_run._EST_OUTPUT_TOKENS
        if opts.get("thinking"):
            tout += int(opts.get("thinking_budget") or cli_run._EST_THINKING_TOKENS)
        if opts.get("reflection", True):
            tin += cli_run._EST_REFLECTION_TOKENS[0]
            tout += cli_run._EST_REFLECTION_TOKENS[1]
        import engine

        game = engine.make(job.game_id, **dict(job.options))
        steps = job.max_steps or game.max_episode_steps or cli_run._EST_STEPS_PER_EPISODE
        per_seat = steps if game.simultaneous else math.ceil(steps / game.num_seats)
        seats = list(job.specs) * game.num_seats if len(job.specs) == 1 else list(job.specs)
        for spec in seats:
            if spec not in paid:
                continue
            est = pricing.estimate(spec, tin, tout, per_seat)
            if est.cost is None:
                note = f"{spec}: {est.note or 'no price'}"
                if note not in notes:
                    notes.append(note)
            elif total is not None:
                total += est.cost
    return total, notes


def _describe(sweep: Any, done: int, jobs: list[Any], out: Path) -> None:
    per_game = sorted({len(g.lineups or sweep.lineups) for g in sweep.games})
    lineups = str(per_game[0]) if len(per_game) == 1 else f"{per_game[0]}–{per_game[-1]}"
    size = (f"{len(sweep.games)} game(s) × {lineups} lineup(s) × {len(sweep.settings)} harness "
            f"setting(s) = {len(sweep.cells)} cells × {len(sweep.seeds)} seed(s) = "
            f"{len(sweep.episodes)} episodes")
    print(f"sweep {sweep.name}: {size}", file=sys.stderr)
    print(f"results in {out}: {done} done, {len(jobs)} to play", file=sys.stderr)
    if any(s.split(":", 1)[0] in ("openai", "anthropic") for j in jobs for s in j.specs):
        cost, notes = _estimate(sweep, jobs)
        if cost is not None:
            priced = " for the models with a price" if notes else ""
            print(f"estimated cost of what is left{priced}: about {money(cost)}", file=sys.stderr)
        for note in notes:
            print(f"cost estimate unknown for {note}", file=sys.stderr)
        if sweep.sweep_usd is not None:
            print(f"the sweep stops at {money(sweep.sweep_usd)} ([budget] sweep_usd)", file=sys.stderr)


class _Bars:
    """One progress bar for the whole sweep and one per game, lineup and harness setting (rich, on a
    terminal); elsewhere a line at every tenth of the way and for every episode that failed."""

    def __init__(self, sweep: Any, done: set[tuple[str, int]], enabled: bool) -> None:
        self.sweep = sweep
        self.enabled = enabled
        self.total = len(sweep.episodes)
        self.count = sum(1 for c, s in sweep.episodes if (c.key, s) in done)
        self._progress: Any = None
        self._tasks: dict[tuple[str, str], Any] = {}
        self._done = done
        self._step = max(1, self.total // 10)

    @staticmethod
    def _dims(cell: Any) -> list[tuple[str, str]]:
        return [("game", cell.game.label), ("players", cell.lineup.label), ("harness", cell.harness.name)]

    def __enter__(self) -> _Bars:
        if not self.enabled:
            return self
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TimeElapsedColumn(), console=Console(stderr=True))
        self._progress.__enter__()
        self._tasks[("", "")] = self._progress.add_task("all episodes", total=self.total,
                                                         completed=self.count)
        totals: dict[tuple[str, str], list[int]] = {}
        for cell, seed in self.sweep.episodes:
            for dim in self._dims(cell):
                entry = totals.setdefault(dim, [0, 0])
                entry[0] += 1
                entry[1] += (cell.key, seed) in self._done
        order = {"game": 0, "players": 1, "harness": 2}
        for (kind, value), (total, completed) in sorted(totals.items(), key=lambda kv: order[kv[0][0]]):
            self._tasks[(kind, value)] = self._progress.add_task(f"  {kind} {value}", total=total,
                                                                 completed=completed)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(None, None, None)

    def episode(self, cell: Any, seed: int, result: Mapping[str, Any]) -> None:
        if not result.get("counted"):
            why = f" ({result['error']})" if result.get("error") else ""
            self.say(f"{cell.label} seed {seed}: {result.get('status')}{why}; it is played again next run")
            return
        self.count += 1
        if self._progress is not None:
            for dim in [("", ""), *self._dims(cell)]:
                self._progress.advance(self._tasks[dim])
        elif self.count % self._step == 0 or self.count == self.total:
            print(f"playtrace sweep: {self.count}/{self.total} episodes done", file=sys.stderr)

    def say(self, text: str) -> None:
        if self._progress is not None:
            self._progress.console.print(text, markup=False, highlight=False)
        else:
            print(f"playtrace sweep: {text}", file=sys.stderr)


def _sweep(path: Path, args: argparse.Namespace) -> int:
    from desktop.episode import session_recorder
    from engine.sweep import EpisodeJob, SweepRunner
    from engine.sweep.index import INDEX_FILE

    sweep = _load(path)
    if args.concurrency is not None and args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    out = args.out if args.out is not None else path.with_name(f"{path.stem}-results")
    check_output(out, "--out")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: expected a folder")
    _check_keys(sweep)
    _check_caps_enforceable(sweep)
    runner = SweepRunner(sweep, out, record=session_recorder, render=board_png, concurrency=args.concurrency)
    if args.dry_run and not (out / INDEX_FILE).exists():  # nothing played yet: create nothing either
        jobs = [EpisodeJob.of(sweep, cell, seed) for seed in sweep.seeds for cell in sweep.cells]
        _describe(sweep, 0, jobs, out)
        return EXIT_OK
    try:
        return _play(runner, args, out)
    finally:
        runner.close()


def _play(runner: Any, args: argparse.Namespace, out: Path) -> int:
    """Open the results folder, describe what is left, play it and say how it went."""
    from engine.sweep.index import SweepBusyError

    sweep = runner.sweep
    try:
        index = runner.open()
    except SweepBusyError as exc:
        err(str(exc))
        return EXIT_FAILURE
    except OSError as exc:
        err(f"cannot use {out} as the results folder: {exc.strerror or exc}")
        return EXIT_FAILURE
    done = index.done_keys()
    jobs = runner.pending()
    _describe(sweep, len(sweep.episodes) - len(jobs), jobs, out)
    if args.dry_run:
        return EXIT_OK
    bars = _Bars(sweep, done, enabled=sys.stderr.isatty())
    runner.on_done = bars.episode
    runner.on_notice = bars.say
    terminated: list[int] = []
    try:
        with bars:
            if args.ray:
                from engine.sweep.ray_runner import run_on_ray

                try:
                    import ray  # noqa: F401
                except ImportError:
                    raise UsageError("--ray needs Ray: pip install 'playtrace[ray]'") from None
                from engine.sweep.ray_runner import RayUnreachable, check_address

                try:
                    check_address(args.ray)  # before Ray itself waits minutes for a head that is not there
                except RayUnreachable as exc:
                    err(one_line(exc))
                    return EXIT_FAILURE
                outcome = run_on_ray(runner, args.ray)
            else:
                outcome = asyncio.run(until_sigterm(runner.run(), terminated))
    except (KeyboardInterrupt, asyncio.CancelledError):
        err("interrupted: the episodes that were running are played again next run")
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    remaining = len(runner.pending())
    if getattr(outcome, "model_unusable", None):
        err(f"stopped: {outcome.model_unusable} (a run error: those episodes were not scored)")
    print(f"playtrace sweep: played {outcome.played} episode(s), {outcome.failed} failed; "
          f"{len(sweep.episodes) - remaining}/{len(sweep.episodes)} done"
          + (f"; cost {money(outcome.cost_usd)}" if sweep.has_model and outcome.cost_usd else ""),
          file=sys.stderr)
    if remaining:
        print(f"playtrace sweep: {remaining} episode(s) missing: run the same command again to play them",
              file=sys.stderr)
    print(f"results in {out}; see them with: playtrace sweep report {out}", file=sys.stderr)
    return EXIT_FAILURE if (remaining or outcome.budget_stopped) else EXIT_OK


# -- report ------------------------------------------------------------------------------------------


def _cell_text(summary: Any) -> str:
    return "-" if summary is None else f"{mean_sd(summary.mean, summary.se)} (n={summary.n})"


def _report(folder: Path, *, as_json: bool) -> int:
    from engine.sweep import ABLATION, SweepFileError, load_report, parse_sweep
    from engine.sweep.index import SWEEP_FILE

    expected = None
    source = folder / SWEEP_FILE
    if source.exists():
        try:
            sweep = parse_sweep(read_text(source, cap=1024 * 1024, what="sweep file"), name=str(source))
            expected = {}
            for cell in sweep.cells:
                expected[cell.key] = len(sweep.seeds)
        except SweepFileError:
            expected = None  # a game that is no longer installed: report what the index holds
    try:
        report = load_report(folder, expected=expected)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    if as_json:
        print(json.dumps(report.to_json(), indent=2))
        return EXIT_OK
    console = stdout_console()
    console.print(f"sweep {report.name}: {sum(r.episodes for r in report.rows)} episode(s) in "
                  f"{len(report.rows)} cells (mean ± SE of the raw score)", soft_wrap=True)
    table = compact_table()
    for name, justify in (("game", "left"), ("players", "left"), ("harness", "left"), ("score", "left"),
                          ("mean ± SE", "right"), ("W/D/L", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    paid = any(r.cost_usd for r in report.rows)
    if paid:
        table.add_column("cost", justify="right")
    for row in report.rows:
        wdl = "/".join(map(str, row.seat0)) if row.seat0 else ""
        cells = [row.game_label, row.lineup, row.harness_name, report.score_names.get(row.game, "score"),
                 _cell_text(row.summary), wdl]
        if paid:
            cells.append(money(row.cost_usd))
        table.add_row(*cells)
    console.print(table)
    for game, lines in report.ablation.items():
        score = next((report.score_names[r.game] for r in report.rows if r.game_label == game), "score")
        console.print(f"\nLMGame-Bench harness ablation, {game}: {score}, mean ± SE "
                      "(Table 1's Harness No = ZS, Yes = +Both)", soft_wrap=True)
        ab = compact_table()
        ab.add_column("players")
        for col in ABLATION:
            ab.add_column(col, justify="right")
        for line in lines:
            ab.add_row(line["players"], *(" / ".join(_cell_text(e["summary"]) for e in line[col]) or "-"
                                          for col in ABLATION))
        console.print(ab)
    if report.missing:
        console.print(f"{num(report.missing)} episode(s) of the sweep are missing: run it again to play them")
    if report.moved:
        console.print(f"{num(report.moved)} incomplete session(s) were moved aside into {folder / 'torn'}",
                      soft_wrap=True)
    return EXIT_OK
