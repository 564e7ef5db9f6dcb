"""Gomoku, as LVLM-Playground plays it.

Fifteen by fifteen intersections; Black (seat 0) moves first, White (seat 1) second, and the players
alternate placing one stone on an empty intersection. **Five or more** stones of one colour in an
unbroken line (a row, a column or either diagonal) win at once — freestyle Gomoku, as the paper's rules
("first to 5 in a row") and its reference simulator (a run of ``>= 5``) have it, so an overline of six
wins too. A full board without such a line is a draw.

Intersections are written the paper's way: a column letter **A–O from left to right** and a row number
**1–15 from top to bottom**, ``"H8"`` being the centre. :data:`ACTIONS` lists all 225 in reading order
(row 1 from A to O, then row 2, ...); a cell's index is ``15 * (row - 1) + column``.

Besides the rules this module holds the board helpers the bots, the simulated model and the task
generator share: the lines through a cell (:func:`run_through`), the cells that complete five
(:func:`five_moves`) and the five-detection over a whole board (:func:`fives`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar

from engine.agent.parse import last_match
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

SIZE = 15
CELLS = SIZE * SIZE
COLUMNS = "ABCDEFGHIJKLMNO"
#: The stone of each seat: Black (seat 0) ``"B"``, White (seat 1) ``"W"``.
STONES: tuple[str, str] = ("B", "W")
NAMES: tuple[str, str] = ("Black", "White")
#: Every intersection in reading order: ``A1 B1 ... O1 A2 ... O15``.
ACTIONS: tuple[Action, ...] = tuple(f"{COLUMNS[i % SIZE]}{i // SIZE + 1}" for i in range(CELLS))
_INDEX = {a: i for i, a in enumerate(ACTIONS)}
#: The four directions a line runs in: along a row, down a column, and the two diagonals.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (1, -1))
#: How many stones in a line win.
FIVE = 5

#: A move written the LVLM way, in either order and any case: ``H8``, ``h 8``, ``8H``.
_MOVEMENT = re.compile(r"movement\s*[:：]", re.IGNORECASE)
_MOVE = re.compile(
    r"(?<![A-Za-z0-9])(?:([A-Oa-o])[ \t]*(1[0-5]|[1-9])|(1[0-5]|[1-9])[ \t]*([A-Oa-o]))(?![A-Za-z0-9])"
)


def index_of(action: Action) -> int:
    """The cell index of ``"H8"`` (case forgiven): ``15 * (row - 1) + column``.

    Raises:
        InvalidActionError: not an intersection of the 15x15 board.
    """
    index = _INDEX.get(action.strip().upper())
    if index is None:
        raise InvalidActionError(
            f"{action!r} is not an intersection; write a column letter A-O and a row number 1-15, e.g. H8"
        )
    return index


def find_moves(text: str) -> list[Action]:
    """Every intersection named in ``text``, in reading order and normalised (``"8h"`` → ``"H8"``)."""
    found = []
    for m in _MOVE.finditer(text):
        letter, number = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        found.append(f"{letter.upper()}{int(number)}")
    return found


def run_through(cells: Sequence[str], index: int, stone: str, dr: int, dc: int) -> tuple[int, ...]:
    """The cells of the unbroken run of ``stone`` through ``index`` along (``dr``, ``dc``), as if
    ``stone`` stood on ``index`` (the cell itself may be empty: that is how threats are found)."""
    r0, c0 = divmod(index, SIZE)
    back = []
    r, c = r0 - dr, c0 - dc
    while 0 <= r < SIZE and 0 <= c < SIZE and cells[r * SIZE + c] == stone:
        back.append(r * SIZE + c)
        r, c = r - dr, c - dc
    ahead = []
    r, c = r0 + dr, c0 + dc
    while 0 <= r < SIZE and 0 <= c < SIZE and cells[r * SIZE + c] == stone:
        ahead.append(r * SIZE + c)
        r, c = r + dr, c + dc
    return (*reversed(back), index, *ahead)


def five_through(cells: Sequence[str], index: int, stone: str) -> tuple[int, ...] | None:
    """The longest line of five or more ``stone`` through ``index`` if ``stone`` stood there, or ``None``."""
    best: tuple[int, ...] | None = None
    for dr, dc in DIRECTIONS:
        run = run_through(cells, index, stone, dr, dc)
        if len(run) >= FIVE and (best is None or len(run) > len(best)):
            best = run
    return best


def five_moves(cells: Sequence[str], stone: str) -> list[Action]:
    """Every empty intersection where ``stone`` would complete five (or more) in a row, in reading
    order. Looks at the board only, whoever is to move."""
    return [ACTIONS[i] for i in range(CELLS) if not cells[i] and five_through(cells, i, stone) is not None]


def fives(cells: Sequence[str]) -> list[tuple[str, tuple[int, ...]]]:
    """Every maximal line of five or more stones of one colour on the board, with its stone."""
    found = []
    for i, stone in enumerate(cells):
        if not stone:
            continue
        r, c = divmod(i, SIZE)
        for dr, dc in DIRECTIONS:
            pr, pc = r - dr, c - dc
            if 0 <= pr < SIZE and 0 <= pc < SIZE and cells[pr * SIZE + pc] == stone:
                continue  # not the start of this run
            run = run_through(cells, i, stone, dr, dc)
            if len(run) >= FIVE:
                found.append((stone, run))
    return found


def near(index: int, distance: int = 2) -> Iterable[int]:
    """The cells within ``distance`` of ``index`` in every direction (the cell itself excluded)."""
    r0, c0 = divmod(index, SIZE)
    for r in range(max(0, r0 - distance), min(SIZE, r0 + distance + 1)):
        for c in range(max(0, c0 - distance), min(SIZE, c0 + distance + 1)):
            if r != r0 or c != c0:
                yield r * SIZE + c


@dataclasses.dataclass(frozen=True, slots=True)
class GomokuState(State):
    """A Gomoku position.

    Attributes:
        cells: 225 entries ``"B"``, ``"W"`` or ``""`` in reading order (row 1 first, columns A to O).
        last_action: the intersection the last stone was placed on, or ``None`` at the start (and on
            the random boards LVLM-Playground's perception tasks draw).

    A game is over when the last stone completed five or more in a row, or when the board is full. Only
    the last stone is looked at, as a game can only be won by its last move; a board drawn at random
    with a five elsewhere (a perception sample) is not "over".
    """

    game_id: ClassVar[str] = "gomoku"

    cells: tuple[str, ...] = ("",) * CELLS
    last_action: Action | None = None
    # Derived from the fields above when the state is made (never compared or saved).
    _black: int = dataclasses.field(default=0, compare=False, repr=False)
    _white: int = dataclasses.field(default=0, compare=False, repr=False)
    _line: tuple[int, ...] | None = dataclasses.field(default=None, compare=False, repr=False)
    _to_act: tuple[Seat, ...] = dataclasses.field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        black = self.cells.count("B")
        white = self.cells.count("W")
        object.__setattr__(self, "_black", black)
        object.__setattr__(self, "_white", white)
        line = None
        if self.last_action is not None:
            index = _INDEX[self.last_action]
            if self.cells[index]:
                line = five_through(self.cells, index, self.cells[index])
        object.__setattr__(self, "_line", line)
        over = line is not None or black + white >= CELLS
        object.__setattr__(self, "_to_act", () if over else (0 if black <= white else 1,))

    @property
    def step(self) -> int:
        return self._black + self._white

    @property
    def mover(self) -> Seat:
        """The seat whose turn it is by count of stones (meaningful while the game is on)."""
        return 0 if self._black <= self._white else 1

    @property
    def black_stones(self) -> int:
        """How many Black stones are on the board (LVLM-Playground's ``N_moves`` for Black)."""
        return self._black

    @property
    def white_stones(self) -> int:
        return self._white

    @property
    def to_act(self) -> tuple[Seat, ...]:
        return self._to_act

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        to_act = self._to_act
        if not to_act or (seat is not None and seat not in to_act):
            return []
        cells = self.cells
        return [ACTIONS[i] for i in range(CELLS) if not cells[i]]

    def apply(self, action: Action | Mapping[Seat, Action]) -> GomokuState:
        if isinstance(action, Mapping):
            action = one_action(action, "Gomoku", self._to_act)
        index = index_of(action)
        if not self._to_act:
            raise IllegalActionError(f"the game is over; {action!r} cannot be played")
        taken = self.cells[index]
        if taken:
            owner = NAMES[STONES.index(taken)]
            raise IllegalActionError(f"{ACTIONS[index]} is already taken by a {owner} stone")
        cells = self.cells[:index] + (STONES[self.mover],) + self.cells[index + 1 :]
        return GomokuState(cells=cells, last_action=ACTIONS[index])

    def winning_line(self) -> tuple[int, ...] | None:
        """The cell indices of the five (or more) the last stone completed, or ``None``."""
        return self._line

    @property
    def winner(self) -> Seat | None:
        if self._line is None:
            return None
        return STONES.index(self.cells[self._line[0]])

    @property
    def scores(self) -> tuple[float, ...]:
        return two_player_scores(self.winner, self.step >= CELLS)

    def lvlm_points(self) -> int:
        """LVLM-Playground's end-to-end points for Black (the model's seat in the paper):
        10 per Black stone placed, plus 1000 for a win or 500 for a draw (a loss adds nothing)."""
        bonus = 0
        if self.winner == 0:
            bonus = 1000
        elif self.is_over and self.winner is None:
            bonus = 500
        return 10 * self._black + bonus

    def metrics(self) -> dict[str, float]:
        return {
            "lvlm_points": float(self.lvlm_points()),
            "black_stones": float(self._black),
            "white_stones": float(self._white),
        }

    # -- text views --------------------------------------------------------------------------

    def grid_text(self) -> str:
        """The board as a grid with column letters on top and row numbers on the left:
        ``B`` Black, ``W`` White, ``.`` empty."""
        lines = ["    " + " ".join(COLUMNS)]
        for r in range(SIZE):
            row = self.cells[r * SIZE : (r + 1) * SIZE]
            lines.append(f"{r + 1:>2}  " + " ".join(v or "." for v in row))
        return "\n".join(lines)

    def stones_text(self, stone: str) -> str:
        """Where ``stone``'s stones are, in reading order (``"H8, I9"``), or ``"none"``."""
        spots = [ACTIONS[i] for i in range(CELLS) if self.cells[i] == stone]
        return ", ".join(spots) if spots else "none"

    def status_text(self) -> str:
        if self.winner is not None:
            return f"{NAMES[self.winner]} wins with five in a row."
        if self.is_over:
            return "Draw: the board is full."
        return f"{NAMES[self.mover]} to move."

    def text(self, seat: Seat | None = None) -> str:
        lines = [
            "Gomoku board, 15x15 intersections: columns A-O from left to right, rows 1-15 from top to "
            "bottom. B = Black stone, W = White stone, . = empty.",
            self.grid_text(),
            "",
            f"Black stones: {self._black}. White stones: {self._white}.",
        ]
        if self.last_action is not None and self.cells[_INDEX[self.last_action]]:
            stone = self.cells[_INDEX[self.last_action]]
            lines.append(f"Last move: {NAMES[STONES.index(stone)]} at {self.last_action}.")
        if seat is not None and not self.is_over:
            lines.append(f"You play {NAMES[seat]}.")
        lines.append(self.status_text())
        return "\n".join(lines)

    def text_table(self, seat: Seat | None = None) -> str:
        return f"Black stones at: {self.stones_text('B')}\nWhite stones at: {self.stones_text('W')}"

    def to_json(self) -> JsonDict:
        rows = ["".join(v or "." for v in self.cells[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)]
        return {"game": self.game_id, "rows": rows, "last_action": self.last_action}


def board_state(rows: Sequence[str], last_action: Action | None = None) -> GomokuState:
    """A state from 15 strings of ``B``/``W``/``.`` (row 1 first), e.g. for tests and task boards.

    Raises:
        ValueError: the rows are not a 15x15 board of those characters, or ``last_action`` is not an
            occupied intersection.
    """
    if len(rows) != SIZE or any(not isinstance(r, str) or len(r) != SIZE for r in rows):
        raise ValueError("a Gomoku board is 15 rows of 15 characters")
    cells: list[str] = []
    for row in rows:
        for ch in row:
            if ch not in "BW.":
                raise ValueError(f"board characters are B, W and '.', not {ch!r}")
            cells.append("" if ch == "." else ch)
    if last_action is not None:
        if last_action not in _INDEX:
            raise ValueError(f"last_action {last_action!r} is not an intersection")
        if not cells[_INDEX[last_action]]:
            raise ValueError(f"last_action {last_action!r} is an empty intersection")
    return GomokuState(cells=tuple(cells), last_action=last_action)


_RULES = """\
Gomoku on a board of 15x15 intersections. Black moves first, then the players alternate, each placing
one stone of their colour on an empty intersection. Stones never move and are never captured.
The first player with five or more stones of their colour in an unbroken line (horizontal, vertical or
diagonal) wins. If the board fills up without such a line, the game is a draw.
Intersections are named by a column letter A-O from left to right and a row number 1-15 from top to
bottom: A1 is the top-left corner, O15 the bottom-right corner and H8 the centre."""


class Gomoku(Game):
    """Gomoku (LVLM-Playground): five or more in a row on a 15x15 board."""

    id: ClassVar[str] = "gomoku"
    title: ClassVar[str] = "Gomoku"
    suites: ClassVar[tuple[str, ...]] = ("lvlm",)
    tasks: ClassVar[str | None] = ".lvlm"
    description: ClassVar[str] = "Five in a row on a 15x15 board; Black moves first."
    seats = seats_of(["Black", "White"])
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    controls: ClassVar[str] = "Click an intersection to place a stone"
    max_episode_steps: ClassVar[int | None] = CELLS
    bots: ClassVar[Mapping[str, str]] = {"pattern": ".bots:PatternBot"}
    default_opponent: ClassVar[str] = "pattern"
    sim_behaviour: ClassVar[str | None] = ".sim:GomokuSim"
    extractor: ClassVar[str | None] = ".answers:extract_move"
    observation: ClassVar[str | None] = ".gym:BoardObservation"

    def initial_state(self, seed: int | None = None) -> GomokuState:
        return GomokuState()

    def rules_text(self) -> str:
        return _RULES

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read an intersection from ``"H8"``, ``"h8"``, ``"8H"`` or ``"Movement: H8"``.

        When the text names several intersections, the one after the last ``Movement:`` wins; without
        that keyword the text is ambiguous.

        Raises:
            InvalidActionError: no intersection, or several without a ``Movement:`` keyword.
            IllegalActionError: the intersection is taken, the game is over or ``seat`` is not to move.
        """
        assert isinstance(state, GomokuState)
        marker = last_match(_MOVEMENT, text)
        if marker is not None and find_moves(text[marker.end() :]):
            moves = find_moves(text[marker.end() :])[:1]
        else:
            moves = list(dict.fromkeys(find_moves(text)))
        if not moves:
            raise InvalidActionError(
                f"{text!r} names no intersection; write a column A-O and a row 1-15, e.g. H8"
            )
        if len(moves) > 1:
            raise InvalidActionError(f"{text!r} names several intersections ({', '.join(moves)}); choose one")
        action = moves[0]
        if action not in state.legal_actions(seat):
            if state.is_over:
                raise IllegalActionError(f"the game is over; {action} cannot be played")
            if seat is not None and seat not in state.to_act:
                raise IllegalActionError(f"seat {seat} is not to move")
            state.apply(action)  # raises the precise IllegalActionError (taken)
        return action

    def state_from_json(self, data: JsonDict) -> GomokuState:
        """Rebuild a state; any board of ``B``/``W``/``.`` is accepted (LVLM-Playground's perception
        boards need not be reachable in play), with ``last_action`` on an occupied intersection."""
        with reading_state(data, "gomoku", "Gomoku"):
            rows = data["rows"]
            if not isinstance(rows, list):
                raise TypeError("rows must be a list of 15 strings")
            last_action = data.get("last_action")
            if last_action is not None and not isinstance(last_action, str):
                raise TypeError("last_action must be a string such as 'H8'")
            state = board_state(rows, last_action)
        return state
