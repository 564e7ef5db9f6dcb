"""Perception: what of the current state the model is shown, as text, as an image, or both, or as a
vision model's description of the image.

The text view is the state's own text (the same text the app can display) plus, where the game
offers one, a symbolic coordinate listing ("Box at (2,3)" style) from ``State.text_table``. The
image is the PNG the match's renderer draws (``Observation.render``), i.e. the very picture on screen.
Everything is computed from the observation's state, which is the acting seat's view: a seat's prompt
and image never show what only another seat may know.
In ``describe`` mode the image is drawn as for ``image``; the harness then asks a vision model (the
acting model or ``perception_model``) to describe it in its own call, and the acting model gets that
description instead of the image (LMGame-Bench's perception for Mario and Ace Attorney, the Harness
paper's vision mode). The description prompt is the game's own when its package has one
(``prompts/perception/describe.md``), the generic one otherwise
(:func:`engine.agent.prompts.load_perception`).
When an image is asked for but no renderer is available (a headless run without Qt), perception falls
back to text and says why, so the session never pretends an image was sent.

Drawing and PNG-encoding the board takes ~10 ms, which on the app's event loop is a visible stall per
decision (and eight at once with eight games). The harness therefore uses :meth:`Perception.aperceive`,
which draws in a worker thread (``asyncio.to_thread``); :meth:`Perception.perceive` stays for callers
without a loop. Both produce the same :class:`Percept`, so the recorded events do not change.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import Any

from engine.core import State
from engine.players import Observation

MODES = ("text", "image", "both", "describe")


@dataclasses.dataclass(frozen=True, slots=True)
class Percept:
    """What perception produced for one decision.

    Attributes:
        text: The state text placed in the prompt (a short pointer to the image in image-only mode).
        image: PNG bytes of the board, or ``None``.
        requested: The perception mode configured.
        used: The mode actually delivered (differs from ``requested`` after a fallback).
        note: Why ``used`` differs from ``requested``; empty otherwise.
    """

    text: str
    image: bytes | None
    requested: str
    used: str
    note: str = ""

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"requested": self.requested, "used": self.used}
        if self.note:
            data["note"] = self.note
        return data


def state_text(state: State, seat: int | None) -> str:
    """The state's text for ``seat`` plus its coordinate listing when the game gives one."""
    text = state.text(seat).rstrip()
    table = symbolic_table(state, seat)
    return f"{text}\n\n{table}" if table else text


def symbolic_table(state: State, seat: int | None = None) -> str:
    """The game's coordinate listing of ``state`` for ``seat`` (``""`` when it offers none)."""
    try:
        return str(state.text_table(seat)).rstrip()
    except Exception:  # a game's optional listing must never break a model's turn
        return ""


class Perception:
    """Turns an observation into a :class:`Percept` according to ``mode``."""

    def __init__(self, mode: str = "text", *, image_labels: bool = True) -> None:
        if mode not in MODES:
            raise ValueError(f"perception must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        #: Whether the image carries row/column coordinate labels around the board.
        self.image_labels = image_labels

    def perceive(self, obs: Observation) -> Percept:
        """Build the text and/or image for ``obs`` (never raises for a missing renderer)."""
        text = state_text(obs.state, obs.seat)
        if self.mode == "text":
            return Percept(text, None, "text", "text")
        image, note = _draw(obs.render, obs.state, self.image_labels)
        return self._percept(text, image, note)

    async def aperceive(self, obs: Observation) -> Percept:
        """Like :meth:`perceive`, but the board is drawn in a worker thread so the loop keeps running.

        States are immutable and renderers keep no per-call state, so drawing from a thread is safe;
        the caller makes sure the renderer's fonts were registered on the GUI thread beforehand.
        """
        text = state_text(obs.state, obs.seat)
        if self.mode == "text":
            return Percept(text, None, "text", "text")
        image, note = await asyncio.to_thread(_draw, obs.render, obs.state, self.image_labels)
        return self._percept(text, image, note)

    def _percept(self, text: str, image: bytes | None, note: str) -> Percept:
        if image is None:
            return Percept(text, None, self.mode, "text", note)
        if self.mode == "image":
            pointer = "The current board is shown in the attached image."
            return Percept(pointer, image, "image", "image")
        if self.mode == "describe":
            # ``text`` is replaced by the description once the perception call has answered.
            return Percept(text, image, "describe", "describe")
        return Percept(text, image, "both", "both")


def _draw(render: Callable[..., bytes] | None, state: State, labels: bool) -> tuple[bytes | None, str]:
    """The board's PNG (or None) and, when there is none, why."""
    if render is None:
        return None, "no board renderer in this run (headless); sent the text view instead of an image"
    try:
        return render(state, grid_labels=labels), ""
    except Exception as exc:  # a failed drawing must not cost the model its turn
        return None, f"rendering the board failed ({type(exc).__name__}: {exc}); sent the text view instead"
