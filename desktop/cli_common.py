"""What the ``playtrace`` subcommands share: exit codes, the usage error, and output helpers.

The commands live in :mod:`desktop.cli_run`, :mod:`desktop.cli_sessions` and :mod:`desktop.cli_models`;
:mod:`desktop.cli` parses the command line and dispatches to them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import engine
from engine.core import UnknownGameError
from engine.options import OptionError

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


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
    """A score as people write it: ``3`` rather than ``3.0``, ``0.5`` rather than ``0.500000``."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def money(value: float) -> str:
    """Dollars with four decimals (model calls often cost fractions of a cent)."""
    return f"${value:.4f}"


def stdout_console() -> Any:
    """A rich console for tables on stdout; markup off, since paths and notes may contain brackets."""
    from rich.console import Console

    if sys.stdout.isatty():
        return Console(soft_wrap=False, markup=False, highlight=False)
    # Not a terminal (a pipe, a file, a test): no colours, and wide enough that paths never wrap.
    return Console(file=sys.stdout, width=240, no_color=True, markup=False, highlight=False)


def ensure_offscreen_qt() -> None:
    """The command line never opens a window: draw offscreen unless the user chose a platform."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def default_root() -> Path:
    """The user-data sessions folder."""
    from sessions.paths import default_root as sessions_root

    return sessions_root()


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
