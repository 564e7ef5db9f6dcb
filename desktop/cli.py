"""The ``playtrace`` command: opens the app, or runs headless subcommands.

``playtrace`` alone opens the desktop app. The subcommands work without a window:

- ``playtrace run GAME --player SPEC ...`` plays many episodes concurrently (asyncio), one session
  folder each, and prints a summary table with aggregates (scores, wins, cost, invalid answers);
- ``playtrace show SESSION [--json]`` summarises one recorded session;
- ``playtrace list``, ``export``, ``import``, ``games`` and ``check-model`` manage the catalogue, move
  sessions between machines, list what can be played and check that a model can be reached.

Exit codes: 0 success; 1 a failure at run time (an episode ended in error, a path that is not a session,
an unreachable model); 2 a usage error (unknown game, bad player spec, bad option); 130 interrupted.
Episodes are recorded through :mod:`desktop.episode`, exactly as the app records them.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import math
import os
import statistics
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import engine
from engine import events as ev
from engine.core import Game, GameError, State, UnknownGameError
from engine.options import OptionError
from engine.events import Event
from engine.players import HUMAN, Player
from engine.roster import is_model_spec

log = logging.getLogger("playtrace.cli")

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

#: Match statuses after which an episode's scores count in the aggregates.
FINISHED_STATUSES = frozenset({"completed", "max_steps", "forfeit"})


class UsageError(Exception):
    """A mistake on the command line, reported as one line with exit code 2."""


# -- small helpers ---------------------------------------------------------------------------------


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("playtrace")
    except metadata.PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


def _redact(text: str) -> str:
    """Hide anything that looks like a credential (the provider layer knows the key formats)."""
    try:
        from engine.llm.keys import redact
    except ImportError:
        return text
    return str(redact(text))


def _one_line(exc: BaseException) -> str:
    """An exception as one redacted line (the first line of its message, with its type if it has none)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return _redact(text)


def _err(message: str) -> None:
    print(f"playtrace: {message}", file=sys.stderr)


def _num(value: Any) -> str:
    """A score as people write it: ``3`` rather than ``3.0``, ``0.5`` rather than ``0.500000``."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _money(value: float) -> str:
    return f"${value:.4f}"


def _setup_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    from desktop.crash import RedactingFilter

    handler.addFilter(RedactingFilter())
    root = logging.getLogger()
    # Replace only handlers we installed ourselves (main() may run several times in one process).
    for old in [h for h in root.handlers if getattr(h, "_playtrace", False)]:
        root.removeHandler(old)
    handler._playtrace = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.WARNING)
    # The session reader logs each problem it meets; the commands report them themselves.
    logging.getLogger("playtrace.sessions").setLevel(logging.DEBUG if verbose else logging.ERROR)
    if verbose:
        # The HTTP stacks log request bodies at DEBUG; headers are redacted above, bodies are noise.
        for noisy in ("httpx", "httpx2", "httpcore", "httpcore2", "openai", "anthropic"):
            logging.getLogger(noisy).setLevel(logging.INFO)


def _parse_game_options(game_id: str, values: Sequence[str]) -> dict[str, Any]:
    """``--option size=5`` pairs, read against the game's options schema (a usage error otherwise)."""
    from engine.options import parse_assignments

    try:
        cls = engine.declaration(game_id)
    except UnknownGameError as exc:
        raise UsageError(str(exc)) from None
    try:
        return parse_assignments(cls.options_schema, values, game=cls.title)
    except OptionError as exc:
        raise UsageError(str(exc)) from None


def _stdout_console() -> Any:
    """A rich console for tables on stdout; markup off, since paths and notes may contain brackets."""
    from rich.console import Console

    if sys.stdout.isatty():
        return Console(soft_wrap=False, markup=False, highlight=False)
    # Not a terminal (a pipe, a file, a test): no colours, and wide enough that paths never wrap.
    return Console(file=sys.stdout, width=240, no_color=True, markup=False, highlight=False)


def _ensure_offscreen_qt() -> None:
    """The command line never opens a window: draw offscreen unless the user chose a platform."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


# -- argument parsing -------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The ``playtrace`` argument parser (exposed for tests and documentation)."""
    common = argparse.ArgumentParser(add_help=False)
    # SUPPRESS keeps a --verbose given before the subcommand from being reset by the subparser default.
    common.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                        help="log what happens (to stderr; keys are never logged)")

    parser = argparse.ArgumentParser(
        prog="playtrace",
        description="Play games with people and language models, and inspect every decision. "
        "Without a subcommand, opens the app.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"playtrace {_version()}")
    app_opts = parser.add_argument_group("app (when no COMMAND is given)")
    app_opts.add_argument("--open", type=Path, default=None, metavar="SESSION",
                          help="open a saved session for replay")
    app_opts.add_argument("--no-demo", action="store_true", help="do not start the simulated-model demo")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", parents=[common], help="play episodes headless and summarise them",
                         description="Play N episodes headless (episode i uses seed S+i), one session each.")
    run.add_argument("game", help="game id (see `playtrace games`)")
    run.add_argument("--player", "-p", action="append", default=[], metavar="SPEC",
                     help="player per seat, in seat order: random, a bot name, sim, sim:NAME, "
                     "openai:MODEL, anthropic:MODEL, local:MODEL@URL (one value fills every seat)")
    run.add_argument("--episodes", "-n", type=int, default=1, metavar="N")
    run.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="seed of the first episode")
    run.add_argument("--out", type=Path, default=None, metavar="DIR",
                     help="where session folders go (default: the user-data sessions folder)")
    run.add_argument("--max-steps", type=int, default=None, metavar="N", help="stop an episode after N steps")
    run.add_argument("--concurrency", "-j", type=int, default=None, metavar="N",
                     help="episodes played at once (default: min(4, N))")
    run.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    run.add_argument("--json", action="store_true", help="print the summary as JSON instead of a table")
    run.add_argument("--dry-run", action="store_true",
                     help="check the command and print the plan and cost estimate without playing")
    harness = run.add_argument_group("model players (sim, openai, anthropic, local)")
    harness.add_argument("--perception", choices=("text", "image", "both"), default=None)
    harness.add_argument("--no-image-labels", dest="image_labels", action="store_false", default=None,
                         help="send the board image without row/column coordinate labels")
    harness.add_argument("--memory", type=int, default=None, metavar="N", help="steps remembered (0 = off)")
    harness.add_argument("--no-reflection", dest="reflection", action="store_false", default=None)
    harness.add_argument("--thinking", action="store_true", default=None, help="ask for extended thinking")
    harness.add_argument("--thinking-budget", type=int, default=None, metavar="TOKENS")
    harness.add_argument("--effort", choices=("low", "medium", "high"), default=None)
    harness.add_argument("--temperature", type=float, default=None, metavar="T")
    harness.add_argument("--prompt-variant", default=None, metavar="NAME")
    harness.add_argument("--timeout", dest="timeout_s", type=float, default=None, metavar="S",
                         help="give up on a model's server after S seconds without a reply or a piece of "
                         "the answer (default 60); a timed-out call is retried once")
    harness.add_argument("--retries", type=int, default=None, metavar="K",
                         help="re-asks after an unparsable or illegal answer")
    harness.add_argument("--fallback", choices=("random", "noop", "forfeit"), default=None,
                         help="what happens when the re-asks run out")
    harness.add_argument("--budget-soft", type=float, default=None, metavar="USD",
                         help="warn when a session's cost passes this")
    harness.add_argument("--budget-hard", type=float, default=None, metavar="USD",
                         help="stop a session whose cost passes this")
    harness.add_argument("--batch-budget", type=float, default=None, metavar="USD",
                         help="stop the whole batch (cancel running episodes) when its cost passes this")
    harness.add_argument("--sim-error-rate", type=float, default=None, metavar="X",
                         help="share of badly formatted answers from the simulated model (sim only)")
    harness.add_argument("--sim-api-error-rate", type=float, default=None, metavar="X",
                         help="share of failing calls (simulated server errors) of the simulated model")

    show = sub.add_parser("show", parents=[common], help="summarise a recorded session")
    show.add_argument("session", type=Path, help="a session folder (or its manifest.json / events.jsonl)")
    show.add_argument("--json", action="store_true", help="print a JSON object")

    lst = sub.add_parser("list", parents=[common], help="the recorded sessions, newest first")
    lst.add_argument("--out", type=Path, default=None, metavar="DIR", help="sessions folder")
    lst.add_argument("--limit", type=int, default=None, metavar="N")

    exp = sub.add_parser("export", parents=[common], help="pack a session into a zip file")
    exp.add_argument("session", type=Path)
    exp.add_argument("zip", type=Path)

    imp = sub.add_parser("import", parents=[common], help="unpack a session zip into the sessions folder")
    imp.add_argument("zip", type=Path)
    imp.add_argument("--out", type=Path, default=None, metavar="DIR", help="sessions folder")

    games = sub.add_parser("games", parents=[common], help="the games, their seats, bots and options")
    games.add_argument("--json", action="store_true", help="print JSON instead of text")

    chk = sub.add_parser("check-model", parents=[common],
                         help="check that a model can be used (server reachable / key present)")
    chk.add_argument("spec", help="sim, openai:MODEL, anthropic:MODEL, local:MODEL@URL or ollama:MODEL "
                     "(and the other local presets)")
    chk.add_argument("--base-url", default=None, metavar="URL", help="an OpenAI-compatible server")
    chk.add_argument("--timeout", type=float, default=5.0, metavar="S")
    return parser


def _tolerant_output() -> None:
    """Never crash on a character the output encoding lacks (a session path on a cp1252 console).

    Without this, a summary that names a folder like ``日本`` raises ``UnicodeEncodeError`` after every
    episode has been played, and the results are lost behind a traceback.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or unusual stream: keep it as it is
                pass


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``playtrace`` console script; returns the process exit code."""
    _tolerant_output()
    parser = build_parser()
    try:
        args = parser.parse_args(None if argv is None else list(argv))
    except SystemExit as exc:  # argparse exits for --help, --version and usage errors
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_USAGE
    try:
        # Imports the session and crash modules: long enough for an early Ctrl+C to land here.
        _setup_logging(getattr(args, "verbose", False))
    except KeyboardInterrupt:
        _err("interrupted")
        return EXIT_INTERRUPTED
    if args.command is None:
        from desktop import app  # lazily: the headless commands never load the widgets

        app_argv = (["--open", str(args.open)] if args.open is not None else []) + (
            ["--no-demo"] if args.no_demo else []
        )
        return int(app.main(app_argv) or 0)
    handlers: dict[str, Callable[[argparse.Namespace], int]] = {
        "run": cmd_run,
        "show": cmd_show,
        "list": cmd_list,
        "export": cmd_export,
        "import": cmd_import,
        "games": cmd_games,
        "check-model": cmd_check_model,
    }
    try:
        return handlers[args.command](args)
    except UsageError as exc:
        _err(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _err("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``playtrace show S --json | head``): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


# -- run ---------------------------------------------------------------------------------------------


@dataclasses.dataclass
class EpisodeStats:
    """What the command line tracks of one episode while it plays (fed by the match's events)."""

    index: int
    seed: int
    num_seats: int
    model_seats: frozenset[int] = frozenset()
    path: Path | None = None
    status: str = "pending"
    steps: int = 0
    scores: tuple[float, ...] = ()
    winner: int | None = None
    cost_usd: float = 0.0
    calls: int = 0
    failed_calls: int = 0
    invalid: dict[int, int] = dataclasses.field(default_factory=dict)
    #: Moves the harness chose for a model that gave no usable answer (random or no-op fallback).
    fallbacks: int = 0
    error: str | None = None
    #: Why the episode ended early or what happened on the way (forfeit reason, budget), for the summary.
    notes: list[str] = dataclasses.field(default_factory=list)
    last_failure: str | None = None
    #: Set before this episode's task is cancelled on purpose (budget), so the cancel is not an interrupt.
    stop_reason: str | None = None
    on_change: Callable[[EpisodeStats, Event], None] | None = None

    def on_event(self, event: Event) -> None:
        """Match listener: keep the running counts the progress bar and the summary show."""
        data = event.data
        if log.isEnabledFor(logging.DEBUG) and event.type != ev.MODEL_DELTA:
            log.debug("episode %d step %s seat %s: %s", self.index, event.step, event.seat, event.type)
        if event.type == ev.ACTION_APPLIED:
            self.steps += 1
            self.scores = tuple(data.get("scores", self.scores))
        elif event.type == ev.MODEL_CALL_FINISHED:
            self.calls += 1
            cost = data.get("cost_usd")
            if isinstance(cost, (int, float)) and math.isfinite(cost):
                self.cost_usd += float(cost)
        elif event.type == ev.MODEL_CALL_FAILED:
            # The harness retries or falls back after a failed call; it only matters if the episode ends.
            self.failed_calls += 1
            self.last_failure = _redact(str(data.get("error", "model call failed")))
        elif event.type in (ev.ACTION_UNPARSABLE, ev.ACTION_ILLEGAL) and event.seat is not None:
            self.invalid[event.seat] = self.invalid.get(event.seat, 0) + 1
        elif event.type == ev.DECISION and data.get("policy") in ("random", "noop"):
            self.fallbacks += 1
        elif event.type == ev.DECISION and data.get("forfeit"):
            reason = data.get("fallback_reason") or data.get("reason") or data.get("rationale") or "forfeits"
            self.add_note(f"seat {event.seat}: {reason}")
        elif event.type == ev.ERROR:
            message = _redact(str(data.get("message", "error")))
            if data.get("where") == "match":  # the match loop stopped on it
                self.error = message
            else:  # a warning recorded by a player (budget passed, unknown price...)
                self.add_note(message)
        elif event.type == ev.SESSION_FINISHED:
            self.status = str(data.get("status", self.status))
            self.scores = tuple(data.get("scores", self.scores))
            self.winner = data.get("winner")
        if self.on_change is not None:
            self.on_change(self, event)

    def add_note(self, note: str) -> None:
        if note not in self.notes:
            self.notes.append(note)


@dataclasses.dataclass
class BatchPlan:
    """Everything ``playtrace run`` decided before the first episode starts."""

    game: Game
    specs: list[str]
    episodes: int
    seed: int
    out: Path
    options: dict[str, Any]
    model_options: dict[str, Any]
    max_steps: int | None
    concurrency: int
    render: Callable[[State], bytes] | None
    batch_budget: float | None
    first_players: list[Player]


@dataclasses.dataclass
class BatchOutcome:
    stats: list[EpisodeStats]
    interrupted: bool = False
    budget_stopped: bool = False
    elapsed_s: float = 0.0
    labels: list[str] = dataclasses.field(default_factory=list)


def _model_options(args: argparse.Namespace) -> dict[str, Any]:
    """Harness options given on the command line (only those set, so the harness defaults apply)."""
    opts: dict[str, Any] = {}
    for name in ("perception", "image_labels", "memory", "reflection", "thinking", "thinking_budget", "effort",
                 "temperature", "prompt_variant", "timeout_s"):
        value = getattr(args, name)
        if value is not None:
            opts[name] = value
    policy: dict[str, Any] = {}
    if args.retries is not None:
        policy["retries"] = args.retries
    if args.fallback is not None:
        policy["fallback"] = args.fallback
    if policy:
        opts["invalid_policy"] = policy
    return opts


def _validate_specs(specs: Sequence[str]) -> None:
    for spec in specs:
        if spec.strip() == HUMAN:
            raise UsageError("a human player needs the app (run `playtrace` without a subcommand)")
        if is_model_spec(spec):
            prefix, _, rest = spec.partition(":")
            if prefix in ("openai", "anthropic", "local") and not rest.strip():
                raise UsageError(f"player {spec!r} needs a model name, e.g. {prefix}:MODEL")
            if prefix in _KEY_VARS and not _key_present(prefix):
                # Fail before any session is created rather than at the first call of every episode.
                raise UsageError(f"no API key for {prefix}: set {_KEY_VARS[prefix]} or add one in the app's "
                                 "settings (check with `playtrace check-model`)")


def _plan(args: argparse.Namespace) -> BatchPlan:
    """Check the command line and build what the batch needs; every mistake is a :class:`UsageError`."""
    from desktop.episode import build_players

    if args.episodes < 1:
        raise UsageError("--episodes must be at least 1")
    if args.concurrency is not None and args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if args.max_steps is not None and args.max_steps < 1:
        raise UsageError("--max-steps must be at least 1")
    for flag, rate in (("--sim-error-rate", args.sim_error_rate), ("--sim-api-error-rate", args.sim_api_error_rate)):
        if rate is not None and not 0.0 <= rate <= 1.0:
            raise UsageError(f"{flag} must be between 0 and 1")
    for flag, usd in (("--budget-soft", args.budget_soft), ("--budget-hard", args.budget_hard),
                      ("--batch-budget", args.batch_budget)):
        if usd is not None and not (math.isfinite(usd) and usd >= 0):  # a NaN cap would never trigger
            raise UsageError(f"{flag} must be at least 0")
    if args.timeout_s is not None and not (math.isfinite(args.timeout_s) and args.timeout_s > 0):
        # 0 or less times out every call at once; NaN slips through every comparison.
        raise UsageError("--timeout must be a number of seconds above 0")
    options = _parse_game_options(args.game, args.option)
    try:
        game = engine.make(args.game, **options)
    except UnknownGameError as exc:
        raise UsageError(str(exc)) from None
    except (GameError, TypeError) as exc:
        raise UsageError(f"cannot make {args.game}: {_one_line(exc)}") from None
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
    _check_caps_enforceable(args, specs, model_options)
    render = None
    if has_model and model_options.get("perception") in ("image", "both"):
        _ensure_offscreen_qt()
        from desktop.episode import png_renderer

        render = png_renderer(game.id)
        if render is None:
            raise UsageError(f"{game.id} has no board renderer; use --perception text")
    try:
        # Building the first episode's players up front turns a bad spec or a missing key into a
        # one-line usage error before any session folder is created.
        first = build_players(game, specs, seed=args.seed, model_options=model_options)
    except Exception as exc:  # noqa: BLE001  (any failure to seat a player is the user's to fix)
        raise UsageError(_one_line(exc)) from None
    out = args.out if args.out is not None else _default_root()
    episodes = args.episodes
    concurrency = args.concurrency if args.concurrency is not None else min(4, episodes)
    return BatchPlan(
        game=game,
        specs=specs,
        episodes=episodes,
        seed=args.seed,
        out=out,
        options=options,
        model_options=model_options,
        max_steps=args.max_steps,
        concurrency=concurrency,
        render=render,
        batch_budget=args.batch_budget,
        first_players=first,
    )


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
        return f"cannot write sessions into {folder}: {reason or _one_line(exc)}"
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


def _default_root() -> Path:
    from sessions.paths import default_root

    return default_root()


#: Rough tokens per model step for the pre-run estimate (a text prompt with rules, memory and the board;
#: a short answer). Real figures depend on the game and harness; the cost meter shows the actual spend.
_EST_INPUT_TOKENS = 1500
_EST_IMAGE_TOKENS = 1000
_EST_OUTPUT_TOKENS = 300
_EST_THINKING_TOKENS = 2000
_EST_STEPS_PER_EPISODE = 100
#: The reflection call made before each decision (on by default): recent steps in, under 100 words out.
_EST_REFLECTION_TOKENS = (600, 150)


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
    seats = plan.specs * game.num_seats if len(plan.specs) == 1 else plan.specs
    for spec in dict.fromkeys(paid):
        n_seats = sum(1 for s in seats if s == spec)
        steps = per_seat * plan.episodes * n_seats
        try:
            est = pricing.estimate(spec, tin, tout, steps)
        except Exception as exc:  # noqa: BLE001  (an estimate is advice, never a reason to stop)
            print(f"cost estimate for {spec}: unavailable ({_one_line(exc)})", file=sys.stderr)
            continue
        basis = f"{steps} model steps x ~{tin} in / ~{tout} out tokens"
        if est.cost is None:
            print(f"cost estimate for {spec}: unknown ({est.note or 'no price'})", file=sys.stderr)
        else:
            limit = "" if plan.max_steps or game.max_episode_steps else (
                f" (assuming {per_episode} steps per episode; --max-steps caps it)")
            print(f"cost estimate for {spec}: about {_money(est.cost)} for {basis}{limit}", file=sys.stderr)


async def _close_players(players: Sequence[Player]) -> None:
    for player in players:
        client = getattr(player, "client", None)
        close = getattr(client, "aclose", None)
        if close is not None:
            try:
                await close()
            except Exception:  # noqa: BLE001  (closing a connection must not hide the episode's result)
                log.debug("closing the client of %s failed", player.spec, exc_info=True)


async def _play_episode(plan: BatchPlan, stats: EpisodeStats, players: Sequence[Player] | None) -> None:
    """Play one episode to its end and close its session; errors are recorded, never raised."""
    from desktop.episode import build_players, start_episode

    try:
        if players is None:
            players = build_players(plan.game, plan.specs, seed=stats.seed, model_options=plan.model_options)
        episode = start_episode(
            plan.game.id,
            plan.specs,
            root=plan.out,
            seed=stats.seed,
            options=plan.options,
            model_options=plan.model_options,
            max_steps=plan.max_steps,
            render=plan.render,
            players=players,
        )
    except Exception as exc:  # noqa: BLE001  (reported in the summary)
        stats.status, stats.error = "error", _one_line(exc)
        log.warning("episode %d could not start: %s", stats.index, stats.error)
        return
    stats.path = episode.path
    stats.status = "running"
    episode.match.subscribe(stats.on_event)
    log.info("episode %d (seed %d) started: %s", stats.index, stats.seed, episode.path)
    status = "error"
    try:
        result = await episode.match.run()
        status = result.status
        stats.steps, stats.scores, stats.winner = result.steps, tuple(result.scores), result.winner
    except asyncio.CancelledError:
        status = "aborted"
        raise
    except Exception as exc:  # noqa: BLE001  (a provider or game error ends this episode, not the batch)
        stats.error = stats.error or _one_line(exc)
        log.debug("episode %d failed", stats.index, exc_info=True)
    finally:
        stats.status = status
        try:
            episode.writer.close(status=status)
        except Exception as exc:  # noqa: BLE001
            log.warning("closing session %s failed: %s", episode.path, _one_line(exc))
        await _close_players(players)
        log.info("episode %d finished: %s", stats.index, status)


async def _run_batch(plan: BatchPlan, outcome: BatchOutcome, progress: _Progress) -> None:
    """Play every episode with at most ``plan.concurrency`` at once; Ctrl+C cancels them cleanly."""
    sem = asyncio.Semaphore(plan.concurrency)
    stop_new = asyncio.Event()
    tasks: dict[int, asyncio.Task[None]] = {}

    def total_cost() -> float:
        return sum(s.cost_usd for s in outcome.stats)

    def on_change(stats: EpisodeStats, event: Event) -> None:
        if event.type == ev.ERROR and (event.data or {}).get("where") == "budget":
            progress.log(f"episode {stats.index}: {_redact(str(event.data.get('message')))}")
        if event.type == ev.MODEL_CALL_FINISHED:
            if plan.batch_budget is not None and total_cost() > plan.batch_budget and not stop_new.is_set():
                stop_new.set()
                outcome.budget_stopped = True
                progress.log(f"batch budget {_money(plan.batch_budget)} exceeded: stopping")
                for i, task in tasks.items():
                    if not task.done():
                        outcome.stats[i].stop_reason = f"batch budget {_money(plan.batch_budget)} exceeded"
                        task.cancel()
        progress.update(outcome)

    async def one(stats: EpisodeStats) -> None:
        try:
            async with sem:
                if stop_new.is_set():
                    stats.status = "skipped"
                    stats.add_note("batch budget exceeded")
                    return
                players = plan.first_players if stats.index == 0 else None
                await _play_episode(plan, stats, players)
        except asyncio.CancelledError:
            if stats.stop_reason is None:
                raise  # an interrupt: let it reach the batch
            if stats.status == "pending":  # cancelled while waiting for its turn
                stats.status = "skipped"
            stats.add_note(stats.stop_reason)
        finally:
            progress.update(outcome, force=True)

    for stats in outcome.stats:
        stats.on_change = on_change
        tasks[stats.index] = asyncio.create_task(one(stats), name=f"episode-{stats.index}")
    try:
        await asyncio.wait(tasks.values())
    except asyncio.CancelledError:
        # Ctrl+C (asyncio.run cancels this task): cancel every episode; each match records
        # ``session_finished`` with status aborted and its writer closes the session.
        outcome.interrupted = True
        for task in tasks.values():
            task.cancel()
        await asyncio.gather(*tasks.values(), return_exceptions=True)
        for stats in outcome.stats:
            if stats.status == "pending":
                stats.status = "not started"
        return
    for task in tasks.values():
        if not task.cancelled() and task.exception() is not None:  # a bug in this module: surface it
            raise task.exception()  # type: ignore[misc]


class _Progress:
    """A rich progress bar on stderr when it is a terminal; otherwise one final line."""

    def __init__(self, total: int, *, show_cost: bool, enabled: bool) -> None:
        self.total = total
        self.show_cost = show_cost
        self.enabled = enabled
        self._progress: Any = None
        self._task: Any = None
        self._last = 0.0

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
            self._progress = Progress(*columns, console=Console(stderr=True), transient=False)
            self._progress.__enter__()
            self._task = self._progress.add_task("run", total=self.total, steps=0, cost=_money(0.0))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(None, None, None)

    def update(self, outcome: BatchOutcome, *, force: bool = False) -> None:
        if self._progress is None:
            return
        now = time.monotonic()
        if now - self._last < 0.05 and not force:  # a redraw per event would cost more than the bots
            return
        self._last = now
        done = sum(1 for s in outcome.stats if s.status not in ("pending", "running"))
        self._progress.update(
            self._task,
            completed=done,
            steps=sum(s.steps for s in outcome.stats),
            cost=_money(sum(s.cost_usd for s in outcome.stats)),
        )

    def log(self, message: str) -> None:
        if self._progress is not None:
            self._progress.console.print(message, markup=False, highlight=False)
        else:
            print(message, file=sys.stderr)


def cmd_run(args: argparse.Namespace) -> int:
    """``playtrace run``: play the episodes, print the summary; see the module doc for exit codes."""
    plan = _plan(args)
    has_model = any(is_model_spec(s) for s in plan.specs)
    _print_estimate(plan)
    if args.dry_run:
        seats = plan.specs * plan.game.num_seats if len(plan.specs) == 1 else plan.specs
        print(f"would play {plan.episodes} episode(s) of {plan.game.id} (seeds {plan.seed}.."
              f"{plan.seed + plan.episodes - 1}, {plan.concurrency} at a time): "
              + " vs ".join(f"{p.label} ({spec})" for p, spec in zip(plan.first_players, seats, strict=True))
              + f"; sessions into {plan.out}")
        asyncio.run(_close_players(plan.first_players))
        return EXIT_OK
    problem = _check_writable(plan.out)
    if problem is not None:
        # Checked once up front: otherwise every episode fails alike, with a table row and a log line each.
        _err(problem)
        asyncio.run(_close_players(plan.first_players))
        return EXIT_FAILURE
    outcome = BatchOutcome(
        stats=[
            EpisodeStats(
                index=i,
                seed=plan.seed + i,
                num_seats=plan.game.num_seats,
                model_seats=frozenset(s for s, p in enumerate(plan.first_players) if p.kind == "model"),
            )
            for i in range(plan.episodes)
        ],
        labels=[p.label for p in plan.first_players],
    )
    log.info("running %d episode(s) of %s into %s", plan.episodes, plan.game.id, plan.out)
    started = time.monotonic()
    progress = _Progress(plan.episodes, show_cost=has_model, enabled=sys.stderr.isatty() and not args.json)
    try:
        with progress:
            asyncio.run(_run_batch(plan, outcome, progress))
    except KeyboardInterrupt:  # a second Ctrl+C while the episodes were being cancelled
        outcome.interrupted = True
    outcome.elapsed_s = time.monotonic() - started
    if args.json:
        print(json.dumps(_batch_json(plan, outcome), indent=2))
    else:
        _print_summary(plan, outcome, has_model)
    if not progress.enabled:
        print(_final_line(outcome, has_model), file=sys.stderr)
    if outcome.interrupted:
        return EXIT_INTERRUPTED
    if outcome.budget_stopped or any(s.status == "error" for s in outcome.stats):
        return EXIT_FAILURE
    return EXIT_OK


def _final_line(outcome: BatchOutcome, has_model: bool) -> str:
    counts: dict[str, int] = {}
    for s in outcome.stats:
        counts[s.status] = counts.get(s.status, 0) + 1
    parts = [f"{len(outcome.stats)} episode(s) (" + ", ".join(f"{n} {k}" for k, n in counts.items()) + ")",
             f"{sum(s.steps for s in outcome.stats)} steps"]
    if has_model:
        parts.append(f"cost {_money(sum(s.cost_usd for s in outcome.stats))}")
    parts.append(f"{outcome.elapsed_s:.1f} s")
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


def _aggregate(plan: BatchPlan, outcome: BatchOutcome) -> dict[str, Any]:
    game = plan.game
    finished = [s for s in outcome.stats if s.status in FINISHED_STATUSES and s.scores]
    seats: list[dict[str, Any]] = []
    for seat in range(game.num_seats):
        values = [float(s.scores[seat]) for s in finished if len(s.scores) > seat]
        entry: dict[str, Any] = {
            "seat": seat,
            "name": game.seats[seat].name,
            "player": outcome.labels[seat] if seat < len(outcome.labels) else "",
            "spec": (plan.specs * game.num_seats)[seat] if len(plan.specs) == 1 else plan.specs[seat],
            "episodes": len(values),
            "mean": statistics.fmean(values) if values else None,
            "sd": statistics.stdev(values) if len(values) > 1 else (0.0 if values else None),
        }
        if game.num_seats == 2:
            decided = [s for s in finished if s.status in ("completed", "forfeit")]
            entry["wins"] = sum(1 for s in decided if s.winner == seat)
            entry["losses"] = sum(1 for s in decided if s.winner is not None and s.winner != seat)
            entry["draws"] = sum(1 for s in decided if s.winner is None)
        if seat in (outcome.stats[0].model_seats if outcome.stats else ()):
            entry["invalid_answers"] = sum(s.invalid.get(seat, 0) for s in outcome.stats)
        seats.append(entry)
    return {
        "episodes": len(outcome.stats),
        "finished": len(finished),
        "steps": sum(s.steps for s in outcome.stats),
        "cost_usd": round(sum(s.cost_usd for s in outcome.stats), 6),
        "seats": seats,
    }


def _batch_json(plan: BatchPlan, outcome: BatchOutcome) -> dict[str, Any]:
    return {
        "game": plan.game.id,
        "players": plan.specs,
        "out": str(plan.out),
        "interrupted": outcome.interrupted,
        "budget_stopped": outcome.budget_stopped,
        "episodes": [
            {
                "index": s.index,
                "seed": s.seed,
                "steps": s.steps,
                "scores": list(s.scores),
                "winner": s.winner,
                "status": s.status,
                "cost_usd": round(s.cost_usd, 6),
                "invalid_answers": {str(k): v for k, v in sorted(s.invalid.items())},
                "error": s.error,
                "notes": s.notes,
                "failed_calls": s.failed_calls,
                "fallback_moves": s.fallbacks,
                "last_model_error": s.last_failure,
                "session": str(s.path) if s.path else None,
            }
            for s in outcome.stats
        ],
        "aggregate": _aggregate(plan, outcome),
    }


def _print_summary(plan: BatchPlan, outcome: BatchOutcome, has_model: bool) -> None:
    from rich.table import Table

    console = _stdout_console()
    game = plan.game
    players = " vs ".join(f"{lbl} ({spec})" for lbl, spec in zip(
        outcome.labels, plan.specs * game.num_seats if len(plan.specs) == 1 else plan.specs))
    console.print(f"{game.title} · {players} · {len(outcome.stats)} episode(s) · sessions in {plan.out}")
    table = Table(show_edge=False, pad_edge=False)
    # Short columns never wrap; on a narrow terminal the session path folds onto more lines instead.
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("seed", justify="right", no_wrap=True)
    table.add_column("steps", justify="right", no_wrap=True)
    table.add_column("scores", justify="right", no_wrap=True)
    table.add_column("result", no_wrap=True)
    if has_model:
        table.add_column("cost", justify="right", no_wrap=True)
        table.add_column("invalid", justify="right", no_wrap=True)
        table.add_column("failed calls", justify="right", no_wrap=True)
        table.add_column("fallbacks", justify="right", no_wrap=True)
    table.add_column("session", overflow="fold")
    details: list[str] = []
    for s in outcome.stats:
        result = _result_text(game, s)
        # Why an episode ended early goes under the table: long messages would squeeze the columns.
        why = list(s.notes)
        if s.error:
            why.insert(0, s.error)
        elif s.status in ("forfeit", "error") and s.last_failure and not s.notes:
            why.append(f"last model error: {s.last_failure}")
        details += [f"  #{s.index}: {w}" for w in why]
        row = [str(s.index), str(s.seed), str(s.steps), " / ".join(_num(x) for x in s.scores) or "-",
               result + (" *" if why else "")]
        if has_model:
            row += [_money(s.cost_usd), str(sum(s.invalid.values())), str(s.failed_calls), str(s.fallbacks)]
        row.append(str(s.path) if s.path else "-")
        table.add_row(*row)
    console.print(table)
    if details:
        console.print("* " + "\n".join(details).lstrip())
    agg = _aggregate(plan, outcome)
    console.print(f"finished {agg['finished']}/{agg['episodes']} episode(s), {agg['steps']} steps"
                  + (f", total cost {_money(agg['cost_usd'])}" if has_model else ""))
    for seat in agg["seats"]:
        line = f"  seat {seat['seat']} {seat['name']} ({seat['player']}): "
        if seat["mean"] is None:
            line += "no finished episode"
        else:
            line += f"score {_num(round(seat['mean'], 4))} ± {_num(round(seat['sd'], 4))}"
        if "wins" in seat:
            line += f"; {seat['wins']} wins, {seat['draws']} draws, {seat['losses']} losses"
        if "invalid_answers" in seat:
            line += f"; {seat['invalid_answers']} invalid answers"
        console.print(line)
    if outcome.budget_stopped:
        console.print("the batch budget was exceeded: running episodes were stopped, no new ones started")
    if outcome.interrupted:
        console.print("interrupted: running episodes were recorded as aborted")


# -- show ----------------------------------------------------------------------------------------------


def _load_session(path: Path) -> Any:
    """Load a session (folder, manifest, event log or zip); raises ``SessionError`` with one line."""
    import sessions

    try:
        return sessions.load_session(path)
    except sessions.SessionError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise sessions.SessionError(f"{path} is not a PlayTrace session ({_one_line(exc)})") from None


def model_stats(events: Sequence[Mapping[str, Any]], seats: Sequence[int]) -> dict[int, dict[str, Any]]:
    """Per model seat: calls, failed calls, tokens, cost, invalid answers and verification accuracy."""
    out: dict[int, dict[str, Any]] = {
        s: {"calls": 0, "failed_calls": 0, "input_tokens": 0, "output_tokens": 0, "reasoning_tokens": 0,
            "cost_usd": 0.0, "invalid_answers": 0, "verifications": 0, "verified_correct": 0}
        for s in seats
    }
    for e in events:
        seat = e.get("seat")
        if seat not in out:
            continue
        st, data, kind = out[seat], e.get("data") or {}, e.get("type")
        if kind == ev.MODEL_CALL_FINISHED:
            st["calls"] += 1
            for key in ("input_tokens", "output_tokens", "reasoning_tokens"):
                st[key] += int(data.get(key) or 0)
            cost = data.get("cost_usd")
            if isinstance(cost, (int, float)):
                st["cost_usd"] += float(cost)
        elif kind == ev.MODEL_CALL_FAILED:
            st["calls"] += 1
            st["failed_calls"] += 1
        elif kind in (ev.ACTION_UNPARSABLE, ev.ACTION_ILLEGAL):
            st["invalid_answers"] += 1
        elif kind == ev.VERIFICATION:
            st["verifications"] += 1
            st["verified_correct"] += 1 if data.get("correct") else 0
    for st in out.values():
        st["cost_usd"] = round(st["cost_usd"], 6)
        st["verification_accuracy"] = (
            st["verified_correct"] / st["verifications"] if st["verifications"] else None
        )
    return out


def session_report(session: Any) -> dict[str, Any]:
    """The facts ``playtrace show`` prints, as a JSON-compatible dict.

    Keys: id, path, game, players, created_at, finished_at, seed, status, steps, scores (per seat),
    winner (seat index or None), result (short text), warnings, and ``model`` (per model seat: calls,
    tokens, cost, invalid answers, verification accuracy) when a model played.
    """
    summary: dict[str, Any] = dict(session.summary())
    manifest: Mapping[str, Any] = session.manifest or {}
    players = summary.get("players") or []
    winner = summary.get("winner")
    model_seats = [int(p.get("seat", i)) for i, p in enumerate(players)
                   if isinstance(p, Mapping) and p.get("kind") == "model"]
    report: dict[str, Any] = {
        "id": summary.get("id"),
        "path": str(getattr(session, "source", session.path)),
        "game": summary.get("game"),
        "players": players,
        "created_at": summary.get("created_at"),
        "finished_at": summary.get("finished_at"),
        "seed": manifest.get("seed"),
        "status": summary.get("status"),
        "steps": int(summary.get("steps") or 0),
        "scores": list(summary.get("scores") or []),
        "winner": winner if isinstance(winner, int) and not isinstance(winner, bool) else None,
        "result": summary.get("result"),
        "warnings": list(session.warnings),
    }
    if model_seats:
        report["model"] = {str(k): v for k, v in model_stats(session.events, model_seats).items()}
    return report


def cmd_show(args: argparse.Namespace) -> int:
    """``playtrace show``: a readable (or JSON) summary of one session; exit 1 if it is not a session."""
    import sessions

    try:
        session = _load_session(args.session)
        report = session_report(session)
    except sessions.SessionError as exc:
        _err(_one_line(exc))
        return EXIT_FAILURE
    if args.json:
        print(json.dumps(report, indent=2, default=str))
        return EXIT_OK
    for warning in report["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    print(_format_report(report))
    return EXIT_OK


def _player_text(p: Any) -> str:
    if isinstance(p, Mapping):
        label, spec = p.get("label") or p.get("spec") or "?", p.get("spec")
        return f"{label} ({spec})" if spec and spec != label else str(label)
    return str(p)


def _format_report(r: Mapping[str, Any]) -> str:
    players = r["players"]
    winner = r["winner"]
    if winner is not None and 0 <= winner < len(players):
        winner_text = f"seat {winner}: {_player_text(players[winner])}"
    elif len(players) >= 2 and r["status"] == "completed":
        winner_text = "none (draw)"
    else:
        winner_text = "-"
    lines = [
        f"session   {r['id']}",
        f"path      {r['path']}",
        f"game      {r['game']}",
        f"players   " + " vs ".join(f"[{i}] {_player_text(p)}" for i, p in enumerate(players)),
        f"date      {r['created_at'] or '-'}",
        f"seed      {r['seed'] if r['seed'] is not None else '-'}",
        f"status    {r['status']}",
        f"steps     {r['steps']}",
        f"scores    {' / '.join(_num(s) for s in r['scores']) or '-'}",
        f"winner    {winner_text}",
        f"result    {r.get('result') or '-'}",
    ]
    if r["warnings"]:
        lines.append(f"warnings  {len(r['warnings'])} (see above)")
    for seat, st in (r.get("model") or {}).items():
        acc = st["verification_accuracy"]
        acc_text = f"{acc:.0%} of {st['verifications']}" if acc is not None else "no checks"
        lines.append(
            f"model [{seat}] {st['calls']} calls ({st['failed_calls']} failed), "
            f"tokens {st['input_tokens']} in / {st['output_tokens']} out"
            + (f" / {st['reasoning_tokens']} reasoning" if st["reasoning_tokens"] else "")
            + f", cost {_money(st['cost_usd'])}, {st['invalid_answers']} invalid answers, "
            f"verification {acc_text}"
        )
    return "\n".join(lines)


# -- list, export, import, games ----------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    """``playtrace list``: the catalogue of recorded sessions, newest first."""
    import sessions
    from rich.table import Table

    root = args.out if args.out is not None else _default_root()
    catalogue = sessions.Catalogue(root)
    items = list(catalogue.list())
    for warning in getattr(catalogue, "warnings", ()) or ():
        print(f"warning: {warning}", file=sys.stderr)
    if args.limit is not None:
        items = items[: args.limit]
    if not items:
        print(f"no sessions in {root}")
        return EXIT_OK
    console = _stdout_console()
    console.print(f"sessions in {root}")
    table = Table(show_edge=False, pad_edge=False)
    for col in ("id", "created", "game", "players", "steps", "status", "result"):
        table.add_column(col, no_wrap=col == "id")
    for it in items:
        labels = getattr(it, "players", ()) or ()
        table.add_row(
            str(getattr(it, "id", "")),
            str(getattr(it, "created_at", "") or ""),
            str(getattr(it, "game", "")),
            " vs ".join(str(x) for x in labels),
            str(getattr(it, "steps", "")),
            str(getattr(it, "status", "") or ""),
            str(getattr(it, "result", "") or ""),
        )
    console.print(table)
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    """``playtrace export SESSION ZIP``."""
    import sessions

    try:
        session = _load_session(args.session)
        dest = sessions.export_zip(Path(session.path), args.zip)
    except (sessions.SessionError, OSError) as exc:
        _err(_one_line(exc))
        return EXIT_FAILURE
    print(dest)
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    """``playtrace import ZIP [--out DIR]``: prints the new session folder."""
    import sessions

    root = args.out if args.out is not None else _default_root()
    try:
        path = sessions.import_zip(args.zip, root)
    except (sessions.SessionError, OSError, ValueError) as exc:
        _err(_one_line(exc))
        return EXIT_FAILURE
    print(path)
    return EXIT_OK


def cmd_games(args: argparse.Namespace) -> int:
    """``playtrace games``: every registered game, its seats, kind, bots and options; games that
    cannot be played here are listed with the reason and the command that installs what they need."""
    from engine.roster import bots_for

    listed = engine.entries()
    if getattr(args, "json", False):
        print(json.dumps([_game_json(e) for e in listed], indent=2))
        return EXIT_OK
    for e in listed:
        if not e.available or e.cls is None:
            hint = f" (install: {e.install})" if e.install else ""
            print(f"{e.id}  {e.title}  UNAVAILABLE: {e.problem}{hint}")
            continue
        cls = e.cls
        seats = ", ".join(s.name for s in cls.seats)
        print(f"{e.id}  {cls.title}  [{', '.join(cls.suites) or e.distribution}]  {_kind_text(cls)}")
        print(f"    seats: {seats}; players: human, {', '.join(bots_for(cls))}, sim, models")
        for o in cls.options_schema:
            print(f"    --option {o.name}=…  {o.describe_type()}, default {o.default}" + (f": {o.help}" if o.help else ""))
    return EXIT_OK


def _kind_text(cls: type[engine.Game]) -> str:
    parts = [
        f"{len(cls.seats)} seat{'s' if len(cls.seats) != 1 else ''}",
        "simultaneous" if cls.simultaneous else "turn-based",
        "chance" if cls.chance else "deterministic",
        "perfect information" if cls.perfect_information else "hidden information",
    ]
    if cls.tick_s is not None:
        parts.append(f"real time ({cls.tick_s:g} s a tick)")
    return ", ".join(parts)


def _game_json(e: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"id": e.id, "title": e.title, "available": e.available, "distribution": e.distribution}
    if e.problem:
        data["problem"] = e.problem
    if e.install:
        data["install"] = e.install
    cls = e.cls
    if cls is not None:
        data |= {
            "suites": list(cls.suites),
            "seats": [s.name for s in cls.seats],
            "simultaneous": cls.simultaneous,
            "chance": cls.chance,
            "perfect_information": cls.perfect_information,
            "tick_s": cls.tick_s,
            "default_action": cls.default_action,
            "bots": list(cls.bots),
            "default_opponent": cls.default_opponent,
            "options": [o.to_data() for o in cls.options_schema],
        }
    return data


# -- check-model ---------------------------------------------------------------------------------------

_KEY_VARS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


def _key_present(provider: str) -> bool:
    """Whether a key for ``provider`` is configured (never returns or prints the key itself)."""
    try:
        from engine.llm.keys import key_source
    except ImportError:
        return bool(os.environ.get(_KEY_VARS.get(provider, ""), "").strip())
    if provider == "anthropic" and os.environ.get("ANTHROPIC_AUTH_TOKEN", "").strip():
        # The Anthropic client lets its SDK use a bearer token when there is no key (see AnthropicClient).
        return True
    return key_source(provider) is not None


def _probe_server(base_url: str, model: str | None, timeout: float) -> tuple[bool, str]:
    """GET ``{base_url}/models`` of an OpenAI-compatible server; says whether ``model`` is served."""
    url = base_url.rstrip("/") + "/models"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310  (the user's own server)
            body = resp.read(2_000_000)
    except urllib.error.HTTPError as exc:
        return False, f"{url} answered HTTP {exc.code}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return False, f"cannot reach {url}: {_redact(str(reason))}"
    try:
        ids = [m.get("id") for m in json.loads(body).get("data", []) if isinstance(m, dict)]
    except (ValueError, AttributeError):
        return True, f"{url} answered, but not with an OpenAI-style model list"
    # Ollama lists "llama3:latest" for a model pulled and run as "llama3".
    if model and model not in ids and f"{model}:latest" not in ids:
        shown = ", ".join(str(i) for i in ids[:10]) or "none"
        return False, f"server reachable, but it does not serve {model!r} (it serves: {shown})"
    return True, f"server reachable at {base_url}" + (f", serves {model}" if model else f" ({len(ids)} models)")


def _local_presets() -> frozenset[str]:
    """Spec prefixes naming a local server preset (``ollama``, ``lmstudio``...)."""
    from engine.llm.local import PRESETS

    return frozenset(PRESETS)


def cmd_check_model(args: argparse.Namespace) -> int:
    """``playtrace check-model SPEC``: local servers are probed; cloud providers need a key present."""
    spec: str = args.spec.strip()
    prefix, _, rest = spec.partition(":")
    if args.base_url:
        model = rest.split("@", 1)[0] if prefix in ("local", "openai") and rest else (rest or None)
        ok, msg = _probe_server(args.base_url, model or None, args.timeout)
    elif prefix == "sim":
        ok, msg = True, "the simulated model is built in and works offline (no key, no network)"
    elif prefix == "local" or prefix in _local_presets():
        # Parsed as `run` parses it: presets (ollama:MODEL, local:MODEL@lmstudio) and local:MODEL
        # (Ollama's default address) are checked at the address they will be called at.
        from engine.llm.factory import parse_spec

        try:
            parsed = parse_spec(spec)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        ok, msg = _probe_server(str(parsed.base_url), parsed.model or None, args.timeout)
    elif prefix in _KEY_VARS:
        if not rest:
            raise UsageError(f"write {prefix}:MODEL")
        ok = _key_present(prefix)
        msg = (f"a key for {prefix} is configured (not shown); {rest} will be called on first use"
               if ok else f"no key for {prefix}: set {_KEY_VARS[prefix]} or add one in the app's settings")
    else:
        raise UsageError(f"unknown model spec {spec!r}; choose sim, openai:MODEL, anthropic:MODEL, "
                         "local:MODEL@URL")
    print(f"{'ok' if ok else 'FAILED'}: {spec}: {msg}")
    return EXIT_OK if ok else EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
