"""Connect Four, as GameBot plays it.

Six rows by seven columns; X (seat 0) moves first, O (seat 1) second. A disc drops to the lowest empty
cell of its column. Following GameBot, cells are written ``"(r,c)"`` with **row 0 at the bottom** and
row 5 at the top, and an action is the cell where the disc lands (the lowest empty cell of a column
that is not full). Four in a row, column or diagonal wins; a full board without one is a draw.

Besides the rules this module holds the ground-truth oracle for GameBot's intermediate questions
("all my winning moves", "all the opponent's winning moves", both among the cells that can be played
now): :func:`winning_moves`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import ClassVar

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

ROWS = 6
COLS = 7
MARKS: tuple[str, str] = ("X", "O")
#: Every cell as an action, row-major from the bottom row: index = 7 * row + col.
ACTIONS: tuple[Action, ...] = tuple(f"({i // COLS},{i % COLS})" for i in range(ROWS * COLS))
#: The four directions a line can run in: along a row, up a column, and the two diagonals.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (1, -1))
#: Every line of four cells (indices), for full-board scans.
LINES: tuple[tuple[int, int, int, int], ...] = tuple(
    tuple((r + k * dr) * COLS + (c + k * dc) for k in range(4))  # type: ignore[misc]
    for r in range(ROWS)
    for c in range(COLS)
    for dr, dc in DIRECTIONS
    if 0 <= r + 3 * dr < ROWS and 0 <= c + 3 * dc < COLS
)

_CELL = re.compile(r"^\(\s*(\d+)\s*,\s*(\d+)\s*\)$")


def action_of(row: int, col: int) -> Action:
    """The action naming cell (``row``, ``col``): ``(0, 3) -> "(0,3)"``."""
    return f"({row},{col})"


def cell_of(action: Action) -> tuple[int, int]:
    """``"(r,c)"`` (spaces forgiven) to ``(r, c)``.

    Raises:
        InvalidActionError: not a cell of the 6x7 board.
    """
    match = _CELL.match(action.strip())
    if not match:
        raise InvalidActionError(
            f"{action!r} is not a cell; cells are written (row,col), row 0 at the bottom"
        )
    r, c = int(match.group(1)), int(match.group(2))
    if not (0 <= r < ROWS and 0 <= c < COLS):
        raise InvalidActionError(f"({r},{c}) is off the board; rows are 0..5 (0 = bottom), columns 0..6")
    return r, c


def heights(cells: Sequence[str]) -> tuple[int, ...]:
    """How many discs each column holds (the row of its playable cell; 6 when full)."""
    out = []
    for c in range(COLS):
        r = 0
        while r < ROWS and cells[r * COLS + c]:
            r += 1
        out.append(r)
    return tuple(out)


def playable(cells: Sequence[str]) -> list[Action]:
    """The lowest empty cell of every column that is not full, left to right."""
    return [action_of(h, c) for c, h in enumerate(heights(cells)) if h < ROWS]


def run_length(cells: Sequence[str], row: int, col: int, mark: str, dr: int, dc: int) -> int:
    """How many ``mark`` discs follow (``row``, ``col``) in direction (``dr``, ``dc``), not counting it."""
    n = 0
    r, c = row + dr, col + dc
    while 0 <= r < ROWS and 0 <= c < COLS and cells[r * COLS + c] == mark:
        n += 1
        r, c = r + dr, c + dc
    return n


def line_through(cells: Sequence[str], row: int, col: int, mark: str) -> tuple[int, ...] | None:
    """The cells of a four (or longer) line of ``mark`` through (``row``, ``col``) if ``mark`` stood
    there, or ``None``. The cell itself may be empty (that is how threats are found)."""
    for dr, dc in DIRECTIONS:
        back = run_length(cells, row, col, mark, -dr, -dc)
        ahead = run_length(cells, row, col, mark, dr, dc)
        if back + ahead + 1 >= 4:
            return tuple((row + k * dr) * COLS + (col + k * dc) for k in range(-back, ahead + 1))
    return None


def winning_moves(state: ConnectFourState | Sequence[str], mark: str) -> list[Action]:
    """Every cell playable now that would complete four in a row for ``mark`` (GameBot's ground truth).

    This looks at the board only, whoever is to move: "the opponent's winning moves" are the cells
    the opponent would win with if it were its turn. Only the currently playable cells count (a cell
    higher up a column is not a move yet). Actions are left to right.
    """
    cells = state.cells if isinstance(state, ConnectFourState) else state
    if mark not in MARKS:
        raise ValueError(f"mark must be 'X' or 'O', not {mark!r}")
    found = []
    for action in playable(cells):
        r, c = cell_of(action)
        if line_through(cells, r, c, mark) is not None:
            found.append(action)
    return found


def full_scan(cells: Sequence[str]) -> list[tuple[str, tuple[int, int, int, int]]]:
    """Every complete line of four on the board, with its mark."""
    return [
        (cells[a], line)
        for line in LINES
        for a in line[:1]
        if cells[a] and cells[a] == cells[line[1]] == cells[line[2]] == cells[line[3]]
    ]


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectFourState(State):
    """A Connect Four position.

    Attributes:
        cells: 42 entries ``"X"``, ``"O"`` or ``""``, row-major from the bottom row
            (index = 7 * row + col, row 0 at the bottom).
        last_action: the cell the last disc landed in, or ``None`` at the start.
    """

    game_id: ClassVar[str] = "connect4"

    cells: tuple[str, ...] = ("",) * (ROWS * COLS)
    last_action: Action | None = None
    # Derived from the fields above when the state is made (never compared or saved).
    _heights: tuple[int, ...] = dataclasses.field(default=(), compare=False, repr=False)
    _line: tuple[int, ...] | None = dataclasses.field(default=None, compare=False, repr=False)
    _to_act: tuple[Seat, ...] = dataclasses.field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_heights", heights(self.cells))
        line = None
        if self.last_action is not None:
            r, c = cell_of(self.last_action)
            mark = self.cells[r * COLS + c]
            if mark:
                line = line_through(self.cells, r, c, mark)
        object.__setattr__(self, "_line", line)
        placed = sum(self._heights)
        over = line is not None or placed >= ROWS * COLS
        object.__setattr__(self, "_to_act", () if over else (placed % 2,))

    @property
    def step(self) -> int:
        return sum(self._heights)

    @property
    def mover(self) -> Seat:
        """The seat whose turn it is by count of discs (meaningful while the game is on)."""
        return self.step % 2

    @property
    def to_act(self) -> tuple[Seat, ...]:
        return self._to_act

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        to_act = self.to_act
        if not to_act or (seat is not None and seat not in to_act):
            return []
        return [ACTIONS[h * COLS + c] for c, h in enumerate(self._heights) if h < ROWS]

    def playable_cell(self, col: int) -> Action | None:
        """The cell a disc dropped in column ``col`` lands in, or ``None`` when the column is full."""
        h = self._heights[col]
        return ACTIONS[h * COLS + col] if h < ROWS else None

    def apply(self, action: Action | Mapping[Seat, Action]) -> ConnectFourState:
        if isinstance(action, Mapping):
            action = one_action(action, "Connect Four", self.to_act)
        r, c = cell_of(action)
        if self.is_over:
            raise IllegalActionError(f"the game is over; {action!r} cannot be played")
        h = self._heights[c]
        if h >= ROWS:
            raise IllegalActionError(f"column {c} is full")
        if r != h:
            if self.cells[r * COLS + c]:
                raise IllegalActionError(
                    f"({r},{c}) is already taken by {self.cells[r * COLS + c]}; "
                    f"a disc in column {c} lands at ({h},{c})"
                )
            raise IllegalActionError(f"({r},{c}) is not playable: a disc in column {c} lands at ({h},{c})")
        index = r * COLS + c
        cells = self.cells[:index] + (MARKS[self.mover],) + self.cells[index + 1 :]
        return ConnectFourState(cells=cells, last_action=ACTIONS[index])

    def winning_line(self) -> tuple[int, ...] | None:
        """The cell indices of the completed line (four or more), or ``None``."""
        return self._line

    @property
    def winner(self) -> Seat | None:
        if self._line is None:
            return None
        return MARKS.index(self.cells[self._line[0]])

    @property
    def scores(self) -> tuple[float, ...]:
        return two_player_scores(self.winner, self.step >= ROWS * COLS)

    # -- text views --------------------------------------------------------------------------

    def gamebot_text(self) -> str:
        """GameBot's board, top row first: ``(5,0):_ (5,1):_ ... (5,6):_`` down to row 0."""
        return "\n".join(
            " ".join(f"({r},{c}):{self.cells[r * COLS + c] or '_'}" for c in range(COLS))
            for r in reversed(range(ROWS))
        )

    def grid_text(self) -> str:
        """A plain picture of the board, top row first, with row and column numbers."""
        rows = [f"{r} | " + " ".join(self.cells[r * COLS + c] or "_" for c in range(COLS))
                for r in reversed(range(ROWS))]
        return "\n".join([*rows, "    " + " ".join(str(c) for c in range(COLS))])

    def status_text(self) -> str:
        if self.winner is not None:
            return f"{MARKS[self.winner]} wins."
        if self.is_over:
            return "Draw."
        return f"{MARKS[self.mover]} to move."

    def text(self, seat: Seat | None = None) -> str:
        lines = ["Current Game Board (row 0 is the bottom, row 5 the top):", self.gamebot_text(), "",
                 self.grid_text(), ""]
        if not self.is_over:
            legal = ", ".join(self.legal_actions())
            lines.append(f"Current valid moves for player {MARKS[self.mover]}: {legal}")
            if seat is not None:
                lines.append(f"You are playing {MARKS[seat]}.")
        lines.append(self.status_text())
        return "\n".join(lines)

    def to_json(self) -> JsonDict:
        return {"game": self.game_id, "cells": list(self.cells), "last_action": self.last_action}


_PAIR = re.compile(r"\(?\s*(\d+)\s*,\s*(\d+)\s*\)?")
_COLUMN = re.compile(r"\bcol(?:umn)?\s*[:#]?\s*(\d+)\b")
_CHOSEN = re.compile(r"chosen\s+move|move\s*:")

_RULES = """\
Connect Four on a board of 6 rows and 7 columns. X moves first, then the players alternate. A disc
dropped into a column falls to the lowest empty cell of that column. Four of your discs in a row,
a column or a diagonal win; a full board without four in a row is a draw.
Cells are written (row,col): row 0 is the BOTTOM row and row 5 the top, columns 0..6 from left to right.
A move is the cell where your disc lands, the lowest empty cell of a column that is not full, for
example (0,3) on an empty board."""


class ConnectFour(Game):
    """Connect Four (GameBot)."""

    id: ClassVar[str] = "connect4"
    title: ClassVar[str] = "Connect Four"
    suites: ClassVar[tuple[str, ...]] = ("gamebot",)
    description: ClassVar[str] = "Drop discs into a 6x7 board; four in a row wins. X moves first."
    seats = seats_of(["X", "O"])
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    controls: ClassVar[str] = "Click a column to drop a disc into it"
    max_episode_steps: ClassVar[int | None] = ROWS * COLS
    bots: ClassVar[Mapping[str, str]] = {"alphabeta": ".bots:AlphaBetaBot"}
    default_opponent: ClassVar[str] = "alphabeta"
    sim_behaviour: ClassVar[str | None] = ".sim:ConnectFourSim"
    questions: ClassVar[str | None] = ".questions:QUESTIONS"
    extractor: ClassVar[str | None] = ".answers:extract_move"
    observation: ClassVar[str | None] = ".gym:BoardObservation"
    default_prompt: ClassVar[str] = "cot"

    def initial_state(self, seed: int | None = None) -> ConnectFourState:
        return ConnectFourState()

    def rules_text(self) -> str:
        return _RULES

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read a cell from ``"(1, 3)"``, ``"1,3"``, ``"Chosen Move: (1,3)"``, or a bare column
        (``"column 3"``, ``"col 3"``), which means the cell a disc dropped there lands in.

        When the text names several different cells, the one after the last "Chosen Move:" (or
        "move:") wins; without such a marker the text is ambiguous.

        Raises:
            InvalidActionError: no cell or column, an ambiguous answer, or coordinates off the board.
            IllegalActionError: the cell is not the playable cell of its column, the column is full,
                the game is over or ``seat`` is not to move.
        """
        assert isinstance(state, ConnectFourState)
        lowered = text.lower()
        markers = list(_CHOSEN.finditer(lowered))
        if markers and (_PAIR.search(lowered[markers[-1].end():]) or
                        _COLUMN.search(lowered[markers[-1].end():])):
            lowered = lowered[markers[-1].end():]
            pairs = _pairs(lowered)[:1]
        else:
            pairs = list(dict.fromkeys(_pairs(lowered)))
        if not pairs:
            columns = list(dict.fromkeys(int(m.group(1)) for m in _COLUMN.finditer(lowered)))
            if len(columns) > 1:
                raise InvalidActionError(f"{text!r} names several columns; choose one")
            if not columns:
                raise InvalidActionError(f"{text!r} names no cell; write (row,col), row 0 at the bottom")
            col = columns[0]
            if not 0 <= col < COLS:
                raise InvalidActionError(f"column {col} is off the board; columns are 0..6")
            cell = state.playable_cell(col)
            if cell is None:
                raise IllegalActionError(f"column {col} is full")
            pairs = [cell_of(cell)]
        if len(pairs) > 1:
            shown = ", ".join(f"({r},{c})" for r, c in pairs)
            raise InvalidActionError(f"{text!r} names several cells ({shown}); choose one")
        r, c = pairs[0]
        action = action_of(*cell_of(action_of(r, c)))
        if action not in state.legal_actions(seat):
            if state.is_over:
                raise IllegalActionError(f"the game is over; {action} cannot be played")
            if seat is not None and seat not in state.to_act:
                raise IllegalActionError(f"seat {seat} is not to move")
            state.apply(action)  # raises the precise IllegalActionError (taken, floating, full)
        return action

    def state_from_json(self, data: JsonDict) -> ConnectFourState:
        with reading_state(data, "connect4", "Connect Four"):
            cells = data["cells"]
            if (not isinstance(cells, list) or len(cells) != ROWS * COLS
                    or any(v not in ("", "X", "O") for v in cells)):
                raise ValueError('cells must be 42 entries of "X", "O" or ""')
            for c in range(COLS):
                column = [cells[r * COLS + c] for r in range(ROWS)]
                if "" in column and any(column[column.index(""):]):
                    raise ValueError(f"column {c} has a disc above an empty cell")
            x, o = cells.count("X"), cells.count("O")
            if not (x == o or x == o + 1):
                raise ValueError(f"{x} X and {o} O cannot occur (X moves first, players alternate)")
            last_action = data.get("last_action")
            if last_action is not None:
                if last_action not in ACTIONS:
                    raise ValueError(f"last_action {last_action!r} is not a cell")
                r, c = cell_of(last_action)
                mover = "X" if x > o else "O"
                top = r == ROWS - 1 or not cells[(r + 1) * COLS + c]
                if cells[r * COLS + c] != mover or not top:
                    raise ValueError(f"last_action {last_action!r} is not the last disc played")
            elif x or o:
                raise ValueError("a board with discs needs its last_action")
            last = ACTIONS.index(last_action) if last_action is not None else -1
            if any(last not in line for _mark, line in full_scan(cells)):
                raise ValueError("the board holds a four that the last move did not make")
            state = ConnectFourState(cells=tuple(cells), last_action=last_action)
        return state


def _pairs(text: str) -> list[tuple[int, int]]:
    return [(int(m.group(1)), int(m.group(2))) for m in _PAIR.finditer(text)]
