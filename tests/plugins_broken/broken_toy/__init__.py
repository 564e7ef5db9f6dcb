"""A game that breaks its contract on purpose (see ../README.md)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.core import Action, Game, JsonDict, Seat, State, seats_of

_UNSEEDED = random.Random()


@dataclasses.dataclass(slots=True)  # not frozen: apply mutates it
class BrokenState(State):
    game_id: ClassVar[str] = "brokentoy"

    secret: tuple[str, str]
    count: int = 0
    note: str = ""

    @property
    def step(self) -> int:
        return self.count

    @property
    def to_act(self) -> tuple[Seat, ...]:
        return () if self.count >= 4 else (self.count % 2,)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        return [] if self.is_over or (seat is not None and seat not in self.to_act) else ["a", "b"]

    def apply(self, action: Action | Mapping[Seat, Action]) -> State:
        self.count += 1  # mutates the receiver, and accepts anything
        self.note = str(action)
        return BrokenState(self.secret, self.count, self.note)

    @property
    def scores(self) -> tuple[float, ...]:
        return (float(self.count), 0.0)

    def secrets(self, seat: Seat) -> frozenset[str]:
        return frozenset({self.secret[seat]})

    def text(self, seat: Seat | None = None) -> str:
        return f"secrets: {self.secret[0]} {self.secret[1]}"  # every seat sees both

    def to_json(self) -> JsonDict:
        return {"secret": list(self.secret), "count": self.count}  # loses ``note``


class BrokenToy(Game):
    id: ClassVar[str] = "brokentoy"
    title: ClassVar[str] = "Broken toy"
    seats = seats_of(["One", "Two"])
    perfect_information: ClassVar[bool] = False

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)

    def initial_state(self, seed: int | None = None) -> BrokenState:
        return BrokenState((f"S{_UNSEEDED.randrange(10**6)}", f"T{_UNSEEDED.randrange(10**6)}"))

    def state_from_json(self, data: JsonDict) -> BrokenState:
        return BrokenState((data["secret"][0], data["secret"][1]), data["count"])
