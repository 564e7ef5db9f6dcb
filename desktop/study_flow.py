"""Studies in the app (placeholder until the feature lands)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QMessageBox


def choose_study(window: Any) -> None:
    QMessageBox.information(window, "PlayTrace", "Studies are not available yet.")
