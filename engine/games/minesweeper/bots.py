"""The Minesweeper solver: sure deductions from the numbers, else the least risky cell.

:func:`analyse` reads only what the player sees (a seat's view): the revealed numbers, the unrevealed
cells and the number of mines. It works in three steps, each written up so the simulated model can
explain its move the way a person would:

1. *single-number rules*: a number whose mines are all found clears its other neighbours; a number
   needing as many mines as it has unrevealed neighbours marks them all as mines. Repeated until
   nothing changes;
2. *pair rules*: when one number's unknown neighbours are a subset of another's, the difference holds
   exactly the difference of their remaining mines (the "1-2" patterns);
3. *probabilities*: every assignment of mines to the frontier (unrevealed cells next to a number)
   that fits all numbers is counted, per connected group of constraints, weighted by the ways to
   place the remaining mines in the unconstrained cells; that gives each cell's exact chance of
   hiding a mine (and any further sure cells, chance 0 or 1). A group too large to count within a
   fixed budget falls back to a local estimate.

:class:`SolverBot` reveals a sure cell when there is one, else the cell with the lowest chance of a
mine (ties: the cell with fewest unrevealed neighbours, which more often opens an area; then the
seeded RNG). It never flags.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

from engine.bots.base import SearchBot
from engine.core import Action
from engine.games.minesweeper.rules import UNREVEALED, MinesweeperState
from engine.players import Observation

__all__ = ["Analysis", "SolverBot", "analyse"]

#: Assignments counted per constraint group before the local estimate is used instead.
NODE_BUDGET = 100_000


@dataclasses.dataclass(frozen=True, slots=True)
class Analysis:
    """What the numbers say about the unrevealed cells.

    Attributes:
        safe: Cells proven free of mines, with the reason (``"C3's 1 is already met by B2"``).
        mines: Cells proven to hide a mine, with the reason.
        risk: Every unrevealed, unflagged-or-not cell's chance of hiding a mine (0 for safe, 1 for mines).
        frontier: Unrevealed cells next to a revealed number.
        exact: Whether ``risk`` is exact (every group was counted within the budget).
    """

    safe: dict[int, str]
    mines: dict[int, str]
    risk: dict[int, float]
    frontier: frozenset[int]
    exact: bool


def _constraints(
    state: MinesweeperState, known_mines: set[int], known_safe: set[int]
) -> list[tuple[int, frozenset[int], int]]:
    """(number cell, its unknown neighbours, mines still missing among them) for each revealed number."""
    found = []
    for i, v in enumerate(state.shown):
        if not 0 <= v <= 8:
            continue
        around = state.around(i)
        unknown = frozenset(
            j for j in around if state.shown[j] == UNREVEALED and j not in known_mines and j not in known_safe
        )
        if unknown:
            found.append((i, unknown, v - sum(1 for j in around if j in known_mines)))
    return found


def _deduce(state: MinesweeperState) -> tuple[dict[int, str], dict[int, str]]:
    """The single-number and pair rules, to a fixed point."""
    safe: dict[int, str] = {}
    mines: dict[int, str] = {}
    name = state.name
    changed = True
    while changed:
        changed = False
        constraints = _constraints(state, set(mines), set(safe))
        for i, unknown, missing in constraints:
            v = state.shown[i]
            if missing == 0:
                for j in unknown:
                    safe[j] = (
                        f"{name(i)} shows {v} and already has {v} mine{'s' if v > 1 else ''} found around it"
                        if v
                        else f"{name(i)} shows 0, so none of its neighbours hides a mine"
                    )
                changed = True
            elif missing == len(unknown):
                for j in unknown:
                    mines[j] = (
                        f"{name(i)} shows {v} and has only {v} cell{'s' if v > 1 else ''} left "
                        "that could hide one"
                    )
                changed = True
            if changed:
                break
        if changed:
            continue
        for a, ua, ma in constraints:
            for b, ub, mb in constraints:
                if a == b or not ua < ub:
                    continue
                rest = ub - ua
                if mb - ma == 0:
                    for j in rest:
                        safe[j] = (
                            f"{name(a)} needs its mines among cells {name(b)} also touches, "
                            f"so {name(b)}'s other cells are clear"
                        )
                    changed = True
                elif mb - ma == len(rest):
                    for j in rest:
                        mines[j] = (
                            f"{name(b)} needs {mb - ma} more mine{'s' if mb - ma > 1 else ''} "
                            f"than {name(a)}, outside the cells they share"
                        )
                    changed = True
                if changed:
                    break
            if changed:
                break
    return safe, mines


def _groups(
    constraints: list[tuple[int, frozenset[int], int]],
) -> list[list[tuple[int, frozenset[int], int]]]:
    """Constraints split into groups that share no cell."""
    groups: list[tuple[set[int], list[tuple[int, frozenset[int], int]]]] = []
    for c in constraints:
        merged_cells, merged = set(c[1]), [c]
        rest = []
        for cells, items in groups:
            if cells & merged_cells:
                merged_cells |= cells
                merged.extend(items)
            else:
                rest.append((cells, items))
        groups = [*rest, (merged_cells, merged)]
    return [items for _, items in groups]


def _count_group(
    group: list[tuple[int, frozenset[int], int]],
) -> tuple[list[int], dict[int, list[int]], list[int]] | None:
    """Count the group's solutions: (its cells, per cell the solutions with a mine there by mine
    total, the solutions by mine total); ``None`` when the budget runs out."""
    cells = _order(group)
    position = {j: k for k, j in enumerate(cells)}
    cons = [([position[j] for j in unknown], missing) for _, unknown, missing in group]
    by_cell: list[list[int]] = [[] for _ in cells]
    for ci, (members, _) in enumerate(cons):
        for k in members:
            by_cell[k].append(ci)
    # Per constraint: mines placed so far, cells still free and mines needed.
    placed = [0] * len(cons)
    free = [len(m) for m, _ in cons]
    need = [m for _, m in cons]
    if any(not 0 <= m <= f for m, f in zip(need, free, strict=True)):
        return None  # numbers that no layout fits (a hand-made board): no count
    n = len(cells)
    totals = [0] * (n + 1)
    per_cell = {j: [0] * (n + 1) for j in cells}
    assignment = [0] * n
    nodes = 0

    def go(k: int, mines_so_far: int) -> bool:
        """Extend the assignment from cell ``k``; ``False`` once the budget is spent."""
        nonlocal nodes
        nodes += 1
        if nodes > NODE_BUDGET:
            return False
        if k == n:
            totals[mines_so_far] += 1
            for idx in range(n):
                if assignment[idx]:
                    per_cell[cells[idx]][mines_so_far] += 1
            return True
        for value in (0, 1):
            for ci in by_cell[k]:
                placed[ci] += value
                free[ci] -= 1
            if all(placed[ci] <= need[ci] <= placed[ci] + free[ci] for ci in by_cell[k]):
                assignment[k] = value
                if not go(k + 1, mines_so_far + value):
                    return False  # abandoned: the counters are not needed any more
            for ci in by_cell[k]:
                placed[ci] -= value
                free[ci] += 1
        assignment[k] = 0
        return True

    if not go(0, 0) or not any(totals):
        return None
    return cells, {j: per_cell[j] for j in cells}, totals


def _order(group: list[tuple[int, frozenset[int], int]]) -> list[int]:
    """The group's cells in the order a search meets them along shared numbers (prunes early)."""
    remaining = sorted({j for _, unknown, _ in group for j in unknown})
    members = [set(unknown) for _, unknown, _ in group]
    order: list[int] = []
    seen: set[int] = set()
    while remaining:
        queue = [remaining[0]]
        seen.add(remaining[0])
        while queue:
            j = queue.pop(0)
            order.append(j)
            for m in members:
                if j in m:
                    for other in sorted(m - seen):
                        seen.add(other)
                        queue.append(other)
        remaining = [j for j in remaining if j not in seen]
    return order


def _convolve(a: list[float], b: list[float]) -> list[float]:
    out = [0.0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def analyse(state: MinesweeperState) -> Analysis:
    """What the numbers of ``state`` (a view is enough) say about every unrevealed cell."""
    key = (state.rows, state.cols, state.mine_count, state.shown)
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) >= 256:
            _CACHE.clear()
        found = _CACHE[key] = _analyse(state)
    return found


#: Analyses by board (the bot's values, its explanation and the simulated model's words share one).
_CACHE: dict[tuple[int, int, int, tuple[int, ...]], Analysis] = {}


def _analyse(state: MinesweeperState) -> Analysis:
    unrevealed = state.unrevealed()
    safe, mines = _deduce(state)
    constraints = _constraints(state, set(mines), set(safe))
    frontier = frozenset(j for _, unknown, _ in _constraints(state, set(), set()) for j in unknown)
    risk: dict[int, float] = {j: 0.0 for j in safe} | {j: 1.0 for j in mines}
    open_cells = [j for j in unrevealed if j not in risk and not any(j in u for _, u, _ in constraints)]
    left = state.mine_count - len(mines)
    groups = _groups(constraints)
    counted = [_count_group(g) for g in groups]
    exact = all(c is not None for c in counted)
    if exact and groups:
        dists = [[float(t) for t in c[2]] for c in counted if c is not None]
        weight_open = [
            math.comb(len(open_cells), left - k) if 0 <= left - k <= len(open_cells) else 0
            for k in range(left + 1)
        ]
        combined_all = [1.0]
        for d in dists:
            combined_all = _convolve(combined_all, d)
        total = sum(x * weight_open[k] for k, x in enumerate(combined_all) if k <= left)
        if total > 0:
            for gi, c in enumerate(counted):
                assert c is not None
                others = [1.0]
                for gj, d in enumerate(dists):
                    if gj != gi:
                        others = _convolve(others, d)
                cells, per_cell, _ = c
                for j in cells:
                    mass = 0.0
                    for k, ways in enumerate(per_cell[j]):
                        if ways:
                            mass += ways * sum(
                                o * weight_open[k + m] for m, o in enumerate(others) if k + m <= left
                            )
                    risk[j] = mass / total
            if open_cells:
                expected = (
                    sum(x * weight_open[k] * (left - k) for k, x in enumerate(combined_all) if k <= left)
                    / total
                )
                for j in open_cells:
                    risk[j] = expected / len(open_cells)
        else:
            exact = False
    if not (exact and groups):
        # The local estimate: the worst of the numbers around a cell, else the overall density.
        density = left / max(1, len(unrevealed) - len(safe) - len(mines))
        for j in unrevealed:
            if j in risk:
                continue
            local = [m / len(u) for _, u, m in constraints if j in u]
            risk[j] = max(local) if local else density
    for j, p in list(risk.items()):
        if p <= 1e-12 and j not in safe:
            safe[j] = "no arrangement of mines that fits every number puts one there"
        elif p >= 1 - 1e-12 and j not in mines:
            mines[j] = "every arrangement of mines that fits the numbers puts one there"
    return Analysis(safe, mines, risk, frontier, exact and bool(groups) or not constraints)


class SolverBot(SearchBot):
    """Sure cells first, else the least risky cell; never flags."""

    spec = "solver"
    label = "Solver"

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, MinesweeperState)
        found = analyse(state)
        values: dict[Action, float] = {}
        for action in observation.legal_actions:
            index = state.cell(action)
            if index is None:  # a flag: never worth a move to the solver
                continue
            closed = sum(1 for j in state.around(index) if state.shown[j] == UNREVEALED)
            # Safer first; among equally safe cells, fewer closed neighbours (more likely to open an area).
            values[action] = round(1.0 - found.risk.get(index, 1.0), 9) + (8 - closed) / 1e4
        return values

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        state = observation.state
        assert isinstance(state, MinesweeperState)
        found = analyse(state)
        index = state.cell(action)
        if index is None:
            return f"{action} is the best move found"
        if index in found.safe:
            return f"{action} is safe: {found.safe[index]}"
        chance = found.risk.get(index, 0.0)
        return f"no cell is sure; {action} has the lowest chance of a mine ({chance:.0%})"
