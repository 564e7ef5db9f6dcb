"""Controls a person uses for actions that are not a click on the board or a key.

Hold'em's bets and a bargaining offer are not places on a board. A state describes them as a
:class:`Panel` (``State.panel(seat)``): buttons that each send one action, and amounts (sliders or
number fields) that :attr:`Panel.compose` turns into one action when the person presses the submit
button. The desktop draws the panel under the board; the game's package decides what is on it, so the
view holds no rules. Qt-free.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from engine.core import Action

__all__ = ["Amount", "Button", "Panel"]


@dataclasses.dataclass(frozen=True, slots=True)
class Button:
    """A button that sends ``action``; drawn disabled when ``enabled`` is false."""

    label: str
    action: Action
    enabled: bool = True
    hint: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class Amount:
    """An integer the person picks between ``minimum`` and ``maximum``.

    With ``labels`` (one per value from ``minimum``) it is a slider over named stops ("Half pot",
    "Full pot", "All in"); otherwise a number field.
    """

    name: str
    label: str
    minimum: int
    maximum: int
    default: int
    labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.minimum <= self.default <= self.maximum:
            raise ValueError(f"amount {self.name!r}: default {self.default} is outside "
                             f"{self.minimum}..{self.maximum}")
        if self.labels and len(self.labels) != self.maximum - self.minimum + 1:
            raise ValueError(f"amount {self.name!r}: one label per value is needed")


@dataclasses.dataclass(frozen=True, slots=True)
class Panel:
    """What a person may do here beyond the board.

    Attributes:
        title: A heading ("Your bet", "Your offer").
        buttons: One-action buttons (Fold, Check and Call, Accept).
        amounts: The values the submit button sends, through ``compose``.
        submit: The submit button's label ("Raise", "Propose"); no submit button when empty.
        compose: Turns ``{amount name: value}`` into an action.
        summary: ``summary(values)`` describes the composed action before it is sent ("You keep 18,
            they get 12"), or ``None``.
    """

    title: str
    buttons: tuple[Button, ...] = ()
    amounts: tuple[Amount, ...] = ()
    submit: str = ""
    compose: Callable[[Mapping[str, int]], Action] | None = None
    summary: Callable[[Mapping[str, int]], str] | None = None

    def action_for(self, values: Mapping[str, int]) -> Action:
        """The action the submit button sends for ``values``.

        Raises:
            ValueError: the panel has no submit action.
        """
        if self.compose is None:
            raise ValueError(f"the panel {self.title!r} has no submit action")
        return self.compose(values)
