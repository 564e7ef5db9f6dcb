"""Ratings of people, built-in bots, the simulated model and models in one pool, from recorded sessions.

Every finished session is a match: a game with several seats ranks its players by the outcome
(winner first, a draw ties); sessions of a single-player game played on the same seed and options by
different players form one match ranked by score (the same board, the better score wins). Matches are
rated in the order they were played with OpenSkill's Plackett-Luce model (the ``openskill`` package,
a kept implementation of the Weng-Lin Bayesian rating system, as TextArena uses).

Built-in bots are the ladder's anchors: their ratings are first learned from the bot-against-bot
matches alone, then held fixed while everyone else is rated against them, so a model's rating keeps
its meaning as more models join. A player's interval is ``mu ± 1.645 sigma`` (90 %).
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating

__all__ = ["Match", "Standing", "load_manifests", "matches_from", "rate", "suggest_opponent"]

#: z of a two-sided 90 % interval.
Z90 = 1.6448536269514722
_FINISHED = {"completed", "max_steps", "forfeit"}


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


def identity(player: Mapping[str, Any], manifest: Mapping[str, Any]) -> str:
    """Who sat in a seat: the player spec; a person is ``human:<participant>`` in a study."""
    spec = str(player.get("spec") or "unknown")
    if player.get("kind") == "human":
        study = (manifest.get("extra") or {}).get("study") or {}
        who = study.get("participant") if isinstance(study, dict) else None
        return f"human:{who}" if who else "human"
    return spec


def _ranks_by_score(scores: Sequence[float]) -> tuple[int, ...]:
    order = sorted(set(scores), reverse=True)
    return tuple(order.index(s) + 1 for s in scores)


def matches_from(manifests: Iterable[Mapping[str, Any]]) -> list[Match]:
    """The rated matches in sessions' manifests (unfinished sessions and one-player games without a
    rival on the same seed are left out), oldest first."""
    out: list[Match] = []
    solo: dict[str, list[tuple[str, str, str, float]]] = defaultdict(list)
    for m in manifests:
        game = str(m.get("game"))
        if m.get("status") not in _FINISHED:
            continue
        players = sorted(
            (p for p in m.get("players") or [] if isinstance(p, dict)), key=lambda p: p.get("seat", 0)
        )
        scores = m.get("scores")
        if not players or not isinstance(scores, list) or len(scores) < len(players):
            continue
        if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in scores[: len(players)]):
            continue
        names = tuple(identity(p, m) for p in players)
        kinds = tuple(str(p.get("kind") or "bot") for p in players)
        when = str(m.get("created_at") or "")
        if len(players) == 1:
            key = f"{game}|{m.get('seed')}|{sorted((m.get('options') or {}).items())}"
            solo[key].append((when, names[0], kinds[0], float(scores[0])))
            continue
        if len(set(names)) < len(names):
            continue  # a player against itself says nothing about its strength
        winner = m.get("winner")
        if isinstance(winner, int) and 0 <= winner < len(players):
            ranks = tuple(1 if seat == winner else 2 for seat in range(len(players)))
        else:
            ranks = _ranks_by_score([float(x) for x in scores[: len(players)]])
        out.append(Match(game, when, names, ranks, kinds))
    for key, plays in solo.items():
        best: dict[str, tuple[str, str, float]] = {}
        for when, name, kind, score in sorted(plays):
            if name not in best:  # each player's first play of that board
                best[name] = (when, kind, score)
        if len(best) < 2:
            continue
        names = tuple(best)
        out.append(
            Match(
                key.split("|", 1)[0],
                max(b[0] for b in best.values()),
                names,
                _ranks_by_score([best[n][2] for n in names]),
                tuple(best[n][1] for n in names),
            )
        )
    out.sort(key=lambda x: x.when)
    return out


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


def load_manifests(folders: Iterable[Path]) -> list[dict[str, Any]]:
    """The manifests of every session under ``folders`` (a missing or unreadable one is skipped: its
    session was not closed, or is damaged, and has no result to rate)."""
    from sessions import schema
    from sessions._files import read_manifest
    from sessions.errors import SessionError
    from sessions.search import find_sessions

    out = []
    for folder in folders:
        for path in find_sessions(folder):
            try:
                manifest = read_manifest(path / schema.MANIFEST_FILE)
            except (SessionError, OSError):
                continue
            if isinstance(manifest, dict):
                out.append(manifest)
    return out
