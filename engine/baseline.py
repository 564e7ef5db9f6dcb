"""Baselines: a game's raw and progress scores over many episodes, as the papers report them.

LMGame-Bench reports each game's *raw score* (2048's merged sum, Sokoban's boxes on goals, Tetris'
pieces plus ten per line) and a *procedural progress score* (2048's largest tile, lines cleared) for
random play, for people and for models, as mean ± standard deviation over runs. A game names the two
figures by the keys of its final :meth:`engine.core.State.metrics` (:attr:`engine.core.Game.raw_score`,
:attr:`engine.core.Game.progress_score`); a game that names none is scored by its first seat's score.

:func:`play_episodes` plays fresh episodes with a player (``random``, a bot, ``sim``, a model);
:func:`episode_figures` reads the same figures from what a recorded ``session_finished`` event holds,
so human sessions count as a baseline the same way. :func:`summarise` gives mean, SD and SE.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine import events as ev
from engine.batch import BatchPlan, EpisodeStats, run_batch
from engine.core import Game
from engine.events import Event

__all__ = ["Figures", "Summary", "episode_figures", "figure_names", "play_episodes", "summarise"]

#: Statuses of an episode whose score counts (played to its end or to the step cap).
COUNTED = frozenset({"completed", "max_steps"})


@dataclasses.dataclass(frozen=True, slots=True)
class Figures:
    """One episode's raw and progress scores (``progress`` is ``None`` when the game has none)."""

    raw: float
    progress: float | None
    steps: int
    seed: int | None = None
    source: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class Summary:
    """Mean, sample standard deviation and standard error of the mean of ``n`` values."""

    n: int
    mean: float
    sd: float
    se: float
    low: float
    high: float

    def to_json(self) -> dict[str, float | int]:
        return dataclasses.asdict(self)


def figure_names(game: Game) -> tuple[str, str | None]:
    """The names people read for the game's raw and progress scores (the metric keys, or
    ``"score"`` for the first seat's score)."""
    return game.raw_score or "score", game.progress_score


def summarise(values: Sequence[float]) -> Summary:
    """Mean ± SD (sample, n − 1) and SE = SD / √n; SD and SE are 0 for a single value.

    Raises:
        ValueError: no values.
    """
    if not values:
        raise ValueError("no episodes to summarise")
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return Summary(len(values), mean, sd, sd / math.sqrt(len(values)), min(values), max(values))


def episode_figures(
    game: Game, finished: Mapping[str, Any], *, steps: int = 0, seed: int | None = None, source: str = ""
) -> Figures | None:
    """The figures of one episode from its ``session_finished`` data (``scores``, ``metrics``,
    ``status``); ``None`` when the episode did not end in a way that counts or lacks the figure."""
    if str(finished.get("status", "")) not in COUNTED:
        return None
    metrics = finished.get("metrics") or {}
    scores = finished.get("scores") or []
    raw = _number(metrics.get(game.raw_score)) if game.raw_score else _number(scores[0] if scores else None)
    if raw is None:
        return None
    progress = _number(metrics.get(game.progress_score)) if game.progress_score else None
    return Figures(raw, progress, steps, seed, source)


async def play_episodes(
    game_id: str,
    spec: str,
    *,
    episodes: int,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    max_steps: int | None = None,
    concurrency: int | None = None,
    model_options: Mapping[str, Any] | None = None,
    record: Any = None,
) -> tuple[list[Figures], list[EpisodeStats]]:
    """Play ``episodes`` episodes of a single-seat game (or every seat) with ``spec``; returns the
    figures of the episodes that count and every episode's stats (for errors and notes)."""
    plan = BatchPlan(
        game_id,
        specs=[spec],
        episodes=episodes,
        seed=seed,
        options=dict(options or {}),
        model_options=dict(model_options or {}),
        max_steps=max_steps,
        concurrency=concurrency,
    )
    finished: dict[int, Mapping[str, Any]] = {}

    def on_event(stats: EpisodeStats, event: Event) -> None:
        if event.type == ev.SESSION_FINISHED:
            finished[stats.index] = event.data

    outcome = await run_batch(plan, record=record, on_event=on_event)
    game = plan.game
    figures = []
    for stats in outcome.stats:
        data = finished.get(stats.index)
        if data is None:
            continue
        fig = episode_figures(game, data, steps=stats.steps, seed=stats.seed,
                              source=str(stats.path) if stats.path else "")
        if fig is not None:
            figures.append(fig)
    return figures, list(outcome.stats)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def values_of(figures: Iterable[Figures], which: str) -> list[float]:
    """The ``"raw"`` or ``"progress"`` values of ``figures`` (progress values that exist)."""
    out = []
    for f in figures:
        value = f.raw if which == "raw" else f.progress
        if value is not None:
            out.append(value)
    return out
