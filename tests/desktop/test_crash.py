"""Logs and crash reports never hold a key."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop.crash import CrashReporter, log_dir, setup_logging
from engine.llm.keys import register_secret

KEY = "sk-proj-" + "Z" * 40
TYPED = "a-key-typed-into-the-app-1234567890"


def _raise(message: str) -> None:
    raise RuntimeError(message)


def test_a_crash_report_masks_keys_and_says_where(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    register_secret(TYPED)
    seen: list[tuple[Path, str]] = []
    reporter = CrashReporter(lambda path, summary: seen.append((path, summary)))
    try:
        _raise(f"bad request with {KEY} and {TYPED}")
    except RuntimeError as exc:
        path = reporter.report(RuntimeError, exc, exc.__traceback__, "a test")
    assert path is not None and path.parent == log_dir()
    text = path.read_text(encoding="utf-8")
    assert "RuntimeError" in text and "where: a test" in text and "_raise" in text
    assert KEY not in text and TYPED not in text
    assert seen and seen[0][0] == path and KEY not in seen[0][1]


def test_thread_and_event_loop_exceptions_are_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    reports: list[str] = []
    reporter = CrashReporter(lambda _path, summary: reports.append(summary))
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)  # restored after the test
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    reporter.install()
    worker = threading.Thread(target=_raise, args=("from a worker",), name="worker")
    worker.start()
    worker.join()

    loop = asyncio.new_event_loop()
    loop.set_exception_handler(reporter.handle_loop_exception)

    async def failing() -> None:
        _raise("from a task")

    async def scenario() -> None:
        task = asyncio.ensure_future(failing())
        await asyncio.sleep(0.01)
        del task  # never awaited: the loop reports it when the task is collected

    loop.run_until_complete(scenario())
    import gc

    gc.collect()
    loop.close()
    assert any("from a worker" in r for r in reports)
    assert any("from a task" in r for r in reports)


def test_the_log_file_masks_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-" + "Q" * 40)
    path = setup_logging()
    log = logging.getLogger("playtrace.test")
    mine = [h for h in logging.getLogger().handlers if getattr(h, "baseFilename", None) == str(path)]
    try:
        log.warning("calling with key %s", "sk-ant-" + "Q" * 40)
        for handler in mine:
            handler.flush()
        text = path.read_text(encoding="utf-8")
        assert "calling with key" in text and "Q" * 40 not in text
    finally:
        for handler in mine:
            logging.getLogger().removeHandler(handler)
            handler.close()


def test_a_crash_on_a_worker_thread_reaches_the_window_on_the_gui_thread(qtbot: Any) -> None:
    import threading

    from PySide6.QtCore import QObject

    from desktop.app import crash_callback

    owner = QObject()
    seen: list[tuple[str, threading.Thread]] = []
    callback = crash_callback(lambda text: seen.append((text, threading.current_thread())), owner)
    worker = threading.Thread(target=lambda: callback(Path("crash-1.txt"), "ValueError: boom"))
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: bool(seen), timeout=2000)
    text, thread = seen[0]
    assert "ValueError: boom" in text and "crash-1.txt" in text
    assert thread is threading.main_thread()  # widgets are only touched on the GUI thread
