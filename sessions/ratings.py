"""The matches that recorded sessions hold, for rating people, bots and models in one pool.

Every finished session is a match: a game with several seats ranks its players by the outcome
(winner first, a draw ties); sessions of a single-player game played on the same seed and options by
different players form one match ranked by score (the same board, the better score wins). The
ratings themselves are :mod:`engine.ratings`' (OpenSkill, bots as anchors, 90 % intervals); this
module re-exports what a caller needs with them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.ratings import Match, Standing, rate, suggest_opponent

__all__ = ["Match", "Standing", "load_manifests", "matches_from", "rate", "suggest_opponent"]

_FINISHED = {"completed", "max_steps", "forfeit"}


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
