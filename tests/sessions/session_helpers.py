"""Helpers for the session tests: record real matches and hand-made events."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import engine
from engine import events as ev
from engine.events import Event
from engine.match import Match
from engine.players import RandomPlayer
from sessions import SessionWriter


def record_match(root: Path, game_id: str, seeds: Sequence[int], *, seed: int = 7, **kw: object) -> Path:
    """Play random players on ``game_id`` with a writer subscribed; return the session folder."""
    game = engine.make(game_id)
    match = Match(game, [RandomPlayer(s) for s in seeds], seed=seed, **kw)  # type: ignore[arg-type]
    writer = SessionWriter.for_match(root, match, title=f"test {game_id}")
    asyncio.run(match.run())
    writer.close()
    return writer.path


def start_event(game: str = "fake", state: dict | None = None) -> Event:
    players = [{"seat": 0, "spec": "random", "label": "Random", "kind": "bot"}]
    return Event(
        ev.SESSION_STARTED,
        {"game": game, "options": {}, "seed": 1, "players": players, "state": state or {"n": 0}},
        step=0,
    )


def step_events(k: int) -> list[Event]:
    """The three events of one synthetic step ``k`` (state {"n": k+1} after it)."""
    return [
        Event(ev.TURN_STARTED, {"seats": [0], "legal": {"0": ["inc"]}}, step=k),
        Event(ev.DECISION, {"action": "inc", "source": "bot"}, step=k, seat=0, call=k + 1),
        Event(
            ev.ACTION_APPLIED,
            {"actions": {"0": "inc"}, "rewards": [1], "scores": [k + 1], "state": {"n": k + 1},
             "changed": True, "is_over": False},
            step=k,
        ),
    ]


def write_synthetic(root: Path, steps: int, *, finish: bool = True, close: bool = True) -> SessionWriter:
    """A session of ``steps`` synthetic steps on a made-up game id."""
    writer = SessionWriter.create(
        root, game="fake", players=[{"seat": 0, "spec": "random", "label": "Random", "kind": "bot"}],
        seed=1, options={},
    )
    writer.append(start_event())
    for k in range(steps):
        for e in step_events(k):
            writer.append(e)
    if finish:
        writer.append(Event(ev.SESSION_FINISHED, {"status": "completed", "scores": [steps], "winner": None,
                                                  "steps": steps}, step=steps))
    if close:
        writer.close()
    return writer
