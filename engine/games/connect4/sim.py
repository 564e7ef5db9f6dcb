"""How the simulated model plays Connect Four, in GameBot's answer format: observations, the two
intermediate results (from the game's own oracles), a strategic analysis, a conclusion and
``Chosen Move: (r,c)``.

Its mistakes are the ones GameBot reports for real models (Connect Four's intermediate answers score
the lowest F1 of all its games), and its words follow from them:

* a wrong intermediate answer either misses a real winning cell (a missed win or a missed block) or
  sees one that is not there: a cell higher up a column (gravity forgotten) or a cell next to a run of
  two miscounted as three (see :func:`engine.games.connect4.questions.phantom_cells`). The model then
  plays what it believes and explains it from the misreading;
* a slip plays a cell that is not playable: the same cell with the rows counted from the top (row 0 is
  the bottom in GameBot's coordinates, and models often read it the other way), or the cell above the
  one it meant. Re-asked, it may insist on it (see :data:`engine.llm.simstyle.REPEAT_RATE`).

Without a slip the strategic analysis and the reasoning always name the move played.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence

from engine.core import Action
from engine.games.connect4.rules import (
    ACTIONS,
    COLS,
    DIRECTIONS,
    MARKS,
    ROWS,
    ConnectFourState,
    cell_of,
    line_through,
    run_length,
    winning_moves,
)
from engine.llm.simstyle import (
    Analysis,
    SimBehaviour,
    SimContext,
    blind_choice,
    last_position,
    reflect,
    value_lines,
    win_block_notes,
)
from engine.questions import format_items

_DIRECTION_NAMES = {
    (0, 1): "Row",
    (1, 0): "Column",
    (1, 1): "The rising diagonal",
    (1, -1): "The falling diagonal",
}
#: What a format slip writes instead of a cell (none of them names a cell or a column).
_BROKEN = ("the middle", "drop it left of centre", "top row", "D4")


def _cells(ctx: SimContext) -> tuple[str, ...]:
    return ctx.state.cells if isinstance(ctx.state, ConnectFourState) else ("",) * (ROWS * COLS)


def _where(cells: Sequence[str], mark: str) -> str:
    spots = [ACTIONS[i] for i in range(ROWS * COLS) if cells[i] == mark]
    return ", ".join(spots) if spots else "none yet"


def _centre_distance(action: Action) -> int:
    return abs(cell_of(action)[1] - COLS // 2)


def explain_line(cells: Sequence[str], cell: Action, mark: str) -> str:
    """Which line ``cell`` completes for ``mark`` as the model reads the board: a real four names its
    three discs; a believed one (a run of two, miscounted) names the two it saw."""
    r, c = cell_of(cell)
    line = line_through(cells, r, c, mark)
    if line is not None:
        others = [ACTIONS[i] for i in line if ACTIONS[i] != cell][:3]
        name = _line_name(_direction(line), r, c)
        return f"{name} has {mark} at {', '.join(others)}, so {cell} completes four."
    for dr, dc in DIRECTIONS:
        back = run_length(cells, r, c, mark, -dr, -dc)
        ahead = run_length(cells, r, c, mark, dr, dc)
        if back + ahead >= 2:
            seen = [ACTIONS[(r + k * dr) * COLS + (c + k * dc)] for k in range(-back, ahead + 1) if k]
            return f"{_line_name((dr, dc), r, c)} has {mark} at {', '.join(seen)}, so {cell} completes four."
    return ""


def _line_name(direction: tuple[int, int], r: int, c: int) -> str:
    name = _DIRECTION_NAMES[direction]
    return f"{name} {r}" if name == "Row" else f"{name} {c}" if name == "Column" else name


def _direction(line: Sequence[int]) -> tuple[int, int]:
    a, b = line[0], line[1]
    dr, dc = b // COLS - a // COLS, b % COLS - a % COLS
    return dr, dc


class ConnectFourSim(SimBehaviour):
    """Connect Four's simulated player."""

    # -- beliefs ------------------------------------------------------------------------------------

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, list[str]]) -> Action:
        """Win where it believes it can, else block where it believes it must, else the strongest
        cell among those it sees no reason against (a missed threat stays missed)."""
        cells = _cells(ctx)
        legal = list(ctx.state.legal_actions(ctx.seat))
        if not legal:
            return analysis.best
        values = analysis.values

        def preference(a: Action) -> tuple[float, int, bool]:
            return (values.get(a, float("-inf")), -_centre_distance(a), a == analysis.best)

        for key in (1, 2):
            believed = [a for a in answers.get(key, []) if a in legal]
            if believed:
                return analysis.best if analysis.best in believed else max(believed, key=preference)
        me, them = MARKS[ctx.seat], MARKS[1 - ctx.seat]
        missed = {*winning_moves(cells, me), *winning_moves(cells, them)}
        candidates = [a for a in legal if a not in missed] or legal
        return max(candidates, key=preference)

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """A cell that is not playable: the best cell with its rows counted from the top, else the
        cell above it, else any taken cell."""
        cells = _cells(ctx)
        legal = set(ctx.state.legal_actions(ctx.seat))
        r, c = cell_of(analysis.best)
        for cand in ((ROWS - 1 - r, c), (r + 1, c)):
            if 0 <= cand[0] < ROWS and ACTIONS[cand[0] * COLS + c] not in legal:
                return ACTIONS[cand[0] * COLS + cand[1]], "illegal"
        taken = [ACTIONS[i] for i in range(ROWS * COLS) if cells[i]]
        return (rng.choice(taken), "illegal") if taken else (analysis.best, "")

    # -- words --------------------------------------------------------------------------------------

    def _plan(self, ctx: SimContext, action: Action, slip: str, answers: Mapping[int, list[str]]) -> str:
        cells = _cells(ctx)
        me, them = MARKS[ctx.seat], MARKS[1 - ctx.seat]
        if slip:
            again = " I checked again: it is free." if slip.endswith("again") else ""
            return f"Column {cell_of(action)[1]} is open and {action} is where my disc lands.{again}"
        if action in answers.get(1, []):
            return f"I can win at {action}. {explain_line(cells, action, me)}".strip()
        if action in answers.get(2, []):
            return f"I must block {them} at {action}. {explain_line(cells, action, them)}".strip()
        if not any(cells):
            where = "in the centre column" if _centre_distance(action) == 0 else "off the centre"
            return f"Empty board: I open {where}, at {action}."
        above = cell_of(action)[0] + 1
        under = ""
        if above < ROWS:
            cell_above = ACTIONS[above * COLS + cell_of(action)[1]]
            if line_through(cells, above, cell_of(action)[1], them) is None:
                under = f" It does not give {them} the cell {cell_above} above it."
        return f"No immediate threats; {action} builds my lines toward the centre.{under}"

    def answer(
        self,
        ctx: SimContext,
        analysis: Analysis,
        action: Action,
        slip: str,
        broken: bool,
        answers: Mapping[int, list[str]],
        rng: random.Random,
    ) -> str:
        cells = _cells(ctx)
        me, them = MARKS[ctx.seat], MARKS[1 - ctx.seat]
        legal = ctx.state.legal_actions(ctx.seat)
        move_line = f"Chosen Move: {action}"
        if broken:
            move_line = f"Chosen Move: {rng.choice(_BROKEN)}"
        conclusion = f"{action} is open, so I take it." if slip else f"{action} is the best move."
        return "\n".join(
            [
                "1. Observations",
                f"My pieces ({me}): {_where(cells, me)}. Opponent's pieces ({them}): {_where(cells, them)}.",
                f"Valid moves: {', '.join(legal)}. For each one I count my discs and the opponent's "
                "along the row, the column and both diagonals.",
                *self.tags(answers),
                "2. Strategic Analysis",
                self._plan(ctx, action, slip, answers),
                f"Conclusion: {conclusion}",
                move_line,
            ]
        )

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> str:
        """The streamed reasoning trace, written from the same beliefs as the answer."""
        cells = _cells(ctx)
        me, them = MARKS[ctx.seat], MARKS[1 - ctx.seat]
        believed = {*answers.get(1, []), *answers.get(2, [])}
        missed = {*winning_moves(cells, me), *winning_moves(cells, them)} - believed
        lines = [
            f"I am {me}. Row 0 is the bottom. My discs: {_where(cells, me)}. Opponent ({them}): "
            f"{_where(cells, them)}.",
            "Each valid move is the lowest empty cell of its column; checking the lines through each.",
            f"Cells that win for me: {format_items(answers.get(1, []))}. Cells that win for {them}: "
            f"{format_items(answers.get(2, []))}.",
        ]
        lines += value_lines(analysis, "Search values", missed)
        lines.append(self._plan(ctx, action, slip, answers))
        return "\n".join(lines)

    def blind(self, prompt: str, rng: random.Random) -> str:
        legal = re.findall(r"\(\d,\d\)", prompt)
        return blind_choice(legal, "(0,3)", rng)

    def reflection(self, ctx: SimContext | None) -> str:
        after = last_position(ctx, ConnectFourState)
        if ctx is None or after is None:
            return super().reflection(ctx)
        me, them = MARKS[ctx.seat], MARKS[1 - ctx.seat]
        threats = winning_moves(after, them)
        chances = winning_moves(after, me)
        return reflect(
            ctx,
            them,
            win_block_notes(them, chances, threats),
            quiet="No immediate threats. Build open threes and keep the centre column.",
        )


__all__ = ["ConnectFourSim", "explain_line"]
