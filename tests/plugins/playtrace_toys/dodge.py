"""Dodge: a real-time toy. Rocks fall down a five-lane road; move left, right or stay each tick.

One rock may appear in the top row each tick (a lane from the seed, or none). A rock that reaches
the bottom row in the player's lane ends the game. The score is the number of ticks survived; the
game ends after 40 ticks. A player who does not act within a tick stays put (the default action).
"""

from __future__ import annotations

import dataclasses
import random
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
from engine.options import Option

LANES = 5
ROWS = 6
ACTIONS = ("left", "stay", "right")
_MOVES = {"left": -1, "stay": 0, "right": 1}


@dataclasses.dataclass(frozen=True, slots=True)
class DodgeState(State):
    game_id: ClassVar[str] = "dodge"

    rocks: tuple[tuple[int, int], ...] = ()  # (row, lane), row 0 at the top
    lane: int = LANES // 2
    tick: int = 0
    seed: int = 0
    length: int = 40
    hit: bool = False

    @property
    def step(self) -> int:
        return self.tick

    @property
    def to_act(self) -> tuple[Seat, ...]:
        return () if self.hit or self.tick >= self.length else (0,)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        return [] if self.is_over or seat not in (None, 0) else list(ACTIONS)

    def _advance(self, action: Action, spawn: int | None) -> DodgeState:
        lane = min(LANES - 1, max(0, self.lane + _MOVES[action]))
        rocks = tuple((r + 1, c) for r, c in self.rocks if r + 1 < ROWS)
        hit = any(r == ROWS - 1 and c == lane for r, c in rocks)
        if spawn is not None:
            rocks = ((0, spawn), *rocks)
        return dataclasses.replace(self, rocks=rocks, lane=lane, tick=self.tick + 1, hit=hit)

    def _check(self, action: Action | Mapping[Seat, Action]) -> Action:
        if isinstance(action, Mapping):
            if set(action) != {0}:
                raise IllegalActionError("dodge has one seat (0)")
            action = action[0]
        if action not in ACTIONS:
            raise InvalidActionError(f"{action!r} is not left, stay or right")
        if self.is_over:
            raise IllegalActionError("the game is over")
        return action

    def apply(self, action: Action | Mapping[Seat, Action]) -> DodgeState:
        move = self._check(action)
        roll = random.Random(f"{self.seed}:{self.tick}").randrange(LANES + 1)
        return self._advance(move, roll if roll < LANES else None)

    def outcomes(self, action: Action | Mapping[Seat, Action]) -> list[tuple[float, State]]:
        move = self._check(action)
        p = 1 / (LANES + 1)
        return [(p, self._advance(move, spawn)) for spawn in (*range(LANES), None)]

    @property
    def scores(self) -> tuple[float, ...]:
        return (float(self.tick - (1 if self.hit else 0)),)

    def text(self, seat: Seat | None = None) -> str:
        grid = [["." for _ in range(LANES)] for _ in range(ROWS)]
        for r, c in self.rocks:
            grid[r][c] = "o"
        grid[ROWS - 1][self.lane] = "X" if self.hit else "A"
        lines = ["".join(row) for row in grid]
        lines.append(f"tick {self.tick} of {self.length}" + (" - hit!" if self.hit else ""))
        return "\n".join(lines)

    def to_json(self) -> JsonDict:
        return {
            "game": self.game_id,
            "rocks": [list(r) for r in self.rocks],
            "lane": self.lane,
            "tick": self.tick,
            "seed": self.seed,
            "length": self.length,
            "hit": self.hit,
        }


class Dodge(Game):
    id: ClassVar[str] = "dodge"
    title: ClassVar[str] = "Dodge"
    description: ClassVar[str] = "Dodge the falling rocks, in real time."
    seats = seats_of(["Runner"])
    chance: ClassVar[bool] = True
    tick_s: ClassVar[float | None] = 0.5
    default_action: ClassVar[Action | None] = "stay"
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option("length", int, 40, "Ticks in a game", minimum=5, maximum=500),
    )
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    keymap: ClassVar[Mapping[str, Action]] = {
        "left": "left",
        "right": "right",
        "down": "stay",
        "a": "left",
        "d": "right",
        "s": "stay",
    }
    controls: ClassVar[str] = "Left / right arrows (or A / D) move; the runner stays put when you wait"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)

    def initial_state(self, seed: int | None = None) -> DodgeState:
        return DodgeState(seed=0 if seed is None else seed, length=self.options["length"])

    def state_from_json(self, data: JsonDict) -> DodgeState:
        try:
            rocks = tuple((int(r), int(c)) for r, c in data["rocks"])
            return DodgeState(
                rocks=rocks,
                lane=int(data["lane"]),
                tick=int(data["tick"]),
                seed=int(data["seed"]),
                length=int(data["length"]),
                hit=bool(data["hit"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise StateFormatError(f"not a dodge state: {exc}") from None
