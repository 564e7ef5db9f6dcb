"""How the simulated model plays Minesweeper, in LVLM-Playground's answer format: ``Observation:``,
``Strategy:`` and ``Movement: <row><column>``.

It reasons from the solver's analysis (:func:`engine.games.minesweeper.bots.analyse`) of the board it
sees (the player's view; it never knows the layout) and makes the mistakes the paper reports for real
models, each written from the misreading behind it:

* a wrong belief (at the client's ``wrong_ir_rate``): it misreads a number next to the cell it picks
  and takes a risky cell (often one the numbers prove to be a mine) for a safe one; the move is legal
  and may end the game;
* a slip (an illegal move, at ``illegal_rate``): it reveals a cell that is already revealed, a flat
  empty cell it took for a grey one or a number it overlooked; re-asked, it may insist (see
  :data:`engine.llm.simstyle.REPEAT_RATE`);
* a format slip: the ``Movement:`` line missing or naming no cell.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from engine.core import Action
from engine.games.minesweeper.bots import analyse
from engine.games.minesweeper.rules import ROW_LETTERS, UNREVEALED, MinesweeperState
from engine.llm.simstyle import (
    Analysis,
    SimBehaviour,
    SimContext,
    labelled_answer,
    labelled_slip,
    position,
    slip_kind,
)

#: The key under which :meth:`MinesweeperSim.intermediate` keeps a wrong belief (no question has it).
_BELIEF = -1


def _state(ctx: SimContext | None) -> MinesweeperState | None:
    return position(ctx, MinesweeperState)


def _numbers_around(state: MinesweeperState, index: int) -> list[int]:
    return [j for j in state.around(index) if 1 <= state.shown[j] <= 8]


class MinesweeperSim(SimBehaviour):
    """Minesweeper's simulated player."""

    # -- beliefs and choices --------------------------------------------------------------------

    def intermediate(self, ctx: SimContext, rng: random.Random, wrong_rate: float) -> dict[int, list[str]]:
        """No questions are asked; at ``wrong_rate`` the model believes a risky frontier cell is safe
        (a proven mine half the time, when there is one)."""
        state = _state(ctx)
        if state is None or rng.random() >= wrong_rate:
            return {}
        found = analyse(state)
        legal = set(state.legal_actions(0))
        risky = [j for j in sorted(found.frontier) if j not in found.safe and state.name(j) in legal]
        if not risky:
            return {}
        mines = [j for j in risky if j in found.mines]
        pick = (
            rng.choice(mines)
            if mines and rng.random() < 0.5
            else max(risky, key=lambda j: (found.risk[j], -j))
        )
        return {_BELIEF: [state.name(pick)]}

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, list[str]]) -> Action:
        believed = answers.get(_BELIEF)
        if believed and believed[0] in ctx.state.legal_actions(ctx.seat):
            return believed[0]
        return analysis.best

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """A cell that is already revealed: an empty one read as grey, or a number overlooked."""
        state = _state(ctx)
        if state is None:
            return analysis.best, ""
        revealed = [i for i, v in enumerate(state.shown) if v != UNREVEALED]
        if not revealed:  # nothing revealed yet: a cell just off the board
            if state.rows < len(ROW_LETTERS):
                return f"{ROW_LETTERS[state.rows]}{rng.randint(1, state.cols)}", "illegal"
            return f"{rng.choice(ROW_LETTERS)}{state.cols + 1}", "illegal"
        return state.name(rng.choice(revealed)), "illegal"

    # -- words ----------------------------------------------------------------------------------

    def situation(self, ctx: SimContext) -> str:
        state = _state(ctx)
        if state is None:
            return super().situation(ctx)
        revealed = state.revealed_safe()
        closed = len(state.unrevealed())
        if not revealed:
            return (
                f"The {state.rows}x{state.cols} board is still all grey: {closed} unrevealed cells and "
                f"{state.mine_count} hidden mines."
            )
        numbers = sorted({state.shown[i] for i in range(state.size) if 1 <= state.shown[i] <= 8})
        shown = ", ".join(map(str, numbers)) if numbers else "no numbers"
        return (
            f"{revealed} cells are revealed and {closed} are still grey, {state.mine_count} of them mines; "
            f"the numbers on the edge of the open area are {shown}."
        )

    def _plan(self, ctx: SimContext, action: Action, slip: str, answers: Mapping[int, list[str]]) -> str:
        state = _state(ctx)
        index = state.cell(action) if state is not None else None
        if state is None or index is None:
            return f"I reveal {action}."
        name = state.name(index)
        if slip:
            again = " I looked again and it still looks unrevealed to me." if slip.endswith("again") else ""
            if 0 <= index < state.size and state.shown[index] == 0:
                return f"{name} looks like a grey cell that nothing has touched yet, so I open it.{again}"
            return f"{name} still looks unrevealed, and I see no number saying it hides a mine.{again}"
        found = analyse(state)
        if answers.get(_BELIEF) == [action]:
            numbers = _numbers_around(state, index)
            if numbers:
                j = numbers[0]
                return (
                    f"{state.name(j)} shows {state.shown[j]} and I count that many mines already around "
                    f"it, so {name} must be clear. I reveal {name}."
                )
            return f"{name} sits next to the open area and looks safe. I reveal {name}."
        if index in found.safe:
            return f"{name} is safe: {found.safe[index]}. I reveal it."
        if not state.revealed_safe():
            return (
                f"Nothing is revealed yet, so every cell is an equal guess; a corner like {name} has the "
                "fewest neighbours and the best chance of opening an area."
            )
        chance = found.risk.get(index, 0.0)
        return (
            f"No cell is certain from the numbers. {name} has the lowest chance of hiding a mine "
            f"(about {chance:.0%}), so I take that guess."
        )

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
        if broken:
            return self.broken_answer(ctx, rng)
        observation = self.situation(ctx)
        strategy = self._plan(ctx, action, slip, answers)
        return labelled_answer(observation, strategy, action)

    def broken_answer(self, ctx: SimContext, rng: random.Random) -> str:
        """A format slip that names no cell anywhere (else the extractor would rightly find it)."""
        return labelled_slip(
            self.situation(ctx),
            rng,
            cut="Open the cells the numbers prove safe first.",
            plan="Reveal a safe cell.",
            vague=["the safest corner", "next to the open area", "a grey cell", "none"],
            closing="The safest cell is the obvious next step.",
        )

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> str:
        state = _state(ctx)
        lines = [self.situation(ctx)]
        if state is not None and state.revealed_safe():
            found = analyse(state)
            if found.mines:
                shown = ", ".join(state.name(j) for j in sorted(found.mines)[:5])
                lines.append(f"Cells the numbers prove to be mines: {shown}.")
            if found.safe:
                shown = ", ".join(state.name(j) for j in sorted(found.safe)[:5])
                lines.append(f"Cells the numbers prove safe: {shown}.")
            if not found.safe:
                lowest = sorted(
                    (j for j in found.risk if found.risk[j] < 1), key=lambda j: (found.risk[j], j)
                )[:3]
                shown = ", ".join(f"{state.name(j)} ({found.risk[j]:.0%})" for j in lowest)
                lines.append(f"No sure cell; the least risky are {shown}.")
        lines.append(self._plan(ctx, action, slip, answers))
        lines.append(f"Move: {action}.")
        return "\n".join(lines)

    def slip_words(self, ctx: SimContext, action: Action, slip: str) -> str:
        if slip_kind(slip) == "illegal":
            return self._plan(ctx, action, slip, {})
        return super().slip_words(ctx, action, slip)

    def blind(self, prompt: str, rng: random.Random) -> str:
        cell = f"{rng.choice(ROW_LETTERS[:8])}{rng.randint(1, 8)}"
        return labelled_answer("I cannot read the board clearly.", "Reveal a cell that looks grey.", cell)

    def reflection(self, ctx: SimContext | None) -> str:
        state = _state(ctx)
        if ctx is None or state is None or not ctx.history:
            return super().reflection(ctx)
        last = ctx.history[-1]
        action = ", ".join(str(a) for a in last.actions.values())
        before, after = last.state, last.next_state
        if not isinstance(after, MinesweeperState) or not isinstance(before, MinesweeperState):
            return super().reflection(ctx)
        opened = after.revealed_safe() - before.revealed_safe()
        if opened > 1:
            return (
                f"{action} opened {opened} cells at once (an empty region). Read the new numbers on its "
                "edge: a number whose mines are all accounted for clears its other neighbours."
            )
        return (
            f"{action} revealed one cell. Before guessing again, check every number on the edge of the "
            "open area for a cell it proves safe."
        )
