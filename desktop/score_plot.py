"""The live score plot: one line per seat, redrawn by a 10 Hz timer rather than per event.

Appending a point only records it; the timer pushes the buffered series into pyqtgraph with
``setData`` when something changed, so a fast bot game never floods the event loop with redraws.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import pyqtgraph as pg  # noqa: E402
import PySide6.QtWidgets  # noqa: E402,F401  (pyqtgraph picks the binding that is already imported)
from PySide6.QtCore import Qt, QTimer  # noqa: E402
from PySide6.QtGui import QFont  # noqa: E402
from PySide6.QtWidgets import QFrame, QGraphicsItem, QLabel, QSizePolicy, QVBoxLayout, QWidget  # noqa: E402

from desktop import theme  # noqa: E402

REFRESH_MS = 100

#: How each seat's line is drawn, so equal scores never hide a seat: (pen style, symbol, legend glyph).
#: Earlier seats are drawn wider underneath, later ones narrower, dashed, on top.
SEAT_STYLES: tuple[tuple[Qt.PenStyle, str, str], ...] = (
    (Qt.PenStyle.SolidLine, "o", "━"),
    (Qt.PenStyle.DashLine, "s", "╍"),
    (Qt.PenStyle.DotLine, "t", "┅"),
    (Qt.PenStyle.DashDotLine, "d", "━"),
)


def seat_style(seat: int, seats: int) -> tuple[Qt.PenStyle, str, str, float, int]:
    """Seat ``seat``'s ``(pen style, symbol, legend glyph, line width, symbol size)`` among ``seats``."""
    style, symbol, glyph = SEAT_STYLES[seat % len(SEAT_STYLES)]
    width = 2.0 + 2.0 * (seats - 1 - seat) if seats > 1 else 2.0
    size = 4 + 3 * (seats - 1 - seat) if seats > 1 else 4
    return style, symbol, glyph, width, size


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class ScorePlot(QFrame):
    """Score per seat over the steps, with a marker at the step being viewed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Card")
        self._xs: list[float] = []
        self._ys: list[list[float]] = []
        self._labels: list[str] = []
        self._curves: list[pg.PlotDataItem] = []
        self._dirty = False
        self._marker_step: int | None = None
        self._ranges: tuple[float, ...] = ()

        self.title = QLabel("Score")
        # The legend line never sets the plot's width (a long one is cut at the plot's edge).
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.title.setObjectName("Muted")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.plot = pg.PlotWidget(background=theme.PANEL)
        self.plot.setMinimumHeight(90)
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        item = self.plot.getPlotItem()
        item.showGrid(x=True, y=True, alpha=0.15)
        item.setClipToView(True)
        item.setDownsampling(mode="peak")
        axis_pen = pg.mkPen(theme.BORDER)
        tick_font = QFont("DejaVu Sans", 8)
        for name in ("left", "bottom"):
            axis = item.getAxis(name)
            axis.setPen(axis_pen)
            axis.setTextPen(pg.mkPen(theme.MUTED))
            axis.setTickFont(tick_font)
            # Drawn once into a pixmap and reused until its ticks change: replaying an axis' picture
            # on every repaint cost ~20 ms each, the largest stall of a game played at full speed.
            axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        item.enableAutoRange(x=False, y=False)
        self.marker = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen(theme.ACCENT, width=1.5, style=Qt.PenStyle.DashLine)
        )
        self.marker.setVisible(False)
        item.addItem(self.marker, ignoreBounds=True)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.plot, 1)

        self._timer = QTimer(self)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.flush)
        self._timer.start()

    # -- data -------------------------------------------------------------------------------------

    def reset(self, seat_labels: Sequence[str], *, title: str = "Score") -> None:
        """Start empty series for the given seats."""
        item = self.plot.getPlotItem()
        for curve in self._curves:
            item.removeItem(curve)
        self._labels = list(seat_labels)
        self._xs = []
        self._ys = [[] for _ in self._labels]
        self._curves = []
        seats = len(self._labels)
        for seat in range(seats):
            colour = theme.seat_colour(seat)
            style, symbol, _glyph, width, size = seat_style(seat, seats)
            curve = item.plot(
                [],
                [],
                pen=pg.mkPen(colour, width=width, style=style),
                symbol=symbol,
                symbolSize=size,
                symbolBrush=colour,
                symbolPen=None,
            )
            curve.setZValue(seat)  # later seats on top, narrower: the one below still shows
            self._curves.append(curve)
        # A compact legend in the title line: a pyqtgraph legend would cover a short plot.
        if len(self._labels) > 1:
            seats = len(self._labels)
            keys = "&nbsp;&nbsp;".join(
                f'<span style="color:{theme.seat_colour(i).name()}">{seat_style(i, seats)[2]}</span>'
                f"&nbsp;{_html(label)}"
                for i, label in enumerate(self._labels)
            )
            self.title.setText(f"{_html(title)}&nbsp;&nbsp;&nbsp;{keys}")
        else:
            self.title.setText(_html(title))
        self._marker_step = None
        self.marker.setVisible(False)
        self._ranges = ()
        self._dirty = True

    def append(self, step: int, scores: Sequence[float]) -> None:
        """Record the scores after ``step`` actions (drawn on the next timer tick)."""
        if not self._ys:
            self.reset([f"Seat {i + 1}" for i in range(len(scores))])
        if self._xs and step <= self._xs[-1]:
            # A point for a step already plotted (a fork restarting at k): drop the newer tail.
            keep = sum(1 for x in self._xs if x < step)
            self._xs = self._xs[:keep]
            self._ys = [ys[:keep] for ys in self._ys]
        self._xs.append(float(step))
        for seat, ys in enumerate(self._ys):
            ys.append(float(scores[seat]) if seat < len(scores) else 0.0)
        self._dirty = True

    def set_series(self, steps: Sequence[float], per_seat: Sequence[Sequence[float]]) -> None:
        """Replace the whole series at once (a replayed session)."""
        self._xs = [float(s) for s in steps]
        self._ys = [[float(v) for v in ys] for ys in per_seat]
        self._dirty = True

    def set_marker(self, step: int | None) -> None:
        """Mark the step being viewed (``None`` hides the marker)."""
        self._marker_step = step
        self.marker.setVisible(step is not None)
        if step is not None:
            self.marker.setValue(step)

    @property
    def point_count(self) -> int:
        return len(self._xs)

    def series(self, seat: int) -> list[float]:
        return list(self._ys[seat]) if seat < len(self._ys) else []

    def flush(self) -> None:
        """Push buffered points into the curves (called by the timer; cheap when nothing changed)."""
        if not self._dirty:
            return
        self._dirty = False
        seats = len(self._curves)
        for seat, (curve, ys) in enumerate(zip(self._curves, self._ys, strict=False)):
            curve.setData(self._xs, ys)
            # Markers on every point get noisy on long games.
            curve.setSymbol(seat_style(seat, seats)[1] if len(self._xs) <= 60 else None)
        self._fit_ranges()

    def _fit_ranges(self) -> None:
        """Whole steps on x from the first step; y from 0 (or below) with room above the best score."""
        item = self.plot.getPlotItem()
        x0 = self._xs[0] if self._xs else 0.0
        x1 = max(self._xs[-1] if self._xs else 0.0, x0 + 4)
        values = [v for ys in self._ys for v in ys]
        lo = min([0.0, *values])
        hi = max([*values, lo + 1.0])
        pad = (hi - lo) * 0.08
        # Ranges move in steps (the x end to the next whole tick, the top to a round value), so the axes
        # (and their cached pictures) change now and then, not with every point.
        span = x1 - x0
        major = next(
            (m for m in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000) if span / m <= 10), 10000
        )
        x1 = x0 + math.ceil((x1 - x0) / major) * major
        top = _round_up(hi + pad)
        ranges = (x0, x1, lo - pad * 0.4 if lo < 0 else lo - (top - lo) * 0.03, top, major)
        if ranges == self._ranges:
            return
        self._ranges = ranges
        item.setXRange(x0, x1, padding=0.02)
        item.setYRange(ranges[2], top, padding=0)
        item.getAxis("bottom").setTickSpacing(major, major)


def _round_up(value: float) -> float:
    """``value`` rounded up to 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 or 10 times a power of ten."""
    if value <= 0:
        return value
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if value <= step * power + 1e-12:
            return step * power
    return 10 * power
