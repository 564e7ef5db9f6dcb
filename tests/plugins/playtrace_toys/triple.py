"""Lowest unique: three seats each pick 1, 2 or 3 at the same time, for five rounds.

The seat with the lowest number that nobody else picked scores a point. After five rounds the seat
with the most points wins (a tie has no winner).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.core import (
    Action,
    Game,
    IllegalActionError,
    InvalidActionError,
    JsonDict,
    Seat,
    State,
    StateFormatError,
    seats_of,
)

ROUNDS = 5
ACTIONS = ("1", "2", "3")


@dataclasses.dataclass(frozen=True, slots=True)
class TripleState(State):
    game_id: ClassVar[str] = "triple"

    points: tuple[int, int, int] = (0, 0, 0)
    round: int = 0
    last: tuple[str, ...] = ()

    @property
    def step(self) -> int:
        return self.round

    @property
    def to_act(self) -> tuple[Seat, ...]:
        return () if self.round >= ROUNDS else (0, 1, 2)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        if self.round >= ROUNDS or (seat is not None and seat not in (0, 1, 2)):
            return []
        return list(ACTIONS)

    def apply(self, action: Action | Mapping[Seat, Action]) -> TripleState:
        if not isinstance(action, Mapping):
            raise InvalidActionError("all three seats act at once: give {seat: action} for seats 0, 1 and 2")
        if self.round >= ROUNDS:
            raise IllegalActionError("the game is over")
        if set(action) != {0, 1, 2}:
            raise IllegalActionError(f"seats 0, 1 and 2 must all act, not {sorted(action)}")
        for a in action.values():
            if a not in ACTIONS:
                raise InvalidActionError(f"{a!r} is not 1, 2 or 3")
        picks = tuple(action[s] for s in (0, 1, 2))
        unique = [p for p in picks if picks.count(p) == 1]
        points = list(self.points)
        if unique:
            points[picks.index(min(unique))] += 1
        return TripleState(points=(points[0], points[1], points[2]), round=self.round + 1, last=picks)

    @property
    def scores(self) -> tuple[float, ...]:
        return tuple(float(p) for p in self.points)

    @property
    def winner(self) -> Seat | None:
        if self.round < ROUNDS:
            return None
        best = max(self.points)
        leaders = [s for s in (0, 1, 2) if self.points[s] == best]
        return leaders[0] if len(leaders) == 1 else None

    def text(self, seat: Seat | None = None) -> str:
        lines = [
            f"Round {min(self.round + 1, ROUNDS)} of {ROUNDS}",
            "Points: " + " ".join(map(str, self.points)),
        ]
        if self.last:
            lines.append("Last picks: " + " ".join(self.last))
        return "\n".join(lines)

    def to_json(self) -> JsonDict:
        return {
            "game": self.game_id,
            "points": list(self.points),
            "round": self.round,
            "last": list(self.last),
        }


class Triple(Game):
    id: ClassVar[str] = "triple"
    title: ClassVar[str] = "Lowest unique"
    description: ClassVar[str] = "Three seats pick a number at once; the lowest unique pick scores."
    seats = seats_of(["Red", "Green", "Blue"])
    simultaneous: ClassVar[bool] = True
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    keymap: ClassVar[Mapping[str, Action]] = {"1": "1", "2": "2", "3": "3"}
    controls: ClassVar[str] = "Press 1, 2 or 3"
    max_episode_steps: ClassVar[int | None] = ROUNDS

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)

    def initial_state(self, seed: int | None = None) -> TripleState:
        return TripleState()

    def state_from_json(self, data: JsonDict) -> TripleState:
        try:
            points = tuple(int(p) for p in data["points"])
            last = tuple(str(x) for x in data.get("last", ()))
            if len(points) != 3:
                raise ValueError("three seats")
            return TripleState(points=(points[0], points[1], points[2]), round=int(data["round"]), last=last)
        except (KeyError, TypeError, ValueError) as exc:
            raise StateFormatError(f"not a lowest-unique state: {exc}") from None
