"""Tic-tac-toe's intermediate questions (GameBot): every winning move for me, and for my opponent.

The oracle looks at the board only, whoever is to move: "the opponent's winning moves" are the cells
the opponent would win with if it were its turn.
"""

from __future__ import annotations

from engine.core import Seat, State
from engine.games.tictactoe.rules import TicTacToeState, winning_moves
from engine.questions import Question

__all__ = ["QUESTIONS"]


def _cells(state: State) -> TicTacToeState:
    if not isinstance(state, TicTacToeState):
        raise TypeError(f"not a tic-tac-toe state: {type(state).__name__}")
    return state


def mine(state: State, seat: Seat) -> list[str]:
    """The empty cells that complete three in a row for ``seat``."""
    board = _cells(state)
    return winning_moves(board, board.marks[seat])


def theirs(state: State, seat: Seat) -> list[str]:
    """The empty cells that would complete three in a row for ``seat``'s opponent."""
    board = _cells(state)
    return winning_moves(board, board.marks[1 - seat])


QUESTIONS = (
    Question(1, "my winning moves", mine),
    Question(2, "opponent's winning moves", theirs),
)
