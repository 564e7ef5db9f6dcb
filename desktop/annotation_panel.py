"""Annotation in the app (placeholder until the feature lands)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QMessageBox


def toggle_annotations(window: Any) -> None:
    QMessageBox.information(window, "PlayTrace", "Annotation are not available yet.")
