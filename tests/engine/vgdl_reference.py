"""PlayTrace's VGDL engine compared with facts recorded from GVGAI's Java engine.

The facts are in ``tests/data/gvgai_reference/<game>.json`` (how they were recorded:
``docs/vgdl-reference.md``); the games themselves are read from ``../shared/gvgai`` beside the
repository (GPL test data, never copied here). Two kinds of facts:

* **traces** — an action sequence played from the start of a level, and the avatar's position (pixels),
  score, status (``ongoing``/``win``/``lose``), whether it is alive and its sprite type after every
  tick; recorded only where four different game seeds gave the same trace (deterministic);
* **random** — a uniformly random agent (over the avatar's actions and ``ACTION_NIL``) on level 0 with
  a step cap: the number of runs, the mean and standard deviation of the final score, the wins and the
  losses before the cap.

:func:`first_difference` replays a trace in PlayTrace and names the first tick that differs;
:func:`compare_random` plays the same random agent in PlayTrace and tests each figure against the
reference with scipy (Welch's t for the mean score, Fisher's exact test for the win and loss counts),
at the two-sided level of three standard errors. ``python -m tests.engine.vgdl_reference [GAME ...]``
prints both for every recorded game.
"""

from __future__ import annotations

import json
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scipy import stats

from engine.games.vgdl import VgdlError, VgdlGame, VgdlState

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data" / "gvgai_reference"
GVGAI = ROOT / ".." / "shared" / "gvgai"
#: Two-sided p-value of a difference of three standard errors under a normal law.
ALPHA = float(2 * stats.norm.sf(3.0))
#: PlayTrace episodes per game for the random-agent comparison.
RUNS = 30


def recorded_games() -> list[str]:
    """The games with recorded facts, by name."""
    return sorted(p.stem for p in DATA.glob("*.json"))


def load(game: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / f"{game}.json").read_text(encoding="utf-8"))
    return data


def make_game(data: dict[str, Any], level: int, max_steps: int) -> VgdlGame:
    return VgdlGame(game_file=str(GVGAI / data["game_file"]),
                    level_file=str(GVGAI / f"{data['game']}_lvl{level}.txt"), max_steps=max_steps)


def _status(state: VgdlState) -> str:
    return "ongoing" if state.won is None else ("win" if state.won else "lose")


def _facts(state: VgdlState, block: int) -> tuple[Any, ...]:
    """A PlayTrace state as the reference's facts: (x, y) in pixels, score, status, alive, type."""
    avatar = state.avatar
    if avatar is None:
        return (None, None, state.game_score, _status(state), False, None)
    return (avatar[3] * block, avatar[2] * block, state.game_score, _status(state), True,
            state.compiled.types[avatar[1]].name)


def _differs(ref: list[Any], ours: tuple[Any, ...]) -> bool:
    x, y, score, status, alive, kind = ref
    if status != ours[3] or alive != ours[4] or not math.isclose(score, ours[2], abs_tol=1e-6):
        return True
    return bool(alive and ((x, y) != (ours[0], ours[1]) or kind != ours[5]))


def _show(facts: list[Any] | tuple[Any, ...], block: int) -> str:
    x, y, score, status, alive, kind = facts
    where = f"(row {y / block:g}, col {x / block:g}) {kind}" if alive else "no avatar"
    return f"{where}, score {score:g}, {status}"


def first_difference(data: dict[str, Any], trace: dict[str, Any]) -> str | None:
    """``None`` when PlayTrace plays the trace tick for tick, else what differs first."""
    level = trace["level"]
    block = next(lv["block_size"] for lv in data["levels"] if lv["level"] == level)
    try:
        state = make_game(data, level, max_steps=100_000).initial_state(seed=0)
    except VgdlError as exc:
        return f"does not load: {exc}"
    ticks = trace["ticks"]
    for i, ref in enumerate(ticks):
        if i > 0:
            action = trace["actions"][i - 1]
            if state.is_over:
                return f"tick {i}: the game is over in PlayTrace (reference: {_show(ref, block)})"
            if action not in state.legal_actions():
                return (f"tick {i}: {action} is not an action of PlayTrace's avatar "
                        f"({', '.join(state.actions)})")
            try:
                state = state.apply(action)
            except Exception as exc:  # noqa: BLE001  (an engine error is a difference to report)
                return f"tick {i}: {type(exc).__name__}: {exc}"
        ours = _facts(state, block)
        if _differs(ref, ours):
            action = trace["actions"][i - 1] if i else "start"
            return (f"level {level} sequence {trace['sequence']}, tick {i} (after {action}): reference "
                    f"{_show(ref, block)}; PlayTrace {_show(ours, block)}")
    return None


@dataclass(frozen=True)
class RandomComparison:
    """PlayTrace's random-agent figures beside the reference's, with the test of each."""

    runs: int
    score_mean: float
    score_sd: float
    wins: int
    losses: int
    p_score: float
    p_wins: float
    p_losses: float

    @property
    def agrees(self) -> bool:
        return min(self.p_score, self.p_wins, self.p_losses) >= ALPHA


def play_random(data: dict[str, Any], runs: int = RUNS) -> list[tuple[float, str, int]]:
    """``runs`` episodes of the uniformly random agent in PlayTrace: (score, status, ticks) each."""
    ref = data["random"]
    game = make_game(data, ref["level"], max_steps=ref["step_cap"])
    out = []
    for seed in range(runs):
        rng = random.Random(seed)
        state = game.initial_state(seed=seed)
        while not state.is_over:
            state = state.apply(rng.choice(state.legal_actions()))
        # The cap ends a PlayTrace episode as lost; the reference counts it as neither won nor lost.
        status = "win" if state.won else ("lose" if state.tick < ref["step_cap"] else "ongoing")
        out.append((state.game_score, status, state.tick))
    return out


def _p_mean(m1: float, s1: float, n1: int, m2: float, s2: float, n2: int) -> float:
    if s1 == 0 and s2 == 0:
        return 1.0 if math.isclose(m1, m2, abs_tol=1e-9) else 0.0
    return float(stats.ttest_ind_from_stats(m1, s1, n1, m2, s2, n2, equal_var=False).pvalue)


def _p_count(k1: int, n1: int, k2: int, n2: int) -> float:
    return float(stats.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]]).pvalue)


def compare_random(data: dict[str, Any], runs: int = RUNS) -> RandomComparison:
    ref = data["random"]
    played = play_random(data, runs)
    scores = [s for s, _, _ in played]
    mean = sum(scores) / runs
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (runs - 1))
    wins = sum(st == "win" for _, st, _ in played)
    losses = sum(st == "lose" for _, st, _ in played)
    n = ref["runs"]
    return RandomComparison(
        runs=runs, score_mean=mean, score_sd=sd, wins=wins, losses=losses,
        p_score=_p_mean(mean, sd, runs, ref["score_mean"], ref["score_sd"], n),
        p_wins=_p_count(wins, runs, ref["wins"], n),
        p_losses=_p_count(losses, runs, ref["losses"], n),
    )


def describe_random(data: dict[str, Any], c: RandomComparison) -> str:
    ref = data["random"]
    n = ref["runs"]
    return (f"score {c.score_mean:.2f}±{c.score_sd:.2f} vs {ref['score_mean']:.2f}±{ref['score_sd']:.2f} "
            f"(p={c.p_score:.2g}); wins {c.wins}/{c.runs} vs {ref['wins']}/{n} (p={c.p_wins:.2g}); "
            f"losses {c.losses}/{c.runs} vs {ref['losses']}/{n} (p={c.p_losses:.2g})")


def main(argv: list[str]) -> int:
    """Print, per recorded game, whether its traces replay and whether random play agrees."""
    for game in argv or recorded_games():
        data = load(game)
        problems = [d for t in data["traces"] if (d := first_difference(data, t)) is not None]
        traces = f"traces {len(data['traces']) - len(problems)}/{len(data['traces'])}"
        line = f"{game}: {traces}"
        if problems:
            line += f" first: {problems[0]}"
        if data.get("random"):
            try:
                c = compare_random(data)
                line += f" | random {'agrees' if c.agrees else 'DIFFERS'}: {describe_random(data, c)}"
            except Exception as exc:  # noqa: BLE001  (a report line, not a test)
                line += f" | random: {type(exc).__name__}: {str(exc)[:200]}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
