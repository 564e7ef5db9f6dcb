"""The simulated model on VGDL games: GVGAI-LLM's answer format, a trace that reads the legend and
names the avatar and the goal, slips written from a misreading, and reflections on the last step."""

from __future__ import annotations

import asyncio
import re

import pytest

from engine import registry
from engine.games.vgdl.sim import VgdlSim, goals, reflect_step
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext
from engine.players import StepRecord


@pytest.fixture(autouse=True)
def small_search(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(VgdlSim, "iterations", 20)


def ask(client: SimClient, game, state, history=()) -> tuple[str, str]:  # noqa: ANN001
    client.set_context(SimContext(game, state, 0, tuple(history)))
    request = Request(model="sim", messages=(Message("system", "Play."), Message("user", "Your move?")))
    completion = asyncio.run(client.complete(request))
    return completion.reasoning, completion.content


def action_of(game, state, answer: str) -> str:  # noqa: ANN001
    match = re.search(r"^Action: (\S+)$", answer, re.MULTILINE)
    assert match, answer
    return game.parse_action(match.group(1), state)


def test_the_game_names_this_behaviour():
    game = registry.make("vgdl-keyhunt", level=0)
    assert game.load(game.sim_behaviour) is VgdlSim


def test_a_careful_model_answers_with_an_action_number_and_reads_the_map():
    game = registry.make("vgdl-keyhunt", level=0)
    state = game.initial_state(seed=1)
    reasoning, answer = ask(SimClient("perfect", seed=1, latency=0), game, state)
    lines = answer.splitlines()
    assert lines[0].startswith("Action: ") and lines[1].startswith("Reason: ") and len(lines) == 2
    action = action_of(game, state, answer)
    assert action in state.legal_actions()
    assert "'k' key" in reasoning and "'c' chest" in reasoning
    assert "(row 1, col 1)" in reasoning  # the avatar
    assert "no chest may remain" in reasoning and "(row 3, col 7)" in reasoning  # the goal
    assert f"({action})" in reasoning


def test_a_careful_model_wins_the_easy_crates_level():
    game = registry.make("vgdl-crates", level=0, max_steps=10)
    client = SimClient("perfect", seed=2, latency=0)
    state = game.initial_state(seed=2)
    while not state.is_over:
        _, answer = ask(client, game, state)
        state = state.apply(action_of(game, state, answer))
    assert state.won is True


def test_a_careless_model_slips_the_way_the_paper_describes():
    game = registry.make("vgdl-keyhunt", level=0)
    state = game.initial_state(seed=3)
    client = SimClient("careless", seed=4, latency=0)
    kinds = set()
    for _ in range(40):
        reasoning, answer = ask(client, game, state)
        if not re.search(r"^Action: (\d+|ACTION_[A-Z]+)$", answer, re.MULTILINE):
            assert not re.search(r"\d", answer)  # a format slip names no number at all
            kinds.add("format")
            continue
        try:
            action_of(game, state, answer)
        except Exception:
            kinds.add("illegal")
            assert "ACTION_USE" in answer
            continue
        if "looks like open floor" in reasoning:
            kinds.add("wall")
        if "waiting one step" in reasoning:
            kinds.add("nil")
    assert {"format", "illegal"} <= kinds
    assert kinds & {"wall", "nil"}


def test_goals_name_the_nearest_sprite_the_win_condition_counts():
    game = registry.make("vgdl-gems", level=0)
    state = game.initial_state(seed=0)
    found = goals(state)
    assert found == [("no lift may remain", (3, 6))]


def test_reflection_says_what_the_step_did():
    game = registry.make("vgdl-keyhunt", level=0)
    start = game.initial_state(seed=0)
    blocked = start.apply("ACTION_UP")
    assert "did not move me" in reflect_step(start, blocked, "ACTION_UP")
    moved = start.apply("ACTION_RIGHT")
    text = reflect_step(start, moved, "ACTION_RIGHT")
    assert "moved me from (row 1, col 1) to (row 1, col 2)" in text and "A meaningful step" in text
    back = moved.apply("ACTION_LEFT")
    assert "undid one of my last moves" in reflect_step(moved, back, "ACTION_LEFT", [start.avatar_pos])
    behaviour = VgdlSim(game)
    history = (StepRecord(0, start, {0: "ACTION_RIGHT"}, (0.0,), moved),)
    assert behaviour.reflection(SimContext(game, moved, 0, history)) == text
