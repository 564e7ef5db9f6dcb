"""Tic-tac-toe, as GameBot plays it.

X (seat 0) moves first, O (seat 1) second. Actions are zero-based cells written ``"(r,c)"``.
Three in a row, column or diagonal wins; a full board without a line is a draw. The ``first`` option
``o`` plays LVLM-Playground's end-to-end game, where the model is O and O moves first: seat 0 is then
O and moves first, seat 1 is X.

Besides the rules this module holds the ground-truth oracle for GameBot's intermediate questions
("all my winning moves", "all the opponent's winning moves"): :func:`winning_moves`.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.core import (
    Action,
    Game,
    IllegalActionError,
    InvalidActionError,
    JsonDict,
    Seat,
    State,
    seats_of,
)
from engine.games._common import one_action, reading_state, two_player_scores
from engine.options import Option

MARKS: tuple[str, str] = ("X", "O")
#: Every line of three cells (row-major indices): rows, columns, then the two diagonals.
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)
ACTIONS: tuple[Action, ...] = tuple(f"({i // 3},{i % 3})" for i in range(9))


def action_of(index: int) -> Action:
    """The canonical action for a cell index (0..8, row-major): ``4 -> "(1,1)"``."""
    return ACTIONS[index]


def index_of(action: Action) -> int:
    """The cell index of a canonical action: ``"(1,1)" -> 4``.

    Raises:
        InvalidActionError: ``action`` is not a canonical cell.
    """
    try:
        return ACTIONS.index(action.replace(" ", ""))
    except ValueError:
        raise InvalidActionError(f"{action!r} is not a cell; cells are written (row,col) with 0..2") from None


#: The ways a board can be drawn (the ``style`` option).
STYLES = ("gamebot", "lvlm")


@functools.lru_cache(maxsize=8192)  # a game has 5,478 positions: each is judged once
def line_winner(cells: tuple[str, ...]) -> tuple[str, tuple[int, int, int]] | None:
    """The mark and line of a completed three in a row, if any."""
    for line in LINES:
        a, b, c = line
        if cells[a] and cells[a] == cells[b] == cells[c]:
            return cells[a], line
    return None


def winning_moves(state: TicTacToeState | tuple[str, ...], mark: str) -> list[Action]:
    """Every empty cell that would complete three in a row for ``mark`` (GameBot's ground truth).

    This looks at the board only, whoever is to move: "the opponent's winning moves" are the cells
    the opponent would win with if it were its turn. Actions are in reading order.
    """
    cells = state.cells if isinstance(state, TicTacToeState) else state
    if mark not in MARKS:
        raise ValueError(f"mark must be 'X' or 'O', not {mark!r}")
    found = []
    for i in range(9):
        if cells[i]:
            continue
        for line in LINES:
            if i in line and all(cells[j] == mark for j in line if j != i):
                found.append(action_of(i))
                break
    return found


@dataclasses.dataclass(frozen=True, slots=True)
class TicTacToeState(State):
    """A tic-tac-toe position.

    Attributes:
        cells: nine entries ``"X"``, ``"O"`` or ``""``, row-major (index = 3 * row + col).
        last_action: the move that led here, or ``None`` at the start.
        marks: the marks of seat 0 (who moves first) and seat 1: ``("X", "O")``, or ``("O", "X")``
            with the ``first=o`` option.
    """

    game_id: ClassVar[str] = "tictactoe"

    cells: tuple[str, ...] = ("",) * 9
    last_action: Action | None = None
    marks: tuple[str, str] = MARKS

    @property
    def step(self) -> int:
        return sum(1 for v in self.cells if v)

    @property
    def mover(self) -> Seat:
        """The seat whose turn it is by count of marks (meaningful while the game is on)."""
        return 0 if self.cells.count(self.marks[0]) == self.cells.count(self.marks[1]) else 1

    @property
    def to_act(self) -> tuple[Seat, ...]:
        if line_winner(self.cells) is not None or all(self.cells):
            return ()
        return (self.mover,)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        to_act = self.to_act
        if not to_act or (seat is not None and seat not in to_act):
            return []
        return [ACTIONS[i] for i in range(9) if not self.cells[i]]

    def apply(self, action: Action | Mapping[Seat, Action]) -> TicTacToeState:
        if isinstance(action, Mapping):
            action = one_action(action, "tic-tac-toe", self.to_act)
        index = index_of(action)
        if self.is_over:
            raise IllegalActionError(f"the game is over; {action!r} cannot be played")
        if self.cells[index]:
            raise IllegalActionError(f"{ACTIONS[index]} is already taken by {self.cells[index]}")
        cells = list(self.cells)
        cells[index] = self.marks[self.mover]
        return type(self)(cells=tuple(cells), last_action=ACTIONS[index], marks=self.marks)

    def winning_line(self) -> tuple[int, int, int] | None:
        """The cell indices of the completed line, or ``None``."""
        won = line_winner(self.cells)
        return won[1] if won else None

    @property
    def winner(self) -> Seat | None:
        won = line_winner(self.cells)
        return self.marks.index(won[0]) if won else None

    @property
    def scores(self) -> tuple[float, ...]:
        return two_player_scores(self.winner, all(self.cells))

    # -- text views --------------------------------------------------------------------------

    def gamebot_text(self) -> str:
        """GameBot's board: ``(0,0):_ (0,1):X (0,2):_`` per row."""
        return "\n".join(
            " ".join(f"({r},{c}):{self.cells[3 * r + c] or '_'}" for c in range(3)) for r in range(3)
        )

    def grid_text(self) -> str:
        """A plain 3x3 grid with ``_`` for empty cells."""
        rows = [" " + " | ".join(self.cells[3 * r + c] or "_" for c in range(3)) for r in range(3)]
        return "\n---+---+---\n".join(rows)

    def status_text(self) -> str:
        if self.winner is not None:
            return f"{self.marks[self.winner]} wins."
        if self.is_over:
            return "Draw."
        return f"{self.marks[self.mover]} to move."

    def text(self, seat: Seat | None = None) -> str:
        lines = ["Current Game Board:", self.gamebot_text(), "", self.grid_text(), ""]
        if seat is not None and not self.is_over:
            lines.append(f"You are playing {self.marks[seat]}.")
        lines.append(self.status_text())
        return "\n".join(lines)

    def metrics(self) -> dict[str, float]:
        """LVLM-Playground's end-to-end points for the first seat (the model's, in the paper):
        10 per mark it placed, plus 50 for a win or 20 for a draw."""
        bonus = (50 if self.winner == 0 else 20 if self.winner is None else 0) if self.is_over else 0
        return {"lvlm_points": float(10 * self.cells.count(self.marks[0]) + bonus)}

    def to_json(self) -> JsonDict:
        data: JsonDict = {"game": self.game_id, "cells": list(self.cells), "last_action": self.last_action}
        if getattr(self, "lvlm_style", False):
            data["style"] = "lvlm"
        if self.marks != MARKS:
            data["first"] = "o"
        return data


@dataclasses.dataclass(frozen=True, slots=True)
class LvlmBoard(TicTacToeState):
    """A position drawn in LVLM-Playground's style (X red, O blue, rows A-C and columns 1-3 on the
    image), for its task boards and the ``style="lvlm"`` option; the rules are tic-tac-toe's."""

    lvlm_style: ClassVar[bool] = True

    def text(self, seat: Seat | None = None) -> str:
        """The board with LVLM-Playground's cell names (``A1`` top left, ``C3`` bottom right)."""
        rows = [" ".join(f"{'ABC'[r]}{c + 1}:{self.cells[3 * r + c] or '_'}" for c in range(3))
                for r in range(3)]
        lines = ["Current Game Board:", *rows, "", self.grid_text(), ""]
        if seat is not None and not self.is_over:
            lines.append(f"You are playing {self.marks[seat]}.")
        lines.append(self.status_text())
        return "\n".join(lines)


_PAIR = re.compile(r"(\d+)\s*[,;\s]\s*(\d+)")
_ROW_COL = re.compile(r"row\s*:?\s*(\d+)\D{0,12}?col(?:umn)?\s*:?\s*(\d+)")
_CHOSEN = re.compile(r"chosen\s+move|move\s*:")

_RULES = """\
Tic-tac-toe on a 3x3 grid. {first} moves first, then the players alternate, each placing their mark in an
empty cell. Three of your marks in a row, column or diagonal win. A full board without a line is a draw.
Cells are written (row,col) with zero-based coordinates: (0,0) is the top-left corner, (1,1) the centre,
(2,2) the bottom-right corner. Answer with the cell you choose, for example (1,1)."""
#: LVLM-Playground's wording (the ``lvlm`` style): the rules its end-to-end prompt gives.
_LVLM_RULES = (
    "The players take turns placing their mark in an empty cell; {first} moves first. Three of your marks "
    "in a row, a column or a diagonal win; a full grid without such a line is a draw. You can only play "
    "an empty cell."
)
#: The ``first`` option's values.
FIRSTS = ("x", "o")


class TicTacToe(Game):
    """Tic-tac-toe (GameBot, LVLM-Playground)."""

    id: ClassVar[str] = "tictactoe"
    title: ClassVar[str] = "Tic-tac-toe"
    suites: ClassVar[tuple[str, ...]] = ("gamebot", "lvlm")
    description: ClassVar[str] = "Three in a row on a 3x3 grid; X moves first (O with the first=o option)."
    seats = seats_of(["X", "O"])
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    #: Keys 1..9 in reading order, like a phone keypad: 1 = (0,0), 9 = (2,2).
    keymap: ClassVar[Mapping[str, Action]] = {str(i + 1): ACTIONS[i] for i in range(9)}
    controls: ClassVar[str] = "Click a cell or press 1–9 (reading order)"
    max_episode_steps: ClassVar[int | None] = 9
    bots: ClassVar[Mapping[str, str]] = {"minimax": ".bots:MinimaxBot"}
    default_opponent: ClassVar[str] = "minimax"
    sim_behaviour: ClassVar[str | None] = ".sim:TicTacToeSim"
    questions: ClassVar[str | None] = ".questions:QUESTIONS"
    extractor: ClassVar[str | None] = ".answers:extract_move"
    observation: ClassVar[str | None] = ".gym:BoardObservation"
    tasks: ClassVar[str | None] = ".lvlm"
    default_prompt: ClassVar[str] = "cot"
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option("style", str, "gamebot", "How the board is drawn: gamebot (coordinates (r,c) from 0) or "
               "lvlm (LVLM-Playground's: X red, O blue, rows A-C and columns 1-3; prompt variant lvlm)",
               choices=STYLES),
        Option("first", str, "x", "Which mark moves first (seat 0 plays it): x, or o as in LVLM-Playground's "
               "end-to-end game, where the model is O and moves first (with style lvlm and prompt "
               "variant lvlm)",
               choices=FIRSTS),
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.marks: tuple[str, str] = ("O", "X") if self.options["first"] == "o" else MARKS
        if self.marks != MARKS:
            self.seats = seats_of(list(self.marks))  # type: ignore[misc]

    def initial_state(self, seed: int | None = None) -> TicTacToeState:
        kind = LvlmBoard if self.options["style"] == "lvlm" else TicTacToeState
        return kind(marks=self.marks)

    def rules_text(self) -> str:
        if self.options["style"] == "lvlm":
            return _LVLM_RULES.format(first=self.marks[0])
        return _RULES.format(first=self.marks[0])

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read a cell from ``"(1, 1)"``, ``"1,1"``, ``"row 1 col 1"`` or ``"Chosen Move: (1,1)"``.

        When the text names several different cells, the one after the last "Chosen Move:" (or
        "move:") wins; without such a marker the text is ambiguous.

        Raises:
            InvalidActionError: no cell, an ambiguous answer, or coordinates outside 0..2.
            IllegalActionError: the cell is taken, the game is over or ``seat`` is not to move.
        """
        lowered = text.lower()
        markers = list(_CHOSEN.finditer(lowered))
        marker = markers[-1] if markers else None
        if marker is not None and _find_pairs(lowered[marker.end() :]):
            lowered = lowered[marker.end() :]
            pairs = _find_pairs(lowered)[:1]
        else:
            pairs = _find_pairs(lowered)
        distinct = list(dict.fromkeys(pairs))
        if not distinct:
            raise InvalidActionError(f"{text!r} names no cell; write (row,col) with 0..2, e.g. (1,1)")
        if len(distinct) > 1:
            shown = ", ".join(f"({r},{c})" for r, c in distinct)
            raise InvalidActionError(f"{text!r} names several cells ({shown}); choose one")
        r, c = distinct[0]
        if not (0 <= r <= 2 and 0 <= c <= 2):
            raise InvalidActionError(f"({r},{c}) is off the board; rows and columns are 0..2")
        action = f"({r},{c})"
        if action not in state.legal_actions(seat):
            if state.is_over:
                raise IllegalActionError(f"the game is over; {action} cannot be played")
            assert isinstance(state, TicTacToeState)
            taken = state.cells[3 * r + c]
            if taken:
                raise IllegalActionError(f"{action} is already taken by {taken}")
            raise IllegalActionError(f"seat {seat} is not to move")
        return action

    def state_from_json(self, data: JsonDict) -> TicTacToeState:
        with reading_state(data, "tictactoe", "tic-tac-toe"):
            cells = data["cells"]
            if not isinstance(cells, list) or len(cells) != 9 or any(v not in ("", "X", "O") for v in cells):
                raise ValueError('cells must be 9 entries of "X", "O" or ""')
            first = data.get("first", "x")
            if first not in FIRSTS:
                raise ValueError(f"first must be one of {', '.join(FIRSTS)}, not {first!r}")
            marks = ("O", "X") if first == "o" else MARKS
            a, b = cells.count(marks[0]), cells.count(marks[1])
            if not (a == b or a == b + 1):
                raise ValueError(
                    f"{a} {marks[0]} and {b} {marks[1]} cannot occur "
                    f"({marks[0]} moves first, players alternate)"
                )
            last_action = data.get("last_action")
            if last_action is not None and (
                last_action not in ACTIONS or not cells[ACTIONS.index(last_action)]
            ):
                raise ValueError(f"last_action {last_action!r} is not an occupied cell")
            style = data.get("style", "gamebot")
            if style not in STYLES:
                raise ValueError(f"style must be one of {', '.join(STYLES)}, not {style!r}")
        kind = LvlmBoard if style == "lvlm" else TicTacToeState
        return kind(cells=tuple(cells), last_action=last_action, marks=marks)


def _find_pairs(text: str) -> list[tuple[int, int]]:
    """Coordinate pairs in reading order: ``row r col c`` forms first, else ``r,c`` / ``(r, c)`` forms."""
    found = [(int(m.group(1)), int(m.group(2))) for m in _ROW_COL.finditer(text)]
    if found:
        return found
    return [(int(m.group(1)), int(m.group(2))) for m in _PAIR.finditer(text)]
