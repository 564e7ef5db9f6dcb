"""What PlayTrace's VGDL engine supports, and compiling a parsed description into a runnable game.

The catalogue below lists every sprite class, interaction effect and termination the engine runs on
its grid, with the parameters each accepts and their types. :func:`compile_game` checks a
:class:`~engine.games.vgdl.parser.GameDescription` against it: an unknown class, effect, termination
or parameter, a sprite name that is not defined, or a value of the wrong type is a
:class:`~engine.games.vgdl.parser.VgdlError` naming the file, the line and the feature, never a game
that quietly behaves differently from its description.

Cosmetic parameters of GVGAI's Java engine (``img``, ``autotiling``, ``frameRate``, ...) are accepted;
``img`` and ``color`` become drawing hints.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Mapping
from typing import Any

from engine.games.vgdl.parser import GameDescription, TerminationDef, VgdlError, parse_game

__all__ = [
    "ACTION_NAMES",
    "AVATAR_CLASSES",
    "COLORS",
    "DIRS",
    "EFFECTS",
    "SPRITE_CLASSES",
    "TERMINATIONS",
    "CompiledGame",
    "Effect",
    "SpriteType",
    "Termination",
    "compile_game",
    "compile_text",
]

#: Direction indices used everywhere: 0 none, 1 up, 2 left, 3 down, 4 right, as (d_row, d_col).
DIRS: tuple[tuple[int, int], ...] = ((0, 0), (-1, 0), (0, -1), (1, 0), (0, 1))
_DIR_NAMES = {"UP": 1, "LEFT": 2, "DOWN": 3, "RIGHT": 4, "NONE": 0}

#: The actions, as GVGAI names them; a game's legal actions are ACTION_NIL plus its avatar's.
ACTION_NAMES = ("ACTION_NIL", "ACTION_USE", "ACTION_LEFT", "ACTION_RIGHT", "ACTION_DOWN", "ACTION_UP")

#: GVGAI's named colours (RGB).
COLORS: dict[str, tuple[int, int, int]] = {
    "GREEN": (0, 200, 0),
    "BLUE": (0, 0, 200),
    "RED": (200, 0, 0),
    "GRAY": (90, 90, 90),
    "WHITE": (250, 250, 250),
    "BROWN": (140, 120, 100),
    "BLACK": (0, 0, 0),
    "ORANGE": (250, 160, 0),
    "YELLOW": (250, 250, 0),
    "PINK": (250, 200, 200),
    "GOLD": (250, 212, 0),
    "LIGHTRED": (250, 50, 50),
    "LIGHTORANGE": (250, 200, 100),
    "LIGHTBLUE": (50, 100, 250),
    "LIGHTGREEN": (50, 250, 50),
    "DARKGREEN": (35, 117, 29),
    "LIGHTYELLOW": (255, 250, 128),
    "LIGHTGRAY": (238, 238, 238),
    "DARKGRAY": (30, 30, 30),
    "DARKBLUE": (20, 20, 100),
    "PURPLE": (128, 0, 128),
}

# Parameter kinds: "float", "int", "bool", "str", "type" (a sprite name), "types" (comma-separated
# sprite names), "dir" (UP/DOWN/LEFT/RIGHT), "color", "score" (a number, or per-player numbers "1,0").
_COMMON_SPRITE = {
    "color": ("color", None),
    "img": ("str", ""),
    "shrinkfactor": ("float", 1.0),
    "hidden": ("flag", False),
    "invisible": ("flag", False),
    "autotiling": ("bool", False),
    "randomtiling": ("float", -1.0),
    "frameRate": ("float", -1.0),
    "orientation": ("dir", 0),
    "speed": ("speed", None),
    "cooldown": ("count", 0),
    "singleton": ("bool", False),
    "rotateInPlace": ("bool", None),
    "portal": ("bool", False),
    "physicstype": ("str", "GRID"),
    "healthPoints": ("count", 0),
    "maxHealthPoints": ("count", 0),
    "limitHealthPoints": ("count", 1000),
    "timeToLive": ("int", -1),
}
#: Parameters GVGAI's sprites accept that only matter in its continuous physics or its drawing: read,
#: checked and without effect on a grid.
_NO_EFFECT_ON_GRID = {
    "mass": ("float", 1.0),
    "gravity": ("float", 0.0),
    "friction": ("float", 0.0),
    "solid": ("bool", False),
    "jump_strength": ("float", 0.0),
    "max_speed": ("float", -1.0),
    "wMult": ("float", 1.0),
    "hMult": ("float", 1.0),
    "draw_arrow": ("bool", False),
    "orientedImg": ("str", ""),
    "stationary": ("bool", False),
    "is_stochastic": ("bool", False),
    "rotation": ("float", 0.0),
}


@dataclasses.dataclass(frozen=True, slots=True)
class _Class:
    """One sprite class: its behaviour ("kind"), defaults and own parameters."""

    kind: str
    params: Mapping[str, tuple[str, Any]]
    color: str | None = None
    speed: float = 0.0
    oriented: bool = False
    orientation: int = 0
    static: bool = False
    actions: tuple[str, ...] = ()
    rotate: bool = False
    cooldown: int = 0


_CHASE = {
    "stype": ("type", None),
    "fleeing": ("bool", False),
    "maxDistance": ("float", -1.0),
    "cons": ("count", 0),
}
_ALT_CHASE = {"stype1": ("types", None), "stype2": ("types", None), "cons": ("count", 0)}
_SPAWN = {
    "stype": ("type", None),
    "prob": ("prob", 1.0),
    "total": ("count", 0),
    "spawnorientation": ("dir", 0),
}
_MOVES = ("ACTION_LEFT", "ACTION_RIGHT", "ACTION_DOWN", "ACTION_UP")

#: Every sprite class the engine runs, by its VGDL name.
SPRITE_CLASSES: dict[str, _Class] = {
    "Immovable": _Class("static", {}, "GRAY", static=True),
    "Door": _Class("static", {}, None, static=True),
    "Passive": _Class("passive", {}, "RED"),
    "Resource": _Class("resource", {"value": ("int", 1), "limit": ("int", 2)}, "YELLOW"),
    "ResourcePack": _Class("resource", {"value": ("int", 1), "limit": ("int", 2)}, "YELLOW"),
    "Flicker": _Class("flicker", {"limit": ("int", 1)}, "RED"),
    "OrientedFlicker": _Class("flicker", {"limit": ("int", 1)}, "RED", oriented=True),
    "Spreader": _Class(
        "spreader", {"limit": ("count", 1), "stype": ("type", ""), "spreadprob": ("prob", 1.0)}, "RED"
    ),
    "Conveyor": _Class("static", {}, "BLUE", static=True, oriented=True),
    "Missile": _Class("missile", {}, None, speed=1.0, oriented=True),
    "RandomMissile": _Class("randommissile", {}, None, speed=1.0, oriented=True),
    "RandomNPC": _Class("random", {"cons": ("count", 0)}, None, speed=1.0),
    "Chaser": _Class("chaser", _CHASE, None, speed=1.0),
    "Fleeing": _Class("fleeing", _CHASE, None, speed=1.0),
    "LOSChaser": _Class("loschaser", _CHASE, None, speed=1.0),
    "PathChaser": _Class("pathchaser", _CHASE, None, speed=1.0),
    "AlternateChaser": _Class("altchaser", _ALT_CHASE, None, speed=1.0),
    "RandomAltChaser": _Class("altchaser", {**_ALT_CHASE, "epsilon": ("prob", 0.0)}, None, speed=1.0),
    "PathAltChaser": _Class(
        "pathaltchaser", {**_ALT_CHASE, "randomTarget": ("bool", False)}, None, speed=1.0
    ),
    "RandomPathAltChaser": _Class(
        "pathaltchaser",
        {**_ALT_CHASE, "randomTarget": ("bool", False), "epsilon": ("prob", 0.0)},
        None,
        speed=1.0,
    ),
    "SpawnPoint": _Class("spawn", _SPAWN, "BLACK", static=True, cooldown=1),
    "SpawnPointMultiSprite": _Class(
        "spawn",
        {**{k: v for k, v in _SPAWN.items() if k != "stype"}, "stypes": ("types", None)},
        "BLACK",
        static=True,
        cooldown=1,
    ),
    "Bomber": _Class("spawn", _SPAWN, "ORANGE", oriented=True, orientation=4, cooldown=1),
    "BomberRandomMissile": _Class(
        "spawn",
        {**{k: v for k, v in _SPAWN.items() if k != "stype"}, "stypeMissile": ("types", None)},
        "ORANGE",
        oriented=True,
        orientation=4,
        cooldown=1,
    ),
    "RandomBomber": _Class(
        "randombomber", _SPAWN, "ORANGE", speed=1.0, oriented=True, orientation=4, cooldown=1
    ),
    "Portal": _Class("portal", {"stype": ("type", None)}, "BLUE", static=True),
    "MovingAvatar": _Class("avatar", {}, "WHITE", speed=1.0, actions=_MOVES),
    "HorizontalAvatar": _Class("avatar", {}, "WHITE", speed=1.0, actions=("ACTION_LEFT", "ACTION_RIGHT")),
    "VerticalAvatar": _Class("avatar", {}, "WHITE", speed=1.0, actions=("ACTION_UP", "ACTION_DOWN")),
    "OrientedAvatar": _Class(
        "avatar", {}, "WHITE", speed=1.0, oriented=True, orientation=4, actions=_MOVES, rotate=True
    ),
    "ShootAvatar": _Class(
        "shoot",
        {"stype": ("types", None), "ammo": ("types", None)},
        "WHITE",
        speed=1.0,
        oriented=True,
        orientation=4,
        actions=("ACTION_USE", *_MOVES),
        rotate=True,
    ),
    "OngoingAvatar": _Class("ongoing", {}, "WHITE", speed=1.0, oriented=True, orientation=4, actions=_MOVES),
    "OngoingTurningAvatar": _Class(
        "ongoingturning",
        {"spawnBehind": ("type", "")},
        "WHITE",
        speed=1.0,
        oriented=True,
        orientation=4,
        actions=_MOVES,
    ),
    "OngoingShootAvatar": _Class(
        "ongoingshoot",
        {"stype": ("types", None), "ammo": ("types", None)},
        "WHITE",
        speed=1.0,
        oriented=True,
        orientation=4,
        actions=("ACTION_USE", *_MOVES),
    ),
    "MissileAvatar": _Class(
        "missileavatar", {}, "WHITE", speed=1.0, oriented=True, orientation=4, actions=_MOVES
    ),
    "FlakAvatar": _Class(
        "flak",
        {"stype": ("type", None), "ammo": ("type", None), "minAmmo": ("int", -1), "ammoCost": ("count", 1)},
        "GREEN",
        speed=1.0,
        actions=("ACTION_USE", "ACTION_LEFT", "ACTION_RIGHT"),
    ),
}
AVATAR_CLASSES = frozenset(n for n, c in SPRITE_CLASSES.items() if c.actions)

_SCORE = {"scoreChange": ("score", 0.0)}
_RES = {"resource": ("type", None), "limit": ("int", 0)}
_TO = {"stype": ("type", None), "killSecond": ("bool", False), "forceOrientation": ("bool", False)}

#: Parameters every effect of GVGAI takes (its ``Effect`` base): the score, a probability (read only by
#: the effects that roll it: spawns and attractGaze), how many times the rule is listed (``repeat``),
#: the counters of several-player games (no effect with one player), and the clock of an effect on
#: ``TIME`` (``timer``, ``repeating``, ``nextExecution``).
_EFFECT_BASE: dict[str, tuple[str, Any]] = {
    **_SCORE,
    "prob": ("prob", 1.0),
    "repeat": ("repeat", 1),
    "count": ("bool", True),
    "counter": ("str", "0"),
    "countElse": ("bool", True),
    "counterElse": ("str", "0"),
    "applyScore": ("bool", True),
    "timer": ("int", -1),
    "repeating": ("bool", False),
    "nextExecution": ("int", -1),
}
#: The effects that roll ``prob`` (in GVGAI every other effect ignores it).
_ROLLS_PROB = frozenset(
    {
        "spawn",
        "spawnIfHasMore",
        "spawnIfHasLess",
        "spawnBehind",
        "spawnRight",
        "spawnLeft",
        "spawnAbove",
        "spawnBelow",
        "attractGaze",
    }
)
_CLOCK = frozenset({"timer", "repeating", "nextExecution"})

#: Every interaction effect: its own parameters (besides those of :data:`_EFFECT_BASE`).
EFFECTS: dict[str, dict[str, tuple[str, Any]]] = {
    "stepBack": {"pixelPerfect": ("bool", False)},
    "killSprite": {},
    "killBoth": {},
    "killAll": {"stype": ("type", None)},
    "bounceForward": {},
    "cloneSprite": {},
    "spawn": {"stype": ("type", None)},
    "transformTo": dict(_TO),
    "pullWithIt": {"pixelPerfect": ("bool", False)},
    "turnAround": {},
    "reverseDirection": {},
    "flipDirection": {},
    "changeResource": {"resource": ("type", None), "value": ("int", 1), "killResource": ("bool", False)},
    "collectResource": {"killResource": ("bool", True)},
    "collectResourceIfHeld": {
        "heldResource": ("type", None),
        "value": ("int", 1),
        "killResource": ("bool", True),
    },
    "killIfHasLess": dict(_RES),
    "killIfHasMore": dict(_RES),
    "killIfOtherHasMore": {**_RES, "subtract": ("bool", False)},
    "killIfOtherHasLess": dict(_RES),
    "killIfFromAbove": {},
    "killIfScoreNegative": {},
    "spawnIfHasMore": {**_RES, "stype": ("type", None), "spend": ("int", 0)},
    "undoAll": {"notStype": ("types", ())},
    "teleportToExit": {},
    "wrapAround": {"offset": ("int", 0)},
    "attractGaze": {"align": ("bool", False)},
    "align": {"orient": ("bool", True)},
    "transformToAll": {**_TO, "stypeTo": ("type", None)},
    "transformIfCount": {
        "stype": ("type", None),
        "stypeCount": ("type", None),
        "geq": ("int", 0),
        "leq": ("int", 1_000_000),
        "estype": ("type", ""),
    },
    "transformToRandomChild": {"stype": ("type", None)},
    "transformToSingleton": {
        "stype": ("type", None),
        "stype_other": ("type", None),
        "takeOrientation": ("bool", False),
    },
    "spawnIfHasLess": {**_RES, "stype": ("type", None)},
    "spawnBehind": {"stype": ("type", None)},
    "spawnRight": {"stype": ("type", None), "stepBack": ("bool", False)},
    "spawnLeft": {"stype": ("type", None), "stepBack": ("bool", False)},
    "spawnAbove": {"stype": ("type", None), "stepBack": ("bool", False)},
    "spawnBelow": {"stype": ("type", None), "stepBack": ("bool", False)},
    "killIfFrontal": {},
    "killIfNotFrontal": {},
    "subtractHealthPoints": {
        "value": ("int", 1),
        "limit": ("int", 0),
        "stype": ("type", ""),
        "scoreChangeIfKilled": ("score", 0.0),
    },
    "addHealthPoints": {"value": ("int", 1), "killSecond": ("bool", False)},
    "addHealthPointsToMax": {"value": ("int", 1), "killSecond": ("bool", False)},
    "shieldFrom": {"stype": ("type", None), "ftype": ("effect", None)},
    "setSpeedForAll": {"stype": ("type", None), "value": ("speed", 0.0)},
    "addTimer": {"ftype": ("effect", None)},
}
#: Effects that need the second sprite (they make no sense at the end of the screen, EOS).
_BINARY = frozenset(
    {
        "killBoth",
        "bounceForward",
        "pullWithIt",
        "collectResource",
        "collectResourceIfHeld",
        "killIfOtherHasMore",
        "killIfOtherHasLess",
        "killIfFromAbove",
        "teleportToExit",
        "attractGaze",
    }
)

#: Every termination condition and its parameters (besides ``win`` and ``scoreChange``).
TERMINATIONS: dict[str, dict[str, tuple[str, Any]]] = {
    "SpriteCounter": {"stype": ("type", None), "limit": ("int", 0)},
    "SpriteCounterMore": {"stype": ("type", None), "limit": ("int", 0)},
    "MultiSpriteCounter": {"limit": ("int", 0), "min": ("bool", False)},
    "MultiSpriteCounterSubTypes": {
        "stype1": ("type", None),
        "limit": ("int", 0),
        "subTypesNum": ("int", -1),
    },
    "Timeout": {
        "limit": ("int", 0),
        # Several-player scoring of GVGAI's Timeout (no effect with one player).
        "use_counter": ("bool", False),
        "compare": ("bool", False),
        "limits": ("str", "0"),
    },
}
_TERMINATION_BASE = {"count_score": ("bool", False)}

_GAME_PARAMS = {
    "square_size": ("int", 0),
    "key_handler": ("str", ""),
    "no_players": ("int", 1),
    "no_counters": ("int", 0),
    # The obstacles of GVGAI's path finder (PathChaser, PathAltChaser).
    "obs": ("types", ()),
}

#: Effects that only read the sprite they apply to (they may kill it or put another in its place).
_READ_ONLY_ACTOR = frozenset(
    {
        "killSprite",
        "killBoth",
        "killAll",
        "cloneSprite",
        "spawn",
        "transformTo",
        "killIfHasLess",
        "killIfHasMore",
        "killIfOtherHasMore",
        "killIfOtherHasLess",
        "killIfFromAbove",
        "killIfScoreNegative",
        "spawnIfHasLess",
        "spawnBehind",
        "spawnRight",
        "spawnLeft",
        "spawnAbove",
        "spawnBelow",
        "killIfFrontal",
        "killIfNotFrontal",
        "transformToAll",
        "transformIfCount",
        "transformToRandomChild",
        "shieldFrom",
        "addTimer",
        "setSpeedForAll",
        "collectResource",
        "collectResourceIfHeld",
    }
)
#: Effects that change the other sprite of the collision (its resources).
_CHANGES_OTHER = frozenset({"collectResource", "collectResourceIfHeld", "killIfOtherHasMore"})

#: The most sprites a game holds at once (GVGAI's MAX_SPRITES): more are not created.
MAX_SPRITES = 10_000
#: Bounds on numbers that are read, so that nonsense cannot run away (no real game comes near).
_MAX_INT = 2**31 - 1
_MAX_REPEAT = 100


@dataclasses.dataclass(frozen=True, slots=True)
class SpriteType:
    """One sprite type of a compiled game (a node of the SpriteSet tree)."""

    index: int
    name: str
    #: The names from the top of the tree down to this type (``("movable", "avatar", "nokey")``).
    path: tuple[str, ...]
    cls: str
    kind: str
    params: Mapping[str, Any]
    #: This type and its ancestors (indices): what a rule about any of them applies to.
    itypes: frozenset[int]
    is_avatar: bool
    oriented: bool
    orientation: int
    speed: float
    cooldown: int
    singleton: bool
    rotate: bool
    color: tuple[int, int, int]
    #: A drawing hint taken from ``img=`` and the class (``"wall"``, ``"gem"``, ``"avatar"`` ...).
    shape: str
    shrink: float
    invisible: bool
    #: Whether the type moves or acts by itself, so the tick must update it.
    active: bool
    #: Health points a new sprite starts with, and the most it can have.
    health: int = 0
    health_limit: int = 1000
    #: The line that defines it (0 for GVGAI's implicit ``wall`` and ``avatar``).
    line: int = 0
    #: A parent node of the tree: it passes parameters to its children and is no sprite of its own
    #: (GVGAI neither updates nor validates it unless a level or an effect creates one).
    abstract: bool = False
    #: Why a parent node cannot be created (a parameter only its children give), or ``None``.
    problem: str | None = None
    #: Ticks a new sprite lives (GVGAI's ``timeToLive``; -1: for ever).
    ttl: int = -1


@dataclasses.dataclass(frozen=True, slots=True)
class Effect:
    name: str
    params: Mapping[str, Any]
    score: float
    line: int
    #: ``addTimer``: the index in :attr:`CompiledGame.timed` of the effect it schedules.
    timed: int = -1


@dataclasses.dataclass(frozen=True, slots=True)
class TimedEffect:
    """An effect run by the clock: a ``X TIME > effect`` rule, or what an ``addTimer`` schedules.

    Attributes:
        itype: The type whose sprites (subtypes included) the effect applies to; -1: no sprite.
        effect: The effect (its score is given once per sprite it applies to, or once without one).
        timer: Ticks between runs (a repeating rule), or before the run (an ``addTimer``).
        repeating: Whether it runs again ``timer`` ticks after each run.
        first: The tick of the first run of a ``TIME`` rule (GVGAI's ``nextExecution``; -1: the first tick).
        native: Whether it is a ``TIME`` rule of the file (scheduled from the start) rather than an
            ``addTimer``'s effect (scheduled when the timer is added).
    """

    itype: int
    effect: Effect
    timer: int
    repeating: bool
    first: int
    native: bool


@dataclasses.dataclass(frozen=True, slots=True)
class Termination:
    cls: str
    #: The counted types (indices, subtypes included) of counters.
    counted: frozenset[int]
    limit: int
    win: bool
    score: float
    line: int
    #: The names the condition counts, for the rules text.
    names: tuple[str, ...]
    #: MultiSpriteCounterSubTypes: how many of the counted type's subtypes must have sprites, and which.
    kinds: int = -1
    kind_types: tuple[int, ...] = ()
    #: MultiSpriteCounter ``min=True``: more than ``limit`` ends the game too.
    at_least: bool = False


@dataclasses.dataclass(frozen=True, eq=False)
class CompiledGame:
    """A VGDL game ready to run: typed sprite types, interaction rules and end conditions."""

    description: GameDescription
    digest: str
    types: tuple[SpriteType, ...]
    by_name: Mapping[str, int]
    #: For each type, itself and every descendant (indices; the type first, then its subtree in order).
    subtypes: tuple[tuple[int, ...], ...]
    mapping: Mapping[str, tuple[int, ...]]
    #: Collision rules in the order GVGAI applies them: (actor type, other type, effects).
    pairs: tuple[tuple[int, int, tuple[Effect, ...]], ...]
    #: End-of-screen rules: (actor type, effects).
    eos: tuple[tuple[int, tuple[Effect, ...]], ...]
    terminations: tuple[Termination, ...]
    #: Resource limits by resource type index.
    limits: Mapping[int, int]
    #: The legal actions of the avatar type, ACTION_NIL first; every avatar type of the game.
    avatar_actions: Mapping[int, tuple[str, ...]]
    #: Types updated by the tick, in GVGAI's order (the reverse of its sprite order).
    update_order: tuple[int, ...]
    #: Effects run by the clock: ``TIME`` rules and what ``addTimer`` rules schedule, in the file's order.
    timed: tuple[TimedEffect, ...] = ()
    #: Level characters whose mapping cannot be used: character -> (line, what is wrong).
    mapping_problems: Mapping[str, tuple[int, str]] = dataclasses.field(default_factory=dict)
    #: Types the path finder avoids (``BasicGame obs=...``).
    obstacles: frozenset[int] = frozenset()
    #: What the file says that the reference engine also ignores or overrides, as (line, message).
    warnings: tuple[tuple[int, str], ...] = ()

    @property
    def text(self) -> str:
        return self.description.text

    @property
    def source(self) -> str:
        return self.description.source

    @functools.cached_property
    def actions(self) -> tuple[str, ...]:
        """The avatar's actions (ACTION_NIL first), from the first avatar type of the SpriteSet that a
        level can hold (a parent node only when no leaf is an avatar)."""
        for abstract in (False, True):
            for t in self.types:
                if t.is_avatar and t.abstract == abstract and t.problem is None:
                    return self.avatar_actions[t.index]
        return ("ACTION_NIL",)

    def type_of(self, name: str) -> SpriteType:
        return self.types[self.by_name[name]]

    @functools.cached_property
    def pair_index(
        self,
    ) -> tuple[
        tuple[int, int, tuple[Effect, ...], tuple[int, ...], dict[int, int], tuple[int, ...], frozenset[int]],
        ...,
    ]:
        """:attr:`pairs` with what the tick looks up for each: the first kind's types and their
        order, the second kind's types, as a tuple and as a set."""
        return tuple(
            (
                a,
                b,
                es,
                self.subtypes[a],
                {t: i for i, t in enumerate(self.subtypes[a])},
                self.subtypes[b],
                frozenset(self.subtypes[b]),
            )
            for a, b, es in self.pairs
        )

    @functools.cached_property
    def may_reach(self) -> bool:
        """Whether a sprite can ever be part-way between cells (a speed that is not a whole number, or
        one an effect sets), so that collisions must look beyond each sprite's own cell."""
        speeds = [t.speed for t in self.types] + [
            float(e.params["value"]) for _a, _b, es in self.pairs for e in es if e.name == "setSpeedForAll"
        ]
        if any(e.effect.name == "setSpeedForAll" for e in self.timed):
            return True
        return any(not float(v).is_integer() for v in speeds) or any(
            e.name == "setSpeedForAll" for _a, es in self.eos for e in es
        )

    @functools.cached_property
    def rules_for(self) -> dict[tuple[int, int], tuple[int, ...]]:
        """(type of a sprite, type of the sprite it meets) -> the collision rules (numbers in
        :attr:`pair_index`) that apply to the first."""
        found: dict[tuple[int, int], list[int]] = {}
        for n, (a, b, _es) in enumerate(self.pairs):
            for t1 in self.subtypes[a]:
                for t2 in self.subtypes[b]:
                    found.setdefault((t1, t2), []).append(n)
        return {k: tuple(v) for k, v in found.items()}

    @functools.cached_property
    def frozen(self) -> tuple[bool, ...]:
        """Per type: whether nothing ever changes one of its sprites in place (it never acts, no effect
        moves or alters it; it can only be killed or replaced), so the tick need not copy it."""
        changed: set[int] = {i for i in self.update_order}
        changed |= {t.index for t in self.types if t.is_avatar or t.active}
        rules = [(a, b, es) for a, b, es in self.pairs] + [(a, -1, es) for a, es in self.eos]
        rules += [(t.itype, -1, (t.effect,)) for t in self.timed if t.itype >= 0]
        effects = [e for _a, _b, es in rules for e in es] + [t.effect for t in self.timed]
        for actor, other, es in rules:
            for e in es:
                # stepBack and undoAll only put back what moved this tick, and these never move.
                if e.name not in _READ_ONLY_ACTOR and e.name not in ("stepBack", "undoAll"):
                    changed.update(self.subtypes[actor])
                if other >= 0 and e.name in _CHANGES_OTHER:
                    changed.update(self.subtypes[other])
        for e in effects:
            if e.name == "setSpeedForAll" or (e.name == "subtractHealthPoints" and e.params.get("stype")):
                changed.update(self.subtypes[self.by_name[e.params["stype"]]])
        return tuple(i not in changed for i in range(len(self.types)))


def _number(raw: str, source: str, line: int, where: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise VgdlError(source, line, f"{where}: expected a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise VgdlError(source, line, f"{where}: expected a finite number")
    return value


def _whole(raw: str, source: str, line: int, where: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        as_float = _number(raw, source, line, where)
        if not as_float.is_integer():
            raise VgdlError(source, line, f"{where}: expected a whole number") from None
        value = int(as_float)
    if abs(value) > _MAX_INT:
        raise VgdlError(source, line, f"{where}: expected a whole number between -{_MAX_INT} and {_MAX_INT}")
    return value


def _value(kind: str, raw: str, source: str, line: int, key: str, names: Mapping[str, int]) -> Any:
    where = f"parameter {key}={raw}"
    if kind == "float":
        value = _number(raw, source, line, where)
        if abs(value) > _MAX_INT:
            raise VgdlError(source, line, f"{where}: expected a number between -{_MAX_INT} and {_MAX_INT}")
        return value
    if kind == "prob":
        value = _number(raw, source, line, where)
        if not 0.0 <= value <= 1.0:
            raise VgdlError(source, line, f"{where}: a probability is between 0 and 1")
        return value
    if kind == "speed":
        value = _number(raw, source, line, where)
        if not 0.0 <= value <= 1000.0:
            raise VgdlError(source, line, f"{where}: a speed is between 0 and 1000 (cells per move)")
        return value
    if kind == "int":
        return _whole(raw, source, line, where)
    if kind == "count":
        value = _whole(raw, source, line, where)
        if value < 0:
            raise VgdlError(source, line, f"{where}: expected a whole number of at least 0")
        return value
    if kind == "repeat":
        value = _whole(raw, source, line, where)
        if not 1 <= value <= _MAX_REPEAT:
            raise VgdlError(source, line, f"{where}: expected a whole number from 1 to {_MAX_REPEAT}")
        return value
    if kind == "bool":
        low = raw.lower()
        if low not in ("true", "false"):
            raise VgdlError(source, line, f"{where}: expected True or False")
        return low == "true"
    if kind == "str":
        return raw
    if kind == "flag":
        # GVGAI's per-player flags ("True,False"); the first is this player's.
        return _value("bool", raw.split(",")[0], source, line, key, names)
    if kind == "score":
        # GVGAI's scores are whole numbers (per player: "1,0"); the first is this player's.
        first = raw.split(",")[0]
        return float(_whole(first, source, line, where))
    if kind == "dir":
        if raw.upper() not in _DIR_NAMES:
            raise VgdlError(source, line, f"{where}: expected UP, DOWN, LEFT or RIGHT")
        return _DIR_NAMES[raw.upper()]
    if kind == "color":
        if raw.upper() not in COLORS:
            raise VgdlError(source, line, f"{where}: unknown colour; known: {', '.join(sorted(COLORS))}")
        return raw.upper()
    if kind == "effect":
        if raw not in EFFECTS or raw in ("addTimer", "shieldFrom"):
            raise VgdlError(source, line, f"{where}: the effect {raw!r} is not supported in PlayTrace")
        return raw
    if kind in ("type", "types"):
        parts = tuple(p for p in raw.split(",") if p)
        for part in parts:
            if part not in names:
                raise VgdlError(source, line, f"{where}: no sprite is called {part!r}")
        if kind == "type":
            if len(parts) != 1:
                raise VgdlError(source, line, f"{where}: expected one sprite name")
            return parts[0]
        return parts
    raise AssertionError(kind)


def _read_params(
    given: tuple[tuple[str, str], ...],
    spec: Mapping[str, tuple[str, Any]],
    source: str,
    line: int,
    owner: str,
    names: Mapping[str, int],
    warnings: list[tuple[int, str]] | None = None,
) -> dict[str, Any]:
    """The typed values of ``given``. A parameter ``spec`` does not know is refused, or, with
    ``warnings``, noted there and ignored (GVGAI ignores parameters its classes do not have)."""
    values: dict[str, Any] = {}
    for key, raw in given:
        if key not in spec:
            if warnings is not None:
                warnings.append((line, f"{owner} has no parameter {key!r}; it is ignored (as in GVGAI)"))
                continue
            known = ", ".join(sorted(spec)) or "none"
            raise VgdlError(
                source, line, f"{owner} has no parameter {key!r} in PlayTrace (supported: {known})"
            )
        values[key] = _value(spec[key][0], raw, source, line, key, names)
    return values


_SHAPE_WORDS = (
    ("wall", "wall"),
    ("floor", "floor"),
    ("back", "floor"),
    ("ground", "floor"),
    ("key", "key"),
    ("door", "door"),
    ("goal", "door"),
    ("exit", "door"),
    ("cheese", "gem"),
    ("diamond", "gem"),
    ("gem", "gem"),
    ("crystal", "gem"),
    ("jewel", "gem"),
    ("chest", "box"),
    ("coin", "gem"),
    ("box", "box"),
    ("block", "box"),
    ("crate", "box"),
    ("hole", "hole"),
    ("cspell", "hole"),
    ("boulder", "rock"),
    ("mineral", "rock"),
    ("rock", "rock"),
    ("planet", "rock"),
    ("portal", "portal"),
    ("bullet", "bullet"),
    ("missile", "bullet"),
    ("bomb", "bullet"),
    ("sword", "blade"),
    ("slash", "blade"),
    ("pickaxe", "blade"),
    ("alien", "creature"),
    ("bat", "creature"),
    ("spider", "creature"),
    ("scorpion", "creature"),
    ("monster", "creature"),
    ("ghost", "creature"),
    ("enemy", "creature"),
)


def _shape(name: str, img: str, kind: str, is_avatar: bool) -> str:
    if is_avatar:
        return "avatar"
    for text in (img.lower(), name.lower()):
        for word, shape in _SHAPE_WORDS:
            if word in text:
                return shape
    return {
        "missile": "bullet",
        "random": "creature",
        "chaser": "creature",
        "fleeing": "creature",
        "altchaser": "creature",
        "spawn": "portal",
        "portal": "portal",
        "resource": "gem",
        "flicker": "blade",
        "passive": "box",
    }.get(kind, "square")


def _fallback_color(name: str) -> tuple[int, int, int]:
    digest = hashlib.sha256(name.encode()).digest()
    return (60 + digest[0] % 160, 60 + digest[1] % 160, 60 + digest[2] % 160)


def _referenced(desc: GameDescription, name: str) -> bool:
    """Whether the file names ``name`` anywhere but in the SpriteSet's names."""
    values = [v for s in desc.sprites for _k, v in s.params]
    values += [v for i in desc.interactions for _k, v in i.params]
    values += [v for t in desc.terminations for _k, v in t.params]
    values += [v for _k, v in desc.params]
    if any(name in v.split(",") for v in values):
        return True
    if any(name in (i.actor, *i.others) for i in desc.interactions):
        return True
    return any(name in targets for _c, targets, _l in desc.mapping)


def _tree(desc: GameDescription) -> tuple[list[int], list[list[int]]]:
    """Each definition's parent definition (-1 at the top) and children, as indices of ``desc.sprites``."""
    parents: list[int] = []
    latest: dict[str, int] = {}
    children: list[list[int]] = [[] for _ in desc.sprites]
    for i, sdef in enumerate(desc.sprites):
        parent = latest[sdef.parent] if sdef.parent else -1
        parents.append(parent)
        if parent >= 0:
            children[parent].append(i)
        latest[sdef.name] = i
    return parents, children


def compile_game(desc: GameDescription) -> CompiledGame:
    """Check ``desc`` against what the engine supports and build the runnable game.

    The SpriteSet is resolved as GVGAI resolves it: a node passes its parameters to its children, and
    its class too (a class written on a parent wins over the children's); a node with children is a
    parent, not a sprite, and is only checked as a sprite when something creates one; a name defined
    twice is one type, and the later definition counts. ``wall`` and ``avatar`` exist even when the
    file does not define them (an immovable wall and a moving avatar), as in GVGAI.

    Raises:
        VgdlError: an unsupported class, effect, termination or parameter (named, with its line), a
            value out of its range, or a reference to a sprite that is not defined.
    """
    src = desc.source
    warnings: list[tuple[int, str]] = list(desc.warnings)
    if desc.game_class != "BasicGame":
        raise VgdlError(
            src, 1, f"the game class {desc.game_class!r} is not supported in PlayTrace (only BasicGame)"
        )
    defs = desc.sprites
    parents, children = _tree(desc)
    names: dict[str, int] = {}
    for sdef in defs:
        names.setdefault(sdef.name, len(names))
    implicit = [n for n in ("wall", "avatar") if n not in names and _referenced(desc, n)]
    for n in implicit:
        names[n] = len(names)
    game_params = _read_params(desc.params, _GAME_PARAMS, src, 1, "BasicGame", names, warnings)
    if game_params.get("no_players", 1) != 1:
        raise VgdlError(src, 1, "games for several players (no_players) are not supported in PlayTrace")
    # Per definition: the class its parent passes down, its class and where that was written, its
    # parameters (with the line each was written on), its chain of names and its subtree.
    passed: list[tuple[str, int]] = []
    params_at: list[dict[str, tuple[str, int]]] = []
    chains: list[list[str]] = []
    for i, sdef in enumerate(defs):
        parent = parents[i]
        if parent < 0:
            passed.append(("", 0))
            params_at.append({})
            chains.append([])
        else:
            pdef = defs[parent]
            passed.append((pdef.cls, pdef.line) if pdef.cls else passed[parent])
            params_at.append(dict(params_at[parent]))
            chains.append(list(chains[parent]))
        for key, raw in sdef.params:
            params_at[i][key] = (raw, sdef.line)
        chains[i].append(sdef.name)
    last_def = {sdef.name: i for i, sdef in enumerate(defs)}

    def subtree(i: int) -> list[str]:
        found = [defs[i].name]
        for child in children[i]:
            found += [n for n in subtree(child) if n not in found]
        return found

    types: list[SpriteType] = []
    for name, index in names.items():
        if name in last_def:
            i = last_def[name]
            sdef = defs[i]
            cls_name, cls_line = passed[i] if passed[i][0] else (sdef.cls, sdef.line)
            abstract = bool(children[i])
            chain = chains[i]
            written = params_at[i]
            line = sdef.line
        else:  # GVGAI's implicit wall and avatar
            line = 0
            cls_name, cls_line = ("Immovable", 0) if name == "wall" else ("MovingAvatar", 0)
            abstract, chain, written = False, [name], {}
        try:
            t = _sprite_type(index, name, chain, cls_name, cls_line, written, names, src, abstract, warnings)
        except VgdlError as exc:
            if not abstract:
                raise
            t = _sprite_type(index, name, chain, "", 0, {}, names, src, True, [])
            t = dataclasses.replace(t, problem=f"line {exc.line}: {exc.detail}")
        types.append(dataclasses.replace(t, line=line))
    subtypes_list: list[tuple[int, ...]] = []
    for name in names:
        if name in last_def:
            subtypes_list.append(tuple(names[n] for n in subtree(last_def[name])))
        else:
            subtypes_list.append((names[name],))
    subtypes = tuple(subtypes_list)
    mapping, mapping_problems = _mapping(desc, names, types)
    limits = {t.index: int(t.params["limit"]) for t in types if t.kind == "resource"}
    timed: list[TimedEffect] = []
    pairs, eos = _interactions(desc, names, types, limits, timed, warnings)
    terminations = tuple(_termination(t, names, subtypes, src, warnings) for t in desc.terminations)
    avatar_actions = {t.index: ("ACTION_NIL", *SPRITE_CLASSES[t.cls].actions) for t in types if t.is_avatar}
    if not avatar_actions:
        raise VgdlError(
            src, None, "the game has no avatar; expected a sprite of an avatar class (MovingAvatar ...)"
        )
    _check_created(desc, types, names, pairs, eos, timed)
    # GVGAI's sprite order: wall and avatar first, then every leaf in the order of the file (a name
    # defined again moves to its later place); the tick updates in the reverse order.
    order: list[int] = [names[n] for n in ("wall", "avatar") if n in names]
    for i, sdef in enumerate(defs):
        if not children[i]:
            index = names[sdef.name]
            if index in order:
                order.remove(index)
            order.append(index)
    update_order = tuple(
        i for i in reversed(order) if types[i].active and not types[i].is_avatar and not types[i].abstract
    )
    obstacles = frozenset(i for n in game_params.get("obs", ()) for i in subtypes[names[n]])
    digest = hashlib.sha256(desc.text.encode("utf-8")).hexdigest()[:16]
    return CompiledGame(
        description=desc,
        digest=digest,
        types=tuple(types),
        by_name=names,
        subtypes=subtypes,
        mapping=mapping,
        pairs=pairs,
        eos=eos,
        terminations=terminations,
        limits=limits,
        avatar_actions=avatar_actions,
        update_order=update_order,
        timed=tuple(timed),
        mapping_problems=mapping_problems,
        obstacles=obstacles,
        warnings=tuple(warnings),
    )


def _sprite_type(
    index: int,
    name: str,
    chain: list[str],
    cls_name: str,
    cls_line: int,
    written: Mapping[str, tuple[str, int]],
    names: Mapping[str, int],
    src: str,
    abstract: bool,
    warnings: list[tuple[int, str]],
) -> SpriteType:
    if cls_name and cls_name not in SPRITE_CLASSES:
        raise VgdlError(src, cls_line, f"the sprite class {cls_name!r} is not supported in PlayTrace")
    shown = cls_name or "Immovable"
    spec_class = SPRITE_CLASSES[shown]
    spec = {**_COMMON_SPRITE, **_NO_EFFECT_ON_GRID, **spec_class.params}
    params: dict[str, Any] = {}
    for key, (raw, line) in written.items():
        params.update(
            _read_params(((key, raw),), spec, src, line, f"the sprite class {shown}", names, warnings)
        )
    for key, (_kind, default) in spec.items():
        params.setdefault(key, default)
    def_line = max((line for _raw, line in written.values()), default=cls_line)
    if str(params["physicstype"]).upper() != "GRID":
        raise VgdlError(
            src,
            written.get("physicstype", ("", def_line))[1],
            f"physicstype={params['physicstype']} is not supported in PlayTrace (only GRID)",
        )
    for key in ("stype", "stype1", "stype2", "stypes", "stypeMissile"):
        if key in spec_class.params and params.get(key) is None and spec_class.params[key][1] is None:
            raise VgdlError(src, def_line, f"the sprite {name!r} ({shown}) needs a parameter {key}=...")
    is_avatar = spec_class.actions != ()
    orientation = params["orientation"] or spec_class.orientation
    speed = params["speed"] if params["speed"] is not None else spec_class.speed
    rotate = params["rotateInPlace"] if params["rotateInPlace"] is not None else spec_class.rotate
    color_name = params["color"] or spec_class.color
    kind = spec_class.kind
    active = kind not in ("static", "passive", "resource", "portal") or (
        orientation != 0 and speed != 0 and kind != "static"
    )
    if kind in ("spawn", "randombomber") or int(params["timeToLive"]) >= 0:
        active = True
    return SpriteType(
        index=index,
        name=name,
        path=tuple(chain),
        cls=shown,
        kind=kind,
        params=params,
        itypes=frozenset(names[n] for n in chain),
        is_avatar=is_avatar,
        oriented=spec_class.oriented or orientation != 0,
        orientation=orientation,
        speed=float(speed),
        cooldown=max(1, int(params["cooldown"] or spec_class.cooldown or 1)),
        singleton=bool(params["singleton"]),
        rotate=bool(rotate),
        color=COLORS[color_name] if color_name else _fallback_color(name),
        shape=_shape(name, params["img"], kind, is_avatar),
        shrink=max(0.1, min(1.0, float(params["shrinkfactor"]))),
        invisible=bool(params["invisible"]),
        active=active,
        health=int(params["healthPoints"]),
        health_limit=int(params["limitHealthPoints"]),
        abstract=abstract,
        ttl=int(params["timeToLive"]),
    )


#: Parameters naming the type a sprite or an effect creates.
_CREATES = {
    "spawn": ("stype",),
    "transformTo": ("stype",),
    "transformToAll": ("stypeTo",),
    "transformIfCount": ("stype", "estype"),
    "transformToSingleton": ("stype", "stype_other"),
    "spawnIfHasMore": ("stype",),
    "spawnIfHasLess": ("stype",),
    "spawnBehind": ("stype",),
    "spawnRight": ("stype",),
    "spawnLeft": ("stype",),
    "spawnAbove": ("stype",),
    "spawnBelow": ("stype",),
}


def _check_created(
    desc: GameDescription,
    types: list[SpriteType],
    names: Mapping[str, int],
    pairs: tuple[tuple[int, int, tuple[Effect, ...]], ...],
    eos: tuple[tuple[int, tuple[Effect, ...]], ...],
    timed: list[TimedEffect],
) -> None:
    """A parent node that something creates must be a complete sprite of its own."""
    effects = [e for _a, _b, es in pairs for e in es] + [e for _a, es in eos for e in es]
    effects += [t.effect for t in timed]
    wanted: list[tuple[str, int]] = []
    for e in effects:
        for key in _CREATES.get(e.name, ()):
            if e.params.get(key):
                wanted.append((e.params[key], e.line))
    for t in types:
        if t.abstract or t.kind not in ("spawn", "shoot", "flak", "ongoingshoot", "randombomber"):
            continue
        for key in ("stype", "stypes", "stypeMissile"):
            value = t.params.get(key)
            for n in (value,) if isinstance(value, str) else value or ():
                wanted.append((n, t.line))
    for n, line in wanted:
        made = types[names[n]]
        if made.problem is not None:
            raise VgdlError(
                desc.source, line, f"{n!r} is a parent sprite and cannot be created ({made.problem})"
            )


def _mapping(
    desc: GameDescription, names: Mapping[str, int], types: list[SpriteType]
) -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[int, str]]]:
    mapping: dict[str, tuple[int, ...]] = {}
    problems: dict[str, tuple[int, str]] = {}
    for char, targets, line in desc.mapping:
        bad = next((t for t in targets if t not in names), None)
        if bad is not None:
            # GVGAI reads such a line and fails only when a level uses the character.
            problems[char] = (line, f"the level character {char!r} names {bad!r}, which is not a sprite")
            continue
        unusable = next((t for t in targets if types[names[t]].problem is not None), None)
        if unusable is not None:
            problems[char] = (
                line,
                f"the level character {char!r} names {unusable!r}, a parent sprite that cannot be "
                f"created ({types[names[unusable]].problem})",
            )
            continue
        mapping[char] = tuple(names[t] for t in targets)
    # GVGAI's implicit characters: w is a wall and A the avatar when the game does not map them.
    for char, name in (("w", "wall"), ("A", "avatar")):
        if char not in mapping and char not in problems and name in names:
            if types[names[name]].problem is None:
                mapping[char] = (names[name],)
    return mapping, problems


def _effect(
    name: str,
    params: tuple[tuple[str, str], ...],
    line: int,
    src: str,
    names: Mapping[str, int],
    warnings: list[tuple[int, str]],
    *,
    clocked: bool = False,
) -> Effect:
    """One effect of a rule. ``clocked``: a ``TIME`` rule or a timer's effect, whose line also carries
    the clock's parameters (GVGAI reads those without a warning)."""
    if name not in EFFECTS:
        raise VgdlError(src, line, f"the effect {name!r} is not supported in PlayTrace")
    spec = {**_EFFECT_BASE, **EFFECTS[name]}
    if clocked:
        known = tuple((k, v) for k, v in params if k in spec)
        values = _read_params(known, spec, src, line, f"the effect {name}", names)
    else:
        values = _read_params(params, spec, src, line, f"the effect {name}", names, warnings)
    for key, (_kind, default) in spec.items():
        if default is None and key not in values:
            raise VgdlError(src, line, f"the effect {name} needs a parameter {key}=...")
        values.setdefault(key, default)
    if not clocked and name != "addTimer":
        for key in _CLOCK:
            if any(k == key for k, _v in params):
                warnings.append((line, f"{key} is for effects on TIME and addTimer; it is ignored here"))
    if "prob" in dict(params) and name not in _ROLLS_PROB and name != "addTimer":
        warnings.append((line, f"the effect {name} does not roll prob (as in GVGAI); it is ignored"))
    return Effect(name, values, float(values.pop("scoreChange")), line)


def _clock(values: Mapping[str, Any], src: str, line: int, *, repeating_needs_timer: bool) -> None:
    if values["repeating"] and int(values["timer"]) < 1 and repeating_needs_timer:
        raise VgdlError(
            src, line, f"parameter timer={values['timer']}: a repeating effect needs a timer of at least 1"
        )


def _interactions(
    desc: GameDescription,
    names: Mapping[str, int],
    types: list[SpriteType],
    limits: Mapping[int, int],
    timed: list[TimedEffect],
    warnings: list[tuple[int, str]],
) -> tuple[tuple[tuple[int, int, tuple[Effect, ...]], ...], tuple[tuple[int, tuple[Effect, ...]], ...]]:
    src = desc.source
    pairs: dict[tuple[int, int], list[Effect]] = {}
    eos: dict[int, list[Effect]] = {}
    for rule in desc.interactions:
        for n in (rule.actor, *rule.others):
            if n not in ("EOS", "TIME") and n not in names:
                raise VgdlError(src, rule.line, f"the interaction names {n!r}, which is not a sprite")
        on_time = "TIME" in rule.others
        if rule.effect == "addTimer":
            effect = _effect(rule.effect, rule.params, rule.line, src, names, warnings, clocked=True)
            ftype = effect.params["ftype"]
            inner = tuple((k, v) for k, v in rule.params if k not in ("ftype",))
            delegate = _effect(ftype, inner, rule.line, src, names, warnings, clocked=True)
            _clock(effect.params, src, rule.line, repeating_needs_timer=True)
            effect = dataclasses.replace(effect, timed=len(timed))
            timed.append(
                TimedEffect(
                    itype=-1,
                    effect=dataclasses.replace(delegate, score=effect.score),
                    timer=int(effect.params["timer"]),
                    repeating=bool(effect.params["repeating"]),
                    first=-1,
                    native=False,
                )
            )
        else:
            effect = _effect(rule.effect, rule.params, rule.line, src, names, warnings, clocked=on_time)
        for key in ("resource", "heldResource"):
            res = effect.params.get(key)
            if res is not None and names[res] not in limits:
                # GVGAI counts it all the same: nobody ever holds any (its limit is 0).
                warnings.append(
                    (rule.line, f"{key}={res}: {res!r} is not a Resource sprite; none is ever held")
                )
        if effect.name == "shieldFrom" and effect.params["ftype"] not in EFFECTS:
            raise VgdlError(src, rule.line, f"ftype={effect.params['ftype']}: not an effect")
        actor = names[rule.actor]
        repeat = int(effect.params["repeat"])
        for other in rule.others:
            if other == "TIME":
                clock = dict(rule.params)
                values = {
                    "timer": _value("int", clock.get("timer", "-1"), src, rule.line, "timer", names),
                    "repeating": _value(
                        "bool", clock.get("repeating", "False"), src, rule.line, "repeating", names
                    ),
                    "nextExecution": _value(
                        "int", clock.get("nextExecution", "-1"), src, rule.line, "nextExecution", names
                    ),
                }
                _clock(values, src, rule.line, repeating_needs_timer=True)
                timed.append(
                    TimedEffect(
                        itype=actor,
                        effect=effect,
                        timer=int(values["timer"]),
                        repeating=bool(values["repeating"]),
                        first=int(values["nextExecution"]),
                        native=True,
                    )
                )
            elif other == "EOS":
                if effect.name in _BINARY:
                    raise VgdlError(
                        src, rule.line, f"the effect {effect.name} needs a second sprite, not EOS"
                    )
                eos.setdefault(actor, []).extend([effect] * repeat)
            else:
                pairs.setdefault((actor, names[other]), []).extend([effect] * repeat)
    return (
        tuple((a, b, tuple(es)) for (a, b), es in pairs.items()),
        tuple((a, tuple(es)) for a, es in eos.items()),
    )


def _termination(
    tdef: TerminationDef,
    names: Mapping[str, int],
    subtypes: tuple[tuple[int, ...], ...],
    src: str,
    warnings: list[tuple[int, str]],
) -> Termination:
    if tdef.cls not in TERMINATIONS:
        raise VgdlError(src, tdef.line, f"the termination {tdef.cls!r} is not supported in PlayTrace")
    spec: dict[str, tuple[str, Any]] = {
        **TERMINATIONS[tdef.cls],
        **_TERMINATION_BASE,
        "win": ("str", "False"),
        **_SCORE,
    }
    if tdef.cls == "MultiSpriteCounter":
        spec.update({f"stype{i}": ("type", None) for i in range(1, 10)})
    values = _read_params(tdef.params, spec, src, tdef.line, f"the termination {tdef.cls}", names, warnings)
    win_text = str(values.get("win", "False")).split(",")[0]
    win = _value("bool", win_text, src, tdef.line, "win", names)
    counted_names: tuple[str, ...] = ()
    if tdef.cls in ("SpriteCounter", "SpriteCounterMore"):
        if "stype" not in values:
            raise VgdlError(src, tdef.line, f"{tdef.cls} needs a parameter stype=...")
        counted_names = (values["stype"],)
    elif tdef.cls == "MultiSpriteCounter":
        counted_names = tuple(values[k] for k in sorted(values) if k.startswith("stype"))
        if not counted_names:
            raise VgdlError(src, tdef.line, "MultiSpriteCounter needs parameters stype1=..., stype2=...")
    elif tdef.cls == "MultiSpriteCounterSubTypes":
        if "stype1" not in values:
            raise VgdlError(src, tdef.line, "MultiSpriteCounterSubTypes needs a parameter stype1=...")
        counted_names = (values["stype1"],)
    elif "limit" not in values:
        raise VgdlError(src, tdef.line, "Timeout needs a parameter limit=...")
    counted = frozenset(i for n in counted_names for i in subtypes[names[n]])
    kind_types = subtypes[names[counted_names[0]]] if tdef.cls == "MultiSpriteCounterSubTypes" else ()
    return Termination(
        cls=tdef.cls,
        counted=counted,
        limit=int(values.get("limit", 0)),
        win=win,
        score=float(values.get("scoreChange", 0.0)),
        line=tdef.line,
        names=counted_names,
        kinds=int(values.get("subTypesNum", -1)),
        kind_types=tuple(kind_types),
        at_least=bool(values.get("min", False)),
    )


@functools.lru_cache(maxsize=64)
def compile_text(text: str, source: str = "<game>") -> CompiledGame:
    """Parse and compile a VGDL game description (cached by its text and source label).

    Raises:
        VgdlError: see :func:`~engine.games.vgdl.parser.parse_game` and :func:`compile_game`.
    """
    return compile_game(parse_game(text, source))
