"""Test-wide set-up: Qt runs offscreen and sessions go to a temporary PlayTrace home."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import pytest  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    # A Qt object must be destroyed on the thread that owns it. Python's cyclic garbage collector runs
    # in whichever thread happens to allocate (the loopback server, a session's sync thread, an
    # asyncio.to_thread worker), and could delete a test's leftover widget there while the GUI thread
    # is processing events. As in the app (desktop/app.py), collection happens on the main thread only:
    # after every test.
    gc.disable()


_tests_run = 0


@pytest.fixture(autouse=True)
def _collect_garbage_on_the_main_thread() -> Iterator[None]:
    global _tests_run
    yield
    _tests_run += 1
    # The young generations hold what a test left behind and are quick to collect; a full collection
    # (a few hundred milliseconds with Qt loaded) runs now and then.
    gc.collect(generation=2 if _tests_run % 50 == 0 else 1)


@pytest.fixture(autouse=True)
def _playtrace_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every test's sessions and settings out of the real user-data folder."""
    monkeypatch.setenv("PLAYTRACE_HOME", str(tmp_path_factory.mktemp("home")))
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
