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
    "hidden": ("bool", False),
    "invisible": ("bool", False),
    "autotiling": ("bool", False),
    "randomtiling": ("float", -1.0),
    "frameRate": ("float", -1.0),
    "orientation": ("dir", 0),
    "speed": ("float", None),
    "cooldown": ("int", 0),
    "singleton": ("bool", False),
    "rotateInPlace": ("bool", None),
    "portal": ("bool", False),
    "physicstype": ("str", "GRID"),
    "healthPoints": ("int", 0),
    "maxHealthPoints": ("int", 0),
    "limitHealthPoints": ("int", 1000),
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
    "cons": ("int", 0),
}
_SPAWN = {
    "stype": ("type", None),
    "prob": ("float", 1.0),
    "total": ("int", 0),
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
        "spreader", {"limit": ("int", 1), "stype": ("type", ""), "spreadprob": ("float", 1.0)}, "RED"
    ),
    "Missile": _Class("missile", {}, None, speed=1.0, oriented=True),
    "RandomMissile": _Class("randommissile", {}, None, speed=1.0, oriented=True),
    "RandomNPC": _Class("random", {"cons": ("int", 0)}, None, speed=1.0),
    "Chaser": _Class("chaser", _CHASE, None, speed=1.0),
    "Fleeing": _Class("fleeing", _CHASE, None, speed=1.0),
    "AlternateChaser": _Class(
        "altchaser",
        {"stype1": ("types", None), "stype2": ("types", None), "cons": ("int", 0)},
        None,
        speed=1.0,
    ),
    "SpawnPoint": _Class("spawn", _SPAWN, "BLACK", static=True, cooldown=1),
    "Bomber": _Class("spawn", _SPAWN, "ORANGE", oriented=True, orientation=4, cooldown=1),
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
    "FlakAvatar": _Class(
        "flak",
        {"stype": ("type", None), "ammo": ("type", None), "minAmmo": ("int", -1), "ammoCost": ("int", 1)},
        "GREEN",
        speed=1.0,
        actions=("ACTION_USE", "ACTION_LEFT", "ACTION_RIGHT"),
    ),
}
AVATAR_CLASSES = frozenset(n for n, c in SPRITE_CLASSES.items() if c.actions)

_SCORE = {"scoreChange": ("score", 0.0)}
_RES = {"resource": ("type", None), "limit": ("int", 0)}

#: Every interaction effect: its parameters (besides ``scoreChange``).
EFFECTS: dict[str, dict[str, tuple[str, Any]]] = {
    "stepBack": {"pixelPerfect": ("bool", False)},
    "killSprite": {},
    "killBoth": {},
    "killAll": {"stype": ("type", None)},
    "bounceForward": {},
    "cloneSprite": {},
    "spawn": {"stype": ("type", None)},
    "transformTo": {
        "stype": ("type", None),
        "killSecond": ("bool", False),
        "forceOrientation": ("bool", False),
    },
    "pullWithIt": {"pixelPerfect": ("bool", False)},
    "turnAround": {},
    "reverseDirection": {},
    "flipDirection": {},
    "changeResource": {"resource": ("type", None), "value": ("int", 1), "killResource": ("bool", False)},
    "collectResource": {"killResource": ("bool", True)},
    "killIfHasLess": dict(_RES),
    "killIfHasMore": dict(_RES),
    "killIfOtherHasMore": {**_RES, "subtract": ("bool", False)},
    "killIfOtherHasLess": dict(_RES),
    "killIfFromAbove": {},
    "spawnIfHasMore": {**_RES, "stype": ("type", None), "spend": ("int", 0), "prob": ("float", 1.0)},
    "undoAll": {"notStype": ("types", ())},
    "teleportToExit": {},
    "wrapAround": {"offset": ("int", 0)},
    "attractGaze": {"prob": ("float", 1.0), "align": ("bool", False)},
    "align": {"orient": ("bool", True)},
    "transformToAll": {"stype": ("type", None), "stypeTo": ("type", None)},
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
    "spawnIfHasLess": {**_RES, "stype": ("type", None), "prob": ("float", 1.0)},
    "spawnBehind": {"stype": ("type", None), "prob": ("float", 1.0)},
    "spawnRight": {"stype": ("type", None), "prob": ("float", 1.0), "stepBack": ("bool", False)},
    "spawnLeft": {"stype": ("type", None), "prob": ("float", 1.0), "stepBack": ("bool", False)},
    "spawnAbove": {"stype": ("type", None), "prob": ("float", 1.0), "stepBack": ("bool", False)},
    "spawnBelow": {"stype": ("type", None), "prob": ("float", 1.0), "stepBack": ("bool", False)},
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
}
#: Effects that need the second sprite (they make no sense at the end of the screen, EOS).
_BINARY = frozenset(
    {
        "killBoth",
        "bounceForward",
        "pullWithIt",
        "collectResource",
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
    "MultiSpriteCounter": {"limit": ("int", 0)},
    "Timeout": {"limit": ("int", 0)},
}

_GAME_PARAMS = {"square_size": ("int", 0), "key_handler": ("str", ""), "no_players": ("int", 1)}


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


@dataclasses.dataclass(frozen=True, slots=True)
class Effect:
    name: str
    params: Mapping[str, Any]
    score: float
    line: int


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


@dataclasses.dataclass(frozen=True, eq=False)
class CompiledGame:
    """A VGDL game ready to run: typed sprite types, interaction rules and end conditions."""

    description: GameDescription
    digest: str
    types: tuple[SpriteType, ...]
    by_name: Mapping[str, int]
    #: For each type, itself and every descendant (indices in definition order).
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
    #: Types updated by the tick, in GVGAI's order (reverse definition order).
    update_order: tuple[int, ...]

    @property
    def text(self) -> str:
        return self.description.text

    @property
    def source(self) -> str:
        return self.description.source

    @functools.cached_property
    def actions(self) -> tuple[str, ...]:
        """The avatar's actions (ACTION_NIL first), from the first avatar type of the SpriteSet."""
        for t in self.types:
            if t.is_avatar:
                return self.avatar_actions[t.index]
        return ("ACTION_NIL",)

    def type_of(self, name: str) -> SpriteType:
        return self.types[self.by_name[name]]


def _value(kind: str, raw: str, source: str, line: int, key: str, names: Mapping[str, int]) -> Any:
    where = f"parameter {key}={raw}"
    if kind == "float":
        try:
            value = float(raw)
        except ValueError:
            raise VgdlError(source, line, f"{where}: expected a number") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise VgdlError(source, line, f"{where}: expected a finite number")
        return value
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            try:
                as_float = float(raw)
            except ValueError:
                raise VgdlError(source, line, f"{where}: expected a whole number") from None
            if not as_float.is_integer():
                raise VgdlError(source, line, f"{where}: expected a whole number") from None
            return int(as_float)
    if kind == "bool":
        low = raw.lower()
        if low not in ("true", "false"):
            raise VgdlError(source, line, f"{where}: expected True or False")
        return low == "true"
    if kind == "str":
        return raw
    if kind == "score":
        first = raw.split(",")[0]
        return _value("float", first, source, line, key, names)
    if kind == "dir":
        if raw.upper() not in _DIR_NAMES:
            raise VgdlError(source, line, f"{where}: expected UP, DOWN, LEFT or RIGHT")
        return _DIR_NAMES[raw.upper()]
    if kind == "color":
        if raw.upper() not in COLORS:
            raise VgdlError(source, line, f"{where}: unknown colour; known: {', '.join(sorted(COLORS))}")
        return raw.upper()
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
) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key, raw in given:
        if key not in spec:
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


def compile_game(desc: GameDescription) -> CompiledGame:
    """Check ``desc`` against what the engine supports and build the runnable game.

    Raises:
        VgdlError: an unsupported class, effect, termination or parameter (named, with its line), or
            a reference to a sprite that is not defined.
    """
    src = desc.source
    if desc.game_class != "BasicGame":
        raise VgdlError(
            src, 1, f"the game class {desc.game_class!r} is not supported in PlayTrace (only BasicGame)"
        )
    game_params = _read_params(desc.params, _GAME_PARAMS, src, 1, "BasicGame", {})
    if game_params.get("no_players", 1) != 1:
        raise VgdlError(src, 1, "games for several players (no_players) are not supported in PlayTrace")
    defs = {s.name: s for s in desc.sprites}
    names = {s.name: i for i, s in enumerate(desc.sprites)}
    types: list[SpriteType] = []
    chains: dict[str, list[str]] = {}
    for index, sdef in enumerate(desc.sprites):
        chain = [sdef.name]
        parent = sdef.parent
        while parent:
            chain.append(parent)
            parent = defs[parent].parent
        chain.reverse()
        chains[sdef.name] = chain
        cls_name = next((defs[n].cls for n in reversed(chain) if defs[n].cls), "")
        if not cls_name:
            # GVGAI's default class for a sprite without one.
            cls_name = "Immovable" if not any(s.parent == sdef.name for s in desc.sprites) else ""
        if cls_name and cls_name not in SPRITE_CLASSES:
            line = next(defs[n].line for n in reversed(chain) if defs[n].cls)
            raise VgdlError(src, line, f"the sprite class {cls_name!r} is not supported in PlayTrace")
        spec_class = SPRITE_CLASSES[cls_name or "Immovable"]
        spec = {**_COMMON_SPRITE, **spec_class.params}
        params: dict[str, Any] = {}
        for n in chain:
            params.update(
                _read_params(
                    defs[n].params,
                    spec,
                    src,
                    defs[n].line,
                    f"the sprite class {cls_name or 'Immovable'}",
                    names,
                )
            )
        for key, (_kind, default) in spec.items():
            params.setdefault(key, default)
        if params["physicstype"].upper() != "GRID":
            raise VgdlError(
                src,
                sdef.line,
                f"physicstype={params['physicstype']} is not supported in PlayTrace (only GRID)",
            )
        for key in ("stype", "stype1", "stype2"):
            if key in spec_class.params and params.get(key) is None and spec_class.params[key][1] is None:
                raise VgdlError(
                    src, sdef.line, f"the sprite {sdef.name!r} ({cls_name}) needs a parameter {key}=..."
                )
        is_avatar = spec_class.actions != ()
        orientation = params["orientation"] or spec_class.orientation
        speed = params["speed"] if params["speed"] is not None else spec_class.speed
        rotate = params["rotateInPlace"] if params["rotateInPlace"] is not None else spec_class.rotate
        color_name = params["color"] or spec_class.color
        kind = spec_class.kind
        active = kind not in ("static", "passive", "resource", "portal") or (
            orientation != 0 and speed != 0 and kind != "static"
        )
        if kind in ("spawn", "randombomber"):
            active = True
        types.append(
            SpriteType(
                index=index,
                name=sdef.name,
                path=tuple(chain),
                cls=cls_name or "Immovable",
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
                color=COLORS[color_name] if color_name else _fallback_color(sdef.name),
                shape=_shape(sdef.name, params["img"], kind, is_avatar),
                shrink=max(0.1, min(1.0, float(params["shrinkfactor"]))),
                invisible=bool(params["invisible"]),
                active=active,
                health=int(params["healthPoints"]),
                health_limit=int(params["limitHealthPoints"]),
            )
        )
    subtypes = tuple(tuple(t.index for t in types if types[i].name in t.path) for i in range(len(types)))
    mapping = _mapping(desc, names)
    limits = {t.index: int(t.params["limit"]) for t in types if t.kind == "resource"}
    pairs, eos = _interactions(desc, names, types, limits)
    terminations = tuple(_termination(t, names, subtypes, src) for t in desc.terminations)
    avatar_actions = {t.index: ("ACTION_NIL", *SPRITE_CLASSES[t.cls].actions) for t in types if t.is_avatar}
    if not avatar_actions:
        raise VgdlError(
            src, None, "the game has no avatar; expected a sprite of an avatar class (MovingAvatar ...)"
        )
    update_order = tuple(t.index for t in reversed(types) if t.active and not t.is_avatar)
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
    )


def _mapping(desc: GameDescription, names: Mapping[str, int]) -> dict[str, tuple[int, ...]]:
    mapping: dict[str, tuple[int, ...]] = {}
    for char, targets, line in desc.mapping:
        for target in targets:
            if target not in names:
                raise VgdlError(
                    desc.source, line, f"the level character {char!r} names {target!r}, which is not a sprite"
                )
        mapping[char] = tuple(names[t] for t in targets)
    # GVGAI's implicit characters: w is a wall and A the avatar when the game does not map them.
    for char, name in (("w", "wall"), ("A", "avatar")):
        if char not in mapping and name in names:
            mapping[char] = (names[name],)
    return mapping


def _effect(
    name: str, params: tuple[tuple[str, str], ...], line: int, src: str, names: Mapping[str, int]
) -> Effect:
    if name not in EFFECTS:
        raise VgdlError(src, line, f"the effect {name!r} is not supported in PlayTrace")
    spec = {**_SCORE, **EFFECTS[name]}
    values = _read_params(params, spec, src, line, f"the effect {name}", names)
    for key, (_kind, default) in spec.items():
        if default is None and key not in values:
            raise VgdlError(src, line, f"the effect {name} needs a parameter {key}=...")
        values.setdefault(key, default)
    return Effect(name, values, float(values.pop("scoreChange")), line)


def _interactions(
    desc: GameDescription, names: Mapping[str, int], types: list[SpriteType], limits: Mapping[int, int]
) -> tuple[tuple[tuple[int, int, tuple[Effect, ...]], ...], tuple[tuple[int, tuple[Effect, ...]], ...]]:
    src = desc.source
    pairs: dict[tuple[int, int], list[Effect]] = {}
    eos: dict[int, list[Effect]] = {}
    for rule in desc.interactions:
        for n in (rule.actor, *rule.others):
            if n != "EOS" and n not in names:
                raise VgdlError(src, rule.line, f"the interaction names {n!r}, which is not a sprite")
        if rule.actor == "EOS":
            raise VgdlError(
                src, rule.line, "EOS (the end of the screen) can only be the second name of an interaction"
            )
        effect = _effect(rule.effect, rule.params, rule.line, src, names)
        for key in ("resource",):
            res = effect.params.get(key)
            if res is not None and names[res] not in limits:
                raise VgdlError(src, rule.line, f"resource={res}: {res!r} is not a Resource sprite")
        actor = names[rule.actor]
        for other in rule.others:
            if other == "EOS":
                if effect.name in _BINARY:
                    raise VgdlError(
                        src, rule.line, f"the effect {effect.name} needs a second sprite, not EOS"
                    )
                eos.setdefault(actor, []).append(effect)
            else:
                pairs.setdefault((actor, names[other]), []).append(effect)
    return (
        tuple((a, b, tuple(e)) for (a, b), e in pairs.items()),
        tuple((a, tuple(e)) for a, e in eos.items()),
    )


def _termination(
    tdef: TerminationDef, names: Mapping[str, int], subtypes: tuple[tuple[int, ...], ...], src: str
) -> Termination:
    if tdef.cls not in TERMINATIONS:
        raise VgdlError(src, tdef.line, f"the termination {tdef.cls!r} is not supported in PlayTrace")
    spec: dict[str, tuple[str, Any]] = {**TERMINATIONS[tdef.cls], "win": ("str", "False"), **_SCORE}
    if tdef.cls == "MultiSpriteCounter":
        spec.update({f"stype{i}": ("type", None) for i in range(1, 10)})
    values = _read_params(tdef.params, spec, src, tdef.line, f"the termination {tdef.cls}", names)
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
    elif "limit" not in values:
        raise VgdlError(src, tdef.line, "Timeout needs a parameter limit=...")
    counted = frozenset(i for n in counted_names for i in subtypes[names[n]])
    return Termination(
        cls=tdef.cls,
        counted=counted,
        limit=int(values.get("limit", 0)),
        win=win,
        score=float(values.get("scoreChange", 0.0)),
        line=tdef.line,
        names=counted_names,
    )


@functools.lru_cache(maxsize=64)
def compile_text(text: str, source: str = "<game>") -> CompiledGame:
    """Parse and compile a VGDL game description (cached by its text and source label).

    Raises:
        VgdlError: see :func:`~engine.games.vgdl.parser.parse_game` and :func:`compile_game`.
    """
    return compile_game(parse_game(text, source))
