"""Sokoban, as LMGame-Bench plays it.

The player walks a warehouse and pushes boxes onto goals. Each move (``up``, ``down``, ``left``,
``right``) walks one cell, or pushes the box there one cell further when the cell beyond it is free
floor; walking into a wall, or pushing a box into a wall or another box, changes nothing (a wasted
turn). Boxes can be pushed, never pulled.

An episode plays a course of levels in order (PlayTrace's bundled sets of rising difficulty by
default, a level file, level text, or rooms generated from the seed) and goes on to the next level as
soon as one is solved. The raw score is LMGame-Bench's: the number of boxes on goals, summed over the
levels, until the first deadlock. The run ends at:

* a *deadlock*: a push leaves a box on a dead square, or frozen off a goal (:mod:`.deadlock`);
* the step cap: ``max_steps`` moves in one level without solving it (the reference's 200);
* :data:`STUCK_LIMIT` wasted moves in a row (the reference's stuck rule for Sokoban, M = 30);
* the last level solved.

The progress score is the level reached (1-based), with the boxes on goals in it
(``metrics()["level"]`` and ``["level_boxes"]``; the paper writes "L5 - 1.7 Box").
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, TypedDict

import assets
from engine.core import (
    Action,
    Game,
    GameError,
    IllegalActionError,
    InvalidActionError,
    JsonDict,
    Seat,
    State,
    Transition,
    seats_of,
)
from engine.games._common import ARROW_KEYS, ONE_PLAYER, direction_in, one_action, reading_state
from engine.games.sokoban.deadlock import dead_box
from engine.games.sokoban.generator import DEFAULT_BOXES, DEFAULT_SIZE, generate
from engine.games.sokoban.levels import Level, LevelFormatError, level_from_rows, parse_levels, read_levels
from engine.options import Option

__all__ = [
    "ACTIONS",
    "BUNDLED",
    "NAMED_SETS",
    "GENERATED",
    "STUCK_LIMIT",
    "Course",
    "Sokoban",
    "SokobanState",
    "bundled_levels",
]

ACTIONS: tuple[Action, ...] = ("up", "down", "left", "right")
#: Wasted moves in a row after which the run ends (LMGame-Bench's stuck limit for Sokoban).
STUCK_LIMIT = 30
#: The reference's step cap per level.
DEFAULT_MAX_STEPS = 200
#: PlayTrace's own level sets, easiest first (files in ``assets/sokoban``); the default course
#: plays them one after the other.
BUNDLED: tuple[str, ...] = ("starter", "intermediate", "advanced")
#: Bundled sets that are chosen by name only (not part of the default course): ``lmgame``, six
#: original 10 x 10 rooms with three boxes each, shaped like the level file LMGame-Bench's reference
#: code plays (its LMGame-Bench protocol setting, with ``max_steps=200``).
NAMED_SETS: tuple[str, ...] = ("lmgame",)
#: The ``levels`` value that plays generated rooms.
GENERATED = "generated"
_ENDS = {
    "deadlock": "deadlock: a box can no longer reach a goal",
    "steps": "the step cap for this level was reached",
    "stuck": f"{STUCK_LIMIT} moves in a row changed nothing",
    "complete": "every level is solved",
}


@functools.cache
def bundled_levels(name: str) -> tuple[Level, ...]:
    """The levels of one of PlayTrace's bundled sets (see :data:`BUNDLED` and :data:`NAMED_SETS`)."""
    return read_levels(assets.path("sokoban", f"{name}.xsb"))


class _Common(TypedDict):
    """What every move sets on the next state, whichever branch builds it."""

    last: Action
    pushed: bool
    step: int


@dataclasses.dataclass(frozen=True, eq=False)
class Course:
    """The levels an episode plays, in order: a fixed list, or rooms generated from the seed.

    Attributes:
        name: What the course is called in texts (a set's name, a file's name, "generated rooms").
        levels: The levels of a fixed course (empty when generated).
        size: ``(width, height, boxes)`` of generated rooms.
    """

    name: str
    levels: tuple[Level, ...] = ()
    size: tuple[int, int, int] = (DEFAULT_SIZE, DEFAULT_SIZE, DEFAULT_BOXES)

    @property
    def generated(self) -> bool:
        return not self.levels

    @property
    def count(self) -> int | None:
        """How many levels the course has; ``None`` for generated rooms (no end)."""
        return None if self.generated else len(self.levels)

    def level(self, index: int, seed: int) -> Level | None:
        """Level ``index`` (0-based) for an episode of ``seed``, or ``None`` past the last."""
        if not self.generated:
            return self.levels[index] if 0 <= index < len(self.levels) else None
        width, height, boxes = self.size
        return _generated(seed, index, width, height, boxes)

    def dimensions(self) -> tuple[int, int]:
        """The largest ``(width, height)`` of the course's levels."""
        if self.generated:
            return self.size[0], self.size[1]
        return max(lv.width for lv in self.levels), max(lv.height for lv in self.levels)


@functools.lru_cache(maxsize=256)
def _generated(seed: int, index: int, width: int, height: int, boxes: int) -> Level:
    return generate(seed * 1009 + index, width, height, boxes, title=f"Generated room {index + 1}")


def course_of(levels: str, width: int, height: int, boxes: int) -> Course:
    """The course a ``levels`` option names: ``""`` (the bundled sets in order), a bundled set's name,
    ``"generated"``, level text (it holds a line break or starts with ``#``) or a file path.

    Raises:
        LevelFormatError: the file is missing or unreadable, or the levels are malformed.
    """
    spec = levels.strip()
    if not spec:
        return Course("PlayTrace levels", tuple(lv for name in BUNDLED for lv in bundled_levels(name)))
    if spec == GENERATED:
        return Course("generated rooms", (), (width, height, boxes))
    if spec in BUNDLED or spec in NAMED_SETS:
        return Course(spec, bundled_levels(spec))
    if "\n" in levels or spec.startswith("#"):
        return Course("the given levels", parse_levels(levels, "the level text"))
    path = Path(spec).expanduser()
    if not path.is_file():
        names = ", ".join((*BUNDLED, *NAMED_SETS, GENERATED))
        raise LevelFormatError(
            f"no level file {spec!r} (the levels option takes a file, level text, or one of {names})"
        )
    return Course(path.name, read_levels(path))


_DELTAS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


@dataclasses.dataclass(frozen=True, slots=True)
class SokobanState(State):
    """A Sokoban position inside an episode's course of levels.

    Attributes:
        level: The level being played (its layout and start position).
        boxes: Cells of the boxes now.
        player: The player's cell now.
        index: The level's place in the course (0-based).
        banked: Boxes on goals in the levels solved before this one (the raw score so far).
        solved: Levels solved in this episode.
        level_steps: Moves made in this level.
        stuck: Wasted moves in a row.
        end: Why the run ended (``"deadlock"``, ``"steps"``, ``"stuck"``, ``"complete"``), or ``""``.
        last: The move that led here, or ``None``.
        pushed: Whether that move pushed a box.
        cleared: Whether that move solved the previous level (this state starts the next one).
        max_steps: The step cap per level (0: none).
        seed: The seed generated rooms are made from.
        step: Moves made in the episode.
        course: The episode's levels (not part of the state's value: the game's options give it).
    """

    game_id: ClassVar[str] = "sokoban"

    level: Level
    boxes: frozenset[int]
    player: int
    index: int = 0
    banked: int = 0
    solved: int = 0
    level_steps: int = 0
    stuck: int = 0
    end: str = ""
    last: Action | None = None
    pushed: bool = False
    cleared: bool = False
    max_steps: int = DEFAULT_MAX_STEPS
    seed: int = 0
    step: int = 0
    course: Course | None = dataclasses.field(default=None, compare=False, repr=False)

    # -- play ----------------------------------------------------------------------------------

    @property
    def to_act(self) -> tuple[Seat, ...]:
        return () if self.end else (0,)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        if seat not in (None, 0) or self.end:
            return []
        return list(ACTIONS)

    def target(self, action: Action) -> tuple[int, int]:
        """The cell ``action`` walks to and the step between cells (a box there goes one step further)."""
        dr, dc = _DELTAS[action]
        d = dr * self.level.width + dc
        return self.player + d, d

    def outcome(self, action: Action) -> str:
        """What ``action`` does here: ``"walk"``, ``"push"``, ``"wall"`` (walks into a wall) or
        ``"blocked"`` (the box there cannot move)."""
        to, d = self.target(action)
        if to not in self.level.inside:
            return "wall"
        if to in self.boxes:
            beyond = to + d
            return "push" if beyond in self.level.inside and beyond not in self.boxes else "blocked"
        return "walk"

    def annotate(self, action: Action, seat: Seat | None = None) -> str:
        if action not in ACTIONS or self.end:
            return ""
        kind = self.outcome(action)
        if kind == "wall":
            return "this move walks into a wall (a wasted turn)"
        if kind == "blocked":
            return "the box there cannot move (a wasted turn)"
        if kind == "push":
            to, d = self.target(action)
            moved = (self.boxes - {to}) | {to + d}
            if not moved <= self.level.goals and dead_box(self.level, moved, to + d):
                return "this push leaves a box that can never reach a goal (a deadlock ends the run)"
        return ""

    def apply(self, action: Action | Mapping[Seat, Action]) -> SokobanState:
        if isinstance(action, Mapping):
            action = one_action(action, "Sokoban", self.to_act, ONE_PLAYER)
        if action not in _DELTAS:
            raise InvalidActionError(f"{action!r} is not a Sokoban move; moves are {', '.join(ACTIONS)}")
        if self.end:
            raise IllegalActionError(f"the game is over; {action!r} cannot be played")
        level = self.level
        to, d = self.target(action)
        boxes = self.boxes
        player = self.player
        pushed = False
        if to in level.inside:
            if to not in boxes:
                player = to
            elif to + d in level.inside and to + d not in boxes:
                boxes = (boxes - {to}) | {to + d}
                player = to
                pushed = True
        moved = player != self.player
        level_steps = self.level_steps + 1
        stuck = 0 if moved else self.stuck + 1
        common: _Common = {"last": action, "pushed": pushed, "step": self.step + 1}
        if pushed and boxes <= level.goals:
            return self._next_level(boxes, player, common)
        end = ""
        if pushed and dead_box(level, boxes, to + d):
            end = "deadlock"
        elif self.max_steps and level_steps >= self.max_steps:
            end = "steps"
        elif stuck >= STUCK_LIMIT:
            end = "stuck"
        return dataclasses.replace(
            self,
            boxes=boxes,
            player=player,
            level_steps=level_steps,
            stuck=stuck,
            end=end,
            cleared=False,
            **common,
        )

    def _next_level(self, boxes: frozenset[int], player: int, common: _Common) -> SokobanState:
        banked = self.banked + len(boxes)
        following = self.course.level(self.index + 1, self.seed) if self.course is not None else None
        if following is None:
            return dataclasses.replace(
                self,
                boxes=boxes,
                player=player,
                level_steps=self.level_steps + 1,
                stuck=0,
                end="complete",
                solved=self.solved + 1,
                banked=self.banked,
                cleared=False,
                **common,
            )
        return dataclasses.replace(
            self,
            level=following,
            boxes=following.boxes,
            player=following.player,
            index=self.index + 1,
            banked=banked,
            solved=self.solved + 1,
            level_steps=0,
            stuck=0,
            end="",
            cleared=True,
            **common,
        )

    # -- scores ----------------------------------------------------------------------------------

    @property
    def on_goals(self) -> int:
        """Boxes on goals in the level being played."""
        return len(self.boxes & self.level.goals)

    @property
    def scores(self) -> tuple[float, ...]:
        return (float(self.banked + self.on_goals),)

    @property
    def deadlocked(self) -> bool:
        return self.end == "deadlock"

    def dead_boxes(self) -> frozenset[int]:
        """The boxes that make the position dead (on a dead square, or frozen off a goal); empty while
        the level can still be solved as far as the deadlock tests see."""
        if self.boxes <= self.level.goals:
            return frozenset()
        return frozenset(b for b in self.boxes if dead_box(self.level, self.boxes, b))

    def metrics(self) -> dict[str, float]:
        return {
            "boxes_on_goals": self.banked + self.on_goals,
            "level": self.index + 1,
            "level_boxes": self.on_goals,
            "levels_solved": self.solved,
            "deadlock": 1.0 if self.deadlocked else 0.0,
        }

    # -- text views ----------------------------------------------------------------------------

    def grid_text(self) -> str:
        """The board in the standard characters, floor written ``-`` so no cell is a blank a reader
        could drop; outside cells are spaces."""
        level = self.level
        cells = list(level.template)
        goals = level.goals
        for b in self.boxes:
            cells[b] = "*" if b in goals else "$"
        cells[self.player] = "+" if self.player in goals else "@"
        w = level.width
        return "\n".join("".join(cells[r * w : (r + 1) * w]).rstrip() for r in range(level.height))

    def heading(self) -> str:
        """``Level 3 of 15 "Title"`` (no count for generated rooms)."""
        count = self.course.count if self.course is not None else None
        of = f" of {count}" if count else ""
        title = f' "{self.level.title}"' if self.level.title else ""
        return f"Level {self.index + 1}{of}{title}"

    def text(self, seat: Seat | None = None) -> str:
        total = len(self.level.goals)
        lines = [
            f"{self.heading()}: {self.on_goals} of {total} boxes on goals",
            "",
            self.grid_text(),
            "",
            "Legend: # wall, @ you, + you on a goal, $ box, * box on a goal, . goal, - floor",
            f"Score (boxes on goals, all levels): {self.scores[0]:.0f}   Levels solved: {self.solved}",
        ]
        if self.max_steps:
            lines.append(f"Moves in this level: {self.level_steps} of {self.max_steps}")
        if self.last is not None:
            what = "pushed a box" if self.pushed else ("moved" if self.stuck == 0 else "changed nothing")
            lines.append(f"Last move: {self.last} ({what})")
        if self.cleared:
            lines.append(f"Level {self.index} solved; this is the next level.")
        if self.end:
            lines.append(f"Game over: {_ENDS[self.end]}.")
        return "\n".join(lines)

    def notice(self, seat: Seat | None = None) -> str:
        if self.end:
            return f"Game over: {_ENDS[self.end]}"
        if self.cleared:
            return f"Level {self.index} solved! {self.heading()}"
        if self.stuck >= 5:
            return f"{self.stuck} moves in a row changed nothing ({STUCK_LIMIT} end the run)"
        return ""

    def text_table(self, seat: Seat | None = None) -> str:
        """The perception module's coordinate table: the player, each box and each empty goal, then
        the walls row by row. Rows and columns count from 0 at the top left."""
        level = self.level
        lines = []
        r, c = level.coords(self.player)
        lines.append(f"Player at (row {r}, col {c}){' on a goal' if self.player in level.goals else ''}")
        for b in sorted(self.boxes):
            r, c = level.coords(b)
            lines.append(f"Box at (row {r}, col {c}){' on a goal' if b in level.goals else ''}")
        for g in sorted(level.goals - self.boxes):
            r, c = level.coords(g)
            lines.append(f"Goal at (row {r}, col {c})")
        for row in range(level.height):
            cols = [c for c in range(level.width) if row * level.width + c in level.walls]
            if cols:
                lines.append(f"Walls in row {row}: columns {_ranges(cols)}")
        return "\n".join(lines)

    def to_json(self) -> JsonDict:
        return {
            "game": self.game_id,
            "level": self.level.rows(),
            "title": self.level.title,
            "boxes": sorted(self.boxes),
            "player": self.player,
            "index": self.index,
            "banked": self.banked,
            "solved": self.solved,
            "level_steps": self.level_steps,
            "stuck": self.stuck,
            "end": self.end,
            "last": self.last,
            "pushed": self.pushed,
            "cleared": self.cleared,
            "max_steps": self.max_steps,
            "seed": self.seed,
            "step": self.step,
        }


def _ranges(cols: list[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2, 5"``."""
    parts = []
    start = prev = cols[0]
    ends: list[int | None] = [*cols[1:], None]
    for c in ends:
        if c is not None and c == prev + 1:
            prev = c
            continue
        parts.append(f"{start}-{prev}" if prev > start else str(start))
        if c is not None:
            start = prev = c
    return ", ".join(parts)


# -- game --------------------------------------------------------------------------------------

_RULES = """\
Sokoban: you are a warehouse keeper (@) on a grid. Push every box ($) onto a goal (.).
Each turn you choose one move: up, down, left or right. You walk one cell that way. If a box is
there, you push it one cell further, but only when the cell beyond it is floor: you cannot push a
box into a wall or into another box, and you cannot pull boxes. A move that changes nothing wastes a turn.
A box pushed into a corner, or against a wall with no goal along it, can never be moved onto a goal:
that is a deadlock, and the run ends there.
When every box of a level is on a goal, the next level starts.
Your score is the number of boxes on goals, summed over the levels, until the first deadlock.
{cap}Rows and columns are numbered from 0 at the top left.
Answer with exactly one of: up, down, left, right."""


class Sokoban(Game):
    """Sokoban (LMGame-Bench). Options: ``levels`` (a bundled set, ``generated``, a file or level text),
    ``level`` (the 1-based level to start at), ``width``/``height``/``boxes`` of generated rooms, and
    ``max_steps`` per level."""

    id: ClassVar[str] = "sokoban"
    title: ClassVar[str] = "Sokoban"
    suites: ClassVar[tuple[str, ...]] = ("lmgame",)
    description: ClassVar[str] = "Push every box onto a goal, level after level, without a deadlock."
    seats = seats_of(["Player"])
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option(
            "levels",
            str,
            "",
            "Levels to play: empty for PlayTrace's sets in order, one of "
            f"{', '.join(BUNDLED)}, {', '.join(NAMED_SETS)} (LMGame-Bench's protocol), '{GENERATED}', "
            "a level file "
            "(.xsb/.sok/.txt) or level text",
        ),
        Option("level", int, 1, "The level to start at (1 is the first)", minimum=1, maximum=100_000),
        Option("width", int, DEFAULT_SIZE, "Width of generated rooms, walls included", minimum=5, maximum=30),
        Option(
            "height", int, DEFAULT_SIZE, "Height of generated rooms, walls included", minimum=5, maximum=30
        ),
        Option("boxes", int, DEFAULT_BOXES, "Boxes in a generated room", minimum=1, maximum=12),
        Option(
            "max_steps",
            int,
            DEFAULT_MAX_STEPS,
            "Moves allowed per level (0: no cap)",
            minimum=0,
            maximum=1_000_000,
        ),
    )
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    keymap: ClassVar[Mapping[str, Action]] = ARROW_KEYS
    controls: ClassVar[str] = "Arrows or W A S D walk and push; Ctrl+Z takes a move back"
    bots: ClassVar[Mapping[str, str]] = {"solver": ".bots:SolverBot"}
    default_opponent: ClassVar[str] = "solver"
    sim_behaviour: ClassVar[str | None] = ".sim:SimSokoban"
    extractor: ClassVar[str | None] = ".answers:extract_move"
    observation: ClassVar[str | None] = ".gym:GridObservation"
    #: LMGame-Bench's raw score (Table 1) and progress score (Table 3: the level reached).
    raw_score: ClassVar[str | None] = "boxes_on_goals"
    progress_score: ClassVar[str | None] = "level"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        o = self.options
        if o["levels"].strip() == GENERATED:
            try:  # a size that cannot hold the boxes fails here, not at the first state
                generate(0, o["width"], o["height"], o["boxes"])
            except ValueError as exc:
                raise GameError(f"generated rooms: {exc}") from None
        self.course = course_of(o["levels"], o["width"], o["height"], o["boxes"])
        self.start = o["level"] - 1
        count = self.course.count
        if count is not None and self.start >= count:
            raise GameError(f"{self.course.name} has {count} level(s); level {o['level']} does not exist")

    def initial_state(self, seed: int | None = None) -> SokobanState:
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"a Sokoban seed is an integer, not {seed!r}")
        level = self.course.level(self.start, seed)
        assert level is not None
        return SokobanState(
            level=level,
            boxes=level.boxes,
            player=level.player,
            index=self.start,
            max_steps=self.options["max_steps"],
            seed=seed,
            course=self.course,
        )

    def transition(self, before: State, after: State) -> Transition:
        assert isinstance(before, SokobanState) and isinstance(after, SokobanState)
        changed = (before.boxes, before.player, before.index) != (after.boxes, after.player, after.index)
        return Transition(rewards=(after.scores[0] - before.scores[0],), changed=changed)

    def rules_text(self) -> str:
        cap = self.options["max_steps"]
        line = f"Each level allows {cap} moves; after that the run ends.\n" if cap else ""
        return _RULES.format(cap=line)

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Find the move in free text: ``"Left"``, ``"move: UP."``, ``"push down"``.

        Raises:
            InvalidActionError: no direction, or several different directions, are named.
            IllegalActionError: the game is over.
        """
        return direction_in(text, state)

    def state_from_json(self, data: JsonDict) -> SokobanState:
        with reading_state(data, "sokoban", "Sokoban"):
            rows = data["level"]
            if not isinstance(rows, list) or not all(isinstance(r, str) for r in rows):
                raise ValueError("level must be a list of board rows")
            title = data.get("title", "")
            if not isinstance(title, str):
                raise ValueError("title must be text")
            try:
                level = level_from_rows(rows, title, "the saved level")
            except LevelFormatError as exc:
                raise ValueError(str(exc)) from None
            ints = {
                k: _non_negative_int(data, k)
                for k in ("player", "index", "banked", "solved", "level_steps", "stuck", "max_steps", "step")
            }
            boxes = data["boxes"]
            if not isinstance(boxes, list) or not all(_is_int(b) and b in level.inside for b in boxes):
                raise ValueError("boxes must be a list of cells inside the level")
            if len(set(boxes)) != len(level.boxes):
                raise ValueError(f"the level has {len(level.boxes)} boxes, not {len(set(boxes))}")
            if ints["player"] not in level.inside or ints["player"] in boxes:
                raise ValueError("the player must stand on a free cell inside the level")
            end = data.get("end", "")
            if end not in ("", *_ENDS):
                raise ValueError(f"end must be one of {', '.join(_ENDS)} or empty, not {end!r}")
            last = data.get("last")
            if last is not None and last not in ACTIONS:
                raise ValueError(f"{last!r} is not a Sokoban move")
            flags = {k: data.get(k, False) for k in ("pushed", "cleared")}
            if not all(isinstance(v, bool) for v in flags.values()):
                raise ValueError("pushed and cleared must be true or false")
            seed = data["seed"]
            if not _is_int(seed):
                raise ValueError("seed must be an integer")
        return SokobanState(
            level=level,
            boxes=frozenset(boxes),
            end=end,
            last=last,
            seed=seed,
            course=self.course,
            pushed=flags["pushed"],
            cleared=flags["cleared"],
            player=ints["player"],
            index=ints["index"],
            banked=ints["banked"],
            solved=ints["solved"],
            level_steps=ints["level_steps"],
            stuck=ints["stuck"],
            max_steps=ints["max_steps"],
            step=ints["step"],
        )


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _non_negative_int(data: Mapping[str, Any], key: str) -> int:
    v = data[key]
    if not _is_int(v) or v < 0:
        raise ValueError(f"{key} must be a non-negative integer")
    return int(v)
