"""Hold'em renderer: golden pictures (a seat's pre-flop view, a river showdown, a hand of a mirrored
match), privacy and speed."""

from __future__ import annotations

import numpy as np

import engine
import renderers
from tests.renderers.render_helpers import pixels
from tests.renderers.test_golden import Case, check_golden, matches


def _hand(seed: int, actions: tuple[str, ...], seat: int | None, **options: object) -> object:
    state = engine.make("holdem", **options).initial_state(seed=seed)
    for action in actions:
        state = state.apply(action)
    return state if seat is None else state.observe(seat)


CASES = [
    Case("holdem-preflop", "holdem", lambda: _hand(3, ("Raise Full Pot",), 1), (512, 512)),
    Case(
        "holdem-river-showdown",
        "holdem",
        lambda: _hand(3, ("Check and Call", "Check and Call", "Check and Call", "Raise Half Pot",
                          "Check and Call", "Check and Call", "Check and Call", "Raise Full Pot",
                          "Check and Call"), 0),
        (512, 512),
    ),
    # A mirrored match, hand 4 (deal 2 played again with the seats swapped): the match line and how the
    # last hand went are written above the table.
    Case(
        "holdem-match",
        "holdem",
        lambda: _hand(5, ("Raise Full Pot", "Fold", "Check and Call", "Raise Half Pot", "Fold",
                          "All in", "Fold", "Check and Call"), 0, hands=40, mirrored=True),
        (512, 512),
    ),
]


def test_goldens() -> None:
    for case in CASES:
        check_golden(case.render(), case.name)


def test_a_seat_sees_its_own_cards_only() -> None:
    r = renderers.get("holdem")
    state = _hand(3, ("Check and Call",), None)
    data = state.to_json()
    spare = [c for c in ("As", "Ks", "Qs", "Js", "Ts", "9s") if c not in data["cards"]][:2]
    swapped = engine.make("holdem").state_from_json({**data, "cards": [*data["cards"][:2], *spare,
                                                                        *data["cards"][4:]]})
    # Seat 0's picture does not change when seat 1's hidden cards do; seat 1's does.
    assert np.array_equal(pixels(r.render(state.observe(0), 320, 320)),
                          pixels(r.render(swapped.observe(0), 320, 320)))
    assert not matches(r.render(state.observe(1), 320, 320), r.render(swapped.observe(1), 320, 320))
