"""The board image a vision model gets is encoded once per state and options: a re-ask or a
reflection on the same board reuses the bytes (desktop.episode.png_renderer)."""

from __future__ import annotations

import pytest

import engine
import renderers.base
from desktop.episode import png_renderer
from engine.agent.perception import Perception
from engine.players import Observation


@pytest.fixture
def encodes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = renderers.base.encode_png

    def counting(image: object) -> bytes:
        calls.append(1)
        return real(image)  # type: ignore[arg-type]

    monkeypatch.setattr(renderers.base, "encode_png", counting)
    return calls


def test_the_same_state_is_encoded_once(qapp: object, encodes: list[int]) -> None:
    game = engine.make("2048")
    state = game.initial_state(seed=4)
    render = png_renderer("2048", size=128)
    assert render is not None
    first = render(state)
    # An equal state rebuilt from the session's JSON (what a re-ask or a fork sees) is the same board.
    again = render(game.state_from_json(state.to_json()))
    assert again == first and len(encodes) == 1
    # Other options or another state are other pictures.
    assert render(state, grid_labels=False) != first
    assert render(state.apply(state.legal_actions()[0])) != first
    assert len(encodes) == 3


def test_perception_asked_twice_encodes_once(qapp: object, encodes: list[int]) -> None:
    game = engine.make("tictactoe")
    state = game.initial_state(seed=0).apply("(1,1)")
    render = png_renderer("tictactoe", size=128)
    obs = Observation(game, state, state.to_act[0], tuple(state.legal_actions()), render=render)
    perception = Perception("image")
    first, second = perception.perceive(obs), perception.perceive(obs)  # an ask, then a re-ask
    assert first.image is not None and first.image == second.image
    assert len(encodes) == 1
