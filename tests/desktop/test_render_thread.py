"""The real board renderer works from a worker thread once its fonts were registered on the GUI thread."""

from __future__ import annotations

import asyncio
import threading

import engine
from desktop.episode import png_renderer


def test_png_renderer_draws_the_same_image_in_a_worker_thread(qapp: object) -> None:
    from renderers import base

    render = png_renderer("2048", 128)
    assert render is not None
    # png_renderer registered the bundled fonts on this (the GUI) thread, before any worker draws.
    assert base._bundled_families.cache_info().currsize == 1
    state = engine.make("2048").initial_state(7)
    here = render(state)
    names: list[str] = []

    def in_thread() -> bytes:
        names.append(threading.current_thread().name)
        return render(state)

    there = asyncio.run(asyncio.to_thread(in_thread))
    assert names and names[0] != threading.main_thread().name
    assert there.startswith(b"\x89PNG") and there == here


def test_the_harness_decides_whether_the_image_has_coordinate_labels(qapp: object) -> None:
    from engine.agent.player import make_model_player
    from engine.players import Observation

    render = png_renderer("tictactoe", 128)
    assert render is not None
    game = engine.make("tictactoe")
    state = game.initial_state()
    sent: dict[bool, bytes] = {}
    for labels in (True, False):
        player = make_model_player("sim", game, perception="image", image_labels=labels, latency=0)
        obs = Observation(game, state, 0, tuple(state.legal_actions()), render=render)
        percept = asyncio.run(player.perception.aperceive(obs))
        assert percept.image is not None
        sent[labels] = percept.image
        assert player.harness_config()["image_labels"] is labels
    assert sent[True] == render(state, grid_labels=True)
    assert sent[False] == render(state, grid_labels=False) != sent[True]
