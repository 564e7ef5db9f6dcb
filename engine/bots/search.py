"""Generic search over the game contract: a depth-limited expectiminimax any game can use as a bot.

It needs nothing but the contract: ``to_act``, ``legal_actions``, ``outcomes`` (chance, averaged by
probability; a deterministic game has one outcome) and ``scores``. The searching seat maximises; every
other seat is assumed to minimise the searcher's value (the "paranoid" reading, exact for two-seat
zero-sum games). Positions at the horizon are scored by :meth:`SearchTreeBot.heuristic`, by default
the searcher's score minus the best other score; a game's package subclasses the bot to give it a
better heuristic and a depth::

    class ConnectFourBot(SearchTreeBot):
        spec, label, depth = "alphabeta", "Alpha-beta", 4

        def heuristic(self, state, seat):
            return threats(state, seat) - threats(state, 1 - seat)

Alpha-beta pruning applies between players' choices; chance nodes are searched in full. Only
perfect-information, turn-based games are searched: a simultaneous or hidden-information game needs a
bot of its own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from engine.bots.base import SearchBot
from engine.core import Action, Game, Seat, State
from engine.players import Observation

__all__ = ["SearchTreeBot"]

#: A finished game is worth this much more than any heuristic value (won) or less (lost).
WIN = 1e9


class SearchTreeBot(SearchBot):
    """Depth-limited expectiminimax with alpha-beta pruning over :class:`~engine.core.State`.

    Args:
        game: The game (turn-based, perfect information).
        seed: Seeds tie-breaks between equally good actions.
        depth: Plies searched (each seat's move is one ply; chance does not count).
    """

    spec = "search"
    label = "Search"
    depth = 3

    def __init__(self, game: Game, seed: int | None = None, *, depth: int | None = None) -> None:
        super().__init__(game, seed)
        if game.simultaneous or not game.perfect_information:
            raise ValueError(
                f"{game.title} is not a turn-based game of perfect information; it needs its own bot"
            )
        if depth is not None:
            self.depth = depth
        if self.depth < 1:
            raise ValueError("depth must be at least 1")
        self.nodes = 0

    def heuristic(self, state: State, seat: Seat) -> float:
        """The value of a position at the horizon for ``seat`` (higher is better)."""
        scores = state.scores
        others = [scores[s] for s in range(len(scores)) if s != seat]
        return float(scores[seat] - (max(others) if others else 0.0))

    def terminal(self, state: State, seat: Seat) -> float:
        """The value of a finished game for ``seat``: a win or loss dwarfs any heuristic."""
        if state.winner == seat:
            return WIN + self.heuristic(state, seat)
        if state.winner is not None:
            return -WIN + self.heuristic(state, seat)
        return self.heuristic(state, seat)

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        self.nodes = 0
        state, seat = observation.state, observation.seat
        values: dict[Action, float] = {}
        for action in observation.legal_actions:
            values[action] = self._chance(state, action, seat, self.depth - 1, -math.inf, math.inf)
        return values

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        value = values[action]
        if value >= WIN / 2:
            outlook = "wins against any defence within the horizon"
        elif value <= -WIN / 2:
            outlook = "every move loses within the horizon; this one resists longest"
        else:
            outlook = f"value {value:.3g}"
        return f"{action}: {outlook} (depth {self.depth}, {self.nodes} positions)"

    def _chance(
        self, state: State, action: Action, seat: Seat, depth: int, alpha: float, beta: float
    ) -> float:
        outcomes = state.outcomes(action)
        if len(outcomes) == 1:
            return self._value(outcomes[0][1], seat, depth, alpha, beta)
        return sum(p * self._value(child, seat, depth, -math.inf, math.inf) for p, child in outcomes)

    def _value(self, state: State, seat: Seat, depth: int, alpha: float, beta: float) -> float:
        self.nodes += 1
        if state.is_over:
            # Sooner wins are better and later losses less bad: the remaining depth breaks ties.
            value = self.terminal(state, seat)
            return value + depth if value > 0 else value - depth if value < 0 else value
        if depth <= 0:
            return self.heuristic(state, seat)
        mover = state.to_act[0]
        maximising = mover == seat
        best = -math.inf if maximising else math.inf
        for action in state.legal_actions(mover):
            value = self._chance(state, action, seat, depth - 1, alpha, beta)
            if maximising:
                best = max(best, value)
                alpha = max(alpha, best)
            else:
                best = min(best, value)
                beta = min(beta, best)
            if alpha >= beta:
                break
        return best
