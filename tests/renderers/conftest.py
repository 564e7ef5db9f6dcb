"""Fixtures for the renderer tests (helpers live in tests.renderers.render_helpers)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _gui_app(qapp: object) -> Iterator[None]:
    """Every renderer test runs with pytest-qt's application, as the desktop would provide one."""
    yield
