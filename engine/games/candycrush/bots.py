"""The Candy Crush bot: greedy on what the player can see.

It scores every legal swap by what it clears for certain: the swap's own lines, then the cascade
the fall makes before any new candy arrives (new candies are unknown, so the bot never looks at the
refill: it plays from what a person sees, not from the seed). Ties go to the swap lower on the board,
whose fall disturbs more candies (more chances of a cascade), then to the seeded RNG.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.bots.base import SearchBot
from engine.core import Action
from engine.games.candycrush.board import COLS, EMPTY, ROWS, fall, matched, swap_board
from engine.games.candycrush.rules import CandyState, read_swap
from engine.players import Observation

__all__ = ["GreedyBot", "sure_clears"]


def sure_clears(board: str, action: Action) -> tuple[int, int]:
    """Candies the swap clears for certain: its own wave, and the cascade the fall alone makes
    (lines among candies already on the board, the empty cells at the top never counted)."""
    current = swap_board(board, read_swap(action))
    first = 0
    cascade = 0
    wave = 0
    while True:
        found = {i for i in matched(current) if current[i] != EMPTY}
        if not found:
            return first, cascade
        if wave == 0:
            first = len(found)
        else:
            cascade += len(found)
        current = fall(current, found)
        wave += 1


class GreedyBot(SearchBot):
    """Plays the swap that clears the most candies for certain (its own lines and the sure cascade)."""

    spec = "greedy"
    label = "Greedy"

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, CandyState)
        values: dict[Action, float] = {}
        for action in observation.legal_actions:
            first, cascade = sure_clears(state.board, action)
            (r, _), _ = read_swap(action)
            # A tenth of a candy per row lower: a tie-break that never outweighs a candy.
            values[action] = first + cascade + 0.1 * r / ROWS
        return values

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        state = observation.state
        assert isinstance(state, CandyState)
        first, cascade = sure_clears(state.board, action)
        more = f", and the fall sets off a cascade of {cascade} more" if cascade else ""
        return f"{action} clears {first} candies{more} (best of {len(values)} swaps; {COLS}x{ROWS} board)"
