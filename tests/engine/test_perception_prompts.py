"""The ``describe`` perception prompt: a game's own when its package has one (LMGame-Bench's fields
for the courtroom, its 5x5-grid JSON for Mario), the generic one otherwise; never an action variant."""

from __future__ import annotations

import asyncio

import pytest

import engine
from engine import events as ev
from engine.agent.player import make_model_player
from engine.agent.prompts import load_perception, variants
from engine.events import Event
from engine.players import Observation


@pytest.mark.parametrize(
    ("game_id", "path", "says"),
    [
        ("courtroom", "prompts/courtroom/perception/describe.md", "Dialogue Continuation: Yes or No"),
        ("mario", "prompts/mario/perception/describe.md", '"immediate_threats": []'),
        ("2048", "prompts/_common/describe.md", "You are the eyes of an AI agent that plays 2048"),
    ],
)
def test_a_game_may_bring_its_own_description_prompt(game_id: str, path: str, says: str) -> None:
    game = engine.make(game_id)
    template = load_perception(game)
    assert template.path == path and "describe" not in variants(game)
    rendered = template.render({"game_title": game.title, "seat_name": "you", "rules": game.rules_text(),
                                "step": "3"})
    assert says in f"{rendered.system}\n{rendered.user}" and "{" not in rendered.system


def test_the_game_s_prompt_is_what_the_perception_call_sends() -> None:
    game = engine.make("courtroom")
    player = make_model_player("sim", game, seed=1, latency=0, perception="describe", reflection=False)
    state = game.initial_state(seed=1)
    events: list[Event] = []
    obs = Observation(game, state, 0, tuple(state.legal_actions(0)), emit=events.append,
                      render=lambda s, **_: b"\x89PNG fake")
    asyncio.run(player.act(obs))
    described = next(e for e in events if e.type == ev.PERCEPTION)
    assert described.data["template"] == "prompts/courtroom/perception/describe.md"
    assert "Game State: Cross-Examination or Conversation" in described.data["user"]
    assert described.blobs["image"].data == b"\x89PNG fake"
    assert player.harness_config()["perception_template"] == "prompts/courtroom/perception/describe.md"
