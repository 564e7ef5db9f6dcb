"""Super Mario Bros' built-in bot: a runner that holds right and jumps over what is ahead.

It reads only the state's facts (what lies ahead, whether Mario is in the air, the last action), as a
model with the text view would. On the ground it runs right and presses A when an enemy is up to
three blocks ahead, or a pipe, wall or gap up to two; it keeps A held while in the air, so its jumps
reach full height, and lets go of A for one action on landing, since the NES jumps only on a fresh
press. It is the simulated model's analysis and a baseline well above random play.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.bots.base import SearchBot
from engine.core import Action
from engine.games.mario.rules import BUTTONS_OF, MarioState, split_action
from engine.players import Observation

__all__ = ["RunnerBot", "danger_ahead"]

#: How far ahead (in blocks) each kind of thing makes the runner jump.
_REACH = {"pipe": 2, "wall": 2, "gap": 2}
_ENEMY_REACH = 3
#: With the durations option: frames a jump from the ground is held, and frames of anything else.
JUMP_FRAMES, LOOK_FRAMES = 30, 6
_HARMLESS = frozenset({"? block"})


def danger_ahead(state: MarioState) -> tuple[str, int] | None:
    """The nearest thing ahead the runner jumps for: ``(kind, blocks ahead)``, or ``None``."""
    for kind, away, _size in state.facts.ahead:
        if kind in _HARMLESS or away < 0:
            continue
        reach = _REACH.get(kind, _ENEMY_REACH)
        if away <= reach:
            return kind, away
    return None


def _holds_a(state: MarioState) -> bool:
    return state.action is not None and "a" in BUTTONS_OF[split_action(state.action)[0]]


class RunnerBot(SearchBot):
    """Runs right and jumps over enemies, pipes, walls and gaps (see the module docstring)."""

    spec = "runner"
    label = "Runner"

    def plan(self, state: MarioState) -> tuple[Action, str]:
        """The action and why, in words."""
        facts = state.facts
        holding_a = _holds_a(state)
        if holding_a and not facts.airborne and (state.parent is None or not _holds_a(state.parent)):
            # A was just pressed: the jump leaves the ground on the next frame.
            return "right_a", "the jump is starting: keep A held"
        if facts.airborne:
            if holding_a:
                return "right_a", "in the air: keep A held to jump as high as possible"
            return "right", "in the air: keep moving right"
        danger = danger_ahead(state)
        if danger is None:
            return "right", "nothing close ahead: run right"
        kind, away = danger
        where = f"{kind} {away} block{'s' if away != 1 else ''} ahead" if away else f"{kind} level with Mario"
        if holding_a:
            return "right", f"{where}, but A is still held: release it so the next press jumps"
        return "right_a", f"{where}: jump"

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, MarioState)
        best, _ = self.plan(state)
        held = [self.held(state, a) for a in ("right", "right_a", "right_b", "noop")]
        values = {a: 0.0 for a in held if a in observation.legal_actions}
        values[self.held(state, best)] = 1.0
        return values

    @staticmethod
    def held(state: MarioState, name: Action) -> Action:
        """``name`` as this game writes actions. With the durations option the runner names a length:
        a jump from the ground holds A for 30 frames (a full jump), everything else 6 frames (it looks
        again before a block has gone by)."""
        if not state.max_frames:
            return name
        leaps = "a" in BUTTONS_OF[name] and not state.facts.airborne
        return state.held(name, JUMP_FRAMES if leaps else LOOK_FRAMES)

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        state = observation.state
        assert isinstance(state, MarioState)
        return f"{action}: {self.plan(state)[1]}"
