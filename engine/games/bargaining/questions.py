"""Bargaining's intermediate questions (GameBot): what the opponent's latest proposal is worth to me,
and what my own new proposal is worth to me. Both are exact integers (tolerance 0.5).

The first applies only when the opponent has made a proposal; the second is about the move the model
chose (``about_action``) and applies only when that move is a new, valid division (not ``Agree``).
Both oracles read the seat's own values from its view: the opponent's values are never needed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from engine.core import Action, Seat, State
from engine.games.bargaining.rules import (
    AGREE,
    TOTAL_VALUE,
    BargainingState,
    read_division,
    value_of,
)
from engine.questions import ACCURACY, Question

__all__ = ["QUESTIONS", "mistakes", "parse_total", "proposal_value", "offer_value"]

_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


def _state(view: State) -> BargainingState:
    if not isinstance(view, BargainingState):
        raise TypeError(f"not a bargaining state: {type(view).__name__}")
    return view


def _values(view: BargainingState, seat: Seat) -> tuple[int, int, int]:
    values = view.values[seat]
    if values is None:
        raise ValueError(f"this view does not know {seat}'s values")
    return values


def has_offer(view: State, seat: Seat) -> bool:
    """Whether the opponent has made a proposal ``seat`` could evaluate."""
    state = _state(view)
    return state.opponent_offer(seat) is not None and state.values[seat] is not None


def offer_value(view: State, seat: Seat) -> int:
    """Σ myValue_i × myShare_i over the opponent's latest proposal (GameBot's IR1)."""
    state = _state(view)
    index = state.opponent_offer(seat)
    if index is None:
        raise ValueError("the opponent has made no proposal yet")
    return value_of(_values(state, seat), state.share(index, seat))


def _valid_shares(view: BargainingState, action: Action | None) -> tuple[tuple[int, int, int], ...] | None:
    if action is None or action == AGREE:
        return None
    read = read_division(action)
    if read is None:
        return None
    first, second = read
    if tuple(x + y for x, y in zip(first, second, strict=True)) != view.pool:
        return None
    return read


def proposes(view: State, seat: Seat, action: Action | None) -> bool:
    """Whether ``action`` is a new, valid division (the only case GameBot scores IR2)."""
    state = _state(view)
    return state.values[seat] is not None and _valid_shares(state, action) is not None


def proposal_value(view: State, seat: Seat, action: Action | None) -> int:
    """Σ myValue_i × myShare_i over my own proposal ``action`` (GameBot's IR2)."""
    state = _state(view)
    shares = _valid_shares(state, action)
    if shares is None:
        raise ValueError(f"{action!r} is not a valid division of the pool")
    return value_of(_values(state, seat), shares[seat])


def parse_total(answer: str | None) -> float | None:
    """The total in an answer: the number itself (``"9"``), or the result of a written-out sum
    (``"2*2 + 5*1 + 0*1 = 9"`` → 9, the number after the last ``=``); ``None`` without a number."""
    if answer is None:
        return None
    text = answer.strip().strip(".*`'\"[]").replace(",", "")
    if "=" in text:
        text = text.rsplit("=", 1)[1]
    match = _NUMBER.search(text)
    return float(match.group(0)) if match else None


def mistakes(truth: int, values: Sequence[int], share: Sequence[int] | None) -> dict[str, int]:
    """The wrong totals a model plausibly writes, by kind: the other side's share valued with my
    values (``"side"``), one item's term left out (``"dropped"``), one item counted once too often or
    too rarely (``"miscount"``). Only kinds that differ from the truth are listed."""
    found: dict[str, int] = {}
    if share is not None:
        found["side"] = TOTAL_VALUE - truth
        terms = [v * s for v, s in zip(values, share, strict=True) if v * s > 0]
        if len(terms) > 1:
            found["dropped"] = truth - min(terms)
    steps = [v for v in values if v > 0]
    if steps:
        small = min(steps)
        found["miscount"] = truth + small if truth + small <= TOTAL_VALUE else truth - small
    return {kind: value for kind, value in found.items() if value != truth and value >= 0}


def _wrong_offer(truth: Any, view: State, seat: Seat, rng: random.Random) -> int:
    state = _state(view)
    index = state.opponent_offer(seat)
    share = state.share(index, seat) if index is not None else None
    options = mistakes(int(truth), _values(state, seat), share)
    return rng.choice(sorted(options.values())) if options else int(truth) + 1


def _wrong_proposal(truth: Any, view: State, seat: Seat, rng: random.Random) -> int:
    state = _state(view)
    options = mistakes(int(truth), _values(state, seat), None)
    options["side"] = TOTAL_VALUE - int(truth)
    choices = sorted(v for v in options.values() if v != int(truth))
    return rng.choice(choices) if choices else int(truth) + 1


QUESTIONS = (
    Question(
        1,
        "value of the opponent's latest proposal",
        offer_value,
        parse=parse_total,
        kind="number",
        metric=ACCURACY,
        tolerance=0.5,
        applies=has_offer,
        wrong=_wrong_offer,
    ),
    Question(
        2,
        "value of my proposal",
        proposal_value,
        parse=parse_total,
        kind="number",
        metric=ACCURACY,
        tolerance=0.5,
        applies=proposes,
        wrong=_wrong_proposal,
        about_action=True,
    ),
)
