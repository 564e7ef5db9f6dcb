"""GVGAI-LLM metrics for VGDL episodes: meaningful steps, step efficiency, normalised reward, overall score.

Pure functions over state values that expose ``ascii_rows`` (one string per grid row), ``legend``
(sprite name -> character), ``avatar_pos`` ((row, col) or ``None`` once the avatar is gone),
``game_score``, ``won`` (``True``/``False``/``None`` while undecided) and ``tick``.

Two meaningful-step rules are computed side by side:

* the paper's rule (``meaningful``): a step counts when the reward changed or the world visibly
  changed (the avatar moved or transformed, an entity disappeared, appeared or transformed), except a
  ``nil`` action, and except a move that trivially cancels an earlier one: the avatar steps back onto a
  cell it stood on within the last four steps while nothing else happened;
* the reference code's rule (``meaningful_1step``): a step does not count when the action is ``nil``,
  or when the avatar stayed put with no reward and no entity disappearing, or when the avatar returned to
  the cell it stood on one step earlier (a one-step look-back, whatever else happened).

Level-set figures (normalised reward, overall score) are min-max normalised over a population of
episodes that the caller chooses; the population (players and levels) is returned with the figures.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

EPSILON = 1e-8
"""The small constant of the min-max normalisations (as in the reference code)."""

CANCEL_WINDOW = 4
"""The paper's look-back for moves that cancel each other."""

NIL_ACTIONS = frozenset({"nil", "noop", "none", "action_nil", "0"})
"""Action spellings that mean "do nothing" (case-insensitive); the integer 0 is GVGAI's NIL id."""

Pos = tuple[int, int]


class VgdlStateLike(Protocol):
    """What the metrics read from a VGDL state."""

    @property
    def ascii_rows(self) -> tuple[str, ...]: ...
    @property
    def legend(self) -> Mapping[str, str]: ...
    @property
    def avatar_pos(self) -> Pos | None: ...
    @property
    def game_score(self) -> float: ...
    @property
    def won(self) -> bool | None: ...
    @property
    def tick(self) -> int: ...


def is_nil(action: Any) -> bool:
    """Whether ``action`` is the do-nothing action (``"nil"``, ``"ACTION_NIL"``, GVGAI id 0, ...)."""
    if isinstance(action, bool):
        return False
    if isinstance(action, int):
        return action == 0
    return str(action).strip().lower() in NIL_ACTIONS


def _cell(rows: Sequence[str], pos: Pos | None) -> str | None:
    if pos is None:
        return None
    r, c = pos
    if 0 <= r < len(rows) and 0 <= c < len(rows[r]):
        return rows[r][c]
    return None


def entity_counts(state: VgdlStateLike) -> Counter[str]:
    """Characters on the grid, counted once per cell, without the avatar's own cell."""
    counts = Counter("".join(state.ascii_rows))
    own = _cell(state.ascii_rows, state.avatar_pos)
    if own is not None:
        counts[own] -= 1
        if counts[own] <= 0:
            del counts[own]
    return counts


def step_flags(before: VgdlStateLike, after: VgdlStateLike, action: Any, *,
               recent_positions: Sequence[Pos | None] = (),
               cancel_window: int = CANCEL_WINDOW) -> dict[str, bool]:
    """The facts about one step from ``before`` to ``after`` by ``action``, and both verdicts.

    ``recent_positions`` are the avatar's positions before the earlier steps of the episode, oldest
    first (``before.avatar_pos`` itself is not among them); only the last ``cancel_window`` are read.

    Keys: ``nil``, ``moved``, ``reward_triggered``, ``entity_triggered`` (an entity disappeared, the
    reference code's test), ``entity_changed`` (an entity appeared, disappeared or transformed),
    ``avatar_changed`` (the avatar's own character changed, e.g. picking up a key), ``state_changed``,
    ``ineffective`` (nothing happened), ``cancel_1step``, ``cancel_window``, ``meaningful`` (the paper)
    and ``meaningful_1step`` (the reference code).
    """
    rows0, rows1 = before.ascii_rows, after.ascii_rows
    return counted_flags(
        Counter("".join(rows0)), _cell(rows0, before.avatar_pos), before.avatar_pos,
        Counter("".join(rows1)), _cell(rows1, after.avatar_pos), after.avatar_pos,
        reward=float(after.game_score) - float(before.game_score) != 0.0,
        legend_changed=before.legend != after.legend, action=action,
        recent_positions=recent_positions, cancel_window=cancel_window)


def _without(counts: Counter[str], own: str | None) -> Counter[str]:
    """``counts`` less the avatar's own cell (as :func:`entity_counts`)."""
    if own is None:
        return counts
    out = counts.copy()
    out[own] -= 1
    if out[own] <= 0:
        del out[own]
    return out


def counted_flags(counts0: Counter[str], own0: str | None, p0: Pos | None,
                  counts1: Counter[str], own1: str | None, p1: Pos | None, *, reward: bool,
                  legend_changed: bool, action: Any, recent_positions: Sequence[Pos | None] = (),
                  cancel_window: int = CANCEL_WINDOW) -> dict[str, bool]:
    """:func:`step_flags` from what it reads of the two maps: each map's characters counted over the
    whole grid, the character of the avatar's cell and the avatar's position (so that a caller who
    keeps the counts up to date need not draw the map)."""
    nil = is_nil(action)
    moved = p0 != p1
    c0, c1 = _without(counts0, own0), _without(counts1, own1)
    entity_triggered = any(c1.get(ch, 0) < n for ch, n in c0.items())
    entity_changed = c0 != c1
    avatar_changed = own0 is not None and own1 is not None and own0 != own1
    state_changed = moved or entity_changed or avatar_changed or legend_changed
    ineffective = not moved and not reward and not entity_triggered
    last = recent_positions[-1] if recent_positions else None
    cancel_1 = moved and p1 is not None and last is not None and last == p1
    window = list(recent_positions)[-cancel_window:] if cancel_window > 0 else []
    returned = moved and p1 is not None and p1 in window
    cancel_w = returned and not reward and not entity_changed and not avatar_changed
    meaningful = (not nil) and (reward or state_changed) and not cancel_w
    meaningful_1 = not nil and not ineffective and not cancel_1
    return {
        "nil": nil, "moved": moved, "reward_triggered": reward, "entity_triggered": entity_triggered,
        "entity_changed": entity_changed, "avatar_changed": avatar_changed, "state_changed": state_changed,
        "ineffective": ineffective, "cancel_1step": cancel_1, "cancel_window": cancel_w,
        "meaningful": meaningful, "meaningful_1step": meaningful_1,
    }


def episode_flags(states: Sequence[VgdlStateLike], actions: Sequence[Any], *,
                  cancel_window: int = CANCEL_WINDOW) -> list[dict[str, bool]]:
    """:func:`step_flags` for every step of an episode (``len(states) == len(actions) + 1``)."""
    if len(states) != len(actions) + 1:
        raise ValueError(f"an episode of {len(actions)} actions needs {len(actions) + 1} states, "
                         f"got {len(states)}")
    flags = []
    positions: list[Pos | None] = []
    for i, action in enumerate(actions):
        flags.append(step_flags(states[i], states[i + 1], action, recent_positions=positions,
                                cancel_window=cancel_window))
        positions.append(states[i].avatar_pos)
    return flags


def step_rows(states: Sequence[VgdlStateLike], actions: Sequence[Any]) -> list[dict[str, Any]]:
    """Per-step rows in the reference code's ``step_metrics.csv`` shape (plus the paper's verdict)."""
    rows = []
    for i, (action, f) in enumerate(zip(actions, episode_flags(states, actions), strict=True)):
        before, after = states[i], states[i + 1]
        rows.append({
            "step": i, "action": action,
            "reward": float(after.game_score) - float(before.game_score),
            "avatar_pos_before": before.avatar_pos, "avatar_pos_after": after.avatar_pos,
            "reward_triggered": f["reward_triggered"], "entity_triggered": f["entity_triggered"],
            "meaningful": f["meaningful"], "meaningful_1step": f["meaningful_1step"],
        })
    return rows


@dataclass(frozen=True)
class EpisodeSummary:
    """One episode's figures; ``steps`` and ``won`` are kept so either efficiency variant can be taken."""

    steps: int
    meaningful_steps: int
    meaningful_steps_1step: int
    won: bool
    total_reward: float
    max_steps: int | None = None
    game: str = ""
    level: str = ""
    player: str = ""

    @property
    def meaningful_ratio(self) -> float:
        return self.meaningful_steps / self.steps if self.steps else 0.0

    @property
    def meaningful_ratio_1step(self) -> float:
        return self.meaningful_steps_1step / self.steps if self.steps else 0.0

    @property
    def step_efficiency(self) -> float:
        """``1 - steps / max_steps`` for this episode (0 when the cap is unknown)."""
        return _efficiency(self.steps, self.max_steps)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(meaningful_ratio=self.meaningful_ratio, meaningful_ratio_1step=self.meaningful_ratio_1step,
                 step_efficiency=self.step_efficiency)
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EpisodeSummary:
        """Read a dict written by :meth:`to_dict` (extra keys are ignored); raises ``ValueError`` if bad."""
        try:
            return cls(steps=int(data["steps"]), meaningful_steps=int(data["meaningful_steps"]),
                       meaningful_steps_1step=int(data.get("meaningful_steps_1step",
                                                           data["meaningful_steps"])),
                       won=bool(data["won"]), total_reward=float(data["total_reward"]),
                       max_steps=None if data.get("max_steps") is None else int(data["max_steps"]),
                       game=str(data.get("game", "")), level=str(data.get("level", "")),
                       player=str(data.get("player", "")))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a VGDL episode summary: {exc!r}") from exc


def _efficiency(steps: float, max_steps: int | None) -> float:
    if not max_steps:
        return 0.0
    return max(0.0, min(1.0, 1.0 - steps / max_steps))


def summarise_episode(states: Sequence[VgdlStateLike], actions: Sequence[Any], *,
                      max_steps: int | None = None, game: str = "", level: str = "",
                      player: str = "") -> EpisodeSummary:
    """The summary of one played episode (total reward = final score - initial score)."""
    flags = episode_flags(states, actions)
    first, last = states[0], states[-1]
    return EpisodeSummary(
        steps=len(actions), meaningful_steps=sum(f["meaningful"] for f in flags),
        meaningful_steps_1step=sum(f["meaningful_1step"] for f in flags), won=last.won is True,
        total_reward=float(last.game_score) - float(first.game_score), max_steps=max_steps,
        game=game, level=level, player=player)


def summarise(states: Sequence[VgdlStateLike], actions: Sequence[Any], **info: Any) -> dict[str, Any]:
    """:func:`summarise_episode` as a JSON-ready dict (the form stored in a finished session)."""
    return summarise_episode(states, actions, **info).to_dict()


def step_efficiency(episodes: Iterable[EpisodeSummary], max_steps: int | None = None, *,
                    wins_only: bool = True) -> float:
    """``1 - average steps / max steps``: over winning episodes (the paper's formula, 0 with no win),
    or over all episodes (``wins_only=False``, which matches the published columns)."""
    eps = [e for e in episodes if e.won or not wins_only]
    if not eps:
        return 0.0
    cap = max_steps if max_steps is not None else max((e.max_steps or 0) for e in eps)
    return _efficiency(statistics.fmean(e.steps for e in eps), cap)


def normalise(values: Sequence[float], *, invert: bool = False) -> list[float]:
    """Min-max normalisation ``(x - min) / (max - min + eps)``, or ``1 - that`` when ``invert``."""
    if not values:
        return []
    lo, hi = min(values), max(values)
    out = [(v - lo) / (hi - lo + EPSILON) for v in values]
    return [1.0 - v for v in out] if invert else out


def normalised_rewards(episodes: Sequence[EpisodeSummary]) -> list[float]:
    """Each episode's reward normalised by the min and max total reward of all players' episodes on
    the same game level (the paper's per-level normalisation), in the order given."""
    by_level: dict[tuple[str, str], list[float]] = {}
    for e in episodes:
        by_level.setdefault((e.game, e.level), []).append(e.total_reward)
    bounds = {k: (min(v), max(v)) for k, v in by_level.items()}
    out = []
    for e in episodes:
        lo, hi = bounds[(e.game, e.level)]
        out.append((e.total_reward - lo) / (hi - lo + EPSILON))
    return out


@dataclass(frozen=True)
class ScoreRow:
    """One (player, game, level) row: the means over its episodes and the overall score."""

    player: str
    game: str
    level: str
    episodes: int
    win_rate: float
    meaningful_ratio: float
    mean_steps: float
    mean_reward: float
    normalised_reward: float
    step_efficiency: float
    score: float = 0.0


@dataclass(frozen=True)
class ScoreTable:
    """Overall scores with the population they were normalised over."""

    rows: tuple[ScoreRow, ...]
    population: dict[str, Any] = field(default_factory=dict)


def overall_scores(episodes: Sequence[EpisodeSummary], *, one_step_rule: bool = False,
                   wins_only_efficiency: bool = True) -> ScoreTable:
    """The overall score of every (player, game, level): the mean of four components, each min-max
    normalised across all rows of this population: meaningful-step ratio, steps (inverted), reward and
    win rate (the reference code's order of operations: average per row first, then normalise).

    The population (players, game levels, episode count) is recorded in the result.
    """
    groups: dict[tuple[str, str, str], list[EpisodeSummary]] = {}
    for e in episodes:
        groups.setdefault((e.player, e.game, e.level), []).append(e)
    nrewards = dict(zip(map(id, episodes), normalised_rewards(episodes), strict=True))
    keys = sorted(groups)
    base = []
    for key in keys:
        eps = groups[key]
        ratio = [e.meaningful_ratio_1step if one_step_rule else e.meaningful_ratio for e in eps]
        base.append(ScoreRow(
            player=key[0], game=key[1], level=key[2], episodes=len(eps),
            win_rate=statistics.fmean(float(e.won) for e in eps),
            meaningful_ratio=statistics.fmean(ratio),
            mean_steps=statistics.fmean(e.steps for e in eps),
            mean_reward=statistics.fmean(e.total_reward for e in eps),
            normalised_reward=statistics.fmean(nrewards[id(e)] for e in eps),
            step_efficiency=step_efficiency(eps, wins_only=wins_only_efficiency)))
    components = [
        normalise([r.meaningful_ratio for r in base]),
        normalise([r.mean_steps for r in base], invert=True),
        normalise([r.mean_reward for r in base]),
        normalise([r.win_rate for r in base]),
    ]
    rows = tuple(
        ScoreRow(**{**asdict(r), "score": statistics.fmean(c[i] for c in components)})
        for i, r in enumerate(base))
    population = {
        "players": sorted({k[0] for k in keys}),
        "levels": sorted({f"{k[1]}/{k[2]}" for k in keys}),
        "rows": len(rows), "episodes": len(episodes),
        "meaningful_rule": "1-step" if one_step_rule else "paper",
        "efficiency": "wins only" if wins_only_efficiency else "all episodes",
    }
    return ScoreTable(rows=rows, population=population)
