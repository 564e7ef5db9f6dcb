"""Wiring shared by the app and the command line: a match, its players, its renderer and its session.

Both front ends build episodes here so that a game played in the window and a game run in batch are
recorded identically: :func:`start_episode` for one match, :func:`session_recorder` for the episodes of
an :mod:`engine.batch` run.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import engine
from engine import batch
from engine.core import Game, State
from engine.events import Event
from engine.match import Match, MatchResult, Pacer, Review
from engine.players import Player, StepRecord
from sessions import SessionWriter


def png_renderer(game_id: str, size: int = 512) -> Callable[..., bytes] | None:
    """The board renderer as PNG bytes (what a vision model receives): the game's own renderer, or
    the text fallback for a game without one; ``None`` only when Qt cannot draw here at all.

    The function returned is ``render(state, *, grid_labels=True)``: the harness decides per model
    player whether the image carries row/column coordinate labels. It is given the acting seat's
    view, so the image never shows what that seat may not see."""
    import renderers

    renderer = renderers.get(game_id)
    try:
        renderers.ensure_gui_app()
    except RuntimeError:
        return None
    # Model players draw their images in a worker thread (off the event loop). Registering the
    # bundled fonts with Qt is not thread-safe, so it happens here, on the GUI thread, first.
    from renderers.base import font_family

    font_family()

    # Encoded once per state and options: a re-ask, a reflection or a second seat's identical view
    # reuses the bytes instead of drawing and compressing again. States are values (equal states draw
    # the same picture), so they are the key; the few unhashable ones are keyed by their JSON.
    cache: collections.OrderedDict[Any, bytes] = collections.OrderedDict()
    lock = threading.Lock()  # perception draws in worker threads

    def render(state: State, *, grid_labels: bool = True) -> bytes:
        key = (_state_key(state), bool(grid_labels))
        with lock:
            if key in cache:
                cache.move_to_end(key)
                return cache[key]
        data = renderer.png(state, size, size, grid_labels=grid_labels)
        with lock:
            cache[key] = data
            while len(cache) > _PNG_CACHE_SIZE:
                cache.popitem(last=False)
        return data

    return render


#: How many encoded boards :func:`png_renderer` keeps (the recent steps of one episode).
_PNG_CACHE_SIZE = 32


def _state_key(state: State) -> Any:
    """A hashable value equal for equal states (the state itself, or its JSON when unhashable)."""
    try:
        hash(state)
    except TypeError:
        return (type(state), json.dumps(state.to_json(), sort_keys=True, default=str))
    return (type(state), state)


@dataclasses.dataclass
class Episode:
    """A match being played and the session recording it."""

    game: Game
    match: Match
    writer: SessionWriter
    specs: list[str]

    @property
    def path(self) -> Path:
        return self.writer.path

    async def run(self) -> MatchResult:
        """Play the match to its end and close the session (also when cancelled or failing)."""
        try:
            return await self.match.run()
        finally:
            self.writer.close()


def build_players(
    game: Game, specs: Sequence[str], *, seed: int | None, model_options: Mapping[str, Any] | None = None
) -> list[Player]:
    """Players for every seat; a single spec fills every seat of a multi-seat game
    (:func:`engine.batch.build_players`, so the app seats players exactly as a batch does)."""
    return batch.build_players(game, specs, seed=seed, model_options=model_options)


def start_episode(
    game_id: str,
    specs: Sequence[str],
    *,
    root: Path,
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    model_options: Mapping[str, Any] | None = None,
    max_steps: int | None = None,
    pacer: Pacer | None = None,
    review: Review | None = None,
    render: Callable[..., bytes] | None = None,
    players: Sequence[Player] | None = None,
    state: State | None = None,
    history: Sequence[StepRecord] = (),
    forked_from: Mapping[str, Any] | None = None,
    title: str | None = None,
    undo: bool = False,
    demo: bool = False,
    extra: Mapping[str, Any] | None = None,
) -> Episode:
    """Create the game, the players, the match and its session writer (subscribed to the match).

    ``undo`` lets a person take back moves (single-player games); ``demo`` marks the session as the
    demo's, which the session list hides by default; ``extra`` goes into the manifest (a study's
    tags)."""
    game = engine.make(game_id, **dict(options or {}))
    seated = list(players) if players is not None else build_players(
        game, specs, seed=seed, model_options=model_options
    )
    match = Match(
        game,
        seated,
        seed=seed,
        state=state,
        history=history,
        max_steps=max_steps,
        pacer=pacer,
        review=review,
        render=render,
        forked_from=forked_from,
        undo=undo,
    )
    # A fork's origin reaches the manifest through the match's session_started event.
    tags = dict(extra) if extra else None
    writer = SessionWriter.for_match(root, match, title=title, demo=demo, extra=tags)
    return Episode(game, match, writer, [p.spec for p in seated])


class SessionRecorder:
    """Records one batch episode into a session folder: an :class:`engine.batch.Recorder` backed by
    a :class:`sessions.SessionWriter`."""

    def __init__(self, writer: SessionWriter) -> None:
        self.writer = writer

    @property
    def path(self) -> Path:
        """The session folder."""
        return self.writer.path

    def listener(self, event: Event) -> None:
        """Append ``event`` to the session (``model_delta`` events are live-only and skipped)."""
        self.writer.append(event)

    def close(self, status: str) -> None:
        """Write the final status into the manifest and close the session."""
        self.writer.close(status=status)


def session_recorder(
    root: Path, *, title: str | None = None, extra: Mapping[str, Any] | None = None
) -> batch.RecordFactory:
    """A recorder factory for :class:`engine.batch.BatchRunner`: every episode becomes a session folder
    in ``root``, recorded exactly as :func:`start_episode` records one."""

    def record(match: Match) -> SessionRecorder:
        writer = SessionWriter.for_match(
            root, match, title=title, extra=dict(extra) if extra else None, subscribe=False
        )
        return SessionRecorder(writer)

    return record
