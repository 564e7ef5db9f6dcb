"""How the simulated model plays Tetris: it reads the stack like a player does (the tallest column,
holes, the flattest spot for the falling piece), picks a landing spot from the Dellacherie bot's
placements, and plays the next action towards it (turn first, then slide, then drop). Its slips are
the ones models make on a text board: an action the piece cannot carry out (a slide into a wall it
misjudged, a turn with no room, a second hold), which only lets gravity act. Its reflection compares
the board before and after the last action: the piece placed, lines cleared, holes and height."""

from __future__ import annotations

from collections.abc import Mapping

from engine.core import Action
from engine.games.tetris.bots import Plan, best_plans, describe
from engine.games.tetris.rules import TetrisState
from engine.llm.simstyle import Analysis, SimBehaviour, SimContext, fmt_value, slip_kind

__all__ = ["SimTetris"]

_DOING = {
    "left": "slide it one column left",
    "right": "slide it one column right",
    "rotate_left": "turn it anticlockwise",
    "rotate_right": "turn it clockwise",
    "hard_drop": "drop it into place",
    "soft_drop": "bring it down a row",
    "hold": "swap it into the hold",
    "no_op": "let it fall a row",
}


def _plan_for(state: TetrisState) -> Plan | None:
    own, held = best_plans(state)
    candidates = [*own, *held]
    return max(candidates, key=lambda p: p.value) if candidates else None


class SimTetris(SimBehaviour):
    """Tetris's simulated player (answers in the prompt's ``thought:`` / ``move:`` format)."""

    def situation(self, ctx: SimContext) -> str:
        state = ctx.state
        if not isinstance(state, TetrisState):
            return super().situation(ctx)
        heights = state.heights()
        tallest = max(heights)
        col = heights.index(tallest)
        holes = state.holes()
        stack = f"the stack is {tallest} rows high at column {col}" if tallest else "the board is empty"
        hole_words = f", with {holes} hole{'s' if holes != 1 else ''}" if holes else ""
        nxt = state.queue[0] if state.queue else "nothing"
        return f"The falling piece is {state.piece}; {stack}{hole_words}; next comes {nxt}."

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> str:
        state = ctx.state
        if not isinstance(state, TetrisState):
            return super().reasoning(ctx, analysis, action, slip, answers)
        own, held = best_plans(state)
        lines = [self.situation(ctx), "Where can it go? The best spots I can reach:"]
        for plan in sorted([*own, *held], key=lambda p: p.value, reverse=True)[:3]:
            lines.append(f"- {describe(plan)}: {' '.join(plan.actions)}")
        if slip:
            lines.append(f"{self.slip_words(ctx, action, slip)} I'll go with {action}.")
        else:
            lines.append(f"Next step towards the best spot: {action}, to {_DOING[action]}.")
        return "\n".join(lines)

    def slip_words(self, ctx: SimContext, action: Action, slip: str) -> str:
        """A blocked action is a misread board: the model thinks the piece still has room."""
        state = ctx.state
        if slip_kind(slip) != "wasted" or not isinstance(state, TetrisState):
            return super().slip_words(ctx, action, slip)
        again = " It did not move last time, but I count a free column." if slip.endswith("again") else ""
        if action in ("left", "right"):
            room = f"There is still a free column to the {action} of the piece"
            return f"{room}, so I can {_DOING[action]}.{again}"
        if action == "hold":
            return f"Hold looks free, so I can swap this {state.piece} for a better piece.{again}"
        return f"There is room around the {state.piece} to {_DOING.get(action, action)}.{again}"

    def thought(self, ctx: SimContext, analysis: Analysis, action: Action, slip: str) -> str:
        state = ctx.state
        if slip or not isinstance(state, TetrisState):
            return super().thought(ctx, analysis, action, slip)
        plan = _plan_for(state)
        if plan is None:
            return super().thought(ctx, analysis, action, slip)
        rest = len(plan.actions) - 1
        then = f"; {rest} more action{'s' if rest != 1 else ''} after this" if rest else ""
        return f"Aim for {describe(plan, value=False)}. Now {_DOING[action]}{then}."

    def reflection(self, ctx: SimContext | None) -> str:
        if ctx is None or not ctx.history:
            return super().reflection(ctx)
        last = ctx.history[-1]
        before, after = last.state, last.next_state
        if not (isinstance(before, TetrisState) and isinstance(after, TetrisState)):
            return super().reflection(ctx)
        action = ", ".join(str(a) for a in last.actions.values())
        blocked = before.blocked(action)
        if not after.locked and (after.stuck or blocked):
            why = blocked or "it changed nothing"
            fell = "; only the fall moved the piece" if not after.stuck else ""
            return (
                f"'{action}' did nothing: {why}{fell}. Do not repeat it; pick an action that brings the "
                "piece closer to its spot."
            )
        gain = after.raw_score - before.raw_score
        if after.locked:
            holes_before, holes_after = before.holes(), after.holes()
            height = max(after.heights())
            cleared = f" and cleared {after.cleared} line(s)" if after.cleared else ""
            verdict = (
                "clean" if holes_after <= holes_before else f"left {holes_after - holes_before} new hole(s)"
            )
            advice = (
                "Keep the surface flat and leave one column open for an I."
                if height < 10
                else "The stack is getting high: clear lines before building up."
            )
            return (
                f"'{action}' placed the {before.piece}{cleared} (+{fmt_value(gain)}); the placement was "
                f"{verdict}. The stack is now {height} rows high. {advice}"
            )
        return (
            f"'{action}' moved the {before.piece} (rotation {after.rotation}, columns "
            f"{min(c for _, c in after.cells())}-{max(c for _, c in after.cells())}); nothing placed yet. "
            "Keep steering it to the planned spot, then hard drop."
        )
