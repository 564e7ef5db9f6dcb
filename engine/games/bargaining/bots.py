"""Built-in bargaining negotiators. They see only their own seat's view: their own values, the pool
and the proposals made so far (the opponent's values stay hidden).

* ``fair`` (the default opponent) opens by demanding about 20 of its 30 while giving away the items it
  values least, concedes towards an even split (15) as the rounds pass, and agrees to any proposal
  worth at least what it currently asks for. Among the divisions that meet its demand it offers the
  one most generous to the opponent, judged by what the opponent kept asking for;
* ``greedy`` agrees to anything worth at least 15 and otherwise demands every item it values,
  giving away only what is worthless to it.

The pure helpers (:func:`threshold`, :func:`fair_proposal`, :func:`opponent_interest`) are shared
with the simulated model, which reasons with the fair negotiator's judgement.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from engine.core import Action, Game
from engine.games.bargaining.rules import (
    AGREE,
    HALF_VALUE,
    BargainingState,
    Triple,
    division_action,
    value_of,
)
from engine.players import BOT, Decision, Observation

__all__ = ["FairBot", "GreedyBot", "fair_proposal", "opponent_interest", "threshold"]

#: What the fair negotiator asks for in its first proposal.
OPENING_DEMAND = 20


def threshold(state: BargainingState, *, opening: int = OPENING_DEMAND, floor: int = HALF_VALUE) -> int:
    """What the fair negotiator asks for in the round being played: ``opening`` in round 1 or 2,
    conceding evenly to ``floor`` by the last round before the random stop, ``floor`` after it."""
    last = max(2, state.rounds_before_stop)
    progress = min(1.0, max(0, state.round - 2) / max(1, last - 2))
    return round(opening - (opening - floor) * progress)


def opponent_interest(state: BargainingState, seat: int) -> tuple[float, float, float]:
    """How much the opponent seems to want each item: the share of each item type it kept, on average
    over its proposals (0.5 each before it has made one)."""
    other = 1 - seat
    kept = [state.share(i, other) for i in range(len(state.offers)) if state.proposer(i) == other]
    if not kept:
        return (0.5, 0.5, 0.5)
    a, b, c = (sum(share[k] for share in kept) / (len(kept) * n) for k, n in enumerate(state.pool))
    return (a, b, c)


def my_shares(pool: Triple) -> list[Triple]:
    """Every share one seat can keep of ``pool``."""
    a, b, c = pool
    return [(x, y, z) for x in range(a + 1) for y in range(b + 1) for z in range(c + 1)]


def as_action(state: BargainingState, seat: int, mine: Sequence[int]) -> Action:
    """The division that gives ``seat`` the share ``mine`` and the opponent the rest."""
    other = tuple(n - x for n, x in zip(state.pool, mine, strict=True))
    return division_action(mine, other) if seat == 0 else division_action(other, mine)


def fair_proposal(state: BargainingState, seat: int, demand: int) -> tuple[Action, int]:
    """The division worth at least ``demand`` to ``seat`` that leaves the opponent the most: the
    least value above the demand for itself, then the most of what the opponent seems to want, then
    the most items given away (so the items it values least go first). Returns the action and its
    value to ``seat``."""
    values = state.values[seat]
    if values is None:
        raise ValueError("the fair negotiator needs its own values")
    interest = opponent_interest(state, seat)

    def rank(mine: Triple) -> tuple[int, float, int, Triple]:
        given = [n - x for n, x in zip(state.pool, mine, strict=True)]
        wanted = sum(w * g for w, g in zip(interest, given, strict=True))
        return (value_of(values, mine), -wanted, -sum(given), mine)

    shares = my_shares(state.pool)
    enough = [s for s in shares if value_of(values, s) >= demand] or [
        max(shares, key=lambda s: value_of(values, s))
    ]
    best = min(enough, key=rank)
    return as_action(state, seat, best), value_of(values, best)


def offer_worth(state: BargainingState, seat: int) -> int | None:
    """What the opponent's latest proposal is worth to ``seat`` (``None`` when there is none)."""
    index = state.opponent_offer(seat)
    values = state.values[seat]
    if index is None or values is None:
        return None
    return value_of(values, state.share(index, seat))


class _Negotiator:
    """What both bots share: they act from the seat's view and explain their choice."""

    kind = BOT
    spec = "bot"
    label = "Bot"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        self.game = game
        self.seed = seed
        self._rng = random.Random(seed)

    def decide(self, state: BargainingState, seat: int) -> tuple[Action, str, dict[Action, float]]:
        raise NotImplementedError

    async def act(self, observation: Observation) -> Decision:
        started = time.perf_counter()
        state = observation.state
        if not isinstance(state, BargainingState) or state.values[observation.seat] is None:
            action = self._rng.choice(observation.legal_actions)
            return Decision(action, rationale="no values to negotiate with; a random legal action")
        action, why, values = self.decide(state, observation.seat)
        if action not in observation.legal_actions:  # never expected: stay legal rather than stall
            action = observation.legal_actions[-1]
        latency = (time.perf_counter() - started) * 1000
        return Decision(action, rationale=why, values=values, extra={"latency_ms": round(latency, 2)})


class FairBot(_Negotiator):
    """Opens at about 20, concedes towards 15, agrees to anything worth its current demand."""

    spec = "fair"
    label = "Fair negotiator"

    def decide(self, state: BargainingState, seat: int) -> tuple[Action, str, dict[Action, float]]:
        demand = threshold(state)
        offered = offer_worth(state, seat)
        proposal, worth = fair_proposal(state, seat, demand)
        values: dict[Action, float] = {proposal: float(worth)}
        if offered is not None:
            values[AGREE] = float(offered)
            if offered >= demand:
                return (
                    AGREE,
                    f"their proposal is worth {offered} to me, at least my demand of {demand}",
                    values,
                )
            why = f"their proposal is worth only {offered} to me; I ask for {demand} and offer {worth}"
        else:
            why = f"opening: I ask for {demand} and offer a division worth {worth} to me"
        return proposal, why, values


class GreedyBot(_Negotiator):
    """Agrees to anything worth at least 15; otherwise demands every item it values."""

    spec = "greedy"
    label = "Greedy negotiator"

    def decide(self, state: BargainingState, seat: int) -> tuple[Action, str, dict[Action, float]]:
        mine = state.values[seat]
        assert mine is not None
        offered = offer_worth(state, seat)
        keep = tuple(n if v > 0 else 0 for n, v in zip(state.pool, mine, strict=True))
        proposal = as_action(state, seat, keep)
        worth = value_of(mine, keep)
        values: dict[Action, float] = {proposal: float(worth)}
        if offered is not None:
            values[AGREE] = float(offered)
            if offered >= HALF_VALUE:
                return AGREE, f"their proposal is worth {offered} to me, at least half of 30", values
        return proposal, f"I keep every item I value ({worth} to me) and give away the rest", values
