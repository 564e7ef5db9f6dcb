"""``playtrace run``: the command-line front end of :mod:`engine.batch`.

It reads the command line into a :class:`engine.batch.BatchPlan` (every mistake a one-line usage
error, before any session exists), prints a cost estimate for paid models, plays the batch with a
:class:`engine.batch.BatchRunner` recording each episode as a session
(:func:`desktop.episode.session_recorder`), shows a progress bar on a terminal, and prints the summary
table or JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import json
import logging
import math
import os
import sys
import textwrap
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import engine
from desktop.cli.common import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    UsageError,
    compact_table,
    default_root,
    ensure_offscreen_qt,
    err,
    mean_sd,
    money,
    num,
    one_line,
    output_width,
    parse_game_options,
    stdout_console,
    until_sigterm,
)
from desktop.cli.models import KEY_VARS, key_present
from engine.batch import FINISHED_STATUSES, BatchOutcome, BatchPlan, BatchRunner, EpisodeStats, close_players
from engine.core import Game, GameError, UnknownGameError
from engine.llm.factory import public_spec
from engine.llm.keys import mask_url_password
from engine.llm.limits import RateLimits, parse_limit
from engine.players import HUMAN, Player
from engine.roster import is_model_spec

log = logging.getLogger("playtrace.cli")


@dataclasses.dataclass
class RunPlan:
    """What ``playtrace run`` decided before the first episode starts: the batch, where its sessions
    go, and the first episode's players (built up front, so a bad spec fails before any session)."""

    batch: BatchPlan
    out: Path
    first_players: list[Player]

    @property
    def game(self) -> Game:
        return self.batch.game


# -- planning ------------------------------------------------------------------------------------------


def _model_options(args: argparse.Namespace) -> dict[str, Any]:
    """Harness options given on the command line (only those set, so the harness defaults apply)."""
    opts: dict[str, Any] = {}
    for name in ("perception", "perception_model", "action_format", "logprobs", "image_labels", "memory",
                 "reflection", "thinking", "thinking_budget",
                 "effort", "temperature", "prompt_variant", "timeout_s", "max_failed_calls",
                 "strikes"):
        value = getattr(args, name)
        if value is not None:
            opts[name] = value
    policy: dict[str, Any] = {}
    if args.reask is not None:
        policy["reask"] = args.reask
    if args.retries is not None:
        policy["retries"] = args.retries
    if args.fallback is not None:
        policy["fallback"] = args.fallback
    if policy:
        opts["invalid_policy"] = policy
    return opts


def _rate_limits(args: argparse.Namespace) -> dict[str | None, RateLimits] | None:
    """``--rpm``/``--tpm`` as limits per provider or base URL (key ``None``: every model server).

    Raises:
        UsageError: a value that is not ``N``, ``PROVIDER=N`` or ``BASE_URL=N`` with N above 0.
    """
    found: dict[str | None, dict[str, float]] = {}
    for flag, field in (("--rpm", "rpm"), ("--tpm", "tpm")):
        for text in getattr(args, field, None) or []:
            try:
                where, value = parse_limit(text, flag)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            found.setdefault(where, {})[field] = value
    return {where: RateLimits(**values) for where, values in found.items()} or None


def _validate_specs(specs: Sequence[str]) -> None:
    for spec in specs:
        if spec.strip() == HUMAN:
            raise UsageError("a human player needs the app (run `playtrace` without a subcommand)")
        if is_model_spec(spec):
            prefix, _, rest = spec.partition(":")
            if prefix in ("openai", "anthropic", "local") and not rest.strip():
                raise UsageError(f"player {spec!r} needs a model name, e.g. {prefix}:MODEL")
            if prefix in KEY_VARS and not key_present(prefix):
                # Fail before any session is created rather than at the first call of every episode.
                raise UsageError(f"no API key for {prefix}: set {KEY_VARS[prefix]} or add one in the app's "
                                 "settings (check with `playtrace check-model`)")


def _plan(args: argparse.Namespace) -> RunPlan:
    """Check the command line and build what the batch needs; every mistake is a :class:`UsageError`."""
    if args.episodes < 1:
        raise UsageError("--episodes must be at least 1")
    if args.concurrency is not None and args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if args.max_steps is not None and args.max_steps < 1:
        raise UsageError("--max-steps must be at least 1")
    rates = (("--sim-error-rate", args.sim_error_rate), ("--sim-api-error-rate", args.sim_api_error_rate))
    for flag, rate in rates:
        if rate is not None and not 0.0 <= rate <= 1.0:
            raise UsageError(f"{flag} must be between 0 and 1")
    for flag, usd in (("--budget-soft", args.budget_soft), ("--budget-hard", args.budget_hard),
                      ("--batch-budget", args.batch_budget)):
        if usd is not None and not (math.isfinite(usd) and usd >= 0):  # a NaN cap would never trigger
            raise UsageError(f"{flag} must be at least 0")
    if args.timeout_s is not None and not (math.isfinite(args.timeout_s) and args.timeout_s > 0):
        # 0 or less times out every call at once; NaN slips through every comparison.
        raise UsageError("--timeout must be a number of seconds above 0")
    if args.temperature is not None and not (math.isfinite(args.temperature) and 0 <= args.temperature <= 2):
        raise UsageError(f"--temperature must be a number from 0 to 2, not {args.temperature}")
    if args.thinking_budget is not None and args.thinking_budget < 1:
        raise UsageError(f"--thinking-budget must be a number of tokens above 0, not {args.thinking_budget}")
    if args.memory is not None and args.memory < 0:
        raise UsageError(f"--memory must be at least 0, not {args.memory}")
    if args.retries is not None and args.retries < 0:
        raise UsageError(f"--retries must be at least 0, not {args.retries}")
    if args.max_failed_calls is not None and args.max_failed_calls < 0:
        raise UsageError("--max-failed-calls must be at least 0 (0: never give up), "
                         f"not {args.max_failed_calls}")
    files = [f"{key}={value}" for key, value in (("game_file", getattr(args, "game_file", None)),
                                                   ("level_file", getattr(args, "level_file", None)))
             if value is not None]
    options = parse_game_options(args.game, [*args.option, *files])
    try:
        game = engine.make(args.game, **options)
    except UnknownGameError as exc:
        raise UsageError(str(exc)) from None
    except (GameError, TypeError, ValueError) as exc:
        raise UsageError(f"cannot make {args.game} with these options: {one_line(exc)}") from None
    specs = [s.strip() for s in args.player] or ["random"]
    _validate_specs(specs)
    has_model = any(is_model_spec(s) for s in specs)
    model_options = _model_options(args)
    sim_rates = {"format_error_rate": args.sim_error_rate, "api_error_rate": args.sim_api_error_rate}
    if any(v is not None for v in sim_rates.values()):
        if any(s.split(":", 1)[0] != "sim" for s in specs if is_model_spec(s)) or not has_model:
            raise UsageError("--sim-error-rate and --sim-api-error-rate apply to the simulated model only")
        model_options.update({k: v for k, v in sim_rates.items() if v is not None})
    # Per-session budgets are the harness's: it warns at the soft cap and forfeits at the hard cap.
    if args.budget_soft is not None:
        model_options["budget_soft_usd"] = args.budget_soft
    if args.budget_hard is not None:
        model_options["budget_hard_usd"] = args.budget_hard
    if not has_model:
        model_options = {}
    if model_options.get("perception_model") is not None:
        if model_options.get("perception") != "describe":
            raise UsageError("--perception-model needs --perception describe")
        describer = model_options["perception_model"].strip()
        if not is_model_spec(describer):
            raise UsageError(f"--perception-model {describer!r} is not a model (sim, openai:MODEL, "
                             "anthropic:MODEL, local:MODEL@URL, …)")
        _validate_specs([describer])
    _check_caps_enforceable(args, specs, model_options)
    render = None
    if has_model and model_options.get("perception") in ("image", "both", "describe"):
        ensure_offscreen_qt()
        from desktop.episode import png_renderer

        render = png_renderer(game.id)
        if render is None:
            raise UsageError(f"{game.id} has no board renderer; use --perception text")
    batch = BatchPlan(
        game.id,
        specs=specs,
        episodes=args.episodes,
        seed=args.seed,
        options=options,
        model_options=model_options,
        max_steps=args.max_steps,
        concurrency=args.concurrency,
        batch_budget=args.batch_budget,
        render=render,
        rate_limits=_rate_limits(args),
    )
    if len(specs) not in (1, game.num_seats):
        raise UsageError(f"{game.title} has {game.num_seats} seat(s); got {len(specs)} --player values")
    try:
        # Building the first episode's players up front turns a bad spec or a missing key into a
        # one-line usage error before any session folder is created.
        first = batch.build_players(args.seed)
    except Exception as exc:  # noqa: BLE001  (any failure to seat a player is the user's to fix)
        raise UsageError(one_line(exc)) from None
    out = args.out if args.out is not None else default_root()
    return RunPlan(batch=batch, out=out, first_players=first)


def _check_writable(folder: Path) -> str | None:
    """Why sessions cannot be written into ``folder`` (created if missing), or None when they can."""
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".playtrace-write-check-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        reason = "it is not a folder" if folder.exists() and not folder.is_dir() else exc.strerror
        return f"cannot write sessions into {folder}: {reason or one_line(exc)}"
    return None


def _check_caps_enforceable(
    args: argparse.Namespace, specs: Sequence[str], model_options: Mapping[str, Any]
) -> None:
    """Refuse a hard spending cap that could never trigger: a paid model the price table does not know.

    Its calls cost ``None``, never a number, so neither the batch total nor a session's spend would grow.
    """
    given = (("--batch-budget", args.batch_budget), ("--budget-hard", args.budget_hard))
    caps = [flag for flag, value in given if value is not None]
    if not caps or model_options.get("prices"):
        return
    from engine.llm import pricing

    for spec in dict.fromkeys(s for s in specs if s.split(":", 1)[0] in ("openai", "anthropic")):
        note = pricing.price_note(spec)
        if note is not None:
            raise UsageError(f"{' and '.join(caps)} cannot be enforced for {spec}: {note}")


#: Rough tokens per model step for the pre-run estimate (a text prompt with rules, memory and the board;
#: a short answer). Real figures depend on the game and harness; the cost meter shows the actual spend.
_EST_INPUT_TOKENS = 1500
_EST_IMAGE_TOKENS = 1000
_EST_OUTPUT_TOKENS = 300
_EST_THINKING_TOKENS = 2000
_EST_STEPS_PER_EPISODE = 100
#: The reflection call made before each decision (on by default): recent steps in, under 100 words out.
_EST_REFLECTION_TOKENS = (600, 150)
#: The perception call of --perception describe: its prompt in, the description out (which the action
#: prompt then carries as its state).
_EST_DESCRIBE_TOKENS = (400, 400)


def _print_estimate(plan: BatchPlan) -> None:
    """Before spending money: a rough cost of the batch for paid models, from the price table."""
    paid = [s for s in plan.specs if s.split(":", 1)[0] in ("openai", "anthropic")]
    if not paid:
        return
    try:
        from engine.llm import pricing
    except ImportError:
        print("cost estimate: unavailable; use --batch-budget to cap spending", file=sys.stderr)
        return
    opts = plan.model_options
    tin = _EST_INPUT_TOKENS + (_EST_IMAGE_TOKENS if opts.get("perception") in ("image", "both") else 0)
    if opts.get("perception") == "describe":  # a second call per step: the image in, a description out
        tin += _EST_IMAGE_TOKENS + _EST_DESCRIBE_TOKENS[0] + _EST_DESCRIBE_TOKENS[1]
    tout = _EST_OUTPUT_TOKENS
    if opts.get("thinking"):
        tout += int(opts.get("thinking_budget") or _EST_THINKING_TOKENS)
    if opts.get("reflection", True):
        tin += _EST_REFLECTION_TOKENS[0]
        tout += _EST_REFLECTION_TOKENS[1]
    game = plan.game
    per_episode = plan.max_steps or game.max_episode_steps or _EST_STEPS_PER_EPISODE
    # In turn-based games each seat decides at about every num_seats-th step.
    per_seat = per_episode if game.simultaneous else math.ceil(per_episode / game.num_seats)
    seats = plan.seat_specs
    for spec in dict.fromkeys(paid):
        n_seats = sum(1 for s in seats if s == spec)
        steps = per_seat * plan.episodes * n_seats
        try:
            est = pricing.estimate(spec, tin, tout, steps)
        except Exception as exc:  # noqa: BLE001  (an estimate is advice, never a reason to stop)
            print(f"cost estimate for {public_spec(spec)}: unavailable ({one_line(exc)})", file=sys.stderr)
            continue
        basis = f"{steps} model steps x ~{tin} in / ~{tout} out tokens"
        if est.cost is None:
            print(f"cost estimate for {public_spec(spec)}: unknown ({est.note or 'no price'})",
                  file=sys.stderr)
        else:
            limit = "" if plan.max_steps or game.max_episode_steps else (
                f" (assuming {per_episode} steps per episode; --max-steps caps it)")
            print(f"cost estimate for {public_spec(spec)}: about {money(est.cost)} for {basis}{limit}",
                  file=sys.stderr)


# -- progress ------------------------------------------------------------------------------------------


class _Progress:
    """A rich progress bar on stderr when it is a terminal; otherwise one final line.

    Nothing happens per event: rich redraws the bar :data:`REFRESH_PER_SECOND` times a second on its
    own thread, and each redraw reads the counts from the batch's outcome (:meth:`follow`).
    """

    #: Redraws a second: enough to look live, far fewer than a batch's events.
    REFRESH_PER_SECOND = 4

    def __init__(self, total: int, *, show_cost: bool, enabled: bool) -> None:
        self.total = total
        self.show_cost = show_cost
        self.enabled = enabled
        self.outcome: BatchOutcome | None = None
        self._progress: Any = None
        self._task: Any = None

    def follow(self, outcome: BatchOutcome) -> None:
        """Show the counts of ``outcome`` (read at every redraw)."""
        self.outcome = outcome

    def __enter__(self) -> _Progress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            columns: list[Any] = [
                TextColumn("episodes"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[steps]} steps"),
            ]
            if self.show_cost:
                columns.append(TextColumn("cost so far {task.fields[cost]}"))
            columns.append(TimeElapsedColumn())
            show = self

            class _Bar(Progress):
                def get_renderable(self) -> Any:  # called by every redraw, on rich's refresh thread
                    show._read_outcome()
                    return super().get_renderable()

            self._progress = _Bar(
                *columns,
                console=Console(stderr=True),
                transient=False,
                refresh_per_second=self.REFRESH_PER_SECOND,
            )
            self._task = self._progress.add_task("run", total=self.total, steps=0, cost=money(0.0))
            self._progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(None, None, None)

    def _read_outcome(self) -> None:
        """Copy the outcome's counts as they are now into the bar (at a redraw)."""
        outcome = self.outcome
        if outcome is not None and self._task is not None:
            self._progress.update(self._task, completed=outcome.done, steps=outcome.steps,
                                  cost=money(outcome.cost_usd))

    def log(self, message: str) -> None:
        if self._progress is not None:
            self._progress.console.print(message, markup=False, highlight=False)
        else:
            print(message, file=sys.stderr)


# -- the command ---------------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    """``playtrace run``: play the episodes, print the summary; see :mod:`desktop.cli` for exit codes."""
    run = _plan(args)
    plan = run.batch
    has_model = plan.has_model
    _print_estimate(plan)
    if args.dry_run:
        print(f"would play {plan.episodes} episode(s) of {plan.game.id} (seeds {plan.seed}.."
              f"{plan.seed + plan.episodes - 1}, {plan.concurrency} at a time): "
              + " vs ".join(f"{p.label} ({public_spec(spec)})"
                            for p, spec in zip(run.first_players, plan.seat_specs, strict=True))
              + f"; sessions into {run.out}")
        for line in harness_lines(run.first_players):
            print(line)
        asyncio.run(_close(run))
        return EXIT_OK
    problem = _check_writable(run.out)
    if problem is not None:
        # Checked once up front: otherwise every episode fails alike, with a table row and a log line each.
        err(problem)
        asyncio.run(_close(run))
        return EXIT_FAILURE
    from desktop.episode import session_recorder

    progress = _Progress(plan.episodes, show_cost=has_model, enabled=sys.stderr.isatty() and not args.json)
    # Session folders are made on a worker thread: dozens of episodes start at once, and making one
    # (files written and synced) would otherwise hold up every running episode for a moment.
    runner = BatchRunner(plan, record=session_recorder(run.out), players=run.first_players,
                         on_notice=progress.log, record_in_thread=True)
    outcome = runner.outcome
    progress.follow(outcome)
    log.info("running %d episode(s) of %s into %s", plan.episodes, plan.game.id, run.out)
    started = time.monotonic()
    terminated: list[int] = []
    # What start-up made (imported modules, game tables, the first players) lives as long as the run: out
    # of the cyclic collector's sight, full collections no longer pause every episode to scan it.
    gc.freeze()
    try:
        with progress:
            asyncio.run(until_sigterm(runner.run(), terminated))
    except (KeyboardInterrupt, asyncio.CancelledError):  # Ctrl+C or SIGTERM: the runner aborted its episodes
        outcome.interrupted = True
    finally:
        gc.unfreeze()
    outcome.elapsed_s = time.monotonic() - started
    if args.json:
        print(mask_url_password(json.dumps(_batch_json(run, outcome), indent=2)))
    else:
        _print_summary(run, outcome)
    if not progress.enabled:
        print(_final_line(outcome, has_model), file=sys.stderr)
    if outcome.interrupted:
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    if outcome.budget_stopped or outcome.errors or outcome.failed_calls_stopped or outcome.model_unusable:
        return EXIT_FAILURE
    return EXIT_OK


async def _close(run: RunPlan) -> None:
    """Close the first episode's players and the shared model clients of a batch that will not run."""
    await close_players(run.first_players)
    await run.batch.close_clients()


# -- the summary ---------------------------------------------------------------------------------------


def harness_lines(players: Sequence[Player]) -> list[str]:
    """One line per distinct model seat setting: ``harness of SPEC: …`` (nothing without a model)."""
    from engine.agent.player import ModelPlayer, harness_text

    lines: list[str] = []
    for player in players:
        if not isinstance(player, ModelPlayer):
            continue
        harness = player.harness_config()
        line = f"harness of {harness.get('spec')}: {harness_text(harness)}"
        if line not in lines:
            lines.append(line)
    return lines


def _final_line(outcome: BatchOutcome, has_model: bool) -> str:
    counts: dict[str, int] = {}
    for s in outcome.stats:
        counts[s.status] = counts.get(s.status, 0) + 1
    parts = [f"{len(outcome.stats)} episode(s) (" + ", ".join(f"{n} {k}" for k, n in counts.items()) + ")",
             f"{outcome.steps} steps"]
    if has_model:
        parts.append(f"cost {money(outcome.cost_usd)}")
    parts.append(f"{outcome.elapsed_s:.1f} s")
    if outcome.failed_calls_stopped:
        parts.append("stopped: a model's calls kept failing")
    if outcome.model_unusable:
        parts.append(f"stopped: {outcome.model_unusable}")
    prefix = "interrupted: " if outcome.interrupted else "done: "
    return "playtrace run " + prefix + ", ".join(parts)


def _result_text(game: Game, stats: EpisodeStats) -> str:
    if stats.status not in FINISHED_STATUSES:
        return stats.status
    if game.num_seats < 2:
        return stats.status
    if stats.winner is not None:
        name = game.seats[stats.winner].name if 0 <= stats.winner < game.num_seats else str(stats.winner)
        text = f"{name} wins"
    elif stats.status == "completed":
        text = "draw"
    else:
        text = "no result"
    return text if stats.status == "completed" else f"{text} ({stats.status})"


def _batch_json(run: RunPlan, outcome: BatchOutcome) -> dict[str, Any]:
    return {
        "game": run.game.id,
        "players": run.batch.specs,
        "out": str(run.out),
        "interrupted": outcome.interrupted,
        "budget_stopped": outcome.budget_stopped,
        "model_unusable": outcome.model_unusable,
        "episodes": [s.to_data() for s in outcome.stats],
        "aggregate": outcome.aggregate(),
    }


#: Marks a score that includes moves the harness chose for a model (random or no-op fallbacks).
FALLBACK_MARK = "†"


def _print_summary(run: RunPlan, outcome: BatchOutcome) -> None:
    """The summary on stdout, laid out for 80 columns: a header naming the players and the sessions
    folder, one table row per episode (keyed by its seed and its session id, which ``show`` and
    ``export`` accept), notes under the table, then per-seat aggregates."""
    has_model = run.batch.has_model
    paid = outcome.cost_usd > 0 or any(s.split(":", 1)[0] in ("openai", "anthropic") for s in run.batch.specs)
    console = stdout_console()
    game = run.game
    seats = zip(outcome.labels, run.batch.seat_specs, strict=False)
    players = " vs ".join(f"{lbl} ({public_spec(spec)})" if spec != lbl else lbl for lbl, spec in seats)
    n = len(outcome.stats)
    seeds = f"seed {run.batch.seed}" if n == 1 else f"seeds {run.batch.seed}–{run.batch.seed + n - 1}"
    width = output_width()

    def say(text: str, indent: str = "") -> None:  # free text, wrapped on spaces for the width
        console.print(textwrap.fill(text, width=max(40, width), subsequent_indent=indent,
                                    break_on_hyphens=False, break_long_words=False), soft_wrap=True)

    say(f"{game.title} · {players} · {n} episode{'s' if n != 1 else ''} · {seeds}", "  ")
    for line in harness_lines(run.first_players):
        say(line, "    ")
    console.print(f"sessions in {run.out}", soft_wrap=True)  # a path is never broken in two
    marked = any(s.fallbacks for s in outcome.stats)
    table = compact_table()
    table.add_column("seed", justify="right", no_wrap=True)
    table.add_column("steps", justify="right", no_wrap=True)
    table.add_column("score" if game.num_seats == 1 else "scores", justify="right", no_wrap=True)
    table.add_column("result")  # the only column that may wrap (on spaces)
    if paid:
        table.add_column("cost", justify="right", no_wrap=True)
    if has_model:
        table.add_column("invalid", justify="right", no_wrap=True)
    table.add_column("session", no_wrap=True)
    details: list[str] = []
    for s in outcome.stats:
        result = _result_text(game, s)
        # Why an episode ended early goes under the table: long messages would squeeze the columns.
        why = list(s.notes)
        if s.error:
            why.insert(0, s.error)
        elif s.status in ("forfeit", "error") and s.last_failure and not s.notes:
            why.append(f"last model error: {s.last_failure}")
        faults = []
        if s.failed_calls:
            faults.append(f"{s.failed_calls} failed model call{'s' if s.failed_calls != 1 else ''}")
        if s.fallbacks:
            faults.append(f"{s.fallbacks} fallback move{'s' if s.fallbacks != 1 else ''} "
                          f"({FALLBACK_MARK}: chosen by the harness, not the model)")
        if faults:
            why.append(", ".join(faults))
        details += [f"  seed {s.seed}: {w}" for w in why]
        score = " / ".join(num(x) + (f" {FALLBACK_MARK}" if s.fallback_seats.get(i) else "")
                           for i, x in enumerate(s.scores)) or "-"
        row = [str(s.seed), num(s.steps), score, result.replace("_", " ") + (" *" if why else "")]
        if paid:
            row.append(money(s.cost_usd))
        if has_model:
            row.append(num(sum(s.invalid.values())))
        row.append(s.path.name if s.path else "-")
        table.add_row(*row)
    console.print(table)
    for i, detail in enumerate(details):
        say(("* " + detail.lstrip()) if i == 0 else detail, "    ")
    if marked:
        say(f"{FALLBACK_MARK} the score includes fallback moves: the model gave no usable answer and the "
            "harness played a move for it", "  ")
    agg = outcome.aggregate()
    console.print(f"finished {agg['finished']}/{agg['episodes']} episode(s), {num(agg['steps'])} steps"
                  + (f", total cost {money(agg['cost_usd'])}" if has_model else ""), soft_wrap=True)
    for seat in agg["seats"]:
        line = f"  seat {seat['seat']} {seat['name']} ({seat['player']}): "
        if seat["mean"] is None:
            line += "no finished episode"
        else:
            line += f"score {mean_sd(seat['mean'], seat['sd'])}"
            if seat.get("fallback_moves"):
                n_fb = seat["fallback_moves"]
                line += f" {FALLBACK_MARK} (includes {num(n_fb)} fallback move{'s' if n_fb != 1 else ''})"
        if "wins" in seat:
            line += f"; {seat['wins']} wins, {seat['draws']} draws, {seat['losses']} losses"
        if "invalid_answers" in seat:
            line += f"; {num(seat['invalid_answers'])} invalid answers"
        if seat.get("failed_call_forfeits"):
            line += f"; forfeited {seat['failed_call_forfeits']} time(s) as its model calls kept failing"
        say(line, "    ")
    if outcome.failed_calls_stopped:
        say(f"stopped: {outcome.failed_calls_stopped} (the model's server is not answering; "
            "see --max-failed-calls)", "  ")
    if outcome.model_unusable:
        say(f"stopped: {outcome.model_unusable} (a run error: no episode was scored; fix the key or the "
            "model name and run again)", "  ")
    if outcome.budget_stopped:
        console.print("the batch budget was exceeded: running episodes were stopped, no new ones started")
    if outcome.interrupted:
        console.print("interrupted: running episodes were recorded as aborted")
