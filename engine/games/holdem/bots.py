"""Hold'em bots: ``equity`` (the default opponent) and ``caller``.

The equity bot plays the way GameBot's prompt asks a model to: before the flop it reads its win
probability from the paper's table; after it, it measures its hand strength against one random hand
with pokerkit's evaluator (exactly on the river, by Monte Carlo on the flop and turn). It then values
each action in chips:

* fold: 0 (nothing more is lost);
* check / call: ``strength × (pot + call) − call``, so it calls when the pot odds pay;
* a bet or raise putting in ``x`` chips, leaving the opponent ``y`` to call: the opponent folds with a
  chance that grows with the bet's size (``fe``), and calls with a stronger range otherwise (the bot's
  strength drops by a quarter of the bet's share of the pot):
  ``fe × pot + (1 − fe) × (strength' × (pot + x + y) − x)``.

Strong hands therefore bet in proportion to their strength, weak ones check or fold unless the price
is right, and a seeded coin makes it bluff now and then. It decides well under 200 ms.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping

from engine.core import Action, Game
from engine.games.holdem.cards import hand_strength, preflop_keys, preflop_win
from engine.games.holdem.rules import CALL, FOLD, HALF_POT, POT, HoldemState
from engine.players import BOT, Decision, Observation

__all__ = ["CallerBot", "EquityBot", "Reading", "read_hand"]

#: Monte Carlo deals on the flop and turn (the river is exact).
SAMPLES = 400
#: How often the bot bets a weak hand anyway (a bluff).
BLUFF_RATE = 0.06


class Reading:
    """What the bot knows of its hand: strength (0-1) and where it came from."""

    __slots__ = ("how", "strength")

    def __init__(self, strength: float, how: str) -> None:
        self.strength = strength
        self.how = how


def read_hand(state: HoldemState, seat: int, rng: random.Random, samples: int = SAMPLES) -> Reading:
    """``seat``'s hand strength in ``state`` (its own view is enough)."""
    hole = state.hole(seat)
    if hole is None:
        raise ValueError("the seat's hole cards are not visible in this state")
    board = state.board
    if not board:
        specific, _generic = preflop_keys(hole)
        value = preflop_win(hole)
        return Reading(value / 100.0, f"pre-flop table: {specific} wins {value:.1f}%")
    strength = hand_strength(hole, board, rng, samples)
    how = "exactly" if len(board) == 5 else f"over {samples} deals"
    return Reading(strength, f"hand strength against a random hand {strength:.0%} ({how})")


def action_values(state: HoldemState, seat: int, strength: float) -> dict[Action, float]:
    """The chip value of every legal action for ``seat`` at ``strength`` (see the module's notes)."""
    legal = state.legal_actions(seat)
    pot = state.pot
    call = state.chips_for(CALL)
    values: dict[Action, float] = {}
    for action in legal:
        if action == FOLD:
            values[action] = 0.0
        elif action == CALL:
            values[action] = strength * (pot + call) - call
        else:
            x = state.chips_for(action)
            target = state.raise_to(action) or 0
            y = max(0, min(target - state.bets[1 - seat], state.stacks[1 - seat]))
            share = y / (pot + y) if pot + y else 0.0
            fold_chance = min(0.55, 0.1 + 0.5 * share) if y else 0.0
            called = max(0.0, strength - 0.25 * share)
            values[action] = fold_chance * pot + (1 - fold_chance) * (called * (pot + x + y) - x)
    return {a: round(v, 2) for a, v in values.items()}


class EquityBot:
    """Bets with its strength and calls when the pot odds pay (see the module's notes)."""

    kind = BOT
    spec = "equity"
    label = "Equity"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        self.game = game
        self.seed = seed
        self._rng = random.Random(seed)

    def decide(self, state: HoldemState, seat: int) -> tuple[Action, dict[Action, float], Reading]:
        reading = read_hand(state, seat, self._rng)
        values = action_values(state, seat, reading.strength)
        best = max(values, key=lambda a: (values[a], -list(values).index(a)))
        raises = [a for a in (HALF_POT, POT) if a in values]
        if reading.strength < 0.45 and raises and self._rng.random() < BLUFF_RATE:
            best = raises[0]
        return best, values, reading

    async def act(self, observation: Observation) -> Decision:
        started = time.perf_counter()
        state = observation.state
        if not isinstance(state, HoldemState):
            raise TypeError(f"not a hold'em state: {type(state).__name__}")
        action, values, reading = self.decide(state, observation.seat)
        call = state.chips_for(CALL)
        odds = f"; calling {call} into {state.pot} needs {call / (state.pot + call):.0%}" if call else ""
        latency = (time.perf_counter() - started) * 1000
        return Decision(
            action,
            rationale=f"{reading.how}{odds}; {action} is worth {values[action]:+.1f} chips",
            values=values,
            extra={"latency_ms": round(latency, 2)},
        )


class CallerBot:
    """Checks or calls every time (a calling station)."""

    kind = BOT
    spec = "caller"
    label = "Caller"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        self.game = game
        self.seed = seed

    async def act(self, observation: Observation) -> Decision:
        values: Mapping[Action, float] = {a: (1.0 if a == CALL else 0.0) for a in observation.legal_actions}
        return Decision(CALL, rationale="always checks or calls", values=dict(values))


