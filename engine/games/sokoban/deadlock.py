"""Deadlocks: positions from which a level can no longer be solved, whatever the player does.

Two kinds are detected, the ones LMGame-Bench's score needs (a run ends at the first deadlock):

* a box on a *dead square*: a cell off the goals from which no sequence of pushes brings a box to any
  goal (:attr:`Level.dead`, found once per level by pulling a box away from every goal);
* a *frozen* box off a goal: a box that can be pushed along neither axis, because along each axis a
  wall, a pair of dead squares or another frozen box blocks it (boxes frozen against walls or each
  other, including the 2x2 blocks).

Both tests are sound: a position they call dead is dead. Some dead positions (a box sealed in by
boxes that can still move a little) are not detected; the run then continues until its step cap.
"""

from __future__ import annotations

from collections.abc import Collection

from engine.games.sokoban.levels import Level

__all__ = ["dead_box", "deadlocked", "frozen"]


def frozen(level: Level, boxes: Collection[int], box: int) -> bool:
    """Whether the box at ``box`` can never be pushed again (it is frozen on both axes)."""
    return _frozen(level, boxes, box, set())


def _frozen(level: Level, boxes: Collection[int], box: int, assumed: set[int]) -> bool:
    # Boxes on the stack are taken as walls while their own answer is pending: a set of boxes that
    # each block the others on both axes never moves, whichever is tried first.
    assumed.add(box)
    try:
        return _blocked(level, boxes, box, 1, assumed) and _blocked(level, boxes, box, level.width, assumed)
    finally:
        assumed.discard(box)


def _blocked(level: Level, boxes: Collection[int], box: int, step: int, assumed: set[int]) -> bool:
    """Whether ``box`` cannot move along the axis of ``step`` (1: left-right, width: up-down)."""
    before, after = box - step, box + step
    walls = level.walls
    if before in walls or after in walls:
        return True
    dead = level.dead
    if before in dead and after in dead:
        return True  # either push would put the box on a dead square
    for side in (before, after):
        if side in boxes and (side in assumed or _frozen(level, boxes, side, assumed)):
            return True
    return False


def dead_box(level: Level, boxes: Collection[int], box: int) -> bool:
    """Whether the box at ``box`` makes the position dead: it stands on a dead square, or it is
    frozen while it or a box freezing it is off a goal."""
    if box in level.dead:
        return True
    if not frozen(level, boxes, box):
        return False
    if box not in level.goals:
        return True
    # Frozen on a goal: the neighbours that freeze it may be frozen off their goals.
    w = level.width
    around = (box - 1, box + 1, box - w, box + w)
    return any(n in boxes and n not in level.goals and frozen(level, boxes, n) for n in around)


def deadlocked(level: Level, boxes: Collection[int]) -> bool:
    """Whether any box makes the position dead (the whole-board check; a move only needs
    :func:`dead_box` on the box it pushed)."""
    if all(b in level.goals for b in boxes):
        return False
    return any(dead_box(level, boxes, b) for b in boxes)
