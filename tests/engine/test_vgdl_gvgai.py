"""The published GVGAI grid games (read from ../shared/gvgai when it is there): every one runs 100 random
steps on level 0; and the tick's shortcuts (sprites indexed once and carried from state to state, the
meaningful-step figures kept without drawing the map) change nothing."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from engine.games.vgdl import VgdlGame, VgdlState
from engine.games.vgdl import metrics as vgdl_metrics
from engine.games.vgdl.coverage import game_files, run_game

GVGAI = Path(__file__).resolve().parents[2] / ".." / "shared" / "gvgai"
GAMES = [p.stem for p in game_files(GVGAI)] if GVGAI.is_dir() else []
needs_gvgai = pytest.mark.skipif(not GAMES, reason="the GVGAI games (../shared/gvgai) are not there")
# Games whose rules use many of the engine's parts: pushing, chasing, spawning, timers, shields, paths,
# resources, transformations, missiles and health.
VARIED = (
    "aliens",
    "boulderdash",
    "zelda",
    "sokoban",
    "pacman",
    "seaquest",
    "grow",
    "run",
    "lasers",
    "chopper",
    "realportals",
    "themole",
    "invest",
    "x-racer",
    "roadfighter",
    "hungrybirds",
)


@needs_gvgai
@pytest.mark.parametrize("name", GAMES)
def test_every_gvgai_game_runs_100_random_steps_on_level_0(name: str) -> None:
    result = run_game(GVGAI / f"{name}.txt", level=0, steps=100, seed=3)
    assert result.ok, result.error
    assert result.steps == 100 or result.won is not None


def _play(name: str, steps: int, *, carry: bool) -> list[VgdlState]:
    game = VgdlGame(game_file=str(GVGAI / f"{name}.txt"), level_file=str(GVGAI / f"{name}_lvl0.txt"))
    state = game.initial_state(seed=11)
    rng = random.Random(5)
    states = [state]
    while len(states) <= steps and not state.is_over:
        if not carry:
            state = dataclasses.replace(state, carried=None)
        state = state.apply(rng.choice(state.legal_actions()))
        states.append(state)
    return states


@needs_gvgai
@pytest.mark.parametrize("name", [n for n in VARIED if n in GAMES])
def test_carrying_the_index_from_state_to_state_changes_nothing(name: str) -> None:
    carried, fresh = _play(name, 120, carry=True), _play(name, 120, carry=False)
    assert len(carried) == len(fresh)
    for a, b in zip(carried, fresh, strict=True):
        assert (a.sprites, a.game_score, a.won, a.timers, a.counters) == (
            b.sprites,
            b.game_score,
            b.won,
            b.timers,
            b.counters,
        )


@needs_gvgai
@pytest.mark.parametrize("name", [n for n in VARIED if n in GAMES])
def test_meaningful_steps_kept_along_the_way_match_the_drawn_maps(name: str) -> None:
    states = _play(name, 120, carry=True)
    actions = [s.last_action for s in states[1:]]
    flags = vgdl_metrics.episode_flags(states, actions)
    assert states[-1].counters == (
        sum(f["meaningful"] for f in flags),
        sum(f["meaningful_1step"] for f in flags),
        sum(f["nil"] for f in flags),
    )
    # The map itself must change along the way, or the comparison proves nothing.
    assert len({s.ascii_rows for s in states}) > 1
