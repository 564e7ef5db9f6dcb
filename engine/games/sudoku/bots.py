"""Sudoku bots: a solver that is always right and a naive candidate filler.

* :class:`SolverBot` plays like a careful person: a forced digit first (a *naked single*, the only
  digit left for a cell, or a *hidden single*, the only cell left for a digit in a row, column or
  box), else the unique solution's digit in the blank with the fewest candidates. It never places a
  wrong digit, so it always solves the puzzle. It is the simulated model's analysis bot.
* :class:`CandidateBot` knows only the candidates: it fills the blank with the fewest candidates
  with one of them at random. Forced digits come out right; its guesses may be wrong and leave it
  stuck, the way a hasty player ends.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.bots.base import SearchBot
from engine.core import Action
from engine.games.sudoku.generator import BOX_OF, cell_name
from engine.games.sudoku.rules import SudokuState, free_digits, parse_move
from engine.players import Observation

__all__ = ["CandidateBot", "SolverBot", "hidden_singles", "naked_singles"]


def naked_singles(state: SudokuState) -> dict[int, int]:
    """Blanks with exactly one candidate left: cell index -> that digit."""
    free = free_digits(state.cells)
    found = {}
    for i, mask in enumerate(free):
        if mask and mask & (mask - 1) == 0:
            found[i] = mask.bit_length() - 1
    return found


def hidden_singles(state: SudokuState) -> dict[int, tuple[int, str]]:
    """Blanks where a digit must go because no other cell of a row, column or box can take it:
    cell index -> (digit, the unit's name, e.g. ``"row C"``)."""
    free = free_digits(state.cells)
    units: list[tuple[str, list[int]]] = []
    for k in range(9):
        units.append((f"row {'ABCDEFGHI'[k]}", [k * 9 + c for c in range(9)]))
        units.append((f"column {k + 1}", [r * 9 + k for r in range(9)]))
        units.append((f"box {k + 1}", [i for i in range(81) if BOX_OF[i] == k]))
    found: dict[int, tuple[int, str]] = {}
    for name, cells in units:
        for digit in range(1, 10):
            bit = 1 << digit
            spots = [i for i in cells if free[i] & bit]
            if len(spots) == 1 and spots[0] not in found:
                found[spots[0]] = (digit, name)
    return found


class SolverBot(SearchBot):
    """Forced digits first, else the solution's digit where the fewest candidates remain."""

    spec = "solver"
    label = "Solver"

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, SudokuState)
        free = free_digits(state.cells)
        naked = naked_singles(state)
        hidden = hidden_singles(state)
        values: dict[Action, float] = {}
        for action in observation.legal_actions:
            move = parse_move(action)
            if move is None:
                continue
            index, digit = move
            if digit == 0:  # an erasure: only worth it to undo a wrong digit
                values[action] = 0.5 if state.cells[index] != state.solution[index] else -2.0
                continue
            if digit != state.solution[index]:
                values[action] = -1.0
                continue
            value = 1.0 + (9 - free[index].bit_count()) / 100  # fewer candidates: more certain
            if naked.get(index) == digit:
                value += 2.0
            elif index in hidden and hidden[index][0] == digit:
                value += 1.0
            values[action] = value
        return values

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        state = observation.state
        assert isinstance(state, SudokuState)
        move = parse_move(action)
        if move is None:
            return f"{action} is the best move found"
        index, digit = move
        name = cell_name(index)
        if digit == 0:
            return f"{name} holds a wrong digit; clearing it reopens the solution"
        if naked_singles(state).get(index) == digit:
            return f"{digit} is the only digit left for {name} (its row, column and box hold the rest)"
        hidden = hidden_singles(state).get(index)
        if hidden is not None and hidden[0] == digit:
            return f"{name} is the only cell of {hidden[1]} that can still take {digit}"
        options = ", ".join(str(d) for d in state.candidates(index))
        return f"no forced digit; {name} has the fewest candidates ({options}) and the solution has {digit}"


class CandidateBot(SearchBot):
    """The blank with the fewest candidates, one of its candidates at random (no look-ahead)."""

    spec = "candidate"
    label = "Candidate filler"

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, SudokuState)
        free = free_digits(state.cells)
        values: dict[Action, float] = {}
        for action in observation.legal_actions:
            move = parse_move(action)
            if move is None or move[1] == 0:
                continue  # it never takes a digit back
            values[action] = -float(free[move[0]].bit_count())
        return values or {a: 0.0 for a in observation.legal_actions}

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        count = int(-values[action])
        if count == 1:
            return f"{action}: the only candidate of that cell"
        return f"{action}: one of {count} candidates of the emptiest-choice cell, picked at random"
