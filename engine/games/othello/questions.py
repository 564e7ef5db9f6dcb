"""Othello's intermediate questions (GameBot): can I take a corner now, and which moves make a wedge.

Both oracles read the board only, for ``seat``'s colour, whoever is to move. The wedge definition
follows the state's ``wedge`` option (see :func:`engine.games.othello.rules.wedge_moves`). Answers
to the wedge question are read leniently: ``(D, 3)``, ``(D,3)``, ``D3`` and ``None`` all count.
"""

from __future__ import annotations

import random
import re
from typing import Any

from engine.core import Seat, State
from engine.games.othello.rules import (
    ACTIONS,
    CORNERS,
    EDGE_MASK,
    OthelloState,
    bits_of,
    legal_mask,
    wedge_moves,
)
from engine.questions import F1, Question, format_items

__all__ = ["QUESTIONS", "corner_available", "parse_cells", "wedges"]

_CELL = re.compile(r"(?<![A-Za-z])\(?\s*([A-Ha-h])\s*[,\s]?\s*([1-8])(?!\d)")
_NONE = re.compile(r"(none|no(ne)?\s*(wedges?|moves?|such\s+moves?)?|empty|nothing|-|\[\s*\])", re.IGNORECASE)


def _board(state: State) -> OthelloState:
    if not isinstance(state, OthelloState):
        raise TypeError(f"not an Othello state: {type(state).__name__}")
    return state


def corner_available(state: State, seat: Seat) -> bool:
    """Whether one of ``seat``'s legal moves is a corner (A1, H1, A8 or H8)."""
    board = _board(state)
    moves = board.moves_mask(seat)
    return any(moves >> c & 1 for c in CORNERS)


def wedges(state: State, seat: Seat) -> list[str]:
    """``seat``'s legal moves that create a wedge, in reading order."""
    board = _board(state)
    return wedge_moves(board.discs(seat), board.discs(1 - seat), board.wedge)


def parse_cells(answer: str | None) -> set[str] | None:
    """Read ``"(D,1), (E, 8)"``, ``"D1 E8"`` or ``"None"`` as a set of cells; ``None`` when unreadable."""
    if answer is None:
        return None
    text = answer.strip().strip(".*`'\"").strip()
    if not text:
        return None
    cells = {f"({m.group(1).upper()},{m.group(2)})" for m in _CELL.finditer(text)}
    if cells:
        return cells
    if _NONE.fullmatch(text.strip("[] ")) or _NONE.fullmatch(text):
        return set()
    return None


def phantom_wedges(state: OthelloState, seat: Seat) -> list[str]:
    """Cells a model could wrongly call wedges: legal edge moves beside an opposing edge disc (one side
    only), and empty edge squares between opposing discs that are not legal moves."""
    own, opp = state.discs(seat), state.discs(1 - seat)
    legal = legal_mask(own, opp)
    truth = set(wedge_moves(own, opp, state.wedge))
    occupied = own | opp
    found = []
    for index in bits_of(EDGE_MASK & ~occupied):
        row, col = divmod(index, 8)
        if row in (0, 7):
            sides = [index - 1, index + 1]
        else:
            sides = [index - 8, index + 8]
        opposing = sum(1 for s in sides if opp >> s & 1)
        beside = (legal >> index & 1 and opposing == 1) or (not legal >> index & 1 and opposing == 2)
        if beside and ACTIONS[index] not in truth:
            found.append(ACTIONS[index])
    return found


def wrong_wedges(truth: list[str], view: State, seat: Seat, rng: random.Random) -> list[str]:
    """A believable wrong wedge list: one real wedge missed, or a phantom added (see
    :func:`phantom_wedges`); the truth when neither is possible."""
    board = _board(view)
    ghosts = phantom_wedges(board, seat)
    ways = (["missed"] if truth else []) + (["phantom"] if ghosts else [])
    if not ways:
        return list(truth)
    if rng.choice(ways) == "missed":
        lost = rng.choice(truth)
        return [a for a in truth if a != lost]
    seen = {*truth, rng.choice(ghosts)}
    return [a for a in ACTIONS if a in seen]


def _wrong_corner(truth: Any, view: State, seat: Seat, rng: random.Random) -> bool:
    return not truth


QUESTIONS = (
    Question(1, "corner move available", corner_available, kind="bool", metric=F1, wrong=_wrong_corner),
    Question(
        2,
        "wedge moves",
        wedges,
        kind="set",
        metric=F1,
        parse=parse_cells,
        write=format_items,
        wrong=wrong_wedges,
    ),
)
