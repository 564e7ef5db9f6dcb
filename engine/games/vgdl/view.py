"""What a VGDL game looks like as text: the ASCII map, its legend and the rules in plain words.

The ASCII map follows GVGAI-LLM: one character per cell; the avatar is ``a`` when its sprite is
called ``avatar``; background sprites (``background``, ``floor``, hidden immovable sprites) are ``.``;
other sprites reuse their LevelMapping character when it is free, and otherwise take the next free
character of ``@#$%&*``, then their name's first letter, then lower-case and upper-case letters and
digits. Characters are given to sprite types once per game, so the legend is stable: it only grows
or shrinks as sprites appear, disappear or transform (``nokey`` becoming ``withkey``). A cell holding
several sprites shows the avatar, else the sprite drawn on top (the last in the SpriteSet).

Rows and columns count from 0 at the top left; up is row − 1, down row + 1.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.games.vgdl.ontology import DIRS, CompiledGame, Effect, SpriteType

__all__ = [
    "DIR_WORDS",
    "ascii_grid",
    "adjacent_lines",
    "describe_cell",
    "is_background",
    "map_counts",
    "map_ranks",
    "rules_text",
    "type_chars",
]

DIR_WORDS = ("none", "up", "left", "down", "right")
_POOL = "@#$%&*"
_BACKGROUND_NAMES = frozenset({"background", "floor", "ground"})


def is_background(t: SpriteType) -> bool:
    """Whether a type is scenery the map shows as ``.`` (a floor under everything else)."""
    if t.kind != "static":
        return False
    return t.name in _BACKGROUND_NAMES or bool(t.params.get("hidden"))


@functools.lru_cache(maxsize=64)
def type_chars(game: CompiledGame) -> tuple[str, ...]:
    """The map character of every sprite type, by type index (stable for the game)."""
    chars: dict[int, str] = {}
    used = {".", " "}
    for t in game.types:
        if is_background(t):
            chars[t.index] = "."
    for t in game.types:
        if t.name == "avatar" and t.index not in chars:
            chars[t.index] = "a"
            used.add("a")
    for char, targets in game.mapping.items():
        for tindex in reversed(targets):
            if tindex in chars:
                continue
            if char not in used and not is_background(game.types[tindex]):
                chars[tindex] = char
                used.add(char)
            break
    pool = list(_POOL)
    for t in game.types:
        if t.index in chars:
            continue
        candidates = [
            *pool,
            t.name[0].lower(),
            t.name[0].upper(),
            *string.ascii_lowercase,
            *string.ascii_uppercase,
            *string.digits,
        ]
        found = next((c for c in candidates if c not in used), "?")
        chars[t.index] = found
        used.add(found)
        if found in pool:
            pool.remove(found)
    return tuple(chars[i] for i in range(len(game.types)))


@functools.lru_cache(maxsize=64)
def _ranks(game: CompiledGame) -> tuple[tuple[int, ...], str, tuple[str, ...]]:
    """Per type: its rank on the map (-1: shown as floor; the avatar above all), the legend of ``.``,
    and each type's legend entry."""
    chars = type_chars(game)
    types = game.types
    # Avatars above everything, the first avatar type above the others (one rank per type).
    ranks = tuple(
        -1 if chars[t.index] == "." else (20_000 - t.index if t.is_avatar else t.index) for t in types
    )
    parents = {name for t in types for name in t.path[:-1]}
    backgrounds = [t.name for t in types if chars[t.index] == "." and t.name not in parents]
    empty = "empty" + (f" ({', '.join(backgrounds)})" if backgrounds else "")
    names = tuple(f"{t.name} (your avatar)" if t.is_avatar else t.name for t in types)
    return ranks, empty, names


def map_ranks(game: CompiledGame) -> tuple[int, ...]:
    """Per type, its rank on the map: the highest-ranked sprite of a cell is drawn (-1: floor)."""
    return _ranks(game)[0]


def map_counts(
    game: CompiledGame, height: int, width: int, sprites: Iterable[Sequence[Any]]
) -> dict[int, int]:
    """How many cells of the map each type is drawn on (types drawn as floor left out)."""
    ranks = _ranks(game)[0]
    best: dict[tuple[int, int], int] = {}
    for s in sprites:
        tindex = s[1]
        rank = ranks[tindex]
        if rank < 0 or not (0 <= s[2] < height and 0 <= s[3] < width):
            continue
        key = (s[2], s[3])
        old = best.get(key)
        if old is None or rank > ranks[old]:
            best[key] = tindex
    counts: dict[int, int] = {}
    for tindex in best.values():
        counts[tindex] = counts.get(tindex, 0) + 1
    return counts


def ascii_grid(
    game: CompiledGame, height: int, width: int, sprites: Iterable[Sequence[Any]]
) -> tuple[tuple[str, ...], dict[str, str]]:
    """The map rows and the legend (character → sprite name) of the characters on the map."""
    chars = type_chars(game)
    ranks, empty, names = _ranks(game)
    best: dict[tuple[int, int], int] = {}
    for s in sprites:
        tindex = s[1]
        rank = ranks[tindex]
        if rank < 0:
            continue
        key = (s[2], s[3])
        old = best.get(key)
        if old is None or rank > ranks[old]:
            best[key] = tindex
    grid = [["."] * width for _ in range(height)]
    present: set[int] = set()
    for (r, c), tindex in best.items():
        if 0 <= r < height and 0 <= c < width:
            grid[r][c] = chars[tindex]
            present.add(tindex)
    legend = {".": empty}
    for tindex in sorted(present):
        legend[chars[tindex]] = names[tindex]
    return tuple("".join(row) for row in grid), legend


def describe_cell(game: CompiledGame, sprites_here: Iterable[Sequence[Any]]) -> str:
    """The sprites in one cell, top first (``"box on hole"``), or ``"empty"``."""
    names = [
        game.types[s[1]].name
        for s in sorted(sprites_here, key=lambda s: -s[1])
        if not is_background(game.types[s[1]])
    ]
    return " on ".join(names) if names else "empty"


# -- the rules in plain words -----------------------------------------------------------------------

_CLASS_WORDS = {
    "static": "stays where it is",
    "passive": "does not move by itself but can be pushed or pulled",
    "resource": "is a collectible resource",
    "flicker": "appears briefly and vanishes",
    "missile": "flies straight ahead",
    "random": "wanders at random",
    "chaser": "chases {stype}",
    "fleeing": "runs away from {stype}",
    "altchaser": "chases {stype1} or flees from {stype2}",
    "spawn": "produces {stype}",
    "randombomber": "wanders at random and produces {stype}",
    "randommissile": "flies straight ahead in a random direction",
    "spreader": "spreads to the neighbouring cells, then vanishes",
    "portal": "is a portal to {stype}",
}


def _names(game: CompiledGame, value: Any) -> str:
    if isinstance(value, tuple):
        return " or ".join(value)
    return str(value)


def _sprite_line(game: CompiledGame, t: SpriteType, char: str) -> str:
    if t.is_avatar:
        what = "is your avatar"
    else:
        template = _CLASS_WORDS.get(t.kind, "is part of the level")
        what = template.format(
            **{k: _names(game, v) for k, v in t.params.items() if isinstance(v, str | tuple)}
        )
        if t.kind == "spawn" and t.params.get("total"):
            what += f" (at most {t.params['total']} times)"
        if t.kind == "spawn" and t.oriented and t.speed:
            what += f" while moving {DIR_WORDS[t.orientation]}"
    if t.kind in ("missile",) and t.orientation:
        what = f"moves {DIR_WORDS[t.orientation]}"
    if t.speed and 0 < t.speed < 1 and not t.is_avatar:
        what += f", slowly (one cell every {round(1 / t.speed)} ticks or so)"
    return f"- {t.name} ('{char}'): {what}."


def _effect_words(game: CompiledGame, e: Effect, actor: str, other: str) -> str:
    p = e.params
    held = f"{p.get('limit')} {p.get('resource')}"
    words = {
        "stepBack": f"{actor} cannot move into {other} (it is pushed back)",
        "killSprite": f"{actor} is destroyed",
        "killBoth": f"both {actor} and {other} are destroyed",
        "killAll": f"every {p.get('stype')} is destroyed",
        "bounceForward": f"{actor} is pushed one cell in the direction {other} moved",
        "cloneSprite": f"{actor} is duplicated",
        "spawn": f"a {p.get('stype')} appears",
        "transformTo": f"{actor} turns into {p.get('stype')}"
        + (f" and {other} disappears" if p.get("killSecond") else ""),
        "pullWithIt": f"{actor} is dragged along with {other}",
        "turnAround": f"{actor} moves down a row and turns around",
        "reverseDirection": f"{actor} reverses its direction",
        "flipDirection": f"{actor} turns in a random direction",
        "changeResource": f"{actor} gains {p.get('value')} {p.get('resource')}"
        + (f" and {other} disappears" if p.get("killResource") else ""),
        "collectResource": f"{other} collects {actor}",
        "killIfHasLess": f"{actor} is destroyed if it holds at most {held}",
        "killIfHasMore": f"{actor} is destroyed if it holds at least {held}",
        "killIfOtherHasMore": f"{actor} is destroyed if {other} holds at least {held}",
        "killIfOtherHasLess": f"{actor} is destroyed if {other} holds at most {held}",
        "killIfFromAbove": f"{actor} is destroyed if {other} falls onto it from above",
        "spawnIfHasMore": f"a {p.get('stype')} appears if {actor} holds at least {held}",
        "undoAll": "the move is cancelled (everything goes back)",
        "teleportToExit": f"{actor} is teleported to an exit of {other}",
        "wrapAround": f"{actor} wraps around to the opposite edge",
        "attractGaze": f"{actor} turns to face where {other} faces",
        "align": f"{actor} moves onto {other}" + (" and faces its way" if p.get("orient") else ""),
        "transformToAll": f"every {p.get('stype')} turns into {p.get('stypeTo')}",
        "transformIfCount": f"{actor} turns into {p.get('stype')} if there are {p.get('geq')} to "
        f"{p.get('leq')} {p.get('stypeCount')}",
        "transformToRandomChild": f"{actor} turns into a random kind of {p.get('stype')}",
        "transformToSingleton": f"{actor} turns into {p.get('stype')} (the previous one becomes "
        f"{p.get('stype_other')})",
        "spawnIfHasLess": f"a {p.get('stype')} appears if {actor} holds at most {held}",
        "spawnBehind": f"a {p.get('stype')} appears where {other} was",
        "spawnRight": f"a {p.get('stype')} appears right of {other}",
        "spawnLeft": f"a {p.get('stype')} appears left of {other}",
        "spawnAbove": f"a {p.get('stype')} appears above {other}",
        "spawnBelow": f"a {p.get('stype')} appears below {other}",
        "killIfFrontal": f"{actor} is destroyed if it meets {other} head-on or standing still",
        "killIfNotFrontal": f"{actor} is destroyed unless it meets {other} head-on",
        "subtractHealthPoints": f"{p.get('stype') or actor} loses {p.get('value')} health "
        f"(destroyed at {p.get('limit')} or less)",
        "addHealthPoints": f"{actor} gains {p.get('value')} health",
        "addHealthPointsToMax": f"{actor} gains {p.get('value')} health (up to its maximum)",
    }[e.name]
    if e.score:
        words += f" ({'+' if e.score > 0 else ''}{e.score:g} points)"
    return words


def _label(game: CompiledGame, index: int) -> str:
    """A type's name, with the kinds it stands for when it is a group (``enemy (crab, butterfly)``)."""
    t = game.types[index]
    members = [game.types[i].name for i in game.subtypes[index] if i != index and len(game.subtypes[i]) == 1]
    return f"{t.name} ({', '.join(members)})" if members else t.name


def _genre(game: CompiledGame) -> str:
    effects = {e.name for _a, _b, es in game.pairs for e in es}
    kinds = {t.kind for t in game.types}
    if {"shoot", "flak"} & kinds and {"spawn", "random", "chaser"} & kinds:
        return "action: move, use your weapon on enemies and avoid what hurts you"
    if "bounceForward" in effects:
        return "puzzle: push objects into place without getting stuck"
    if "collectResource" in effects or "changeResource" in effects:
        return "collection: gather items, avoid hazards and reach the goal"
    if {"random", "chaser"} & kinds:
        return "maze-adventure: move through the level while avoiding enemies"
    return "navigation: move through the level to meet the goal"


def _termination_words(game: CompiledGame, t: Any) -> str:
    if t.cls == "Timeout":
        return f"after {t.limit} ticks"
    names = " and ".join(t.names)
    if t.cls == "SpriteCounterMore":
        return f"when there are at least {t.limit} {names}"
    if t.cls == "SpriteCounter":
        if t.limit == 0:
            return f"when no {names} is left"
        return f"when at most {t.limit} {names} are left"
    if t.at_least:
        return f"when at least {t.limit} of {names} (together) are left"
    return f"when exactly {t.limit} of {names} (together) are left"


def rules_text(game: CompiledGame, actions: Sequence[str], max_steps: int) -> str:
    """The rules of a VGDL game in plain words, generated from its description."""
    chars = type_chars(game)
    lines = ["=== Game Rules ===", f"Genre: {_genre(game)}.", "", "Sprites (name, map character, behaviour):"]
    shown: set[int] = set()
    for t in game.types:
        if chars[t.index] == "." or any(u.path[:-1] == t.path for u in game.types if u is not t):
            continue
        shown.add(t.index)
        lines.append(_sprite_line(game, t, chars[t.index]))
    lines.append("- '.' is empty floor.")
    avatar = next(t for t in game.types if t.is_avatar)
    lines += ["", "Your avatar:"]
    if avatar.kind == "flak":
        lines.append(f"- moves left and right; USE fires a {avatar.params['stype']} from its cell.")
    elif avatar.kind == "shoot":
        lines.append(
            f"- moves in four directions; USE creates {_names(game, avatar.params['stype'])} "
            "in the cell it faces."
        )
    else:
        lines.append("- moves one cell per action in the directions listed below.")
    if avatar.rotate:
        lines.append(
            "- it has a facing: a direction it does not face first only turns it, without moving; "
            "repeat the direction to move."
        )
    lines += ["", "What happens when sprites meet:"]
    for actor, other, effects in game.pairs:
        for e in effects:
            a, b = game.types[actor].name, game.types[other].name
            lines.append(
                f"- {_label(game, actor)} meets {_label(game, other)}: {_effect_words(game, e, a, b)}."
            )
    for actor, effects in game.eos:
        for e in effects:
            a = game.types[actor].name
            lines.append(f"- {a} reaches the edge of the map: {_effect_words(game, e, a, 'the edge')}.")
    lines += ["", "How the game ends:"]
    for ending in game.terminations:
        outcome = "You win" if ending.win else "You lose"
        lines.append(f"- {outcome} {_termination_words(game, ending)}.")
    lines.append(f"- The episode stops after {max_steps} steps; not having won by then is a loss.")
    lines += ["", "Strategy suggestions:"]
    lines += [f"- {s}" for s in _strategy(game)]
    lines += [
        "",
        "Actions: " + ", ".join(f"{i}: {a}" for i, a in enumerate(actions)),
        "Answer with the number or the name of one action.",
    ]
    return "\n".join(lines)


def _strategy(game: CompiledGame) -> list[str]:
    tips: list[str] = []
    for t in game.terminations:
        if t.win and t.cls != "Timeout":
            tips.append(f"Work towards the win condition: {_termination_words(game, t)}.")
    effects = [(game.types[a], game.types[b], e) for a, b, es in game.pairs for e in es]
    harmful = sorted({b.name for a, b, e in effects if a.is_avatar and e.name.startswith("kill")})
    if harmful:
        tips.append(f"Avoid touching {', '.join(harmful)}: it destroys your avatar.")
    good = sorted(
        {b.name for a, b, e in effects if e.score > 0 and a.is_avatar and not b.is_avatar}
        | {a.name for a, b, e in effects if e.score > 0 and b.is_avatar and not a.is_avatar}
    )
    if good:
        tips.append(f"Points come from meeting {', '.join(good)}.")
    if any(e.name == "bounceForward" for _a, _b, e in effects):
        tips.append(
            "Think before pushing: an object pushed against a wall or into a corner may be stuck for good."
        )
    if any(t.kind in ("shoot", "flak") for t in game.types):
        tips.append("Use your weapon (ACTION_USE) on enemies in line with you.")
    tips.append("Avoid ACTION_NIL and moves into walls: they waste a step.")
    return tips


def adjacent_lines(
    game: CompiledGame,
    cells: Mapping[tuple[int, int], Sequence[Sequence[Any]]],
    pos: tuple[int, int],
    height: int,
    width: int,
) -> list[str]:
    """The four cells around ``pos`` in words (the verbose grounding of GVGAI-LLM)."""
    lines = []
    for d in (1, 3, 2, 4):
        dr, dc = DIRS[d]
        r, c = pos[0] + dr, pos[1] + dc
        if not (0 <= r < height and 0 <= c < width):
            what = "outside the map"
        else:
            what = describe_cell(game, cells.get((r, c), []))
        lines.append(f"{DIR_WORDS[d]} (row {r}, col {c}): {what}")
    return lines
