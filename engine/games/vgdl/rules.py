"""VGDL games as PlayTrace games: the state, its text views, and the ``vgdl`` game (any VGDL file).

A state is an immutable value: the compiled game it belongs to (shared, never copied), the grid size,
every sprite as a tuple, the tick, the score, the outcome and the seed. ``apply`` runs one GVGAI tick
(:mod:`engine.games.vgdl.runtime`) with the avatar's action; every random choice comes from
``random.Random(f"{seed}:{tick}")``, so the same seed and actions replay exactly. The state's JSON
carries the game's VGDL text, so a saved session replays even when the game file has moved.

An episode ends when a termination of the game holds, or after ``max_steps`` actions (GVGAI-LLM's
step cap; a game not won by then is lost).
"""

from __future__ import annotations

import dataclasses
import functools
import random
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import assets
from engine import safeio
from engine.core import (
    Action,
    Game,
    IllegalActionError,
    InvalidActionError,
    JsonDict,
    Seat,
    State,
    Transition,
    seats_of,
)
from engine.games._common import ONE_PLAYER, one_action, reading_state
from engine.games.vgdl import metrics as episode_metrics
from engine.games.vgdl.ontology import ACTION_NAMES, CompiledGame, compile_text
from engine.games.vgdl.parser import LevelData, VgdlError, parse_level
from engine.games.vgdl.runtime import FIELDS, World, new_sprite
from engine.games.vgdl.view import (
    DIR_WORDS,
    adjacent_lines,
    ascii_grid,
    map_counts,
    rules_text,
    type_chars,
)
from engine.options import Option

__all__ = [
    "LEVELS",
    "VgdlGame",
    "VgdlState",
    "asset_files",
    "initial_sprites",
    "initial_timers",
    "read_text",
]

DEFAULT_MAX_STEPS = 1000
#: How many levels each bundled game has (``<name>_lvl0.txt`` ...).
LEVELS = 5
_KEYMAP: Mapping[str, Action] = {
    "up": "ACTION_UP",
    "down": "ACTION_DOWN",
    "left": "ACTION_LEFT",
    "right": "ACTION_RIGHT",
    "w": "ACTION_UP",
    "s": "ACTION_DOWN",
    "a": "ACTION_LEFT",
    "d": "ACTION_RIGHT",
    "space": "ACTION_USE",
}
#: Counters kept along an episode (the meaningful-step figures of :mod:`engine.games.vgdl.metrics`).
_COUNTERS = ("meaningful", "meaningful_1step", "nil")


#: The GVGAI competition's planners (MCTS as ``search``, rolling horizon evolution, OLETS) and the
#: simulated model's behaviour.
_BOTS: Mapping[str, str] = {
    "search": "engine.bots.mcts:MctsBot",
    "rhea": "engine.bots.rhea:RheaBot",
    "olets": "engine.bots.olets:OletsBot",
}
_SIM: str | None = ".sim:VgdlSim"


def asset_files(name: str, level: int) -> tuple[Path, Path]:
    """The game file and level file of a VGDL game shipped in ``assets/vgdl`` (not checked for existence)."""
    folder = assets.path("vgdl")
    return folder / f"{name}.txt", folder / f"{name}_lvl{level}.txt"


def read_text(path: Path, what: str) -> str:
    """A game or level file's text.

    Raises:
        VgdlError: the file cannot be read or is not UTF-8 text.
    """
    try:
        # A FIFO or /dev/zero is refused at once instead of hanging or filling memory.
        return safeio.read_text(path, cap=4 * 1024 * 1024)
    except FileNotFoundError:
        raise VgdlError(str(path), None, f"the {what} file does not exist") from None
    except safeio.InputError as exc:
        why = str(exc).removeprefix(f"{path} ")
        raise VgdlError(str(path), None, f"the {what} file {why}") from None
    except OSError as exc:
        raise VgdlError(str(path), None, f"the {what} file cannot be read ({exc.strerror or exc})") from None


def initial_sprites(game: CompiledGame, level: LevelData) -> tuple[tuple[Any, ...], ...]:
    """The sprites a level starts with, in GVGAI's order (rows, then columns, then the mapping's order).

    Raises:
        VgdlError: a character of the level is not in the game's LevelMapping.
    """
    sprites: list[tuple[Any, ...]] = []
    for r, row in enumerate(level.rows):
        for c, char in enumerate(row):
            if char == " ":
                continue
            targets = game.mapping.get(char)
            if targets is None and char in game.mapping_problems:
                line, problem = game.mapping_problems[char]
                raise VgdlError(
                    game.source,
                    line,
                    f"{problem} (the level {level.source} uses it: line {r + 1}, column {c + 1})",
                )
            if targets is None:
                known = "".join(sorted(game.mapping))
                raise VgdlError(
                    level.source,
                    r + 1,
                    f"column {c + 1}: the character {char!r} is not in the "
                    f"game's LevelMapping (known: {known})",
                )
            for tindex in targets:
                t = game.types[tindex]
                sprite = new_sprite(len(sprites), tindex, r, c, t.orientation, 0, t.health, t.ttl)
                sprites.append(tuple(sprite))
    if not any(game.types[s[1]].is_avatar for s in sprites):
        raise VgdlError(level.source, None, "the level has no avatar")
    return tuple(sprites)


def initial_timers(game: CompiledGame) -> tuple[tuple[int, int], ...]:
    """The clock at the start: each ``TIME`` rule's first run, as (tick, index in ``game.timed``)."""
    # GVGAI counts ticks from 0, PlayTrace from 1: ``nextExecution=N`` runs on PlayTrace's tick N + 1.
    return tuple((t.first + 1 if t.first >= 0 else t.first, i) for i, t in enumerate(game.timed) if t.native)


@dataclasses.dataclass(frozen=True)
class VgdlState(State):
    """A VGDL game in progress (see the module docstring)."""

    game_id: ClassVar[str] = "vgdl"

    compiled: CompiledGame = dataclasses.field(compare=False, repr=False)
    digest: str
    gid: str
    level_name: str
    height: int
    width: int
    sprites: tuple[tuple[Any, ...], ...]
    next_id: int
    tick: int = 0
    game_score: float = 0.0
    won: bool | None = None
    seed: int = 0
    max_steps: int = DEFAULT_MAX_STEPS
    last_action: Action | None = None
    #: The grounding the text view adds: per-cell coordinate tags, the avatar's neighbours in words.
    coordinates: bool = False
    adjacent: bool = False
    #: Running counts along the episode: meaningful steps (paper, one-step rule) and nil actions.
    counters: tuple[int, int, int] = (0, 0, 0)
    #: The avatar's positions before the last steps (oldest first), for the cancelling-move rule.
    recent: tuple[tuple[int, int] | None, ...] = ()
    #: Effects waiting on the clock, as (tick, index in the compiled game's ``timed``), in order.
    timers: tuple[tuple[int, int], ...] = ()
    #: What the next tick reuses, kept with the state (never compared or saved): the runtime's index
    #: of the sprites nothing changes in place, the other sprites, and how many cells of the map each
    #: type is drawn on (so the meaningful-step figures need not draw the map).
    carried: tuple[Any, ...] | None = dataclasses.field(default=None, compare=False, repr=False)

    # -- the contract --------------------------------------------------------------------------

    @property
    def to_act(self) -> tuple[Seat, ...]:
        return () if self.won is not None else (0,)

    @property
    def step(self) -> int:
        return self.tick

    @property
    def actions(self) -> tuple[Action, ...]:
        return self.compiled.actions

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        if seat not in (None, 0) or self.won is not None:
            return []
        return list(self.compiled.actions)

    def apply(self, action: Action | Mapping[Seat, Action]) -> VgdlState:
        if isinstance(action, Mapping):
            action = one_action(action, "a VGDL game", (0,), ONE_PLAYER)
        if action not in ACTION_NAMES:
            raise InvalidActionError(
                f"{action!r} is not a VGDL action; actions are {', '.join(self.actions)}"
            )
        if self.won is not None:
            raise IllegalActionError(f"the game is over; {action!r} cannot be played")
        if action not in self.compiled.actions:
            raise IllegalActionError(
                f"{action} is not an action of this avatar; it has {', '.join(self.actions)}"
            )
        layer, mobile, tops0 = self.carried or (None, None, None)
        if tops0 is None:
            tops0 = map_counts(self.compiled, self.height, self.width, self.sprites)
        world = World(
            self.compiled,
            self.height,
            self.width,
            self.sprites,
            self.next_id,
            self.tick,
            self.game_score,
            random.Random(f"{self.seed}:{self.tick}"),
            self.timers,
            layer,
            mobile,
        )
        pos0 = self.avatar_pos
        own0 = world.top(pos0) if pos0 is not None else -2
        world.tick(action)
        won = world.won
        if won is None and world.tick_no >= self.max_steps:
            won = False
        sprites = world.sprites()
        tops1 = dict(tops0)
        for was, now in world.top_changes():
            if was >= 0:
                tops1[was] -= 1
                if not tops1[was]:
                    del tops1[was]
            if now >= 0:
                tops1[now] = tops1.get(now, 0) + 1
        after = dataclasses.replace(
            self,
            sprites=sprites,
            next_id=world.next_id,
            tick=world.tick_no,
            game_score=world.score,
            won=won,
            last_action=action,
            recent=(*self.recent, pos0)[-episode_metrics.CANCEL_WINDOW :],
            timers=tuple(world.timers),
            carried=(*world.carry(), tops1),
        )
        avatar = world.avatar()
        # The avatar as the state finds it (first of the first avatar type), without a search.
        after.__dict__["avatar"] = tuple(avatar) if avatar is not None else None
        pos1 = after.avatar_pos
        own1 = world.top(pos1) if pos1 is not None else -2
        chars = type_chars(self.compiled)
        counts0, counts1 = self._chars(tops0, chars), self._chars(tops1, chars)
        flags = episode_metrics.counted_flags(
            counts0,
            None if own0 == -2 else "." if own0 == -1 else chars[own0],
            pos0,
            counts1,
            None if own1 == -2 else "." if own1 == -1 else chars[own1],
            pos1,
            reward=after.game_score != self.game_score,
            legend_changed=set(tops0) != set(tops1),
            action=action,
            recent_positions=self.recent,
        )
        counters = (
            self.counters[0] + flags["meaningful"],
            self.counters[1] + flags["meaningful_1step"],
            self.counters[2] + flags["nil"],
        )
        # ``after`` is not shared yet; setting the field in place keeps the map it already computed.
        object.__setattr__(after, "counters", counters)
        return after

    def _chars(self, tops: Mapping[int, int], chars: tuple[str, ...]) -> Counter[str]:
        """The map's characters counted, from the number of cells each type is drawn on."""
        counts: Counter[str] = Counter()
        for t, n in tops.items():
            counts[chars[t]] += n
        floor = self.height * self.width - sum(tops.values())
        if floor:
            counts["."] += floor
        return counts

    @property
    def scores(self) -> tuple[float, ...]:
        return (float(self.game_score),)

    # -- what the episode metrics (engine.games.vgdl.metrics) and the views read -------------------

    @functools.cached_property
    def _grid(self) -> tuple[tuple[str, ...], dict[str, str]]:
        return ascii_grid(self.compiled, self.height, self.width, self.sprites)

    @property
    def ascii_rows(self) -> tuple[str, ...]:
        """The map, one string per row, one character per cell."""
        return self._grid[0]

    @property
    def legend(self) -> dict[str, str]:
        """Character → what it stands for, for the characters on the map now."""
        return dict(self._grid[1])

    @functools.cached_property
    def avatar(self) -> tuple[Any, ...] | None:
        types = self.compiled.types
        for s in self.sprites:
            if types[s[1]].is_avatar:
                return s
        return None

    @property
    def avatar_pos(self) -> tuple[int, int] | None:
        """The avatar's (row, col), or ``None`` once it is gone."""
        a = self.avatar
        return (a[2], a[3]) if a is not None else None

    @property
    def is_won(self) -> bool:
        return self.won is True

    @property
    def winner(self) -> Seat | None:
        return 0 if self.won is True else None

    def metrics(self) -> dict[str, float]:
        steps = self.tick
        meaningful, meaningful_1, nil = self.counters
        won = self.won is True
        return {
            "reward": float(self.game_score),
            "win": 1.0 if won else 0.0,
            "steps": float(steps),
            "meaningful_steps": float(meaningful),
            "meaningful_ratio": meaningful / steps if steps else 0.0,
            "meaningful_steps_1step": float(meaningful_1),
            "meaningful_ratio_1step": meaningful_1 / steps if steps else 0.0,
            "nil_actions": float(nil),
            "step_efficiency": max(0.0, 1.0 - steps / self.max_steps) if won else 0.0,
        }

    # -- text -------------------------------------------------------------------------------------

    def cells(self) -> dict[tuple[int, int], list[tuple[Any, ...]]]:
        found: dict[tuple[int, int], list[tuple[Any, ...]]] = {}
        for s in self.sprites:
            found.setdefault((s[2], s[3]), []).append(s)
        return found

    def text(self, seat: Seat | None = None) -> str:
        lines = ["=== Available Actions ==="]
        lines += [f"{i}: {a}" for i, a in enumerate(self.actions)]
        avatar = self.avatar
        if avatar is not None and self.compiled.types[avatar[1]].rotate:
            lines += [
                "",
                "=== Important Mechanics Notice ===",
                "A direction your avatar does not face only turns it; repeat the direction to move. "
                "Avoid null actions; read the state carefully and act meaningfully.",
            ]
        lines += ["", "=== Sprite Mapping ==="]
        lines += [f"{name} -> '{char}'" for char, name in self.legend.items()]
        lines += ["", "=== Current State ===", *self.ascii_rows]
        if self.coordinates:
            lines += ["", "=== Cells ===", self.cell_listing()]
        lines += ["", "=== Current Position ==="]
        pos = self.avatar_pos
        if pos is None:
            lines.append("Your avatar is gone.")
        else:
            facing = f", facing {DIR_WORDS[avatar[4]]}" if avatar is not None and avatar[4] else ""
            lines.append(
                f"Avatar at (row {pos[0]}, col {pos[1]}){facing}. Rows count from 0 at the top and "
                "columns from 0 at the left: UP is row - 1, DOWN row + 1, LEFT col - 1, RIGHT col + 1."
            )
            if self.adjacent:
                lines += [
                    "Around the avatar:",
                    *(
                        f"- {line}"
                        for line in adjacent_lines(self.compiled, self.cells(), pos, self.height, self.width)
                    ),
                ]
        if avatar is not None:
            held = ", ".join(f"{self.compiled.types[k].name} {n}" for k, n in avatar[13] if n)
            if held:
                lines.append(f"Your avatar holds: {held}")
            if self.compiled.types[avatar[1]].health:
                lines.append(f"Your avatar's health: {avatar[14]}")
        lines.append(f"Score: {self.game_score:g}   Step: {self.tick} of {self.max_steps}")
        if self.won is not None:
            lines.append("Game over: you won." if self.won else "Game over: you lost.")
        return "\n".join(lines)

    def cell_listing(self) -> str:
        """One line per cell that is not empty: ``row=R, col=C -> x (name)``."""
        rows = self.ascii_rows
        legend = self._grid[1]
        out = []
        for r, row in enumerate(rows):
            for c, char in enumerate(row):
                if char != ".":
                    out.append(f"row={r}, col={c} -> {char} ({legend.get(char, '?')})")
        return "\n".join(out)

    def text_table(self, seat: Seat | None = None) -> str:
        return "" if self.coordinates else self.cell_listing()

    def notice(self, seat: Seat | None = None) -> str:
        if self.won is None and self.max_steps - self.tick <= 20:
            return f"{self.max_steps - self.tick} steps left before the step cap"
        if self.won is False and self.tick >= self.max_steps:
            return f"The step cap ({self.max_steps}) was reached"
        return ""

    def annotate(self, action: Action, seat: Seat | None = None) -> str:
        if action == "ACTION_NIL":
            return "ACTION_NIL does nothing (not a meaningful step)"
        return ""

    # -- JSON ---------------------------------------------------------------------------------------

    def to_json(self) -> JsonDict:
        return {
            "game": self.gid,
            "vgdl": self.compiled.text,
            "source": self.compiled.source,
            "level": self.level_name,
            "size": [self.height, self.width],
            "sprites": [[*s[:13], [list(p) for p in s[13]], *s[14:]] for s in self.sprites],
            "next_id": self.next_id,
            "tick": self.tick,
            "score": self.game_score,
            "won": self.won,
            "seed": self.seed,
            "max_steps": self.max_steps,
            "last_action": self.last_action,
            "grounding": [self.coordinates, self.adjacent],
            "counters": list(self.counters),
            "recent": [list(p) if p is not None else None for p in self.recent],
            "timers": [list(t) for t in self.timers],
        }


def _int(value: Any, name: str, low: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"{name} must be a whole number of at least {low}")
    return value


def _sprite(item: Any, game: CompiledGame) -> tuple[Any, ...]:
    if isinstance(item, list) and len(item) == 15:
        item = [*item, -1.0, -1]  # written before sprites had their own speed and time to live
    if isinstance(item, list) and len(item) == 17:
        item = [*item, 0]  # written before sprites could be made part-way between cells
    if not isinstance(item, list) or len(item) != len(FIELDS):
        raise ValueError(f"a sprite is a list of {len(FIELDS)} fields")
    head = item[:13]
    for i, v in enumerate(head):
        if i == 9:
            if not isinstance(v, int | float) or isinstance(v, bool):
                raise ValueError("a sprite's progress is a number")
        elif not isinstance(v, int) or isinstance(v, bool):
            raise ValueError(f"a sprite's {FIELDS[i]} must be a whole number")
    if not 0 <= head[1] < len(game.types) or not 0 <= head[4] <= 4:
        raise ValueError("a sprite names a type or direction this game does not have")
    res = item[13]
    if not isinstance(res, list) or any(
        not isinstance(p, list)
        or len(p) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in p)
        for p in res
    ):
        raise ValueError("a sprite's resources are [type, amount] pairs")
    health, speed, ttl, side = item[14], item[15], item[16], item[17]
    if not isinstance(health, int) or isinstance(health, bool):
        raise ValueError("a sprite's health is a whole number")
    if not isinstance(speed, int | float) or isinstance(speed, bool):
        raise ValueError("a sprite's speed is a number")
    if not isinstance(ttl, int) or isinstance(ttl, bool):
        raise ValueError("a sprite's time to live is a whole number")
    if side not in (0, 1, 2, 3, 4):
        raise ValueError("a sprite's side is a direction (0 to 4)")
    head[9] = float(head[9])
    return (*head, tuple((p[0], p[1]) for p in res), health, float(speed), ttl, side)


class VgdlGame(Game):
    """Any VGDL game (GVGAI's grid games): ``game_file`` and ``level_file`` name the files."""

    id: ClassVar[str] = "vgdl"
    title: ClassVar[str] = "VGDL game"
    suites: ClassVar[tuple[str, ...]] = ("gvgai",)
    description: ClassVar[str] = "Any GVGAI game written in VGDL: a game file and an ASCII level file."
    seats = seats_of(["Player"])
    default_action: ClassVar[Action | None] = "ACTION_NIL"
    actions: ClassVar[tuple[Action, ...]] = ACTION_NAMES
    keymap: ClassVar[Mapping[str, Action]] = _KEYMAP
    controls: ClassVar[str] = "Arrows (or W A S D) move the avatar, Space uses its weapon (ACTION_USE)"
    bots: ClassVar[Mapping[str, str]] = _BOTS
    sim_behaviour: ClassVar[str | None] = _SIM
    raw_score: ClassVar[str | None] = "reward"
    common_options: ClassVar[tuple[Option, ...]] = (
        Option(
            "max_steps",
            int,
            DEFAULT_MAX_STEPS,
            "Steps after which an episode ends (lost unless won)",
            minimum=1,
            maximum=100_000,
        ),
        Option("realtime", bool, False, "Play in real time: the game ticks on without you (ACTION_NIL)"),
        Option("tick", float, 0.25, "Seconds per tick in real time", minimum=0.02, maximum=5.0),
        Option("coordinates", bool, False, "Text view: list every non-empty cell with its (row, col)"),
        Option("adjacent", bool, False, "Text view: describe the four cells around the avatar in words"),
    )
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option("game_file", str, "", "The VGDL game file (empty: PlayTrace's own Crates)"),
        Option("level_file", str, "", "The level file (empty: <game>_lvl0.txt beside the game file)"),
        *common_options,
    )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.max_steps: int = self.options["max_steps"]
        if self.options["realtime"]:
            self.tick_s = float(self.options["tick"])  # type: ignore[misc]  # an instance's own tick
        self._compiled: CompiledGame | None = None
        self._level: LevelData | None = None
        self._problem: VgdlError | None = None
        self._start: tuple[tuple[Any, ...], ...] = ()
        for key in ("game_file", "level_file"):
            # A session records the options: an absolute path still finds the file from elsewhere.
            if self.options.get(key) and Path(self.options[key]).expanduser().exists():
                self.options[key] = str(Path(self.options[key]).expanduser().resolve())
        try:
            game_path, level_path = self.files()
            self._compiled = compile_text(read_text(game_path, "game"), game_path.name)
            self._level = parse_level(read_text(level_path, "level"), level_path.name)
            self._start = initial_sprites(self._compiled, self._level)
        except VgdlError as exc:
            if isinstance(exc, VgdlError) and exc.detail.endswith("does not exist"):
                # A session saved elsewhere still replays: its states carry the game's text.
                self._problem = exc
            else:
                raise
        if self._compiled is not None:
            self.actions = self._compiled.actions  # type: ignore[misc]  # this game's avatar's actions

    def files(self) -> tuple[Path, Path]:
        """The game file and the level file these options name."""
        game_file = self.options["game_file"]
        if not game_file:
            return asset_files("crates", 0)
        game_path = Path(game_file).expanduser()
        level_file = self.options["level_file"]
        if level_file:
            return game_path, Path(level_file).expanduser()
        return game_path, game_path.with_name(f"{game_path.stem}_lvl0.txt")

    @property
    def compiled(self) -> CompiledGame:
        if self._compiled is None:
            assert self._problem is not None
            raise self._problem
        return self._compiled

    def initial_state(self, seed: int | None = None) -> VgdlState:
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"a VGDL seed is an integer, not {seed!r}")
        game = self.compiled
        assert self._level is not None
        level = self._level
        sprites = self._start
        return VgdlState(
            compiled=game,
            digest=game.digest,
            gid=self.id,
            level_name=level.source,
            height=level.height,
            width=level.width,
            sprites=sprites,
            next_id=len(sprites),
            seed=seed,
            max_steps=self.max_steps,
            coordinates=self.options["coordinates"],
            adjacent=self.options["adjacent"],
            timers=initial_timers(game),
        )

    def transition(self, before: State, after: State) -> Transition:
        assert isinstance(before, VgdlState) and isinstance(after, VgdlState)
        return Transition(
            rewards=(after.game_score - before.game_score,),
            changed=before.sprites != after.sprites or before.won != after.won,
        )

    def rules_text(self) -> str:
        if self._compiled is None:
            return f"The game's rules cannot be shown: {self._problem}"
        return rules_text(self._compiled, self._compiled.actions, self.max_steps)

    def legend_chars(self) -> tuple[str, ...]:
        """Every sprite type's map character (stable for the game), by type index."""
        return type_chars(self.compiled)

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read an action number (``"3"``), a GVGAI name (``"ACTION_LEFT"``) or a word (``"left"``).

        Raises:
            InvalidActionError: the text names no action.
            IllegalActionError: the game is over or the avatar has no such action.
        """
        if not isinstance(state, VgdlState):
            raise InvalidActionError("not a VGDL state")
        cleaned = text.strip().strip(".").strip()
        actions = state.actions
        found: str | None = None
        if re.fullmatch(r"\d+", cleaned):
            index = int(cleaned)
            if index >= len(actions):
                raise InvalidActionError(f"{cleaned} is not an action number (0 to {len(actions) - 1})")
            found = actions[index]
        else:
            word = cleaned.upper().replace(" ", "_")
            word = word if word.startswith("ACTION_") else f"ACTION_{word}"
            if word == "ACTION_NOOP" or word == "ACTION_NONE":
                word = "ACTION_NIL"
            if word in ACTION_NAMES:
                found = word
        if found is None:
            listed = ", ".join(f"{i}: {a}" for i, a in enumerate(actions))
            raise InvalidActionError(f"{text!r} is not an action; actions are {listed}")
        if state.is_over:
            raise IllegalActionError(f"the game is over; {found} cannot be played")
        if found not in actions:
            raise IllegalActionError(f"{found} is not an action of this avatar; it has {', '.join(actions)}")
        return found

    def state_from_json(self, data: JsonDict) -> VgdlState:
        with reading_state(data, self.id, self.title):
            text = data["vgdl"]
            source = data.get("source", "<game>")
            if not isinstance(text, str) or not isinstance(source, str):
                raise ValueError("vgdl and source must be text")
            if self._compiled is not None and text == self._compiled.text:
                game = self._compiled
            else:
                try:
                    game = compile_text(text, source)
                except VgdlError as exc:
                    raise ValueError(f"its VGDL description does not compile: {exc}") from None
                if self._compiled is None:
                    self._compiled = game
                    self.actions = game.actions  # type: ignore[misc]
            size = data["size"]
            if not isinstance(size, list) or len(size) != 2:
                raise ValueError("size is [height, width]")
            height, width = _int(size[0], "height", 1), _int(size[1], "width", 1)
            sprites = tuple(_sprite(s, game) for s in data["sprites"])
            won = data["won"]
            if won not in (None, True, False):
                raise ValueError("won must be true, false or null")
            score = data["score"]
            if not isinstance(score, int | float) or isinstance(score, bool):
                raise ValueError("score must be a number")
            last = data.get("last_action")
            if last is not None and last not in ACTION_NAMES:
                raise ValueError(f"{last!r} is not a VGDL action")
            grounding = data.get("grounding", [False, False])
            counters = data.get("counters", [0, 0, 0])
            if not isinstance(counters, list) or len(counters) != len(_COUNTERS):
                raise ValueError("counters must be three whole numbers")
            recent = tuple(
                None if p is None else (_int(p[0], "recent"), _int(p[1], "recent"))
                for p in data.get("recent", [])
            )
            timers = tuple(
                (_int(t[0], "timers", -(2**31)), _int(t[1], "timers"))
                for t in data.get("timers", [list(t) for t in initial_timers(game)])
                if isinstance(t, list) and len(t) == 2
            )
            if any(i >= len(game.timed) for _d, i in timers):
                raise ValueError("a timer names an effect this game does not have")
            level_name = data.get("level", "")
            if not isinstance(level_name, str):
                raise ValueError("level must be text")
            state = VgdlState(
                compiled=game,
                digest=game.digest,
                gid=self.id,
                level_name=level_name,
                height=height,
                width=width,
                sprites=sprites,
                next_id=_int(data["next_id"], "next_id"),
                tick=_int(data["tick"], "tick"),
                game_score=float(score),
                won=won,
                seed=_int(data["seed"], "seed", -(2**63)),
                max_steps=_int(data["max_steps"], "max_steps", 1),
                last_action=last,
                coordinates=bool(grounding[0]),
                adjacent=bool(grounding[1]),
                counters=tuple(_int(c, "counters") for c in counters),  # type: ignore[arg-type]
                recent=recent,
                timers=timers,
            )
        return state
