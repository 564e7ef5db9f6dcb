"""New Sokoban rooms from a seed, always solvable.

A room is made in three steps, in the spirit of gym-sokoban's generator but without its exhaustive
reverse search (which takes seconds per room):

1. *Topology*: a random walk carves floor out of a walled rectangle, a few cells wide at a time.
2. *Goals*: boxes are placed on goals on random floor cells, the player on another.
3. *Reverse play*: the player walks and **pulls** boxes at random from the solved position. Every
   pull undone is a push, so every position on that walk can be solved by playing the walk backwards.
   The position kept is the one, over a few walks, whose boxes are farthest from their goals (by push
   distance), with no box left on a goal when that can be had.

The same seed and settings always give the same room (``random.Random`` from the seed).
"""

from __future__ import annotations

import random

from engine.games.sokoban.levels import Level
from engine.games.sokoban.solver import push_distances

__all__ = ["DEFAULT_BOXES", "DEFAULT_SIZE", "generate"]

#: LMGame-Bench's room (gym-sokoban's Sokoban-v0): 10x10 with 3 boxes.
DEFAULT_SIZE = 10
DEFAULT_BOXES = 3
_WALKS = 6
_ATTEMPTS = 30
_SHAPES = (
    ((0, 0),),
    ((0, 0), (0, 1)),
    ((0, 0), (1, 0)),
    ((0, 0), (0, 1), (1, 0), (1, 1)),
    ((0, 0), (0, 1), (0, 2)),
    ((0, 0), (1, 0), (2, 0)),
    ((0, 0), (0, 1), (1, 1)),
)


def generate(
    seed: int,
    width: int = DEFAULT_SIZE,
    height: int = DEFAULT_SIZE,
    boxes: int = DEFAULT_BOXES,
    title: str = "",
) -> Level:
    """A solvable room of ``width`` x ``height`` cells (walls included) with ``boxes`` boxes.

    Raises:
        ValueError: the room is too small for that many boxes (the interior needs room to push them).
    """
    if width < 5 or height < 5:
        raise ValueError(f"a generated room is at least 5x5, not {width}x{height}")
    interior = (width - 2) * (height - 2)
    if boxes < 1 or boxes * 3 + 4 > interior:
        raise ValueError(
            f"a {width}x{height} room holds 1 to {max(1, (interior - 4) // 3)} boxes, not {boxes}"
        )
    rng = random.Random(f"sokoban:{seed}:{width}x{height}:{boxes}")
    best: tuple[tuple[int, int], Level] | None = None
    for _ in range(_ATTEMPTS):
        floor = _carve(rng, width, height, boxes)
        if len(floor) < boxes * 3 + 3:
            continue
        found = _reverse_play(rng, width, height, floor, boxes, title)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
            if found[0][0] == boxes and found[0][1] >= 2 * boxes:
                break  # every box off its goal and the room takes some pushing: good enough
    if best is None:
        raise ValueError(f"no {width}x{height} room with {boxes} boxes could be made from seed {seed}")
    return best[1]


def _carve(rng: random.Random, width: int, height: int, boxes: int) -> set[int]:
    """Floor cells carved by a random walk inside the border walls."""
    target = min(int((width - 2) * (height - 2) * 0.6), boxes * 6 + 12)
    target = max(target, boxes * 3 + 4)
    r, c = rng.randrange(1, height - 1), rng.randrange(1, width - 1)
    floor: set[int] = set()
    direction = rng.choice(((0, 1), (1, 0), (0, -1), (-1, 0)))
    for _ in range(width * height * 4):
        for dr, dc in rng.choice(_SHAPES):
            rr, cc = r + dr, c + dc
            if 1 <= rr < height - 1 and 1 <= cc < width - 1:
                floor.add(rr * width + cc)
        if len(floor) >= target:
            break
        if rng.random() < 0.35:
            direction = rng.choice(((0, 1), (1, 0), (0, -1), (-1, 0)))
        r = min(max(r + direction[0], 1), height - 2)
        c = min(max(c + direction[1], 1), width - 2)
    return floor


def _reverse_play(
    rng: random.Random, width: int, height: int, floor: set[int], boxes: int, title: str
) -> tuple[tuple[int, int], Level] | None:
    cells = sorted(floor)
    placed = rng.sample(cells, boxes + 1)
    goals = frozenset(placed[:boxes])
    # Walls are the cells around the floor (diagonals too); the rest is outside the room.
    walls = frozenset(
        (r + dr) * width + c + dc
        for r, c in (divmod(i, width) for i in floor)
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if (r + dr) * width + c + dc not in floor
    )
    solved = Level(width, height, walls, goals, goals, placed[boxes], title)
    dist = push_distances(solved)
    steps = (-width, width, -1, 1)
    best: tuple[tuple[int, int], frozenset[int], int] | None = None
    for _ in range(_WALKS):
        layout = set(goals)
        at = solved.player
        pulls = 0
        for _ in range(width * height * 3):
            d = rng.choice(steps)
            to = at + d
            if to not in floor or to in layout:
                continue
            behind = at - d
            if behind in layout and rng.random() < 0.6:
                layout.remove(behind)
                layout.add(at)
                pulls += 1
            at = to
            off = sum(1 for b in layout if b not in goals)
            score = (off, sum(dist.get(b, 0) for b in layout) + pulls // 4)
            if best is None or score > best[0]:
                best = (score, frozenset(layout), at)
    if best is None or best[0][0] == 0:
        return None
    best_score, best_layout, best_at = best
    return best_score, Level(width, height, walls, goals, best_layout, best_at, title)
