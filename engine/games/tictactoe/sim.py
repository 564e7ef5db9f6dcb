"""How the simulated model plays tic-tac-toe, in GameBot's answer format: observations, the two
intermediate results (from the game's own oracles), a strategic analysis, a conclusion and
``Chosen Move: (r,c)``."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping

from engine.core import Action
from engine.games.tictactoe.rules import ACTIONS, MARKS, TicTacToeState, winning_moves
from engine.llm.simstyle import Analysis, SimBehaviour, SimContext, fmt_value, since_own_move
from engine.questions import format_items


def _where(cells: tuple[str, ...], mark: str) -> str:
    spots = [ACTIONS[i] for i in range(9) if cells[i] == mark]
    return ", ".join(spots) if spots else "none yet"


class TicTacToeSim(SimBehaviour):
    """Tic-tac-toe's simulated player."""

    def _plan(self, cells: tuple[str, ...], me: str, them: str, answers: Mapping[int, list[str]]) -> str:
        mine, theirs = answers.get(1, []), answers.get(2, [])
        if mine:
            return f"I can complete a line at {mine[0]}."
        if theirs:
            return f"I must block {them} at {theirs[0]}."
        if not any(cells):
            return "Empty board: the centre or a corner is the principled start."
        return "No immediate threats; I follow the strongest continuation."

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
        state = ctx.state
        cells = state.cells if isinstance(state, TicTacToeState) else ("",) * 9
        me, them = MARKS[ctx.seat], MARKS[1 - ctx.seat]
        plan = self._plan(cells, me, them, answers)
        move_line = f"Chosen Move: {action}"
        if broken:
            move_line = f"Chosen Move: {rng.choice(['the centre square', 'top corner', 'middle row', 'C2'])}"
        conclusion = f"{action} looks playable." if slip else f"{action} is the best move. {plan}"
        return "\n".join(
            [
                "1. Observations",
                f"My pieces ({me}): {_where(cells, me)}. Opponent's pieces ({them}): {_where(cells, them)}.",
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
        """The streamed reasoning trace, written from the same intermediate results as the answer."""
        state = ctx.state
        cells = state.cells if isinstance(state, TicTacToeState) else ("",) * 9
        me, them = MARKS[ctx.seat], MARKS[1 - ctx.seat]
        ranked = sorted(analysis.values.items(), key=lambda kv: kv[1], reverse=True)
        lines = [
            f"I am {me}. My marks: {_where(cells, me)}. Opponent ({them}): {_where(cells, them)}.",
            "Checking each empty cell against its row, column and diagonals.",
            f"Cells that win for me: {format_items(answers.get(1, []))}. Cells that win for {them}: "
            f"{format_items(answers.get(2, []))}.",
        ]
        if len(ranked) > 1:
            lines.append("Search values: " + ", ".join(f"{a} {fmt_value(v)}" for a, v in ranked[:5]))
        lines.append(self._plan(cells, me, them, answers))
        return "\n".join(lines)

    def blind(self, prompt: str, rng: random.Random) -> str:
        legal = re.findall(r"\(\d,\d\)", prompt)
        move = rng.choice(legal) if legal else "(1,1)"
        return f"I cannot see the whole position clearly.\nChosen Move: {move}"

    def reflection(self, ctx: SimContext | None) -> str:
        if ctx is None or not ctx.history:
            return super().reflection(ctx)
        after = ctx.history[-1].next_state
        if not isinstance(after, TicTacToeState):
            return super().reflection(ctx)
        me, them = MARKS[ctx.seat], MARKS[1 - ctx.seat]
        threats = winning_moves(after, them)
        chances = winning_moves(after, me)
        moves = [(seat, a) for rec in since_own_move(ctx) for seat, a in sorted(rec.actions.items())]
        said = "; ".join(f"{'I' if seat == ctx.seat else them} played {a}" for seat, a in moves)
        parts = [f"Since my last turn: {said}." if said else "No moves yet."]
        if chances:
            parts.append(f"I can win at {', '.join(chances)}: take it.")
        if threats:
            parts.append(f"{them} threatens {', '.join(threats)}; block unless I can win first.")
        if not chances and not threats:
            parts.append("No immediate threats. Aim for a fork: two lines at once.")
        return " ".join(parts)
