"""Tetris bots: a placement bot that scores every landing spot with Pierre Dellacherie's features.

For the falling piece (and, when hold is free, for the piece hold would bring out) the bot tries every
rotation and column it can reach by turning first, then sliding, then dropping, played through the
game's own rules (kicks, gravity and all), and scores the board each placement leaves with
Dellacherie's six features and weights:

* landing height (-1): how high the piece comes to rest (the middle of its rows);
* eroded piece cells (+1): lines cleared times the piece's own cells in them;
* row transitions (-1) and column transitions (-1): filled/empty changes along rows and columns,
  walls and floor counting as filled;
* holes (-4): empty cells with a block above them;
* cumulative wells (-1): for each well (an empty cell with filled neighbours on both sides) 1 + 2 + ...
  down its depth.

It plays the first action of the best plan and plans again on the next turn, so gravity or a blocked
move simply leads to a new plan. The values it reports are those of the best plan starting with each
action.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from engine.bots.base import SearchBot
from engine.core import Action, Game
from engine.games.tetris.pieces import SPAWN
from engine.games.tetris.rules import HEIGHT, WIDTH, TetrisState, drop_row, fits, lock_piece
from engine.players import Observation

__all__ = ["DellacherieBot", "Plan", "evaluate_board", "plans"]

#: Dellacherie's weights: landing height, eroded cells, row and column transitions, holes, wells.
WEIGHTS = (-1.0, 1.0, -1.0, -1.0, -4.0, -1.0)
FEATURES = ("landing height", "eroded cells", "row transitions", "column transitions", "holes", "wells")
_FULL = (1 << WIDTH) - 1
#: The value of a plan that ends the game.
TOPPED_OUT = -1_000_000.0


@dataclasses.dataclass(frozen=True, slots=True)
class Plan:
    """One placement of a piece and how to get there.

    Attributes:
        actions: The actions that lead to it, the last one the drop that places the piece.
        piece: The piece placed.
        rotation: Its rotation where it lands.
        cells: The (row, column) cells it covers there.
        lines: The lines the placement clears.
        value: Dellacherie's score of the resulting board (higher is better).
        features: The six feature values, in :data:`FEATURES` order.
    """

    actions: tuple[Action, ...]
    piece: str
    rotation: int
    cells: tuple[tuple[int, int], ...]
    lines: int
    value: float
    features: tuple[float, ...]

    @property
    def columns(self) -> tuple[int, int]:
        cols = [c for _, c in self.cells]
        return min(cols), max(cols)


def _rows(board: bytes) -> list[int]:
    """The board as one bit mask per row (bit c set: column c filled), top row first."""
    out = []
    for r in range(HEIGHT):
        bits = 0
        base = r * WIDTH
        for c in range(WIDTH):
            if board[base + c]:
                bits |= 1 << c
        out.append(bits)
    return out


def evaluate_board(before: bytes, cells: tuple[tuple[int, int], ...]) -> tuple[float, tuple[float, ...], int]:
    """Dellacherie's value of placing a piece on ``cells`` of the ``before`` board; returns the value,
    the six features and the lines cleared."""
    rows = _rows(before)
    for r, c in cells:
        rows[r] |= 1 << c
    full = [r for r in range(HEIGHT) if rows[r] == _FULL]
    eroded = len(full) * sum(1 for r, _ in cells if r in full)
    if full:
        rows = [0] * len(full) + [b for r, b in enumerate(rows) if r not in full]
    top = min(r for r, _ in cells)
    bottom = max(r for r, _ in cells)
    landing = HEIGHT - (top + bottom) / 2
    row_trans = 0
    col_trans = 0
    holes = 0
    wells = 0
    covered = 0
    above = 0  # the row above the board counts as empty
    runs = [0] * WIDTH
    for b in rows:
        edged = (b << 1) | 1 | (1 << (WIDTH + 1))
        row_trans += bin(edged ^ (edged >> 1)).count("1") - 1 if b else 0
        col_trans += bin(b ^ above).count("1")
        holes += bin(covered & ~b & _FULL).count("1")
        covered |= b
        above = b
        well = ~b & ((b << 1) | 1) & ((b >> 1) | (1 << (WIDTH - 1))) & _FULL
        for c in range(WIDTH):
            if well >> c & 1:
                runs[c] += 1
                wells += runs[c]
            else:
                runs[c] = 0
    col_trans += bin(~above & _FULL).count("1")  # the floor counts as filled
    features = (landing, float(eroded), float(row_trans), float(col_trans), float(holes), float(wells))
    value = sum(w * f for w, f in zip(WEIGHTS, features, strict=True))
    return value, features, len(full)


def _turns(start: int, end: int) -> tuple[Action, ...]:
    k = (end - start) % 4
    return ("rotate_right",) * k if k < 3 else ("rotate_left",)


def plans(state: TetrisState) -> list[Plan]:
    """Every placement of the falling piece reachable by turning, sliding, then a hard drop (the game's
    own rules applied step by step), best first; a placement reached by several plans is kept once."""
    found: dict[tuple[tuple[int, int], ...], Plan] = {}
    if state.is_over:
        return []
    rotations = (0,) if state.piece == "O" else (0, 1, 2, 3)
    for end in rotations:
        turned = state
        actions: list[Action] = []
        for turn in _turns(state.rotation, end):
            turned = turned.apply(turn)
            actions.append(turn)
            if turned.is_over or turned.pieces != state.pieces:
                break
        if turned.is_over or turned.pieces != state.pieces or turned.rotation != end:
            continue
        for direction in ("left", "right", None):
            _slides(state, turned, tuple(actions), direction, found)
    return sorted(found.values(), key=lambda p: p.value, reverse=True)


def _slides(
    start: TetrisState,
    turned: TetrisState,
    actions: tuple[Action, ...],
    direction: Action | None,
    found: dict[tuple[tuple[int, int], ...], Plan],
) -> None:
    """Add the plans that slide ``turned`` step by step towards ``direction`` (``None``: not at all),
    dropping after each step."""
    current, path = turned, list(actions)
    while True:
        _drop_plan(start, current, tuple(path), found)
        if direction is None:
            return
        moved = current.apply(direction)
        if moved.is_over or moved.pieces != start.pieces or moved.col == current.col:
            return
        current = moved
        path.append(direction)


def _drop_plan(
    start: TetrisState,
    at: TetrisState,
    actions: tuple[Action, ...],
    found: dict[tuple[tuple[int, int], ...], Plan],
) -> None:
    row = drop_row(at.board, at.piece, at.rotation, at.row, at.col)
    cells = tuple(sorted((row + r - at.row, c) for r, c in at.cells()))
    if cells in found:
        return
    value, features, lines = evaluate_board(at.board, cells)
    after, _ = lock_piece(at.board, at.piece, at.rotation, row, at.col)
    if _blocks_entry(after, at.queue[0] if at.queue else ""):
        value = TOPPED_OUT
    found[cells] = Plan((*actions, "hard_drop"), at.piece, at.rotation, cells, lines, value, features)


def _blocks_entry(board: bytes, kind: str) -> bool:
    """Whether the next piece would have no room to enter on ``board``."""
    if not kind:
        return False
    row, col = SPAWN[kind]
    return not fits(board, kind, 0, row, col)


def best_plans(state: TetrisState) -> tuple[list[Plan], list[Plan]]:
    """The plans for the falling piece and, when hold is free, for the piece hold brings out (each
    held plan starts with ``hold``)."""
    own = plans(state)
    held: list[Plan] = []
    if not state.held and not state.is_over:
        swapped = state.apply("hold")
        if not swapped.is_over and swapped.pieces == state.pieces:
            held = [dataclasses.replace(p, actions=("hold", *p.actions)) for p in plans(swapped)]
    return own, held


class DellacherieBot(SearchBot):
    """Scores every reachable placement with Dellacherie's features and plays towards the best."""

    spec = "dellacherie"
    label = "Dellacherie"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        super().__init__(game, seed)
        self.last_plan: Plan | None = None

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, TetrisState)
        own, held = best_plans(state)
        values: dict[Action, float] = {}
        best: Plan | None = None
        for plan in [*own, *held]:
            first = plan.actions[0]
            if first not in values or plan.value > values[first]:
                values[first] = plan.value
            if best is None or plan.value > best.value:
                best = plan
        self.last_plan = best
        return values

    def choose(self, values: Mapping[Action, float]) -> Action:
        if self.last_plan is not None and self.last_plan.actions[0] in values:
            return self.last_plan.actions[0]
        return super().choose(values)

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        plan = self.last_plan
        if plan is None:
            return f"{action}: no placement found"
        return f"{action}: towards {describe(plan)}"


def describe(plan: Plan, *, value: bool = True) -> str:
    """A plan in words: ``"T at columns 3-5, rows 18-19, clearing 1 line (holes 0, value -12.0)"``;
    without ``value``, the holes alone (``"... (no holes)"``)."""
    low, high = plan.columns
    rows = sorted({r for r, _ in plan.cells})
    where = f"columns {low}-{high}" if low != high else f"column {low}"
    clears = f", clearing {plan.lines} line{'s' if plan.lines != 1 else ''}" if plan.lines else ""
    shape = _SHAPE_WORDS[plan.rotation] if plan.piece != "O" else ""
    held = "the held piece, " if plan.actions and plan.actions[0] == "hold" else ""
    holes = int(plan.features[4])
    if value:
        note = f"holes {holes}, value {plan.value:.1f}"
    else:
        note = "no holes" if not holes else f"{holes} hole{'s' if holes != 1 else ''} on the board"
    return f"{held}{plan.piece}{shape} at {where}, rows {rows[0]}-{rows[-1]}{clears} ({note})"


_SHAPE_WORDS = ("", " turned clockwise", " upside down", " turned anticlockwise")
