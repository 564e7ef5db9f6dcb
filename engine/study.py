"""Human-baseline studies: one TOML file says what participants play, in which order, and what they
are asked; :meth:`Study.schedule` turns it into the blocks one participant goes through.

A study file (``playtrace study init`` writes a commented example)::

    id = "pilot"                 # a short name: results are filed under it
    version = 1                  # bump when the study changes; results of two versions never merge
    title = "Three puzzles"
    consent = "..."              # shown first; nothing is recorded before it is given
    instructions = "..."
    order = "latin"              # fixed | shuffle | latin (balanced Latin square over the games)
    undo = false                 # may participants take back moves
    practice_counts = false      # always false: practice rounds never count (documented here)
    collect = []                 # "absolute_times" or "names" to export them; nothing by default
    final_questionnaire = "end"

    [limits]                     # defaults for every game
    move_seconds = 60            # the longest a participant may think about one move (0 = no limit)
    game_seconds = 600

    [breaks]
    every = 2                    # a break after every second counted game
    seconds = 30

    [[game]]
    key = "ttt"                  # how the game is named in exports
    game = "tictactoe"
    options = { style = "lvlm" }
    opponent = "minimax"         # who plays the other seats (a player spec)
    seeds = [11, 12]             # one counted game per seed
    practice = 1                 # practice rounds first (seeds of their own)
    max_steps = 200
    questionnaire = "after_game"

    [[questionnaire]]
    key = "after_game"
    [[questionnaire.item]]
    key = "difficulty"
    kind = "likert"              # likert (scale points, labelled ends) | text
    text = "How difficult was this game?"
    scale = 5
    anchors = ["very easy", "very hard"]

The order of the games for participant *i* is the study's order (``fixed``), a shuffle seeded by the
study and the participant (``shuffle``), or row *i mod n* of a balanced Latin square (``latin``: each
game appears once in each position, and for an even number of games each game follows every other
once — Williams' design). The condition recorded for a participant is the order's name (``"B"``).
Checking a file never runs anything: :func:`load_study` only reads values.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import random
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from engine import safeio
from engine.llm.base import LLMError
from engine.tomllines import locate

__all__ = [
    "Block",
    "Item",
    "Questionnaire",
    "Study",
    "StudyError",
    "StudyGame",
    "check_games",
    "latin_square",
    "load_study",
    "parse_study",
]

ORDERS = ("fixed", "shuffle", "latin")
KINDS = ("likert", "text")
COLLECTABLE = ("absolute_times", "names")
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")


#: The longest limit (a move, a game, a break) a study may set: a day.
MAX_SECONDS = 86_400


class StudyError(ValueError):
    """A study file that cannot be used; ``line`` is where the mistake is (``None``: unknown)."""

    def __init__(self, message: str, line: int | None = None, source: str = "study") -> None:
        self.line = line
        self.source = source
        where = f"{source}:{line}: " if line else f"{source}: "
        super().__init__(where + message)


@dataclasses.dataclass(frozen=True, slots=True)
class Item:
    """One questionnaire item: a Likert scale (``scale`` points, ``anchors`` for its ends) or free text."""

    key: str
    kind: str
    text: str
    scale: int = 5
    anchors: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Questionnaire:
    key: str
    items: tuple[Item, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class StudyGame:
    """One game of the study, played ``len(seeds)`` times after ``practice`` practice rounds."""

    key: str
    game: str
    options: Mapping[str, Any]
    opponent: str
    seeds: tuple[int, ...]
    practice: int
    max_steps: int | None
    move_seconds: float
    game_seconds: float
    questionnaire: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class Block:
    """One thing a participant goes through, in order.

    ``kind``: ``consent``, ``instructions``, ``practice``, ``game``, ``questionnaire``, ``break``
    or ``thanks``. Game blocks (practice included) carry the game, its seed, its round (1-based) and
    the game's position in this participant's order (1-based); a questionnaire block names the
    questionnaire and, after a game, that game's key.
    """

    index: int
    kind: str
    game: StudyGame | None = None
    seed: int | None = None
    round: int = 0
    position: int = 0
    questionnaire: str | None = None
    seconds: float = 0.0

    @property
    def plays(self) -> bool:
        return self.kind in ("practice", "game")

    def tags(self, study: Study, participant: str, condition: str) -> dict[str, Any]:
        """What a game block's session records in its manifest (``extra.study``)."""
        assert self.game is not None
        return {
            "id": study.id,
            "version": study.version,
            "digest": study.digest,
            "participant": participant,
            "condition": condition,
            "game_key": self.game.key,
            "position": self.position,
            "round": self.round,
            "block": self.index,
            "practice": self.kind == "practice",
        }


@dataclasses.dataclass(frozen=True, slots=True)
class Study:
    id: str
    version: int
    title: str
    consent: str
    instructions: str
    order: str
    undo: bool
    collect: tuple[str, ...]
    games: tuple[StudyGame, ...]
    questionnaires: Mapping[str, Questionnaire]
    final_questionnaire: str | None
    break_every: int
    break_seconds: float
    thanks: str
    #: The SHA-256 of the file's text: results of different files never merge.
    digest: str
    labels: tuple[Mapping[str, str], ...] = ()

    def orders(self) -> list[tuple[int, ...]]:
        """Every order of the games this study uses (indices into :attr:`games`)."""
        n = len(self.games)
        if self.order == "latin":
            return latin_square(n)
        return [tuple(range(n))]

    def order_for(self, participant_index: int, participant: str) -> tuple[tuple[int, ...], str]:
        """The order of the games for a participant and the condition's name."""
        n = len(self.games)
        if self.order == "latin":
            rows = latin_square(n)
            row = participant_index % len(rows)
            return rows[row], _letter(row)
        if self.order == "shuffle":
            order = list(range(n))
            random.Random(f"{self.id}:{self.version}:{participant}").shuffle(order)
            return tuple(order), "shuffled"
        return tuple(range(n)), "fixed"

    def schedule(self, participant_index: int, participant: str) -> tuple[list[Block], str]:
        """The blocks participant number ``participant_index`` (from 0) goes through, and their
        condition."""
        order, condition = self.order_for(participant_index, participant)
        blocks: list[Block] = []

        def add(kind: str, **fields: Any) -> None:
            blocks.append(Block(len(blocks), kind, **fields))

        add("consent")
        add("instructions")
        counted = 0
        for position, g in enumerate(order, 1):
            game = self.games[g]
            for r in range(game.practice):
                add("practice", game=game, seed=_practice_seed(self, game, r), round=r + 1, position=position)
            for r, seed in enumerate(game.seeds):
                add("game", game=game, seed=seed, round=r + 1, position=position)
                if game.questionnaire:
                    add(
                        "questionnaire",
                        game=game,
                        questionnaire=game.questionnaire,
                        round=r + 1,
                        position=position,
                    )
                counted += 1
                last = position == len(order) and r == len(game.seeds) - 1
                if self.break_every and counted % self.break_every == 0 and not last:
                    add("break", seconds=self.break_seconds)
        if self.final_questionnaire:
            add("questionnaire", questionnaire=self.final_questionnaire)
        add("thanks")
        return blocks, condition


def latin_square(n: int) -> list[tuple[int, ...]]:
    """A balanced Latin square of ``n`` treatments (Williams' design): ``n`` rows for even ``n``, and
    the rows followed by their mirror images (``2n`` rows) for odd ``n``, so that every treatment
    follows every other equally often."""
    if n < 1:
        return []
    first = [0]
    lo, hi = 1, n - 1
    take_lo = True
    while len(first) < n:
        first.append(lo if take_lo else hi)
        if take_lo:
            lo += 1
        else:
            hi -= 1
        take_lo = not take_lo
    rows = [tuple((x + r) % n for x in first) for r in range(n)]
    if n % 2:
        rows += [tuple(reversed(row)) for row in rows]
    return rows


def _letter(i: int) -> str:
    return chr(ord("A") + i) if i < 26 else f"O{i + 1}"


def _practice_seed(study: Study, game: StudyGame, r: int) -> int:
    digest = hashlib.sha256(f"{study.id}:{game.key}:practice:{r}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


# -- reading -----------------------------------------------------------------------------------------


def load_study(path: Path | str) -> Study:
    """Read and check a study file.

    Raises:
        StudyError: the file cannot be read, is not TOML, or a value is missing or wrong (the message
            names the file, the line and what was expected).
    """
    p = Path(path)
    try:
        text = safeio.read_text(p, cap=1024 * 1024, what="study file")
    except FileNotFoundError:
        raise StudyError("the study file does not exist", source=str(p)) from None
    except safeio.InputError as exc:
        raise StudyError(str(exc).replace(f"study file {p} ", "the study file "), source=str(p)) from None
    return parse_study(text, str(p))


def parse_study(text: str, source: str = "study") -> Study:
    """A :class:`Study` from a study file's text (see the module docstring)."""
    try:
        data = safeio.loads_toml(text, source)
    except safeio.InputError as exc:
        raise StudyError(str(exc).replace(f"{source} ", "", 1), source=source) from None
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"line (\d+)", str(exc))
        raise StudyError(f"not valid TOML: {exc}", int(found.group(1)) if found else None, source) from exc
    r = _Reader(text, source)
    known = {
        "id",
        "version",
        "title",
        "consent",
        "instructions",
        "order",
        "undo",
        "collect",
        "limits",
        "breaks",
        "game",
        "questionnaire",
        "final_questionnaire",
        "thanks",
        "label",
        "practice_counts",
    }
    r.no_unknown(data, known, [])
    study_id = r.string(data, "id", [])
    if not _KEY.match(study_id):
        r.fail("id must be a short name (letters, digits, '_' or '-')", [], "id")
    version = r.integer(data, "version", [], minimum=1)
    order = r.string(data, "order", [], default="fixed")
    if order not in ORDERS:
        r.fail(f"order must be one of {', '.join(ORDERS)}, not {order!r}", [], "order")
    if data.get("practice_counts", False) is not False:
        r.fail(
            "practice rounds never count: practice_counts must be false (or left out)", [], "practice_counts"
        )
    collect = tuple(r.strings(data, "collect", []))
    for item in collect:
        if item not in COLLECTABLE:
            r.fail(f"collect may name {', '.join(COLLECTABLE)}, not {item!r}", [], "collect")
    limits = r.table(data, "limits", [])
    r.no_unknown(limits, {"move_seconds", "game_seconds"}, ["limits"])
    move_s = r.number(limits, "move_seconds", ["limits"], default=0.0)
    game_s = r.number(limits, "game_seconds", ["limits"], default=0.0)
    breaks = r.table(data, "breaks", [])
    r.no_unknown(breaks, {"every", "seconds"}, ["breaks"])
    questionnaires = _questionnaires(r, data)
    games = _games(r, data, move_s, game_s, questionnaires)
    final = data.get("final_questionnaire")
    if final is not None and final not in questionnaires:
        r.fail(
            f"final_questionnaire names {final!r}, which no [[questionnaire]] defines",
            [],
            "final_questionnaire",
        )
    labels = data.get("label", [])
    if not isinstance(labels, list) or not all(isinstance(x, dict) for x in labels):
        r.fail("label must be [[label]] tables with key and title", [], "label")
    return Study(
        id=study_id,
        version=version,
        title=r.string(data, "title", [], default=study_id),
        consent=r.string(data, "consent", []),
        instructions=r.string(data, "instructions", [], default=""),
        order=order,
        undo=r.boolean(data, "undo", [], default=False),
        collect=collect,
        games=tuple(games),
        questionnaires=questionnaires,
        final_questionnaire=final,
        break_every=r.integer(breaks, "every", ["breaks"], default=0, minimum=0),
        break_seconds=r.number(breaks, "seconds", ["breaks"], default=30.0),
        thanks=r.string(data, "thanks", [], default="Thank you for taking part."),
        digest=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        labels=tuple(labels),
    )


def _questionnaires(r: _Reader, data: Mapping[str, Any]) -> dict[str, Questionnaire]:
    out: dict[str, Questionnaire] = {}
    raw = data.get("questionnaire", [])
    if not isinstance(raw, list):
        r.fail("questionnaire must be [[questionnaire]] tables", [], "questionnaire")
    for i, q in enumerate(raw):
        path: list[str | int] = ["questionnaire", i]
        r.no_unknown(q, {"key", "item"}, path)
        key = r.string(q, "key", path)
        if key in out:
            r.fail(f"two questionnaires are called {key!r}", path, "key")
        items: list[Item] = []
        raw_items = q.get("item", [])
        if not isinstance(raw_items, list) or not raw_items:
            r.fail("a questionnaire needs [[questionnaire.item]] tables", path, "key")
        for j, item in enumerate(raw_items):
            ipath: list[str | int] = [*path, "item", j]
            r.no_unknown(item, {"key", "kind", "text", "scale", "anchors"}, ipath)
            kind = r.string(item, "kind", ipath)
            if kind not in KINDS:
                r.fail(f"kind must be one of {', '.join(KINDS)}, not {kind!r}", ipath, "kind")
            scale = r.integer(item, "scale", ipath, default=5, minimum=2)
            if scale > 11:
                r.fail("a Likert scale has at most 11 points", ipath, "scale")
            items.append(
                Item(
                    r.string(item, "key", ipath),
                    kind,
                    r.string(item, "text", ipath),
                    scale,
                    tuple(r.strings(item, "anchors", ipath)),
                )
            )
        if len({it.key for it in items}) != len(items):
            r.fail("two items of one questionnaire share a key", path, "key")
        out[key] = Questionnaire(key, tuple(items))
    return out


def _games(
    r: _Reader,
    data: Mapping[str, Any],
    move_s: float,
    game_s: float,
    questionnaires: Mapping[str, Questionnaire],
) -> list[StudyGame]:
    raw = data.get("game")
    if not isinstance(raw, list) or not raw:
        r.fail("a study needs at least one [[game]] table", [], "game")
    games: list[StudyGame] = []
    for i, g in enumerate(raw):
        path: list[str | int] = ["game", i]
        r.no_unknown(
            g,
            {
                "key",
                "game",
                "options",
                "opponent",
                "seeds",
                "practice",
                "max_steps",
                "move_seconds",
                "game_seconds",
                "questionnaire",
            },
            path,
        )
        game_id = r.string(g, "game", path)
        key = r.string(g, "key", path, default=game_id)
        if any(other.key == key for other in games):
            r.fail(f"two games are called {key!r}; give each a key", path, "key")
        seeds = g.get("seeds", [1])
        if not isinstance(seeds, list) or not seeds or not all(type(s) is int for s in seeds):
            r.fail("seeds must be a list of whole numbers (one counted game each)", path, "seeds")
        options = g.get("options", {})
        if not isinstance(options, dict):
            r.fail("options must be a table, e.g. options = { size = 4 }", path, "options")
        questionnaire = g.get("questionnaire")
        if questionnaire is not None and questionnaire not in questionnaires:
            r.fail(
                f"questionnaire {questionnaire!r} is not defined by a [[questionnaire]]",
                path,
                "questionnaire",
            )
        max_steps = g.get("max_steps")
        if max_steps is not None and (type(max_steps) is not int or max_steps < 1):
            r.fail("max_steps must be a whole number of at least 1", path, "max_steps")
        games.append(
            StudyGame(
                key=key,
                game=game_id,
                options=dict(options),
                opponent=r.string(g, "opponent", path, default="random"),
                seeds=tuple(seeds),
                practice=r.integer(g, "practice", path, default=0, minimum=0),
                max_steps=max_steps,
                move_seconds=r.number(g, "move_seconds", path, default=move_s),
                game_seconds=r.number(g, "game_seconds", path, default=game_s),
                questionnaire=questionnaire,
            )
        )
    return games


class _Reader:
    """Typed look-ups in the parsed file whose errors name the line of the key."""

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source

    def line_of(self, path: Sequence[str | int], key: str | None) -> int | None:
        """The line of ``key`` inside the table at ``path`` (``["game", 1]``: the second [[game]]),
        or of the table itself when ``key`` is ``None``."""
        return locate(self.text, [*path, key] if key is not None else path)

    def fail(self, message: str, path: Sequence[str | int], key: str | None) -> NoReturn:
        raise StudyError(message, self.line_of(path, key), self.source)

    _MISSING = object()

    def _get(self, table: Mapping[str, Any], key: str, path: Sequence[str | int], default: Any) -> Any:
        value = table.get(key, self._MISSING)
        if value is self._MISSING:
            if default is self._MISSING:
                where = ".".join(str(p) for p in path if isinstance(p, str))
                self.fail(f"{key} is missing" + (f" in [{where}]" if where else ""), path, None)
            return default
        return value

    def string(
        self, table: Mapping[str, Any], key: str, path: Sequence[str | int], default: Any = _MISSING
    ) -> str:
        value = self._get(table, key, path, default)
        if not isinstance(value, str):
            self.fail(f"{key} must be text (in quotes), not {value!r}", path, key)
        return value

    def strings(self, table: Mapping[str, Any], key: str, path: Sequence[str | int]) -> list[str]:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(f'{key} must be a list of texts, e.g. ["a", "b"]', path, key)
        return value

    def integer(
        self,
        table: Mapping[str, Any],
        key: str,
        path: Sequence[str | int],
        *,
        default: Any = _MISSING,
        minimum: int | None = None,
    ) -> int:
        value = self._get(table, key, path, default)
        if type(value) is not int or (minimum is not None and value < minimum):
            self.fail(
                f"{key} must be a whole number"
                + (f" of at least {minimum}" if minimum is not None else "")
                + f", not {value!r}",
                path,
                key,
            )
        return value

    def number(
        self, table: Mapping[str, Any], key: str, path: Sequence[str | int], *, default: Any = _MISSING
    ) -> float:
        value = self._get(table, key, path, default)
        if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
                or not 0 <= value <= MAX_SECONDS):
            self.fail(f"{key} must be a number of seconds from 0 to {MAX_SECONDS:,}, not {value!r}",
                      path, key)
        return float(value)

    def boolean(
        self, table: Mapping[str, Any], key: str, path: Sequence[str | int], *, default: Any = _MISSING
    ) -> bool:
        value = self._get(table, key, path, default)
        if not isinstance(value, bool):
            self.fail(f"{key} must be true or false, not {value!r}", path, key)
        return value

    def table(self, table: Mapping[str, Any], key: str, path: Sequence[str | int]) -> Mapping[str, Any]:
        value = table.get(key, {})
        if not isinstance(value, dict):
            self.fail(f"{key} must be a table ([{key}])", path, key)
        return value

    def no_unknown(self, table: Any, known: set[str], path: Sequence[str | int]) -> None:
        if not isinstance(table, dict):
            self.fail("expected a table", path, None)
        for key in table:
            if key not in known:
                self.fail(f"unknown key {key!r}; expected one of {', '.join(sorted(known))}", path, key)


def check_games(study: Study, text: str | None = None) -> list[str]:
    """What is wrong with the study's games here: unknown games or options, unknown opponents,
    games that cannot be played on this machine (each a sentence naming the game's key, and with the
    study's ``text`` the line of the value at fault: "line 12: game 'chess2': ...")."""
    from engine.core import GameError
    from engine.registry import make
    from engine.roster import make_player

    def at(i: int, key: str) -> str:
        line = locate(text, ["game", i, key]) if text is not None else None
        return f"line {line}: " if line is not None else ""

    problems = []
    for i, g in enumerate(study.games):
        try:
            game = make(g.game, **dict(g.options))
        except (GameError, ValueError) as exc:
            key = "options" if isinstance(exc, ValueError) and not isinstance(exc, GameError) else "game"
            problems.append(f"{at(i, key) or at(i, 'game')}game {g.key!r}: {exc}")
            continue
        if game.num_seats > 1:
            try:
                make_player(g.opponent, game, seed=0)
            except (ValueError, LookupError, LLMError) as exc:  # LLMError: no key for a model opponent
                problems.append(f"{at(i, 'opponent') or at(i, 'game')}game {g.key!r}: opponent "
                                f"{g.opponent!r}: {exc}")
    return problems
