"""A VGDL sprite as the runtime keeps it: a plain list while a tick runs, a tuple in a state."""

from __future__ import annotations

from typing import Any

__all__ = ["BASE_DIRS", "FIELDS", "REVERSE", "new_sprite"]

#: The fields of a sprite, by position.
FIELDS = (
    "id",  # 0: unique, in creation order
    "type",  # 1: type index
    "row",  # 2
    "col",  # 3
    "dir",  # 4: orientation index (DIRS)
    "last_row",  # 5: position before this tick's first move (valid when last_tick == tick)
    "last_col",  # 6
    "last_tick",  # 7
    "moved_tick",  # 8: tick of the last move (GVGAI's lastmove = tick - moved_tick)
    "progress",  # 9: accumulated fraction of a cell (speeds below 1)
    "counter",  # 10: RandomNPC repetitions, Flicker age, spawns made
    "memo",  # 11: RandomNPC's last direction, a spawner's first tick (-1 before)
    "started",  # 12: 1 once the sprite had its first update (GVGAI's isFirstTick is the opposite)
    "resources",  # 13: ((resource type, amount), ...)
    "health",  # 14: health points (GVGAI's healthPoints)
    "speed",  # 15: its own speed once an effect set it (setSpeedForAll), else -1 (the type's)
    "ttl",  # 16: ticks left to live (GVGAI's timeToLive), -1: for ever
    "side",  # 17: a direction it also reaches into for good (made part-way between cells), or 0
)
ID, T, R, C, OR, LR, LC, LT, MT, PR, CT, MEMO, STARTED, RES, HP, SPD, TTL, SIDE = range(18)

ACTION_DIRS = {"ACTION_UP": 1, "ACTION_LEFT": 2, "ACTION_DOWN": 3, "ACTION_RIGHT": 4}
BASE_DIRS = (1, 2, 3, 4)  # GVGAI's DBASEDIRS order: up, left, down, right
REVERSE = (0, 3, 4, 1, 2)


def new_sprite(
    sid: int,
    tindex: int,
    row: int,
    col: int,
    direction: int,
    tick: int,
    health: int = 0,
    ttl: int = -1,
    side: int = 0,
) -> list[Any]:
    return [sid, tindex, row, col, direction, row, col, -1, tick, 0.0, 0, -1, 0, (), health, -1.0, ttl, side]
