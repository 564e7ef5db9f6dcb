"""A Sokoban solver: A* over pushes with deadlock pruning, answering in LURD notation.

A search node is a box layout plus the area the player can walk to without pushing (two positions
whose player can reach the same cells are the same node). From a node, every push of a box the
player can reach is a move; pushes onto dead squares and pushes that freeze a box off a goal are
never tried (:mod:`.deadlock`). The cost is the number of pushes and the heuristic the sum, over the
boxes, of each box's push distance to its nearest goal (a lower bound, so solutions have the fewest
pushes). A solution is written the standard way: ``u d l r`` for walks and ``U D L R`` for pushes.

No maintained Python package solves Sokoban as a library call (the published solvers are programs or
research code), so PlayTrace has this one; its job is proving levels solvable for the generator, the
bundled sets and the tests, and guiding the built-in bot, on rooms of up to a few dozen cells.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections import deque
from collections.abc import Iterable

from engine.games.sokoban.deadlock import dead_box
from engine.games.sokoban.levels import Level

__all__ = ["DEFAULT_NODE_LIMIT", "LURD", "push_distances", "replay", "solve"]

#: Search nodes expanded before the solver gives up (answering ``None``).
DEFAULT_NODE_LIMIT = 200_000
#: Move letters by direction name; upper case in a solution marks a push.
LURD = {"up": "u", "down": "d", "left": "l", "right": "r"}


def _steps(level: Level) -> tuple[tuple[int, str], ...]:
    w = level.width
    return ((-w, "u"), (w, "d"), (-1, "l"), (1, "r"))


def push_distances(level: Level) -> dict[int, int]:
    """For every live cell, the fewest pushes that bring a box there to its nearest goal (other
    boxes ignored)."""
    w = level.width
    inside = level.inside
    dist = {g: 0 for g in level.goals}
    todo = deque(level.goals)
    while todo:
        x = todo.popleft()
        for d in (-w, w, -1, 1):
            to, stand = x + d, x + 2 * d
            if to in inside and stand in inside and to not in dist:
                dist[to] = dist[x] + 1
                todo.append(to)
    return dist


# A search node: the box layout and the smallest cell the player can reach (its canonical spot).
_Node = tuple[frozenset[int], int]
# node -> (parent node or None at the start, player's cell before the push, the push's letter,
# player's cell after the push)
_Parents = dict[_Node, tuple[_Node | None, int, str, int]]


def _reach(level: Level, boxes: frozenset[int], start: int) -> dict[int, int]:
    """Cells the player walks to from ``start`` without pushing, each with the cell it came from."""
    inside = level.inside
    w = level.width
    came = {start: -1}
    todo = deque([start])
    while todo:
        i = todo.popleft()
        for j in (i - w, i + w, i - 1, i + 1):
            if j in inside and j not in came and j not in boxes:
                came[j] = i
                todo.append(j)
    return came


def _walk(level: Level, came: dict[int, int], target: int) -> str:
    """The walk (``udlr``) to ``target`` along ``came`` from :func:`_reach`."""
    w = level.width
    letters = {-w: "u", w: "d", -1: "l", 1: "r"}
    out = []
    while came[target] != -1:
        prev = came[target]
        out.append(letters[target - prev])
        target = prev
    return "".join(reversed(out))


def solve(
    level: Level,
    boxes: Iterable[int] | None = None,
    player: int | None = None,
    *,
    node_limit: int = DEFAULT_NODE_LIMIT,
    time_limit: float | None = None,
) -> str | None:
    """A solution from the given position (the level's start by default) in LURD notation: ``""``
    when it is already solved, ``None`` when there is none or the search gave up after
    ``node_limit`` nodes or ``time_limit`` seconds."""
    start_boxes = frozenset(level.boxes if boxes is None else boxes)
    start_player = level.player if player is None else player
    goals = level.goals
    if start_boxes <= goals:
        return ""
    dist = push_distances(level)
    if any(b not in dist for b in start_boxes):
        return None
    inside = level.inside
    dead = level.dead
    steps = _steps(level)

    def h(layout: frozenset[int]) -> int:
        return sum(dist[b] for b in layout)

    def key(layout: frozenset[int], at: int) -> tuple[frozenset[int], int]:
        return layout, min(_reach(level, layout, at))

    start_key = key(start_boxes, start_player)
    # node -> (parent node, player's cell before the push, the push's letter, player's cell after)
    parents: _Parents = {
        start_key: (None, -1, "", start_player)
    }
    best_g = {start_key: 0}
    counter = itertools.count()
    frontier = [(h(start_boxes), 0, next(counter), start_key, start_player)]
    expanded = 0
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    while frontier:
        _f, g, _n, node, at = heapq.heappop(frontier)
        if g > best_g.get(node, g):
            continue
        layout = node[0]
        if layout <= goals:
            return _solution(level, parents, node)
        expanded += 1
        if expanded > node_limit:
            return None
        if deadline is not None and not expanded % 64 and time.perf_counter() > deadline:
            return None
        came = _reach(level, layout, at)
        for box in layout:
            for d, letter in steps:
                stand, to = box - d, box + d
                if stand not in came or to not in inside or to in layout or to in dead:
                    continue
                moved = (layout - {box}) | {to}
                if dead_box(level, moved, to):
                    continue
                child = key(moved, box)
                if g + 1 < best_g.get(child, 1 << 30):
                    best_g[child] = g + 1
                    parents[child] = (node, stand, letter.upper(), box)
                    heapq.heappush(frontier, (g + 1 + h(moved), g + 1, next(counter), child, box))
    return None


def _solution(level: Level, parents: _Parents, node: _Node) -> str:
    """The LURD string from the start to ``node``: the walks between pushes are found again."""
    chain: list[tuple[_Node, int, str, int]] = []
    while True:
        parent, stand, letter, after = parents[node]
        if parent is None:
            break
        chain.append((parent, stand, letter, after))
        node = parent
    chain.reverse()
    out = []
    at = parents[chain[0][0]][3] if chain else level.player
    for parent, stand, letter, after in chain:
        layout = parent[0]
        out.append(_walk(level, _reach(level, layout, at), stand))
        out.append(letter)
        at = after
    return "".join(out)


def replay(
    level: Level, moves: str, boxes: Iterable[int] | None = None, player: int | None = None
) -> tuple[frozenset[int], int]:
    """The position after playing ``moves`` (LURD; case ignored, pushes happen where a box is) from the
    given position: ``(boxes, player)``.

    Raises:
        ValueError: a letter is not one of ``udlrUDLR``, or a move runs into a wall or a blocked box.
    """
    layout = set(level.boxes if boxes is None else boxes)
    at = level.player if player is None else player
    deltas = {letter: d for d, letter in _steps(level)}
    for n, ch in enumerate(moves, start=1):
        d = deltas.get(ch.lower())
        if d is None:
            raise ValueError(f"move {n}: {ch!r} is not one of u d l r (U D L R for pushes)")
        to = at + d
        if to not in level.inside:
            raise ValueError(f"move {n} ({ch}) walks into a wall")
        if to in layout:
            beyond = to + d
            if beyond not in level.inside or beyond in layout:
                raise ValueError(f"move {n} ({ch}) pushes a box that cannot move")
            layout.remove(to)
            layout.add(beyond)
        at = to
    return frozenset(layout), at
