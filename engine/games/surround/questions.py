"""Surround's intermediate questions (GameBot), their oracles, answer parsers and typical mistakes.

1. The values of the four cells around your current position, written ``Up X, Down X, Left X,
   Right X`` (−1 off the grid). Correct only when all four match (accuracy).
2. Every valid move (its neighbour is empty, value 0): ``Move Down, Move Left`` or ``None``;
   exact set match (accuracy).
3. For each valid move, Safe or Unsafe: the empty region entered there (4-connected 0-cells, the
   destination included) holds at least 10 cells: ``Move Right Unsafe, Move Left Safe``; exact set
   match (accuracy).

Every oracle reads the matrix as the asking seat sees it (:meth:`SurroundState.matrix`).
"""

from __future__ import annotations

import random
import re
from typing import Any

from engine.core import Seat, State
from engine.games.surround.board import (
    EMPTY,
    MOVES,
    SAFE_CELLS,
    WALL,
    YOUR_LAST,
    Matrix,
    flood_count,
    neighbour,
    neighbour_values,
)
from engine.games.surround.rules import SurroundState
from engine.questions import ACCURACY, Question

__all__ = [
    "QUESTIONS",
    "format_neighbours",
    "move_item",
    "neighbours",
    "parse_neighbours",
    "parse_safety",
    "parse_valid_moves",
    "safe_moves",
    "safety",
    "valid_moves",
]

_NEIGHBOUR = re.compile(
    r"\b(up|down|left|right)\b[ \t]*(?:\([ \t]*\d+[ \t]*,[ \t]*\d+[ \t]*\))?[ \t]*[:=]?[ \t]*(-?\d+)",
    re.IGNORECASE,
)
_MOVE = re.compile(r"\b(?:move[ \t]*)?(up|down|left|right)\b", re.IGNORECASE)
_VERDICT = re.compile(
    r"\b(?:move[ \t]*)?(up|down|left|right)\b[ \t]*(?:[:=\-–(]|is)*[ \t]*(unsafe|safe)\b", re.IGNORECASE
)
_NONE = re.compile(r"(none|no valid (moves?|actions?)|no moves?|empty|nothing|-)", re.IGNORECASE)


def _state(view: State) -> SurroundState:
    if not isinstance(view, SurroundState):
        raise TypeError(f"not a Surround state: {type(view).__name__}")
    return view


def move_item(move: str, verdict: str = "") -> str:
    """``"Move Up"``, or ``"Move Up Safe"`` with a verdict."""
    return f"Move {move.capitalize()}" + (f" {verdict}" if verdict else "")


def format_neighbours(values: dict[str, int]) -> str:
    """``"Up 1, Down 0, Left 0, Right 2"``."""
    return ", ".join(f"{m.capitalize()} {values[m]}" for m in MOVES)


# -- oracles ------------------------------------------------------------------------------------------


def neighbours(view: State, seat: Seat) -> str:
    """Question 1's truth: the four neighbour values of ``seat``'s current position."""
    state = _state(view)
    return format_neighbours(neighbour_values(state.matrix(seat), state.head(seat)))


def valid_moves(view: State, seat: Seat) -> list[str]:
    """Question 2's truth: ``"Move X"`` for every empty neighbour, in Up, Down, Left, Right order."""
    state = _state(view)
    values = neighbour_values(state.matrix(seat), state.head(seat))
    return [move_item(m) for m in MOVES if values[m] == EMPTY]


def safety(matrix: Matrix, head: tuple[int, int]) -> dict[str, int]:
    """The size of the empty region each valid move enters, by move (valid moves only)."""
    return {
        m: flood_count(matrix, neighbour(head, m))
        for m in MOVES
        if flood_count(matrix, neighbour(head, m), 1) > 0
    }


def safe_moves(view: State, seat: Seat) -> list[str]:
    """Question 3's truth: ``"Move X Safe"`` or ``"Move X Unsafe"`` for every valid move."""
    state = _state(view)
    sizes = safety(state.matrix(seat), state.head(seat))
    return [move_item(m, "Safe" if n >= SAFE_CELLS else "Unsafe") for m, n in sizes.items()]


# -- parsers ------------------------------------------------------------------------------------------


def _clean(answer: str | None) -> str | None:
    if answer is None:
        return None
    text = answer.strip().strip(".*`'\"[]").strip()
    return text or None


def parse_neighbours(answer: str | None) -> str | None:
    """Read ``"Up 1, Down 0, Left 0, Right 2"`` in any order, spacing or case (``"up: 1"``, ``"Up
    (9,15): 1"`` too) as ``"up 1, down 0, left 0, right 2"``; ``None`` unless all four are given."""
    text = _clean(answer)
    if text is None:
        return None
    found: dict[str, int] = {}
    for match in _NEIGHBOUR.finditer(text):
        found.setdefault(match.group(1).lower(), int(match.group(2)))
    if set(found) != set(MOVES):
        return None
    return ", ".join(f"{m} {found[m]}" for m in MOVES)


def parse_valid_moves(answer: str | None) -> set[str] | None:
    """Read ``"Move Down, Move Left"`` (or bare ``"Down, Left"``) as ``{"Move Down", "Move Left"}``;
    ``"None"`` is the empty set; anything else is a format error (``None``)."""
    text = _clean(answer)
    if text is None:
        return None
    moves = {move_item(m.group(1).lower()) for m in _MOVE.finditer(text)}
    if moves:
        return moves
    return set() if _NONE.fullmatch(text) else None


def parse_safety(answer: str | None) -> set[str] | None:
    """Read ``"Move Right Unsafe, Move Left Safe"`` (``"Right: unsafe"`` too) as a set of items;
    ``"None"`` is the empty set; anything else is a format error (``None``)."""
    text = _clean(answer)
    if text is None:
        return None
    items = {move_item(m.group(1).lower(), m.group(2).capitalize()) for m in _VERDICT.finditer(text)}
    if items:
        return items
    return set() if _NONE.fullmatch(text) else None


# -- plausible mistakes (for the simulated model) -------------------------------------------------------


def misread(values: dict[str, int], rng: random.Random) -> dict[str, int]:
    """Neighbour values as a model gets them wrong: Up and Down swapped (rows counted the wrong way),
    a wall or its own last cell read as empty, or an empty cell read as a wall."""
    out = dict(values)
    ways = []
    if values["up"] != values["down"]:
        ways.append("swap")
    blocked = [m for m in MOVES if values[m] not in (EMPTY, -1)]
    empty = [m for m in MOVES if values[m] == EMPTY]
    if blocked:
        ways.append("blocked")
    if empty:
        ways.append("empty")
    way = rng.choice(ways) if ways else ""
    if way == "swap":
        out["up"], out["down"] = values["down"], values["up"]
    elif way == "blocked":
        prefer = [m for m in blocked if values[m] == YOUR_LAST] if rng.random() < 0.5 else []
        out[rng.choice(prefer or blocked)] = EMPTY
    elif way == "empty":
        out[rng.choice(empty)] = WALL
    return out


def _wrong_neighbours(truth: Any, view: State, seat: Seat, rng: random.Random) -> str:
    state = _state(view)
    return format_neighbours(misread(neighbour_values(state.matrix(seat), state.head(seat)), rng))


def _wrong_valid(truth: Any, view: State, seat: Seat, rng: random.Random) -> list[str]:
    items = list(truth)
    blocked = [move_item(m) for m in MOVES if move_item(m) not in items]
    if items and (not blocked or rng.random() < 0.5):
        items.remove(rng.choice(items))
    elif blocked:
        items.append(rng.choice(blocked))
    return items


def _wrong_safety(truth: Any, view: State, seat: Seat, rng: random.Random) -> list[str]:
    items = list(truth)
    if not items:
        return [move_item(rng.choice(MOVES), "Safe")]
    i = rng.randrange(len(items))
    flipped = (
        items[i].replace(" Unsafe", " Safe")
        if items[i].endswith("Unsafe")
        else items[i].replace(" Safe", " Unsafe")
    )
    items[i] = flipped
    return items


QUESTIONS = (
    Question(
        1,
        "neighbour values",
        neighbours,
        parse=parse_neighbours,
        kind="value",
        metric=ACCURACY,
        wrong=_wrong_neighbours,
    ),
    Question(
        2,
        "valid moves",
        valid_moves,
        parse=parse_valid_moves,
        kind="set",
        metric=ACCURACY,
        wrong=_wrong_valid,
    ),
    Question(
        3, "safe moves", safe_moves, parse=parse_safety, kind="set", metric=ACCURACY, wrong=_wrong_safety
    ),
)
