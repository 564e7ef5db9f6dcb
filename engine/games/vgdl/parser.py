"""Reading VGDL game descriptions and ASCII levels into plain data.

A VGDL file (the Video Game Description Language of GVGAI) is indentation-structured text::

    BasicGame square_size=40
        SpriteSet
            floor > Immovable
            avatar > MovingAvatar
            box > Passive shrinkfactor=0.8
        LevelMapping
            A > floor avatar
        InteractionSet
            box avatar > bounceForward
        TerminationSet
            SpriteCounter stype=box limit=0 win=True

This module only reads the structure: names, classes, ``key=value`` parameters (kept as text), the
sprite hierarchy given by indentation, the level mapping, interactions and terminations, each with
the line it came from. Whether a class, effect or parameter is supported is decided when the
description is compiled (:mod:`engine.games.vgdl.ontology`). Nothing read here is ever executed.

Every problem raises :class:`VgdlError` naming the file and line and saying what was expected.
"""

from __future__ import annotations

import dataclasses
import re

from engine.core import GameError

__all__ = [
    "GameDescription",
    "InteractionDef",
    "LevelData",
    "SpriteDef",
    "TerminationDef",
    "VgdlError",
    "parse_game",
    "parse_level",
]

SECTIONS = ("SpriteSet", "LevelMapping", "InteractionSet", "TerminationSet")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: The characters a level may use for one cell (printable ASCII but the space-like ones).
_LEVEL_CHARS = frozenset(chr(c) for c in range(33, 127))


class VgdlError(GameError):
    """A VGDL game or level file is malformed, or uses something PlayTrace does not support.

    Attributes:
        source: The file name (or a label) the text came from.
        line: The 1-based line number, or ``None`` when the problem is not on one line.
    """

    def __init__(self, source: str, line: int | None, message: str) -> None:
        self.source = source
        self.line = line
        self.detail = message
        where = f"{source}, line {line}" if line is not None else source
        super().__init__(f"{where}: {message}")


@dataclasses.dataclass(frozen=True, slots=True)
class SpriteDef:
    """One node of the SpriteSet tree as written.

    Attributes:
        name: The sprite type's name (``avatar``, ``nokey``).
        cls: The class written on this line, or ``""`` when it is inherited from the parent.
        params: ``key=value`` parameters written on this line, values as text.
        parent: The parent node's name, or ``""`` at the top of the tree.
        line: The line it was defined on.
    """

    name: str
    cls: str
    params: tuple[tuple[str, str], ...]
    parent: str
    line: int


@dataclasses.dataclass(frozen=True, slots=True)
class InteractionDef:
    """``actor others... > effect params``: the effect applies to ``actor`` colliding with each of
    ``others`` (``EOS`` is the end of the screen)."""

    actor: str
    others: tuple[str, ...]
    effect: str
    params: tuple[tuple[str, str], ...]
    line: int


@dataclasses.dataclass(frozen=True, slots=True)
class TerminationDef:
    """``Class params``: one end condition."""

    cls: str
    params: tuple[tuple[str, str], ...]
    line: int


@dataclasses.dataclass(frozen=True, slots=True)
class GameDescription:
    """A whole VGDL game description as written (see :func:`parse_game`)."""

    source: str
    text: str
    game_class: str
    params: tuple[tuple[str, str], ...]
    sprites: tuple[SpriteDef, ...]
    mapping: tuple[tuple[str, tuple[str, ...], int], ...]
    interactions: tuple[InteractionDef, ...]
    terminations: tuple[TerminationDef, ...]
    #: Things the reference engine accepts but ignores or overrides (a parameter given twice, a level
    #: character mapped twice), as (line, message).
    warnings: tuple[tuple[int, str], ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class LevelData:
    """An ASCII level: ``rows`` of equal width (shorter rows padded with empty cells, ``" "``)."""

    source: str
    rows: tuple[str, ...]

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0]) if self.rows else 0


def _strip_comment(line: str) -> str:
    index = line.find("#")
    return line if index < 0 else line[:index]


def _indent(line: str) -> int:
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip(" "))


def _params(
    tokens: list[str], source: str, line: int, warnings: list[tuple[int, str]] | None = None
) -> tuple[tuple[str, str], ...]:
    """``key=value`` tokens; a key given twice keeps its last value, as GVGAI's parser does."""
    found: dict[str, str] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or not _KEY.match(key) or not value:
            raise VgdlError(source, line, f"expected a parameter written key=value, found {token!r}")
        if key in found and warnings is not None:
            warnings.append((line, f"the parameter {key!r} is given twice; the last value ({value}) counts"))
        found.pop(key, None)
        found[key] = value
    return tuple(found.items())


def _name(token: str, source: str, line: int, what: str) -> str:
    if not _NAME.match(token):
        raise VgdlError(source, line, f"expected {what} (letters, digits and _), found {token!r}")
    return token


def parse_game(text: str, source: str = "<game>") -> GameDescription:
    """Read a VGDL game description.

    Raises:
        VgdlError: the text is not a VGDL game description; the message names ``source``, the line
            and what was expected there.
    """
    if not isinstance(text, str):
        raise VgdlError(source, None, "a VGDL game description is text")
    lines = text.splitlines()
    header: tuple[int, str, tuple[tuple[str, str], ...]] | None = None
    section = ""
    section_indent = -1
    sprites: list[SpriteDef] = []
    sprite_stack: list[tuple[int, str]] = []
    names: dict[str, int] = {}
    mapping: list[tuple[str, tuple[str, ...], int]] = []
    mapped: dict[str, int] = {}
    interactions: list[InteractionDef] = []
    terminations: list[TerminationDef] = []
    warnings: list[tuple[int, str]] = []
    seen_sections: set[str] = set()
    for number, raw in enumerate(lines, start=1):
        if "\x00" in raw:
            raise VgdlError(source, number, "the line holds a NUL character; a VGDL file is plain text")
        body = _strip_comment(raw)
        if not body.strip():
            continue
        indent = _indent(body)
        tokens = body.split()
        if header is None:
            if indent != 0 and not tokens[0].endswith("Game"):
                raise VgdlError(
                    source, number, f"expected the game line (BasicGame ...), found {body.strip()!r}"
                )
            if not tokens[0].endswith("Game") or not _NAME.match(tokens[0]):
                raise VgdlError(
                    source, number, f"expected the game line (BasicGame ...), found {tokens[0]!r}"
                )
            header = (number, tokens[0], _params(tokens[1:], source, number, warnings))
            continue
        if tokens[0] in SECTIONS and len(tokens) == 1:
            if tokens[0] in seen_sections:
                raise VgdlError(source, number, f"the section {tokens[0]} appears twice")
            seen_sections.add(tokens[0])
            section, section_indent = tokens[0], indent
            sprite_stack = []
            continue
        if not section:
            raise VgdlError(
                source, number, f"expected a section name ({', '.join(SECTIONS)}), found {body.strip()!r}"
            )
        if indent <= section_indent:
            raise VgdlError(
                source,
                number,
                f"expected a section name ({', '.join(SECTIONS)}) or a line indented under {section}, "
                f"found {body.strip()!r}",
            )
        if section == "SpriteSet":
            sprite = _sprite_line(body, tokens, indent, sprite_stack, source, number, warnings)
            if sprite.name in names:
                # GVGAI's registry keeps one type per name: the later definition counts.
                warnings.append(
                    (
                        number,
                        f"the sprite {sprite.name!r} is defined again (first on line "
                        f"{names[sprite.name]}); this definition counts",
                    )
                )
            if sprite.name in ("EOS", "TIME"):
                raise VgdlError(
                    source, number, f"{sprite.name} is a reserved word of VGDL and cannot name a sprite"
                )
            names[sprite.name] = number
            sprites.append(sprite)
        elif section == "LevelMapping":
            char, targets = _mapping_line(tokens, source, number)
            if char in mapped:
                warnings.append(
                    (
                        number,
                        f"the level character {char!r} is mapped again (first on line "
                        f"{mapped[char]}); this mapping counts",
                    )
                )
                mapping = [m for m in mapping if m[0] != char]
            mapped[char] = number
            mapping.append((char, targets, number))
        elif section == "InteractionSet":
            interactions.extend(_interaction_line(tokens, source, number, warnings))
        else:
            cls = _name(tokens[0], source, number, "a termination class (SpriteCounter ...)")
            terminations.append(TerminationDef(cls, _params(tokens[1:], source, number, warnings), number))
    if header is None:
        raise VgdlError(source, None, "the file is empty; expected a game line (BasicGame ...)")
    if "SpriteSet" not in seen_sections or not sprites:
        raise VgdlError(source, None, "the game defines no sprites; expected a SpriteSet section")
    if not terminations:
        raise VgdlError(source, None, "the game has no end condition; expected a TerminationSet section")
    return GameDescription(
        source=source,
        text=text,
        game_class=header[1],
        params=header[2],
        sprites=tuple(sprites),
        mapping=tuple(mapping),
        interactions=tuple(interactions),
        terminations=tuple(terminations),
        warnings=tuple(warnings),
    )


def _sprite_line(
    body: str,
    tokens: list[str],
    indent: int,
    stack: list[tuple[int, str]],
    source: str,
    number: int,
    warnings: list[tuple[int, str]],
) -> SpriteDef:
    if ">" not in tokens:
        if len(tokens) == 1 and _NAME.match(tokens[0]):
            left, right = [tokens[0]], []
        else:
            raise VgdlError(
                source, number, f"expected a sprite written 'name > Class key=value', found {body.strip()!r}"
            )
    else:
        at = tokens.index(">")
        left, right = tokens[:at], tokens[at + 1 :]
    if len(left) != 1:
        raise VgdlError(
            source, number, f"expected one sprite name before '>', found {' '.join(left) or 'none'}"
        )
    name = _name(left[0], source, number, "a sprite name")
    cls = ""
    if right and "=" not in right[0]:
        cls = _name(right[0], source, number, "a sprite class (Immovable, MovingAvatar ...)")
        right = right[1:]
    while stack and stack[-1][0] >= indent:
        stack.pop()
    parent = stack[-1][1] if stack else ""
    stack.append((indent, name))
    return SpriteDef(name, cls, _params(right, source, number, warnings), parent, number)


def _mapping_line(tokens: list[str], source: str, number: int) -> tuple[str, tuple[str, ...]]:
    if len(tokens) < 3 or tokens[1] != ">" or len(tokens[0]) != 1:
        raise VgdlError(
            source, number, f"expected a mapping written 'c > sprite sprite...', found {' '.join(tokens)!r}"
        )
    char = tokens[0]
    if char not in _LEVEL_CHARS:
        raise VgdlError(source, number, f"{char!r} cannot be a level character")
    return char, tuple(_name(t, source, number, "a sprite name") for t in tokens[2:])


#: The names an interaction may use besides sprites: the end of the screen and the clock.
SPECIAL = ("EOS", "TIME")


def _interaction_line(
    tokens: list[str], source: str, number: int, warnings: list[tuple[int, str]]
) -> list[InteractionDef]:
    if ">" not in tokens:
        raise VgdlError(
            source,
            number,
            f"expected an interaction written 'sprite other > effect', found {' '.join(tokens)!r}",
        )
    at = tokens.index(">")
    left, right = tokens[:at], tokens[at + 1 :]
    if len(left) < 2:
        raise VgdlError(
            source, number, "expected two or more sprite names before '>' (the sprite and what it meets)"
        )
    if not right:
        raise VgdlError(source, number, "expected an effect after '>' (stepBack, killSprite ...)")
    names = tuple(_name(t, source, number, "a sprite name") for t in left)
    # EOS and TIME are read whatever their case, as GVGAI does.
    names = tuple(n.upper() if n.upper() in SPECIAL else n for n in names)
    effect = _name(right[0], source, number, "an effect name (stepBack, killSprite ...)")
    params = _params(right[1:], source, number, warnings)
    actor, others = names[0], names[1:]
    if actor in SPECIAL:
        # GVGAI reads ``EOS x y > e`` (and ``TIME x > e``) as the effect on x and on y.
        if any(o in SPECIAL for o in others):
            raise VgdlError(source, number, f"after {actor}, expected the sprites the effect applies to")
        return [InteractionDef(o, (actor,), effect, params, number) for o in others]
    return [InteractionDef(actor, others, effect, params, number)]


def parse_level(text: str, source: str = "<level>") -> LevelData:
    """Read an ASCII level: one line per row, one character per cell.

    Blank lines at the start and the end are ignored; rows shorter than the longest are padded with
    empty cells. Which sprites a character stands for is decided by the game's LevelMapping.

    Raises:
        VgdlError: the level is empty or holds a character that cannot be a cell.
    """
    if not isinstance(text, str):
        raise VgdlError(source, None, "a level is text")
    lines = text.splitlines()
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    last = len(lines)
    while last > first and not lines[last - 1].strip():
        last -= 1
    rows = [line.rstrip() for line in lines[first:last]]
    if not rows:
        raise VgdlError(source, None, "the level is empty; expected rows of level characters")
    for offset, row in enumerate(rows):
        for col, char in enumerate(row):
            if char not in _LEVEL_CHARS and char != " ":
                raise VgdlError(
                    source, first + offset + 1, f"column {col + 1}: {char!r} cannot be a level character"
                )
    width = max(len(r) for r in rows)
    if width > 200 or len(rows) > 200:
        raise VgdlError(
            source, None, f"the level is {len(rows)}x{width}; at most 200x200 cells are supported"
        )
    return LevelData(source, tuple(r.ljust(width) for r in rows))
