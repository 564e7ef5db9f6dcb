"""Hold'em's intermediate questions (GameBot): the pre-flop win probability and the best hand rank.

1. **Pre-flop win probability** (pre-flop only): the paper's table value for the two hole cards, in
   percent. The key is the higher rank, the lower rank (``T`` for ten), plus ``s`` / ``o`` when the
   table has that entry, else the generic ``XY``; pairs are ``XX``. The truth is one number: the
   suited / offsuit value when the table has it, otherwise the generic value. (GameBot's code also
   accepted the generic value for a hand that has an s/o entry; our cot prompt states the rule, so
   only the specific value counts.) Correct within 0.1 percentage points either way, |answer − truth|
   < 0.1: the reference's missing ``abs()`` let any lower number pass, which is not copied. An answer
   written as a fraction (``0.357``) is read as percent: every table value is above 29%.
2. **Best hand rank** (flop, turn, river): 1 = royal flush … 10 = high card, over the best five of
   the seven cards, by pokerkit's evaluator, with the royal flush as 1 and A-2-3-4-5 a straight (the
   reference code never returned 1 and missed the wheel). An integer; correct within 0.5.

Both oracles read only the seat's view: its own hole cards and the board.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Seat, State
from engine.games.holdem.cards import HAND_NAMES, hand_rank, preflop_keys, preflop_win, rank_of_words
from engine.games.holdem.preflop import PREFLOP_WIN
from engine.games.holdem.rules import HoldemState
from engine.questions import ACCURACY, Question, format_number, parse_number

__all__ = ["QUESTIONS", "best_rank", "parse_probability", "parse_rank", "win_probability"]


def _view(state: State, seat: Seat) -> tuple[HoldemState, tuple[str, ...]]:
    if not isinstance(state, HoldemState):
        raise TypeError(f"not a hold'em state: {type(state).__name__}")
    hole = state.hole(seat)
    if hole is None:
        raise ValueError(f"seat {seat}'s hole cards are not visible in this state")
    return state, hole


def win_probability(state: State, seat: Seat) -> float:
    """The table's pre-flop win probability (percent) of ``seat``'s hole cards."""
    return preflop_win(_view(state, seat)[1])


def best_rank(state: State, seat: Seat) -> int:
    """GameBot's rank (1-10) of ``seat``'s best five-card hand with the board."""
    view, hole = _view(state, seat)
    return hand_rank(hole, view.board)


def _preflop(state: State, seat: Seat) -> bool:
    return isinstance(state, HoldemState) and not state.board


def _postflop(state: State, seat: Seat) -> bool:
    return isinstance(state, HoldemState) and bool(state.board)


def parse_probability(answer: str | None) -> float | None:
    """``"35.7%"`` → 35.7; ``"0.357"`` (a fraction, no percent sign) → 35.7."""
    value = parse_number(answer)
    if value is None or answer is None:
        return None
    if "%" not in answer and 0 < value <= 1:
        return round(value * 100, 4)
    return value


def parse_rank(answer: str | None) -> float | None:
    """``"8"``, ``"8 (Two Pair)"`` → 8; a hand's name alone (``"Two Pair"``) → its rank."""
    value = parse_number(answer)
    if value is not None:
        return value
    named = rank_of_words(answer or "")
    return float(named) if named is not None else None


def _write_probability(value: Any) -> str:
    return f"{float(value):.1f}%"


def _write_rank(value: Any) -> str:
    return format_number(float(value))


def _wrong_probability(truth: Any, state: State, seat: Seat, rng: random.Random) -> float:
    """A lookup slip: the generic entry for a hand with an s/o entry, or a neighbouring key's value
    (the kicker misread by one rank)."""
    _view_state, hole = _view(state, seat)
    specific, generic = preflop_keys(hole)
    if specific != generic and specific in PREFLOP_WIN and PREFLOP_WIN[generic] != truth:
        return PREFLOP_WIN[generic]
    ranks = "23456789TJQKA"
    high, low = generic[0], generic[1]
    options = []
    for shift in (-1, 1):
        i = ranks.index(low) + shift
        if 0 <= i < len(ranks):
            if ranks[i] == high:
                key = high * 2
            else:
                key = high + ranks[i] if ranks.index(high) > i else ranks[i] + high
            if key in PREFLOP_WIN and PREFLOP_WIN[key] != truth:
                options.append(PREFLOP_WIN[key])
    return rng.choice(options) if options else float(truth) + rng.choice([-2.0, 2.0])


def _wrong_rank(truth: Any, state: State, seat: Seat, rng: random.Random) -> int:
    """A misread hand: one rank better (a flush or straight seen that is not there) or worse (a pair
    or set missed)."""
    rank = int(truth)
    options = [r for r in (rank - 1, rank + 1) if 1 <= r <= 10 and r != 1]
    return rng.choice(options) if options else 9


QUESTIONS = (
    Question(
        1,
        "pre-flop win probability",
        win_probability,
        parse=parse_probability,
        write=_write_probability,
        kind="number",
        metric=ACCURACY,
        tolerance=0.1,
        applies=_preflop,
        wrong=_wrong_probability,
    ),
    Question(
        2,
        "best hand rank (1-10)",
        best_rank,
        parse=parse_rank,
        write=_write_rank,
        kind="number",
        metric=ACCURACY,
        tolerance=0.5,
        applies=_postflop,
        wrong=_wrong_rank,
    ),
)

#: The hand names by rank, for prompts and the simulated model.
RANK_NAMES = HAND_NAMES
