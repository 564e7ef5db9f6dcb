"""Recorded games played again: seats that play a record's moves, and states that follow a record.

The importers (:mod:`sessions.importers`) turn a file recorded elsewhere into an ordinary match whose
seats play the recorded moves; the session writer records it as it records any other match.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.core import Action, Game, State
from engine.players import Decision, Observation

__all__ = ["ImportFormatError", "RecordedSide", "follow", "play"]


class ImportFormatError(ValueError):
    """A file that cannot be imported (one line naming the file and the place)."""


class RecordedSide:
    """A seat that plays the moves a record gives it (by step), and forfeits where the record stops."""

    kind = "human"

    def __init__(
        self, spec: str, label: str, moves: Mapping[int, tuple[Action, str]], resigns: bool = False
    ) -> None:
        self.spec = spec
        self.label = label
        self._moves = moves
        self._resigns = resigns

    async def act(self, observation: Observation) -> Decision:
        move = self._moves.get(observation.step)
        if move is None:
            return Decision(
                None,
                source="human",
                rationale="resigns" if self._resigns else "the record ends here",
                forfeit=True,
            )
        action, comment = move
        return Decision(action, source="human", rationale=comment)


_FOLLOWING: dict[type[State], type[State]] = {}


def _following_class(cls: type[State]) -> type[State]:
    """A subclass of ``cls`` whose :meth:`State.apply` checks the move with the game's own rules and
    then returns the next recorded state. Its :meth:`State.to_json` is ``cls``'s, so a session holds
    ordinary states of the game and replays without this class."""
    made = _FOLLOWING.get(cls)
    if made is None:

        def apply(self: Any, action: Any) -> State:
            cls.apply(self, action)  # the game's rules refuse an illegal move
            rest: list[State] = self.__dict__.get("_recorded_rest", [])
            return _following(rest[0], rest[1:]) if rest else cls.apply(self, action)

        made = type(f"Recorded{cls.__name__}", (cls,), {"apply": apply})
        _FOLLOWING[cls] = made
    return made


def _following(state: State, rest: Sequence[State]) -> State:
    cls = type(state)
    if not dataclasses.is_dataclass(state):
        raise TypeError(f"{cls.__name__} cannot follow a record (not a dataclass state)")
    made = _following_class(cls)
    copy = made.__new__(made)
    for field in dataclasses.fields(state):
        object.__setattr__(copy, field.name, getattr(state, field.name))
    copy.__dict__["_recorded_rest"] = list(rest)
    return copy


def follow(states: Sequence[State]) -> State:
    """``states[0]``, whose ``apply`` leads to ``states[1]``, then ``states[2]``, and so on: a match
    started from it records the given states whatever the game's own chance would have drawn (each
    move is still checked by the game's rules). After the last state the game's rules take over."""
    if not states:
        raise ValueError("no states to follow")
    return _following(states[0], states[1:])


async def play(
    game: Game,
    sides: list[RecordedSide],
    root: Path,
    title: str,
    extra: dict[str, Any],
    max_steps: int,
    state: State | None = None,
) -> Path:
    """Run the match of ``sides`` (from ``state``, default the game's start) with a session writer."""
    from engine.match import Match
    from sessions.writer import SessionWriter

    match = Match(game, list(sides), seed=None, state=state, max_steps=max_steps)
    writer = SessionWriter.for_match(root, match, title=title, extra=extra)
    try:
        await match.run()
    finally:
        writer.close()
    return writer.path
