"""How the simulated model plays Super Mario Bros: it reads the text view (what is ahead, whether
Mario is in the air), follows the runner's plan, and slips the way models do in LMGame-Bench: it
jumps late (a plain ``right`` with an enemy or a pipe right ahead) or lets go of A mid-jump, so the
jump falls short. Its reflections look at the distance gained and the lives left."""

from __future__ import annotations

import random

from engine.core import Action
from engine.games.mario.bots import RunnerBot, danger_ahead
from engine.games.mario.rules import MarioState, describe, split_action
from engine.llm.simstyle import Analysis, SimBehaviour, SimContext, slip_kind

__all__ = ["MarioSim"]


class MarioSim(SimBehaviour):
    """Super Mario Bros' simulated player (answers in the prompt's ``thought:`` / ``move:`` format)."""

    def situation(self, ctx: SimContext) -> str:
        state = ctx.state
        if not isinstance(state, MarioState):
            return super().situation(ctx)
        f = state.facts
        where = "in the air" if f.airborne else "on the ground"
        ahead = describe(f.ahead[:3]) or "nothing close"
        return f"Mario is {where} at x = {f.x} in {f.world}-{f.stage} with {f.lives} lives; ahead: {ahead}."

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """A late jump (``right`` where the runner jumps) or a jump cut short (A let go mid-air)."""
        name, frames = split_action(analysis.best)
        if name in ("right_a", "right_a_b"):
            state = ctx.state
            right = state.held("right", frames) if isinstance(state, MarioState) else "right"
            return right, "wasted"
        return analysis.best, ""

    def slip_words(self, ctx: SimContext, action: Action, slip: str) -> str:
        state = ctx.state
        if slip_kind(slip) != "wasted" or not isinstance(state, MarioState):
            return super().slip_words(ctx, action, slip)
        if state.facts.airborne:
            return "Mario is already high enough; I can let go of A and keep drifting right."
        danger = danger_ahead(state)
        what = f"the {danger[0]}" if danger else "the obstacle"
        return f"There is still room before {what}; I keep walking right and jump next turn."

    def thought(self, ctx: SimContext, analysis: Analysis, action: Action, slip: str) -> str:
        if slip:
            return self.slip_words(ctx, action, slip)
        state = ctx.state
        if not isinstance(state, MarioState):
            return super().thought(ctx, analysis, action, slip)
        reason = RunnerBot(self.game).plan(state)[1]
        return f"{self.situation(ctx)} {reason[0].upper()}{reason[1:]}, so {action}."

    def reflection(self, ctx: SimContext | None) -> str:
        if ctx is None or not ctx.history:
            return super().reflection(ctx)
        last = ctx.history[-1]
        before, after = last.state, last.next_state
        if not (isinstance(before, MarioState) and isinstance(after, MarioState)):
            return super().reflection(ctx)
        action = ", ".join(str(a) for a in last.actions.values())
        b, a = before.facts, after.facts
        if a.deaths > b.deaths:
            return (
                f"'{action}' ended with Mario losing a life ({a.lives} left). The danger ahead was too close "
                "for that action: jump earlier and keep A held longer next time."
            )
        gain = a.distance - b.distance
        if gain > 0:
            return f"'{action}' moved Mario {gain} units further right (distance {a.distance}). Keep going."
        if a.x <= b.x and not a.airborne:
            return (
                f"'{action}' did not move Mario forward (x {a.x}): something blocks the way. "
                "Jump with A held for several turns to clear it."
            )
        return f"'{action}' kept Mario safe without new distance; head right again."
