"""Test-wide set-up: Qt runs offscreen and sessions go to a temporary PlayTrace home."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _playtrace_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every test's sessions and settings out of the real user-data folder."""
    monkeypatch.setenv("PLAYTRACE_HOME", str(tmp_path_factory.mktemp("home")))
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
