"""Super Mario Bros, as LMGame-Bench plays it, on the NES emulator nes-py with the ROM that
gym-super-mario-bros ships.

**Actions** are LMGame-Bench's thirteen button combinations (:data:`ACTIONS`: ``noop``, ``right``,
``right_a`` ... ``up``; ``a`` jumps, ``b`` runs). Each is held for the game's ``frames`` option
(default 1: one NES frame, so a person's tick is the console's 1/60 s); a model that should sustain
a jump for 13 or 30 frames plays the same action on consecutive steps, or the game is set up with a
larger ``frames`` (the tick grows with it). With the ``durations`` option an action names how long it
is held, as LMGame-Bench's agents answer ``(right_a, 13)``: the actions are then ``"right_a 13"``
(a name, a space and 1 to ``max_frames`` frames), so the player chooses the duration of every
action; a bare name is still accepted and held ``frames`` frames. When Mario cannot be moved after
an action (his death, a level change, a pipe), the emulator runs on to the first frame he can
(``skip_animations``).

**Score.** The raw score is LMGame-Bench's: the horizontal distance Mario gains, in game units
(pixels; 16 make a block), summed over every level played, until three lives are lost or the game
ends. In a level, distance counts once: after a death Mario earns again only beyond the furthest point
he had reached (the reference implementation's "increase in max x"). The progress score is the
obstacles passed: pipes and gaps whose right edge Mario's furthest point crossed, and enemies that
were ahead of him and are left behind.

**The end.** A run ends when three lives are lost, when the game itself ends, or, as in LMGame-Bench's
reference implementation (100 steps without progress), when Mario has not passed his furthest point
since his last start for ``stuck_seconds`` of play (default 5; 0 turns the rule off). The paper's stop
rule is only the first two ("until all three lives are lost or the final level is completed"), and the
reference switched its stuck rule off for Super Mario Bros: ``stuck_seconds=0`` plays that rule (the
game's own timer still costs Mario a life when he stands still).

**States.** The emulator is not an immutable value, so a state keeps only its seed and options, the
action that led to it with its parent (the whole history), and the numbers read from memory after it
(:class:`~engine.games.mario.emulator.Facts`). ``apply`` does not run the emulator;
the first question about the new state does (:mod:`.emulator` explains how a machine is moved to a
state, and what going back costs). Two states are equal when they have the same seed, options and
actions. ``to_json`` writes the actions run-length encoded (``"right*40 right_a*13 noop"``) with the
facts; ``state_from_json`` rebuilds the history and replays it when the emulator is needed, and says
so when the replay does not reach the recorded facts. Nothing of the ROM or of the emulator's memory
is written anywhere. A state's JSON grows with the number of action runs (about 8 bytes a run),
and a session writes the state of every step: a five-minute game played by a person holds some
hundreds of runs, so its session grows by a few kilobytes a step by the end (keyframes, with only
the actions in between, would keep that flat).

Super Mario Bros has no randomness of its own once the buttons are fixed; the seed is recorded with
the state (it seeds the players) and is part of its identity.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from engine.core import (
    Action,
    Game,
    IllegalActionError,
    InvalidActionError,
    JsonDict,
    Seat,
    State,
    StateFormatError,
    Transition,
    seats_of,
)
from engine.games._common import reading_state
from engine.games.mario.emulator import LIVES, POOL, Facts, Lineage, Machine, Pool, controller_bits, rgb
from engine.options import Option

__all__ = [
    "ACTIONS", "BUTTONS_OF", "DEFAULT_FRAMES", "DEFAULT_MAX_FRAMES", "Mario", "MarioState", "decode_runs",
    "encode_runs", "read_action", "read_frames", "split_action",
]

#: LMGame-Bench's action names, in its order; each is the set of NES buttons it holds.
BUTTONS_OF: Mapping[Action, tuple[str, ...]] = {
    "noop": (),
    "right": ("right",),
    "right_a": ("right", "a"),
    "right_b": ("right", "b"),
    "right_a_b": ("right", "a", "b"),
    "a": ("a",),
    "b": ("b",),
    "left": ("left",),
    "left_a": ("left", "a"),
    "left_b": ("left", "b"),
    "left_a_b": ("left", "a", "b"),
    "down": ("down",),
    "up": ("up",),
}
ACTIONS: tuple[Action, ...] = tuple(BUTTONS_OF)
_BITS = {action: controller_bits(buttons) for action, buttons in BUTTONS_OF.items()}
DEFAULT_FRAMES = 1
#: The longest hold an action may name with the ``durations`` option: LMGame-Bench's prompts ask for a
#: ``frame_count`` from 1 to 30.
DEFAULT_MAX_FRAMES = 30
#: LMGame-Bench's reference implementation ends an episode after 100 steps without progress; at the
#: few frames its agents hold an action, that is some seconds of play.
DEFAULT_STUCK_SECONDS = 5
NES_FPS = 60
_KEYS = itertools.count(1)
_RUN = re.compile(r"^([a-z_]+)(?:@(\d+))?(?:\*(\d+))?$")
_HELD = re.compile(r"^([a-z_]+) (\d{1,3})$")


def split_action(action: Action) -> tuple[Action, int | None]:
    """``"right_a 13"`` -> ``("right_a", 13)``; ``"right_a"`` -> ``("right_a", None)``."""
    found = _HELD.match(action)
    if found is None:
        return action, None
    return found.group(1), int(found.group(2))


def encode_runs(runs: tuple[tuple[Action, int], ...]) -> str:
    """``(("right", 40), ("right_a 13", 2), ("noop", 1))`` -> ``"right*40 right_a@13*2 noop"``."""
    return " ".join((a.replace(" ", "@")) if n == 1 else f"{a.replace(' ', '@')}*{n}" for a, n in runs)


def decode_runs(text: str) -> list[Action]:
    """The actions of a run-length encoded history (``action``, ``action@frames``, either ``*count``).

    Raises:
        ValueError: a run is not ``action[@frames][*count]`` with a Super Mario Bros action.
    """
    actions: list[Action] = []
    for i, part in enumerate(text.split()):
        found = _RUN.match(part)
        if found is None or found.group(1) not in BUTTONS_OF or "0" in (found.group(2), found.group(3)):
            raise ValueError(
                f"run {i + 1} ({part!r}) is not 'action', 'action@frames' or either with '*count' "
                f"({', '.join(ACTIONS)})"
            )
        action = found.group(1) if found.group(2) is None else f"{found.group(1)} {int(found.group(2))}"
        actions.extend([action] * int(found.group(3) or 1))
    return actions


@dataclasses.dataclass(slots=True)
class _Memo:
    """What a state learns when first needed: the facts after its action, its run-length history."""

    facts: Facts | None = None
    runs: tuple[tuple[Action, int], ...] | None = None


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class MarioState(State):
    """A moment of a Super Mario Bros run (see the module docstring for what it holds).

    Attributes:
        seed: The run's seed.
        frames: Frames each action is held for.
        skip: Whether animations run on after an action until Mario can move.
        stuck_frames: Frames Mario may go without a new furthest point in his current life before the
            run ends (0: never).
        action: The action that led here (``None`` at the start).
        step: Actions played since the start of 1-1.
        max_frames: With the ``durations`` option, the longest hold an action may name (its actions
            are ``"right_a 13"``); 0 without it.

    Two states are equal when these and the whole history of actions are.
    """

    game_id: ClassVar[str] = "mario"

    seed: int
    frames: int
    skip: bool
    stuck_frames: int
    action: Action | None
    #: The state this one was played from; ``None`` at the start, and in a state read from JSON
    #: until :attr:`parent` rebuilds its history.
    up: MarioState | None = dataclasses.field(repr=False)
    lineage: Lineage = dataclasses.field(repr=False)
    key: int = dataclasses.field(repr=False)
    #: The facts and the run-length history, each filled when first needed.
    cache: _Memo = dataclasses.field(repr=False)
    step: int = 0
    max_frames: int = 0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MarioState):
            return NotImplemented
        return self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    def _identity(self) -> tuple[Any, ...]:
        return (self.seed, self.frames, self.skip, self.stuck_frames, self.max_frames, self.step, _runs(self))

    @property
    def parent(self) -> MarioState | None:
        """The state this one was played from (rebuilt from the history for a state read from JSON)."""
        if self.up is None and self.step > 0:
            actions = [a for a, n in _runs(self) for _ in range(n)]
            node = _start(self.seed, self.frames, self.skip, self.stuck_frames, self.lineage.pool,
                          self.lineage, self.max_frames)
            for action in actions[:-1]:
                node = node.child(action)
            object.__setattr__(self, "up", node)
        return self.up

    def child(self, action: Action) -> MarioState:
        """The state after ``action``, not yet played (no legality check)."""
        return MarioState(self.seed, self.frames, self.skip, self.stuck_frames, action, self, self.lineage,
                          next(_KEYS), _Memo(), self.step + 1, self.max_frames)

    def held(self, name: Action, frames: int | None = None) -> Action:
        """The action that holds button set ``name`` in this state's action style: ``name`` itself,
        or, with the ``durations`` option, ``"name n"`` for ``frames`` (default: the game's
        ``frames``) clamped to ``1..max_frames``."""
        if not self.max_frames:
            return name
        n = self.frames if frames is None else frames
        return f"{name} {min(max(1, n), self.max_frames)}"

    def frames_of(self, action: Action) -> int:
        """How many frames ``action`` holds its buttons in this state."""
        return split_action(action)[1] or self.frames

    # -- the emulator behind the state ---------------------------------------------------------

    @property
    def facts(self) -> Facts:
        """What the emulator's memory says after this state's action (plays it the first time)."""
        facts = self.cache.facts
        if facts is None:
            facts = _evaluate(self)
        return facts

    def screen(self) -> np.ndarray:
        """The emulator's picture of this state, 240 x 256 RGB (``uint8``)."""
        lineage = self.lineage
        with lineage.lock:
            pixels = lineage.screens.get(self.key)
            if pixels is None:
                self.facts  # noqa: B018 (plays the state when it has not been played yet)
                machine = lineage.acquire()
                _seek(machine, self)
                pixels = machine.pixels()
                lineage.keep_screen(self.key, pixels)
            return rgb(pixels)

    # -- the contract ------------------------------------------------------------------------------

    @property
    def to_act(self) -> tuple[Seat, ...]:
        return () if self.facts.over else (0,)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        if seat not in (None, 0) or self.is_over:
            return []
        if self.max_frames:
            return [f"{a} {n}" for a in ACTIONS for n in range(1, self.max_frames + 1)]
        return list(ACTIONS)

    def apply(self, action: Action | Mapping[Seat, Action]) -> MarioState:
        if isinstance(action, Mapping):
            if set(action) != {0}:
                raise IllegalActionError("Super Mario Bros has one seat (0)")
            action = action[0]
        name, frames = split_action(action) if isinstance(action, str) else (action, None)
        if name not in BUTTONS_OF:
            raise InvalidActionError(
                f"{action!r} is not a Super Mario Bros action; actions are {', '.join(ACTIONS)}"
            )
        if frames is not None and not self.max_frames:
            raise InvalidActionError(
                f"{action!r} names a duration, but this game holds every action {self.frames} frame"
                f"{'s' if self.frames != 1 else ''} (the durations option lets an action name its own)"
            )
        if frames is not None and not 1 <= frames <= self.max_frames:
            raise InvalidActionError(f"{action!r}: an action is held 1 to {self.max_frames} frames")
        if self.is_over:
            raise IllegalActionError(f"the run is over; {action!r} cannot be played")
        return self.child(action)

    @property
    def scores(self) -> tuple[float, ...]:
        return (float(self.facts.distance),)

    def metrics(self) -> dict[str, float]:
        f = self.facts
        return {
            "distance": f.distance,
            "obstacles_passed": f.passed,
            "x": f.x,
            "world": f.world,
            "stage": f.stage,
            "levels_reached": len(f.levels),
            "lives": f.lives,
            "deaths": f.deaths,
            "coins": f.coins,
            "points": f.points,
            "time": f.time,
        }

    def text(self, seat: Seat | None = None) -> str:
        f = self.facts
        lines = [
            f"World {f.world}-{f.stage}. Mario is {f.power}, at x = {f.x} ({f.x // 16} blocks into the "
            f"level), " + (f"in the air, {f.height} pixels above the ground line." if f.airborne
                           else f"standing, {f.height} pixels above the ground line."),
            f"Lives left: {f.lives} of {LIVES}   Time: {f.time}   Coins: {f.coins}   Points: {f.points}",
            f"Distance (score): {f.distance}   Obstacles passed: {f.passed}",
            "Ahead (in blocks of 16 pixels): " + (describe(f.ahead) or "nothing on screen"),
        ]
        if self.action is not None:
            held = self.frames_of(self.action)
            plural = "s" if held != 1 else ""
            lines.append(f"Last action: {split_action(self.action)[0]} (held {held} frame{plural})")
        if f.over:
            lines.append(f"The run is over: {self.ending()}.")
        return "\n".join(lines)

    def ending(self) -> str:
        """Why the run ended, in words (``""`` while it goes on)."""
        f = self.facts
        if not f.over:
            return ""
        if f.deaths >= LIVES:
            return "three lives are lost"
        if self.stuck_frames and f.stuck >= self.stuck_frames:
            seconds = self.stuck_frames / NES_FPS
            return f"Mario made no progress for {seconds:g} second{'s' if seconds != 1 else ''}"
        return "the game ended"

    def text_table(self, seat: Seat | None = None) -> str:
        f = self.facts
        rows = [f"Mario at (x {f.x}, height {f.height})"]
        rows += [f"{kind.capitalize()} at {away:+d} blocks" + (f", size {size}" if size else "")
                 for kind, away, size in f.ahead]
        return "\n".join(rows)

    def notice(self, seat: Seat | None = None) -> str:
        f = self.facts
        if f.over:
            return f"Run over ({self.ending()}): distance {f.distance}"
        if self.stuck_frames and f.stuck >= self.stuck_frames // 2:
            left = (self.stuck_frames - f.stuck) / NES_FPS
            return f"No progress: the run ends in {left:.0f} s unless Mario passes x = {f.life_best}"
        before = self.parent.facts if self.parent is not None else None
        if before is not None and f.deaths > before.deaths:
            return f"Mario lost a life: {f.lives} of {LIVES} left"
        return ""

    def to_json(self) -> JsonDict:
        return {
            "game": self.game_id,
            "seed": self.seed,
            "frames": self.frames,
            "skip_animations": self.skip,
            "stuck_frames": self.stuck_frames,
            "max_frames": self.max_frames,
            "step": self.step,
            "actions": encode_runs(_runs(self)),
            "facts": self.facts.to_json(),
        }


def describe(ahead: tuple[tuple[str, int, int], ...]) -> str:
    """``(("goomba", 3, 0), ("pipe", 6, 2))`` -> ``"goomba 3 ahead; pipe 2 tall, 6 ahead"``."""
    parts = []
    for kind, away, size in ahead:
        where = f"{away} ahead" if away > 0 else ("level with Mario" if away == 0 else f"{-away} behind")
        extent = f" {size} wide," if kind == "gap" else (f" {size} tall," if size else "")
        parts.append(f"{kind}{extent} {where}")
    return "; ".join(parts)


def _runs(state: MarioState) -> tuple[tuple[Action, int], ...]:
    """The run-length history of ``state``, extended from its nearest ancestor that has one."""
    chain: list[MarioState] = []
    node: MarioState | None = state
    while node is not None and node.cache.runs is None:
        chain.append(node)
        node = node.up
    known = node.cache.runs if node is not None else None  # set wherever the walk stopped short of the start
    runs: tuple[tuple[Action, int], ...] = () if known is None else known
    for n in reversed(chain):
        if n.action is not None:
            if runs and runs[-1][0] == n.action:
                runs = (*runs[:-1], (n.action, runs[-1][1] + 1))
            else:
                runs = (*runs, (n.action, 1))
        n.cache.runs = runs
    return runs


def _seek(machine: Machine, target: MarioState) -> None:
    """Move ``machine`` to ``target``: nothing, the actions since an ancestor, or a replay from 1-1."""
    if machine.head == target.key:
        return
    path: list[MarioState] = []
    node: MarioState | None = target
    while node is not None and node.key != machine.head:
        path.append(node)
        node = node.parent
    if node is None:
        machine.rewind()
        first = path.pop()  # the start of 1-1
        if first.cache.facts is None:
            first.cache.facts = first.lineage.pool.start_facts()
        machine.head = first.key
    for n in reversed(path):
        _play(machine, n)


def _play(machine: Machine, state: MarioState) -> Facts:
    """Play ``state``'s action on a machine standing at its parent; check it against what the state
    recorded, if anything."""
    assert state.parent is not None and state.action is not None
    before = state.parent.cache.facts
    assert before is not None
    name, frames = split_action(state.action)
    facts = machine.play(_BITS[name], frames or state.frames, before, state.skip, state.stuck_frames)
    recorded = state.cache.facts
    if recorded is not None and recorded != facts:
        raise StateFormatError(
            f"replaying the recorded actions does not reach the recorded step {state.step}: "
            f"x {facts.x} (recorded {recorded.x}), distance {facts.distance} (recorded {recorded.distance}), "
            f"lives {facts.lives} (recorded {recorded.lives})"
        )
    state.cache.facts = facts
    machine.head = state.key
    return facts


def _evaluate(state: MarioState) -> Facts:
    """Play every not-yet-played state from the nearest played ancestor down to ``state``."""
    with state.lineage.lock:
        chain: list[MarioState] = []
        node = state
        while node.cache.facts is None and node.parent is not None:
            chain.append(node)
            node = node.parent
        if node.cache.facts is None:  # the start of 1-1
            node.cache.facts = node.lineage.pool.start_facts()
        if chain:
            machine = state.lineage.acquire()
            _seek(machine, node)
            for n in reversed(chain):
                _play(machine, n)
            # The picture of the state just played is the one drawn next: keep it.
            state.lineage.keep_screen(state.key, machine.pixels())
        facts = state.cache.facts
        assert facts is not None  # played just above, or already known
        return facts


def _start(
    seed: int, frames: int, skip: bool, stuck_frames: int, pool: Pool, lineage: Lineage | None = None,
    max_frames: int = 0,
) -> MarioState:
    return MarioState(seed, frames, skip, stuck_frames, None, None, lineage or Lineage(pool), next(_KEYS),
                      _Memo(None, ()), 0, max_frames)


_RULES = """\
You play Super Mario Bros (NES), starting in World 1-1. Mario runs from left to right through the level
to the flagpole at its end; every level after that is another stretch to run.
Enemies (goombas, koopas) kill small Mario on contact from the side; jump on them from above to defeat
them. Falling into a gap costs a life; pipes and walls block the way until you jump over them.
{hold} (60 frames are one second):
noop (nothing), right, left, down, up, a (jump), b (run), and the combinations right_a, right_b,
right_a_b, left_a, left_b, left_a_b. Holding a for more consecutive frames jumps higher (about 30 frames
clear the tallest pipes); to jump again, a must be released (play an action without a) while on the ground.
Your score is the horizontal distance Mario gains, summed over the levels, until three lives are lost.
The run also ends when Mario makes no progress for {stuck} seconds."""


class Mario(Game):
    """Super Mario Bros (LMGame-Bench). Options: ``frames`` (each action's length in frames),
    ``durations`` (each action names its own length, up to ``max_frames``), ``skip_animations`` and
    ``stuck_seconds``."""

    id: ClassVar[str] = "mario"
    title: ClassVar[str] = "Super Mario Bros"
    suites: ClassVar[tuple[str, ...]] = ("lmgame",)
    description: ClassVar[str] = (
        "Run Mario right through World 1-1 and beyond on a NES emulator; the score is the distance covered."
    )
    seats = seats_of(["Player"])
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option("frames", int, DEFAULT_FRAMES, "Frames each action is held for (60 frames are one second)",
               minimum=1, maximum=60),
        Option("skip_animations", bool, True,
               "After an action, run through deaths and level changes until Mario can move again"),
        Option("stuck_seconds", int, DEFAULT_STUCK_SECONDS,
               "Seconds of play without passing Mario's furthest point that end the run (0: never; "
               "LMGame-Bench's stop rule)", minimum=0, maximum=600),
        Option("durations", bool, False,
               "Each action names how many frames it is held, as LMGame-Bench's (right_a, 13): "
               "actions are 'right_a 13'"),
        Option("max_frames", int, DEFAULT_MAX_FRAMES,
               "With durations: the most frames an action may name (LMGame-Bench: 30)",
               minimum=1, maximum=600),
    )
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    #: One NES frame per tick at the default ``frames``; an instance ticks ``frames / 60`` seconds.
    tick_s: ClassVar[float | None] = DEFAULT_FRAMES / NES_FPS
    default_action: ClassVar[Action | None] = "noop"
    #: As on a NES pad held down: X is A (jump), Z is B (run); keys held together play their chord
    #: each tick (the board picks the longest chord held). D, C, V and A play a chord with one key.
    keymap: ClassVar[Mapping[str, Action]] = {
        "right": "right", "left": "left", "up": "up", "down": "down",
        "x": "a", "space": "a", "z": "b",
        "right+x": "right_a", "right+space": "right_a", "right+z": "right_b",
        "right+x+z": "right_a_b", "right+space+z": "right_a_b",
        "left+x": "left_a", "left+space": "left_a", "left+z": "left_b",
        "left+x+z": "left_a_b", "left+space+z": "left_a_b",
        "d": "right_a", "c": "right_b", "v": "right_a_b", "a": "left_a",
    }
    controls: ClassVar[str] = (
        "Hold the arrows to move, X or Space to jump (A), Z to run (B), together to combine (Right+X+Z)"
    )
    bots: ClassVar[Mapping[str, str]] = {"runner": ".bots:RunnerBot"}
    default_opponent: ClassVar[str] = "runner"
    sim_bot: ClassVar[str | None] = "runner"
    sim_behaviour: ClassVar[str | None] = ".sim:MarioSim"
    extractor: ClassVar[str | None] = ".answers:extract_action"
    observation: ClassVar[str | None] = ".gym:FrameObservation"
    raw_score: ClassVar[str | None] = "distance"
    progress_score: ClassVar[str | None] = "obstacles_passed"
    requires: ClassVar[tuple[str, ...]] = ("nes_py", "gym_super_mario_bros")
    extra: ClassVar[str | None] = "mario"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.frames: int = self.options["frames"]
        self.skip: bool = self.options["skip_animations"]
        self.stuck_frames: int = self.options["stuck_seconds"] * NES_FPS
        self.tick_s = self.frames / NES_FPS  # type: ignore[misc]
        self.max_frames: int = self.options["max_frames"] if self.options["durations"] else 0
        if self.max_frames:
            # Keys and the idle tick play the same buttons, held the game's ``frames``.
            self.keymap = {k: f"{a} {self.frames}" for k, a in type(self).keymap.items()}  # type: ignore[misc]
            self.default_action = f"noop {self.frames}"  # type: ignore[misc]
        self.pool = POOL

    def initial_state(self, seed: int | None = None) -> MarioState:
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"a Super Mario Bros seed is an integer, not {seed!r}")
        return _start(seed, self.frames, self.skip, self.stuck_frames, self.pool, max_frames=self.max_frames)

    def transition(self, before: State, after: State) -> Transition:
        assert isinstance(before, MarioState) and isinstance(after, MarioState)
        return Transition(rewards=(after.scores[0] - before.scores[0],), changed=True)

    def rules_text(self) -> str:
        if self.max_frames:
            hold = (f"Each action holds a set of NES buttons for the number of frames you choose, 1 to "
                    f"{self.max_frames}, written after it (right_a 13 holds right and A for 13 frames)")
        else:
            plural = "s" if self.frames != 1 else ""
            hold = f"Each action holds a set of NES buttons for {self.frames} frame{plural}"
        text = _RULES.format(hold=hold, stuck=self.stuck_frames // NES_FPS)
        return text if self.stuck_frames else text.rsplit("\n", 1)[0]

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read an action from free text: ``"right_a"``, ``"Right + A"``, ``"(right_a, 13)"``; with the
        ``durations`` option the frame count is read too (``"right_a 13"``), and a bare name is held the
        game's ``frames``.

        Raises:
            InvalidActionError: no action is named, or a frame count out of range.
            IllegalActionError: the run is over.
        """
        action = read_action(text)
        if action is None:
            raise InvalidActionError(f"{text!r} names no action; actions are {', '.join(ACTIONS)}")
        if state.is_over:
            raise IllegalActionError(f"the run is over; {action!r} cannot be played")
        if self.max_frames:
            count = read_frames(text)
            if count is not None and not 1 <= count <= self.max_frames:
                raise InvalidActionError(
                    f"{text!r}: {count} frames is out of range; "
                    f"an action is held 1 to {self.max_frames} frames"
                )
            return f"{action} {count if count is not None else self.frames}"
        return action

    def state_from_json(self, data: JsonDict) -> MarioState:
        with reading_state(data, "mario", "Super Mario Bros"):
            seed, frames, step = data["seed"], data.get("frames", self.frames), data["step"]
            for name, value in (("seed", seed), ("frames", frames), ("step", step)):
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise ValueError(f"{name} must be a non-negative integer")
            if not 1 <= frames <= 60:
                raise ValueError("frames must be between 1 and 60")
            skip = data.get("skip_animations", self.skip)
            if not isinstance(skip, bool):
                raise ValueError("skip_animations must be true or false")
            stuck = data.get("stuck_frames", self.stuck_frames)
            if not isinstance(stuck, int) or isinstance(stuck, bool) or stuck < 0:
                raise ValueError("stuck_frames must be a non-negative integer")
            most = data.get("max_frames", 0)
            if not isinstance(most, int) or isinstance(most, bool) or most < 0:
                raise ValueError("max_frames must be a non-negative integer")
            if not isinstance(data["actions"], str):
                raise ValueError("actions must be a string of runs such as 'right*40 right_a*13'")
            actions = decode_runs(data["actions"])
            if len(actions) != step:
                raise ValueError(f"step is {step} but the actions hold {len(actions)}")
            facts = Facts.from_json(data["facts"]) if data.get("facts") is not None else None
            if any(split_action(a)[1] is not None for a in actions) and not most:
                raise ValueError("the actions name frame counts but max_frames is 0")
        state = _start(seed, frames, skip, stuck, self.pool, max_frames=most)
        if not actions:
            return state
        # The history is rebuilt only when the emulator needs it (MarioState.parent).
        runs = _encode(actions)
        return MarioState(seed, frames, skip, stuck, actions[-1], None, state.lineage, next(_KEYS),
                          _Memo(facts, runs), step, most)


def _encode(actions: list[Action]) -> tuple[tuple[Action, int], ...]:
    runs: list[tuple[Action, int]] = []
    for action in actions:
        if runs and runs[-1][0] == action:
            runs[-1] = (action, runs[-1][1] + 1)
        else:
            runs.append((action, 1))
    return tuple(runs)


_NAMED = re.compile(
    r"(?<![a-z_])(right_a_b|left_a_b|right_a|right_b|left_a|left_b|noop|right|left|down|up)(?![a-z_])"
)


def read_action(text: str) -> Action | None:
    """The first action named in ``text``: ``right_a``, ``"Right + A"``, ``"(right_a, 13)"``, ``NOOP``;
    a lone ``a`` or ``b`` is the button alone."""
    cleaned = " ".join(text.lower().split())
    cleaned = re.sub(r"\bno[_\- ]?op\b", "noop", cleaned)
    cleaned = re.sub(r"\s*\+\s*", "_", cleaned)
    cleaned = re.sub(r"_b_a\b", "_a_b", cleaned)
    found = _NAMED.search(cleaned)
    if found is not None:
        return found.group(1)
    bare = re.sub(r"[\s,]+\d{1,3}(?:\s*frames?)?\W*$", "", cleaned)  # "(a, 13)": LMGame-Bench's frame count
    bare = bare.strip(" .!()[]'\"`*,")
    return bare if bare in ("a", "b") else None


_FRAMES = re.compile(r"[\s,(]\s*(\d{1,4})\s*(?:frames?)?\s*\)?[\s.!'\"`*]*$", re.IGNORECASE)


def read_frames(text: str) -> int | None:
    """The frame count at the end of an action: ``"(right_a, 13)"``, ``"right_a 13"``,
    ``"right_a 13 frames"`` -> 13; ``None`` when the text ends with no number."""
    found = _FRAMES.search(text.strip())
    return int(found.group(1)) if found is not None else None
