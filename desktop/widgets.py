"""Small widgets shared by PlayTrace panels: collapsible sections, auto-height text and tables,
clickable image thumbnails, an image viewer, a full-size text viewer, cards and message banners.

They carry no game or session knowledge; panels compose them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QGuiApplication,
    QMouseEvent,
    QPixmap,
    QResizeEvent,
    QTextCursor,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QApplication,
    QDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop import theme

_W = TypeVar("_W", bound=QWidget)

#: Status colours, taken from the app theme so every panel says "ok" and "failed" the same way.
OK_COLOR = theme.SUCCESS
BAD_COLOR = theme.ERROR_FG
WARN_COLOR = theme.WARNING_FG
MUTED_COLOR = theme.MUTED


def monospace_font(point_delta: float = 0.0) -> QFont:
    """The platform's fixed-pitch font, optionally a little larger or smaller than the default."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    if point_delta and font.pointSizeF() > 0:
        font.setPointSizeF(max(6.0, font.pointSizeF() + point_delta))
    return font


class AutoHeightTextView(QTextEdit):
    """A read-only plain-text view that grows with its content between ``min_height`` and ``max_height``.

    Inside a scroll area a fixed-height text box either wastes space or hides text behind a second
    scroll bar; growing to the content (up to a cap, then scrolling inside) keeps short texts whole
    and long ones bounded. :meth:`set_text` only appends the new suffix when the text grows, so
    streamed reasoning costs proportional to the new tokens. With ``follow_tail`` (streamed text) it
    keeps the view pinned to the bottom unless the user scrolled up to read; without it (a prompt,
    read from its beginning) a new text opens at the top.
    """

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        min_height: int = 40,
        max_height: int = 260,
        monospace: bool = False,
        placeholder: str = "",
        follow_tail: bool = True,
    ) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setAcceptRichText(False)
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setPlaceholderText(placeholder)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        if monospace:
            self.setFont(monospace_font())
        self._min_height = min_height
        self._max_height = max_height
        self._follow_tail = follow_tail
        self._text = ""
        self.document().setDocumentMargin(6)
        self.document().contentsChanged.connect(self._fit_height)
        self._fit_height()

    def text(self) -> str:
        """The text shown (kept as a copy, so reading it costs nothing while streaming)."""
        return self._text

    def set_text(self, text: str) -> None:
        """Show ``text``; appends only the difference when ``text`` extends what is shown."""
        if text == self._text:
            return
        bar = self.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        extends = bool(self._text) and text.startswith(self._text)
        if extends:
            cursor = QTextCursor(self.document())
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(text[len(self._text) :])
        else:
            self.setPlainText(text)
        self._text = text
        if self._follow_tail and at_bottom:
            bar.setValue(bar.maximum())
        elif not self._follow_tail and not extends:
            bar.setValue(0)  # a new text is read from its beginning

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt naming)
        super().resizeEvent(event)
        self._fit_height()

    def _fit_height(self) -> None:
        doc = self.document()
        doc.setTextWidth(max(50, self.viewport().width()))
        frame = 2 * self.frameWidth()
        wanted = int(doc.size().height()) + frame + 2
        height = max(self._min_height, min(self._max_height, wanted))
        if height != self.height():
            self.setFixedHeight(height)


class FoldingTextView(AutoHeightTextView):
    """A read-only text that never scrolls inside itself: it shows its first ``fold_lines`` lines
    (wrapped lines, as displayed) and :attr:`fold_button` ("Show all (N lines)") unfolds the rest.

    Placed in a scrolling column, the column is then the only thing that scrolls: no second scroll bar,
    and the mouse wheel over the text scrolls the column. Add :attr:`fold_button` below the view.
    """

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        fold_lines: int = 10,
        monospace: bool = False,
        placeholder: str = "",
    ) -> None:
        super().__init__(
            parent, min_height=30, max_height=16_000_000, monospace=monospace,
            placeholder=placeholder, follow_tail=False,
        )
        self._fold_lines = fold_lines
        self._expanded = False
        self._lines = 0
        self.fold_button = link_button("", "Show the whole text here, or fold it back to its first lines")
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.fold_button.setObjectName("FoldButton")
        self.fold_button.clicked.connect(lambda _checked=False: self.set_expanded(not self._expanded))
        self.fold_button.setVisible(False)
        # Selecting with the mouse or the keyboard must not leave a folded text scrolled inside.
        self.verticalScrollBar().valueChanged.connect(self._stay_at_top)
        self._fit_height()

    @property
    def expanded(self) -> bool:
        return self._expanded

    @property
    def line_count(self) -> int:
        """How many lines the text takes at the current width."""
        return self._lines

    def is_folded(self) -> bool:
        """Whether some of the text is hidden behind :attr:`fold_button`."""
        return not self._expanded and self._foldable()

    def _foldable(self) -> bool:
        # Folding away one or two lines would save nothing and cost a click.
        return self._lines > self._fold_lines + 2

    def set_expanded(self, expanded: bool) -> None:
        """Show the whole text (``True``) or only its first lines."""
        if expanded != self._expanded:
            self._expanded = expanded
            self._fit_height()

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 (Qt naming)
        # The column around the text scrolls (sent on explicitly: Qt does not pass on every wheel event).
        parent = self.parentWidget()
        while parent is not None and not isinstance(parent, QAbstractScrollArea):
            parent = parent.parentWidget()
        if parent is None:
            event.ignore()
        else:
            QApplication.sendEvent(parent.verticalScrollBar(), event)

    def _stay_at_top(self, value: int) -> None:
        if value:
            self.verticalScrollBar().setValue(0)

    def _fit_height(self) -> None:
        if not hasattr(self, "fold_button"):
            return  # called by the base class before this one is set up
        doc = self.document()
        doc.setTextWidth(max(50, self.viewport().width()))
        layout = doc.documentLayout()
        lines, cut = 0, 0.0
        block = doc.begin()
        while block.isValid():
            top = layout.blockBoundingRect(block).top()
            text_layout = block.layout()
            count = text_layout.lineCount() if text_layout is not None else 0
            if lines < self._fold_lines <= lines + count:
                line = text_layout.lineAt(self._fold_lines - lines - 1)
                cut = top + line.y() + line.height()
            lines += count
            block = block.next()
        self._lines = lines
        # The frame and any padding of the style sheet: the box's height less its viewport's.
        frame = max(2 * self.frameWidth(), self.height() - self.viewport().height())
        # Folded, the box ends right under the last line shown: no half line peeks out below it.
        content = cut if self.is_folded() else doc.size().height() + 1
        height = max(self._min_height, int(content) + frame)
        if height != self.height():
            self.setFixedHeight(height)
        foldable = self._foldable()
        self.fold_button.setVisible(foldable)
        if foldable:
            self.fold_button.setText("Show less" if self._expanded else f"Show all ({lines} lines)")
        self.verticalScrollBar().setValue(0)


class AutoHeightTable(QTableWidget):
    """A compact, read-only table that shows all its rows up to ``max_rows`` before scrolling."""

    def __init__(
        self,
        headers: Sequence[str],
        parent: QWidget | None = None,
        *,
        stretch_column: int = 0,
        max_rows: int = 12,
    ) -> None:
        super().__init__(0, len(headers), parent)
        self.setHorizontalHeaderLabels(list(headers))
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setWordWrap(True)
        self.setAlternatingRowColors(True)
        self.setShowGrid(False)
        self.verticalHeader().setVisible(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = self.horizontalHeader()
        header.setHighlightSections(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        for col in range(len(headers)):
            mode = (
                QHeaderView.ResizeMode.Stretch
                if col == stretch_column
                else QHeaderView.ResizeMode.ResizeToContents
            )
            header.setSectionResizeMode(col, mode)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._max_rows = max_rows
        self._fit_height()

    def set_rows(self, rows: Sequence[Sequence[QTableWidgetItem | str]]) -> None:
        """Replace the content; plain strings become read-only items."""
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                item = cell if isinstance(cell, QTableWidgetItem) else QTableWidgetItem(str(cell))
                self.setItem(r, c, item)
        self.resizeRowsToContents()
        self._fit_height()

    def cell_text(self, row: int, col: int) -> str:
        item = self.item(row, col)
        return item.text() if item is not None else ""

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        # Wrapped cells change height with the width.
        self.resizeRowsToContents()
        self._fit_height()

    def _fit_height(self) -> None:
        rows = min(self.rowCount(), self._max_rows)
        height = self.horizontalHeader().height() + 2 * self.frameWidth() + 2
        height += sum(self.rowHeight(r) for r in range(rows)) if rows else 0
        self.setFixedHeight(height)


class CollapsibleSection(QWidget):
    """A titled section whose body folds away; the header keeps a one-line summary visible.

    Folding instead of tabs keeps every part of a decision in one scrolling column, so the prompt,
    the reasoning and the parsed answer can be read together.
    """

    toggled = Signal(bool)

    def __init__(self, title: str, parent: QWidget | None = None, *, expanded: bool = True) -> None:
        super().__init__(parent)
        self.setObjectName("section")
        self._toggle = QToolButton(self)
        self._toggle.setObjectName("sectionToggle")
        self._toggle.setText(title)
        self._toggle.setCheckable(True)
        self._toggle.setChecked(expanded)
        self._toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self._toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self._toggle.setAutoRaise(True)
        # Flat header: a section title, not a button shape competing with the real buttons below.
        self._toggle.setStyleSheet(
            f"QToolButton#sectionToggle {{ border: none; background: transparent; padding: 2px 0px;"
            f" color: {theme.TEXT}; }}"
            f"QToolButton#sectionToggle:hover {{ color: {theme.ACCENT}; }}"
        )
        self._toggle.setCursor(Qt.CursorShape.PointingHandCursor)
        title_font = self._toggle.font()
        title_font.setBold(True)
        self._toggle.setFont(title_font)
        self._toggle.toggled.connect(self.set_expanded)

        self.summary = QLabel(self)
        self.summary.setObjectName("sectionSummary")
        self.summary.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setStyleSheet(f"color: {MUTED_COLOR};")
        # A long summary must never widen the section (and with it the whole scrolling column):
        # it gives way to the title and is clipped at worst.
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.summary.setMinimumWidth(1)

        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self._toggle)
        head.addWidget(self.summary, 1)
        self._head = head

        line = QFrame(self)
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFrameShadow(QFrame.Shadow.Sunken)

        self.body = QWidget(self)
        self.body_layout = QVBoxLayout(self.body)
        self.body_layout.setContentsMargins(18, 2, 2, 4)
        self.body_layout.setSpacing(6)
        self.body.setVisible(expanded)

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 4, 0, 2)
        outer.setSpacing(2)
        outer.addLayout(head)
        outer.addWidget(line)
        outer.addWidget(self.body)

    @property
    def title(self) -> str:
        return self._toggle.text()

    def is_expanded(self) -> bool:
        return self._toggle.isChecked()

    def set_expanded(self, expanded: bool) -> None:
        """Show or fold the body."""
        if self._toggle.isChecked() != expanded:
            self._toggle.setChecked(expanded)  # re-enters through the toggled signal
            return
        self._toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.body.setVisible(expanded)
        self.toggled.emit(expanded)

    def set_summary(self, html: str) -> None:
        self.summary.setText(html)

    def add_header_widget(self, widget: QWidget) -> QWidget:
        """Put a small ``widget`` (a button) at the right end of the title line and return it.

        Actions on the section's content sit there so they cost no height in the scrolling column.
        """
        self._head.addWidget(widget)
        return widget

    def add(self, widget: _W) -> _W:
        """Add ``widget`` to the body and return it."""
        self.body_layout.addWidget(widget)
        return widget


class ImageDialog(QDialog):
    """Shows one image at full size (scrollable when larger than the screen)."""

    def __init__(self, pixmap: QPixmap, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.image_label = QLabel(self)
        self.image_label.setPixmap(pixmap)
        self.image_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        area = QScrollArea(self)
        area.setWidget(self.image_label)
        area.setWidgetResizable(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(area)
        screen = QGuiApplication.primaryScreen()
        limit = screen.availableSize() * 0.9 if screen is not None else QSize(1200, 900)
        self.resize(min(pixmap.width() + 40, limit.width()), min(pixmap.height() + 40, limit.height()))


class TextDialog(QDialog):
    """A long text (a prompt exactly as sent) at full size, read-only, opened at its beginning.

    Shown with :meth:`QDialog.show`, never ``exec()``: the match keeps running on the same event loop.
    """

    def __init__(
        self, text: str, title: str, parent: QWidget | None = None, *, monospace: bool = True
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.view = QPlainTextEdit(self)
        self.view.setReadOnly(True)
        self.view.setObjectName("FullTextView")
        if monospace:
            self.view.setFont(monospace_font())
        self.set_text(text, title)
        copy = QPushButton("Copy", self)
        copy.setToolTip("Copy the whole text to the clipboard")
        copy.clicked.connect(self._copy)
        close = QPushButton("Close", self)
        close.setDefault(True)
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(copy)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.setSpacing(8)
        layout.addWidget(self.view, 1)
        layout.addLayout(buttons)
        screen = QGuiApplication.primaryScreen()
        limit = screen.availableSize() * 0.85 if screen is not None else QSize(1000, 700)
        self.resize(min(900, limit.width()), min(760, limit.height()))

    def set_text(self, text: str, title: str) -> None:
        """Show another text (and title), from its beginning."""
        self.setWindowTitle(title)
        self.view.setPlainText(text)
        self.view.moveCursor(QTextCursor.MoveOperation.Start)

    def _copy(self) -> None:
        clipboard = QGuiApplication.clipboard()
        if clipboard is not None:
            clipboard.setText(self.view.toPlainText())


class ClickableThumbnail(QLabel):
    """An image shown small; a click opens it full size in an :class:`ImageDialog`."""

    clicked = Signal()

    def __init__(
        self, png: bytes | None, title: str, parent: QWidget | None = None, *, size: int = 112
    ) -> None:
        super().__init__(parent)
        self.title = title
        self.pixmap_full = QPixmap()
        self.dialog: ImageDialog | None = None
        self.setFixedSize(size, size)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        if png and self.pixmap_full.loadFromData(png):
            self.setPixmap(
                self.pixmap_full.scaled(
                    size - 6,
                    size - 6,
                    Qt.AspectRatioMode.KeepAspectRatio,
                    Qt.TransformationMode.SmoothTransformation,
                )
            )
            self.setCursor(Qt.CursorShape.PointingHandCursor)
            self.setToolTip(
                f"{title} — {self.pixmap_full.width()}×{self.pixmap_full.height()}, click to enlarge"
            )
        else:
            self.setText("image\nunavailable")
            self.setStyleSheet(f"color: {MUTED_COLOR};")
            self.setToolTip(f"{title}: the attachment could not be loaded")

    @property
    def loaded(self) -> bool:
        return not self.pixmap_full.isNull()

    def open_full(self) -> ImageDialog | None:
        """Open (non-modally: the match keeps running) the full-size view."""
        if not self.loaded:
            return None
        self.dialog = ImageDialog(self.pixmap_full, self.title, self.window())
        self.dialog.show()
        return self.dialog

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
            self.open_full()
        super().mouseReleaseEvent(event)


def link_button(text: str, tip: str, *, left_padding: int = 0) -> QToolButton:
    """A flat button that reads as a link ("Open full prompt…", "Show all (40 lines)")."""
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    button.setStyleSheet(
        f"QToolButton {{ color: {theme.ACCENT}; border: none; padding: 0px 0px 0px {left_padding}px; }}"
        f"QToolButton:hover {{ text-decoration: underline; }}"
        f"QToolButton:disabled {{ color: {MUTED_COLOR}; }}"
    )
    return button


def table_item(
    text: str, *, align: Qt.AlignmentFlag | None = None, bold: bool = False, color: str = "", tip: str = ""
) -> QTableWidgetItem:
    """A read-only table cell."""
    item = QTableWidgetItem(text)
    if align is not None:
        item.setTextAlignment(align)
    font = item.font()
    font.setBold(bold)
    item.setFont(font)
    if color:
        item.setForeground(QColor(color))
    if tip:
        item.setToolTip(tip)
    return item


def rich_label() -> QLabel:
    """A selectable, wrapping rich-text label that takes the width it is given."""
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
    return label


def muted_label(text: str) -> QLabel:
    """A grey label (an empty state: "No reflection recorded")."""
    label = QLabel(text)
    label.setStyleSheet(f"color: {MUTED_COLOR};")
    return label


_NOTE_STYLES = {
    "error": ("#fdecea", BAD_COLOR, "#f5c2bd"),
    "info": ("#eef2ff", "#3730a3", "#c7d2fe"),
}


def note_label(kind: str, parent: QWidget | None = None) -> QLabel:
    """A hidden, wrapping message box above a panel's content: ``"error"`` (red) or ``"info"`` (blue)."""
    background, color, border = _NOTE_STYLES[kind]
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setStyleSheet(
        f"QLabel {{ background: {background}; color: {color}; border: 1px solid {border};"
        " border-radius: 6px; padding: 6px 8px; }"
    )
    label.setVisible(False)
    return label


def pill_style() -> str:
    """The style sheet of a checkable rounded "pill" button (one sample among several)."""
    return (
        f"QToolButton {{ border: 1px solid {theme.BORDER}; border-radius: 10px; padding: 2px 10px;"
        f" background: {theme.PANEL}; }}"
        f"QToolButton:checked {{ background: {theme.ACCENT_SOFT}; border-color: {theme.ACCENT};"
        f" color: {theme.ACCENT_DARK}; }}"
    )


def badge(text: str, background: str, foreground: str = "white", parent: QWidget | None = None) -> QLabel:
    """A small rounded label with a strong colour (status badges)."""
    label = QLabel(text, parent)
    label.setStyleSheet(
        f"QLabel {{ background: {background}; color: {foreground}; border-radius: 4px;"
        " padding: 2px 8px; font-weight: bold; }"
    )
    label.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
    return label


def card(widget: QWidget, margins: int = 6) -> QFrame:
    """``widget`` inside a white rounded card (the ``Card`` style of the theme)."""
    frame = QFrame()
    frame.setObjectName("Card")
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(margins, margins, margins, margins)
    layout.addWidget(widget)
    return frame


class Banner(QFrame):
    """A dismissible message strip with optional action buttons.

    ``object_name`` picks the theme's look (``Banner`` for information, ``WarningBanner``).
    """

    def __init__(self, object_name: str = "Banner", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        self.text = QLabel("")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(12, 6, 8, 6)
        self._row.setSpacing(8)
        self._row.addWidget(self.text, 1)
        self.buttons: dict[str, QPushButton] = {}
        close = QPushButton("Dismiss")
        close.setFlat(True)
        close.clicked.connect(self.hide)
        self._close = close
        self._row.addWidget(close)
        self.hide()

    def add_button(self, key: str, text: str, *, primary: bool = False) -> QPushButton:
        """Add an action button (before Dismiss), reachable later as ``buttons[key]``."""
        btn = QPushButton(text)
        if primary:
            btn.setObjectName("Primary")
        self._row.insertWidget(self._row.count() - 1, btn)
        self.buttons[key] = btn
        return btn

    def show_text(self, html: str) -> None:
        """Show the banner with ``html`` (rich text: escape anything quoted from files)."""
        self.text.setText(html)
        self.show()


class ElidedLabel(QLabel):
    """A one-line label that ends in "…" when its text is wider than the room it has, with the whole
    text as its tooltip (``text()`` still gives the whole text)."""

    def setText(self, text: str) -> None:  # noqa: N802
        super().setText(text)
        self.setToolTip(text if text else "")

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), 40), hint.height())

    def paintEvent(self, _event: object) -> None:  # noqa: N802
        from PySide6.QtGui import QPainter

        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        rect = self.contentsRect()
        shown = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(rect, int(self.alignment() | Qt.AlignmentFlag.AlignVCenter), shown)
        painter.end()
