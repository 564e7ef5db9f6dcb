"""Minesweeper, as LVLM-Playground plays it.

One player uncovers the cells of a grid that hides mines. Rows are lettered from the top (A-H on the
paper's 8x8 board) and columns numbered from the left (1-8), and a move names the cell to reveal:
``"B3"``. A revealed cell shows how many of its eight neighbours hide a mine; revealing a cell with
no mine around it (a 0) reveals its neighbours too, and so on across the connected empty region (the
flood fill). Revealing a mine loses at once; the game is won when only the mine cells are left
unrevealed. Each cell can be revealed only once.

The paper's board is 8x8 with 10 mines placed before the first move (the reference code has no
first-click safety). Options give the reference's other levels (``level``: easy 8x8/10, middle
12x12/30, hard 16x16/40), any size (``rows``, ``cols``, ``mines``), and ``safe_first``: the layout is
then drawn at the first reveal, away from that cell and its neighbours (the rule of most desktop
versions). It is off by default because the paper's end-to-end points count the first reveal like
any other, and a first-click loss is part of the score distribution it reports.

People may also flag cells: ``"flag B3"`` puts a flag on an unrevealed cell, or takes it off. A flag
is not a move (it scores nothing and is not counted in the paper's N_moves), a flagged cell cannot be
revealed until it is unflagged, and the flood fill leaves flagged cells alone. The paper plays with no
flags, so the model's prompt never mentions them; the ``flags`` option turns them off altogether.

The mine layout is the secret: :meth:`MinesweeperState.observe` masks it (the view keeps only what is
drawn on the screen, so it cannot be played forward), until the game is over. The score is the paper's
end-to-end points: 10 per reveal (the losing one included, as the reference counts it), 2 per revealed
safe cell (flood-filled ones included) and 1000 for a win (``State.metrics()["lvlm_points"]``).
"""

from __future__ import annotations

import dataclasses
import functools
import random
import re
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from engine.controls import Amount, Panel
from engine.core import (
    Action,
    Game,
    GameError,
    IllegalActionError,
    InvalidActionError,
    JsonDict,
    Seat,
    State,
    seats_of,
)
from engine.games._common import ONE_PLAYER, one_action, reading_state
from engine.options import Option, OptionError

__all__ = [
    "LEVELS",
    "MAX_COLS",
    "MAX_ROWS",
    "MINE",
    "ROW_LETTERS",
    "UNREVEALED",
    "WIN_BONUS",
    "Minesweeper",
    "MinesweeperState",
    "cell_name",
    "mine_counts",
    "neighbours",
    "parse_cell",
    "place_mines",
    "points",
    "state_of",
]

ROW_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_ROWS = len(ROW_LETTERS)
MAX_COLS = 30
#: The reference's levels: (rows, columns, mines).
LEVELS: dict[str, tuple[int, int, int]] = {"easy": (8, 8, 10), "middle": (12, 12, 30), "hard": (16, 16, 40)}
#: What a cell shows: not revealed yet, and a revealed mine (the paper's matrix encoding; 0-8 are
#: revealed counts).
UNREVEALED = -1
MINE = 9
#: The end-to-end points for a win, on top of the per-move and per-cell points.
WIN_BONUS = 1000
FLAG = "flag"

_CELL = re.compile(r"^\s*(?:([A-Za-z])\s*(\d{1,2})|(\d{1,2})\s*([A-Za-z]))\s*$")
_FLAG = re.compile(r"^\s*(?:flag|f)\s+(.+?)\s*$", re.IGNORECASE)


def cell_name(index: int, cols: int) -> str:
    """``(9, 8) -> "B2"``: the row letter then the column number."""
    return f"{ROW_LETTERS[index // cols]}{index % cols + 1}"


def parse_cell(text: str, rows: int, cols: int) -> int | None:
    """``"B3"`` (case, spaces and the reversed ``"3B"`` forgiven) to a cell index on a ``rows`` x
    ``cols`` board; ``None`` when the text is not a cell of that board."""
    match = _CELL.match(str(text))
    if not match:
        return None
    letter = (match.group(1) or match.group(4)).upper()
    number = int(match.group(2) or match.group(3))
    row, col = ROW_LETTERS.index(letter), number - 1
    if not (row < rows and 0 <= col < cols):
        return None
    return row * cols + col


@functools.lru_cache(maxsize=64)
def _neighbour_table(rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    table = []
    for i in range(rows * cols):
        r, c = divmod(i, cols)
        table.append(
            tuple(
                rr * cols + cc
                for rr in range(max(0, r - 1), min(rows, r + 2))
                for cc in range(max(0, c - 1), min(cols, c + 2))
                if (rr, cc) != (r, c)
            )
        )
    return tuple(table)


def neighbours(index: int, rows: int, cols: int) -> tuple[int, ...]:
    """The up to eight cells around ``index``, in reading order."""
    return _neighbour_table(rows, cols)[index]


@functools.lru_cache(maxsize=1024)
def mine_counts(mines: frozenset[int], rows: int, cols: int) -> tuple[int, ...]:
    """For every cell, how many of its neighbours hide a mine."""
    table = _neighbour_table(rows, cols)
    return tuple(sum(1 for j in table[i] if j in mines) for i in range(rows * cols))


def place_mines(
    rng: random.Random, rows: int, cols: int, count: int, avoid: frozenset[int] = frozenset()
) -> frozenset[int]:
    """``count`` distinct mine cells drawn uniformly from the cells not in ``avoid``."""
    pool = [i for i in range(rows * cols) if i not in avoid]
    return frozenset(rng.sample(pool, count))


def points(moves: int, revealed_safe: int, won: bool) -> int:
    """LVLM-Playground's end-to-end points: 10 per reveal, 2 per revealed safe cell, and
    :data:`WIN_BONUS` for a win."""
    return 10 * moves + 2 * revealed_safe + (WIN_BONUS if won else 0)


@dataclasses.dataclass(frozen=True, slots=True)
class MinesweeperState(State):
    """A Minesweeper position.

    Attributes:
        rows: Rows of the board (lettered from A at the top).
        cols: Columns (numbered from 1 at the left).
        mine_count: How many mines the board hides.
        shown: What every cell shows, in reading order: ``-1`` unrevealed, ``0``-``8`` a revealed
            count, ``9`` a revealed mine (the one that lost the game).
        mines: The mine cells; ``None`` in a seat's view (``hidden``) and, with ``safe_first``,
            before the first reveal.
        seed: With ``safe_first``, the seed the layout is drawn from at the first reveal; else ``None``.
        safe_first: Whether the first reveal is kept clear of mines.
        hidden: Whether this is a seat's view, which holds no layout and cannot be played forward.
        flags: The flagged cells.
        flagging: Whether ``"flag <cell>"`` actions are allowed.
        moves: How many reveals were made (flags are not moves).
        actions: How many actions were applied (reveals and flags): the step.
        last_action: The action that led here, or ``None`` at the start.
    """

    game_id: ClassVar[str] = "minesweeper"

    rows: int
    cols: int
    mine_count: int
    shown: tuple[int, ...]
    mines: frozenset[int] | None = None
    seed: int | None = None
    safe_first: bool = False
    hidden: bool = False
    flags: frozenset[int] = frozenset()
    flagging: bool = True
    moves: int = 0
    actions: int = 0
    last_action: Action | None = None

    # -- the board ------------------------------------------------------------------------------

    @property
    def size(self) -> int:
        return self.rows * self.cols

    def name(self, index: int) -> str:
        return cell_name(index, self.cols)

    def cell(self, text: str) -> int | None:
        return parse_cell(text, self.rows, self.cols)

    def around(self, index: int) -> tuple[int, ...]:
        return neighbours(index, self.rows, self.cols)

    def unrevealed(self) -> list[int]:
        return [i for i, v in enumerate(self.shown) if v == UNREVEALED]

    def revealed_safe(self) -> int:
        """How many safe cells are revealed (the paper's N_revealed)."""
        return sum(1 for v in self.shown if 0 <= v <= 8)

    @property
    def exploded(self) -> int | None:
        """The revealed mine's cell once the game is lost, else ``None``."""
        return self.shown.index(MINE) if MINE in self.shown else None

    @property
    def lost(self) -> bool:
        return MINE in self.shown

    @property
    def won(self) -> bool:
        return not self.lost and self.shown.count(UNREVEALED) == self.mine_count

    @property
    def mines_known(self) -> bool:
        """Whether this state holds the layout (the full state after the layout is drawn)."""
        return self.mines is not None

    # -- the contract ---------------------------------------------------------------------------

    @property
    def step(self) -> int:
        return self.actions

    @property
    def to_act(self) -> tuple[Seat, ...]:
        return () if self.lost or self.won else (0,)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        if seat not in (None, 0) or not self.to_act:
            return []
        cells = self.unrevealed()
        actions = [self.name(i) for i in cells if i not in self.flags]
        if self.flagging:
            actions.extend(f"{FLAG} {self.name(i)}" for i in cells)
        return actions

    def read(self, action: str) -> tuple[str, int] | None:
        """``("reveal", index)`` or ``("flag", index)`` for an action text, ``None`` if it is none."""
        text = str(action)
        flag = _FLAG.match(text)
        index = self.cell(flag.group(1) if flag else text)
        if index is None:
            return None
        return (FLAG if flag else "reveal", index)

    def why_illegal(self, kind: str, index: int) -> str:
        """Why the action cannot be played now, or ``""`` when it is legal."""
        name = self.name(index)
        if self.won:
            return "the game is won"
        if self.lost:
            return "the game is lost"
        if kind == FLAG and not self.flagging:
            return "flags are off in this game (the flags option); the paper plays without them"
        if self.shown[index] != UNREVEALED:
            shown = "a mine" if self.shown[index] == MINE else f"{self.shown[index]}"
            return f"{name} is already revealed (it shows {shown}); each cell is revealed once"
        if kind != FLAG and index in self.flags:
            return f"{name} is flagged; take the flag off first"
        return ""

    def apply(self, action: Action | Mapping[Seat, Action]) -> MinesweeperState:
        if isinstance(action, Mapping):
            action = one_action(action, "Minesweeper", (0,), ONE_PLAYER)
        move = self.read(action) if isinstance(action, str) else None
        if move is None:
            raise InvalidActionError(
                f"{action!r} is not a Minesweeper move; name a cell such as B3 "
                f"(rows A-{ROW_LETTERS[self.rows - 1]}, columns 1-{self.cols})"
            )
        kind, index = move
        reason = self.why_illegal(kind, index)
        if reason:
            raise IllegalActionError(
                f"{self.name(index)} cannot be {'flagged' if kind == FLAG else 'revealed'}: {reason}"
            )
        if kind == FLAG:
            flags = self.flags - {index} if index in self.flags else self.flags | {index}
            return dataclasses.replace(
                self,
                flags=frozenset(flags),
                actions=self.actions + 1,
                last_action=f"{FLAG} {self.name(index)}",
            )
        if self.hidden:
            raise GameError("a seat's view holds no mine layout and cannot be played forward")
        mines, seed = self.mines, self.seed
        if mines is None:  # safe_first: the layout is drawn now, away from the first cell
            around = frozenset({index, *self.around(index)})
            avoid = around if self.size - len(around) >= self.mine_count else frozenset({index})
            mines = place_mines(random.Random(seed), self.rows, self.cols, self.mine_count, avoid)
            seed = None
        shown = list(self.shown)
        if index in mines:
            shown[index] = MINE
        else:
            counts = mine_counts(mines, self.rows, self.cols)
            flood(shown, counts, index, self.rows, self.cols, self.flags)
        return dataclasses.replace(
            self,
            shown=tuple(shown),
            mines=mines,
            seed=seed,
            moves=self.moves + 1,
            actions=self.actions + 1,
            last_action=self.name(index),
        )

    @property
    def scores(self) -> tuple[float, ...]:
        return (float(points(self.moves, self.revealed_safe(), self.won)),)

    @property
    def winner(self) -> Seat | None:
        return 0 if self.won else None

    def metrics(self) -> dict[str, float]:
        return {
            "lvlm_points": float(points(self.moves, self.revealed_safe(), self.won)),
            "moves": float(self.moves),
            "revealed": float(self.revealed_safe()),
            "safe_cells": float(self.size - self.mine_count),
            "won": float(self.won),
            "lost": float(self.lost),
            "flags": float(len(self.flags)),
        }

    # -- information ----------------------------------------------------------------------------

    def observe(self, seat: Seat) -> MinesweeperState:
        """The board as the player sees it: the revealed cells and the flags, no layout (and no seed
        to draw it from). Once the game is over nothing is secret and the full state is returned."""
        if self.hidden or self.is_over:
            return self
        return dataclasses.replace(self, mines=None, seed=None, hidden=True)

    def secrets(self, seat: Seat) -> frozenset[str]:
        """Nothing: the layout is hidden from every seat alike (it is nature's, not a seat's), so no
        seat holds a word another seat may not see. :meth:`observe` is what hides it."""
        return frozenset()

    # -- text views -----------------------------------------------------------------------------

    def symbol(self, index: int) -> str:
        """One character per cell, as the text view writes it."""
        value = self.shown[index]
        if value == MINE:
            return "X"
        if value == 0:
            return "."
        if value > 0:
            return str(value)
        if self.is_over and self.mines is not None and index in self.mines:
            return "*"
        return "F" if index in self.flags else "#"

    def grid_text(self) -> str:
        """The board with its coordinates: row letters on the left, column numbers on top."""
        width = len(str(self.cols))
        head = " " * 3 + " ".join(str(c + 1).rjust(width) for c in range(self.cols))
        lines = [head]
        for r in range(self.rows):
            cells = " ".join(self.symbol(r * self.cols + c).rjust(width) for c in range(self.cols))
            lines.append(f"{ROW_LETTERS[r]}  {cells}")
        return "\n".join(lines)

    def status_text(self) -> str:
        if self.won:
            return "Won: only the mines are left unrevealed."
        if self.lost:
            exploded = self.exploded
            where = f" at {self.name(exploded)}" if exploded is not None else ""
            return f"Lost: a mine was revealed{where}."
        left = self.size - self.mine_count - self.revealed_safe()
        return f"{left} safe cell{'s' if left != 1 else ''} left to reveal."

    def text(self, seat: Seat | None = None) -> str:
        last = ROW_LETTERS[self.rows - 1]
        lines = [
            f"Minesweeper board, {self.rows}x{self.cols} with {self.mine_count} mines "
            f"(rows A-{last} top to bottom, columns 1-{self.cols} left to right).",
            "# unrevealed, . revealed with no adjacent mine, 1-8 revealed with that many adjacent mines"
            + (", F flagged" if self.flags else "")
            + (", * a mine, X the mine revealed" if self.is_over else "")
            + ":",
            self.grid_text(),
            f"Moves: {self.moves}. Revealed safe cells: {self.revealed_safe()} "
            f"of {self.size - self.mine_count}.",
            self.status_text(),
        ]
        return "\n".join(lines)

    def notice(self, seat: Seat | None = None) -> str:
        if self.is_over:
            return self.status_text()
        flagged = len(self.flags)
        return f"{self.mine_count - flagged} mines left to flag" if flagged else ""

    def to_json(self) -> JsonDict:
        return {
            "game": self.game_id,
            "rows": self.rows,
            "cols": self.cols,
            "mine_count": self.mine_count,
            "shown": [list(self.shown[r * self.cols : (r + 1) * self.cols]) for r in range(self.rows)],
            "mines": None if self.mines is None else [self.name(i) for i in sorted(self.mines)],
            "seed": self.seed,
            "safe_first": self.safe_first,
            "hidden": self.hidden,
            "flags": [self.name(i) for i in sorted(self.flags)],
            "flagging": self.flagging,
            "moves": self.moves,
            "actions": self.actions,
            "last_action": self.last_action,
        }

    # -- people and readers ---------------------------------------------------------------------

    def panel(self, seat: Seat) -> Panel | None:
        """Row and column pickers with a Flag button that puts a flag on the chosen cell or takes it
        off (clicking a cell on the board reveals it)."""
        if seat != 0 or not self.to_act or not self.flagging:
            return None
        cells = self.unrevealed()
        start = next((i for i in cells if i not in self.flags), cells[0])
        amounts = (
            Amount(
                "row", "Row", 0, self.rows - 1, start // self.cols, labels=tuple(ROW_LETTERS[: self.rows])
            ),
            Amount("col", "Column", 1, self.cols, start % self.cols + 1),
        )

        def pick(values: Mapping[str, int]) -> int:
            row = max(0, min(self.rows - 1, int(values.get("row", 0))))
            col = max(1, min(self.cols, int(values.get("col", 1))))
            return row * self.cols + col - 1

        def compose(values: Mapping[str, int]) -> Action:
            return f"{FLAG} {self.name(pick(values))}"

        def summary(values: Mapping[str, int]) -> str:
            index = pick(values)
            reason = self.why_illegal(FLAG, index)
            if reason:
                return f"Not allowed: {reason}"
            if index in self.flags:
                return f"Takes the flag off {self.name(index)}"
            return f"Flags {self.name(index)} (not a move; click a cell to reveal it)"

        return Panel("Flags", (), amounts, "Flag", compose, summary)

    def annotate(self, action: Action, seat: Seat | None = None) -> str:
        """Notes that a flag is not a move (it changes nothing the paper scores)."""
        move = self.read(action)
        if move is not None and move[0] == FLAG:
            return "a flag only marks a cell; it reveals nothing and is not a move"
        return ""


def flood(
    shown: list[int], counts: tuple[int, ...], start: int, rows: int, cols: int, flags: frozenset[int]
) -> int:
    """Reveal ``start`` (a safe cell) in ``shown``, and every cell a chain of 0s connects to it;
    flagged cells are left alone. Returns how many cells were revealed."""
    table = _neighbour_table(rows, cols)
    shown[start] = counts[start]
    revealed = 1
    queue = deque([start] if counts[start] == 0 else [])
    while queue:
        for j in table[queue.popleft()]:
            if shown[j] == UNREVEALED and j not in flags:
                shown[j] = counts[j]
                revealed += 1
                if counts[j] == 0:
                    queue.append(j)
    return revealed


def state_of(
    rows: int,
    cols: int,
    mines: set[int] | frozenset[int] | list[str],
    revealed: str | Sequence[str] = (),
    *,
    flags: Sequence[str] = (),
    flagging: bool = True,
) -> MinesweeperState:
    """A full state with the mines at ``mines`` (indices or cell names) after revealing each cell of
    ``revealed`` in turn (a cell name or a list of them; each flood-fills as in play). For tests,
    tasks and examples."""
    named = [m for m in mines if isinstance(m, str)]
    cells = frozenset(
        {m for m in mines if isinstance(m, int)} | {_must(parse_cell(m, rows, cols), m) for m in named}
    )
    state = MinesweeperState(
        rows=rows,
        cols=cols,
        mine_count=len(cells),
        shown=(UNREVEALED,) * (rows * cols),
        mines=cells,
        flagging=flagging,
    )
    for flag in flags:
        state = state.apply(f"{FLAG} {flag}")
    for cell in [revealed] if isinstance(revealed, str) else revealed:
        state = state.apply(cell)
    return state


def _must(index: int | None, text: str) -> int:
    if index is None:
        raise ValueError(f"{text!r} is not a cell of the board")
    return index


_RULES = """\
Minesweeper on a {rows}x{cols} grid hiding {mines} mines. Rows are labelled A to {last} from top to
bottom and columns 1 to {cols} from left to right, so A1 is the top-left cell. Each move reveals one
unrevealed cell, written <row><column>, for example B3. A revealed cell shows how many of its eight
neighbours hide a mine; a cell with no mine around it opens its neighbours automatically. Revealing a
mine loses the game. You win when every cell without a mine is revealed, so that only the {mines} mine
cells remain unrevealed. Each cell can be revealed only once; there is no flagging."""


class Minesweeper(Game):
    """Minesweeper (LVLM-Playground): one player, mines placed from the seed."""

    id: ClassVar[str] = "minesweeper"
    title: ClassVar[str] = "Minesweeper"
    suites: ClassVar[tuple[str, ...]] = ("lvlm",)
    tasks: ClassVar[str | None] = ".lvlm"
    description: ClassVar[str] = "Reveal every cell without a mine; numbers count the mines around a cell."
    seats = seats_of(["Player"])
    perfect_information: ClassVar[bool] = False
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option(
            "level",
            str,
            "easy",
            "The reference's board: easy 8x8 with 10 mines (the paper's), middle 12x12 with 30, "
            "hard 16x16 with 40",
            choices=tuple(LEVELS),
        ),
        Option("rows", int, 0, "Rows of the board (0: the level's)", minimum=0, maximum=MAX_ROWS),
        Option(
            "cols",
            int,
            0,
            "Columns of the board (0: the level's)",
            minimum=0,
            maximum=MAX_COLS,
            label="Columns",
        ),
        Option(
            "mines", int, 0, "Mines on the board (0: the level's)", minimum=0, maximum=MAX_ROWS * MAX_COLS - 1
        ),
        Option(
            "safe_first",
            bool,
            False,
            "Draw the mines at the first reveal, away from that cell and its neighbours; the paper "
            "places them before the first move",
        ),
        Option("flags", bool, True, "Allow 'flag <cell>' to mark cells (not a move; the paper has no flags)"),
    )
    #: Every unrevealed cell can be revealed and flagged: at most two actions per cell.
    action_bound: int | None = 2 * MAX_ROWS * MAX_COLS
    controls: ClassVar[str] = "Click a cell to reveal it; right-click a cell to flag it or take its flag off"
    bots: ClassVar[Mapping[str, str]] = {"solver": ".bots:SolverBot"}
    default_opponent: ClassVar[str] = "solver"
    sim_bot: ClassVar[str | None] = "solver"
    sim_behaviour: ClassVar[str | None] = ".sim:MinesweeperSim"
    extractor: ClassVar[str | None] = ".answers:extract_move"
    default_prompt: ClassVar[str] = "default"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        rows, cols, mines = LEVELS[self.options["level"]]
        self.rows: int = self.options["rows"] or rows
        self.cols: int = self.options["cols"] or cols
        self.mine_count: int = self.options["mines"] or mines
        self.safe_first: bool = self.options["safe_first"]
        self.flagging: bool = self.options["flags"]
        if self.mine_count > self.rows * self.cols - 1:
            whose = "" if self.options["mines"] else f" (the {self.options['level']} level's)"
            raise OptionError(
                f"option 'mines': {self.mine_count} mines{whose} do not fit a {self.rows}x{self.cols} "
                f"board; at most {self.rows * self.cols - 1}"
            )
        self.action_bound = 2 * self.rows * self.cols

    def initial_state(self, seed: int | None = None) -> MinesweeperState:
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"a Minesweeper seed is an integer, not {seed!r}")
        blank = (UNREVEALED,) * (self.rows * self.cols)
        state = MinesweeperState(
            rows=self.rows,
            cols=self.cols,
            mine_count=self.mine_count,
            shown=blank,
            safe_first=self.safe_first,
            flagging=self.flagging,
        )
        if self.safe_first:
            return dataclasses.replace(state, seed=seed)
        mines = place_mines(random.Random(seed), self.rows, self.cols, self.mine_count)
        return dataclasses.replace(state, mines=mines)

    def rules_text(self) -> str:
        return _RULES.format(
            rows=self.rows, cols=self.cols, mines=self.mine_count, last=ROW_LETTERS[self.rows - 1]
        )

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read ``"B3"`` (case and the reversed ``"3B"`` forgiven) or ``"flag B3"``.

        Raises:
            InvalidActionError: the text is not a cell of the board.
            IllegalActionError: the cell is revealed (or flagged), or the game is over.
        """
        if not isinstance(state, MinesweeperState):
            raise InvalidActionError("not a Minesweeper state")
        move = state.read(text)
        if move is None:
            raise InvalidActionError(
                f"{text!r} is not a cell; write <row><column> such as B3 "
                f"(rows A-{ROW_LETTERS[state.rows - 1]}, columns 1-{state.cols})"
            )
        if seat not in (None, 0):
            raise IllegalActionError(f"seat {seat} does not play Minesweeper")
        kind, index = move
        reason = state.why_illegal(kind, index)
        if reason:
            raise IllegalActionError(f"{state.name(index)}: {reason}")
        return f"{FLAG} {state.name(index)}" if kind == FLAG else state.name(index)

    def state_from_json(self, data: JsonDict) -> MinesweeperState:
        with reading_state(data, "minesweeper", "Minesweeper"):
            rows, cols, count = (_int(data[k], k, 1) for k in ("rows", "cols", "mine_count"))
            if rows > MAX_ROWS or cols > MAX_COLS or count >= rows * cols:
                raise ValueError(f"a {rows}x{cols} board with {count} mines is not a Minesweeper board")
            grid = data["shown"]
            if (
                not isinstance(grid, list)
                or len(grid) != rows
                or any(not isinstance(row, list) or len(row) != cols for row in grid)
            ):
                raise ValueError(f"shown must be {rows} rows of {cols} values")
            shown = tuple(v for row in grid for v in row)
            if any(
                not isinstance(v, int) or isinstance(v, bool) or not UNREVEALED <= v <= MINE for v in shown
            ):
                raise ValueError("every shown value is -1 (unrevealed), 0-8 or 9 (a revealed mine)")
            mines = (
                None if data.get("mines") is None else frozenset(_cells(data["mines"], rows, cols, "mines"))
            )
            if mines is not None:
                if len(mines) != count:
                    raise ValueError(f"mines lists {len(mines)} cells, not {count}")
                counts = mine_counts(mines, rows, cols)
                for i, v in enumerate(shown):
                    if v == MINE and i not in mines or 0 <= v <= 8 and (i in mines or v != counts[i]):
                        raise ValueError(f"{cell_name(i, cols)} shows {v}, which the mines contradict")
            seed = data.get("seed")
            if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
                raise ValueError("seed must be an integer or null")
            flags = frozenset(_cells(data.get("flags", []), rows, cols, "flags"))
            if any(shown[i] != UNREVEALED for i in flags):
                raise ValueError("a revealed cell cannot carry a flag")
            moves, actions = (
                _int(data.get("moves", 0), "moves", 0),
                _int(data.get("actions", 0), "actions", 0),
            )
            flags_on, safe_first, hidden = (
                _bool(data.get(k, d), k)
                for k, d in (("flagging", True), ("safe_first", False), ("hidden", False))
            )
            last = data.get("last_action")
            if last is not None and not isinstance(last, str):
                raise ValueError("last_action must be text or null")
        return MinesweeperState(
            rows=rows, cols=cols, mine_count=count, shown=shown, mines=mines, seed=seed,
            safe_first=safe_first, hidden=hidden, flags=flags, flagging=flags_on, moves=moves,
            actions=actions, last_action=last,
        )  # fmt: skip


def _int(value: Any, name: str, low: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"{name} must be an integer of at least {low}")
    return value


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false")
    return value


def _cells(names: Any, rows: int, cols: int, what: str) -> list[int]:
    if not isinstance(names, list):
        raise ValueError(f"{what} must be a list of cells")
    cells = [parse_cell(n, rows, cols) if isinstance(n, str) else None for n in names]
    if any(c is None for c in cells) or len(set(cells)) != len(cells):
        raise ValueError(f"{what} must name distinct cells of the board")
    return [c for c in cells if c is not None]
