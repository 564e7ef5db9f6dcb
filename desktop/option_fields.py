"""Fields for a game's options: one input per :class:`engine.options.Option`, read back checked.

A choice option is a combo box, ``int`` and ``float`` options are spin boxes bounded by the option's
minimum and maximum, ``bool`` a check box and ``str`` a text field; each shows the option's help as
its tooltip and starts at its default. Values are read back through :meth:`Option.parse` and
:meth:`Option.check`, the same rules as ``playtrace run --option``, so an invalid value is reported
with the option's name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QLocale, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from engine.options import Option, OptionError

__all__ = ["OptionsBox", "option_field", "option_tip", "option_value", "set_option_value"]

#: Spin box bounds for a number option without its own minimum or maximum.
_INT_LIMIT = 2_147_483_647
_FLOAT_LIMIT = 1e9


def option_tip(option: Option) -> str:
    """The tooltip of an option's field: its help, what it accepts and its default."""
    accepts = f"{option.describe_type()}; default {option.default}"
    return f"{option.help} ({accepts})" if option.help else accepts.capitalize()


def option_field(option: Option) -> QWidget:
    """The input for one option: a combo box for choices, else a spin box, check box or text field
    by type; its default is preselected and its help is the tooltip."""
    widget: QWidget
    if option.choices:
        combo = QComboBox()
        for choice in option.choices:
            combo.addItem(str(choice), choice)
        widget = combo
    elif option.type is bool:
        widget = QCheckBox(option.title)
    elif option.type is int:
        spin = QSpinBox()
        spin.setRange(int(option.minimum) if option.minimum is not None else -_INT_LIMIT,
                      int(option.maximum) if option.maximum is not None else _INT_LIMIT)
        widget = spin
    elif option.type is float:
        dspin = QDoubleSpinBox()
        dspin.setDecimals(3)
        dspin.setRange(float(option.minimum) if option.minimum is not None else -_FLOAT_LIMIT,
                       float(option.maximum) if option.maximum is not None else _FLOAT_LIMIT)
        dspin.setSingleStep(0.1)
        widget = dspin
    else:
        widget = QLineEdit()
    if isinstance(widget, (QSpinBox, QDoubleSpinBox)):
        # Read back with Option.parse, as the command line reads --option: one notation everywhere.
        widget.setLocale(QLocale.c())
        widget.setMinimumWidth(110)
        widget.setMaximumWidth(180)
    widget.setObjectName(f"option_{option.name}")
    widget.setToolTip(option_tip(option))
    set_option_value(option, widget, option.default)
    return widget


def set_option_value(option: Option, widget: QWidget, value: Any) -> None:
    """Show ``value`` in ``option``'s field (a value the option does not accept is ignored)."""
    try:
        value = option.check(value)
    except OptionError:
        return
    if isinstance(widget, QComboBox):
        widget.setCurrentIndex(max(0, widget.findData(value)))
    elif isinstance(widget, QCheckBox):
        widget.setChecked(bool(value))
    elif isinstance(widget, (QSpinBox, QDoubleSpinBox)):
        widget.setValue(value)
    elif isinstance(widget, QLineEdit):
        widget.setText(str(value))


def option_value(option: Option, widget: QWidget) -> Any:
    """The value in ``option``'s field, checked by the option.

    Raises:
        OptionError: the field holds a value the option does not accept (the message names it), for
            example a number typed below the minimum that the spin box has not corrected yet.
    """
    if isinstance(widget, QComboBox):
        return option.check(widget.currentData())
    if isinstance(widget, QCheckBox):
        return option.check(widget.isChecked())
    if isinstance(widget, (QSpinBox, QDoubleSpinBox)):
        return option.parse(widget.cleanText())
    if isinstance(widget, QLineEdit):
        return option.parse(widget.text())
    raise TypeError(f"no field type for option {option.name!r}")


class OptionsBox(QGroupBox):
    """The selected game's options, one labelled field each; hidden when the game has none.

    Signals:
        sig_changed(): a field was edited.
    """

    sig_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Game options", parent)
        self.form = QFormLayout(self)
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.fields: dict[str, tuple[Option, QWidget]] = {}
        self.setVisible(False)

    def set_schema(self, schema: Sequence[Option], values: Mapping[str, Any] | None = None) -> None:
        """Show one field per option, preset to ``values`` where given (else the defaults)."""
        while self.form.rowCount():
            self.form.removeRow(0)
        self.fields = {}
        for option in schema:
            field = option_field(option)
            if values and option.name in values:
                set_option_value(option, field, values[option.name])
            self.fields[option.name] = (option, field)
            self._watch(field)
            label = QLabel("" if isinstance(field, QCheckBox) else option.title)
            label.setToolTip(field.toolTip())
            self.form.addRow(label, self._row(option, field))
        self.setVisible(bool(self.fields))

    @staticmethod
    def _row(option: Option, field: QWidget) -> QWidget:
        """The field with the option's help beside it (a number field stays narrow)."""
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(10)
        narrow = isinstance(field, (QSpinBox, QDoubleSpinBox, QComboBox, QCheckBox))
        layout.addWidget(field, 0 if narrow else 1)
        if option.help:  # a check box says what it turns on as a number field does
            hint = QLabel(option.help)
            hint.setObjectName("Muted")
            hint.setWordWrap(True)
            layout.addWidget(hint, 1)
        elif narrow:
            layout.addStretch(1)
        return row

    def _watch(self, field: QWidget) -> None:
        if isinstance(field, QComboBox):
            field.currentIndexChanged.connect(self.sig_changed)
        elif isinstance(field, QCheckBox):
            field.toggled.connect(self.sig_changed)
        elif isinstance(field, (QSpinBox, QDoubleSpinBox)):
            field.lineEdit().textChanged.connect(self.sig_changed)
        elif isinstance(field, QLineEdit):
            field.textChanged.connect(self.sig_changed)

    def field(self, name: str) -> QWidget:
        """The input widget of option ``name``."""
        return self.fields[name][1]

    def values(self) -> dict[str, Any]:
        """Every option's value.

        Raises:
            OptionError: a field holds a value its option does not accept (the message names it).
        """
        return {name: option_value(option, field) for name, (option, field) in self.fields.items()}
