"""How the simulated model plays tic-tac-toe, in GameBot's answer format: observations, the two
intermediate results (from the game's own oracles), a strategic analysis, a conclusion and
``Chosen Move: (r,c)``.

Its mistakes are the ones GameBot and lmgame-bench report for real models, and its words follow from
them:

* a wrong intermediate answer either misses a real winning cell (a missed block or a missed win) or
  sees one that is not there because it misread an empty cell as a mark: the phantom is always an
  empty cell next to a real mark, on a line that mark could still complete, so it never "completes a
  line" on an empty board. The model then plays what it believes and explains it from the misreading;
* a slip plays an occupied cell that the model misread as empty (its observations leave that mark
  out); re-asked, it may insist on it (see :data:`engine.llm.simstyle.REPEAT_RATE`).

Without a slip the strategic analysis and the reasoning always name the move played.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence

from engine.agent.parse import MOVEMENT
from engine.core import Action
from engine.games.tictactoe.rules import ACTIONS, LINES, MARKS, TicTacToeState, winning_moves
from engine.llm.simstyle import (
    Analysis,
    SimBehaviour,
    SimContext,
    blind_choice,
    labelled_answer,
    labelled_slip,
    last_position,
    misread_board,
    reflect,
    value_lines,
    win_block_notes,
)
from engine.questions import format_items

_CENTRE = 4
_CORNERS = frozenset({0, 2, 6, 8})


def _where(cells: Sequence[str], mark: str) -> str:
    spots = [ACTIONS[i] for i in range(9) if cells[i] == mark]
    return ", ".join(spots) if spots else "none yet"


def _cells(ctx: SimContext) -> tuple[str, ...]:
    return ctx.state.cells if isinstance(ctx.state, TicTacToeState) else ("",) * 9


def _marks(ctx: SimContext) -> tuple[str, str]:
    """The seat's mark and its opponent's (seat 0 plays O with the ``first=o`` option)."""
    marks = ctx.state.marks if isinstance(ctx.state, TicTacToeState) else MARKS
    return marks[ctx.seat], marks[1 - ctx.seat]


def _adjacent(a: int, b: int) -> bool:
    return a != b and abs(a // 3 - b // 3) <= 1 and abs(a % 3 - b % 3) <= 1


def _line_name(line: tuple[int, int, int]) -> str:
    index = LINES.index(line)
    if index < 3:
        return f"Row {index}"
    if index < 6:
        return f"Column {index - 3}"
    return "The main diagonal" if index == 6 else "The anti-diagonal"


def phantoms(cells: Sequence[str], mark: str) -> dict[int, tuple[tuple[int, int, int], int]]:
    """The empty cells a model could wrongly believe complete a line for ``mark``: each is next to a
    real ``mark`` on a line holding that one mark and two empty cells; the other empty cell of the line
    is the one misread as ``mark``. Maps cell index → (line, misread cell index)."""
    found: dict[int, tuple[tuple[int, int, int], int]] = {}
    for line in LINES:
        values = [cells[i] for i in line]
        if values.count(mark) != 1 or values.count("") != 2:
            continue
        owner = next(i for i in line if cells[i] == mark)
        for cell in line:
            if not cells[cell] and _adjacent(cell, owner) and cell not in found:
                other = next(i for i in line if i not in (cell, owner))
                found[cell] = (line, other)
    return found


def _name(action: Action) -> str:
    """LVLM-Playground's name of a cell: ``"(1,1)"`` → ``"B2"``."""
    i = ACTIONS.index(action) if action in ACTIONS else 4
    return f"{'ABC'[i // 3]}{i % 3 + 1}"


def _named(cells: Sequence[str], mark: str) -> str:
    spots = [_name(ACTIONS[i]) for i in range(9) if cells[i] == mark]
    return ", ".join(spots) if spots else "none yet"


def _renamed(text: str) -> str:
    """``text`` with every ``(r,c)`` written as LVLM-Playground names it."""
    return re.sub(r"\((\d),(\d)\)", lambda m: _name(f"({m.group(1)},{m.group(2)})"), text)


class TicTacToeSim(SimBehaviour):
    """Tic-tac-toe's simulated player."""

    # -- beliefs ------------------------------------------------------------------------------------

    def intermediate(self, ctx: SimContext, rng: random.Random, wrong_rate: float) -> dict[int, list[str]]:
        """The true winning cells for each side, or (at ``wrong_rate`` per question) one real cell
        missed or one phantom cell seen through a misread mark (see :func:`phantoms`)."""
        cells = _cells(ctx)
        me, them = _marks(ctx)
        answers: dict[int, list[str]] = {}
        for key, mark in ((1, me), (2, them)):
            truth = winning_moves(cells, mark)
            if rng.random() >= wrong_rate:
                answers[key] = truth
                continue
            ghosts = [ACTIONS[i] for i in sorted(phantoms(cells, mark)) if ACTIONS[i] not in truth]
            ways = (["missed"] if truth else []) + (["phantom"] if ghosts else [])
            way = rng.choice(ways) if ways else ""
            if way == "missed":
                lost = rng.choice(truth)
                answers[key] = [a for a in truth if a != lost]
            elif way == "phantom":
                seen = {*truth, rng.choice(ghosts)}
                answers[key] = [a for a in ACTIONS if a in seen]
            else:
                answers[key] = truth
        return answers

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, list[str]]) -> Action:
        """Win where it believes it can, else block where it believes it must, else the strongest
        cell among those it sees no reason against (a missed threat stays missed)."""
        cells = _cells(ctx)
        legal = list(ctx.state.legal_actions(ctx.seat))
        if not legal:
            return analysis.best
        values = analysis.values

        def preference(a: Action) -> tuple[float, int, bool]:
            i = ACTIONS.index(a)
            shape = 2 if i == _CENTRE else 1 if i in _CORNERS else 0
            return (values.get(a, float("-inf")), shape, a == analysis.best)

        for key in (1, 2):
            believed = [a for a in answers.get(key, []) if a in legal]
            if believed:
                return analysis.best if analysis.best in believed else max(believed, key=preference)
        me, them = _marks(ctx)
        missed = {*winning_moves(cells, me), *winning_moves(cells, them)}
        candidates = [a for a in legal if a not in missed] or legal
        return max(candidates, key=preference)

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """An occupied cell misread as empty; no slip on an empty board."""
        cells = _cells(ctx)
        taken = [ACTIONS[i] for i in range(9) if cells[i]]
        if not taken:
            return analysis.best, ""
        return rng.choice(taken), "illegal"

    # -- words --------------------------------------------------------------------------------------

    def _seen(self, ctx: SimContext, action: Action, slip: str) -> tuple[str, ...]:
        return misread_board(_cells(ctx), ACTIONS, action, slip)

    def _why(self, cells: Sequence[str], cell: Action, mark: str) -> str:
        """Which line ``cell`` completes for ``mark``, as the model reads the board (a phantom's line
        names the misread cell as a mark)."""
        i = ACTIONS.index(cell)
        for line in LINES:
            if i in line and all(cells[j] == mark for j in line if j != i):
                a, b = (ACTIONS[j] for j in line if j != i)
                return f"{_line_name(line)} has {mark} at {a} and {b}, so {cell} completes it."
        ghost = phantoms(cells, mark).get(i)
        if ghost is not None:
            line, _misread = ghost
            a, b = sorted((ACTIONS[j] for j in line if j != i), key=ACTIONS.index)
            return f"{_line_name(line)} has {mark} at {a} and {b}, so {cell} completes it."
        return ""

    def _plan(
        self, ctx: SimContext, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> str:
        cells = _cells(ctx)
        me, them = _marks(ctx)
        if slip:
            again = " I checked again: it is free." if slip.endswith("again") else ""
            return f"{action} is still empty, and it is the square I want.{again}"
        if action in answers.get(1, []):
            return f"I can complete a line at {action}. {self._why(cells, action, me)}".strip()
        if action in answers.get(2, []):
            return f"I must block {them} at {action}. {self._why(cells, action, them)}".strip()
        if not any(cells):
            i = ACTIONS.index(action)
            shape = "in the centre" if i == _CENTRE else "in a corner" if i in _CORNERS else "on an edge"
            return f"Empty board: I open {shape}, at {action}."
        return f"No immediate threats; {action} is the strongest continuation."

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
        seen = self._seen(ctx, action, slip)
        me, them = _marks(ctx)
        plan = self._plan(ctx, action, slip, answers)
        if MOVEMENT.search(self.prompt_text):
            # LVLM-Playground's prompt (variant "lvlm"): three labelled lines, cells named like B2.
            observation = f"My marks ({me}): {_named(seen, me)}. Opponent's ({them}): {_named(seen, them)}."
            if broken:
                return labelled_slip(observation, rng, cut="Block first, then", plan=plan,
                                     vague=["the centre square", "the free corner"],
                                     closing="I will decide next.")
            return labelled_answer(observation, _renamed(plan), _name(action))
        move_line = f"Chosen Move: {action}"
        if broken:
            move_line = f"Chosen Move: {rng.choice(['the centre square', 'top corner', 'middle row', 'C2'])}"
        conclusion = f"{action} is open, so I take it." if slip else f"{action} is the best move."
        return "\n".join(
            [
                "1. Observations",
                f"My pieces ({me}): {_where(seen, me)}. Opponent's pieces ({them}): {_where(seen, them)}.",
                *self.tags(answers),
                "2. Strategic Analysis",
                plan,
                f"Conclusion: {conclusion}",
                move_line,
            ]
        )

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> str:
        """The streamed reasoning trace, written from the same beliefs as the answer."""
        seen = self._seen(ctx, action, slip)
        me, them = _marks(ctx)
        believed = {*answers.get(1, []), *answers.get(2, [])}
        missed = {*winning_moves(_cells(ctx), me), *winning_moves(_cells(ctx), them)} - believed
        # A cell whose threat it missed is no candidate in its mind: it does not weigh it.
        lines = [
            f"I am {me}. My marks: {_where(seen, me)}. Opponent ({them}): {_where(seen, them)}.",
            "Checking each empty cell against its row, column and diagonals.",
            f"Cells that win for me: {format_items(answers.get(1, []))}. Cells that win for {them}: "
            f"{format_items(answers.get(2, []))}.",
        ]
        lines += value_lines(analysis, "Search values", missed)
        lines.append(self._plan(ctx, action, slip, answers))
        return "\n".join(lines)

    def blind(self, prompt: str, rng: random.Random) -> str:
        legal = re.findall(r"\(\d,\d\)", prompt)
        return blind_choice(legal, "(1,1)", rng)

    def reflection(self, ctx: SimContext | None) -> str:
        after = last_position(ctx, TicTacToeState)
        if ctx is None or after is None:
            return super().reflection(ctx)
        me, them = _marks(ctx)
        threats = winning_moves(after, them)
        chances = winning_moves(after, me)
        return reflect(
            ctx,
            them,
            win_block_notes(them, chances, threats),
            quiet="No immediate threats. Aim for a fork: two lines at once.",
        )
