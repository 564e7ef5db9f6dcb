"""Buttons, sliders and number fields for actions that are not a click on the board.

A game's state describes them (:meth:`engine.core.State.panel` → :class:`engine.controls.Panel`):
hold'em's Fold / Call and a raise slider, a bargaining offer editor, Othello's pass. This widget draws
whatever the panel holds and requests the action it composes; it knows no game.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.widgets import MUTED_COLOR
from engine.controls import Amount, Panel

__all__ = ["ActionPanel"]


def _signature(panel: Panel | None) -> Any:
    if panel is None:
        return None
    return (
        panel.title,
        panel.submit,
        tuple((b.label, b.action, b.enabled) for b in panel.buttons),
        tuple((a.name, a.label, a.minimum, a.maximum, a.default, a.labels) for a in panel.amounts),
    )


class ActionPanel(QFrame):
    """The panel of the person to act, under the board; hidden when the state has none.

    Signals:
        sig_action_requested(str): the action a button or the submit button sends.
    """

    sig_action_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ActionPanel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._panel: Panel | None = None
        self._signature: Any = None
        self._inputs: dict[str, QSlider | QSpinBox] = {}
        self._stop_labels: dict[str, QLabel] = {}
        self.submit_button: QPushButton | None = None
        self.buttons: list[QPushButton] = []
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(10, 6, 10, 6)
        self._layout.setSpacing(4)
        self.summary = QLabel()
        self.summary.setStyleSheet(f"color: {MUTED_COLOR};")
        self.summary.setWordWrap(True)
        self._columns = 8
        self.setVisible(False)

    @property
    def panel(self) -> Panel | None:
        return self._panel

    def set_panel(self, panel: Panel | None, *, enabled: bool = True) -> None:
        """Show ``panel`` (``None`` hides the widget); ``enabled`` is false when the person may not act."""
        signature = _signature(panel)
        if signature != self._signature:
            self._signature = signature
            self._panel = panel
            self._rebuild()
        self.setVisible(panel is not None)
        self.setEnabled(enabled)

    def set_columns(self, columns: int) -> None:
        """How many buttons stand in a row (two beside the board, one row under it)."""
        if columns != self._columns:
            self._columns = columns
            if self._panel is not None:
                values = self.values()
                self._rebuild()
                for name, value in values.items():
                    self._inputs[name].setValue(value)

    def values(self) -> dict[str, int]:
        return {name: int(widget.value()) for name, widget in self._inputs.items()}

    # -- building -----------------------------------------------------------------------------------

    def _clear(self) -> None:
        while self._layout.count():
            item = self._layout.takeAt(0)
            widget = item.widget()
            if widget is not None and widget is not self.summary:
                widget.deleteLater()
            elif item.layout() is not None:
                _drop_layout(item.layout())
        self._inputs.clear()
        self._stop_labels.clear()
        self.buttons = []
        self.submit_button = None

    def _rebuild(self) -> None:
        self._clear()
        panel = self._panel
        if panel is None:
            return
        title = QLabel(f"<b>{panel.title}</b>")
        self._layout.addWidget(title)
        sliders = [a for a in panel.amounts if a.labels]
        numbers = [a for a in panel.amounts if not a.labels]
        if sliders:
            form = QFormLayout()
            form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
            form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
            for amount in sliders:
                form.addRow(amount.label, self._amount_widget(amount))
            self._layout.addLayout(form)
        if numbers:
            # Number fields side by side: the board keeps the height.
            line = QHBoxLayout()
            line.setSpacing(6)
            for amount in numbers:
                label = QLabel(amount.label)
                spin = self._amount_widget(amount)
                label.setBuddy(spin)
                line.addWidget(label)
                line.addWidget(spin)
                line.addSpacing(8)
            line.addStretch(1)
            self._layout.addLayout(line)
        row = QGridLayout()
        row.setHorizontalSpacing(6)
        row.setVerticalSpacing(4)
        placed = 0

        def place(widget: QWidget) -> None:
            nonlocal placed
            row.addWidget(widget, placed // self._columns, placed % self._columns)
            placed += 1

        for button in panel.buttons:
            widget = QPushButton(button.label)
            widget.setEnabled(button.enabled)
            widget.setToolTip(button.hint or f"Play {button.action}")
            widget.clicked.connect(lambda _c=False, a=button.action: self.sig_action_requested.emit(a))
            self.buttons.append(widget)
            place(widget)
        if panel.submit and panel.compose is not None:
            self.submit_button = QPushButton(panel.submit)
            self.submit_button.setDefault(True)
            self.submit_button.setObjectName("PanelSubmit")
            self.submit_button.clicked.connect(self._submit)
            place(self.submit_button)
        if self._columns > 2:
            row.setColumnStretch(self._columns, 1)  # one row under the board: buttons to the left
        self._layout.addLayout(row)
        self._layout.addWidget(self.summary)
        self._update_summary()

    def _amount_widget(self, amount: Amount) -> QWidget:
        if amount.labels:
            box = QWidget()
            line = QHBoxLayout(box)
            line.setContentsMargins(0, 0, 0, 0)
            slider = QSlider(Qt.Orientation.Horizontal)
            slider.setRange(amount.minimum, amount.maximum)
            slider.setValue(amount.default)
            slider.setTickPosition(QSlider.TickPosition.TicksBelow)
            slider.setPageStep(1)
            slider.setMinimumWidth(100)
            label = QLabel()
            label.setMinimumWidth(40)
            slider.valueChanged.connect(self._update_summary)
            line.addWidget(slider, 1)
            line.addWidget(label)
            self._inputs[amount.name] = slider
            self._stop_labels[amount.name] = label
            return box
        spin = QSpinBox()
        spin.setMinimumWidth(56)
        spin.setRange(amount.minimum, amount.maximum)
        spin.setValue(amount.default)
        spin.valueChanged.connect(self._update_summary)
        self._inputs[amount.name] = spin
        return spin

    # -- interaction ----------------------------------------------------------------------------------

    def _update_summary(self) -> None:
        panel = self._panel
        if panel is None:
            return
        for amount in panel.amounts:
            label = self._stop_labels.get(amount.name)
            if label is not None:
                label.setText(amount.labels[int(self._inputs[amount.name].value()) - amount.minimum])
        text = ""
        if panel.summary is not None:
            try:
                text = panel.summary(self.values())
            except Exception as exc:  # a game's summary must not break the panel: say what is wrong
                text = f"({exc})"
        self.summary.setText(text)
        self.summary.setVisible(bool(text))

    def _submit(self) -> None:
        panel = self._panel
        if panel is None:
            return
        try:
            action = panel.action_for(self.values())
        except Exception as exc:
            self.summary.setText(str(exc))
            self.summary.setVisible(True)
            return
        self.sig_action_requested.emit(action)


def _drop_layout(layout: Any) -> None:
    while layout.count():
        item = layout.takeAt(0)
        if item.widget() is not None:
            item.widget().deleteLater()
        elif item.layout() is not None:
            _drop_layout(item.layout())
