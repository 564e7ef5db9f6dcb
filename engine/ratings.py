"""Ratings of players in one pool: OpenSkill's Plackett-Luce model over recorded matches.

A match is its players (in seat order) and their ranks (1 best; equal ranks tie). Matches are rated in
the order given with the ``openskill`` package, a kept implementation of the Weng-Lin Bayesian rating
system (as TextArena uses). Built-in bots are the ladder's anchors: their ratings are first learned
from the bot-against-bot matches alone, then held fixed while everyone else is rated against them, so
a model's rating keeps its meaning as more models join. A player's interval is ``mu ± 1.645 sigma``
(90 %). Reading matches out of sessions is :mod:`sessions.ratings`'.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating

__all__ = ["Z90", "Match", "Standing", "rate", "suggest_opponent"]

#: z of a two-sided 90 % interval.
Z90 = 1.6448536269514722


@dataclasses.dataclass(frozen=True)
class Match:
    """One rated result: ``players`` in seat order and their ``ranks`` (1 best; equal ranks tie)."""

    game: str
    when: str
    players: tuple[str, ...]
    ranks: tuple[int, ...]
    kinds: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Standing:
    player: str
    kind: str
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int
    anchor: bool

    @property
    def low(self) -> float:
        return self.mu - Z90 * self.sigma

    @property
    def high(self) -> float:
        return self.mu + Z90 * self.sigma

    def to_json(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "low": round(self.low, 3), "high": round(self.high, 3)}


def _model() -> PlackettLuce:
    return PlackettLuce()


def _play(
    model: PlackettLuce, ratings: dict[str, PlackettLuceRating], match: Match, frozen: set[str]
) -> None:
    teams = [[ratings.setdefault(p, model.rating(name=p))] for p in match.players]
    updated = model.rate(teams, ranks=list(match.ranks))
    for p, [r] in zip(match.players, updated, strict=True):
        if p not in frozen:
            ratings[p] = r


def rate(matches: Sequence[Match]) -> list[Standing]:
    """Standings of everyone in ``matches``, best first (by the interval's lower end)."""
    model = _model()
    kinds: dict[str, str] = {}
    for m in matches:
        kinds.update(zip(m.players, m.kinds, strict=True))
    bots = {p for p, k in kinds.items() if k == "bot"}
    anchors: dict[str, PlackettLuceRating] = {}
    bot_matches = [m for m in matches if all(p in bots for p in m.players)]
    if bot_matches:
        for m in bot_matches:
            _play(model, anchors, m, set())
    frozen = set(anchors)
    ratings = dict(anchors)
    for m in matches:
        if all(p in frozen for p in m.players):
            continue
        _play(model, ratings, m, frozen)
    record: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for m in matches:
        best = min(m.ranks)
        for p, r in zip(m.players, m.ranks, strict=True):
            rec = record[p]
            rec[0] += 1
            if r == best and m.ranks.count(best) == 1:
                rec[1] += 1
            elif r == best:
                rec[2] += 1
            else:
                rec[3] += 1
    standings = [
        Standing(p, kinds.get(p, "bot"), r.mu, r.sigma, *_record(record[p]), anchor=p in frozen)
        for p, r in ratings.items()
    ]
    standings.sort(key=lambda s: (-s.low, -s.mu, s.player))
    return standings


def _record(rec: list[int]) -> tuple[int, int, int, int]:
    """Games, wins, draws, losses."""
    return rec[0], rec[1], rec[2], rec[3]


def suggest_opponent(player: str, matches: Sequence[Match], candidates: Iterable[str]) -> tuple[str, float]:
    """The opponent whose result against ``player`` is least certain (win chance nearest one half,
    the most to learn from one match), with that chance.

    Raises:
        ValueError: no candidate other than ``player``.
    """
    model = _model()
    standings = {s.player: s for s in rate(matches)}

    def rating(name: str) -> PlackettLuceRating:
        s = standings.get(name)
        return model.rating(mu=s.mu, sigma=s.sigma, name=name) if s else model.rating(name=name)

    me = rating(player)
    best: tuple[float, str, float] | None = None
    for other in candidates:
        if other == player:
            continue
        p_win = model.predict_win([[me], [rating(other)]])[0]
        key = abs(p_win - 0.5)
        if best is None or key < best[0]:
            best = (key, other, p_win)
    if best is None:
        raise ValueError("no opponent to choose from")
    return best[1], best[2]
