"""The documentation's screenshots: a game played by a person and by the simulated model, an unknown game
skipped with a message, the study's participant flow, and PNGs kept under the size limit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QLabel

from desktop import screenshots


def test_games_mode_saves_a_person_and_the_model_playing(run: Any, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "shots"
    saved = run(screenshots.take_docs(out, ["2048", "nosuchgame"]), timeout=60)
    assert [p.name for p in saved] == ["2048-human.png", "2048-sim.png"]
    assert "skipped nosuchgame: unknown game 'nosuchgame'" in capsys.readouterr().err
    pictures = [np.asarray(Image.open(p).convert("RGB")) for p in saved]
    for path, picture in zip(saved, pictures, strict=True):
        assert path.stat().st_size <= screenshots.DOC_PNG_BYTES
        assert picture.shape in ((800, 1280, 3), (600, 960, 3))
        assert picture.std() > 20, f"{path.name} is blank"
    assert pictures[0].shape != pictures[1].shape or np.abs(pictures[0].astype(int) - pictures[1]).mean() > 1


def test_study_mode_saves_the_consent_and_a_game(run: Any, tmp_path: Path) -> None:
    saved = run(screenshots.take_docs(tmp_path, [], study=True), timeout=60)
    assert [p.name for p in saved] == ["study-consent.png", "study-game.png"]
    consent, game = (np.asarray(Image.open(p).convert("RGB")).astype(int) for p in saved)

    def red(picture: Any) -> int:  # the board's O marks; the consent page is text and buttons
        return int(((picture[..., 0] > 180) & (picture[..., 1] < 90) & (picture[..., 2] < 120)).sum())

    assert red(game) > 1000 and red(consent) == 0


def test_pictures_get_a_palette_and_one_too_big_for_the_limit_a_narrower_width(
    qapp: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(screenshots, "DOC_PNG_BYTES", 2_000)
    monkeypatch.setattr(screenshots, "DOC_NARROW_WIDTH", 96)
    noise = np.random.default_rng(1).integers(0, 256, (100, 160, 4), dtype=np.uint8)
    noise[..., 3] = 255
    image = QImage(noise.data, 160, 100, 160 * 4, QImage.Format.Format_RGBA8888).copy()
    label = QLabel()
    label.setPixmap(QPixmap.fromImage(image))
    label.resize(160, 100)
    target = screenshots.save_doc_png(label, tmp_path / "noise.png")
    with Image.open(target) as saved:
        assert saved.size == (96, 60) and saved.mode == "P"
    # A plain picture is kept at full size.
    label.setPixmap(QPixmap())
    target = screenshots.save_doc_png(label, tmp_path / "plain.png")
    with Image.open(target) as saved:
        assert saved.size == (160, 100) and saved.mode == "P"
