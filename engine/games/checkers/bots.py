"""Checkers' built-in bot: PlayTrace's generic alpha-beta search with a checkers evaluation.

:class:`CheckersBot` is :class:`engine.bots.search.SearchTreeBot` (depth-limited alpha-beta over the
game contract) with a heuristic that a club player would recognise:

* material: a man is worth 100, a king 160;
* advancement: a man gains 4 per row it has advanced (it is closer to being crowned);
* the back row: the two men that guard the king row best (White (0,1) and (0,5), Black (7,2) and
  (7,6), GameBot's prompt section (d)) are worth 12 more while they stay home, the other two 4;
* the centre: any piece on the sixteen central squares (rows and columns 2-5) gains 3.

A drawn end scores 0 whatever the material (the search should not walk into a draw when ahead).

Speed (measured on this project's development machine over four games of 350 moves): 5 plies take a
median of 16 ms and 73 ms at the 90th percentile, but up to about 210 ms in positions with 13 or more
legal moves, because the generic search opens a full window for every root move. So positions with
more than :attr:`CheckersBot.wide` (10) legal moves are searched to 4 plies, which keeps every move
under about 150 ms. The rule depends on the position only, so the bot stays deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.bots.search import SearchTreeBot
from engine.core import Action, Seat, State
from engine.games.checkers.rules import BLACK, DARK_SQUARES, KINGS, MEN, WHITE, CheckersState
from engine.players import Observation

__all__ = ["CheckersBot", "evaluate_board"]

MAN = 100.0
KING = 160.0
ADVANCE = 4.0
KEY_BACK = 12.0
OTHER_BACK = 4.0
CENTRE = 3.0
#: The back-row squares that guard the king row best (GameBot's prompt, section (d)).
KEY_BACK_SQUARES = {WHITE: (1, 5), BLACK: (58, 62)}


def _tables() -> dict[str, tuple[float, ...]]:
    """The value of each piece on each square, from White's side (Black's pieces count negative)."""
    tables: dict[str, tuple[float, ...]] = {}
    for seat in (WHITE, BLACK):
        sign = 1.0 if seat == WHITE else -1.0
        men, kings = [], []
        for square in range(64):
            r, c = divmod(square, 8)
            centre = CENTRE if 2 <= r <= 5 and 2 <= c <= 5 else 0.0
            advanced = r if seat == WHITE else 7 - r
            home = 0.0
            if advanced == 0:
                home = KEY_BACK if square in KEY_BACK_SQUARES[seat] else OTHER_BACK
            men.append(sign * (MAN + ADVANCE * advanced + home + centre))
            kings.append(sign * (KING + centre))
        tables[MEN[seat]] = tuple(men)
        tables[KINGS[seat]] = tuple(kings)
    return tables


_TABLES = _tables()


def evaluate_board(board: str, seat: Seat) -> float:
    """The heuristic value of ``board`` for ``seat`` (higher is better)."""
    total = 0.0
    tables = _TABLES
    for square in DARK_SQUARES:
        piece = board[square]
        if piece != "_":
            total += tables[piece][square]
    return total if seat == WHITE else -total


class CheckersBot(SearchTreeBot):
    """Alpha-beta to 5 plies (4 in positions with more than :attr:`wide` legal moves) with material,
    king, advancement, back-row and centre terms."""

    spec = "alphabeta"
    label = "Alpha-beta"
    depth = 5
    #: Positions with more legal moves than this are searched one ply less, to stay under 200 ms.
    wide = 10

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        full = self.depth
        if len(observation.legal_actions) > self.wide:
            self.depth = max(1, full - 1)
        self.searched = self.depth
        try:
            return super().evaluate(observation)
        finally:
            self.depth = full

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        full, self.depth = self.depth, getattr(self, "searched", self.depth)
        try:
            return super().explain(observation, action, values)
        finally:
            self.depth = full

    def heuristic(self, state: State, seat: Seat) -> float:
        if not isinstance(state, CheckersState):
            return super().heuristic(state, seat)
        return evaluate_board(state.board, seat)

    def terminal(self, state: State, seat: Seat) -> float:
        if state.winner is None:
            return 0.0  # a draw is a draw, whatever the material
        return super().terminal(state, seat)
