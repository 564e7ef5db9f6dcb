"""Renderer behaviour: registry, hit-testing, highlights, labels, layout, PNG output and determinism."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QFontDatabase, QGuiApplication, QImage, QPainter

import assets
import engine
import renderers
from renderers import base
from renderers.g2048 import BOARD_COLOR, G2048Renderer
from renderers.text import TextRenderer
from renderers.tictactoe import TicTacToeRenderer, parse_cell
from tests.renderers.render_helpers import changed_mask, g2048_board, g2048_state, pixels, ttt_state

REPO = Path(__file__).resolve().parents[2]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def rgb(hex_rgb: str) -> tuple[int, int, int]:
    return tuple(int(hex_rgb[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


# -- registry and set-up -----------------------------------------------------------------------


def test_registry_hands_out_one_renderer_per_game() -> None:
    assert isinstance(renderers.get("2048"), G2048Renderer)
    assert isinstance(renderers.get("tictactoe"), TicTacToeRenderer)
    assert renderers.get("2048") is renderers.get("2048")
    assert renderers.has("tictactoe") and not renderers.has("sokoban-x")
    assert {"2048", "tictactoe"} <= set(renderers.list_renderers())


def test_a_game_without_a_renderer_is_drawn_by_the_text_fallback() -> None:
    with pytest.raises(renderers.RendererNotFoundError, match=r"2048, .*tictactoe"):
        renderers.lookup("no-such-game")
    assert isinstance(renderers.get("no-such-game"), TextRenderer)
    state = engine.make("2048").initial_state(seed=3)
    plain = renderers.fallback().render(state, 240, 240)
    blank = renderers.fallback().render(type("Empty", (), {"text": lambda self: ""})(), 240, 240)
    # The text view's characters are drawn: the picture differs from an empty card's.
    assert plain != blank and not plain.isNull()


def test_every_renderer_is_square() -> None:
    assert renderers.get("2048").aspect == renderers.get("tictactoe").aspect == 1.0


def test_ensure_gui_app_returns_the_running_application() -> None:
    app = renderers.ensure_gui_app()
    assert isinstance(app, QGuiApplication)
    assert app is QGuiApplication.instance()


def test_bundled_fonts_are_loaded() -> None:
    assert assets.path("fonts", "DejaVuSans.ttf").is_file()
    assert assets.path("fonts", "DejaVuSans-Bold.ttf").is_file()
    assert "Bitstream" in assets.path("fonts", "LICENSE-DejaVu.txt").read_text(encoding="utf-8")
    assert base.font_family() == "DejaVu Sans"
    assert "DejaVu Sans" in QFontDatabase.families()


def test_asset_paths_stay_inside_the_package() -> None:
    assert assets.path("fonts").is_dir()
    with pytest.raises(ValueError):
        assets.path("..", "pyproject.toml")


def test_renderers_never_load_widgets() -> None:
    # The layering rule, checked in a fresh interpreter (this one has QtWidgets from pytest-qt).
    code = (
        "import sys, renderers, renderers.g2048, renderers.tictactoe\n"
        "from engine.games.tictactoe import TicTacToeState\n"
        "renderers.get('tictactoe').png(TicTacToeState(), 64, 64)\n"
        "assert 'PySide6.QtWidgets' not in sys.modules, 'QtWidgets was imported'\n"
        "assert type(renderers.ensure_gui_app()).__name__ == 'QGuiApplication'\n"
    )
    env = {"QT_QPA_PLATFORM": "offscreen", "PATH": ""}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# -- hit-testing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "height", "left", "top", "cell"),
    [
        # Square 300: margin 300 * 0.075 = 22.5, board 255, cells 85.
        (300, 300, 22.5, 22.5, 85.0),
        # Wide 500 x 300: the 300-px square is centred, so it starts at x = 100.
        (500, 300, 122.5, 22.5, 85.0),
        # Tall 200 x 400: the 200-px square starts at y = 100; margin 15, cells 170 / 3.
        (200, 400, 15.0, 115.0, 170 / 3),
    ],
)
def test_hit_test_maps_every_cell(width: int, height: int, left: float, top: float, cell: float) -> None:
    r = renderers.get("tictactoe")
    state = ttt_state("(1,1)")  # an occupied cell maps too: legality is the caller's business
    for row in range(3):
        for col in range(3):
            for fx, fy in ((0.5, 0.5), (0.02, 0.02), (0.98, 0.98)):
                x, y = left + (col + fx) * cell, top + (row + fy) * cell
                assert r.hit_test(state, width, height, x, y) == f"({row},{col})", (x, y)


@pytest.mark.parametrize(
    ("x", "y"),
    [(10, 150), (150, 10), (290, 150), (150, 290), (-5, -5), (22.4, 100), (277.5, 100), (1e6, 1e6)],
)
def test_hit_test_outside_the_board_is_none(x: float, y: float) -> None:
    assert renderers.get("tictactoe").hit_test(ttt_state(), 300, 300, x, y) is None


def test_hit_test_outside_the_square_of_a_wide_rect_is_none() -> None:
    r = renderers.get("tictactoe")
    assert r.hit_test(ttt_state(), 500, 300, 50, 150) is None
    assert r.hit_test(ttt_state(), 500, 300, 450, 150) is None
    assert r.hit_test(ttt_state(), 500, 300, 250, 150) == "(1,1)"


def test_hit_test_matches_what_is_drawn() -> None:
    # Shade one cell and check hit_test names that cell at the centre of the changed pixels.
    r = renderers.get("tictactoe")
    state = ttt_state()
    for action in ("(0,0)", "(1,2)", "(2,1)"):
        mask = changed_mask(r.render(state, 360, 240), r.render(state, 360, 240, highlight=[action]))
        ys, xs = np.nonzero(mask)
        assert r.hit_test(state, 360, 240, xs.mean(), ys.mean()) == action


def test_2048_has_no_click_targets() -> None:
    assert renderers.get("2048").hit_test(g2048_state(1), 300, 300, 150, 150) is None


def test_parse_cell() -> None:
    assert parse_cell("(2,0)") == (2, 0)
    assert parse_cell(" ( 1 , 2 ) ") == (1, 2)
    assert parse_cell("(3,0)") is None
    assert parse_cell("up") is None


# -- what gets drawn ---------------------------------------------------------------------------


def test_different_states_draw_differently() -> None:
    t = renderers.get("tictactoe")
    assert changed_mask(t.render(ttt_state(), 200, 200), t.render(ttt_state("(0,0)"), 200, 200)).any()
    g = renderers.get("2048")
    assert changed_mask(g.render(g2048_state(1), 200, 200), g.render(g2048_state(2), 200, 200)).any()


def test_tictactoe_highlight_shades_only_that_cell() -> None:
    r = renderers.get("tictactoe")
    state = ttt_state("(1,1)")
    plain = r.render(state, 300, 300)
    mask = changed_mask(plain, r.render(state, 300, 300, highlight=["(0,2)"]))
    assert mask.sum() > 1000
    ys, xs = np.nonzero(mask)
    # Cell (0,2) spans x 192.5..277.5 and y 22.5..107.5.
    assert xs.min() >= 192 and xs.max() <= 278 and ys.min() >= 22 and ys.max() <= 108


def test_highlight_ignores_entries_that_are_not_actions() -> None:
    t = renderers.get("tictactoe")
    state = ttt_state("(1,1)")
    plain = t.render(state, 200, 200)
    assert not changed_mask(plain, t.render(state, 200, 200, highlight=["up", "(5,5)", "nonsense"])).any()
    g = renderers.get("2048")
    s = g2048_state(4)
    ignored = g.render(s, 200, 200, highlight=["(1,1)", "sideways"])
    assert not changed_mask(g.render(s, 200, 200), ignored).any()


def test_2048_highlight_draws_an_arrow_towards_the_direction() -> None:
    g = renderers.get("2048")
    state = g2048_state(5)
    plain = g.render(state, 300, 300)
    for direction, side in (("up", "top"), ("down", "bottom"), ("left", "left"), ("right", "right")):
        ys, xs = np.nonzero(changed_mask(plain, g.render(state, 300, 300, highlight=[direction])))
        assert len(xs) > 500
        cx, cy = xs.mean(), ys.mean()
        expected = {"top": cy < 140, "bottom": cy > 160, "left": cx < 140, "right": cx > 160}
        assert expected[side], (direction, cx, cy)


def test_tictactoe_winning_line_and_last_move_are_drawn() -> None:
    r = renderers.get("tictactoe")
    before = ttt_state("(1,1)", "(0,0)", "(0,2)", "(2,2)")
    won = ttt_state("(1,1)", "(0,0)", "(0,2)", "(2,2)", "(2,0)")
    assert won.winning_line() == (2, 4, 6)
    image = pixels(r.render(won, 300, 300))
    # The line crosses the centre of cell (1,1) and the midpoint between it and (0,2): both dark ink.
    ink = np.array(rgb(base.THEME.ink))
    for x, y in ((150, 150), (192, 107)):
        assert np.abs(image[y, x].astype(int) - ink).max() < 60, (x, y, image[y, x])
    # The last move (2,0) is tinted: a corner of that cell is no longer plain surface white.
    tinted = pixels(r.render(won, 300, 300))[270, 30]
    plain = pixels(r.render(before, 300, 300))[270, 30]
    assert tuple(plain) == rgb(base.THEME.surface) and tuple(tinted) != tuple(plain)


def test_x_and_o_use_the_two_player_colours() -> None:
    image = pixels(renderers.get("tictactoe").render(ttt_state("(0,0)", "(2,2)"), 300, 300))
    found = {tuple(p) for p in image.reshape(-1, 3)}
    assert rgb(base.THEME.player_colors[0]) in found
    assert rgb(base.THEME.player_colors[1]) in found


def test_grid_labels_only_touch_the_margin() -> None:
    for game, state in (("tictactoe", ttt_state("(1,1)")), ("2048", g2048_state(2))):
        r = renderers.get(game)
        mask = changed_mask(r.render(state, 400, 400), r.render(state, 400, 400, grid_labels=True))
        assert mask[:30, 30:].any() and mask[30:, :30].any(), game  # top and left bands
        assert not mask[30:, 30:].any(), game  # the board itself is untouched
        assert not mask[370:, :].any() and not mask[:, 370:].any(), game


def test_spawned_tile_is_marked_near_that_tile_only() -> None:
    rows = [[2, 0, 0, 0], [0, 4, 0, 0], [0, 0, 0, 0], [0, 0, 0, 8]]
    g = renderers.get("2048")
    plain = g.render(g2048_board(rows), 300, 300)
    mask = changed_mask(plain, g.render(g2048_board(rows, spawned=(1, 1)), 300, 300))
    ys, xs = np.nonzero(mask)
    assert len(xs) > 200
    # Tile (1,1) is centred near (118, 118) on a 255-px board starting at 22.5; the ring hugs it.
    assert 70 < xs.min() and xs.max() < 170 and 70 < ys.min() and ys.max() < 170


def test_five_digit_numbers_fit_inside_their_tiles() -> None:
    # If a number overflowed its tile it would paint over the board-coloured gaps between tiles.
    g = renderers.get("2048")
    for value in (1024, 16384, 65536):
        image = pixels(g.render(g2048_board([[value] * 4 for _ in range(4)]), 300, 300))
        board = np.array(rgb(BOARD_COLOR))
        area = base.board_rect(QRectF(0, 0, 300, 300))
        gap = area.width() * 0.03
        tile = (area.width() - 5 * gap) / 4
        y0, y1 = int(area.top() + gap + 4), int(area.bottom() - gap - 4)
        for k in range(1, 4):
            x = int(area.left() + k * (tile + gap) + gap / 2)  # middle of a vertical gap
            assert (np.abs(image[y0:y1, x].astype(int) - board).max(axis=1) <= 2).all(), (value, x)


def test_board_is_centred_in_a_non_square_image() -> None:
    for game, state in (("tictactoe", ttt_state("(0,0)", "(1,1)")), ("2048", g2048_state(9))):
        image = pixels(renderers.get(game).render(state, 500, 300))
        background = np.array(rgb(base.THEME.background))
        assert (image[:, :120] == background).all() and (image[:, 380:] == background).all()
        # The drawing is centred: the first and last non-background columns are mirror images.
        cols = np.nonzero((image != background).any(axis=(0, 2)))[0]
        assert abs(cols.min() - (499 - cols.max())) <= 1


@pytest.mark.parametrize("size", [(1, 1), (48, 48), (1024, 768)])
def test_any_size_renders(size: tuple[int, int]) -> None:
    for game, state in (("tictactoe", ttt_state("(0,0)")), ("2048", g2048_state(1))):
        image = renderers.get(game).render(state, *size)
        assert (image.width(), image.height()) == size


def test_rejects_empty_sizes() -> None:
    with pytest.raises(ValueError, match="at least 1x1"):
        renderers.get("2048").render(g2048_state(1), 0, 100)


def test_other_board_sizes_render() -> None:
    rows = [[2, 4, 8], [16, 32, 64], [0, 0, 2]]
    a = renderers.get("2048").render(g2048_board(rows), 200, 200)
    b = renderers.get("2048").render(g2048_board([[0, 0, 0], [0, 0, 0], [0, 0, 0]]), 200, 200)
    assert changed_mask(a, b).sum() > 2000


# -- PNG output and determinism -----------------------------------------------------------------


def test_png_is_decodable_and_sized() -> None:
    for game, state in (("tictactoe", ttt_state("(0,0)")), ("2048", g2048_state(1))):
        data = renderers.get(game).png(state, 256, 192, grid_labels=True)
        assert data.startswith(PNG_SIGNATURE)
        image = QImage.fromData(data, "PNG")
        assert not image.isNull() and (image.width(), image.height()) == (256, 192)
        assert not image.hasAlphaChannel()


def test_default_png_size_is_512() -> None:
    image = QImage.fromData(renderers.get("tictactoe").png(ttt_state()), "PNG")
    assert (image.width(), image.height()) == (512, 512)


def test_rendering_is_deterministic_within_a_process() -> None:
    r = renderers.get("2048")
    state = g2048_state(11, ["left", "up", "right"])
    assert r.png(state, 300, 300, highlight=["up"]) == r.png(state, 300, 300, highlight=["up"])


def test_rendering_is_deterministic_across_processes() -> None:
    state = ttt_state("(1,1)", "(0,0)", "(0,2)", "(2,2)", "(2,0)")
    here = hashlib.sha256(renderers.get("tictactoe").png(state, 200, 200, grid_labels=True)).hexdigest()
    code = (
        "import hashlib, renderers\n"
        "from engine.games.tictactoe import TicTacToeState\n"
        f"s = TicTacToeState(cells={state.cells!r}, last_action={state.last_action!r})\n"
        "print(hashlib.sha256(renderers.get('tictactoe').png(s, 200, 200, grid_labels=True)).hexdigest())\n"
    )
    env = {"QT_QPA_PLATFORM": "offscreen", "PATH": ""}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == here


@pytest.mark.parametrize(
    ("module", "filename", "args"),
    [
        ("renderers.g2048", "2048-sample.png", ["--size", "96", "--moves", "5"]),
        ("renderers.g2048", "2048-sample.png", ["--size", "96", "--showcase", "--highlight", "up"]),
        ("renderers.tictactoe", "tictactoe-sample.png", ["--size", "96", "--grid-labels"]),
    ],
)
def test_module_main_writes_a_sample(
    module: str, filename: str, args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    main = __import__(module, fromlist=["main"]).main
    assert main(args) == 0
    image = QImage(str(tmp_path / filename))
    assert (image.width(), image.height()) == (96, 96)


# -- contract details --------------------------------------------------------------------------


def test_renderers_read_only_the_contract_attributes() -> None:
    # Stand-ins carrying just the state attributes the renderers document draw exactly like real states.
    real_ttt = ttt_state("(1,1)", "(0,0)", "(0,2)", "(2,2)", "(2,0)")
    line = real_ttt.winning_line()
    stand_in_ttt = SimpleNamespace(
        cells=real_ttt.cells, last_action=real_ttt.last_action, winning_line=lambda: line
    )
    t = renderers.get("tictactoe")
    assert not changed_mask(t.render(real_ttt, 240, 240), t.render(stand_in_ttt, 240, 240)).any()
    real_2048 = g2048_state(6, ["left", "up", "left"])
    stand_in_2048 = SimpleNamespace(
        board=real_2048.board, spawned=real_2048.spawned, last_action=real_2048.last_action
    )
    g = renderers.get("2048")
    assert not changed_mask(g.render(real_2048, 240, 240), g.render(stand_in_2048, 240, 240)).any()


def test_paint_draws_inside_the_given_rect() -> None:
    # Widgets call paint() with their own painter and rectangle; the result matches render().
    r = renderers.get("tictactoe")
    state = ttt_state("(0,0)", "(1,1)")
    canvas = QImage(300, 260, QImage.Format.Format_RGB32)
    canvas.fill(base.color(base.THEME.background))
    painter = QPainter(canvas)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    r.paint(painter, state, QRectF(40, 30, 200, 200), highlight=["(2,2)"])
    painter.end()
    expected = pixels(r.render(state, 200, 200, highlight=["(2,2)"]))
    assert (pixels(canvas)[30:230, 40:240] == expected).all()
    assert (pixels(canvas)[:, :40] == rgb(base.THEME.background)).all()


def test_none_is_protected_when_pyside_loses_references_to_it() -> None:
    probe = QColor()
    before = sys.getrefcount(None)
    for _ in range(32):
        probe.setAlpha(1)
    lost = before - sys.getrefcount(None)
    if lost >= 32:  # the PySide6 6.12.0 bug on Python < 3.12: renderers must have guarded None
        assert sys.getrefcount(None) > 1 << 39
    else:
        assert lost <= 0
    # Either way, a long drawing session cannot bring the interpreter down.
    g = renderers.get("2048")
    state = g2048_state(8)
    for _ in range(300):
        g.render(state, 64, 64, highlight=["up"], grid_labels=True)
    assert sys.getrefcount(None) > 1000
