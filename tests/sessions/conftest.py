"""Fixtures for the session tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A sessions folder of its own for each test (created by the writer on first use)."""
    return tmp_path / "sessions"
