"""Perfect tic-tac-toe play: full minimax with a memo, scored GameBot's way (10 - depth).

A win ``d`` plies from now is worth ``10 - d`` to the mover, a loss ``d - 10``, a draw 0, so the bot
wins as fast as it can and loses as slowly as it can. The memo is keyed by the board alone (the mover
follows from the counts of X and O), so all bots share it and it never holds more than the 5,478
reachable positions.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from engine.bots.base import SearchBot
from engine.core import Action
from engine.games.tictactoe.rules import ACTIONS, TicTacToeState, line_winner, winning_moves
from engine.players import Observation

WIN = 10


def _towards_zero(value: int) -> int:
    """One ply further from the end: a win or loss is worth one point less in magnitude."""
    return value - 1 if value > 0 else value + 1 if value < 0 else 0


@functools.cache
def position_value(cells: tuple[str, ...], first: str = "X") -> int:
    """The value of a position for the player to move, under perfect play by both sides (``first``:
    the mark that moved first)."""
    if line_winner(cells) is not None:
        # The previous mover completed a line: the player to move has lost, zero plies from now.
        return -WIN
    if all(cells):
        return 0
    return max(action_values(cells, first).values())


def action_values(cells: tuple[str, ...], first: str = "X") -> dict[Action, int]:
    """The value of every empty cell for the player to move (``10 - plies`` for a win); ``first`` is
    the mark that moved first (``"O"`` with the ``first=o`` option)."""
    second = "O" if first == "X" else "X"
    mark = first if cells.count(first) == cells.count(second) else second
    values: dict[Action, int] = {}
    for i in range(9):
        if cells[i]:
            continue
        child = cells[:i] + (mark,) + cells[i + 1 :]
        values[ACTIONS[i]] = -_towards_zero(position_value(child, first))
    return values


class MinimaxBot(SearchBot):
    """Never loses at tic-tac-toe; among equally good moves it picks one with its seeded RNG."""

    spec = "minimax"
    label = "Minimax"

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, TicTacToeState)
        values = action_values(state.cells, state.marks[0])
        return {a: float(values[a]) for a in observation.legal_actions}

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        state = observation.state
        assert isinstance(state, TicTacToeState)
        value = int(values[action])
        me = state.marks[state.mover]
        them = state.marks[1 - state.mover]
        if value == WIN - 1:
            return f"{action} completes three {me} in a row and wins now"
        if value > 0:
            return f"{action} forces a win in {WIN - value} plies whatever {them} does"
        if value < 0:
            return f"every move loses against perfect play; {action} holds out longest ({WIN + value} plies)"
        if action in winning_moves(state, them):
            return f"{action} blocks {them}'s three in a row; best play from here is a draw"
        return f"{action} keeps the draw; no move forces a win"
