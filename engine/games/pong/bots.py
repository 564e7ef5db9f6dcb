"""Pong's built-in bots: a tracker that follows the ball, and a predictor that meets it.

Both work in the seat's own view (seat 1's court mirrored, so "my paddle" is always at x = 140) and
score each action by how close it brings the paddle's centre to where the bot wants it after one
decision (``frame_skip`` frames); standing still wins when the paddle is already within half a
decision's travel of the target, so neither bot jitters around it.

* ``tracker`` keeps the paddle's centre level with the ball. Beatable: the ball's steep angles are
  faster than a paddle.
* ``predictor`` (the default opponent) knows the ball's velocity, follows it frame by frame off the
  walls to where it will cross the paddle's face, and goes there early, aiming a few units off centre
  so the rebound is steep and heads away from the opponent's paddle. While the ball moves away it
  waits in the middle of the court.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.bots.base import SearchBot
from engine.core import Action, Seat
from engine.games.pong.rules import (
    CENTRE_Y,
    COURT_WIDTH,
    LOWER_WALL,
    PADDLE_LENGTH,
    PADDLE_SPEED,
    RIGHT_X,
    UPPER_WALL,
    PongState,
    mirror_frame,
)
from engine.players import Observation

__all__ = ["PredictorBot", "TrackerBot", "paddle_after", "seat_view", "trace_to_paddle"]

_HALF = PADDLE_LENGTH // 2
#: How far off centre the predictor means to meet the ball (a hit 6 or more units off centre is the
#: steepest rebound; the paddle lands within half a decision's travel of its target).
_AIM = 4


def seat_view(state: PongState, seat: Seat) -> tuple[int, int, int, int, int, int]:
    """Ball x, ball y, ball vx, ball vy, my paddle's low end, the opponent's, in ``seat``'s view."""
    x, y, mine, theirs = mirror_frame((*state.ball, *state.paddles), seat)
    vx, vy = state.velocity
    return x, y, (-vx if seat == 1 else vx), vy, mine, theirs


def paddle_after(low: int, action: Action, frames: int) -> int:
    """A paddle's low end after ``frames`` frames of ``action``."""
    step = {"stay": 0, "up": PADDLE_SPEED, "down": -PADDLE_SPEED}[action]
    return max(LOWER_WALL, min(UPPER_WALL - PADDLE_LENGTH, low + step * frames))


def trace_to_paddle(x: int, y: int, vx: int, vy: int) -> tuple[int, int]:
    """Follow a ball moving right, frame by frame off the walls, to where it crosses x = 140:
    its y there and the frames it takes."""
    frames = 0
    while x < RIGHT_X and frames < 4 * COURT_WIDTH:
        x, y = x + vx, y + vy
        if y > UPPER_WALL:
            y, vy = 2 * UPPER_WALL - y, -vy
        elif y < LOWER_WALL:
            y, vy = 2 * LOWER_WALL - y, -vy
        frames += 1
    return y, frames


class _PaddleBot(SearchBot):
    """Moves its paddle's centre towards :meth:`target`."""

    def target(self, state: PongState, seat: Seat) -> float:
        raise NotImplementedError

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, PongState)
        seat = observation.seat
        goal = self.target(state, seat)
        low = seat_view(state, seat)[4]
        reach = PADDLE_SPEED * state.frame_skip / 2
        values: dict[Action, float] = {}
        for action in observation.legal_actions:
            centre = paddle_after(low, action, state.frame_skip) + _HALF
            values[action] = -abs(goal - centre)
        if abs(goal - (low + _HALF)) <= reach and "stay" in values:
            values["stay"] = max(values.values()) + 1.0
        return values

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        state = observation.state
        assert isinstance(state, PongState)
        goal = self.target(state, observation.seat)
        low = seat_view(state, observation.seat)[4]
        where = f"paddle centre {low + _HALF}, target y {goal:.0f}"
        return f"{action}: {where}"


class TrackerBot(_PaddleBot):
    """Keeps the paddle level with the ball."""

    spec = "tracker"
    label = "Tracker"

    def target(self, state: PongState, seat: Seat) -> float:
        return float(state.ball[1])


class PredictorBot(_PaddleBot):
    """Goes to where the ball will cross its paddle, early, and aims for a steep rebound."""

    spec = "predictor"
    label = "Predictor"

    def target(self, state: PongState, seat: Seat) -> float:
        x, y, vx, vy, _mine, theirs = seat_view(state, seat)
        if vx <= 0 or x >= RIGHT_X:
            return float(CENTRE_Y)
        meet, _frames = trace_to_paddle(x, y, vx, vy)
        # Meeting the ball above the paddle's centre sends it up, below sends it down: aim so that
        # it heads for the half of the court the opponent's paddle is not in.
        send_up = theirs + _HALF < CENTRE_Y
        goal = meet - _AIM if send_up else meet + _AIM
        return float(max(LOWER_WALL + _HALF, min(UPPER_WALL - _HALF, goal)))
