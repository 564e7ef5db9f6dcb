"""How the simulated model plays a VGDL game, in GVGAI-LLM's answer format (``Action: <number>`` and a
one-line ``Reason:``).

It reads the map the way the prompt gives it: the legend, its avatar's (row, col), and what it must
do to win (the win conditions of the game's TerminationSet, with the nearest sprite they count). It
plans with the search player (:class:`engine.bots.mcts.MctsBot`, a small seeded budget) and writes that
plan as a believable trace. Its slips are the failures GVGAI-LLM reports for real models, each written
from the misreading behind it:

* a vertical flip: it reads "up" as row + 1 and walks the wrong way (a wasted move);
* a wall read as floor: it walks into something that blocks it (a wasted move);
* ACTION_NIL near the goal, "waiting for the right moment" (a wasted move);
* an action the avatar does not have (ACTION_USE for an avatar without a weapon; illegal).

Its reflection says what the last action did to the avatar, the score and the world, and whether it
was a meaningful step (:mod:`engine.games.vgdl.metrics`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.bots.mcts import MctsBot
from engine.core import Action
from engine.games.vgdl import metrics
from engine.games.vgdl.rules import VgdlState
from engine.llm.simstyle import (
    Analysis,
    SimBehaviour,
    SimContext,
    fmt_value,
    last_position,
    position,
    slip_kind,
)
from engine.players import Observation

__all__ = ["VgdlSim"]

_MOVES = {"ACTION_UP": (-1, 0), "ACTION_DOWN": (1, 0), "ACTION_LEFT": (0, -1), "ACTION_RIGHT": (0, 1)}
_FLIP = {"ACTION_UP": "ACTION_DOWN", "ACTION_DOWN": "ACTION_UP",
         "ACTION_LEFT": "ACTION_RIGHT", "ACTION_RIGHT": "ACTION_LEFT"}


def _at(pos: tuple[int, int] | None) -> str:
    return "nowhere (my avatar is gone)" if pos is None else f"(row {pos[0]}, col {pos[1]})"


def _way(src: tuple[int, int], dst: tuple[int, int]) -> str:
    """``"2 rows down and 3 columns left"``, or ``"right here"``."""
    dr, dc = dst[0] - src[0], dst[1] - src[1]
    parts = []
    if dr:
        parts.append(f"{abs(dr)} row{'s' if abs(dr) > 1 else ''} {'down' if dr > 0 else 'up'}")
    if dc:
        parts.append(f"{abs(dc)} column{'s' if abs(dc) > 1 else ''} {'right' if dc > 0 else 'left'}")
    return " and ".join(parts) or "right here"


def goals(state: VgdlState) -> list[tuple[str, tuple[int, int] | None]]:
    """The win conditions in words, each with the nearest sprite it counts (``None``: none on the map
    or no avatar): ``[("no crate may remain", (2, 5))]``."""
    found: list[tuple[str, tuple[int, int] | None]] = []
    game = state.compiled
    pos = state.avatar_pos
    for term in game.terminations:
        if not term.win:
            continue
        if term.cls == "Timeout":
            found.append((f"survive until tick {term.limit}", None))
            continue
        names = " or ".join(term.names) or "the counted sprites"
        words = (f"no {names} may remain" if term.limit == 0
                 else f"at most {term.limit} {names} may remain")
        near = None
        if pos is not None:
            cells = [(s[2], s[3]) for s in state.sprites if s[1] in term.counted]
            if cells:
                near = min(cells, key=lambda c: (abs(c[0] - pos[0]) + abs(c[1] - pos[1]), c))
        found.append((words, near))
    return found


class VgdlSim(SimBehaviour):
    """The simulated player of every VGDL game."""

    #: The search player's budget per call (small: a model answers in seconds, not minutes).
    iterations = 80
    rollout_depth = 8

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        #: The search's expected line of play at the last analysis (the plan the trace states).
        self._line = ""

    # -- judgement ------------------------------------------------------------------------------

    async def analyse(self, ctx: SimContext, rng: random.Random, bot: str | None) -> Analysis:
        state = position(ctx, VgdlState)
        if state is None or not state.legal_actions(ctx.seat):
            return await super().analyse(ctx, rng, bot)
        player = MctsBot(self.game, rng.randrange(2**31), iterations=self.iterations,
                         rollout_depth=self.rollout_depth)
        legal = tuple(state.legal_actions(ctx.seat))
        decision = await player.act(Observation(ctx.game, state, ctx.seat, legal, ctx.history))
        values = {a: float(v) for a, v in (decision.values or {}).items()}
        best = decision.action if decision.action is not None else legal[0]
        self._line = " ".join(str(a) for a in decision.extra.get("line", [])[:4])
        return Analysis(best, values or {best: 0.0}, "search")

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, list[str]]) -> Action:
        """The search's best move, unless it walks into something while a move that does not is
        valued nearly as well (a model reading the map does not walk into a wall it can see)."""
        state = position(ctx, VgdlState)
        best = analysis.best
        if state is None or best not in _MOVES or not self._blocked(state, best):
            return best
        free = [a for a in analysis.values if a in _MOVES and not self._blocked(state, a)]
        if not free:
            return best
        alternative = max(free, key=lambda a: analysis.values[a])
        return alternative if analysis.values[alternative] >= analysis.values[best] - 0.05 else best

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        state = position(ctx, VgdlState)
        if state is None or state.avatar_pos is None:
            return super().slip(ctx, analysis, rng)
        legal = state.legal_actions(ctx.seat)
        options: list[tuple[Action, str]] = []
        if analysis.best in _FLIP and _FLIP[analysis.best] in legal:
            options.append((_FLIP[analysis.best], "wasted flip"))
        blocked = [a for a in legal if a in _MOVES and self._blocked(state, a)]
        if blocked:
            options.append((rng.choice(blocked), "wasted wall"))
        if "ACTION_NIL" in legal and analysis.best != "ACTION_NIL":
            options.append(("ACTION_NIL", "wasted nil"))
        if "ACTION_USE" not in legal:
            options.append(("ACTION_USE", "illegal"))
        if not options:
            return analysis.best, ""
        return rng.choice(options)

    @staticmethod
    def _blocked(state: VgdlState, action: Action) -> bool:
        try:
            return state.apply(action).avatar_pos == state.avatar_pos
        except Exception:  # an action this state cannot take is not a wall
            return False

    # -- words ----------------------------------------------------------------------------------

    def situation(self, ctx: SimContext) -> str:
        state = position(ctx, VgdlState)
        if state is None:
            return super().situation(ctx)
        return (f"My avatar is at {_at(state.avatar_pos)}; score {fmt_value(state.game_score)}, step "
                f"{state.tick} of {state.max_steps}.")

    def legend_line(self, state: VgdlState) -> str:
        shown = [f"'{ch}' {name}" for ch, name in state.legend.items() if ch != "."]
        return "Legend: " + ", ".join(shown) + "; '.' is empty floor." if shown else ""

    def goal_lines(self, state: VgdlState) -> list[str]:
        lines = []
        pos = state.avatar_pos
        for words, near in goals(state):
            if near is not None and pos is not None:
                lines.append(f"To win, {words}. The nearest is at {_at(near)}, {_way(pos, near)} from me.")
            else:
                lines.append(f"To win, {words}.")
        return lines

    def _named(self, state: VgdlState, action: Action) -> str:
        if action not in state.actions:
            return f"Action {action}"
        return f"Action {self._index(state, action)} ({action})"

    def _index(self, state: VgdlState, action: Action) -> str:
        return str(state.actions.index(action)) if action in state.actions else action

    def reasoning(self, ctx: SimContext, analysis: Analysis, action: Action, slip: str,
                  answers: Mapping[int, list[str]]) -> str:
        state = position(ctx, VgdlState)
        if state is None:
            return super().reasoning(ctx, analysis, action, slip, answers)
        lines = [line for line in (self.legend_line(state), self.situation(ctx)) if line]
        lines += self.goal_lines(state)
        if not slip:
            ranked = sorted(analysis.values.items(), key=lambda kv: kv[1], reverse=True)
            if len(ranked) > 1:
                lines.append("Looking a few steps ahead: " + ", ".join(
                    f"{a} {v:+.2f}" for a, v in ranked[:5]) + ".")
            if self._line:
                lines.append(f"Plan: {self._line}.")
            lines.append(f"{self.plan_words(state, action)} {self._named(state, action)}.")
        else:
            lines.append(f"{self.slip_words(ctx, action, slip)} {self._named(state, action)}.")
        return "\n".join(lines)

    def plan_words(self, state: VgdlState, action: Action) -> str:
        pos = state.avatar_pos
        if action == "ACTION_USE":
            return "Something worth hitting is in line with me, so I use my weapon."
        if action == "ACTION_NIL":
            return "Every move looks worse than waiting here for one step."
        if pos is None or action not in _MOVES:
            return f"{action} looks best."
        if self._blocked(state, action):
            return f"{action} keeps me where I am for now, facing the way I mean to go."
        dr, dc = _MOVES[action]
        to = (pos[0] + dr, pos[1] + dc)
        for _, near in goals(state):
            if near is not None and near == to:
                name = state.legend.get(state.ascii_rows[to[0]][to[1]], "goal sprite")
                return f"The {name} I need is right next to me at {_at(to)}, so I move onto it."
            if near is not None:
                closer = (abs(near[0] - to[0]) + abs(near[1] - to[1])
                          < abs(near[0] - pos[0]) + abs(near[1] - pos[1]))
                if closer:
                    return f"Moving to {_at(to)} takes me closer to the nearest goal sprite at {_at(near)}."
                return f"Moving to {_at(to)} goes around what stands between me and {_at(near)}."
        return f"Moving to {_at(to)} keeps me safe and scores best."

    def slip_words(self, ctx: SimContext, action: Action, slip: str) -> str:
        state = position(ctx, VgdlState)
        again = ""
        if slip.endswith("again"):
            again = " It did not work last time, but I still read the map that way."
        if state is None or state.avatar_pos is None:
            return super().slip_words(ctx, action, slip)
        pos = state.avatar_pos
        kind = slip.split(" ")[1] if " " in slip and slip_kind(slip) == "wasted" else slip_kind(slip)
        if kind == "flip" and action in _MOVES:
            dr, dc = _MOVES[_FLIP[action]]
            return (f"The cell I want is at (row {pos[0] + dr}, col {pos[1] + dc}), which is "
                    f"{action.removeprefix('ACTION_').lower()} of me.{again}")
        if kind == "wall" and action in _MOVES:
            dr, dc = _MOVES[action]
            return f"(row {pos[0] + dr}, col {pos[1] + dc}) looks like open floor; I can step there.{again}"
        if kind == "nil":
            return f"I am close to the goal; waiting one step for the right moment is safest.{again}"
        if slip_kind(slip) == "illegal":
            return f"I should interact with what is next to me, so I use {action}.{again}"
        return super().slip_words(ctx, action, slip)

    def thought(self, ctx: SimContext, analysis: Analysis, action: Action, slip: str) -> str:
        state = position(ctx, VgdlState)
        if state is None:
            return super().thought(ctx, analysis, action, slip)
        if slip:
            return self.slip_words(ctx, action, slip)
        return self.plan_words(state, action)

    def answer(self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, broken: bool,
               answers: Mapping[int, list[str]], rng: random.Random) -> str:
        state = position(ctx, VgdlState)
        if state is None:
            return super().answer(ctx, analysis, action, slip, broken, answers, rng)
        if broken:
            return self.broken(ctx, rng)
        return f"Action: {self._index(state, action)}\nReason: {self.thought(ctx, analysis, action, slip)}"

    def broken(self, ctx: SimContext, rng: random.Random) -> str:
        """A format slip that names no action and no number anywhere."""
        variant = rng.randrange(3)
        if variant == 0:
            return "Reason: heading for the goal while keeping clear of danger."
        if variant == 1:
            return "Action: the one that moves me toward the goal\nReason: it shortens the path."
        return "The goal is close and the way looks clear, so the next move should follow the plan."

    def blind(self, prompt: str, rng: random.Random) -> str:
        return "Action: 0\nReason: I cannot read the map clearly, so I wait and look again."

    def reflection(self, ctx: SimContext | None) -> str:
        after = last_position(ctx, VgdlState)
        if ctx is None or after is None:
            return super().reflection(ctx)
        last = ctx.history[-1]
        before = last.state
        if not isinstance(before, VgdlState):
            return super().reflection(ctx)
        action = next(iter(last.actions.values()), "ACTION_NIL")
        return reflect_step(before, after, action, before.recent)


def reflect_step(before: VgdlState, after: VgdlState, action: Action,
                 recent: Sequence[tuple[int, int] | None] = ()) -> str:
    """What ``action`` did, in the words of a player's reflection."""
    flags: dict[str, Any] = metrics.step_flags(before, after, action, recent_positions=recent)
    parts = []
    if after.avatar_pos is None:
        parts.append(f"{action} cost me my avatar: it was destroyed at {_at(before.avatar_pos)}.")
    elif flags["moved"]:
        parts.append(f"{action} moved me from {_at(before.avatar_pos)} to {_at(after.avatar_pos)}.")
    elif action in _MOVES:
        parts.append(f"{action} did not move me: something blocks that way (or I only turned).")
    else:
        parts.append(f"{action} left me at {_at(after.avatar_pos)}.")
    gain = after.game_score - before.game_score
    if gain:
        parts.append(f"The score {'rose' if gain > 0 else 'fell'} by {fmt_value(abs(gain))}.")
    if flags["entity_changed"]:
        parts.append("Something on the map disappeared, appeared or changed.")
    if after.won is True:
        parts.append("The game is won.")
    elif after.won is False:
        parts.append("The game is lost.")
    elif flags["cancel_window"]:
        parts.append("That undid one of my last moves: not a meaningful step. Commit to a direction.")
    elif not flags["meaningful"]:
        parts.append("Not a meaningful step: read the cells around me before the next move.")
    else:
        parts.append("A meaningful step; keep to the plan.")
    return " ".join(parts)
