"""Pong's renderer: golden images (the serve, a rally, the end of a match), what it reads of a state,
and its speed."""

from __future__ import annotations

import asyncio
import dataclasses
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import engine
import renderers
from engine.games.pong import PongState
from engine.players import Observation
from tests.renderers.render_helpers import changed_mask, pixels
from tests.renderers.test_golden import Case, check_golden

GAME = engine.make("pong")


def serve_state() -> PongState:
    state = GAME.initial_state(seed=3)
    assert isinstance(state, PongState)
    return state


def rally_state() -> PongState:
    """Seed 3 after 53 decisions of two predictors: two hits into the rally, the ball mid-court."""
    state = serve_state()
    bots = [GAME.make_bot("predictor", 0), GAME.make_bot("predictor", 1)]
    for _ in range(53):
        state = state.apply(
            {
                seat: asyncio.run(
                    bots[seat].act(Observation(GAME, state, seat, tuple(state.legal_actions(seat))))
                ).action
                for seat in (0, 1)
            }
        )
    assert state.in_play and state.hits == 2 and state.ball == (92, 86)
    return state


def final_state() -> PongState:
    state = dataclasses.replace(rally_state(), ball=(150, 60), velocity=(3, 2), paddles=(150, 60))
    state = state.apply({0: "stay", 1: "stay"})
    assert state.is_over and state.winner == 1
    return state


CASES = [
    Case("pong-serve", "pong", serve_state, (320, 320)),
    Case("pong-mid-rally", "pong", rally_state, (320, 320)),
    Case("pong-left-wins-wide", "pong", final_state, (400, 300)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_the_court_is_black_with_white_paddles() -> None:
    image = pixels(renderers.get("pong").render(serve_state(), 320, 320))
    dark = (image.max(axis=2) < 16).mean()
    white = (image.min(axis=2) > 240).mean()
    assert dark > 0.85 and 0.005 < white < 0.1


def test_the_paddles_and_the_ball_move_in_the_picture() -> None:
    r = renderers.get("pong")
    before = serve_state()
    moved = dataclasses.replace(before, paddles=(before.paddles[0] + 40, before.paddles[1]))
    mask = changed_mask(r.render(before, 320, 320), r.render(moved, 320, 320))
    columns = np.flatnonzero(mask.any(axis=0))
    assert columns.size and columns.min() > 320 * 0.8  # only the right paddle changed
    up = dataclasses.replace(before, ball=(before.ball[0], 170))
    rows = np.flatnonzero(changed_mask(r.render(before, 320, 320), r.render(up, 320, 320)).any(axis=1))
    assert rows.min() < 320 * 0.25  # a higher y is higher in the picture


def test_reads_only_public_attributes() -> None:
    state: Any = SimpleNamespace(
        ball=(80, 96), paddles=(88, 88), points=(2, 3), frame=12, max_frames=1000, is_over=False, winner=None
    )
    image = renderers.get("pong").render(state, 256, 256)
    assert not image.isNull()
    assert renderers.get("pong").hit_test(state, 256, 256, 128, 128) is None
