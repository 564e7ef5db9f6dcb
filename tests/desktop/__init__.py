"""Tests of the PlayTrace desktop app (pytest-qt, offscreen)."""
