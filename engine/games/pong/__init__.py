"""Pong, as GameBot plays it, on PlayTrace's own simulator: everything the game knows but its drawing.

* :mod:`.rules` — the court, the simulator, states, text views and the declaration :class:`Pong`;
* :mod:`.bots` — a ball tracker and an intercept predictor;
* :mod:`.questions` — GameBot's intermediate questions (ball direction, ball y at the paddle);
* :mod:`.answers` — reading an action out of a model's reply;
* :mod:`.sim` — how the simulated model reasons and answers here;
* ``prompts/`` — the prompt templates (``cot``, ``naive``, ``none``).

Its drawing is ``renderers/pong.py``.
"""

from engine.games.pong.rules import (
    ACTIONS,
    LEFT_X,
    LOWER_WALL,
    PADDLE_LENGTH,
    RIGHT_X,
    UPPER_WALL,
    Pong,
    PongState,
    fold,
    frame_dict,
)

__all__ = [
    "ACTIONS",
    "LEFT_X",
    "LOWER_WALL",
    "PADDLE_LENGTH",
    "RIGHT_X",
    "UPPER_WALL",
    "Pong",
    "PongState",
    "fold",
    "frame_dict",
]
