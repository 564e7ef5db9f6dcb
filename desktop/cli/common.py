"""What the ``playtrace`` subcommands share: exit codes, the usage error, and output helpers.

The commands live in :mod:`desktop.cli.run`, :mod:`desktop.cli.sessions` and :mod:`desktop.cli.models`;
:mod:`desktop.cli` parses the command line and dispatches to them.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
from collections.abc import Awaitable, Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

import engine
from engine.core import UnknownGameError
from engine.options import OptionError
from engine.safeio import InputError

T = TypeVar("T")

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
#: Ctrl+C (SIGINT): 128 + 2, as shells report it.
EXIT_INTERRUPTED = 130
#: SIGTERM, handled like Ctrl+C (summary printed, running sessions recorded as aborted): 128 + 15.
EXIT_TERMINATED = 143


class UsageError(Exception):
    """A mistake on the command line, reported as one line with exit code 2."""


def redact(text: str) -> str:
    """Hide anything that looks like a credential (the provider layer knows the key formats)."""
    try:
        from engine.llm.keys import redact as redact_keys
    except ImportError:
        return text
    return str(redact_keys(text))


def one_line(exc: BaseException) -> str:
    """An exception as one redacted line (the first line of its message, with its type if it has none)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return redact(text)


def err(message: str) -> None:
    """Print ``playtrace: message`` on stderr."""
    print(f"playtrace: {message}", file=sys.stderr)


def num(value: Any) -> str:
    """A number as people write it: ``3`` rather than ``3.0``, ``27,054`` rather than ``27054``, and
    a fraction to four significant digits without exponent notation (``27,050`` for ``27054.3``,
    ``0.3333`` for a third)."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if not isinstance(value, float):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    rounded = float(f"{value:.4g}")
    if rounded.is_integer():
        return f"{int(rounded):,}"
    text = f"{rounded:,.{max(0, 3 - math.floor(math.log10(abs(rounded))))}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def mean_sd(mean: float, sd: float | None) -> str:
    """``27,050 ± 18,880``: a mean and its standard deviation, both to four significant digits."""

    def four(x: float) -> str:
        return num(float(f"{x:.4g}")) if math.isfinite(x) else str(x)

    return four(mean) if sd is None else f"{four(mean)} ± {four(sd)}"


def money(value: float) -> str:
    """Dollars with four decimals (model calls often cost fractions of a cent)."""
    return f"${value:.4f}"


def output_width() -> int:
    """The width tables are laid out for: the terminal's, ``$COLUMNS`` when set, else 80."""
    if sys.stdout.isatty():
        return shutil.get_terminal_size((80, 24)).columns
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    return columns if columns > 0 else 80


def stdout_console() -> Any:
    """A rich console for tables on stdout; markup off, since paths and notes may contain brackets.

    Tables are designed to fit 80 columns. Lines of free text that hold paths are printed with
    ``soft_wrap=True`` so that a path is never broken in two.
    """
    from rich.console import Console

    if sys.stdout.isatty():
        return Console(soft_wrap=False, markup=False, highlight=False)
    # Not a terminal (a pipe, a file, a test): no colours, laid out for $COLUMNS (80 by default).
    return Console(file=sys.stdout, width=output_width(), no_color=True, markup=False, highlight=False)


def compact_table(**kwargs: Any) -> Any:
    """A borderless rich table with one space between columns and a rule under the headers."""
    from rich import box
    from rich.table import Table

    return Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=0, **kwargs)


def ensure_offscreen_qt() -> None:
    """The command line never opens a window: draw offscreen unless the user chose a platform."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def default_root() -> Path:
    """The user-data sessions folder."""
    from sessions.paths import default_root as sessions_root

    return sessions_root()


def resolve_session(arg: Path | str, root: Path | None = None) -> Path:
    """A session given on the command line: a path (folder, manifest, event log, zip) as it is, or
    a session id as ``playtrace list`` prints it, looked up in ``root`` (default: the sessions folder).

    A path that exists wins; an id that is in the sessions folder comes next; anything else is
    returned unchanged, so the caller reports it as it was typed.
    """
    path = Path(arg)
    if path.exists():
        return path
    text = str(arg)
    separators = [sep for sep in (os.sep, os.altsep) if sep]
    if text and not any(sep in text for sep in separators) and text not in (".", ".."):
        from sessions import Catalogue

        found = Catalogue(root if root is not None else default_root()).get(text)
        if found is not None:
            return found
    return path


async def until_sigterm(coro: Awaitable[T], terminated: list[int]) -> T:
    """Await ``coro`` with SIGTERM cancelling it the way Ctrl+C does (its ``finally`` blocks run, so what
    was done is saved); a SIGTERM leaves its number in ``terminated``. Every long command plays through
    this, so both signals end it alike."""
    import asyncio
    import signal

    task = asyncio.current_task()
    loop = asyncio.get_running_loop()

    def on_sigterm() -> None:
        terminated.append(signal.SIGTERM)
        if task is not None:
            task.cancel()

    try:
        loop.add_signal_handler(signal.SIGTERM, on_sigterm)
    except (NotImplementedError, RuntimeError, ValueError):  # Windows, or not the main thread
        pass
    try:
        return await coro
    finally:
        try:
            loop.remove_signal_handler(signal.SIGTERM)
        except (NotImplementedError, RuntimeError, ValueError):
            pass


def run_interruptible(coro: Coroutine[Any, Any, T]) -> tuple[T | None, int | None]:
    """Run ``coro`` to the end, with SIGTERM and Ctrl+C handled alike: either cancels it (its ``finally``
    blocks run, so what was done is saved). Returns ``(result, None)``, or ``(None, exit code)`` with
    :data:`EXIT_TERMINATED` or :data:`EXIT_INTERRUPTED` when a signal stopped it; the caller prints
    its summary and returns that code."""
    import asyncio

    terminated: list[int] = []
    try:
        return asyncio.run(until_sigterm(coro, terminated)), None
    except (KeyboardInterrupt, asyncio.CancelledError):
        return None, EXIT_TERMINATED if terminated else EXIT_INTERRUPTED


def session_folder_of(path: Path) -> Path | None:
    """The session folder that ``path`` is or lies in (following links), or ``None``.

    A session folder holds an ``events.jsonl`` or a ``manifest.json`` of the session format (a task
    set's or a sweep's manifest is not one).
    """
    from sessions import read_manifest, schema

    try:
        resolved = path.expanduser().resolve()
    except (OSError, RuntimeError):
        resolved = path.expanduser().absolute()
    for folder in (resolved, *resolved.parents):
        try:
            if (folder / schema.EVENTS_FILE).exists():
                return folder
            manifest = folder / schema.MANIFEST_FILE
            if manifest.exists():
                try:
                    data = read_manifest(manifest)
                except (OSError, ValueError, InputError):
                    continue
                if isinstance(data, dict) and data.get("format") == schema.FORMAT:
                    return folder
        except OSError:
            continue
    return None


def check_output(path: Path | str, option: str) -> None:
    """The safe output rule: nothing but the session writer ever writes into a session folder.

    Raises:
        UsageError: ``path`` (a file or folder a command would write) is, or lies inside, a session.
    """
    folder = session_folder_of(Path(path))
    if folder is not None:
        raise UsageError(
            f"{option} {path} is inside the session {folder}; only PlayTrace's session writer writes "
            "there (choose another place)"
        )


#: The options of each command that name a place it writes (``dest`` and how the user typed it).
#: ``show``'s and ``list``'s ``--out`` only name a sessions folder to read, ``baseline``'s
#: ``--sessions`` too.
_OUTPUTS: dict[str, tuple[tuple[str, str], ...]] = {
    "run": (("out", "--out"),),
    "export": (("zip", "DEST"),),
    "import": (("out", "--out"),),
    "tournament": (("out", "--out"),),
    "tasks": (("out", "--out"), ("markdown", "--markdown")),
    "study": (("out", "--out"), ("file", "FILE")),
    "annotations": (("out", "--out"),),
    "sweep": (("out", "--out"),),
    "baseline": (("out", "--out"),),
    "rescore": (("out", "--out"),),
    "probe": (("out", "--out"),),
    "leaderboard": (("out", "--out"),),
    "reproduce": (("out", "--out"),),
}


def check_outputs(args: Any) -> None:
    """Apply :func:`check_output` to every output option given to the command in ``args``.

    ``study init FILE`` and ``sweep init FILE`` write their file; other verbs of these commands read
    it, which is checked by the input layer instead.
    """
    command = getattr(args, "command", None)
    for dest, label in _OUTPUTS.get(str(command), ()):
        if dest == "file" and getattr(args, "study_command", None) != "init":
            continue
        value = getattr(args, dest, None)
        if isinstance(value, str | Path) and str(value):
            check_output(Path(value), label)
    if command == "sweep" and getattr(args, "what", None) == "init" and getattr(args, "path", None):
        check_output(Path(args.path), "FILE")


def parse_game_options(game_id: str, values: Sequence[str]) -> dict[str, Any]:
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
