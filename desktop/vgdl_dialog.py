"""VGDL games in the app (placeholder until the feature lands)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QMessageBox


def open_vgdl_game(window: Any) -> None:
    QMessageBox.information(window, "PlayTrace", "VGDL games are not available yet.")
