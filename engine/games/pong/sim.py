"""How the simulated model plays Pong, in GameBot's answer format: ``**[Observation]**`` with the ball's
direction, ``**[Thought]**`` with the line through the last two frames, its rebounds off the walls and
the decision, then ``**[Action]**`` with ``1 - Move Up`` (or ``0 - Stay Still``, ``2 - Move Down``).

It answers the two intermediate questions from the game's own oracles, wrong at the client's rate the
way models get them wrong (:mod:`engine.games.pong.questions`: the vertical sense misread, an
arithmetic slip, a forgotten rebound), and its move follows from what it believes, by the prompt's
rule: while it believes the ball comes towards it, it moves until its paddle covers the predicted y;
otherwise it returns to the middle of the court. A slip (the client's illegal-move rate; Pong has no
illegal move) is the y axis read upside down in the decision: it moves away from the ball, or presses
into a wall it is already against.

Everything is written in the seat's own view: seat 1 is told it is the right paddle, as the prompt
says, and reasons about the mirrored frames it was shown.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.core import Action
from engine.games.pong.questions import direction_of, last_two
from engine.games.pong.rules import (
    CENTRE_Y,
    LOWER_WALL,
    NUMBERS,
    PADDLE_LENGTH,
    PHRASES,
    RIGHT_X,
    UPPER_WALL,
    PongState,
)
from engine.llm.simstyle import Analysis, SimBehaviour, SimContext, slip_kind
from engine.questions import format_number

__all__ = ["PongSim", "decide", "trajectory"]

_OPPOSITE = {"up": "down", "down": "up"}


def _n(value: float) -> str:
    """A number as the trace writes it: whole numbers plainly, others to two decimals."""
    return format_number(round(float(value), 2))


def _p(value: float) -> str:
    """A number inside a formula: negative ones in parentheses."""
    return f"({_n(value)})" if value < 0 else _n(value)


def _line(slope: float, b: float) -> str:
    """``y = 2x - 6``, written the usual way."""
    m = "" if slope == 1 else "-" if slope == -1 else _n(slope)
    if b == 0:
        return f"y = {m}x"
    return f"y = {m}x {'-' if b < 0 else '+'} {_n(abs(b))}"


def decide(target: float, low: int) -> Action:
    """The prompt's rule: move until the paddle ``[low, low + 16]`` covers ``target``."""
    if target > low + PADDLE_LENGTH:
        return "up"
    if target < low:
        return "down"
    return "stay"


def trajectory(p1: tuple[int, int], p2: tuple[int, int], believed: float | None) -> list[str]:
    """The ``[Calculate]`` / ``[Check]`` lines of the prompt's method: the line through the last two
    positions, then one rebound per round until the y at x = 140 lies between the walls. A wrong
    belief shows as a slip in the last substitution (or as stopping at the wall)."""
    (x1, y1), (x2, y2) = p1, p2
    slope = (y2 - y1) / (x2 - x1)
    b = y2 - slope * x2
    lines = [
        "[Calculate the ball's trajectory]",
        f"Using the last two frames, (x1, y1) = ({x2}, {y2}) and (x2, y2) = ({x1}, {y1}): "
        f"m = ({y1} - {y2}) / ({x1} - {x2}) = {_n(slope)}. "
        f"b = y1 - m * x1 = {y2} - {_p(slope)} * {x2} = {_n(b)}. "
        f"So {_line(slope, b)}.",
    ]
    rounds = 0
    while True:
        value = slope * RIGHT_X + b
        final = LOWER_WALL <= value <= UPPER_WALL or rounds >= 6
        shown = believed if final and believed is not None else value
        lines.append(f"Substitute x = {RIGHT_X}: y' = {_p(slope)} * {RIGHT_X} + {_p(b)} = {_n(shown)}.")
        lines.append("[Check]")
        if final:
            lines.append(f"The valid range is {LOWER_WALL} <= y <= {UPPER_WALL}; {_n(shown)} is valid.")
            return lines
        if believed is not None and believed in (LOWER_WALL, UPPER_WALL):
            # The forgotten rebound: it stops at the wall the line runs into.
            lines.append(
                f"{_n(value)} is beyond the wall, so the ball reaches my side at the wall: "
                f"y' = {_n(believed)}."
            )
            return lines
        wall = UPPER_WALL if value > UPPER_WALL else LOWER_WALL
        side = "> 176" if wall == UPPER_WALL else "< 16"
        hit_x = (wall - b) / slope
        lines.append(
            f"{_n(value)} {side} is invalid: the ball rebounds off the "
            f"{'upper' if wall == UPPER_WALL else 'lower'} wall."
        )
        lines.append("[Calculate the ball's trajectory]")
        slope, b = -slope, wall + slope * hit_x
        lines.append(
            f"At y = {wall}, x = {_n(hit_x)}. After the rebound the slope is {_n(slope)}, and "
            f"b = {wall} - {_p(slope)} * {_n(hit_x)} = {_n(b)}: {_line(slope, b)}."
        )
        rounds += 1


class PongSim(SimBehaviour):
    """Pong's simulated player."""

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        self._planned: Action = "stay"

    # -- beliefs and the move ---------------------------------------------------------------------

    @staticmethod
    def _view(ctx: SimContext) -> tuple[tuple[int, int], tuple[int, int], int]:
        """The last two ball positions and the paddle's low end, as the seat was shown them."""
        state = ctx.state
        assert isinstance(state, PongState)
        p1, p2 = last_two(state, ctx.seat)
        low = state.seat_frames(ctx.seat)[-1][2]
        return p1, p2, low

    def target(self, ctx: SimContext, answers: Mapping[int, Any]) -> tuple[float, str]:
        """Where it means its paddle to be, and why: the predicted y when it believes the ball comes
        towards it, else the middle of the court."""
        p1, p2, _low = self._view(ctx)
        state = ctx.state
        if isinstance(state, PongState) and state.wait > 0:
            return float(CENTRE_Y), "waiting"
        if p1[0] == p2[0]:
            return float(CENTRE_Y), "unclear"
        direction = str(answers.get(1, direction_of(p2[0] - p1[0], p2[1] - p1[1])))
        if direction.lower().startswith("right") and answers.get(2) is not None:
            return float(answers[2]), "intercept"
        return float(CENTRE_Y), "away"

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, Any]) -> Action:
        goal, _why = self.target(ctx, answers)
        self._planned = decide(goal, self._view(ctx)[2])
        return self._planned

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """The y axis read upside down: the opposite move; at a wall, pressing into it."""
        wasted = [a for a in ("up", "down") if ctx.state.annotate(a, ctx.seat)]
        if wasted and rng.random() < 0.5:
            return wasted[0], "wasted"
        if self._planned in _OPPOSITE:
            return _OPPOSITE[self._planned], "flipped"
        return analysis.best, ""

    # -- words --------------------------------------------------------------------------------------

    def _observation(self, ctx: SimContext, answers: Mapping[int, Any]) -> list[str]:
        (x1, y1), (x2, y2), _low = self._view(ctx)
        lines = ["**[Observation]**"]
        state = ctx.state
        if isinstance(state, PongState) and state.wait > 0:
            lines.append(
                f"The ball is at ({x2}, {y2}) and waits at the centre to be served, so it has no "
                "direction yet."
            )
        elif x1 == x2:
            lines.append(
                f"The ball's x-coordinate is {x2} in both of the last two frames: it must have "
                "rebounded off a paddle in between, so its direction is unclear."
            )
        else:
            h, v = str(answers.get(1, direction_of(x2 - x1, y2 - y1))).split()
            vertical = (
                f"Its y-coordinate stays at {y2} (a rebound off a wall in between)"
                if y1 == y2
                else f"Its y-coordinate goes from {y1} to {y2}, so it is moving "
                f"{'upwards' if v == 'Up' else 'downwards'}"
            )
            lines.append(
                f"Based on the current coordinates of the ball ({x2}, {y2}), the ball's x-coordinate goes "
                f"from {x1} to {x2}, so it is moving towards the {h.lower()}. {vertical}."
            )
        lines += self._tag(1, answers)
        return lines

    def _tag(self, key: int, answers: Mapping[int, Any]) -> list[str]:
        if key not in answers or (self.asked is not None and key not in self.asked):
            return []
        return self.tags({key: answers[key]})

    def _thought(self, ctx: SimContext, action: Action, slip: str, answers: Mapping[int, Any]) -> list[str]:
        p1, p2, low = self._view(ctx)
        goal, why = self.target(ctx, answers)
        lines = ["**[Thought]**"]
        believed = answers.get(2)
        if p1[0] != p2[0]:
            lines += trajectory(p1, p2, None if believed is None else float(believed))
        lines.append("[Decision]")
        span = f"[{low}, {low + PADDLE_LENGTH}]"
        if why == "waiting":
            lines.append(f"The ball is not moving yet, so I keep my paddle in the middle (y = {CENTRE_Y}).")
        elif why == "unclear":
            lines.append(f"Without a clear direction I keep my paddle in the middle (y = {CENTRE_Y}).")
        elif why == "away":
            lines.append(
                f"The ball is moving away from me, so I position my paddle in the middle of the "
                f"screen (y = {CENTRE_Y})."
            )
        else:
            lines.append(f"The y-coordinate my paddle should cover is {_n(goal)}.")
        lines.append(self._compare(goal, low, span, action, slip))
        lines += self._tag(2, answers)
        return lines

    def _compare(self, goal: float, low: int, span: str, action: Action, slip: str) -> str:
        high = low + PADDLE_LENGTH
        phrase = f"{NUMBERS[action]} - {PHRASES[action]}"
        if slip_kind(slip) == "flipped":
            if action == "down":
                return (
                    f"My paddle covers {span}; {_n(goal)} > {high} puts my paddle above the ball's "
                    f"path (a larger y is lower), so the action is {phrase}."
                )
            return (
                f"My paddle covers {span}; {_n(goal)} < {low} puts my paddle below the ball's path "
                f"(a larger y is lower), so the action is {phrase}."
            )
        if slip_kind(slip) == "wasted":
            return f"My paddle covers {span}; I want more room on this side, so the action is {phrase}."
        if action == "up":
            return (
                f"My paddle covers {span}; {_n(goal)} > {high}, so my paddle is lower than the desired "
                f"place and the action is {phrase}."
            )
        if action == "down":
            return (
                f"My paddle covers {span}; {_n(goal)} < {low}, so my paddle is higher than the desired "
                f"place and the action is {phrase}."
            )
        return f"My paddle covers {span}, which already includes {_n(goal)}, so the action is {phrase}."

    def answer(
        self,
        ctx: SimContext,
        analysis: Analysis,
        action: Action,
        slip: str,
        broken: bool,
        answers: Mapping[int, Any],
        rng: random.Random,
    ) -> str:
        lines = self._observation(ctx, answers)
        if broken:
            return "\n".join([*lines, "", self.broken(ctx, rng)])
        lines += ["", *self._thought(ctx, action, slip, answers)]
        lines += ["", "**[Action]**", f"{NUMBERS[action]} - {PHRASES[action]}"]
        return "\n".join(lines)

    def broken(self, ctx: SimContext, rng: random.Random) -> str:
        """The answer cut short in the middle of the calculation: no action anywhere."""
        variant = rng.randrange(2)
        if variant == 0:
            return "**[Thought]**\n[Calculate the ball's trajectory]\nUsing the last two frames, the slope is"
        return "**[Thought]**\nThe ball's path needs another rebound check before I can commit to a movement."

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, Any]
    ) -> str:
        (x1, y1), (x2, y2), low = self._view(ctx)
        goal, why = self.target(ctx, answers)
        lines = [
            f"I am the right paddle at x = {RIGHT_X}, covering [{low}, {low + PADDLE_LENGTH}].",
            f"Ball: ({x1}, {y1}) then ({x2}, {y2}).",
        ]
        if why == "intercept":
            lines.append(
                f"It comes towards me; the line with its rebounds meets x = {RIGHT_X} at y = {_n(goal)}."
            )
        elif why == "away":
            lines.append("It moves away from me: back to the middle.")
        else:
            lines.append("No clear direction yet: stay central.")
        lines.append(f"So: {PHRASES[action]}.")
        return "\n".join(lines)

    def blind(self, prompt: str, rng: random.Random) -> str:
        return "**[Action]**\n0 - Stay Still"

    def reflection(self, ctx: SimContext | None) -> str:
        if ctx is None or not ctx.history or not isinstance(ctx.history[-1].next_state, PongState):
            return super().reflection(ctx)
        after = ctx.history[-1].next_state
        assert isinstance(after, PongState)
        if after.scored is not None:
            won = "I scored" if after.scored == ctx.seat else "The opponent scored"
            return f"{won} the last point. Keep the paddle central until the serve shows its direction."
        (x1, _), (x2, _) = last_two(after, ctx.seat)
        if x2 > x1:
            return "The ball is coming towards me: predict where it meets x = 140 and get there early."
        return "The ball is moving away: return to the middle and watch for the rebound."
