"""How the simulated model plays Sudoku, in LVLM-Playground's answer format: ``Observation:``,
``Strategy:`` and ``Movement: <row><column> <digit>``.

It reasons from the solver bot's analysis (forced digits first) and makes the mistakes the paper
reports for real models, each written from the misreading behind it:

* a wrong belief (at the client's ``wrong_ir_rate``): it fills the most constrained blank with a
  candidate that is legal but not the solution's digit, because it overlooked a constraint; the
  move is accepted and quietly spoils the puzzle;
* a slip (an illegal move): a digit that already sits in the cell's row, column or box, which it did
  not see, or a clue it read as a blank; re-asked, it may insist (see
  :data:`engine.llm.simstyle.REPEAT_RATE`);
* a format slip: the ``Movement:`` line missing or naming no cell.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from engine.core import Action
from engine.games.sudoku.bots import hidden_singles, naked_singles
from engine.games.sudoku.generator import PEERS, cell_name
from engine.games.sudoku.rules import ROWS, SudokuState, free_digits, move_text, parse_move
from engine.llm.simstyle import (
    Analysis,
    SimBehaviour,
    SimContext,
    labelled_answer,
    labelled_slip,
    position,
    slip_kind,
)

#: The key under which :meth:`SudokuSim.intermediate` keeps a wrong belief (no question has it).
_BELIEF = -1


def _state(ctx: SimContext | None) -> SudokuState | None:
    return position(ctx, SudokuState)


def _missing(state: SudokuState, row: int) -> list[int]:
    present = set(state.cells[row * 9 : row * 9 + 9])
    return [d for d in range(1, 10) if d not in present]


class SudokuSim(SimBehaviour):
    """Sudoku's simulated player."""

    # -- beliefs and choices --------------------------------------------------------------------

    def intermediate(self, ctx: SimContext, rng: random.Random, wrong_rate: float) -> dict[int, list[str]]:
        """No questions are asked; at ``wrong_rate`` the model believes a wrong candidate is right."""
        state = _state(ctx)
        if state is None or rng.random() >= wrong_rate:
            return {}
        free = free_digits(state.cells)
        tight = sorted((free[i].bit_count(), i) for i in range(81) if free[i].bit_count() >= 2)
        for _count, index in tight:
            wrong = [d for d in state.candidates(index) if d != state.solution[index]]
            if wrong:
                return {_BELIEF: [move_text(index, rng.choice(wrong))]}
        return {}

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, list[str]]) -> Action:
        believed = answers.get(_BELIEF)
        if believed and believed[0] in ctx.state.legal_actions(ctx.seat):
            return believed[0]
        return analysis.best

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """A digit its row, column or box already holds (overlooked), or a clue read as blank."""
        state = _state(ctx)
        if state is None:
            return analysis.best, ""
        blanks = state.blanks()
        repeats = [
            move_text(i, d) for i in blanks for d in range(1, 10) if d not in state.candidates(i)
        ]
        clues = [i for i in range(81) if state.givens[i]]
        if repeats and (not clues or rng.random() < 0.7):
            return rng.choice(repeats), "illegal"
        if clues:
            index = rng.choice(clues)
            digit = rng.choice([d for d in range(1, 10) if d != state.cells[index]])
            return move_text(index, digit), "illegal"
        return analysis.best, ""

    # -- words ----------------------------------------------------------------------------------

    def situation(self, ctx: SimContext) -> str:
        state = _state(ctx)
        if state is None:
            return super().situation(ctx)
        clues = sum(1 for v in state.givens if v)
        placed = len(state.placed())
        blanks = len(state.blanks())
        mine = f" and {placed} digit{'s' if placed != 1 else ''} of mine in blue" if placed else ""
        return f"The grid has {clues} black clues{mine}; {blanks} cells are still blank."

    def _row_note(self, state: SudokuState, index: int) -> str:
        row = index // 9
        missing = _missing(state, row)
        if not missing:
            return ""
        shown = ", ".join(map(str, missing))
        return f" Row {ROWS[row]} still lacks {shown}."

    def _plan(self, ctx: SimContext, action: Action, slip: str, answers: Mapping[int, list[str]]) -> str:
        state = _state(ctx)
        move = parse_move(action)
        if state is None or move is None:
            return f"I place {action}."
        index, digit = move
        name = cell_name(index)
        if slip:
            again = " I checked again and still see no clash." if slip.endswith("again") else ""
            if state.givens[index]:
                return f"{name} looks blank to me, and {digit} fits there.{again}"
            return (
                f"I see no {digit} in row {ROWS[index // 9]}, column {index % 9 + 1} or their box, "
                f"so {digit} can go in {name}.{again}"
            )
        if answers.get(_BELIEF) == [action]:
            return (
                f"{name} is the most constrained blank; its row, column and box leave {digit} as the "
                f"digit it needs, so I place {digit} there."
            )
        if naked_singles(state).get(index) == digit:
            return f"{name} can only take {digit}: its row, column and box already hold every other digit."
        hidden = hidden_singles(state).get(index)
        if hidden is not None and hidden[0] == digit:
            return f"In {hidden[1]}, {name} is the only cell that can still take {digit}."
        options = " or ".join(map(str, state.candidates(index)))
        return (
            f"No cell is forced yet. {name} has the fewest options ({options}); checking where each "
            f"leads, {digit} is the one that works."
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
        state = _state(ctx)
        observation = self.situation(ctx)
        move = parse_move(action)
        if state is not None and move is not None and not slip:
            observation += self._row_note(state, move[0])
        strategy = self._plan(ctx, action, slip, answers)
        if broken:
            return self.broken_answer(ctx, rng)
        return labelled_answer(observation, strategy, action)

    def broken_answer(self, ctx: SimContext, rng: random.Random) -> str:
        """A format slip that names no move anywhere (else the extractor would rightly find it)."""
        return labelled_slip(
            self.situation(ctx),
            rng,
            cut="Look for a cell with a single candidate first.",
            plan="Fill the most constrained cell.",
            vague=["the centre cell", "the last blank in the top row", "a safe cell", "none"],
            closing="The most constrained cell is the obvious next step.",
        )

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> str:
        state = _state(ctx)
        lines = [self.situation(ctx)]
        if state is not None:
            naked = naked_singles(state)
            hidden = hidden_singles(state)
            if naked:
                shown = ", ".join(f"{cell_name(i)}={d}" for i, d in list(naked.items())[:4])
                lines.append(f"Cells with a single candidate: {shown}.")
            if hidden:
                shown = ", ".join(f"{cell_name(i)}={d} ({u})" for i, (d, u) in list(hidden.items())[:3])
                lines.append(f"Digits with only one place in a unit: {shown}.")
            if not naked and not hidden:
                lines.append("No single candidates; I compare the tightest cells.")
        lines.append(self._plan(ctx, action, slip, answers))
        lines.append(f"Move: {action}.")
        return "\n".join(lines)

    def slip_words(self, ctx: SimContext, action: Action, slip: str) -> str:
        if slip_kind(slip) == "illegal":
            return self._plan(ctx, action, slip, {})
        return super().slip_words(ctx, action, slip)

    def blind(self, prompt: str, rng: random.Random) -> str:
        cell = f"{rng.choice(ROWS)}{rng.randint(1, 9)}"
        digit = rng.randint(1, 9)
        return labelled_answer("I cannot read the board clearly.", "Try a digit in a cell that looks blank.",
                               f"{cell} {digit}")

    def reflection(self, ctx: SimContext | None) -> str:
        state = _state(ctx)
        if ctx is None or state is None or not ctx.history:
            return super().reflection(ctx)
        last = ctx.history[-1]
        action = ", ".join(str(a) for a in last.actions.values())
        after = last.next_state
        if not isinstance(after, SudokuState):
            return super().reflection(ctx)
        dead = after.dead_cells()
        if dead:
            names = ", ".join(cell_name(i) for i in dead[:3])
            return (
                f"After {action}, no digit fits {names} any more: an earlier digit of mine must be wrong. "
                "Check each placed digit against its row, column and box before the next move."
            )
        blanks = len(after.blanks())
        move = parse_move(action)
        crowded = ""
        if move is not None:
            peers = sum(1 for j in PEERS[move[0]] if after.cells[j])
            crowded = f" That cell sees {peers} filled cells, so the choice was well constrained."
        return (
            f"{action} was accepted; {blanks} blanks remain.{crowded} Keep taking forced digits first "
            "(a cell with one candidate, or the only place for a digit in a row, column or box)."
        )
