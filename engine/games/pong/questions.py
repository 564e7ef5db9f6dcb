"""Pong's intermediate questions (GameBot): the ball's direction, and its height at the paddle.

Both oracles read only what the seat's text view shows: the last two recorded frames, in the seat's
own (mirrored, for seat 1) coordinates, exactly as GameBot's checker did.

1. "ball direction": ``Right``/``Left`` from the sign of Δx and ``Up``/``Down`` from the sign of Δy
   between the last two frames (up is +y). Not scored when Δx or Δy is 0 or the ball is not in play
   (waiting for a serve, or already out).
2. "ball y at the paddle": the line through the last two ball positions, extended to the paddle's
   x = 140 and folded back into the court off the walls ("unfold, then fold"). Scored only while the
   ball moves right, towards the seat's paddle, and has not passed it. Correct within 0.1.
"""

from __future__ import annotations

import random
import re
from typing import Any

from engine.core import Seat, State
from engine.games.pong.rules import (
    COURT_WIDTH,
    LOWER_WALL,
    RIGHT_X,
    UPPER_WALL,
    PongState,
    fold,
)
from engine.questions import ACCURACY, Question, format_number

__all__ = [
    "DIRECTIONS",
    "QUESTIONS",
    "ball_direction",
    "ball_y_at_paddle",
    "direction_applies",
    "direction_of",
    "intercept",
    "intercept_applies",
    "last_two",
    "unfolded",
]

DIRECTIONS = ("Left Down", "Right Up", "Left Up", "Right Down")


def _pong(state: State) -> PongState:
    if not isinstance(state, PongState):
        raise TypeError(f"not a Pong state: {type(state).__name__}")
    return state


def last_two(state: State, seat: Seat) -> tuple[tuple[int, int], tuple[int, int]]:
    """The ball's last two recorded positions in ``seat``'s view, oldest first (the one position
    twice when the rally has only one frame so far)."""
    frames = _pong(state).seat_frames(seat)
    (x1, y1, *_), (x2, y2, *_) = frames[-2] if len(frames) > 1 else frames[-1], frames[-1]
    return (x1, y1), (x2, y2)


def direction_of(dx: float, dy: float) -> str:
    """GameBot's direction words for a step of the ball (``"Right Up"``)."""
    return f"{'Right' if dx > 0 else 'Left'} {'Up' if dy > 0 else 'Down'}"


def ball_direction(state: State, seat: Seat) -> str:
    """The direction of the ball between the last two frames, in ``seat``'s view."""
    (x1, y1), (x2, y2) = last_two(state, seat)
    return direction_of(x2 - x1, y2 - y1)


def _in_play(state: State, seat: Seat) -> bool:
    (x1, _), (x2, _) = last_two(state, seat)
    s = _pong(state)
    return not s.is_over and s.in_play and all(0 < x < COURT_WIDTH for x in (x1, x2))


def direction_applies(state: State, seat: Seat) -> bool:
    """The direction is scored only when the ball moved both ways and is in play."""
    (x1, y1), (x2, y2) = last_two(state, seat)
    return x2 != x1 and y2 != y1 and _in_play(state, seat)


def unfolded(p1: tuple[float, float], p2: tuple[float, float], x: float = RIGHT_X) -> float:
    """The straight line through ``p1`` and ``p2`` at ``x``, walls ignored (``y = m x + b``)."""
    (x1, y1), (x2, y2) = p1, p2
    if x2 == x1:
        return float(y2)
    slope = (y2 - y1) / (x2 - x1)
    return y2 + slope * (x - x2)


def intercept(p1: tuple[float, float], p2: tuple[float, float], x: float = RIGHT_X) -> float:
    """Where the ball moving from ``p1`` to ``p2`` crosses ``x``, after its rebounds off the walls."""
    return fold(unfolded(p1, p2, x))


def ball_y_at_paddle(state: State, seat: Seat) -> float:
    """The ball's y when its x reaches the seat's paddle (x = 140), from the last two frames."""
    p1, p2 = last_two(state, seat)
    return round(intercept(p1, p2), 4)


def intercept_applies(state: State, seat: Seat) -> bool:
    """The intercept is scored only while the ball moves right, towards the seat's paddle, and has
    not yet passed it."""
    (x1, _), (x2, _) = last_two(state, seat)
    return x2 > x1 and x2 <= RIGHT_X and _in_play(state, seat)


# -- reading answers and the simulated model's mistakes ---------------------------------------------

_HORIZONTAL = re.compile(r"\b(left|right)\b", re.IGNORECASE)
_VERTICAL = re.compile(r"\b(up|down|upwards?|downwards?)\b", re.IGNORECASE)


def parse_direction(answer: str | None) -> str | None:
    """``"Right Up"``, ``"up and to the right"`` or ``"Right-Up"`` → ``"right up"``; text naming
    no direction is kept (lower-cased) and so judged wrong; ``None`` when empty (a format error)."""
    if answer is None:
        return None
    text = answer.strip().strip(".*`'\"[]").strip()
    if not text:
        return None
    spaced = text.replace("-", " ").replace("_", " ").replace("/", " ")
    h, v = _HORIZONTAL.search(spaced), _VERTICAL.search(spaced)
    if h and v:
        vertical = "up" if v.group(1).lower().startswith("up") else "down"
        return f"{h.group(1).lower()} {vertical}"
    return " ".join(text.lower().split())


def wrong_direction(truth: Any, view: State, seat: Seat, rng: random.Random) -> str:
    """The mistakes models make reading the frames: mostly the vertical sense (y grows upwards here,
    unlike screen pixels), sometimes the horizontal one."""
    horizontal, vertical = str(truth).split()
    if rng.random() < 0.7:
        vertical = "Down" if vertical == "Up" else "Up"
    else:
        horizontal = "Left" if horizontal == "Right" else "Right"
    return f"{horizontal} {vertical}"


def wrong_intercept(truth: Any, view: State, seat: Seat, rng: random.Random) -> float:
    """A slip in the arithmetic, or a missed rebound: when the straight line leaves the court the
    model forgets to reflect it once more, and reports the wall's y it stopped at."""
    p1, p2 = last_two(view, seat)
    straight = unfolded(p1, p2)
    value = float(truth)
    if not LOWER_WALL <= straight <= UPPER_WALL and rng.random() < 0.3:
        wall = float(UPPER_WALL if straight > UPPER_WALL else LOWER_WALL)
        if abs(wall - value) >= 1:
            return wall
    for _ in range(20):
        delta = rng.choice((-16, -10, -8, -6, -4, -2, 2, 4, 6, 8, 10, 16))
        if LOWER_WALL <= value + delta <= UPPER_WALL:
            return value + delta
    return value + 4 if value + 4 <= UPPER_WALL else value - 4


QUESTIONS = (
    Question(
        1,
        "ball direction",
        ball_direction,
        parse=parse_direction,
        kind="value",
        metric=ACCURACY,
        applies=direction_applies,
        wrong=wrong_direction,
    ),
    Question(
        2,
        "ball y at the paddle",
        ball_y_at_paddle,
        write=format_number,
        kind="number",
        metric=ACCURACY,
        tolerance=0.1,
        applies=intercept_applies,
        wrong=wrong_intercept,
    ),
)
