"""The app's look: a calm light theme with one accent colour (Fusion style + palette + small stylesheet).

Every widget takes its colours from here so the window reads as one tool: neutral greys for chrome,
the accent for the current step, focus rings and primary buttons, and one colour per seat in plots and
badges.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPainter, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QProxyStyle,
    QStyle,
    QStyleFactory,
    QStyleOption,
    QStyleOptionHeader,
    QWidget,
)

from renderers.base import THEME

ACCENT = "#2f6fd6"
ACCENT_DARK = "#2457ab"
ACCENT_SOFT = "#e4edfb"
WINDOW = "#f5f6f8"
PANEL = "#ffffff"
BORDER = "#d7dbe2"
TEXT = "#1f2430"
MUTED = "#6b7280"
WARNING_BG = "#fff4d6"
WARNING_FG = "#7a5300"
ERROR_FG = "#b42318"
SUCCESS = "#1f8a4c"

#: One colour per seat (plots, badges, the header's dots): the boards' own seat colours first
#: (:attr:`renderers.base.Theme.player_colors`: X blue, O rose), so a seat is one colour on the board,
#: in the header and in the plot; then more for games of many seats.
SEAT_COLOURS = (*THEME.player_colors, "#1f8a4c", "#9b59b6", "#d9822b", "#16a085")

#: Badge colours per player kind (background, foreground).
KIND_BADGES = {
    "human": ("#e6f4ea", "#1f6b3a"),
    "bot": ("#eef0f4", "#3d4452"),
    "model": ("#e4edfb", "#2457ab"),
    "sim": ("#f3e8fd", "#6b2fa0"),
}

BASE_POINT_SIZE = 10


def seat_colour(seat: int) -> QColor:
    """The colour that stands for ``seat`` everywhere (plot line, badge)."""
    return QColor(SEAT_COLOURS[seat % len(SEAT_COLOURS)])


def seat_title(seat: int, name: str | None = None) -> str:
    """How the UI names a seat: 1-based for people ("Seat 1 (X)"), while session data stays 0-based.

    Args:
        seat: The 0-based seat index, as recorded in sessions and events.
        name: The game's name for the seat ("X", "Player"), if any.
    """
    label = f"Seat {seat + 1}"
    return f"{label} ({name})" if name and name != str(seat) else label


def badge_style(kind: str) -> str:
    """A stylesheet for a small rounded pill label of the given player kind."""
    bg, fg = KIND_BADGES.get(kind, KIND_BADGES["bot"])
    return (
        f"QLabel {{ background: {bg}; color: {fg}; border-radius: 8px; padding: 1px 8px;"
        " font-weight: 600; font-size: 8pt; }"
    )


STYLESHEET = f"""
QMainWindow, QDialog {{ background: {WINDOW}; }}
QToolTip {{ color: {TEXT}; background: {PANEL}; border: 1px solid {BORDER}; padding: 4px; }}
QSplitter::handle {{ background: {WINDOW}; }}
QSplitter::handle:horizontal {{ width: 6px; }}
QSplitter::handle:vertical {{ height: 6px; }}
QFrame#Card {{ background: {PANEL}; border: 1px solid {BORDER}; border-radius: 8px; }}
QFrame#HeaderStrip {{ background: {PANEL}; border-bottom: 1px solid {BORDER}; }}
QLabel#HeaderTitle {{ font-size: 13pt; font-weight: 600; color: {TEXT}; }}
QLabel#Muted {{ color: {MUTED}; }}
QLabel#StepLabel {{ font-weight: 600; color: {TEXT}; min-width: 110px; }}
QLabel#ModePill {{ border-radius: 9px; padding: 2px 10px; font-weight: 600; font-size: 8pt; }}
QFrame#Banner {{ background: {ACCENT_SOFT}; border: 1px solid #c3d4f3; border-radius: 8px; }}
QFrame#WarningBanner {{ background: {WARNING_BG}; border: 1px solid #f0d48a; border-radius: 8px; }}
QFrame#WarningBanner QLabel {{ color: {WARNING_FG}; }}
QPushButton {{ padding: 5px 12px; border: 1px solid {BORDER}; border-radius: 6px; background: {PANEL}; }}
QPushButton:hover {{ border-color: {ACCENT}; }}
QPushButton:checked {{ background: {ACCENT_SOFT}; border-color: {ACCENT}; color: {ACCENT_DARK}; }}
QPushButton:disabled {{ color: #a8adb7; background: #f1f2f5; }}
QPushButton#Primary {{ background: {ACCENT}; color: white; border-color: {ACCENT_DARK}; font-weight: 600; }}
QPushButton#Primary:hover {{ background: {ACCENT_DARK}; }}
QPushButton#Primary:disabled {{ background: #eef1f6; color: #a8adb7; border-color: {BORDER};
                                font-weight: 600; }}
QToolBar {{ background: {PANEL}; border-bottom: 1px solid {BORDER}; spacing: 4px; padding: 3px 6px; }}
QToolBar QToolButton {{ padding: 4px 10px; border-radius: 6px; }}
QToolBar QToolButton:hover {{ background: {ACCENT_SOFT}; }}
QStatusBar {{ background: {PANEL}; border-top: 1px solid {BORDER}; color: {TEXT}; }}
QTableView {{ background: {PANEL}; gridline-color: #eceef2; selection-background-color: {ACCENT_SOFT};
              selection-color: {TEXT}; border: 1px solid {BORDER}; border-radius: 6px; }}
QHeaderView::section {{ background: {WINDOW}; border: none; border-bottom: 1px solid {BORDER};
                        padding: 5px 8px; font-weight: 600; color: {MUTED}; }}
QLineEdit {{ padding: 4px 6px; border: 1px solid {BORDER}; border-radius: 5px; background: {PANEL}; }}
QLineEdit:focus {{ border-color: {ACCENT}; }}
QGroupBox {{ border: 1px solid {BORDER}; border-radius: 8px; margin-top: 14px; padding: 10px 8px 8px 8px;
             background: {PANEL}; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 10px; padding: 0 4px; color: {MUTED};
                    font-weight: 600; }}
QSlider::groove:horizontal {{ height: 6px; background: #e3e6eb; border-radius: 3px; }}
QSlider::sub-page:horizontal {{ background: {ACCENT}; border-radius: 3px; }}
QSlider::handle:horizontal {{ background: {PANEL}; border: 2px solid {ACCENT}; width: 14px; height: 14px;
                              margin: -6px 0; border-radius: 8px; }}
QSlider::handle:horizontal:focus {{ background: {ACCENT_SOFT}; }}
"""


def palette() -> QPalette:
    """The light palette used with the Fusion style."""
    pal = QPalette()
    pal.setColor(QPalette.ColorRole.Window, QColor(WINDOW))
    pal.setColor(QPalette.ColorRole.WindowText, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.Base, QColor(PANEL))
    pal.setColor(QPalette.ColorRole.AlternateBase, QColor("#f8f9fb"))
    pal.setColor(QPalette.ColorRole.Text, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.Button, QColor(PANEL))
    pal.setColor(QPalette.ColorRole.ButtonText, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.Highlight, QColor(ACCENT))
    pal.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.ToolTipBase, QColor(PANEL))
    pal.setColor(QPalette.ColorRole.ToolTipText, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.PlaceholderText, QColor(MUTED))
    pal.setColor(QPalette.ColorRole.Link, QColor(ACCENT))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#a8adb7"))
    return pal


class _SortArrowStyle(QProxyStyle):
    """Draws a header's sort arrow pointing the way the values run down the list.

    Qt's header view asks for an up arrow for descending order, so a newest-first list of sessions
    showed "▲", which people read as "oldest first". Here ▼ means descending (largest/newest on top)
    and ▲ ascending, as in most file managers.
    """

    def drawPrimitive(  # noqa: N802 (Qt naming)
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        header_arrow = element == QStyle.PrimitiveElement.PE_IndicatorHeaderArrow
        if header_arrow and isinstance(option, QStyleOptionHeader):
            flipped = QStyleOptionHeader(option)
            up, down = QStyleOptionHeader.SortIndicator.SortUp, QStyleOptionHeader.SortIndicator.SortDown
            if option.sortIndicator == up:
                flipped.sortIndicator = down
            elif option.sortIndicator == down:
                flipped.sortIndicator = up
            option = flipped
        super().drawPrimitive(element, option, painter, widget)


def apply(app: QApplication) -> None:
    """Apply the PlayTrace theme to the whole application."""
    if "Fusion" in QStyleFactory.keys():
        app.setStyle(_SortArrowStyle(QStyleFactory.create("Fusion")))
    app.setPalette(palette())
    font = QFont("DejaVu Sans")
    font.setPointSize(BASE_POINT_SIZE)
    app.setFont(font)
    app.setStyleSheet(STYLESHEET)
