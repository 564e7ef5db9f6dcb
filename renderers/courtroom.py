"""The courtroom renderer: a courtroom drawn by hand (panelled wall, emblem, witness stand), the witness as
a simple figure in the case's colours, the name plate and the text box with the current line, the court
record (the evidence held, each with its description, as the model reads it), the mode (cross-examination
or a question), the statement markers and the five penalty marks. Everything a vision model needs to
describe the moment is written legibly at 1280 x 800, so a perception call on the picture gets the facts
the text view gives.

Reads one thing, duck-typed (renderers never import games): ``state.scene()``, a dict of plain values
(``case_title``, ``testimony_title``, ``witness``, ``look``, ``speaker``, ``line``, ``kind``,
``position``, ``statements``, ``pressed``, ``evidence``, ``penalties``, ``penalty_limit``, ``phase``,
``options``, ``moves``: the cues that can be used now, ``record``: the evidence's descriptions, ...). The
wall, the stand and the witness are drawn once per size and look; the picture is kept as three bands (the
scene, the court record, the text box), each redrawn only when what it shows changes. A click on a piece
of evidence presents it, on an answer chooses it, and on a cue in the text box moves or presses.

Run ``python -m renderers.courtroom`` to write a sample picture to the current folder."""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QLinearGradient,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
)

from renderers.base import (
    Renderer,
    SpriteCache,
    color,
    draw_text_centered,
    font,
    played_state,
    sample_parser,
)

__all__ = ["CourtroomRenderer"]

#: The drawing's proportions: 1280 x 800 design units, scaled to the picture.
DESIGN_W, DESIGN_H = 1280.0, 800.0
_WALL_TOP, _WALL_BOTTOM = "#6B4226", "#3F2716"
_PANEL = "#7A4B2A"
_FLOOR = "#2B1A10"
_STAND, _STAND_DARK = "#8A5A33", "#5C3A1E"
_BOX, _BOX_EDGE = "#0F1A33", "#C9D6F2"
_STATEMENT_INK = "#7CF29A"  # testimony in green, as the cross-examination screens show it
_DIALOGUE_INK = "#FFFFFF"
_PLATE = "#1D4ED8"
_GOLD = "#F5C542"
_RECORD = "#1B1410"
_CARD = "#F4EBD9"
_USED = "#6B7280"
_RED = "#DC2626"
_HUD = "#24170E"  # the dark plates on the wall
_CUE = "#232E4A"
#: The witness and the stand stand right of the middle, leaving the left for the court record's text.
_WITNESS_SHIFT = 340.0
#: The court record's descriptions: a panel left of the witness (design units).
_RECORD_PANEL = (14.0, 134.0, 690.0, 326.0)
#: Cues written in the text box; a click on one plays the action.
_CUES = (("\u25c0 Back", "back"), ("Press", "press"), ("Next \u25b6", "next"))


@dataclasses.dataclass(frozen=True, slots=True)
class _Layout:
    """Where everything goes, in picture pixels (``u`` is one design unit)."""

    area: QRectF
    u: float

    @classmethod
    def of(cls, rect: QRectF) -> _Layout:
        u = min(rect.width() / DESIGN_W, rect.height() / DESIGN_H)
        w, h = DESIGN_W * u, DESIGN_H * u
        area = QRectF(rect.center().x() - w / 2, rect.center().y() - h / 2, w, h)
        return cls(area, u)

    def r(self, x: float, y: float, w: float, h: float) -> QRectF:
        """A rectangle given in design units."""
        return QRectF(self.area.left() + x * self.u, self.area.top() + y * self.u, w * self.u, h * self.u)

    @property
    def compact(self) -> bool:
        """Small pictures drop the evidence names (they could not be read) and keep the labels."""
        return self.u < 0.62

    def px(self, design: float, least: float = 9.0) -> float:
        """A font size: ``design`` units, never under ``least`` pixels."""
        return max(least, design * self.u)

    # -- regions ------------------------------------------------------------------------------------

    @property
    def scene(self) -> QRectF:
        return self.r(0, 0, 1280, 470)

    @property
    def record(self) -> QRectF:
        return self.r(0, 470, 1280, 70)

    @property
    def box(self) -> QRectF:
        return self.r(16, 566, 1248, 222)

    def plate(self, width: float) -> QRectF:
        return QRectF(self.box.left() + 22 * self.u, self.box.top() - 26 * self.u, width, 44 * self.u)

    def cards(self, count: int) -> list[QRectF]:
        """The evidence cards of the court record, left to right."""
        if not count:
            return []
        gap = 8.0
        width = min(172.0, (1280 - 32 - gap * (count - 1)) / count)
        return [self.r(16 + i * (width + gap), 477, width, 56) for i in range(count)]

    def options(self, count: int) -> list[QRectF]:
        """The answers to a question, stacked over the witness (the court record stays readable)."""
        height = 64.0
        top = 235 - (count * (height + 12)) / 2 + 60
        return [self.r(716, top + i * (height + 12), 550, height) for i in range(count)]

    @property
    def record_panel(self) -> QRectF:
        return self.r(*_RECORD_PANEL)

    def cues(self) -> list[tuple[str, str, QRectF]]:
        out = []
        right = self.box.right() - 18 * self.u
        f = QFontMetricsF(font(self.px(19)))
        for label, action in reversed(_CUES):
            w = f.horizontalAdvance(label) + 24 * self.u
            rect = QRectF(right - w, self.box.bottom() - 44 * self.u, w, 32 * self.u)
            out.append((label, action, rect))
            right -= w + 10 * self.u
        return out[::-1]


# -- the static layer: wall, emblem, stand and witness ---------------------------------------------


@functools.lru_cache(maxsize=16)
def _backdrop(width: int, height: int, look: tuple[tuple[str, str], ...]) -> QImage:
    """The scene band (wall, emblem, witness and stand) at ``width`` x ``height`` pixels."""
    image = QImage(width, height, QImage.Format.Format_RGB32)  # opaque: the wall covers it all
    image.fill(color(_WALL_BOTTOM))
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    u = min(width / DESIGN_W, height / 470.0)
    p.scale(u, u)
    _wall(p)
    p.translate(_WITNESS_SHIFT, 0)
    _witness(p, dict(look))
    _stand(p)
    p.end()
    return image


def _wall(p: QPainter) -> None:
    wall = QLinearGradient(0, 0, 0, 470)
    wall.setColorAt(0, color(_WALL_TOP))
    wall.setColorAt(1, color(_WALL_BOTTOM))
    p.fillRect(QRectF(0, 0, 1280, 470), wall)
    p.setPen(QPen(color("#000000", 60), 3))
    p.setBrush(color(_PANEL, 150))
    for x in range(30, 1280, 176):  # tall panels along the wall
        p.drawRoundedRect(QRectF(x, 40, 140, 300), 8, 8)
    p.setBrush(color("#2A1A0E"))
    p.setPen(Qt.PenStyle.NoPen)
    p.drawRect(QRectF(0, 360, 1280, 110))  # the floor behind the stand
    p.setBrush(color("#D9B35B", 40))
    p.drawRect(QRectF(0, 352, 1280, 8))  # a brass rail
    # The emblem above the witness: a pair of scales in a laurel ring.
    p.setPen(QPen(color(_GOLD, 170), 5))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawEllipse(QPointF(640, 62), 46, 46)
    p.drawLine(QPointF(640, 36), QPointF(640, 92))
    p.drawLine(QPointF(610, 48), QPointF(670, 48))
    for x in (610, 670):
        p.drawLine(QPointF(x, 48), QPointF(x - 11, 72))
        p.drawLine(QPointF(x, 48), QPointF(x + 11, 72))
        p.drawArc(QRectF(x - 13, 62, 26, 20), 180 * 16, 180 * 16)
    p.drawLine(QPointF(626, 92), QPointF(654, 92))


def _witness(p: QPainter, look: Mapping[str, str]) -> None:
    skin, hair, coat, accent = (QColor(look[k]) for k in ("skin", "hair", "coat", "accent"))
    cx = 640.0
    # Shoulders and coat.
    body = QPainterPath()
    body.moveTo(cx - 150, 470)
    body.cubicTo(cx - 150, 330, cx - 110, 300, cx - 40, 292)
    body.lineTo(cx + 40, 292)
    body.cubicTo(cx + 110, 300, cx + 150, 330, cx + 150, 470)
    body.closeSubpath()
    p.setPen(QPen(QColor(0, 0, 0, 90), 3))
    p.setBrush(coat)
    p.drawPath(body)
    # Collar and the accent (a tie or a scarf).
    p.setBrush(accent)
    p.drawPolygon(QPolygonF([QPointF(cx - 36, 294), QPointF(cx, 360), QPointF(cx + 36, 294)]))
    p.setBrush(coat.darker(125))
    p.drawPolygon(QPolygonF([QPointF(cx - 44, 292), QPointF(cx - 8, 350), QPointF(cx - 60, 330)]))
    p.drawPolygon(QPolygonF([QPointF(cx + 44, 292), QPointF(cx + 8, 350), QPointF(cx + 60, 330)]))
    # Neck and head.
    p.setBrush(skin.darker(108))
    p.drawRect(QRectF(cx - 22, 255, 44, 44))
    style = look.get("hair_style", "short")
    p.setBrush(hair)
    if style == "long":
        p.drawRoundedRect(QRectF(cx - 78, 170, 156, 160), 60, 60)
    p.setBrush(skin)
    p.drawEllipse(QPointF(cx, 215), 64, 72)
    p.setBrush(hair)
    if style in ("short", "long", "bun"):
        cap = QPainterPath()
        cap.moveTo(cx - 66, 215)
        cap.cubicTo(cx - 70, 130, cx + 70, 130, cx + 66, 215)
        cap.cubicTo(cx + 40, 175, cx - 30, 170, cx - 66, 215)
        p.drawPath(cap)
    if style == "bun":
        p.drawEllipse(QPointF(cx, 138), 30, 24)
    # Eyes, brows, mouth.
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QColor("#1F2937"))
    for dx in (-24, 24):
        p.drawEllipse(QPointF(cx + dx, 215), 6, 7)
    p.setPen(
        QPen(
            hair.darker(140) if style != "bald" else skin.darker(160),
            5,
            Qt.PenStyle.SolidLine,
            Qt.PenCapStyle.RoundCap,
        )
    )
    p.drawLine(QPointF(cx - 36, 196), QPointF(cx - 14, 192))
    p.drawLine(QPointF(cx + 14, 192), QPointF(cx + 36, 196))
    p.setPen(QPen(QColor("#7F1D1D"), 4, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    p.drawArc(QRectF(cx - 18, 236, 36, 20), 200 * 16, 140 * 16)
    hat = look.get("hat", "none")
    if hat != "none":
        p.setPen(QPen(QColor(0, 0, 0, 90), 3))
        p.setBrush(QColor(look.get("hat_color", "#1F2937")))
        if hat == "cap":
            p.drawChord(QRectF(cx - 68, 120, 136, 110), 0, 180 * 16)
            p.drawRoundedRect(QRectF(cx - 8, 168, 96, 16), 8, 8)
        else:  # a wide brim
            p.drawEllipse(QRectF(cx - 110, 160, 220, 34))
            p.drawChord(QRectF(cx - 62, 110, 124, 120), 0, 180 * 16)


def _stand(p: QPainter) -> None:
    top = QRectF(380, 372, 520, 26)
    front = QRectF(400, 396, 480, 74)
    p.setPen(QPen(QColor(0, 0, 0, 110), 3))
    shade = QLinearGradient(0, 396, 0, 470)
    shade.setColorAt(0, color(_STAND))
    shade.setColorAt(1, color(_STAND_DARK))
    p.setBrush(shade)
    p.drawRect(front)
    p.setBrush(color(_STAND).lighter(115))
    p.drawRoundedRect(top, 6, 6)
    p.setPen(QPen(color("#000000", 60), 2))
    for x in (520, 640, 760):
        p.drawLine(QPointF(x, 404), QPointF(x, 464))


# -- evidence icons ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _icon(kind: str, side: int) -> QImage:
    """A small picture of a kind of evidence, ``side`` pixels square."""
    image = QImage(max(1, side), max(1, side), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.scale(side / 100.0, side / 100.0)
    ink = QColor("#3B2A1A")
    p.setPen(QPen(ink, 6, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin))
    p.setBrush(QColor("#FFFFFF"))
    draw = _ICONS.get(kind, _ICONS["document"])
    draw(p)
    p.end()
    return image


def _lines(p: QPainter, x0: float, x1: float, ys: Sequence[float]) -> None:
    for y in ys:
        p.drawLine(QPointF(x0, y), QPointF(x1, y))


def _document(p: QPainter) -> None:
    p.drawPolygon(
        QPolygonF([QPointF(22, 8), QPointF(64, 8), QPointF(80, 24), QPointF(80, 92), QPointF(22, 92)])
    )
    _lines(p, 34, 68, (40, 56, 72))


def _badge(p: QPainter) -> None:
    p.drawRoundedRect(QRectF(10, 22, 80, 58), 8, 8)
    p.setBrush(QColor("#93C5FD"))
    p.drawEllipse(QPointF(32, 50), 11, 13)
    _lines(p, 52, 78, (42, 58))


def _book(p: QPainter) -> None:
    p.setBrush(QColor("#B45309"))
    p.drawRoundedRect(QRectF(18, 10, 64, 80), 5, 5)
    p.drawLine(QPointF(30, 10), QPointF(30, 90))
    p.setBrush(QColor("#FDE68A"))
    p.drawRect(QRectF(42, 28, 30, 16))


def _cap(p: QPainter) -> None:
    p.setBrush(QColor("#15803D"))
    p.drawChord(QRectF(14, 24, 64, 60), 0, 180 * 16)
    p.drawRoundedRect(QRectF(48, 50, 44, 12), 6, 6)


def _can(p: QPainter) -> None:
    p.setBrush(QColor("#D1D5DB"))
    p.drawRect(QRectF(26, 30, 48, 58))
    p.drawEllipse(QRectF(26, 22, 48, 16))
    p.drawLine(QPointF(50, 22), QPointF(62, 6))


def _chart(p: QPainter) -> None:
    p.drawRect(QRectF(12, 14, 76, 72))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawPolyline(QPolygonF([QPointF(20, 70), QPointF(38, 48), QPointF(54, 58), QPointF(80, 26)]))


def _clipboard(p: QPainter) -> None:
    p.setBrush(QColor("#D6B38A"))
    p.drawRoundedRect(QRectF(18, 14, 64, 80), 6, 6)
    p.setBrush(QColor("#FFFFFF"))
    p.drawRect(QRectF(26, 26, 48, 60))
    p.setBrush(QColor("#6B7280"))
    p.drawRoundedRect(QRectF(36, 6, 28, 14), 4, 4)
    _lines(p, 34, 66, (44, 58, 72))


def _key(p: QPainter) -> None:
    p.setBrush(QColor("#FCD34D"))
    p.drawEllipse(QPointF(28, 50), 16, 16)
    p.drawLine(QPointF(44, 50), QPointF(90, 50))
    _lines(p, 0, 0, ())
    p.drawLine(QPointF(78, 50), QPointF(78, 66))
    p.drawLine(QPointF(66, 50), QPointF(66, 62))


def _knife(p: QPainter) -> None:
    p.setBrush(QColor("#E5E7EB"))
    p.drawPolygon(QPolygonF([QPointF(8, 60), QPointF(62, 42), QPointF(62, 60)]))
    p.setBrush(QColor("#7C2D12"))
    p.drawRoundedRect(QRectF(62, 42, 32, 18), 6, 6)


def _photo(p: QPainter) -> None:
    p.drawRect(QRectF(10, 18, 80, 64))
    p.setBrush(QColor("#60A5FA"))
    p.drawPolygon(QPolygonF([QPointF(18, 74), QPointF(40, 44), QPointF(58, 74)]))
    p.setBrush(QColor("#FBBF24"))
    p.drawEllipse(QPointF(70, 36), 8, 8)


def _receipt(p: QPainter) -> None:
    edge = [QPointF(24, 8), QPointF(76, 8), QPointF(76, 86)]
    edge += [QPointF(76 - i * 6.5, 92 if i % 2 else 86) for i in range(1, 9)]
    p.drawPolygon(QPolygonF(edge))
    _lines(p, 34, 66, (26, 42, 58))


def _rope(p: QPainter) -> None:
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.setPen(QPen(QColor("#92400E"), 10, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    path = QPainterPath(QPointF(10, 70))
    path.cubicTo(30, 20, 50, 90, 70, 40)
    path.lineTo(88, 26)
    p.drawPath(path)


def _ticket(p: QPainter) -> None:
    p.setBrush(QColor("#FDE68A"))
    p.drawRoundedRect(QRectF(8, 28, 84, 46), 6, 6)
    p.setPen(QPen(QColor("#3B2A1A"), 4, Qt.PenStyle.DashLine))
    p.drawLine(QPointF(66, 32), QPointF(66, 70))
    p.setPen(QPen(QColor("#3B2A1A"), 5))
    _lines(p, 18, 54, (44, 58))


_ICONS = {
    "badge": _badge,
    "book": _book,
    "cap": _cap,
    "can": _can,
    "chart": _chart,
    "clipboard": _clipboard,
    "document": _document,
    "key": _key,
    "knife": _knife,
    "photo": _photo,
    "receipt": _receipt,
    "rope": _rope,
    "ticket": _ticket,
}


# -- text that fits ---------------------------------------------------------------------------------

_WRAP = int(Qt.TextFlag.TextWordWrap) | int(Qt.AlignmentFlag.AlignLeft) | int(Qt.AlignmentFlag.AlignTop)


@functools.lru_cache(maxsize=512)
def _fitted(
    text: str, width: float, height: float, largest: float, least: float, bold: bool
) -> tuple[str, float]:
    """The text and the font size at which it fits in ``width`` x ``height`` when wrapped: the largest
    size from ``largest`` down to ``least``; at ``least``, words are cut from the end (with "…")."""
    size = largest
    while True:
        metrics = QFontMetricsF(font(size, bold=bold))
        if metrics.boundingRect(QRectF(0, 0, width, 1e6), _WRAP, text).height() <= height:
            return text, size
        if size <= least:
            break
        size = max(least, size * 0.92)
    words = text.split()
    while len(words) > 1:
        words.pop()
        shorter = " ".join(words) + "\u2026"
        if metrics.boundingRect(QRectF(0, 0, width, 1e6), _WRAP, shorter).height() <= height:
            return shorter, size
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width), size


def _write(
    p: QPainter, rect: QRectF, text: str, largest: float, least: float, ink: QColor, bold: bool = False
) -> None:
    shown, size = _fitted(
        text, round(rect.width(), 1), round(rect.height(), 1), round(largest, 1), least, bold
    )
    p.setFont(font(size, bold=bold))
    p.setPen(ink)
    p.drawText(rect, _WRAP, shown)


def _line_of(p: QPainter, rect: QRectF, text: str, f: QFont, ink: QColor, align: Qt.AlignmentFlag) -> None:
    """One line of text, elided to the rectangle's width."""
    p.setFont(f)
    p.setPen(ink)
    shown = QFontMetricsF(f).elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
    p.drawText(rect, int(align) | int(Qt.AlignmentFlag.AlignVCenter), shown)


# -- layers -------------------------------------------------------------------------------------------

#: The scene values each cached layer shows (with the witness's look and the highlighted evidence).
_TOP_KEYS = (
    "case_title",
    "level",
    "cases",
    "testimony_title",
    "testimony",
    "testimonies",
    "position",
    "statements",
    "pressed",
    "penalties",
    "penalty_limit",
    "phase",
    "record",
)
_BOX_KEYS = ("speaker", "line", "kind", "phase", "moves")
#: Layers drawn lately, by what they show: moving between statements redraws the top band only, and a
#: picture drawn again (a window repainting, a model's image) costs two copies.
_LAYERS = SpriteCache(48)


def _layer(
    name: str, width: int, height: int, top: int, key: tuple[Any, ...], draw: Callable[[QPainter], None]
) -> QImage:
    """The cached ``width`` x ``height`` band of the picture starting ``top`` pixels down, drawn by
    ``draw`` (in whole-picture coordinates) when ``key`` was not drawn lately."""
    full = (name, width, height, key)
    image = _LAYERS.get(full)
    if image is None:
        image = QImage(width, max(1, height), QImage.Format.Format_RGB32)
        image.fill(color(_RECORD))
        p = QPainter(image)
        p.setRenderHints(
            QPainter.RenderHint.Antialiasing
            | QPainter.RenderHint.TextAntialiasing
            | QPainter.RenderHint.SmoothPixmapTransform
        )
        p.translate(0, -top)
        draw(p)
        p.end()
        image = _LAYERS.keep(full, image)
    return image


# -- the renderer -------------------------------------------------------------------------------------


class CourtroomRenderer(Renderer):
    """Draws a moment of a trial."""

    game_id = "courtroom"
    aspect = DESIGN_W / DESIGN_H

    def paint(
        self,
        painter: QPainter,
        state: Any,
        rect: QRectF,
        *,
        highlight: Sequence[str] = (),
        grid_labels: bool = False,
    ) -> None:
        """Draw the scene, the court record, the text box, the statement markers and the penalties."""
        scene: Mapping[str, Any] = state.scene()
        lay = _Layout.of(rect)
        width, height = max(1, round(lay.area.width())), max(1, round(lay.area.height()))
        here = _Layout.of(QRectF(0, 0, width, height))
        look = tuple(sorted(scene["look"].items()))
        top = (look, *(scene[k] for k in _TOP_KEYS))
        marked = tuple(h for h in highlight if h.startswith("present"))
        record = (marked, scene["evidence"])
        box = tuple(scene[k] for k in _BOX_KEYS)
        split = max(1, round(lay.scene.height()))
        lower = max(split + 1, round(lay.record.bottom() - lay.area.top()))
        origin = QPointF(round(lay.area.left()), round(lay.area.top()))
        painter.save()
        painter.drawImage(origin, _layer("top", width, split, 0, top, lambda p: self._top(p, here, scene)))
        painter.drawImage(
            origin + QPointF(0, split),
            _layer(
                "record", width, lower - split, split, record, lambda p: self._record(p, here, scene, marked)
            ),
        )
        painter.drawImage(
            origin + QPointF(0, lower),
            _layer("box", width, height - lower, lower, box, lambda p: self._text_box(p, here, scene)),
        )
        if scene["options"]:
            self._options(painter, lay, scene["options"], highlight)
        elif scene["phase"] in ("won", "lost", "stalled"):
            self._verdict(painter, lay, scene)
        painter.restore()

    def _top(self, p: QPainter, lay: _Layout, scene: Mapping[str, Any]) -> None:
        band = lay.scene
        look = tuple(sorted(scene["look"].items()))
        p.drawImage(
            band.topLeft(), _backdrop(max(1, round(band.width())), max(1, round(band.height())), look)
        )
        self._header(p, lay, scene)
        self._penalties(p, lay, scene)
        self._descriptions(p, lay, scene)

    # -- pieces ----------------------------------------------------------------------------------------

    @staticmethod
    def _header(p: QPainter, lay: _Layout, scene: Mapping[str, Any]) -> None:
        u = lay.u
        plate = lay.r(14, 12, 690, 76)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(color(_HUD))
        p.drawRoundedRect(plate, 10 * u, 10 * u)
        inner = plate.adjusted(14 * u, 6 * u, -14 * u, -6 * u)
        top = QRectF(inner.left(), inner.top(), inner.width(), inner.height() * 0.5)
        bottom = QRectF(inner.left(), inner.center().y(), inner.width(), inner.height() * 0.5)
        _line_of(
            p,
            top,
            f"Case {scene['level']} of {scene['cases']}: {scene['case_title']}",
            font(lay.px(24), bold=True),
            color(_GOLD),
            Qt.AlignmentFlag.AlignLeft,
        )
        if scene["phase"] == "choice":
            what = "A question for the defense"
        else:
            what = f"Testimony {scene['testimony']} of {scene['testimonies']}: {scene['testimony_title']}"
        _line_of(p, bottom, what, font(lay.px(20)), color("#FFFFFF"), Qt.AlignmentFlag.AlignLeft)
        # The statement markers, under the header: one per statement, the current one gold.
        if scene["phase"] not in ("cross",):
            return
        n = scene["statements"]
        cx0 = 34.0
        for i in range(n):
            c = QPointF(lay.area.left() + (cx0 + i * 34) * u, lay.area.top() + 112 * u)
            current = i + 1 == scene["position"]
            p.setPen(QPen(color("#F3F4F6"), max(1.0, 3 * u)))
            p.setBrush(color(_GOLD) if current else color(_HUD))
            p.drawEllipse(c, (13 if current else 10) * u, (13 if current else 10) * u)
            if scene["pressed"][i] and not current:
                p.setBrush(color(_STATEMENT_INK))
                p.setPen(Qt.PenStyle.NoPen)
                p.drawEllipse(c, 4 * u, 4 * u)
        label = lay.r(cx0 - 14 + n * 34, 97, 560, 30)
        _line_of(
            p,
            label,
            f"Statement {scene['position']} of {n} \u00b7 Cross-examination",
            font(lay.px(20), bold=True),
            color("#FFFFFF"),
            Qt.AlignmentFlag.AlignLeft,
        )

    @staticmethod
    def _penalties(p: QPainter, lay: _Layout, scene: Mapping[str, Any]) -> None:
        u = lay.u
        limit, used = scene["penalty_limit"], scene["penalties"]
        plate = lay.r(1280 - 14 - 60 * limit - 24, 12, 60 * limit + 24, 96)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(color(_HUD))
        p.drawRoundedRect(plate, 10 * u, 10 * u)
        _line_of(
            p,
            lay.r(plate_x := (1280 - 14 - 60 * limit - 24) + 12, 14, 60 * limit, 26),
            f"Penalties left: {limit - used}",
            font(lay.px(18), bold=True),
            color("#FFFFFF"),
            Qt.AlignmentFlag.AlignLeft,
        )
        for i in range(limit):
            c = QPointF(lay.area.left() + (plate_x + 30 + i * 60) * u, lay.area.top() + 72 * u)
            lost = i >= limit - used
            p.setPen(QPen(color("#1F130A"), max(1.0, 2 * u)))
            p.setBrush(color(_USED) if lost else color(_GOLD))
            p.drawEllipse(c, 22 * u, 22 * u)
            if lost:
                p.setPen(QPen(color(_RED), max(1.5, 6 * u), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
                d = 12 * u
                p.drawLine(c + QPointF(-d, -d), c + QPointF(d, d))
                p.drawLine(c + QPointF(-d, d), c + QPointF(d, -d))
            else:
                draw_text_centered(p, "!", font(lay.px(30, 8), bold=True), c, color("#7C2D12"))

    @staticmethod
    def _descriptions(p: QPainter, lay: _Layout, scene: Mapping[str, Any]) -> None:
        """The court record as the model reads it: every piece of evidence held, with its description."""
        u = lay.u
        panel = lay.record_panel
        p.setPen(QPen(color("#8B7D6B"), max(1.0, 2 * u)))
        p.setBrush(color(_CARD, 242))
        p.drawRoundedRect(panel, 10 * u, 10 * u)
        inner = panel.adjusted(14 * u, 8 * u, -14 * u, -8 * u)
        title = QRectF(inner.left(), inner.top(), inner.width(), 28 * u)
        items = scene["record"]
        _line_of(
            p,
            title,
            f"Court record: {len(items)} piece{'s' if len(items) != 1 else ''} of evidence",
            font(lay.px(19), bold=True),
            color("#7C2D12"),
            Qt.AlignmentFlag.AlignLeft,
        )
        body = QRectF(
            inner.left(), title.bottom() + 4 * u, inner.width(), inner.bottom() - title.bottom() - 4 * u
        )
        if not items:
            _write(
                p, body, "Nothing yet: presses may add evidence.", lay.px(17), lay.px(10), color("#1F2937")
            )
            return
        paragraphs = [f"{label} {name}: {description}" for label, name, description in items]
        _, size = _fitted(
            "\n".join(paragraphs),
            round(body.width(), 1),
            round(body.height() - 2 * u * len(paragraphs), 1),
            round(lay.px(17), 1),
            lay.px(10.5),
            False,
        )
        metrics = QFontMetricsF(font(size))
        top = body.top()
        for i, text in enumerate(paragraphs):
            room = QRectF(body.left(), top, body.width(), max(0.0, body.bottom() - top))
            height = metrics.boundingRect(QRectF(0, 0, body.width(), 1e6), _WRAP, text).height()
            if height > room.height():  # only at the smallest size: the rest is cut with an ellipsis
                _write(p, room, text, size, size, color("#1F2937"))
                break
            p.setFont(font(size))
            p.setPen(color("#7C2D12" if i % 2 else "#1F2937"))
            p.drawText(room, _WRAP, text)
            top += height + 2 * u

    @staticmethod
    def _record(p: QPainter, lay: _Layout, scene: Mapping[str, Any], highlight: Sequence[str]) -> None:
        u = lay.u
        items = scene["evidence"]
        for (label, name, icon), card in zip(items, lay.cards(len(items)), strict=True):
            marked = f"present {label}" in highlight
            p.setPen(QPen(color(_GOLD) if marked else color("#8B7D6B"), max(1.0, (4 if marked else 2) * u)))
            p.setBrush(color(_CARD))
            p.drawRoundedRect(card, 8 * u, 8 * u)
            side = card.height() - 12 * u
            p.drawImage(QPointF(card.left() + 6 * u, card.top() + 6 * u), _icon(icon, max(1, round(side))))
            text = QRectF(
                card.left() + side + 12 * u,
                card.top() + 4 * u,
                card.width() - side - 16 * u,
                card.height() - 8 * u,
            )
            if lay.compact or text.width() < 30 * u:
                draw_text_centered(
                    p,
                    label,
                    font(lay.px(22, 8), bold=True),
                    QPointF(text.center().x(), card.center().y()),
                    color("#1F2937"),
                )
                continue
            head = QRectF(text.left(), text.top(), text.width(), text.height() * 0.42)
            _line_of(
                p, head, label, font(lay.px(18), bold=True), color("#7C2D12"), Qt.AlignmentFlag.AlignLeft
            )
            body = QRectF(text.left(), head.bottom(), text.width(), text.height() - head.height())
            _write(p, body, name, lay.px(14.5), lay.px(10.5), color("#1F2937"))

    @staticmethod
    def _text_box(p: QPainter, lay: _Layout, scene: Mapping[str, Any]) -> None:
        u = lay.u
        box = lay.box
        p.setPen(QPen(color(_BOX_EDGE), max(1.0, 4 * u)))
        p.setBrush(color(_BOX))
        p.drawRoundedRect(box, 14 * u, 14 * u)
        speaker = scene["speaker"] or "Court"
        name_font = font(lay.px(22), bold=True)
        width = min(QFontMetricsF(name_font).horizontalAdvance(speaker) + 40 * u, box.width() * 0.7)
        plate = lay.plate(width)
        p.setPen(QPen(color("#FFFFFF"), max(1.0, 2 * u)))
        p.setBrush(color(_PLATE))
        p.drawRoundedRect(plate, 8 * u, 8 * u)
        _line_of(
            p,
            plate.adjusted(20 * u, 0, -20 * u, 0),
            speaker,
            name_font,
            color("#FFFFFF"),
            Qt.AlignmentFlag.AlignLeft,
        )
        statement = scene["kind"] == "statement"
        cues = lay.cues() if scene["phase"] == "cross" else []
        bottom = cues[0][2].top() - 6 * u if cues else box.bottom() - 16 * u
        area = QRectF(
            box.left() + 28 * u, box.top() + 26 * u, box.width() - 56 * u, bottom - box.top() - 26 * u
        )
        line = f"\u201c{scene['line']}\u201d" if statement else scene["line"]
        ink = color(_STATEMENT_INK) if statement else color(_DIALOGUE_INK)
        _write(p, area, line, lay.px(32, 12), lay.px(13, 9), ink)
        for label, action, rect in cues:
            live = action in scene["moves"]
            p.setPen(QPen(color("#7C8DB5" if live else "#3A4666"), max(1.0, 2 * u)))
            p.setBrush(color(_CUE))
            p.drawRoundedRect(rect, 8 * u, 8 * u)
            ink = color(_BOX_EDGE if live else "#56627F")
            draw_text_centered(p, label, font(lay.px(19), bold=True), rect.center(), ink)

    @staticmethod
    def _options(p: QPainter, lay: _Layout, options: Sequence[str], highlight: Sequence[str]) -> None:
        u = lay.u
        for i, (text, rect) in enumerate(zip(options, lay.options(len(options)), strict=True)):
            marked = f"choose {'ABCD'[i]}" in highlight
            p.setPen(
                QPen(color(_GOLD) if marked else color("#FFFFFF", 200), max(1.0, (5 if marked else 3) * u))
            )
            p.setBrush(color("#0B1226", 235))
            p.drawRoundedRect(rect, 12 * u, 12 * u)
            _write(
                p,
                rect.adjusted(22 * u, 10 * u, -22 * u, -8 * u),
                text,
                lay.px(26, 11),
                lay.px(12, 8),
                color("#FFFFFF"),
            )

    @staticmethod
    def _verdict(p: QPainter, lay: _Layout, scene: Mapping[str, Any]) -> None:
        word = {"won": "NOT GUILTY", "lost": "GUILTY", "stalled": "RECESS"}[scene["phase"]]
        tone = {"won": "#16A34A", "lost": _RED, "stalled": "#6B7280"}[scene["phase"]]
        band = lay.r(0, 190, 1280, 130)
        p.fillRect(band, color(tone, 220))
        draw_text_centered(
            p, word, font(lay.px(84, 14), bold=True), band.center() - QPointF(0, 14 * lay.u), color("#FFFFFF")
        )
        draw_text_centered(
            p,
            f"{scene['score']} correct actions",
            font(lay.px(24, 9)),
            band.center() + QPointF(0, 44 * lay.u),
            color("#FFFFFF"),
        )

    # -- clicks -------------------------------------------------------------------------------------------

    def hit_test(self, state: Any, width: int, height: int, x: float, y: float) -> str | None:
        scene = state.scene()
        lay = _Layout.of(QRectF(0, 0, width, height))
        point = QPointF(x, y)
        if scene["options"]:
            for i, rect in enumerate(lay.options(len(scene["options"]))):
                if rect.contains(point):
                    return f"choose {'ABCD'[i]}"
            return None
        if scene["phase"] != "cross":
            return None
        for (label, _, _), card in zip(scene["evidence"], lay.cards(len(scene["evidence"])), strict=True):
            if card.contains(point):
                return f"present {label}"
        for _, action, rect in lay.cues():
            if rect.contains(point):
                return action
        return None


def main(argv: Sequence[str] | None = None) -> int:
    """Write a sample courtroom picture (``courtroom-sample.png`` by default) to the current folder."""
    parser = sample_parser(CourtroomRenderer, main.__doc__, board=False)
    parser.add_argument("--case", default="telescope", help="the bundled case to start from")
    parser.add_argument(
        "--actions", nargs="*", default=["next", "next"], help="actions to play from the start"
    )
    args = parser.parse_args(argv)
    state = played_state("courtroom", args.actions, 0, case=args.case)
    renderer = CourtroomRenderer()
    data = renderer.png(state, args.size, round(args.size / renderer.aspect))
    args.out.write_bytes(data)
    print(f"wrote {args.out} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
