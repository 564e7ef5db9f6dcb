"""The log file and crash reports, with secrets masked before anything reaches disk.

PlayTrace keeps a small rotating log (``playtrace.log``) and writes one crash report per unhandled
exception (``crash-<UTC time>.txt``) in the ``logs`` folder beside the sessions. Every line passes
through :func:`engine.llm.keys.redact`, which masks key-shaped strings and every key PlayTrace knows
of (environment variables, the key store, keys typed into the app). The environment itself is never
written.
"""

from __future__ import annotations

import asyncio
import logging
import logging.handlers
import platform
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from engine.llm.keys import redact
from sessions.paths import user_data_dir
from sessions.schema import app_version

LOG_NAME = "playtrace.log"
#: Called with the report's path and a one-line summary, so the app can tell the person.
CrashCallback = Callable[[Path, str], None]


def log_dir() -> Path:
    return user_data_dir() / "logs"


class RedactingFilter(logging.Filter):
    """Masks secrets in a record's formatted message (and drops its arguments, already applied)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage())
        record.args = None
        if record.exc_info:
            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)))
            record.exc_info = None
        return True


def setup_logging(level: int = logging.INFO) -> Path:
    """Send PlayTrace's log to a rotating file (1 MB x 3); returns the file's path."""
    folder = log_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOG_NAME
    root = logging.getLogger()
    if not any(isinstance(h, logging.handlers.RotatingFileHandler) and Path(h.baseFilename) == path
               for h in root.handlers):
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=3,
                                                       encoding="utf-8")
        handler.addFilter(RedactingFilter())
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    root.setLevel(min(root.level or level, level))
    return path


def write_crash_report(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None,
                       *, where: str = "") -> Path:
    """Write a crash report for one exception; returns its path."""
    folder = log_dir()
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    path = folder / f"crash-{stamp}.txt"
    n = 1
    while path.exists():
        n += 1
        path = folder / f"crash-{stamp}-{n}.txt"
    try:
        from PySide6 import __version__ as qt_version
    except ImportError:  # the report must never fail for want of Qt
        qt_version = "not loaded"
    lines = [
        f"PlayTrace {app_version()} crash report",
        f"time (UTC): {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())}",
        f"where: {where or 'unhandled exception'}",
        f"python: {platform.python_version()} ({platform.platform()})",
        f"PySide6: {qt_version}",
        "",
        *traceback.format_exception(exc_type, exc, tb),
    ]
    path.write_text(redact("\n".join(line.rstrip("\n") for line in lines)) + "\n", encoding="utf-8")
    return path


class CrashReporter:
    """Reports unhandled exceptions from the main thread, other threads and the asyncio loop.

    The app keeps running where it can (Qt slots and asyncio callbacks end, the loop goes on); each
    report is logged, printed to stderr, and handed to ``on_crash`` so the window can say where it is.
    """

    def __init__(self, on_crash: CrashCallback | None = None) -> None:
        self.on_crash = on_crash
        self._log = logging.getLogger("playtrace.crash")

    def install(self) -> None:
        """Become ``sys.excepthook`` and ``threading.excepthook``."""
        sys.excepthook = lambda t, e, tb: self.report(t, e, tb, "main thread")
        threading.excepthook = lambda a: self.report(
            a.exc_type, a.exc_value or a.exc_type(), a.exc_traceback,
            f"thread {a.thread.name if a.thread else '?'}",
        )

    def handle_loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """An asyncio exception handler (``loop.set_exception_handler(reporter.handle_loop_exception)``)."""
        exc = context.get("exception")
        if isinstance(exc, BaseException):
            self.report(type(exc), exc, exc.__traceback__, redact(str(context.get("message", "event loop"))))
        else:
            self._log.error("event loop: %s", redact(str(context.get("message"))))

    def report(self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None,
               where: str) -> Path | None:
        """Write the report for one exception; returns its path (``None`` if it could not be written)."""
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return None
        try:
            path = write_crash_report(exc_type, exc, tb, where=where)
        except OSError as err:  # a full disk must not turn one crash into two
            self._log.error("could not write a crash report: %s", err)
            return None
        summary = redact(f"{exc_type.__name__}: {exc}")
        self._log.error("%s (report: %s)", summary, path)
        print(f"PlayTrace: {summary}\n  crash report: {path}", file=sys.stderr)
        if self.on_crash is not None:
            self.on_crash(path, summary)
        return path
