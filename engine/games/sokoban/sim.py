"""How the simulated model plays Sokoban: it reads the board like a player does (boxes left, the box
it works on and the goal it takes it to, from the solver's plan), makes the mistakes models make in
Sokoban (walking into a wall it misread as floor, pushing a box into a corner it took for a way to a
goal), and reflects on what its last move did to the boxes."""

from __future__ import annotations

from collections.abc import Mapping

from engine.core import Action
from engine.games.sokoban.bots import plan
from engine.games.sokoban.rules import SokobanState
from engine.llm.simstyle import Analysis, SimBehaviour, SimContext, last_position, position, slip_kind

__all__ = ["SimSokoban"]


def _cell(state: SokobanState, index: int) -> str:
    r, c = state.level.coords(index)
    return f"({r},{c})"


class SimSokoban(SimBehaviour):
    """Sokoban's simulated player (answers in the Sokoban prompt's ``thought:`` / ``move:`` format)."""

    def situation(self, ctx: SimContext) -> str:
        state = position(ctx, SokobanState)
        if state is None:
            return super().situation(ctx)
        total = len(state.level.goals)
        return (
            f"{state.heading()}: I am at {_cell(state, state.player)}; {state.on_goals} of {total} boxes "
            "are on goals."
        )

    def focus(self, ctx: SimContext) -> str:
        """Which box the plan works on and where it goes (``""`` without a plan)."""
        state = position(ctx, SokobanState)
        if state is None:
            return ""
        found = plan(state)
        if found.box is None or found.goal is None:
            return ""
        box, goal = _cell(state, found.box), _cell(state, found.goal)
        if found.box == found.goal:
            return f"The box at {box} sits on its goal but has to make room first."
        return f"I am working on the box at {box}; it goes to the goal at {goal}."

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> str:
        lines = [self.situation(ctx)]
        focus = self.focus(ctx)
        if focus and not slip:
            lines.append(focus)
        state = position(ctx, SokobanState)
        if state is not None:
            for a in state.legal_actions(0):
                note = "" if slip and a == action else state.annotate(a)
                kind = state.outcome(a)
                said = {
                    "walk": "walks",
                    "push": "pushes a box",
                    "wall": "hits a wall",
                    "blocked": "is blocked",
                }
                lines.append(f"- {a}: {said[kind]}" + (f" ({note})" if note else ""))
        if slip:
            lines.append(f"{self.slip_words(ctx, action, slip)} I'll go with {action}.")
        else:
            lines.append(f"{action} keeps to that plan. I'll go with {action}.")
        return "\n".join(lines)

    def slip_words(self, ctx: SimContext, action: Action, slip: str) -> str:
        """A wasted move is a misread board (a wall read as floor); a deadlocking push is a box pushed
        where the model believes a goal is reachable."""
        state = position(ctx, SokobanState)
        if slip_kind(slip) != "wasted" or state is None:
            return super().slip_words(ctx, action, slip)
        again = " It did not work last time, but it still looks right." if slip.endswith("again") else ""
        kind = state.outcome(action)
        if kind == "push":
            to, d = state.target(action)
            return (
                f"Pushing the box at {_cell(state, to)} {action} to {_cell(state, to + d)} brings it "
                f"closer to a goal.{again}"
            )
        return f"The cell {action} of me at {_cell(state, state.player)} looks like open floor.{again}"

    def thought(self, ctx: SimContext, analysis: Analysis, action: Action, slip: str) -> str:
        if slip:
            return self.slip_words(ctx, action, slip)
        focus = self.focus(ctx)
        return f"{self.situation(ctx)} {focus or 'I look for a safe move.'} {action} follows the plan."

    def reflection(self, ctx: SimContext | None) -> str:
        after = last_position(ctx, SokobanState)
        if ctx is None or after is None:
            return super().reflection(ctx)
        last = ctx.history[-1]
        before = last.state
        if not isinstance(before, SokobanState):
            return super().reflection(ctx)
        action = ", ".join(str(a) for a in last.actions.values())
        if after.deadlocked:
            return (
                f"'{action}' pushed a box where it can never reach a goal: a deadlock. Before pushing, "
                "check that the box is not going into a corner or along a wall without a goal."
            )
        if after.cleared:
            return f"'{action}' solved the level. A new level starts: read its boxes and goals first."
        if after.player == before.player:
            return (
                f"'{action}' changed nothing (a wall or a blocked box): a wasted turn. Read the cells "
                "around me again and pick a move that walks or pushes."
            )
        if after.pushed:
            moved = next(iter(after.boxes - before.boxes))
            gained = after.on_goals - before.on_goals
            result = "onto a goal" if gained > 0 else "off a goal" if gained < 0 else "one cell on"
            return (
                f"'{action}' pushed a box to {_cell(after, moved)}, {result}; {after.on_goals} of "
                f"{len(after.level.goals)} boxes are on goals. Keep boxes away from corners and walls "
                "without goals."
            )
        return (
            f"'{action}' walked to {_cell(after, after.player)}. Walking is safe; plan the next push "
            "so that the box stays pushable towards its goal."
        )
