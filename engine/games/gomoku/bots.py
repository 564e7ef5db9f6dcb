"""LVLM-Playground's Gomoku opponent: a two-ply search over a contiguous-stone pattern evaluation.

The paper's opponent is a "depth-limited recursive search" whose evaluation scores runs of contiguous
stones by their length and open ends, for the side to move (attack) and against the opponent (block);
its reference code searches two plies (a move and the reply) and only considers empty intersections
with a stone within two of them. :class:`PatternBot` does the same:

* every line of the board (15 rows, 15 columns, 21 + 21 diagonals of five or more) is scored once per
  distinct content and memoised, Black's patterns minus White's (:func:`line_value`); a run is worth
  more the longer it is and the more of its ends are open, and a broken four (``BB.BB``) or broken open
  three (``.B.BB.``) counts as the threat it is;
* a move changes only the four lines through its cell, so a position's value is updated, never
  recomputed, which keeps a full two-ply search under 200 ms in pure Python;
* the root moves are searched best-first and each reply list is searched most-threatening first, with
  the alpha-beta cut that two plies allow (a root move is dropped as soon as one reply shows it is
  worse than the best so far). The value reported for a cut move is therefore an upper bound, always
  below the best move's exact value, so a cut move never ties with the best.

No library offers Gomoku search (the game is not in OpenSpiel's Python-free set nor in PettingZoo), so
this is written here, like the paper's own.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from engine.bots.base import SearchBot
from engine.core import Action
from engine.games.gomoku.rules import ACTIONS, CELLS, NAMES, SIZE, STONES, GomokuState, five_through, near
from engine.players import Observation

#: The value of five in a row: larger than any sum of lesser patterns.
WIN = 10_000_000
#: Run values by (length, open ends); a run of five or more is :data:`WIN` whatever its ends.
_RUN = {
    (4, 2): 200_000,
    (4, 1): 12_000,
    (3, 2): 6_000,
    (3, 1): 600,
    (2, 2): 300,
    (2, 1): 40,
    (1, 2): 10,
    (1, 1): 2,
}
_BROKEN_FOUR = 10_000
_BROKEN_THREE = 3_000
#: The centre, where the first stone goes.
CENTRE = (SIZE // 2) * SIZE + SIZE // 2


def _lines() -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[tuple[int, int], ...], ...]]:
    """Every line of five or more cells, and for each cell the (line, position) pairs through it."""
    lines: list[tuple[int, ...]] = []
    for r in range(SIZE):
        lines.append(tuple(r * SIZE + c for c in range(SIZE)))
    for c in range(SIZE):
        lines.append(tuple(r * SIZE + c for r in range(SIZE)))
    for d in range(-(SIZE - 5), SIZE - 4):  # r - c = d, down-right
        lines.append(tuple(r * SIZE + (r - d) for r in range(SIZE) if 0 <= r - d < SIZE))
    for s in range(4, 2 * SIZE - 5):  # r + c = s, down-left
        lines.append(tuple(r * SIZE + (s - r) for r in range(SIZE) if 0 <= s - r < SIZE))
    through: list[list[tuple[int, int]]] = [[] for _ in range(CELLS)]
    for k, line in enumerate(lines):
        for pos, cell in enumerate(line):
            through[cell].append((k, pos))
    return tuple(lines), tuple(tuple(t) for t in through)


LINES, THROUGH = _lines()


def _side_value(line: str, stone: str) -> int:
    """The pattern value of ``stone``'s runs in one line (``.`` empty, any other letter the opponent)."""
    n = len(line)
    value = 0
    i = 0
    while i < n:
        if line[i] != stone:
            i += 1
            continue
        j = i
        while j < n and line[j] == stone:
            j += 1
        length = j - i
        if length >= 5:
            return WIN
        ends = (i > 0 and line[i - 1] == ".") + (j < n and line[j] == ".")
        if ends:
            value += _RUN[(length, ends)]
        i = j
    # Broken shapes: four stones in a window of five with an inner gap, and an open broken three.
    for k in range(n - 4):
        window = line[k : k + 5]
        if window.count(stone) == 4 and window.count(".") == 1 and window[0] == stone == window[4]:
            value += _BROKEN_FOUR
    for k in range(n - 5):
        window = line[k : k + 6]
        inner = window[1:5]
        if (window[0] == "." == window[5] and inner.count(stone) == 3 and inner.count(".") == 1
                and inner[0] == stone == inner[3]):
            value += _BROKEN_THREE
    return value


@functools.lru_cache(maxsize=1 << 18)
def line_value(line: str) -> int:
    """Black's pattern value in ``line`` minus White's (a string of ``B``, ``W`` and ``.``)."""
    return _side_value(line, "B") - _side_value(line, "W")


class Board:
    """A mutable board for search: the line strings and the running total of their values."""

    __slots__ = ("cells", "lines", "total")

    def __init__(self, cells: Sequence[str]) -> None:
        self.cells = [v or "." for v in cells]
        self.lines = ["".join(self.cells[i] for i in line) for line in LINES]
        self.total = sum(line_value(s) for s in self.lines)

    def delta(self, index: int, stone: str) -> tuple[int, bool]:
        """How Black's value changes if ``stone`` is placed on ``index``, and whether it makes five."""
        change = 0
        five = False
        lines = self.lines
        run = stone * 5
        for k, pos in THROUGH[index]:
            old = lines[k]
            new = old[:pos] + stone + old[pos + 1 :]
            change += line_value(new) - line_value(old)
            five = five or run in new
        return change, five

    def place(self, index: int, stone: str) -> None:
        lines = self.lines
        for k, pos in THROUGH[index]:
            old = lines[k]
            new = old[:pos] + stone + old[pos + 1 :]
            self.total += line_value(new) - line_value(old)
            lines[k] = new
        self.cells[index] = stone

    def remove(self, index: int) -> None:
        self.place(index, ".")


def candidates(cells: Sequence[str], distance: int = 2) -> list[int]:
    """Empty intersections with a stone within ``distance`` (the centre on an empty board)."""
    found: set[int] = set()
    for i, v in enumerate(cells):
        if v and v != ".":
            found.update(j for j in near(i, distance) if not cells[j] or cells[j] == ".")
    if not found:
        return [CENTRE] if not cells[CENTRE] or cells[CENTRE] == "." else [
            i for i in range(CELLS) if not cells[i] or cells[i] == "."
        ]
    return sorted(found)


def search(cells: Sequence[str], stone: str) -> dict[int, float]:
    """Two-ply values of ``stone``'s candidate moves, from ``stone``'s side: its pattern value minus
    the opponent's after its move and the opponent's best reply. Cut moves carry an upper bound; a move
    that leaves the opponent ``n`` points completing five is worth ``-n`` times :data:`WIN`."""
    sign = 1 if stone == "B" else -1
    other = "W" if stone == "B" else "B"
    board = Board(cells)
    moves = candidates(board.cells)
    values: dict[int, float] = {}
    # A five now ends the search: nothing the opponent does afterwards matters.
    first = {}
    for m in moves:
        change, five = board.delta(m, stone)
        if five:
            return {m: float(WIN)}
        first[m] = sign * change
    # The opponent's most dangerous cells before the move: replies are tried in that order. Where the
    # opponent completes five, only a stone of ours helps; a move leaving n such points is lost, and
    # worth -n fives, so a lost position still blocks what it can.
    danger: dict[int, int] = {}
    threats: set[int] = set()
    for m in moves:
        change, five = board.delta(m, other)
        danger[m] = -sign * change
        if five:
            threats.add(m)
    ordered = sorted(moves, key=lambda m: (-first[m], m))
    best = -float("inf")
    for m in ordered:
        left = len(threats - {m})
        if left:
            values[m] = -float(WIN) * left
            best = max(best, values[m])
            continue
        board.place(m, stone)
        replies = set(moves)
        replies.discard(m)
        replies.update(j for j in near(m) if board.cells[j] == ".")
        worst = float("inf")
        base = sign * board.total
        for reply in sorted(replies, key=lambda j: (-danger.get(j, 0), j)):
            change, five = board.delta(reply, other)
            if five:  # (cannot happen: our stone never makes the opponent a five; kept as a guard)
                worst = -float(WIN)
                break
            value = base + sign * change
            if value < worst:
                worst = value
                if worst < best:
                    break  # this move is worse than one already found
        board.remove(m)
        if not replies:
            worst = base
        values[m] = worst
        best = max(best, worst)
    return values


class PatternBot(SearchBot):
    """LVLM-Playground's Gomoku opponent: two plies over a contiguous-stone pattern evaluation."""

    spec = "pattern"
    label = "Pattern search (2-ply)"

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, GomokuState)
        stone = STONES[observation.seat]
        legal = set(observation.legal_actions)
        return {ACTIONS[i]: v for i, v in search(state.cells, stone).items() if ACTIONS[i] in legal}

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        state = observation.state
        assert isinstance(state, GomokuState)
        me, them = STONES[observation.seat], STONES[1 - observation.seat]
        index = ACTIONS.index(action)
        if five_through(state.cells, index, me) is not None:
            return f"{action} completes five in a row and wins"
        if five_through(state.cells, index, them) is not None:
            return f"{action} blocks {NAMES[1 - observation.seat]}'s five"
        if values[action] <= -WIN / 2:
            return f"every move loses to a five next turn; {action} is the least bad of {len(values)}"
        value = values[action]
        return f"{action} has the best two-ply pattern value ({value:,.0f}) of {len(values)} candidates"
