"""What every built-in search bot shares: seeded tie-breaks and timed, explained decisions."""

from __future__ import annotations

import random
import time
from collections.abc import Mapping

from engine.core import Action, Game
from engine.players import BOT, Decision, Observation


class SearchBot:
    """A bot that scores actions and plays the best one, breaking ties with a seeded RNG.

    Subclasses implement :meth:`evaluate` (values per action, higher is better for the mover) and
    may override :meth:`explain` for the one-line rationale.
    """

    kind = BOT
    spec = "bot"
    label = "Bot"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        self.game = game
        self.seed = seed
        self._rng = random.Random(seed)

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        """Values of the candidate actions (a subset of the legal ones) from the mover's view."""
        raise NotImplementedError

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        return f"{action} has the best value ({values[action]:.4g}) of {len(values)} candidate moves"

    def choose(self, values: Mapping[Action, float]) -> Action:
        """The best action; equal values (within rounding noise) are broken by the seeded RNG."""
        best = max(values.values())
        tied = [a for a, v in values.items() if v >= best - 1e-9 * max(1.0, abs(best))]
        return tied[0] if len(tied) == 1 else self._rng.choice(tied)

    async def act(self, observation: Observation) -> Decision:
        started = time.perf_counter()
        values = self.evaluate(observation)
        if not values:
            # Never expected while the game is on; fall back to the first legal action rather than stall.
            action = observation.legal_actions[0]
            return Decision(action, rationale="no candidate was scored; first legal action")
        action = self.choose(values)
        latency = (time.perf_counter() - started) * 1000
        return Decision(
            action,
            rationale=self.explain(observation, action, values),
            values=dict(values),
            extra={"latency_ms": round(latency, 2)},
        )
