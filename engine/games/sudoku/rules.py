"""Sudoku, as LVLM-Playground plays it.

One player fills a 9x9 grid so that every row, column and 3x3 box holds the digits 1 to 9 once. Rows
are lettered A to I from the top, columns numbered 1 to 9 from the left, and a move is written
``"A1 5"`` (the digit 5 in the top-left cell), the paper's format. A move is legal only in a blank
cell (not a clue, not already filled) and only when the digit does not already appear in that cell's
row, column or box: the paper's no-repeat rule. Moves cannot be taken back unless the ``erase``
option is on (then ``"A1 0"`` clears a digit the player placed; clues can never be erased).

The game ends when the grid is full, which is a win exactly when it equals the puzzle's unique
solution (with the no-repeat rule every full grid is a solution, and the puzzle has only one), or
when no legal move is left: the player is stuck (a digit placed earlier blocks every candidate of some
blank). The score is the paper's end-to-end points: 2 per digit the player placed, 10 per placed digit
that matches the solution, and 1000 for a win (``State.metrics()["lvlm_points"]``).

Options: ``difficulty`` (how far the generator removes clues, see
:data:`engine.games.sudoku.generator.DIFFICULTIES`), ``puzzle`` (81 characters to play a given
puzzle instead; it must have exactly one solution) and ``erase``.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.controls import Amount, Panel
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
from engine.games._common import ONE_PLAYER, one_action, reading_state
from engine.games.sudoku.generator import (
    BOX_OF,
    DIFFICULTIES,
    PEERS,
    Grid,
    PuzzleError,
    cell_name,
    conflict,
    generate,
    parse_puzzle,
    solve,
)
from engine.options import Option, OptionError

__all__ = [
    "ROWS",
    "WIN_BONUS",
    "Sudoku",
    "SudokuState",
    "cell_index",
    "move_text",
    "parse_move",
    "points",
    "state_of",
]

ROWS = "ABCDEFGHI"
#: The end-to-end points for a solved puzzle, on top of the per-digit points.
WIN_BONUS = 1000
_ALL = 0b1111111110

# "A1 5", "a1:5", "A1=5", "A1->5" (a board path), "A15"; and the reversed "1A 5".
_MOVE = re.compile(r"^\s*([A-Ia-i])\s*([1-9])\s*(?:->|[\s:=,]+)?\s*([0-9])\s*$")
_MOVE_REVERSED = re.compile(r"^\s*([1-9])\s*([A-Ia-i])\s*(?:->|[\s:=,]+)\s*([0-9])\s*$")


def cell_index(name: str) -> int | None:
    """``"A1" -> 0``, ``"I9" -> 80`` (case and a reversed ``"1A"`` forgiven); ``None`` otherwise."""
    match = re.fullmatch(r"\s*([A-Ia-i])\s*([1-9])\s*|\s*([1-9])\s*([A-Ia-i])\s*", str(name))
    if not match:
        return None
    letter = match.group(1) or match.group(4)
    number = match.group(2) or match.group(3)
    return ROWS.index(letter.upper()) * 9 + int(number) - 1


def move_text(index: int, digit: int) -> Action:
    """The canonical move: ``(0, 5) -> "A1 5"``."""
    return f"{cell_name(index)} {digit}"


def parse_move(text: str) -> tuple[int, int] | None:
    """``"A1 5"`` (and the forgiving forms ``"a1: 5"``, ``"A1=5"``, ``"A1->5"``, ``"1A 5"``) to
    ``(cell index, digit)``; digit 0 is an erasure. ``None`` when the text is not a move."""
    text = str(text)
    match = _MOVE.match(text)
    if match:
        return ROWS.index(match.group(1).upper()) * 9 + int(match.group(2)) - 1, int(match.group(3))
    match = _MOVE_REVERSED.match(text)
    if match:
        return ROWS.index(match.group(2).upper()) * 9 + int(match.group(1)) - 1, int(match.group(3))
    return None


def points(givens: Grid, solution: Grid, cells: Grid) -> int:
    """LVLM-Playground's end-to-end points: 2 per placed digit, 10 per placed digit equal to the
    solution's, and :data:`WIN_BONUS` when the grid is solved."""
    placed = [i for i in range(81) if not givens[i] and cells[i]]
    correct = sum(1 for i in placed if cells[i] == solution[i])
    return 2 * len(placed) + 10 * correct + (WIN_BONUS if cells == solution else 0)


def _used(cells: Grid) -> tuple[list[int], list[int], list[int]]:
    rows, cols, boxes = [0] * 9, [0] * 9, [0] * 9
    for i, v in enumerate(cells):
        if v:
            bit = 1 << v
            rows[i // 9] |= bit
            cols[i % 9] |= bit
            boxes[BOX_OF[i]] |= bit
    return rows, cols, boxes


@functools.lru_cache(maxsize=4096)  # legality is asked several times per state (to_act, legal, apply)
def free_digits(cells: Grid) -> tuple[int, ...]:
    """For every cell, the bitmask of digits a move may place there (0 for a filled cell)."""
    rows, cols, boxes = _used(cells)
    return tuple(
        0 if v else _ALL & ~(rows[i // 9] | cols[i % 9] | boxes[BOX_OF[i]]) for i, v in enumerate(cells)
    )


@dataclasses.dataclass(frozen=True, slots=True)
class SudokuState(State):
    """A Sudoku position.

    Attributes:
        givens: The puzzle's clues, 81 digits in reading order (0 for a blank).
        solution: The puzzle's unique solution.
        cells: The grid now: the clues plus the digits the player placed.
        moves: How many moves were played.
        last_action: The move that led here, or ``None`` at the start.
        erase: Whether ``"A1 0"`` may clear a digit the player placed.
    """

    game_id: ClassVar[str] = "sudoku"

    givens: Grid
    solution: Grid
    cells: Grid
    moves: int = 0
    last_action: Action | None = None
    erase: bool = False

    # -- the grid -----------------------------------------------------------------------------

    @property
    def step(self) -> int:
        return self.moves

    def is_given(self, index: int) -> bool:
        return bool(self.givens[index])

    def placed(self) -> list[int]:
        """The cells holding a digit the player placed, in reading order."""
        return [i for i in range(81) if not self.givens[i] and self.cells[i]]

    def blanks(self) -> list[int]:
        return [i for i in range(81) if not self.cells[i]]

    def candidates(self, index: int) -> list[int]:
        """The digits a move may place in ``index`` now (empty for a filled cell)."""
        free = free_digits(self.cells)[index]
        return [d for d in range(1, 10) if free & (1 << d)]

    def dead_cells(self) -> list[int]:
        """Blanks that no digit can fill any more: the grid can no longer be completed."""
        free = free_digits(self.cells)
        return [i for i in range(81) if not self.cells[i] and not free[i]]

    def conflicts(self) -> list[int]:
        """Cells whose digit repeats in a row, column or box (never produced by legal play; a state
        built by hand may hold them, and the renderer shows them in red)."""
        return [i for i, v in enumerate(self.cells) if v and any(self.cells[j] == v for j in PEERS[i])]

    @property
    def full(self) -> bool:
        return all(self.cells)

    @property
    def solved(self) -> bool:
        return self.cells == self.solution

    # -- the contract ---------------------------------------------------------------------------

    @property
    def to_act(self) -> tuple[Seat, ...]:
        if self.full:
            return ()
        if any(free_digits(self.cells)) or (self.erase and self.placed()):
            return (0,)
        return ()

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        if seat not in (None, 0) or not self.to_act:
            return []
        free = free_digits(self.cells)
        actions: list[Action] = []
        for i in range(81):
            if free[i]:
                actions.extend(move_text(i, d) for d in range(1, 10) if free[i] & (1 << d))
            elif self.erase and self.cells[i] and not self.givens[i]:
                actions.append(move_text(i, 0))
        return actions

    def why_illegal(self, index: int, digit: int) -> str:
        """Why ``digit`` cannot go in ``index`` now, or ``""`` when the move is legal."""
        name = cell_name(index)
        if self.is_over:
            return "the game is over"
        if digit == 0:
            if not self.erase:
                return "erasing is off in this game (the erase option); a placed digit stays"
            if self.givens[index]:
                return f"{name} is a clue; clues cannot be erased"
            if not self.cells[index]:
                return f"{name} is already blank"
            return ""
        if self.givens[index]:
            return f"{name} is a clue ({self.givens[index]})"
        if self.cells[index]:
            return f"{name} already holds {self.cells[index]}"
        for j in sorted(PEERS[index]):
            if self.cells[j] == digit:
                unit = (
                    f"row {ROWS[index // 9]}" if j // 9 == index // 9
                    else f"column {index % 9 + 1}" if j % 9 == index % 9
                    else "its 3x3 box"
                )
                return f"{digit} is already in {unit} (at {cell_name(j)})"
        return ""

    def apply(self, action: Action | Mapping[Seat, Action]) -> SudokuState:
        if isinstance(action, Mapping):
            action = one_action(action, "Sudoku", (0,), ONE_PLAYER)
        move = parse_move(action) if isinstance(action, str) else None
        if move is None:
            raise InvalidActionError(f"{action!r} is not a Sudoku move; write <row><column> <digit>: A1 5")
        index, digit = move
        reason = self.why_illegal(index, digit)
        if reason:
            raise IllegalActionError(f"{move_text(index, digit)} is not legal: {reason}")
        cells = list(self.cells)
        cells[index] = digit
        return dataclasses.replace(
            self, cells=tuple(cells), moves=self.moves + 1, last_action=move_text(index, digit)
        )

    @property
    def scores(self) -> tuple[float, ...]:
        return (float(points(self.givens, self.solution, self.cells)),)

    @property
    def winner(self) -> Seat | None:
        return 0 if self.solved else None

    def metrics(self) -> dict[str, float]:
        placed = self.placed()
        return {
            "lvlm_points": float(points(self.givens, self.solution, self.cells)),
            "filled": float(len(placed)),
            "correct": float(sum(1 for i in placed if self.cells[i] == self.solution[i])),
            "clues": float(sum(1 for v in self.givens if v)),
            "blanks": float(len(self.blanks())),
            "solved": float(self.solved),
        }

    # -- text views -----------------------------------------------------------------------------

    def grid_text(self) -> str:
        """The grid with its coordinates: row letters on the left, column numbers on top, ``.`` for
        a blank, box borders drawn with ``|`` and ``-``."""
        rule = "  +-------+-------+-------+"
        lines = ["    1 2 3   4 5 6   7 8 9", rule]
        for r in range(9):
            row = [str(v) if v else "." for v in self.cells[r * 9 : r * 9 + 9]]
            parts = [" ".join(row[3 * b : 3 * b + 3]) for b in range(3)]
            lines.append(f"{ROWS[r]} | " + " | ".join(parts) + " |")
            if r % 3 == 2:
                lines.append(rule)
        return "\n".join(lines)

    def status_text(self) -> str:
        if self.solved:
            return "Solved: the grid is complete and correct."
        if self.is_over:
            return "Stuck: no legal move is left."
        return f"{len(self.blanks())} blank cells left."

    def text(self, seat: Seat | None = None) -> str:
        placed = self.placed()
        heading = "Sudoku grid (rows A-I top to bottom, columns 1-9 left to right; . = blank):"
        lines = [heading, self.grid_text()]
        clues = sum(1 for v in self.givens if v)
        lines.append(f"Clues: {clues}. Digits you placed: " + (
            ", ".join(f"{cell_name(i)} {self.cells[i]}" for i in placed) if placed else "none yet"
        ) + ".")
        lines.append(self.status_text())
        return "\n".join(lines)

    def notice(self, seat: Seat | None = None) -> str:
        if self.is_over:
            return self.status_text()
        dead = self.dead_cells()
        if dead:
            names = ", ".join(cell_name(i) for i in dead[:4])
            return f"No digit fits {names} any more: this grid can no longer be completed."
        return ""

    def to_json(self) -> JsonDict:
        return {
            "game": self.game_id,
            "givens": _grid_text(self.givens),
            "solution": _grid_text(self.solution),
            "cells": _grid_text(self.cells),
            "moves": self.moves,
            "last_action": self.last_action,
            "erase": self.erase,
        }

    # -- people and readers ---------------------------------------------------------------------

    def panel(self, seat: Seat) -> Panel | None:
        """Row (A-I), column (1-9) and digit pickers with a Fill button, set to the first blank that
        can still be filled; with ``erase`` on, the digit picker starts at "Erase"."""
        if seat != 0 or not self.to_act:
            return None
        free = free_digits(self.cells)
        start = next((i for i in range(81) if free[i]), next(iter(self.placed()), 0))
        digits = self.candidates(start)
        low = 0 if self.erase else 1
        digit_labels = ("Erase", *map(str, range(1, 10))) if self.erase else ()
        amounts = (
            Amount("row", "Row", 0, 8, start // 9, labels=tuple(ROWS)),
            Amount("col", "Column", 1, 9, start % 9 + 1),
            Amount("digit", "Digit", low, 9, digits[0] if digits else low, labels=digit_labels),
        )

        def pick(values: Mapping[str, int]) -> tuple[int, int]:
            row = max(0, min(8, int(values.get("row", 0))))
            col = max(1, min(9, int(values.get("col", 1))))
            digit = max(low, min(9, int(values.get("digit", 1))))
            return row * 9 + col - 1, digit

        def compose(values: Mapping[str, int]) -> Action:
            return move_text(*pick(values))

        def summary(values: Mapping[str, int]) -> str:
            index, digit = pick(values)
            reason = self.why_illegal(index, digit)
            if reason:
                return f"Not allowed: {reason}"
            if digit == 0:
                return f"Clears {cell_name(index)}"
            return f"Places {digit} in {cell_name(index)}"

        return Panel("Fill a cell", (), amounts, "Fill", compose, summary)

    def annotate(self, action: Action, seat: Seat | None = None) -> str:
        """Notes a placed digit that differs from the unique solution: the puzzle can no longer be
        won (shown to people reading a model's decision, never to the model)."""
        move = parse_move(action)
        if move is None or move[1] == 0 or self.cells[move[0]]:
            return ""
        index, digit = move
        if digit != self.solution[index]:
            name = cell_name(index)
            return f"{digit} is not the solution's digit for {name}; the puzzle can no longer be solved"
        return ""


def _grid_text(grid: Grid) -> str:
    return "".join(str(v) for v in grid)


def _read_grid(text: Any, name: str) -> Grid:
    if not isinstance(text, str) or len(text) != 81 or not text.isdigit():
        raise ValueError(f"{name} must be 81 digits (0 for a blank)")
    return tuple(int(ch) for ch in text)


_RULES = """\
Sudoku on a 9x9 grid divided into nine 3x3 boxes. Some cells start with digits (the clues, drawn in
black). Fill the blank cells one at a time so that every row, every column and every 3x3 box holds
each digit from 1 to 9 exactly once. Rows are labelled A to I from top to bottom and columns 1 to 9
from left to right, so A1 is the top-left cell and I9 the bottom-right cell. A move places one digit
in one blank cell and is written <row><column> <digit>, for example A1 5. A move is valid only if the
cell is blank and the digit does not already appear in that cell's row, column or 3x3 box. Digits
cannot be changed once placed. The puzzle is solved when the grid is full; the game also ends when no
valid move is left."""

_ERASE_RULE = " With erasing on, <row><column> 0 (for example A1 0) clears a digit you placed."


@functools.lru_cache(maxsize=256)
def _generated(seed: int, difficulty: str) -> tuple[Grid, Grid]:
    return generate(random.Random(seed), difficulty)


class Sudoku(Game):
    """Sudoku (LVLM-Playground): one player, a generated puzzle with exactly one solution."""

    id: ClassVar[str] = "sudoku"
    title: ClassVar[str] = "Sudoku"
    suites: ClassVar[tuple[str, ...]] = ("lvlm",)
    tasks: ClassVar[str | None] = ".lvlm"
    description: ClassVar[str] = "Fill the 9x9 grid so every row, column and box holds 1-9 once."
    seats = seats_of(["Player"])
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option(
            "difficulty",
            str,
            "medium",
            "How many clues the generator removes: easy keeps 45, medium is LVLM-Playground's "
            "(remove while the solution stays unique, stop after 5 failures), hard is minimal",
            choices=tuple(DIFFICULTIES),
        ),
        Option(
            "puzzle",
            str,
            "",
            "Play this puzzle instead: 81 characters in reading order, digits with 0 or . for "
            "blanks; it must have exactly one solution",
        ),
        Option("erase", bool, False, "Allow clearing a digit you placed (<cell> 0); the paper cannot"),
    )
    #: A blank offers at most 9 digits and a placed digit one erasure: never more than 81 x 9.
    action_bound: int | None = 81 * 9
    controls: ClassVar[str] = "Click a cell, then type its digit (or use the Fill panel beside the board)"
    #: Without erasing every move fills a blank, so a game lasts at most 81 moves.
    max_episode_steps: ClassVar[int | None] = 81
    bots: ClassVar[Mapping[str, str]] = {"solver": ".bots:SolverBot", "candidate": ".bots:CandidateBot"}
    default_opponent: ClassVar[str] = "solver"
    sim_bot: ClassVar[str | None] = "solver"
    sim_behaviour: ClassVar[str | None] = ".sim:SudokuSim"
    extractor: ClassVar[str | None] = ".answers:extract_move"
    default_prompt: ClassVar[str] = "default"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.difficulty: str = self.options["difficulty"]
        self.erase: bool = self.options["erase"]
        self.puzzle: Grid | None = None
        if self.options["puzzle"].strip():
            try:
                self.puzzle = parse_puzzle(self.options["puzzle"])
            except PuzzleError as exc:
                raise OptionError(f"option 'puzzle': {exc}") from None

    def initial_state(self, seed: int | None = None) -> SudokuState:
        if self.puzzle is not None:
            givens = self.puzzle
            solution = _solution_of(givens)
        else:
            if seed is None:
                seed = random.SystemRandom().randrange(2**31)
            if not isinstance(seed, int) or isinstance(seed, bool):
                raise ValueError(f"a Sudoku seed is an integer, not {seed!r}")
            givens, solution = _generated(seed, self.difficulty)
        return SudokuState(givens=givens, solution=solution, cells=givens, erase=self.erase)

    def rules_text(self) -> str:
        return _RULES + (_ERASE_RULE if self.erase else "")

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read ``"A1 5"`` (case, ``:``/``=`` separators and a reversed ``"1A 5"`` forgiven).

        Raises:
            InvalidActionError: the text is not a move.
            IllegalActionError: the cell is not blank, the digit repeats, or the game is over.
        """
        move = parse_move(text)
        if move is None:
            raise InvalidActionError(f"{text!r} is not a Sudoku move; write <row><column> <digit>, e.g. A1 5")
        action = move_text(*move)
        if not isinstance(state, SudokuState):
            raise InvalidActionError("not a Sudoku state")
        if seat not in (None, 0):
            raise IllegalActionError(f"seat {seat} does not play Sudoku")
        reason = state.why_illegal(*move)
        if reason:
            raise IllegalActionError(f"{action} is not legal: {reason}")
        return action

    def state_from_json(self, data: JsonDict) -> SudokuState:
        with reading_state(data, "sudoku", "Sudoku"):
            givens = _read_grid(data["givens"], "givens")
            solution = _read_grid(data["solution"], "solution")
            cells = _read_grid(data["cells"], "cells")
            if 0 in solution or conflict(solution) is not None:
                raise ValueError("the solution is not a complete valid grid")
            if any(g and g != s for g, s in zip(givens, solution, strict=True)):
                raise ValueError("a clue differs from the solution")
            if any(g and g != c for g, c in zip(givens, cells, strict=True)):
                raise ValueError("the grid changes a clue")
            clash = conflict(cells)
            if clash is not None:
                raise ValueError(f"{cell_name(clash[0])} and {cell_name(clash[1])} repeat a digit")
            moves = data.get("moves", 0)
            if not isinstance(moves, int) or isinstance(moves, bool) or moves < 0:
                raise ValueError("moves must be a non-negative integer")
            last = data.get("last_action")
            if last is not None and parse_move(last) is None:
                raise ValueError(f"last_action {last!r} is not a move")
            erase = data.get("erase", False)
            if not isinstance(erase, bool):
                raise ValueError("erase must be true or false")
        return SudokuState(
            givens=givens, solution=solution, cells=cells, moves=moves, last_action=last, erase=erase
        )


@functools.lru_cache(maxsize=64)
def _solution_of(givens: Grid) -> Grid:
    solution = solve(givens)
    if solution is None:  # parse_puzzle refused such puzzles already
        raise ValueError("the puzzle has no solution")
    return solution


def state_of(givens: Grid | str, cells: Grid | str | None = None, *, erase: bool = False) -> SudokuState:
    """A state of the puzzle ``givens`` (a grid or puzzle text with one solution) with the grid
    ``cells`` (default: the clues alone). For tests, tasks and examples.

    Raises:
        PuzzleError: the puzzle text is not a proper puzzle.
    """
    grid = parse_puzzle(givens) if isinstance(givens, str) else tuple(givens)
    now = grid if cells is None else (parse_puzzle_loose(cells) if isinstance(cells, str) else tuple(cells))
    return SudokuState(givens=grid, solution=_solution_of(grid), cells=now, erase=erase)


def parse_puzzle_loose(text: str) -> Grid:
    """81 characters to a grid without any check beyond the characters (``0`` or ``.`` blank)."""
    kept = [ch for ch in text if not (ch.isspace() or ch in "|-+")]
    if len(kept) != 81 or any(ch not in "0123456789." for ch in kept):
        raise PuzzleError("a grid is 81 characters, digits and '.' or '0' for blanks")
    return tuple(0 if ch == "." else int(ch) for ch in kept)

