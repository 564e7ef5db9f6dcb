"""Othello (Reversi), as GameBot and LVLM-Playground play it.

The board is 8x8 with columns A-H and rows 1-8; a cell is written ``"(D,3)"`` (column letter, row
number), the form GameBot's prompts and parsers use. Row 1 is the top row of the printed and drawn
board. Black (seat 0) moves first. A move must outflank at least one line of opposing discs, and every
outflanked line, in every direction, is flipped. A seat with no legal move plays ``"pass"`` (its only
legal action); the game ends when neither seat can move (a full board included). The majority of discs
wins and equal counts are a draw. The scores are the disc counts.

Two options:

``start``
    ``"gamebot"``: Black on (D,4) and (E,5), White on (D,5) and (E,4), as GameBot's rules say.
    ``"lvlm"``: the position LVLM-Playground's reference code draws (its screenshots are what its
    models see): White on D4 and E5 and Black on D5 and E4 in its row-letter / column-number style,
    which is White on (D,4) and (E,5) and Black on (E,4) and (D,5) here (the standard Othello start).
    LVLM-Playground's E2E prompt names the colours the other way round; that reading is the GameBot
    start, so both are available.
``wedge``
    How the "wedge moves" oracle reads GameBot's definition (see :func:`wedge_moves`): ``"paper"``
    (any odd gap of 1, 3 or 5 empty edge squares between two opposing edge discs) or ``"gap1"`` (the
    reference code: both immediate neighbours along the edge are opposing discs).

Cells are named through the state's :class:`Naming` (a class attribute): :class:`OthelloState` uses
GameBot's ``"(D,3)"``; :class:`~engine.games.othello.reversi.ReversiState` subclasses it with
LVLM-Playground's ``"D3"`` (row letter, column number) and shares every rule here.

The board is kept as two 64-bit integers (bit ``8 * row + col``, row 0 = row 1, col 0 = column A), so
move generation is a handful of shifts; random play and the alpha-beta bot stay fast in pure Python.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar, TypedDict

from engine.controls import Button, Panel
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
from engine.games._common import one_action, reading_state
from engine.options import Option

__all__ = [
    "ACTIONS",
    "COLUMNS",
    "CORNERS",
    "PASS",
    "SYMBOLS",
    "GAMEBOT_NAMING",
    "Naming",
    "Othello",
    "OthelloState",
    "action_of",
    "bits_of",
    "cell_of",
    "check_legal",
    "flips",
    "legal_mask",
    "parse_cell",
    "read_board",
    "wedge_moves",
]

SIZE = 8
COLUMNS = "ABCDEFGH"
#: Disc letters by seat: Black "B", White "W".
SYMBOLS: tuple[str, str] = ("B", "W")
SEAT_NAMES: tuple[str, str] = ("Black", "White")
#: The empty-square symbol of the text view (a full stop: never mistaken for a colour letter or a 0).
EMPTY = "."
PASS = "pass"
FULL = (1 << 64) - 1

#: Every action in a fixed order: the 64 cells in reading order (row 1 first, A to H), then "pass".
ACTIONS: tuple[Action, ...] = (
    *(f"({COLUMNS[i % SIZE]},{i // SIZE + 1})" for i in range(SIZE * SIZE)),
    PASS,
)
CORNERS: tuple[int, ...] = (0, 7, 56, 63)
CORNER_MASK = sum(1 << i for i in CORNERS)
EDGE_MASK = sum(1 << i for i in range(64) if i // 8 in (0, 7) or i % 8 in (0, 7)) & ~CORNER_MASK

_NOT_A = sum(1 << i for i in range(64) if i % 8 != 0)
_NOT_H = sum(1 << i for i in range(64) if i % 8 != 7)
#: The eight directions as (bit shift, mask of cells a shifted bit may land on without wrapping).
_DIRECTIONS: tuple[tuple[int, int], ...] = (
    (1, _NOT_A),  # east
    (-1, _NOT_H),  # west
    (8, FULL),  # south (down a row)
    (-8, FULL),  # north
    (9, _NOT_A),  # south-east
    (7, _NOT_H),  # south-west
    (-7, _NOT_A),  # north-east
    (-9, _NOT_H),  # north-west
)
_STEPS = {1: (0, 1), -1: (0, -1), 8: (1, 0), -8: (-1, 0), 9: (1, 1), 7: (1, -1), -7: (-1, 1), -9: (-1, -1)}

_START = {
    # (black bits, white bits)
    "gamebot": ((1 << 27) | (1 << 36), (1 << 35) | (1 << 28)),  # B (D,4) (E,5); W (D,5) (E,4)
    "lvlm": ((1 << 28) | (1 << 35), (1 << 27) | (1 << 36)),  # B (E,4) (D,5); W (D,4) (E,5)
}
WEDGE_MODES = ("paper", "gap1")


def _shift(bits: int, shift: int, mask: int) -> int:
    return ((bits << shift) if shift > 0 else (bits >> -shift)) & mask


@functools.lru_cache(maxsize=65536)
def legal_mask(own: int, opp: int) -> int:
    """The empty cells where the side owning ``own`` may play against ``opp`` (a bit mask)."""
    empty = ~(own | opp) & FULL
    moves = 0
    for shift, mask in _DIRECTIONS:
        run = _shift(own, shift, mask) & opp
        for _ in range(5):
            run |= _shift(run, shift, mask) & opp
        moves |= _shift(run, shift, mask) & empty
    return moves


def flips(own: int, opp: int, index: int) -> int:
    """The opposing discs a disc placed on ``index`` outflanks (a bit mask; 0 when none)."""
    if (own | opp) >> index & 1:
        return 0
    row, col = divmod(index, SIZE)
    flipped = 0
    for dr, dc in _STEPS.values():
        r, c = row + dr, col + dc
        line = 0
        while 0 <= r < SIZE and 0 <= c < SIZE:
            bit = 1 << (r * SIZE + c)
            if opp & bit:
                line |= bit
            elif own & bit:
                flipped |= line
                break
            else:
                break
            r, c = r + dr, c + dc
    return flipped


def bits_of(mask: int) -> list[int]:
    """The cell indices set in ``mask``, in reading order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def action_of(index: int) -> Action:
    """``27 -> "(D,4)"``."""
    return ACTIONS[index]


_CELL_RE = re.compile(r"^\(?\s*([A-Ha-h])\s*[,\s]?\s*([1-8])\s*\)?$")


def parse_cell(text: str) -> int | None:
    """The cell index of ``"(D,3)"``, ``"(d, 3)"``, ``"(D 3)"`` or ``"D3"``; ``None`` otherwise."""
    match = _CELL_RE.match(text.strip())
    if not match:
        return None
    return (int(match.group(2)) - 1) * SIZE + COLUMNS.index(match.group(1).upper())


def cell_of(text: str) -> Action | None:
    """The canonical cell action for ``text`` (see :func:`parse_cell`), or ``None``."""
    index = parse_cell(text)
    return None if index is None else ACTIONS[index]


@dataclasses.dataclass(frozen=True, eq=False)
class Naming:
    """How a state writes its cells: the 64 names in reading order, how it reads one back, and the
    hint an error message gives. Othello writes ``"(D,3)"`` (column letter, row number); Reversi
    (:mod:`engine.games.othello.reversi`) writes ``"D3"`` with the row letter first. The rules never
    look at names: they work on cell indices, and a state turns names into indices and back through
    its class's naming."""

    cells: tuple[Action, ...]
    read: Callable[[str], int | None]
    hint: str
    index: Mapping[Action, int] = dataclasses.field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {a: i for i, a in enumerate(self.cells)})


#: GameBot's naming: ``"(D,3)"`` is column D, row 3.
GAMEBOT_NAMING = Naming(ACTIONS[:-1], parse_cell, "cells are written (column,row) such as (D,3)")


def _edge_line(index: int) -> list[int] | None:
    """The edge (eight cell indices in order) a non-corner edge cell lies on, or ``None``."""
    row, col = divmod(index, SIZE)
    if index in CORNERS:
        return None
    if row in (0, SIZE - 1):
        return [row * SIZE + c for c in range(SIZE)]
    if col in (0, SIZE - 1):
        return [r * SIZE + col for r in range(SIZE)]
    return None


def wedge_moves(
    own: int, opp: int, mode: str = "paper", names: Sequence[Action] = ACTIONS
) -> list[Action]:
    """The legal moves of the side owning ``own`` that create a wedge (GameBot's second question).

    A wedge move is a legal move on a non-corner edge square lying in a gap of empty squares along
    that edge which is bounded on both sides by opposing discs. ``mode="paper"`` accepts gaps of 1,
    3 or 5 squares (GameBot's paper: "any odd number of spaces"; stability is not checked, as in
    both the paper's example and the reference code); ``mode="gap1"`` is the reference code: both
    immediate neighbours along the edge are opposing discs. Cells are in reading order, written
    with ``names`` (the 64 cell names in reading order; GameBot's by default).
    """
    if mode not in WEDGE_MODES:
        raise ValueError(f"wedge mode must be one of {', '.join(WEDGE_MODES)}, not {mode!r}")
    found = []
    for index in bits_of(legal_mask(own, opp) & EDGE_MASK):
        line = _edge_line(index)
        assert line is not None
        pos = line.index(index)
        occupied = own | opp
        left = pos
        while left - 1 >= 0 and not occupied >> line[left - 1] & 1:
            left -= 1
        right = pos
        while right + 1 < SIZE and not occupied >> line[right + 1] & 1:
            right += 1
        if left == 0 or right == SIZE - 1:
            continue  # the gap runs to a corner: nothing bounds it on that side
        bounded = opp >> line[left - 1] & 1 and opp >> line[right + 1] & 1
        gap = right - left + 1
        if bounded and (gap == 1 if mode == "gap1" else gap in (1, 3, 5)):
            found.append(names[index])
    return found


@dataclasses.dataclass(frozen=True, slots=True)
class OthelloState(State):
    """An Othello position.

    Attributes:
        black: Black's discs as a bit mask (bit ``8 * (row - 1) + column``, column A = 0).
        white: White's discs, the same way.
        mover: The seat whose turn it is (0 Black, 1 White); meaningless once the game is over.
        last_action: The action that led here (a cell or ``"pass"``), or ``None`` at the start.
        ply: Actions applied since the start, passes included.
        wedge: The wedge definition the questions' oracle uses (``"paper"`` or ``"gap1"``).
    """

    game_id: ClassVar[str] = "othello"
    #: How this state writes and reads cells (see :class:`Naming`).
    naming: ClassVar[Naming] = GAMEBOT_NAMING

    black: int
    white: int
    mover: Seat = 0
    last_action: Action | None = None
    ply: int = 0
    wedge: str = "paper"

    # -- the board ---------------------------------------------------------------------------

    def discs(self, seat: Seat) -> int:
        """``seat``'s discs as a bit mask."""
        return self.white if seat else self.black

    def moves_mask(self, seat: Seat) -> int:
        """The cells ``seat`` could play if it were its turn (a bit mask)."""
        return legal_mask(self.discs(seat), self.discs(1 - seat))

    def moves_of(self, seat: Seat) -> list[Action]:
        """The cells ``seat`` could play if it were its turn, in reading order (no ``"pass"``)."""
        return [self.naming.cells[i] for i in bits_of(self.moves_mask(seat))]

    @property
    def cells(self) -> tuple[str, ...]:
        """64 entries ``"B"``, ``"W"`` or ``""`` in reading order (row 1 first, A to H)."""
        return tuple(
            "B" if self.black >> i & 1 else "W" if self.white >> i & 1 else "" for i in range(SIZE * SIZE)
        )

    def at(self, action: Action) -> str:
        """``"B"``, ``"W"`` or ``""`` at a cell such as ``"(D,4)"`` (written in the state's naming)."""
        index = self.naming.index[action]
        return "B" if self.black >> index & 1 else "W" if self.white >> index & 1 else ""

    def counts(self) -> tuple[int, int]:
        """(Black discs, White discs)."""
        return self.black.bit_count(), self.white.bit_count()

    # -- the contract ------------------------------------------------------------------------

    @property
    def step(self) -> int:
        return self.ply

    @property
    def to_act(self) -> tuple[Seat, ...]:
        if self.moves_mask(self.mover) or self.moves_mask(1 - self.mover):
            return (self.mover,)
        return ()

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        to_act = self.to_act
        if not to_act or (seat is not None and seat not in to_act):
            return []
        moves = self.moves_of(self.mover)
        return moves or [PASS]

    def apply(self, action: Action | Mapping[Seat, Action]) -> OthelloState:
        if isinstance(action, Mapping):
            action = one_action(action, "Othello", self.to_act)
        if not isinstance(action, str):
            raise InvalidActionError(f"{action!r} is not an Othello action")
        text = action.strip()
        if text.lower() == PASS:
            index = None
        else:
            index = self.naming.read(text)
            if index is None:
                raise InvalidActionError(f"{action!r} is not a cell; {self.naming.hint}, or 'pass'")
        if self.is_over:
            raise IllegalActionError(f"the game is over; {action!r} cannot be played")
        own, opp = self.discs(self.mover), self.discs(1 - self.mover)
        moves = legal_mask(own, opp)
        name = SEAT_NAMES[self.mover]
        if index is None:
            if moves:
                raise IllegalActionError(f"{name} has a legal move, so it may not pass")
            return dataclasses.replace(self, mover=1 - self.mover, last_action=PASS, ply=self.ply + 1)
        cell = self.naming.cells[index]
        if not moves >> index & 1:
            if (own | opp) >> index & 1:
                raise IllegalActionError(f"{cell} is already taken")
            if not moves:
                raise IllegalActionError(f"{name} has no legal move and must pass")
            raise IllegalActionError(f"{cell} outflanks no {SEAT_NAMES[1 - self.mover]} disc")
        flipped = flips(own, opp, index)
        own |= flipped | (1 << index)
        opp &= ~flipped
        black, white = (own, opp) if self.mover == 0 else (opp, own)
        return dataclasses.replace(
            self, black=black, white=white, mover=1 - self.mover, last_action=cell, ply=self.ply + 1
        )

    @property
    def scores(self) -> tuple[float, ...]:
        b, w = self.counts()
        return (float(b), float(w))

    @property
    def winner(self) -> Seat | None:
        if not self.is_over:
            return None
        b, w = self.counts()
        return 0 if b > w else 1 if w > b else None

    def metrics(self) -> dict[str, float]:
        b, w = self.counts()
        return {"black_discs": float(b), "white_discs": float(w), "empty": float(64 - b - w)}

    def panel(self, seat: Seat) -> Panel | None:
        """A Pass button when passing is ``seat``'s only legal action."""
        if self.legal_actions(seat) != [PASS]:
            return None
        name = SEAT_NAMES[seat]
        return Panel(
            title=f"{name} has no legal move",
            buttons=(Button("Pass", PASS, hint="No move outflanks a disc: the turn goes to the opponent"),),
        )

    def notice(self, seat: Seat | None = None) -> str:
        if self.legal_actions() == [PASS]:
            return f"{SEAT_NAMES[self.mover]} has no legal move and must pass."
        return ""

    # -- text views --------------------------------------------------------------------------

    def gamebot_text(self) -> str:
        """GameBot's board: one row per line, ``(A,1):. (B,1):B ...``, empty squares as ``.``."""
        cells = self.cells
        return "\n".join(
            " ".join(f"({COLUMNS[c]},{r + 1}):{cells[r * SIZE + c] or EMPTY}" for c in range(SIZE))
            for r in range(SIZE)
        )

    def grid_text(self) -> str:
        """A compact grid with the column letters above and the row numbers on the left."""
        cells = self.cells
        lines = ["   " + " ".join(COLUMNS)]
        for r in range(SIZE):
            lines.append(f"{r + 1}  " + " ".join(cells[r * SIZE + c] or EMPTY for c in range(SIZE)))
        return "\n".join(lines)

    def status_text(self) -> str:
        b, w = self.counts()
        count = f"Discs: Black {b}, White {w}."
        if self.is_over:
            winner = self.winner
            result = "Draw." if winner is None else f"{SEAT_NAMES[winner]} wins."
            return f"{count} Game over. {result}"
        return f"{count} {SEAT_NAMES[self.mover]} to move."

    def text(self, seat: Seat | None = None) -> str:
        lines = []
        if seat is not None and not self.is_over:
            lines.append(f"You are the {SEAT_NAMES[seat]} player ({SYMBOLS[seat]}).")
        lines += [
            f'The current board is (empty squares are "{EMPTY}"):',
            self.gamebot_text(),
            "",
            self.grid_text(),
            "",
        ]
        if self.last_action is not None:
            lines.append(f"Last move: {SEAT_NAMES[1 - self.mover]} played {self.last_action}.")
        lines.append(self.status_text())
        return "\n".join(lines)

    def to_json(self) -> JsonDict:
        return {
            "game": self.game_id,
            "board": ["".join(self.cells[r * SIZE + c] or EMPTY for c in range(SIZE)) for r in range(SIZE)],
            "mover": self.mover,
            "last_action": self.last_action,
            "ply": self.ply,
            "wedge": self.wedge,
        }


_RULES = """\
Othello on an 8x8 board with columns A-H and rows 1-8; a square is written (column,row), e.g. (D,3).
Row 1 is the top row. Black (B) moves first, then the players alternate. A move places a disc so that
one or more straight lines (horizontal, vertical or diagonal) of the opponent's discs are bordered at
both ends by your discs; every outflanked line, in every direction, is flipped to your colour. A move
must flip at least one disc. A player with no legal move must pass ("pass"); the game ends when neither
player can move (or the board is full). The player with more discs wins; equal counts are a draw."""


class Othello(Game):
    """Othello (GameBot; LVLM-Playground's Reversi with ``start="lvlm"``)."""

    id: ClassVar[str] = "othello"
    title: ClassVar[str] = "Othello"
    suites: ClassVar[tuple[str, ...]] = ("gamebot", "lvlm")
    description: ClassVar[str] = (
        "Outflank and flip discs on an 8x8 board; the most discs wins. Black moves first."
    )
    seats = seats_of(SEAT_NAMES)
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option(
            "start",
            str,
            "gamebot",
            choices=tuple(_START),
            help="Start position: gamebot = Black (D,4),(E,5); lvlm = LVLM-Playground's drawn start, "
            "Black (E,4),(D,5)",
        ),
        Option(
            "wedge",
            str,
            "paper",
            choices=WEDGE_MODES,
            help="Wedge question: paper = odd gaps of 1, 3 or 5 between opposing edge discs; "
            "gap1 = the reference code's single gap",
        ),
    )
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    keymap: ClassVar[Mapping[str, Action]] = {"p": PASS}
    controls: ClassVar[str] = (
        "Click a square to place a disc; P or the Pass button passes when you have no move"
    )
    #: 60 placements, and a pass is always followed by a placement.
    max_episode_steps: ClassVar[int | None] = 120
    bots: ClassVar[Mapping[str, str]] = {
        "greedy": ".bots:GreedyBot",
        "alphabeta": ".bots:AlphaBetaBot",
    }
    default_opponent: ClassVar[str] = "alphabeta"
    sim_behaviour: ClassVar[str | None] = ".sim:OthelloSim"
    questions: ClassVar[str | None] = ".questions:QUESTIONS"
    extractor: ClassVar[str | None] = ".answers:extract_move"
    observation: ClassVar[str | None] = ".gym:BoardObservation"
    default_prompt: ClassVar[str] = "cot"

    def initial_state(self, seed: int | None = None) -> OthelloState:
        black, white = _START[self.options["start"]]
        return OthelloState(black=black, white=white, wedge=self.options["wedge"])

    def rules_text(self) -> str:
        return _RULES

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read ``"(D,3)"``, ``"(d, 3)"``, ``"(D 3)"``, ``"D3"``, ``"Chosen Move: (D,3)"`` or ``"pass"``.

        Raises:
            InvalidActionError: the text names no cell (or several different ones).
            IllegalActionError: the cell is taken or flips nothing, a pass while a move exists, the
                game is over or ``seat`` is not to move.
        """
        assert isinstance(state, OthelloState)
        cleaned = text.strip().strip("*`'\".:").strip()
        if cleaned.lower() == PASS:
            action = PASS
        else:
            action = cell_of(cleaned) or ""
            if not action:
                found = list(dict.fromkeys(
                    ACTIONS[(int(m.group(2)) - 1) * SIZE + COLUMNS.index(m.group(1).upper())]
                    for m in _LOOSE_CELL.finditer(cleaned)
                ))
                if len(found) > 1:
                    shown = ", ".join(found)
                    raise InvalidActionError(f"{text!r} names several squares ({shown}); choose one")
                if not found:
                    if re.search(r"\bpass\b", cleaned, re.IGNORECASE):
                        action = PASS
                    else:
                        raise InvalidActionError(f"{text!r} names no square; write (column,row), e.g. (D,3)")
                else:
                    action = found[0]
        return check_legal(state, action, seat)

    def state_from_json(self, data: JsonDict) -> OthelloState:
        with reading_state(data, "othello", "Othello"):
            fields = read_board(data, GAMEBOT_NAMING)
            wedge = data.get("wedge", "paper")
            if wedge not in WEDGE_MODES:
                raise ValueError(f"wedge must be one of {', '.join(WEDGE_MODES)}, not {wedge!r}")
        return OthelloState(**fields, wedge=wedge)


def check_legal(state: OthelloState, action: Action, seat: Seat | None) -> Action:
    """``action`` (a cell in the state's naming, or ``"pass"``) when ``seat`` may play it now.

    Raises:
        IllegalActionError: why not: the game is over, ``seat`` is not to move, the cell is taken or
            flips nothing, a pass while a move exists, a move while only a pass is possible.
    """
    legal = state.legal_actions(seat)
    if action in legal:
        return action
    if state.is_over:
        raise IllegalActionError(f"the game is over; {action} cannot be played")
    if seat is not None and seat not in state.to_act:
        raise IllegalActionError(f"seat {seat} is not to move")
    state.apply(action)  # raises the reason: taken, flips nothing, must pass, may not pass
    raise IllegalActionError(f"{action} is not legal here")


class BoardFields(TypedDict):
    """The fields every saved position holds (see :func:`read_board`)."""

    black: int
    white: int
    mover: int
    last_action: str | None
    ply: int


def read_board(data: JsonDict, naming: Naming) -> BoardFields:
    """The fields every saved position holds (``black``, ``white``, ``mover``, ``last_action``,
    ``ply``), read from ``data`` with cells named by ``naming``; call inside
    :func:`~engine.games._common.reading_state`.

    Raises:
        ValueError: a field is malformed (the message names it).
    """
    board = data["board"]
    if not isinstance(board, list) or len(board) != SIZE or any(
        not isinstance(row, str) or len(row) != SIZE or set(row) - {"B", "W", EMPTY} for row in board
    ):
        raise ValueError('board must be 8 strings of 8 characters "B", "W" or "."')
    black = white = 0
    for r, row in enumerate(board):
        for c, ch in enumerate(row):
            if ch == "B":
                black |= 1 << (r * SIZE + c)
            elif ch == "W":
                white |= 1 << (r * SIZE + c)
    mover = data["mover"]
    if mover not in (0, 1) or isinstance(mover, bool):
        raise ValueError(f"mover must be 0 or 1, not {mover!r}")
    last_action = data.get("last_action")
    if last_action is not None and last_action != PASS and last_action not in naming.index:
        raise ValueError(f"last_action {last_action!r} is not an action")
    ply = data["ply"]
    if not isinstance(ply, int) or isinstance(ply, bool) or ply < 0:
        raise ValueError(f"ply must be a whole number, not {ply!r}")
    return {"black": black, "white": white, "mover": mover, "last_action": last_action, "ply": ply}


_LOOSE_CELL = re.compile(r"(?<![A-Za-z])\(?\s*([A-Ha-h])\s*[,\s]?\s*([1-8])(?!\d)")
