"""The ``playtrace`` command: opens the app, or runs headless subcommands.

``playtrace`` alone opens the desktop app. The subcommands work without a window:

- ``playtrace run GAME --player SPEC ...`` plays many episodes concurrently (asyncio), one session
  folder each, and prints a summary table with aggregates (scores, wins, cost, invalid answers);
- ``playtrace tournament GAME --player A --player B ...`` plays a round-robin and writes GameBot's
  score tables (:mod:`desktop.cli.tournament`); ``playtrace tournament report DIR`` rebuilds them;
- ``playtrace tasks generate|eval|report`` makes LVLM-Playground's offline task sets, runs players on
  them and prints the paper's per-task tables (:mod:`desktop.cli.tasks`);
- ``playtrace show SESSION [--json]`` summarises one recorded session;
- ``playtrace list``, ``export``, ``import``, ``games`` and ``check-model`` manage the catalogue, move
  sessions between machines, list what can be played and check that a model can be reached.

Wherever a session folder is accepted (``show``, ``export``, ``--open``), the session id that
``playtrace list`` prints is accepted too; it is looked up in the sessions folder (``--out`` where the
command has it, else ``$PLAYTRACE_HOME/sessions`` or the platform's user-data folder).

Exit codes: 0 success; 1 a failure at run time (an episode ended in error, a model seat forfeited
because its calls kept failing, a path that is not a session, an unreachable model, a refused import);
2 a usage error (unknown game, bad player spec, bad option or value); 130 interrupted by Ctrl+C (SIGINT);
143 stopped by SIGTERM. Both signals are handled alike: running episodes are recorded as ``aborted``
and the summary of what was played is printed before the exit.
Episodes are recorded through :mod:`desktop.episode`, exactly as the app records them.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import logging
import os
import signal
import sqlite3
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from desktop.cli.common import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_USAGE,
    UsageError,
    check_outputs,
    err,
    one_line,
)
from desktop.cli.models import cmd_check_model, cmd_games
from desktop.cli.run import cmd_run
from desktop.cli.sessions import cmd_export, cmd_import, cmd_list, cmd_show, model_stats, session_report
from desktop.cli.tasks import add_parser as add_tasks_parser
from desktop.cli.tasks import cmd_tasks
from desktop.cli.tournament import add_parser as add_tournament_parser
from desktop.cli.tournament import cmd_tournament
from engine.safeio import InputError

__all__ = [
    "EXIT_FAILURE",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "UsageError",
    "build_parser",
    "cmd_check_model",
    "cmd_export",
    "cmd_games",
    "cmd_import",
    "cmd_list",
    "cmd_run",
    "cmd_show",
    "main",
    "model_stats",
    "session_report",
]

log = logging.getLogger("playtrace.cli")


# -- small helpers ---------------------------------------------------------------------------------


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("playtrace")
    except metadata.PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


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


# -- argument parsing -------------------------------------------------------------------------------


#: Subcommands that live in a module of their own, each with ``COMMAND`` (its name),
#: ``add_parser(sub, common)`` and ``run(args) -> int``; they import what they need when they run.
_MODULE_COMMANDS = (
    "desktop.cli.baseline",
    "desktop.cli.vgdl",
    "desktop.cli.study",
    "desktop.cli.annotations",
    "desktop.cli.sweep",
    "desktop.cli.search",
    "desktop.cli.rescore",
    "desktop.cli.compare",
    "desktop.cli.probe",
    "desktop.cli.ratings",
    "desktop.cli.leaderboard",
    "desktop.cli.protocols",
    "desktop.cli.reproduce",
)


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
                          help="open a saved session (its id or folder) for replay")
    demo = app_opts.add_mutually_exclusive_group()
    demo.add_argument("--no-demo", action="store_true", help="do not start the simulated-model demo")
    demo.add_argument("--demo", action="store_true",
                      help="play the simulated-model demo (for talks), even after you played your own games")
    app_opts.add_argument("--presenter", action="store_true",
                          help="open in presenter mode (large type, board and reasoning only; F5 leaves it)")
    app_opts.add_argument("--self-test", action="store_true",
                          help="draw every game, play one game of each offscreen, write and read a "
                          "session, and exit (0 when all is well)")
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
    run.add_argument("--game-file", default=None, metavar="FILE",
                     help="the game's description file (VGDL games: same as --option game_file=FILE)")
    run.add_argument("--level-file", default=None, metavar="FILE",
                     help="the level file (VGDL games: same as --option level_file=FILE)")
    run.add_argument("--json", action="store_true", help="print the summary as JSON instead of a table")
    run.add_argument("--dry-run", action="store_true",
                     help="check the command and print the plan and cost estimate without playing")
    harness = run.add_argument_group("model players (sim, openai, anthropic, local)")
    harness.add_argument("--perception", choices=("text", "image", "both", "describe"), default=None,
                         help="what the model gets of the board: text (default), the image, both, or "
                         "describe (a vision model describes the image in a call of its own and the "
                         "model gets that text)")
    harness.add_argument("--perception-model", default=None, metavar="SPEC",
                         help="the model that describes the image with --perception describe (default: "
                         "the acting model)")
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
    harness.add_argument("--action-format", choices=("text", "json", "tools"), default=None,
                         help="how the model gives its move: text (default: the game's own output "
                         "format), json (one JSON object) or tools (native tool calling, the legal moves "
                         "as the tool's schema)")
    harness.add_argument("--logprobs", action="store_true", default=None,
                         help="ask for token log-probabilities (OpenAI and compatible servers) and record "
                         "the model's confidence over the candidate moves")
    harness.add_argument("--reask", choices=("feedback", "same", "none"), default=None,
                         help="how an unparsable or illegal answer is asked again: feedback (default: "
                         "the error and the legal moves), same (exactly the first prompt again, as "
                         "LVLM-Playground does) or none (straight to --fallback)")
    harness.add_argument("--retries", type=int, default=None, metavar="K",
                         help="re-asks after an unparsable or illegal answer (default 3)")
    harness.add_argument("--fallback", choices=("random", "noop", "forfeit"), default=None,
                         help="what happens when the re-asks run out")
    harness.add_argument("--max-failed-calls", type=int, default=None, metavar="N",
                         help="a seat whose model calls fail N times in a row forfeits and the batch "
                         "stops, exit code 1 (default 5; 0 never gives up)")
    harness.add_argument("--strikes", type=int, default=None, metavar="N",
                         help="a model's N-th unusable answer in a game forfeits it (LVLM-Playground: 3)")
    harness.add_argument("--budget-soft", type=float, default=None, metavar="USD",
                         help="warn when a session's cost passes this")
    harness.add_argument("--budget-hard", type=float, default=None, metavar="USD",
                         help="stop a session whose cost passes this")
    harness.add_argument("--batch-budget", type=float, default=None, metavar="USD",
                         help="stop the whole batch (cancel running episodes) when its cost passes this")
    harness.add_argument("--rpm", action="append", default=None, metavar="[WHERE=]N",
                         help="requests per minute the model calls of all episodes keep to (WHERE: a "
                         "provider or base URL; repeat for several)")
    harness.add_argument("--tpm", action="append", default=None, metavar="[WHERE=]N",
                         help="tokens per minute the model calls of all episodes keep to (as --rpm)")
    harness.add_argument("--sim-error-rate", type=float, default=None, metavar="X",
                         help="share of badly formatted answers from the simulated model (sim only)")
    harness.add_argument("--sim-api-error-rate", type=float, default=None, metavar="X",
                         help="share of failing calls (simulated server errors) of the simulated model")

    show = sub.add_parser("show", parents=[common], help="summarise a recorded session")
    show.add_argument("session", type=Path,
                      help="a session id (as `playtrace list` prints it) or folder (or its manifest.json / "
                      "events.jsonl)")
    show.add_argument("--out", type=Path, default=None, metavar="DIR", help="sessions folder for ids")
    show.add_argument("--json", action="store_true", help="print a JSON object")

    lst = sub.add_parser("list", parents=[common], help="the recorded sessions, newest first")
    lst.add_argument("--out", type=Path, default=None, metavar="DIR", help="sessions folder")
    lst.add_argument("--limit", type=int, default=None, metavar="N")

    exp = sub.add_parser("export", parents=[common],
                         help="pack a session into a zip file, animate it as a GIF or an MP4, share it as "
                         "one self-contained HTML page, or write it in its game's own format (chess: PGN)",
                         description="Write a session as a zip archive (DEST.zip or a folder), its boards "
                         "with each decision's rationale as an animation (DEST.gif or DEST.mp4), or in "
                         "a format of its game's own (a chess game as DEST.pgn, with the reasoning as "
                         "comments).")
    exp.add_argument("session", type=Path, help="a session id or folder")
    exp.add_argument("--out", type=Path, default=None, metavar="DIR", help="sessions folder for ids")
    exp.add_argument("zip", type=Path, metavar="DEST",
                     help="out.zip, out.gif, out.mp4, out.html, a folder, or a game's format (out.pgn)")
    anim = exp.add_argument_group("animations (.gif, .mp4)")
    anim.add_argument("--from", dest="first", type=int, default=None, metavar="N",
                      help="first step shown, numbered as in the app (default: 1)")
    anim.add_argument("--to", dest="last", type=int, default=None, metavar="M",
                      help="last step shown (default: the last; the final position follows it)")
    anim.add_argument("--seconds-per-step", type=float, default=1.0, metavar="S",
                      help="how long each board is shown (default 1)")

    imp = sub.add_parser("import", parents=[common],
                         help="unpack a session zip into the sessions folder, or import games recorded "
                         "elsewhere (PGN, GamingAgent logs, LVLM-Playground records, GAMEBoT logs)")
    imp.add_argument("zip", type=Path, metavar="PATH",
                     help="a session zip, a PGN file, a GamingAgent episode log or a folder of them, "
                     "an LVLM-Playground record (.json) or a GAMEBoT game.log (or its folder)")
    imp.add_argument("--format", choices=("pgn", "gamingagent", "lvlm", "gamebot"), default=None,
                     help="the format of PATH when its name does not say it")
    imp.add_argument("--out", type=Path, default=None, metavar="DIR", help="sessions folder")
    imp.add_argument("--copy", action="store_true",
                     help="import a session that is already in the sessions folder as a new copy")

    games = sub.add_parser("games", parents=[common], help="the games, their seats, bots and options")
    games.add_argument("--json", action="store_true", help="print JSON instead of text")

    chk = sub.add_parser("check-model", parents=[common],
                         help="check that a model can be used (server reachable / key present)")
    chk.add_argument("spec", help="sim, openai:MODEL, anthropic:MODEL, local:MODEL@URL or ollama:MODEL "
                     "(and the other local presets)")
    chk.add_argument("--base-url", default=None, metavar="URL", help="an OpenAI-compatible server")
    chk.add_argument("--timeout", type=float, default=5.0, metavar="S")
    add_tournament_parser(sub, common)
    add_tasks_parser(sub, common)
    for module in _MODULE_COMMANDS:
        importlib.import_module(module).add_parser(sub, common)
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
        err("interrupted")
        return EXIT_INTERRUPTED
    if args.command is None and args.self_test:
        from desktop.selftest import self_test

        return self_test()
    if args.command is None:
        from desktop import app  # lazily: the headless commands never load the widgets
        from desktop.cli.common import resolve_session

        opened = resolve_session(args.open) if args.open is not None else None
        app_argv = (["--open", str(opened)] if opened is not None else []) + (
            ["--no-demo"] if args.no_demo else []
        ) + (["--demo"] if args.demo else []) + (["--presenter"] if args.presenter else [])
        return int(app.main(app_argv) or 0)
    handlers: dict[str, Callable[[argparse.Namespace], int]] = {
        "run": cmd_run,
        "show": cmd_show,
        "list": cmd_list,
        "export": cmd_export,
        "import": cmd_import,
        "games": cmd_games,
        "check-model": cmd_check_model,
        "tournament": cmd_tournament,
        "tasks": cmd_tasks,
    }
    for module in _MODULE_COMMANDS:
        command = importlib.import_module(module)
        handlers[command.COMMAND] = command.run
    previous = _terminate_as_interrupt()
    try:
        check_outputs(args)
        return handlers[args.command](args)
    except UsageError as exc:
        err(str(exc))
        return EXIT_USAGE
    except InputError as exc:
        # The safe input layer refused a file or folder (a FIFO, a device, a link leaving its folder,
        # a zip bomb, nesting too deep): its message is one line that names the path.
        err(one_line(exc))
        return EXIT_FAILURE
    except KeyboardInterrupt as exc:
        # A command that handles the signals itself prints its summary and returns 130/143; this is
        # for the others (task generation, exports, imports): one line, the same two codes.
        terminated = isinstance(exc, Terminated)
        err("stopped (SIGTERM)" if terminated else "interrupted")
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``playtrace show S --json | head``): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:
        # A full disk, a quota, a read-only or vanished folder, at any point of any command: one line.
        # What was written before stays (sessions are flushed per event, results files are replaced
        # whole or not at all).
        err(_disk_problem(exc))
        return EXIT_FAILURE
    except sqlite3.OperationalError as exc:  # an index on a full disk ("database or disk is full")
        err(f"cannot write: {one_line(exc)}")
        return EXIT_FAILURE
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl+C raises KeyboardInterrupt, so every command stops alike."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated()


def _terminate_as_interrupt() -> Any:
    """Make SIGTERM raise :class:`Terminated` (commands running an event loop install their own
    handler while it runs); returns the handler to put back, or ``None`` off the main thread."""
    try:
        return signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError):  # not the main thread (an embedding application)
        return None


def _disk_problem(exc: OSError) -> str:
    """An :class:`OSError` as one line that names the file and says what to do."""
    where = f" {exc.filename}" if exc.filename else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return f"cannot write{where}: the disk is full ({exc.strerror}); free some space and run again"
    return f"cannot use{where}: {one_line(exc) if not exc.strerror else exc.strerror}"

