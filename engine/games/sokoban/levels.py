"""Sokoban levels: the standard plain-text format, read from ``.xsb``, ``.sok`` and ``.txt`` collections.

A board is drawn with one character per cell::

    #  wall            @  player            $  box              .  goal
    +  player on goal  *  box on goal       space, - or _  floor

A file holds one or many levels. Board rows are lines made of those characters; a blank line or any
other line ends a board. Everything else is tolerated as metadata: ``;`` comments, ``Title: ...`` and
``Author: ...`` lines, plain headings such as ``Level 7``. A level's title is the ``Title:`` line
after its board, else the last heading or comment before it. Run-length-encoded rows are read too
(``4#`` is ``####``, and ``|`` separates rows: ``#4-#|#@$.#``).

Cells are numbered in reading order, ``index = row * width + column``; rows and columns count from 0
at the top left. The cells a player can never reach (outside the walls) are *outside* and are drawn
as background.

No library reads this format (the Sokoban packages on PyPI are whole environments with their own
fixed level sets), so PlayTrace has its own reader; its errors name the file, the level and the line.
"""

from __future__ import annotations

import dataclasses
import re
from collections import deque
from pathlib import Path

from engine import safeio
from engine.core import GameError

__all__ = [
    "BOARD_CHARS",
    "Level",
    "LevelFormatError",
    "level_from_rows",
    "parse_levels",
    "read_levels",
]

#: Characters of a board row (floor may also be written ``-`` or ``_``).
BOARD_CHARS = frozenset("#@+$*. -_")
_FLOOR = frozenset(" -_")
_RLE = re.compile(r"(\d+)(.)")
_TITLE = re.compile(r"^\s*title\s*:\s*(.*)$", re.IGNORECASE)
_KEY = re.compile(r"^\s*[A-Za-z][\w ]*:\s*")
#: The largest board PlayTrace reads (a room is a few dozen cells across at most; this bounds memory).
MAX_SIDE = 64


class LevelFormatError(GameError):
    """A level file or text could not be read; the message names the file, the level and the line."""


@dataclasses.dataclass(frozen=True, eq=False)
class Level:
    """One Sokoban room: its fixed layout and where the boxes and the player start.

    Attributes:
        width: Columns of the grid.
        height: Rows of the grid.
        walls: Cell indices of walls.
        goals: Cell indices of goals.
        boxes: Cell indices of the boxes at the start.
        player: The player's cell at the start.
        title: The level's title, or ``""``.
    """

    width: int
    height: int
    walls: frozenset[int]
    goals: frozenset[int]
    boxes: frozenset[int]
    player: int
    title: str = ""
    #: Cells inside the walls (reachable by the player when boxes are ignored); computed.
    inside: frozenset[int] = dataclasses.field(init=False, repr=False)
    #: Inside cells from which a box can never be pushed onto any goal (simple deadlock squares).
    dead: frozenset[int] = dataclasses.field(init=False, repr=False)
    #: The fixed cells as text views draw them: ``#`` wall, ``.`` goal, ``-`` floor, space outside.
    template: tuple[str, ...] = dataclasses.field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "inside", _flood(self, self.player))
        object.__setattr__(self, "dead", self.inside - _live_squares(self))
        cells = [" "] * (self.width * self.height)
        for i in self.inside:
            cells[i] = "." if i in self.goals else "-"
        for i in self.walls:
            cells[i] = "#"
        object.__setattr__(self, "template", tuple(cells))

    # Equality and hashing by layout (the computed fields follow from it); identity first, so states
    # that share one Level compare fast.
    def _key(self) -> tuple[object, ...]:
        return (self.width, self.height, self.walls, self.goals, self.boxes, self.player, self.title)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Level):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def cell(self, row: int, col: int) -> int:
        return row * self.width + col

    def coords(self, index: int) -> tuple[int, int]:
        """``(row, column)`` of a cell index."""
        return divmod(index, self.width)

    def rows(self, boxes: frozenset[int] | None = None, player: int | None = None) -> list[str]:
        """The board in the standard format (the start position unless ``boxes``/``player`` are given);
        trailing blanks are cut, outside cells are spaces."""
        boxes = self.boxes if boxes is None else boxes
        player = self.player if player is None else player
        out = []
        for r in range(self.height):
            chars = []
            for c in range(self.width):
                i = r * self.width + c
                if i in self.walls:
                    chars.append("#")
                elif i == player:
                    chars.append("+" if i in self.goals else "@")
                elif i in boxes:
                    chars.append("*" if i in self.goals else "$")
                elif i in self.goals:
                    chars.append(".")
                else:
                    chars.append(" ")
            out.append("".join(chars).rstrip())
        return out

    def text(self) -> str:
        """The level in the standard format, with its title as a ``Title:`` line when it has one."""
        lines = self.rows()
        if self.title:
            lines.append(f"Title: {self.title}")
        return "\n".join(lines)


def _flood(level: Level, start: int) -> frozenset[int]:
    """Cells reachable from ``start`` through non-wall cells (boxes ignored)."""
    w = level.width
    seen = {start}
    todo = deque([start])
    while todo:
        i = todo.popleft()
        r, c = divmod(i, w)
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if not (0 <= nr < level.height and 0 <= nc < w):
                continue
            j = nr * w + nc
            if j not in seen and j not in level.walls:
                seen.add(j)
                todo.append(j)
    return frozenset(seen)


def _live_squares(level: Level) -> set[int]:
    """Cells from which a box can reach a goal, found by pulling a box away from every goal: a box at
    ``x`` can be pulled to ``x - d`` when the player fits at ``x - d`` and ``x - 2d`` (other boxes
    are ignored, so the set errs on the side of life)."""
    w = level.width
    inside = level.inside
    live: set[int] = set()
    todo = deque(g for g in level.goals if g in inside)
    live.update(todo)
    while todo:
        x = todo.popleft()
        for d in (-w, w, -1, 1):
            to, stand = x + d, x + 2 * d
            if abs(d) == 1 and (to // w != x // w or stand // w != x // w):
                continue
            if to in inside and stand in inside and to not in live:
                live.add(to)
                todo.append(to)
    return live


def _expand_rle(line: str) -> list[str] | None:
    """The rows a run-length-encoded line stands for, or ``None`` when it is not one."""
    if not any(ch.isdigit() for ch in line) and "|" not in line:
        return None
    if any(not (ch.isdigit() or ch in BOARD_CHARS or ch == "|") for ch in line):
        return None
    expanded = _RLE.sub(lambda m: m.group(2) * min(int(m.group(1)), MAX_SIDE + 1), line)
    if any(ch.isdigit() for ch in expanded):
        return None  # a number at the end of the line repeats nothing
    return expanded.split("|")


def _board_rows(line: str) -> list[str] | None:
    """The board rows ``line`` holds (one, or several when run-length encoded), or ``None`` when it
    is not a board line. A board line holds a wall."""
    body = line.rstrip("\r\n")
    if not body.strip() or body.lstrip().startswith(";"):
        return None
    if all(ch in BOARD_CHARS for ch in body):
        return [body] if "#" in body else None
    rows = _expand_rle(body.strip())
    if rows is not None and any("#" in r for r in rows):
        return rows
    return None


def level_from_rows(rows: list[str], title: str = "", where: str = "the level", first_line: int = 1) -> Level:
    """A :class:`Level` from its board rows.

    Args:
        rows: The board, one string per row (ragged rows are padded with outside cells).
        title: The level's title.
        where: How errors name the level (``"levels.xsb: level 3"``).
        first_line: The line number of the first row, for errors.

    Raises:
        LevelFormatError: an unknown character, no player or several, boxes and goals that do not
            match, a room open to the outside, or a board too large.
    """
    height = len(rows)
    width = max((len(r) for r in rows), default=0)
    if height == 0 or width == 0:
        raise LevelFormatError(f"{where}: the board is empty")
    if height > MAX_SIDE or width > MAX_SIDE:
        raise LevelFormatError(
            f"{where} (line {first_line}): the board is {width}x{height}; "
            f"at most {MAX_SIDE}x{MAX_SIDE} cells are supported"
        )
    walls, goals, boxes, players = set(), set(), set(), []
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            i = r * width + c
            if ch == "#":
                walls.add(i)
            elif ch in "@+":
                players.append((i, first_line + r))
            if ch in "$*":
                boxes.add(i)
            if ch in ".+*":
                goals.add(i)
            if ch not in BOARD_CHARS:
                raise LevelFormatError(
                    f"{where} (line {first_line + r}, column {c + 1}): unexpected "
                    f"character {ch!r}; a board uses # @ + $ * . and space, - or _"
                )
    if not players:
        raise LevelFormatError(
            f"{where} (lines {first_line}-{first_line + height - 1}): no player (@, or + on a goal)"
        )
    if len(players) > 1:
        lines = ", ".join(str(line) for _, line in players)
        raise LevelFormatError(f"{where}: {len(players)} players (on lines {lines}); a level has one")
    if not boxes:
        raise LevelFormatError(f"{where} (lines {first_line}-{first_line + height - 1}): no box ($ or *)")
    player, player_line = players[0]
    level = Level(width, height, frozenset(walls), frozenset(goals), frozenset(boxes), player, title)
    edge = next((i for i in level.inside if _on_edge(level, i)), None)
    if edge is not None:
        r, c = level.coords(edge)
        raise LevelFormatError(
            f"{where} (line {first_line + r}, column {c + 1}): the room is not closed "
            "by walls; the player could walk off the board there"
        )
    stray = sorted((boxes | goals) - level.inside)
    if stray:
        r, c = level.coords(stray[0])
        kind = "box" if stray[0] in boxes else "goal"
        raise LevelFormatError(
            f"{where} (line {first_line + r}, column {c + 1}): a {kind} outside the player's room"
        )
    if len(boxes) != len(goals):
        raise LevelFormatError(
            f"{where} (lines {first_line}-{first_line + height - 1}): {len(boxes)} "
            f"boxes but {len(goals)} goals; they must be as many"
        )
    del player_line
    return level


def _on_edge(level: Level, i: int) -> bool:
    r, c = level.coords(i)
    return r in (0, level.height - 1) or c in (0, level.width - 1)


def parse_levels(text: str, source: str = "the level text") -> tuple[Level, ...]:
    """Every level in ``text`` (a collection in the standard format), in order.

    Args:
        text: The collection's text.
        source: How errors name it (a file name).

    Raises:
        LevelFormatError: no level in the text, or a level that cannot be played (see
            :func:`level_from_rows`); the message names ``source``, the level's number and the line.
    """
    levels: list[Level] = []
    block: list[str] = []
    block_line = 0
    heading = ""  # the last heading or comment before the current board
    pending: list[tuple[list[str], str, int]] = []  # boards waiting for a Title: line
    titles: list[str] = []

    def close() -> None:
        nonlocal block, heading
        if block:
            pending.append((block, heading, block_line))
            titles.append("")
            block = []
            heading = ""

    for number, raw in enumerate(text.splitlines(), start=1):
        rows = _board_rows(raw)
        if rows is not None:
            if not block:
                block_line = number
            block.extend(rows)
            continue
        line = raw.strip()
        if line and (line.startswith("#") or (line[0] in "@$*+." and not _KEY.match(line))):
            bad = next((ch for ch in line if ch not in BOARD_CHARS), "")
            where = f"{source}: level {len(pending) + 1}"  # the board this row belongs to
            col = raw.index(bad) + 1 if bad else 1
            raise LevelFormatError(
                f"{where} (line {number}, column {col}): unexpected character {bad!r} "
                "in a board row; a board uses # @ + $ * . and space, - or _"
            )
        close()
        if not line:
            continue
        title = _TITLE.match(line)
        if title and pending and not titles[-1]:
            titles[-1] = title.group(1).strip()  # the usual place: right after its board
            continue
        if title:
            heading = title.group(1).strip()  # a title before the first board, or a second one
            continue
        if not _KEY.match(line):
            heading = line.lstrip(";").strip()
    close()
    for n, ((board, heading_text, first_line), name) in enumerate(zip(pending, titles, strict=True), start=1):
        levels.append(level_from_rows(board, name or heading_text, f"{source}: level {n}", first_line))
    if not levels:
        raise LevelFormatError(
            f"{source}: no level found (a level is a board of # walls with one @ player, $ boxes and . goals)"
        )
    return tuple(levels)


def read_levels(path: str | Path) -> tuple[Level, ...]:
    """Every level in the file at ``path``.

    Raises:
        LevelFormatError: the file cannot be read or holds no valid level (the message names it).
    """
    file = Path(path)
    try:
        text = safeio.read_text(file, cap=16 * 1024 * 1024, encoding="utf-8-sig", errors="replace")
    except safeio.InputError as exc:
        raise LevelFormatError(f"the level file {exc}") from None
    except OSError as exc:
        raise LevelFormatError(f"cannot read the level file {file}: {exc.strerror or exc}") from None
    return parse_levels(text, file.name)
