"""Surround (Atari 2600's snake/Tron duel), as GameBot plays it, simulated without a ROM.

Two players ride on a grid (20 rows x 40 columns by default) with a wall of 1s all round its edge.
Every tick both move one cell at once (a simultaneous game) and every cell either has visited stays a
wall: its trail. Moving into a wall, a trail, a head or off the grid crashes. One crash: the other
player wins. Both crash in the same tick, or both enter the same cell (a head-on): a draw. A game
that reaches ``max_steps`` ticks with both alive is a draw too.

Design decisions, where GameBot leaves room:

* Seat 0 ("Cyan", GameBot's agent 1) starts at (10,30) heading left; seat 1 ("Magenta", agent 2)
  at (10,10) heading right. On other grid sizes: the middle row, a quarter of the width in from
  each side.
* Actions are ``"up"``, ``"down"``, ``"left"``, ``"right"`` (GameBot's "Move Up" ...) and
  ``"straight"``, which keeps the current heading. ``"straight"`` is the :attr:`Surround.default_action`:
  a person who presses nothing keeps riding, as on the Atari. All five are legal every tick; a move
  into a wall is legal and loses (as in GameBot, where any action set is valid).
* Turning back into your own last cell is a crash: that cell is part of your trail (value 2 in your
  view, not 0), so GameBot's "valid moves" never contain it. Before the first move there is no last
  cell and every direction is open.

Each seat's view codes itself as 2 (last position) / 3 (current position) and the opponent as 4 / 5
(GameBot prompts each agent with "Your" and "Opponent's" values); older trail cells are 1.
"""

from __future__ import annotations

import dataclasses
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
    SeatInfo,
    State,
)
from engine.games._common import ARROW_KEYS, reading_state
from engine.games.surround.board import (
    EMPTY,
    MOVES,
    OPPONENT_CURRENT,
    OPPONENT_LAST,
    WALL,
    YOUR_CURRENT,
    YOUR_LAST,
    Cell,
    neighbour,
    value_at,
)
from engine.options import Option

__all__ = ["ACTIONS", "NAMES", "STRAIGHT", "Surround", "SurroundState", "start_cells"]

STRAIGHT = "straight"
#: Every action: the four moves, then "keep going" (the default action).
ACTIONS: tuple[Action, ...] = (*MOVES, STRAIGHT)
#: Seat names: the colours the renderer draws them in.
NAMES: tuple[str, str] = ("Cyan", "Magenta")
#: The heading of each seat before its first move (towards the middle).
START_HEADINGS: tuple[str, str] = ("left", "right")
_VALUE_WORDS = {
    EMPTY: "empty",
    WALL: "wall",
    YOUR_LAST: "your last position",
    YOUR_CURRENT: "your current position",
    OPPONENT_LAST: "opponent's last position",
    OPPONENT_CURRENT: "opponent's current position",
}


def start_cells(rows: int, cols: int) -> tuple[Cell, Cell]:
    """Where the seats start: GameBot's (10,30) and (10,10) on a 20 x 40 grid."""
    return (rows // 2, (3 * cols) // 4), (rows // 2, cols // 4)


def _cell_text(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]})"


@dataclasses.dataclass(frozen=True, slots=True)
class SurroundState(State):
    """A Surround position.

    Attributes:
        rows: Grid height, the border included.
        cols: Grid width, the border included.
        trails: Every cell each seat has occupied, oldest first; the last is its head.
        tick: Joint moves played so far.
        max_steps: The tick at which a game with both players alive ends in a draw.
        crashed: Whether each seat has crashed.
        crash_at: The cell each crashed seat tried to enter (``None`` while alive).
    """

    game_id: ClassVar[str] = "surround"

    rows: int = 20
    cols: int = 40
    trails: tuple[tuple[Cell, ...], tuple[Cell, ...]] = (((10, 30),), ((10, 10),))
    tick: int = 0
    max_steps: int = 1000
    crashed: tuple[bool, bool] = (False, False)
    crash_at: tuple[Cell | None, Cell | None] = (None, None)

    # -- the contract ---------------------------------------------------------------------------

    @property
    def step(self) -> int:
        return self.tick

    @property
    def to_act(self) -> tuple[Seat, ...]:
        if any(self.crashed) or self.tick >= self.max_steps:
            return ()
        return (0, 1)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        to_act = self.to_act
        if not to_act or (seat is not None and seat not in to_act):
            return []
        return list(ACTIONS)

    def apply(self, action: Action | Mapping[Seat, Action]) -> SurroundState:
        if self.is_over:
            raise IllegalActionError("the game is over; no move can be played")
        if not isinstance(action, Mapping):
            raise IllegalActionError("Surround is simultaneous: apply {0: action, 1: action}")
        if set(action) != {0, 1}:
            raise IllegalActionError(f"both seats (0 and 1) move every tick, not {sorted(action)}")
        moves = [self.resolve(seat, action[seat]) for seat in (0, 1)]
        targets = [neighbour(self.head(seat), moves[seat]) for seat in (0, 1)]
        crash = [self.blocked(t) for t in targets]
        if targets[0] == targets[1]:
            crash = [True, True]  # head-on into the same cell
        def grown(seat: Seat) -> tuple[Cell, ...]:
            trail = self.trails[seat]
            return trail if crash[seat] else (*trail, targets[seat])

        return dataclasses.replace(
            self,
            trails=(grown(0), grown(1)),
            tick=self.tick + 1,
            crashed=(crash[0], crash[1]),
            crash_at=(targets[0] if crash[0] else None, targets[1] if crash[1] else None),
        )

    @property
    def winner(self) -> Seat | None:
        if self.crashed == (True, False):
            return 1
        if self.crashed == (False, True):
            return 0
        return None

    @property
    def scores(self) -> tuple[float, ...]:
        """+1 to the survivor and −1 to the player who crashed (ALE's reward); 0 each otherwise."""
        winner = self.winner
        if winner is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)

    def metrics(self) -> dict[str, float]:
        return {
            "ticks": float(self.tick),
            "cells_0": float(len(self.trails[0])),
            "cells_1": float(len(self.trails[1])),
        }

    # -- geometry -------------------------------------------------------------------------------

    def head(self, seat: Seat) -> Cell:
        """Where ``seat`` is now."""
        return self.trails[seat][-1]

    def last(self, seat: Seat) -> Cell | None:
        """Where ``seat`` was one tick ago (``None`` before its first move)."""
        trail = self.trails[seat]
        return trail[-2] if len(trail) > 1 else None

    def heading(self, seat: Seat) -> str:
        """The direction ``seat`` is riding in (its start heading before the first move)."""
        last = self.last(seat)
        if last is None:
            return START_HEADINGS[seat]
        head = self.head(seat)
        step = (head[0] - last[0], head[1] - last[1])
        return {(-1, 0): "up", (1, 0): "down", (0, -1): "left", (0, 1): "right"}[step]

    def resolve(self, seat: Seat, action: Action) -> str:
        """The direction ``action`` moves ``seat`` in (``"straight"`` is its heading).

        Raises:
            InvalidActionError: ``action`` is not one of :data:`ACTIONS`.
        """
        if action not in ACTIONS:
            raise InvalidActionError(f"{action!r} is not a Surround action; use {', '.join(ACTIONS)}")
        return self.heading(seat) if action == STRAIGHT else action

    def blocked(self, cell: Cell) -> bool:
        """Whether entering ``cell`` crashes: the border, outside the grid, or any trail."""
        r, c = cell
        if r <= 0 or c <= 0 or r >= self.rows - 1 or c >= self.cols - 1:
            return True
        return cell in self.trails[0] or cell in self.trails[1]

    def matrix(self, seat: Seat | None = None) -> list[list[int]]:
        """The value matrix as ``seat`` sees it: 2/3 for itself, 4/5 for the opponent (seat 0's view
        when ``seat`` is ``None``)."""
        me = 0 if seat is None else seat
        grid = [[EMPTY] * self.cols for _ in range(self.rows)]
        grid[0] = [WALL] * self.cols
        grid[-1] = [WALL] * self.cols
        for row in grid[1:-1]:
            row[0] = row[-1] = WALL
        for who in (me, 1 - me):
            trail = self.trails[who]
            for r, c in trail:
                grid[r][c] = WALL
            last_code, current_code = (
                (YOUR_LAST, YOUR_CURRENT) if who == me else (OPPONENT_LAST, OPPONENT_CURRENT)
            )
            if len(trail) > 1:
                r, c = trail[-2]
                grid[r][c] = last_code
            r, c = trail[-1]
            grid[r][c] = current_code
        return grid

    # -- text views -----------------------------------------------------------------------------

    def status_text(self) -> str:
        """Who crashed where, who won, or whose turn it is."""
        parts = []
        for seat in (0, 1):
            if self.crashed[seat]:
                cell = self.crash_at[seat]
                where = f" at {_cell_text(cell)}" if cell is not None else ""
                parts.append(f"{NAMES[seat]} crashed{where}.")
        if self.winner is not None:
            parts.append(f"{NAMES[self.winner]} wins.")
        elif self.is_over:
            parts.append("Draw." if any(self.crashed) else f"Draw: {self.max_steps} ticks, both alive.")
        else:
            parts.append(f"Tick {self.tick}: both players move.")
        return " ".join(parts)

    def listing(self, seat: Seat | None = None) -> str:
        """GameBot's cell listing, one grid row per line: ``(0,0):1 (0,1):1 ...``."""
        grid = self.matrix(seat)
        return "\n".join(" ".join(f"({r},{c}):{v}" for c, v in enumerate(row)) for r, row in enumerate(grid))

    def trace_text(self, seat: Seat) -> str:
        """``(10,30)->(10,29)->...``: every cell ``seat`` has occupied."""
        return "->".join(_cell_text(cell) for cell in self.trails[seat])

    def text(self, seat: Seat | None = None) -> str:
        if seat is None:
            head = [
                f"Grid {self.rows} x {self.cols}, (row,col) with (0,0) top-left; tick {self.tick}.",
                f"{NAMES[0]}: last position 2, current position 3. "
                f"{NAMES[1]}: last position 4, current position 5.",
                f"{NAMES[0]}'s moving trace: {self.trace_text(0)}",
                f"{NAMES[1]}'s moving trace: {self.trace_text(1)}",
            ]
        else:
            other = NAMES[1 - seat]
            head = [
                f"You are {NAMES[seat]}, at {_cell_text(self.head(seat))}, moving "
                f"{self.heading(seat).capitalize()}; {other} is at {_cell_text(self.head(1 - seat))}.",
                "Values: 0 empty, 1 wall, 2 your last position, 3 your current position, "
                "4 opponent's last position, 5 opponent's current position.",
                f"Your moving trace: {self.trace_text(seat)}",
            ]
        return "\n".join([*head, "Current Game State:", self.listing(seat), self.status_text()])

    def notice(self, seat: Seat | None = None) -> str:
        return self.status_text() if self.is_over else ""

    def annotate(self, action: Action, seat: Seat | None = None) -> str:
        """Warn about a move into a non-empty cell, and say where "straight" goes."""
        if seat is None or self.is_over or action not in ACTIONS:
            return ""
        move = self.resolve(seat, action)
        target = neighbour(self.head(seat), move)
        value = value_at(self.matrix(seat), target)
        note = f"keeps moving {move.capitalize()}" if action == STRAIGHT else ""
        if value != EMPTY:
            what = _VALUE_WORDS.get(value, "outside the grid")
            crash = f"{_cell_text(target)} is {what} ({value}): this move crashes"
            note = f"{note}; {crash}" if note else crash
        return note

    def to_json(self) -> JsonDict:
        return {
            "game": self.game_id,
            "rows": self.rows,
            "cols": self.cols,
            "trails": [[list(cell) for cell in trail] for trail in self.trails],
            "tick": self.tick,
            "max_steps": self.max_steps,
            "crashed": list(self.crashed),
            "crash_at": [list(c) if c is not None else None for c in self.crash_at],
        }


_DIRECTION_WORD = re.compile(r"\b(up|down|left|right)\b")
_MOVE_PHRASE = re.compile(r"\bmove[ \t]*(up|down|left|right)\b")
_KEEP = re.compile(r"\b(straight|keep going|keep moving|continue|no ?op)\b")

_RULES = """\
Surround: two players ride on a grid with a wall all round its edge, both moving one cell at a time,
at the same time. Every cell a player has visited stays a wall behind it (its trail). Moving into a
wall, a trail (yours included: turning straight back is a crash), the other player or off the grid
crashes and loses; if both crash in the same tick, or both enter the same cell, it is a draw.
Coordinates are (row,col) with (0,0) the top-left corner; Up lowers the row, Left lowers the column.
Answer with one of Move Up, Move Down, Move Left or Move Right."""


class Surround(Game):
    """Surround (GameBot): a simultaneous snake/Tron duel on a walled grid."""

    id: ClassVar[str] = "surround"
    title: ClassVar[str] = "Surround"
    suites: ClassVar[tuple[str, ...]] = ("gamebot",)
    description: ClassVar[str] = "Two riders leave walls behind them; whoever crashes first loses."
    seats = (SeatInfo(NAMES[0], "C"), SeatInfo(NAMES[1], "M"))
    simultaneous: ClassVar[bool] = True
    tick_s: ClassVar[float | None] = 0.25
    default_action: ClassVar[Action | None] = STRAIGHT
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option("rows", int, 20, "Grid height, the border wall included (GameBot: 20)", minimum=6, maximum=60),
        Option("cols", int, 40, "Grid width, the border wall included (GameBot: 40)", minimum=8, maximum=120),
        Option(
            "max_steps",
            int,
            1000,
            "Ticks after which a game with both players alive is a draw",
            minimum=1,
            maximum=100_000,
        ),
    )
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    keymap: ClassVar[Mapping[str, Action]] = ARROW_KEYS
    controls: ClassVar[str] = "Arrows or W A S D turn; press nothing and you keep going straight"
    bots: ClassVar[Mapping[str, str]] = {"survivor": ".bots:SurvivorBot", "hunter": ".bots:HunterBot"}
    default_opponent: ClassVar[str] = "survivor"
    sim_behaviour: ClassVar[str | None] = ".sim:SurroundSim"
    questions: ClassVar[str | None] = ".questions:QUESTIONS"
    extractor: ClassVar[str | None] = ".answers:extract_move"
    default_prompt: ClassVar[str] = "cot"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)

    def initial_state(self, seed: int | None = None) -> SurroundState:
        rows, cols = self.options["rows"], self.options["cols"]
        a, b = start_cells(rows, cols)
        return SurroundState(rows=rows, cols=cols, trails=((a,), (b,)), max_steps=self.options["max_steps"])

    def rules_text(self) -> str:
        return _RULES

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read ``"Move Up"``, ``"up"``, ``"UP"`` or ``"straight"`` (the last one named wins).

        Raises:
            InvalidActionError: the text names no move.
            IllegalActionError: the game is over or ``seat`` does not move now.
        """
        lowered = " ".join(text.strip().lower().split())
        found = list(_MOVE_PHRASE.finditer(lowered)) or list(_DIRECTION_WORD.finditer(lowered))
        if found:
            action = found[-1].group(1)
        elif _KEEP.search(lowered):
            action = STRAIGHT
        else:
            raise InvalidActionError(
                f"{text!r} names no move; answer Move Up, Move Down, Move Left or Move Right"
            )
        if action not in state.legal_actions(seat):
            if state.is_over:
                raise IllegalActionError(f"the game is over; {action!r} cannot be played")
            raise IllegalActionError(f"seat {seat} does not move now")
        return action

    def state_from_json(self, data: JsonDict) -> SurroundState:
        with reading_state(data, "surround", "Surround"):
            rows, cols = int(data["rows"]), int(data["cols"])
            if not (3 <= rows and 3 <= cols):
                raise ValueError(f"a {rows} x {cols} grid has no room inside its wall")
            trails = tuple(tuple((int(r), int(c)) for r, c in trail) for trail in data["trails"])
            if len(trails) != 2 or not all(trails):
                raise ValueError("trails must hold two non-empty lists of cells")
            seen: set[Cell] = set()
            for trail in trails:
                for i, (r, c) in enumerate(trail):
                    if not (0 < r < rows - 1 and 0 < c < cols - 1):
                        raise ValueError(f"trail cell ({r},{c}) is not inside the wall")
                    if (r, c) in seen:
                        raise ValueError(f"cell ({r},{c}) is visited twice")
                    seen.add((r, c))
                    if i and abs(r - trail[i - 1][0]) + abs(c - trail[i - 1][1]) != 1:
                        raise ValueError(f"trail step to ({r},{c}) is not one cell")
            crashed = tuple(bool(x) for x in data["crashed"])
            crash_at: list[Cell | None] = []
            for at in data["crash_at"]:
                if at is None:
                    crash_at.append(None)
                else:
                    r, c = at  # a cell is a pair: anything else is a malformed state
                    crash_at.append((int(r), int(c)))
            if len(crashed) != 2 or len(crash_at) != 2:
                raise ValueError("crashed and crash_at need one entry per seat")
            tick, max_steps = int(data["tick"]), int(data["max_steps"])
            if tick < 0 or max_steps < 1:
                raise ValueError("tick must be >= 0 and max_steps >= 1")
        return SurroundState(
            rows=rows,
            cols=cols,
            trails=trails,
            tick=tick,
            max_steps=max_steps,
            crashed=crashed,
            crash_at=(crash_at[0], crash_at[1]),
        )
