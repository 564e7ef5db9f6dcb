"""Typed game options: what a game can be configured with, declared once and read everywhere.

A game lists its options as :class:`Option` values (name, type, default, range or choices, help). The
same declaration validates ``engine.make(game_id, **options)``, is read by the command line as
``--option key=value`` (:func:`parse_assignments`) and is rendered as fields by the New game dialog.
Every error names the option, says what was wrong and what would be accepted::

    Option("size", int, 4, minimum=2, maximum=8, help="Board side length")
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["Option", "OptionError", "parse_assignments", "validate"]

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


class OptionError(ValueError):
    """An option is unknown, of the wrong type, out of range or not one of its choices."""


@dataclasses.dataclass(frozen=True, slots=True)
class Option:
    """One option of a game.

    Attributes:
        name: The keyword (``size``, ``start``); a short lowercase identifier.
        type: ``int``, ``float``, ``bool`` or ``str``.
        default: The value used when the option is not given.
        help: One sentence for tooltips and ``playtrace games``.
        minimum: Smallest accepted value (numbers only).
        maximum: Largest accepted value (numbers only).
        choices: The accepted values, when the option is one of a fixed set.
        label: What a form shows (default: the name with underscores as spaces, capitalised).
    """

    name: str
    type: type
    default: Any
    help: str = ""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] = ()
    label: str = ""

    def __post_init__(self) -> None:
        if not self.name.isidentifier() or self.name != self.name.lower():
            raise ValueError(f"option names are lowercase identifiers, not {self.name!r}")
        if self.type not in (int, float, bool, str):
            raise ValueError(f"option {self.name!r}: type must be int, float, bool or str, not {self.type!r}")
        self.check(self.default)  # a declaration whose own default is invalid is a bug in the game

    @property
    def title(self) -> str:
        return self.label or self.name.replace("_", " ").capitalize()

    def check(self, value: Any) -> Any:
        """``value`` if it is acceptable (an ``int`` is accepted for a ``float`` option and converted).

        Raises:
            OptionError: the value is of the wrong type, out of range or not a choice.
        """
        kind = self.type
        if kind is bool:
            ok = isinstance(value, bool)
        elif kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif kind is float:
            ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
            value = float(value) if ok else value
        else:
            ok = isinstance(value, str)
        if not ok:
            raise OptionError(f"option {self.name!r} takes {self.describe_type()}, not {value!r}")
        if self.choices and value not in self.choices:
            shown = ", ".join(str(c) for c in self.choices)
            raise OptionError(f"option {self.name!r} must be one of {shown}, not {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise OptionError(f"option {self.name!r} must be at least {_num(self.minimum)}, not {value!r}")
        if self.maximum is not None and value > self.maximum:
            raise OptionError(f"option {self.name!r} must be at most {_num(self.maximum)}, not {value!r}")
        return value

    def parse(self, text: str) -> Any:
        """Read ``text`` (from a command line or a text field) as a value of this option.

        Raises:
            OptionError: the text is not a value of the option's type, or the value is not accepted.
        """
        raw = text.strip()
        value: Any
        try:
            if self.type is bool:
                low = raw.lower()
                if low not in _TRUE | _FALSE:
                    raise ValueError
                value = low in _TRUE
            elif self.type is int:
                value = int(raw)
            elif self.type is float:
                value = float(raw)
            else:
                value = text
        except ValueError:
            raise OptionError(f"option {self.name!r} takes {self.describe_type()}, not {text!r}") from None
        return self.check(value)

    def describe_type(self) -> str:
        """``"a whole number from 2 to 8"``, ``"true or false"``, ``"one of 8x8, 9x9"``."""
        if self.choices:
            return "one of " + ", ".join(str(c) for c in self.choices)
        if self.type is bool:
            return "true or false"
        noun = {int: "a whole number", float: "a number", str: "text"}[self.type]
        if self.minimum is not None and self.maximum is not None:
            return f"{noun} from {_num(self.minimum)} to {_num(self.maximum)}"
        if self.minimum is not None:
            return f"{noun} of at least {_num(self.minimum)}"
        if self.maximum is not None:
            return f"{noun} of at most {_num(self.maximum)}"
        return noun

    def to_data(self) -> dict[str, Any]:
        """A JSON-ready description (for ``playtrace games --json`` and forms)."""
        data: dict[str, Any] = {"name": self.name, "type": self.type.__name__, "default": self.default}
        for key in ("help", "minimum", "maximum"):
            if getattr(self, key) not in (None, ""):
                data[key] = getattr(self, key)
        if self.choices:
            data["choices"] = list(self.choices)
        return data


def validate(
    schema: Sequence[Option], given: Mapping[str, Any], *, game: str = "this game"
) -> dict[str, Any]:
    """Every option of ``schema`` with its value: the given ones checked, the others defaulted.

    Raises:
        OptionError: an option is unknown (the message lists the known ones) or its value is invalid.
    """
    known = {o.name: o for o in schema}
    unknown = sorted(set(given) - set(known))
    if unknown:
        names = ", ".join(known) or "none"
        raise OptionError(f"{game} has no option {', '.join(map(repr, unknown))}; its options: {names}")
    return {name: (o.check(given[name]) if name in given else o.default) for name, o in known.items()}


def parse_assignments(
    schema: Sequence[Option], assignments: Iterable[str], *, game: str = "this game"
) -> dict[str, Any]:
    """Read ``["size=3", "start=lvlm"]`` against ``schema`` into typed values.

    Raises:
        OptionError: a malformed assignment, an unknown option or an invalid value.
    """
    known = {o.name: o for o in schema}
    values: dict[str, Any] = {}
    for item in assignments:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise OptionError(f"options are written key=value, not {item!r}")
        if name not in known:
            names = ", ".join(known) or "none"
            raise OptionError(f"{game} has no option {name!r}; its options: {names}")
        values[name] = known[name].parse(text)
    return values


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
