"""The renderer contract, the shared theme and the font and geometry helpers every renderer uses.

One renderer draws both the board a person sees and the image a vision model is sent, so everything
here aims at two things: the picture must be legible (high contrast, antialiased, scalable to any size)
and it must be reproducible (same state and size give the same bytes), which is why fonts come from
the bundled DejaVu files instead of whatever the system offers and why the layout never depends on
anything but the state, the size and the explicit options.
"""

from __future__ import annotations

import abc
import argparse
import contextlib
import dataclasses
import functools
import os
import signal
import struct
import sys
import threading
import zlib
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np
from isal import isal_zlib
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontDatabase,
    QGuiApplication,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QRadialGradient,
)

import assets

__all__ = [
    "FONT_FAMILY_FALLBACK",
    "MARGIN",
    "GridGeometry",
    "SpriteCache",
    "PNG_LEVEL",
    "THEME",
    "Renderer",
    "Theme",
    "board_rect",
    "centered_square",
    "color",
    "draw_grid_labels",
    "draw_text_centered",
    "encode_png",
    "ensure_gui_app",
    "font",
    "font_family",
    "mono_font",
    "played_state",
    "shaded_disc",
    "sprite_canvas",
    "sample_parser",
    "text_path",
    "unique_items",
    "write_sample",
]

#: Fraction of the square's side kept free on every side of the board. Grid labels live there; the
#: space is kept even without labels so the board (and hit-testing) never moves when labels toggle.
MARGIN = 0.075

#: Family asked for when the bundled fonts cannot be loaded (a broken install); Qt then picks a
#: sans-serif face, which is legible but not byte-identical across machines.
FONT_FAMILY_FALLBACK = "DejaVu Sans"

# 96 dpi expressed in dots per metre: fixed so PNG metadata (pHYs) is identical on every machine.
_DOTS_PER_METRE = 3780

_app: QGuiApplication | None = None

_Item = TypeVar("_Item", bound=Hashable)


@dataclasses.dataclass(frozen=True, slots=True)
class Theme:
    """The colours shared by all renderers: dark ink on a light, cool-grey canvas.

    Colours are ``#RRGGBB`` strings so the desktop can reuse them in style sheets; :func:`color`
    turns them into ``QColor`` objects with an optional alpha.
    """

    background: str = "#F3F5F8"  # canvas around the board
    surface: str = "#FFFFFF"  # board cards (tic-tac-toe)
    ink: str = "#111827"  # strongest lines and text
    ink_muted: str = "#4B5563"  # coordinate labels
    line: str = "#CBD2DB"  # hairlines and card borders
    grid: str = "#334155"  # board grid lines
    accent: str = "#2563EB"  # "this changed" markers (e.g. the tile spawned last)
    highlight: str = "#F59E0B"  # cells or moves a caller wants to point at (hover, model's choice)
    player_colors: tuple[str, ...] = ("#2563EB", "#E11D48")  # seat 0, seat 1 (X blue, O rose)


#: The theme every renderer uses.
THEME = Theme()


def color(hex_rgb: str, alpha: int = 255) -> QColor:
    """A ``QColor`` from ``#RRGGBB`` with the given alpha (0-255)."""
    c = QColor(hex_rgb)
    c.setAlpha(alpha)
    return c


def ensure_gui_app() -> QGuiApplication:
    """Return the running Qt GUI application, creating an offscreen-capable one if there is none.

    Painting text needs a ``QGuiApplication`` (or ``QApplication``). The desktop app creates its own
    first; the CLI and tests rely on this. Without a display on Linux the ``offscreen`` platform is
    chosen, so headless batch runs can still render images for vision models. When the process has
    already loaded ``PySide6.QtWidgets`` (the desktop, pytest-qt), a ``QApplication`` is created
    instead: Qt allows one application object per process, and widgets need that subclass.

    Raises:
        RuntimeError: a non-GUI ``QCoreApplication`` already exists, which cannot draw text.
    """
    global _app
    existing = QGuiApplication.instance()
    if existing is not None:
        if not isinstance(existing, QGuiApplication):
            raise RuntimeError(
                "a QCoreApplication is running; renderers need a QGuiApplication or QApplication"
            )
        return existing
    if (
        sys.platform.startswith("linux")
        and "QT_QPA_PLATFORM" not in os.environ
        and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    ):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    # Looked up, not imported: renderers never import widgets, but must not block a later QWidget.
    widgets = sys.modules.get("PySide6.QtWidgets")
    app_class: type[QGuiApplication] = widgets.QApplication if widgets is not None else QGuiApplication
    # Keep a module-level reference: Qt tears the application down when the Python object dies.
    _app = app_class([sys.argv[0] if sys.argv and sys.argv[0] else "playtrace"])
    return _app


@functools.cache
def _bundled_families() -> tuple[str, ...]:
    """Register the bundled DejaVu files with Qt once; returns the family names Qt reports."""
    ensure_gui_app()
    families: list[str] = []
    for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf"):
        font_id = QFontDatabase.addApplicationFont(str(assets.path("fonts", name)))
        if font_id >= 0:
            families.extend(QFontDatabase.applicationFontFamilies(font_id))
    return tuple(dict.fromkeys(families))


def font_family() -> str:
    """The family name of the bundled sans-serif font (or the fallback if it could not be loaded)."""
    families = _bundled_families()
    return families[0] if families else FONT_FAMILY_FALLBACK


def font(pixel_size: float, *, bold: bool = False) -> QFont:
    """The bundled sans-serif font at ``pixel_size`` pixels (rounded, at least 1).

    Sizes are in pixels rather than points so a picture depends only on its pixel size, never on the
    screen's or the image's dots per inch.
    """
    f = QFont(font_family())
    f.setStyleHint(QFont.StyleHint.SansSerif)
    f.setPixelSize(max(1, round(pixel_size)))
    f.setBold(bold)
    # Hinting snaps outlines to a pixel grid differently per platform; unhinted outlines scale evenly.
    f.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    f.setStyleStrategy(QFont.StyleStrategy.PreferAntialias)
    return f


#: The bundled monospaced family, for text boards whose columns must line up.
MONO_FAMILY = "DejaVu Sans Mono"


def mono_font(pixel_size: float) -> QFont:
    """The bundled monospaced font (DejaVu Sans Mono) at ``pixel_size`` pixels."""
    families = _bundled_families()
    f = QFont(MONO_FAMILY if MONO_FAMILY in families else FONT_FAMILY_FALLBACK)
    f.setStyleHint(QFont.StyleHint.Monospace)
    f.setFixedPitch(True)
    f.setPixelSize(max(1, round(pixel_size)))
    f.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    f.setStyleStrategy(QFont.StyleStrategy.PreferAntialias)
    return f


def text_path(text: str, f: QFont) -> QPainterPath:
    """The outline of ``text`` in font ``f`` with its baseline origin at (0, 0).

    Outlines are cached per text and font: shaping text is the costly part of drawing a number, and
    boards draw the same few strings over and over. The path returned is the caller's to change
    (``QPainterPath`` copies on write, so the cached outline never moves).
    """
    key = (text, f.toString(), f.hintingPreference().value, f.styleStrategy().value)
    cached = _TEXT_PATHS.get(key)
    if cached is None:
        cached = QPainterPath()
        cached.addText(QPointF(0, 0), f, text)
        if len(_TEXT_PATHS) >= _TEXT_PATH_LIMIT:
            _TEXT_PATHS.clear()  # a crude bound: boards use a handful of strings per size
        _TEXT_PATHS[key] = cached
    return QPainterPath(cached)


#: Cached outlines of :func:`text_path`, by text and font description (at most ``_TEXT_PATH_LIMIT``).
_TEXT_PATHS: dict[tuple[str, str, int, int], QPainterPath] = {}
_TEXT_PATH_LIMIT = 4096


def draw_text_centered(painter: QPainter, text: str, f: QFont, center: QPointF, fill: QColor) -> QRectF:
    """Draw ``text`` so that its ink (not its line box) is centred on ``center``.

    Centring the glyphs' bounding box rather than the font's line box puts digits optically in the
    middle of a tile or cell, where Qt's ``AlignCenter`` would leave them high by the descender.

    Returns:
        The rectangle the text's ink covers.
    """
    path = text_path(text, f)
    bounds = path.boundingRect()
    path.translate(center - bounds.center())
    painter.save()
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(fill)
    painter.drawPath(path)
    painter.restore()
    return path.boundingRect()


def centered_square(rect: QRectF) -> QRectF:
    """The largest square centred in ``rect`` (boards keep a square aspect in any rectangle)."""
    side = min(rect.width(), rect.height())
    return QRectF(rect.center().x() - side / 2, rect.center().y() - side / 2, side, side)


def board_rect(rect: QRectF) -> QRectF:
    """Where a square board goes inside ``rect``: the centred square minus a :data:`MARGIN` band."""
    square = centered_square(rect)
    inset = square.width() * MARGIN
    return square.adjusted(inset, inset, -inset, -inset)


@dataclasses.dataclass(frozen=True, slots=True)
class GridGeometry:
    """A board of ``rows`` x ``cols`` equal square cells filling ``area``, row 0 at the top: where a
    cell is drawn and which cell a pixel falls in (so painting, :meth:`Renderer.hit_test` and
    :meth:`Renderer.cell_rect` agree)."""

    area: QRectF
    rows: int
    cols: int

    @classmethod
    def of(cls, rect: QRectF, rows: int, cols: int | None = None) -> GridGeometry:
        """The grid on the square board drawn in ``rect`` (see :func:`board_rect`); square by default."""
        return cls(board_rect(rect), rows, rows if cols is None else cols)

    @classmethod
    def sized(cls, width: float, height: float, rows: int, cols: int | None = None) -> GridGeometry:
        """The grid of a ``width`` x ``height`` drawing."""
        return cls.of(QRectF(0, 0, width, height), rows, cols)

    @property
    def cell(self) -> float:
        """A cell's side in pixels."""
        return self.area.width() / self.cols

    @property
    def band(self) -> float:
        """The width of the :data:`MARGIN` band around the board (where coordinates are written)."""
        return self.area.width() / (1 - 2 * MARGIN) * MARGIN

    def cell_rect(self, r: int, c: int) -> QRectF:
        """The square of cell (``r``, ``c``)."""
        cell = self.cell
        return QRectF(self.area.left() + c * cell, self.area.top() + r * cell, cell, cell)

    def center(self, r: int, c: int) -> QPointF:
        """The centre of cell (``r``, ``c``)."""
        cell = self.cell
        return QPointF(self.area.left() + (c + 0.5) * cell, self.area.top() + (r + 0.5) * cell)

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        """The cell ``(row, col)`` under pixel (``x``, ``y``); ``None`` off the board."""
        area = self.area
        if not (area.left() <= x < area.right() and area.top() <= y < area.bottom()):
            return None
        cell = self.cell
        col = min(self.cols - 1, int((x - area.left()) // cell))
        row = min(self.rows - 1, int((y - area.top()) // cell))
        return row, col


_canvases = threading.local()
#: Frame sizes whose canvas a thread keeps for :meth:`Renderer.render_rgb`.
_CANVAS_SIZES = 4


def _canvas(width: int, height: int) -> QImage:
    """This thread's opaque ``width`` x ``height`` canvas, made once and painted over every frame."""
    kept: dict[tuple[int, int], QImage] | None = getattr(_canvases, "by_size", None)
    if kept is None:
        kept = _canvases.by_size = {}
    canvas = kept.get((width, height))
    if canvas is None:
        if len(kept) >= _CANVAS_SIZES:
            kept.clear()
        canvas = kept[(width, height)] = QImage(width, height, QImage.Format.Format_RGB32)
        canvas.setDotsPerMeterX(_DOTS_PER_METRE)
        canvas.setDotsPerMeterY(_DOTS_PER_METRE)
    return canvas


class SpriteCache:
    """Small pictures (a piece at a cell size) drawn once and reused every frame, by key; emptied
    whenever it holds ``limit`` of them (a crude bound: a window resized many times leaves old sizes
    behind)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._sprites: dict[Hashable, QImage] = {}

    def get(self, key: Hashable) -> QImage | None:
        return self._sprites.get(key)

    def keep(self, key: Hashable, sprite: QImage) -> QImage:
        """Store ``sprite`` under ``key`` and return it."""
        if len(self._sprites) >= self.limit:
            self._sprites.clear()
        self._sprites[key] = sprite
        return sprite


def sprite_canvas(side: int) -> tuple[QImage, QPainter]:
    """A transparent ``side`` x ``side`` picture and an antialiased painter on it (end it when done)."""
    sprite = QImage(side, side, QImage.Format.Format_ARGB32_Premultiplied)
    sprite.fill(Qt.GlobalColor.transparent)
    painter = QPainter(sprite)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    return sprite, painter


def shaded_disc(
    painter: QPainter,
    center: QPointF,
    radius: float,
    stops: Sequence[tuple[float, str]],
    rim: QColor,
    rim_width: float,
    *,
    shadow: QPointF,
    shadow_alpha: int,
    spread: float,
) -> None:
    """A round stone or disc lit from the upper left: its shadow (``shadow`` away from ``center``, at
    ``shadow_alpha``), a radial gradient through the colour ``stops`` reaching ``spread`` radii from
    the light, and a ``rim`` outline ``rim_width`` wide."""
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(0, 0, 0, shadow_alpha))
    painter.drawEllipse(center + shadow, radius, radius)
    light = center + QPointF(-0.35 * radius, -0.4 * radius)
    shade = QRadialGradient(light, radius * spread)
    for at, hex_rgb in stops:
        shade.setColorAt(at, QColor(hex_rgb))
    painter.setPen(QPen(rim, rim_width))
    painter.setBrush(QBrush(shade))
    painter.drawEllipse(center, radius, radius)


def unique_items(items: Iterable[str], parse: Callable[[str], _Item | None]) -> list[_Item]:
    """What ``parse`` reads from each of ``items`` (highlights, say), in first-seen order without
    repeats; items it cannot read (``None``) are ignored."""
    seen: dict[_Item, None] = {}
    for item in items:
        parsed = parse(item)
        if parsed is not None:
            seen.setdefault(parsed, None)
    return list(seen)


def draw_grid_labels(
    painter: QPainter, board: QRectF, row_centers: Sequence[float], col_centers: Sequence[float]
) -> None:
    """Write row indices left of ``board`` and column indices above it, in the margin band.

    Vision prompts refer to cells by these coordinates, so the labels are the same 0-based indices the
    games' actions use.

    Args:
        painter: An active painter.
        board: The board rectangle returned by :func:`board_rect`.
        row_centers: The y coordinate of each row's centre.
        col_centers: The x coordinate of each column's centre.
    """
    band = board.width() / (1 - 2 * MARGIN) * MARGIN  # the margin band's width
    f = font(band * 0.5)
    ink = color(THEME.ink_muted)
    for c, x in enumerate(col_centers):
        draw_text_centered(painter, str(c), f, QPointF(x, board.top() - band / 2), ink)
    for r, y in enumerate(row_centers):
        draw_text_centered(painter, str(r), f, QPointF(board.left() - band / 2, y), ink)


@contextlib.contextmanager
def _drawing_whole() -> Iterator[None]:
    """Hold Ctrl+C and SIGTERM back while a frame is painted, so a command stopped by either never cuts a
    painter off between its save and its restore (Qt then warns on stderr): a signal that comes (or
    came, and waits for its handler) during the frame is raised again once the frame is done. Signal
    handlers belong to the main thread; other threads paint as they are."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []

    def hold(signum: int, frame: object) -> None:
        held.append(signum)

    previous = {sig: signal.signal(sig, hold) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if held:
            signal.raise_signal(held[0])


class Renderer(abc.ABC):
    """Draws one game's states and maps pixels back to actions.

    Renderers are stateless: :func:`renderers.get` hands out one shared instance per game. Subclasses
    implement :meth:`paint` (and :meth:`hit_test` for games played by clicking); :meth:`render` and
    :meth:`png` wrap it for images. A desktop widget may call :meth:`paint` on its own painter so the
    screen and the model image come from the same drawing code.
    """

    #: The game id this renderer draws (``"2048"``, ``"tictactoe"``).
    game_id: ClassVar[str]
    #: Width / height of the drawing; boards are square.
    aspect: ClassVar[float] = 1.0

    @abc.abstractmethod
    def paint(
        self,
        painter: QPainter,
        state: Any,
        rect: QRectF,
        *,
        highlight: Sequence[str] = (),
        grid_labels: bool = False,
    ) -> None:
        """Draw ``state`` inside ``rect`` on an already-active painter (background already filled).

        Args:
            painter: An active painter; implementations leave its state as they found it.
            state: A state of this renderer's game; only the attributes listed in the game's
                contract are read.
            rect: Where to draw; the board keeps its aspect and is centred in it.
            highlight: Actions to point at (hover hints, a model's chosen or considered moves).
                Entries that are not actions of this game are ignored.
            grid_labels: Whether to write row and column indices in the margin.
        """

    def render(
        self,
        state: Any,
        width: int,
        height: int,
        *,
        highlight: Sequence[str] = (),
        grid_labels: bool = False,
    ) -> QImage:
        """Draw ``state`` into a new ``width`` x ``height`` image.

        Creates a ``QGuiApplication`` first if none is running (see :func:`ensure_gui_app`).

        Raises:
            ValueError: ``width`` or ``height`` is smaller than 1.
        """
        if width < 1 or height < 1:
            raise ValueError(f"image size must be at least 1x1, not {width}x{height}")
        _bundled_families()  # also ensures the GUI application
        # RGB32: the picture is opaque, so PNGs carry no alpha channel and stay small.
        image = QImage(int(width), int(height), QImage.Format.Format_RGB32)
        image.setDotsPerMeterX(_DOTS_PER_METRE)
        image.setDotsPerMeterY(_DOTS_PER_METRE)
        image.fill(color(THEME.background))
        self._paint_on(image, state, highlight, grid_labels)
        return image

    def _paint_on(self, device: QImage, state: Any, highlight: Sequence[str], grid_labels: bool) -> None:
        """Paint ``state`` over the whole of ``device`` (its background filled already), as one frame."""
        with _drawing_whole():
            painter = QPainter(device)
            try:
                painter.setRenderHints(
                    QPainter.RenderHint.Antialiasing
                    | QPainter.RenderHint.TextAntialiasing
                    | QPainter.RenderHint.SmoothPixmapTransform
                )
                self.paint(
                    painter,
                    state,
                    QRectF(0, 0, device.width(), device.height()),
                    highlight=tuple(highlight),
                    grid_labels=grid_labels,
                )
            finally:
                painter.end()

    def render_rgb(
        self,
        state: Any,
        out: np.ndarray,
        *,
        highlight: Sequence[str] = (),
        grid_labels: bool = False,
    ) -> np.ndarray:
        """Draw ``state`` into ``out`` (a C-contiguous ``height x width x 3`` uint8 array) and return it.

        The picture is :meth:`render`'s. No frame-sized memory is allocated once the size has been
        drawn in this thread: the painting happens on a canvas kept per size and thread, and Qt
        converts it into ``out``'s memory (what an ``rgb_array`` frame that is thrown away after use
        needs; see :func:`engine.frames.frame`).

        Raises:
            ValueError: ``out`` is not a writable C-contiguous uint8 array of shape ``(h, w, 3)``.
        """
        if (
            out.ndim != 3
            or out.shape[2] != 3
            or out.dtype != np.uint8
            or not out.flags.c_contiguous
            or not out.flags.writeable
            or out.shape[0] < 1
            or out.shape[1] < 1
        ):
            raise ValueError(
                f"out must be a writable C-contiguous uint8 array of shape (height, width, 3), not "
                f"{out.dtype} {out.shape}"
            )
        _bundled_families()  # also ensures the GUI application
        height, width = int(out.shape[0]), int(out.shape[1])
        canvas = _canvas(width, height)
        canvas.fill(color(THEME.background))
        self._paint_on(canvas, state, highlight, grid_labels)
        target = QImage(out.data, width, height, width * 3, QImage.Format.Format_RGB888)
        blit = QPainter(target)
        try:
            blit.setCompositionMode(QPainter.CompositionMode.CompositionMode_Source)
            blit.drawImage(0, 0, canvas)
        finally:
            blit.end()
        return out

    def hit_test(self, state: Any, width: int, height: int, x: float, y: float) -> str | None:
        """The action a click at pixel (``x``, ``y``) of a ``width`` x ``height`` drawing means.

        Legality is not checked (the caller does); ``None`` means the point names no action.
        The default suits keyboard-only games.
        """
        return None

    def cell_rect(
        self, state: Any, width: int, height: int, item: str, seat: int | None = None
    ) -> QRectF | None:
        """Where ``item`` (an action or a cell named the way the game's questions name it, such as
        ``"(0,2)"``, ``"(D,3)"`` or ``"(5,6)->(4,5)"``) is in a ``width`` x ``height`` drawing: the
        inverse of :meth:`hit_test`, used to mark a model's intermediate answers on the board.
        ``seat`` is the seat whose answer it is, for items relative to it (Surround's "Move Up").
        ``None`` when the item has no place on the board (the default)."""
        return None

    def png(self, state: Any, width: int = 512, height: int = 512, **kw: Any) -> bytes:
        """:meth:`render` encoded as PNG bytes (what is attached to a vision prompt).

        Args:
            state: The state to draw.
            width: Image width in pixels.
            height: Image height in pixels.
            **kw: Passed to :meth:`render` (``highlight``, ``grid_labels``).
        """
        return encode_png(self.render(state, width, height, **kw))


#: ISA-L's deflate level for PNG (0-3): 1 compresses flat board colours about as well as zlib's
#: default level, several times faster than zlib's fastest; providers bill images by their pixel size,
#: never by their bytes.
PNG_LEVEL = 1

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


def encode_png(image: QImage) -> bytes:
    """Encode ``image`` as a standard 8-bit PNG in memory: RGB, or RGBA when it has an alpha channel.

    Qt's PNG writer (libpng with zlib) spends most of a model image's time compressing. Here the rows
    are compressed by ISA-L's deflate (:mod:`isal`, a kept library) with no row filter, which suits
    flat board colours; the container around them is PNG's three chunks (signature, ``IHDR``, one
    ``IDAT``, ``IEND``), written here because no kept library pairs a PNG writer with a fast deflate.

    Raises:
        RuntimeError: the image is null (nothing to encode).
    """
    if image.isNull():
        raise RuntimeError("cannot encode a null image as PNG")
    alpha = image.hasAlphaChannel()
    channels = 4 if alpha else 3
    converted = image.convertToFormat(QImage.Format.Format_RGBA8888 if alpha else QImage.Format.Format_RGB888)
    width, height, line = converted.width(), converted.height(), converted.bytesPerLine()
    pixels = np.frombuffer(converted.constBits(), dtype=np.uint8, count=converted.sizeInBytes())
    rows = np.zeros((height, width * channels + 1), dtype=np.uint8)  # each row: filter 0, then pixels
    rows[:, 1:] = pixels.reshape(height, line)[:, : width * channels]
    header = struct.pack(">IIBBBBB", width, height, 8, 6 if alpha else 2, 0, 0, 0)
    return b"".join(
        (
            _PNG_SIGNATURE,
            _png_chunk(b"IHDR", header),
            _png_chunk(b"IDAT", isal_zlib.compress(rows.data, PNG_LEVEL)),
            _png_chunk(b"IEND", b""),
        )
    )


def sample_parser(
    renderer: type[Renderer],
    description: str | None,
    *,
    highlight: str | None = None,
    grid_labels: str | None = None,
    board: bool = True,
) -> argparse.ArgumentParser:
    """The command line of a renderer module's ``main`` (``python -m renderers.<module>``) before the
    game's own options: ``--out`` (``<game>-sample.png`` by default), ``--size`` and, for a ``board``,
    ``--grid-labels`` and ``--highlight`` with the given help texts. :func:`write_sample` reads them."""
    # Named from the file: run as ``python -m``, the renderer's module is ``__main__``.
    module = Path(getattr(sys.modules.get(renderer.__module__), "__file__", None) or renderer.__module__).stem
    parser = argparse.ArgumentParser(prog=f"python -m renderers.{module}", description=description)
    parser.add_argument("--out", type=Path, default=Path(f"{renderer.game_id}-sample.png"))
    parser.add_argument("--size", type=int, default=512, help="width and height in pixels")
    if board:
        parser.add_argument("--grid-labels", action="store_true", help=grid_labels)
        parser.add_argument("--highlight", nargs="*", default=(), help=highlight)
    return parser


def played_state(game: str, actions: Iterable[str], seed: int = 0, **options: Any) -> Any:
    """A real game of ``game`` (made with ``options``) from ``seed`` after ``actions``: the state a
    renderer module's sample picture shows."""
    import engine  # only the sample command needs the games

    state = engine.make(game, **options).initial_state(seed=seed)
    for action in actions:
        state = state.apply(action)
    return state


def write_sample(renderer: Renderer, state: Any, args: argparse.Namespace) -> int:
    """Write the picture of a renderer module's ``main`` and say where it went.

    Args:
        renderer: The renderer to draw with.
        state: The state to draw.
        args: The parsed command line (see :func:`sample_parser`); ``out`` and ``size`` are read, and
            ``highlight`` and ``grid_labels`` where it has them.

    Returns:
        The exit status (0).
    """
    highlight, grid_labels = getattr(args, "highlight", ()), getattr(args, "grid_labels", False)
    data = renderer.png(state, args.size, args.size, highlight=highlight, grid_labels=grid_labels)
    args.out.write_bytes(data)
    print(f"wrote {args.out} ({len(data)} bytes)")
    return 0
