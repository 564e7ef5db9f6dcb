"""Case files: reading, checking and solving the courtroom game's cases.

A case is a TOML file (or the same structure as JSON) in ``assets/courtroom/``; ``casebook.toml`` lists
the bundled ones in the order they are played. ``telescope.toml`` explains the format in its header.
Everything is checked when the file is read, and a problem is reported as a :class:`CaseFormatError`
naming the file and the field (``orchard.toml: testimony[2].statements[1].reveals: no statement
'olld' in this testimony``), never as a traceback from deep inside the game.

The answer key of every testimony is checked against the rest of the case: :func:`key_actions` plays
it, so a case that its own key cannot solve (a contradiction shown by evidence the defense does not
hold yet, a hidden statement nothing reveals) is refused when it is read.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import assets
from engine import safeio
from engine.core import GameError

__all__ = [
    "ICONS",
    "MAX_EVIDENCE",
    "MAX_OPTIONS",
    "MAX_STATEMENTS",
    "Answer",
    "CaseFormatError",
    "Case",
    "Character",
    "Choice",
    "Evidence",
    "Line",
    "Look",
    "Statement",
    "Testimony",
    "bundled_ids",
    "key_actions",
    "load_bundled",
    "load_case",
    "parse_case",
]

#: The most evidence a case may hold (the Gymnasium action list has one ``present`` per number).
MAX_EVIDENCE = 12
#: The most answers a question may offer (``choose A`` to ``choose D``).
MAX_OPTIONS = 4
#: The most statements a testimony may have, hidden ones included.
MAX_STATEMENTS = 12
#: The pictures the renderer can draw for a piece of evidence.
ICONS = (
    "badge",
    "book",
    "cap",
    "can",
    "chart",
    "clipboard",
    "document",
    "key",
    "knife",
    "photo",
    "receipt",
    "rope",
    "ticket",
)
HAIR_STYLES = ("short", "long", "bun", "bald")
HATS = ("none", "cap", "brim")
_ID = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
_COLOUR = re.compile(r"^#[0-9A-Fa-f]{6}$")


class CaseFormatError(GameError):
    """A case file is missing, unreadable or breaks the format; the message names the file and field."""


#: A dialogue line: (speaker's character key, text).
Line = tuple[str, str]


@dataclasses.dataclass(frozen=True, slots=True)
class Look:
    """How the picture draws a character: ``#RRGGBB`` colours, a hair style and a hat."""

    skin: str = "#E0B48C"
    hair: str = "#3F2A1D"
    coat: str = "#334155"
    accent: str = "#F8FAFC"
    hair_style: str = "short"
    hat: str = "none"
    hat_color: str = "#1F2937"


@dataclasses.dataclass(frozen=True, slots=True)
class Character:
    key: str
    name: str
    role: str
    look: Look


@dataclasses.dataclass(frozen=True, slots=True)
class Evidence:
    """A piece of evidence; ``number`` (from 1, in file order) names it in actions: ``present E3``."""

    id: str
    number: int
    name: str
    description: str
    icon: str
    held: bool

    @property
    def label(self) -> str:
        return f"E{self.number}"


@dataclasses.dataclass(frozen=True, slots=True)
class Statement:
    id: str
    text: str
    press: tuple[Line, ...]
    hidden: bool = False
    reveals: str | None = None
    adds: tuple[str, ...] = ()

    @property
    def telling(self) -> bool:
        """Whether pressing it reveals something (a statement or evidence): a correct action."""
        return self.reveals is not None or bool(self.adds)


@dataclasses.dataclass(frozen=True, slots=True)
class Answer:
    """A testimony's answer key: the evidence that contradicts which statement, and the presses that
    reveal statements or evidence on the way."""

    statement: str
    evidence: tuple[str, ...]
    press: tuple[str, ...]
    reason: str
    solved: tuple[Line, ...]
    adds: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Choice:
    """A question put to the defense once a testimony is broken; ``answer`` counts from 1."""

    question: Line
    options: tuple[str, ...]
    answer: int
    right: tuple[Line, ...]
    wrong: tuple[Line, ...]
    adds: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Testimony:
    id: str
    title: str
    witness: str
    intro: tuple[Line, ...]
    statements: tuple[Statement, ...]
    answer: Answer
    choice: Choice | None = None

    def statement(self, statement_id: str) -> Statement:
        return next(s for s in self.statements if s.id == statement_id)

    def visible(self, revealed: frozenset[str] | set[str]) -> tuple[Statement, ...]:
        """The statements shown, in order: every one not hidden, and the hidden ones ``revealed``."""
        return tuple(s for s in self.statements if not s.hidden or s.id in revealed)

    @property
    def key_steps(self) -> int:
        """The correct actions the answer key holds as LMGame-Bench counts them: the presentation and
        the answer to the question (if one is put)."""
        return 1 + (1 if self.choice is not None else 0)

    @property
    def key_presses(self) -> int:
        """The presses the answer key holds (correct actions only with the ``score_presses`` option)."""
        return len(self.answer.press)


@dataclasses.dataclass(frozen=True, slots=True)
class Case:
    id: str
    title: str
    summary: str
    characters: Mapping[str, Character]
    evidence: tuple[Evidence, ...]
    opening: tuple[Line, ...]
    testimonies: tuple[Testimony, ...]
    verdict: tuple[Line, ...]
    #: The file the case was read from, as named in messages.
    source: str = ""

    def item(self, evidence_id: str) -> Evidence:
        return next(e for e in self.evidence if e.id == evidence_id)

    def numbered(self, number: int) -> Evidence | None:
        return self.evidence[number - 1] if 1 <= number <= len(self.evidence) else None

    @property
    def key_steps(self) -> int:
        """The correct actions that solve the case (presentations and answers)."""
        return sum(t.key_steps for t in self.testimonies)

    @property
    def key_presses(self) -> int:
        """The telling presses on the way (scored only with the ``score_presses`` option)."""
        return sum(t.key_presses for t in self.testimonies)

    @property
    def statement_count(self) -> int:
        """Every witness statement of the case, hidden ones included."""
        return sum(len(t.statements) for t in self.testimonies)

    def name(self, key: str) -> str:
        """The name of the character ``key`` (a line's speaker)."""
        return self.characters[key].name


# -- reading --------------------------------------------------------------------------------------


class _Reader:
    """Reads one case's fields, naming the file and the field's path in every error."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, problem: str) -> CaseFormatError:
        return CaseFormatError(f"{self.source}: {where}: {problem}" if where else f"{self.source}: {problem}")

    def table(self, data: Any, where: str) -> Mapping[str, Any]:
        if not isinstance(data, Mapping):
            raise self.fail(where, f"expected a table, not {_kind(data)}")
        return data

    def get(self, data: Mapping[str, Any], key: str, where: str, kind: type, default: Any = ...) -> Any:
        path = f"{where}.{key}" if where else key
        if key not in data:
            if default is ...:
                raise self.fail(path, "this field is required")
            return default
        value = data[key]
        if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise self.fail(path, f"expected a whole number, not {_kind(value)}")
        if kind is str:
            if not isinstance(value, str) or not value.strip():
                raise self.fail(path, f"expected a non-empty text, not {_kind(value)}")
            return value.strip()
        if not isinstance(value, kind):
            raise self.fail(path, f"expected {kind.__name__}, not {_kind(value)}")
        return value

    def ident(self, data: Mapping[str, Any], key: str, where: str) -> str:
        value = self.get(data, key, where, str)
        if not _ID.match(value):
            raise self.fail(
                f"{where}.{key}" if where else key,
                f"{value!r} is not a short id (lowercase letters, digits, - and _)",
            )
        return str(value)

    def unknown(self, data: Mapping[str, Any], known: Sequence[str], where: str) -> None:
        extra = sorted(set(data) - set(known))
        if extra:
            raise self.fail(
                where or "top level", f"unknown field(s) {', '.join(extra)}; expected {', '.join(known)}"
            )

    def ids(self, data: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
        """A field holding one id or a list of ids (absent: none)."""
        path = f"{where}.{key}"
        value = data.get(key, [])
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
            raise self.fail(path, f"expected an id or a list of ids, not {_kind(value)}")
        return tuple(items)

    def lines(
        self,
        data: Mapping[str, Any],
        key: str,
        where: str,
        speakers: Mapping[str, Any],
        required: bool = True,
    ) -> tuple[Line, ...]:
        path = f"{where}.{key}" if where else key
        if key not in data:
            if required:
                raise self.fail(path, "this field is required (a list of [speaker, text] lines)")
            return ()
        raw = data[key]
        if not isinstance(raw, list) or (required and not raw):
            raise self.fail(path, "expected a non-empty list of [speaker, text] lines")
        return tuple(self.line(item, f"{path}[{i + 1}]", speakers) for i, item in enumerate(raw))

    def line(self, item: Any, path: str, speakers: Mapping[str, Any]) -> Line:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not all(isinstance(x, str) for x in item)
            or not item[1].strip()
        ):
            raise self.fail(path, f"expected a [speaker, text] pair of texts, not {_kind(item)}")
        if item[0] not in speakers:
            raise self.fail(path, f"unknown speaker {item[0]!r}; characters are {', '.join(speakers)}")
        return item[0], " ".join(item[1].split())


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, str):
        return f"the text {value[:30]!r}" if value.strip() else "an empty text"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a table"
    return type(value).__name__


def parse_case(data: Any, source: str) -> Case:
    """Build a :class:`Case` from parsed TOML or JSON ``data`` read from ``source`` (a file name).

    Raises:
        CaseFormatError: a field is missing, of the wrong kind, refers to something that does not
            exist, or the answer key cannot solve the case.
    """
    r = _Reader(source)
    top = r.table(data, "")
    r.unknown(
        top, ("id", "title", "summary", "characters", "evidence", "opening", "testimony", "verdict"), ""
    )
    case_id = r.ident(top, "id", "")
    characters = _characters(r, r.get(top, "characters", "", Mapping))
    evidence = _evidence(r, r.get(top, "evidence", "", list))
    by_id = {e.id: e for e in evidence}
    raw_testimonies = r.get(top, "testimony", "", list)
    if not raw_testimonies:
        raise r.fail("testimony", "a case needs at least one [[testimony]]")
    testimonies = tuple(
        _testimony(r, item, f"testimony[{i + 1}]", characters, by_id)
        for i, item in enumerate(raw_testimonies)
    )
    seen: set[str] = set()
    for i, t in enumerate(testimonies):
        if t.id in seen:
            raise r.fail(f"testimony[{i + 1}].id", f"the id {t.id!r} is used twice")
        seen.add(t.id)
    case = Case(
        id=case_id,
        title=r.get(top, "title", "", str),
        summary=" ".join(r.get(top, "summary", "", str).split()),
        characters=characters,
        evidence=evidence,
        opening=r.lines(top, "opening", "", characters),
        testimonies=testimonies,
        verdict=r.lines(top, "verdict", "", characters),
        source=source,
    )
    _check_key(r, case)
    return case


def _characters(r: _Reader, raw: Mapping[str, Any]) -> dict[str, Character]:
    out: dict[str, Character] = {}
    for key, value in raw.items():
        where = f"characters.{key}"
        if not _ID.match(key):
            raise r.fail(where, f"{key!r} is not a short id (lowercase letters, digits, - and _)")
        table = r.table(value, where)
        r.unknown(table, ("name", "role", "look"), where)
        look_raw = r.table(table.get("look", {}), f"{where}.look")
        r.unknown(look_raw, [f.name for f in dataclasses.fields(Look)], f"{where}.look")
        fields: dict[str, str] = {}
        for f in dataclasses.fields(Look):
            if f.name not in look_raw:
                continue
            value_ = r.get(look_raw, f.name, f"{where}.look", str)
            allowed = {"hair_style": HAIR_STYLES, "hat": HATS}.get(f.name)
            if allowed is not None and value_ not in allowed:
                raise r.fail(f"{where}.look.{f.name}", f"{value_!r} is not one of {', '.join(allowed)}")
            if allowed is None and not _COLOUR.match(value_):
                raise r.fail(f"{where}.look.{f.name}", f"{value_!r} is not a colour like #A1B2C3")
            fields[f.name] = value_
        out[key] = Character(
            key, r.get(table, "name", where, str), r.get(table, "role", where, str), Look(**fields)
        )
    for needed in ("judge", "defense"):
        if needed not in out:
            raise r.fail(f"characters.{needed}", "this character is required")
    return out


def _evidence(r: _Reader, raw: list[Any]) -> tuple[Evidence, ...]:
    if not raw:
        raise r.fail("evidence", "a case needs at least one [[evidence]]")
    if len(raw) > MAX_EVIDENCE:
        raise r.fail("evidence", f"{len(raw)} pieces of evidence; at most {MAX_EVIDENCE} are allowed")
    out: list[Evidence] = []
    for i, item in enumerate(raw):
        where = f"evidence[{i + 1}]"
        table = r.table(item, where)
        r.unknown(table, ("id", "name", "description", "icon", "held"), where)
        icon = r.get(table, "icon", where, str, "document")
        if icon not in ICONS:
            raise r.fail(f"{where}.icon", f"{icon!r} is not one of {', '.join(ICONS)}")
        evidence_id = r.ident(table, "id", where)
        if any(e.id == evidence_id for e in out):
            raise r.fail(f"{where}.id", f"the id {evidence_id!r} is used twice")
        out.append(
            Evidence(
                evidence_id,
                i + 1,
                r.get(table, "name", where, str),
                " ".join(r.get(table, "description", where, str).split()),
                icon,
                r.get(table, "held", where, bool, True),
            )
        )
    return tuple(out)


def _known_evidence(r: _Reader, ids: Sequence[str], where: str, evidence: Mapping[str, Evidence]) -> None:
    for e in ids:
        if e not in evidence:
            raise r.fail(where, f"no evidence {e!r}; evidence ids are {', '.join(evidence)}")


def _testimony(
    r: _Reader, item: Any, where: str, characters: Mapping[str, Character], evidence: Mapping[str, Evidence]
) -> Testimony:
    table = r.table(item, where)
    r.unknown(table, ("id", "title", "witness", "intro", "statements", "answer", "choice"), where)
    witness = r.ident(table, "witness", where)
    if witness not in characters:
        raise r.fail(
            f"{where}.witness", f"unknown character {witness!r}; characters are {', '.join(characters)}"
        )
    raw_statements = r.get(table, "statements", where, list)
    if not 2 <= len(raw_statements) <= MAX_STATEMENTS:
        raise r.fail(
            f"{where}.statements",
            f"a testimony has 2 to {MAX_STATEMENTS} statements, not {len(raw_statements)}",
        )
    statements: list[Statement] = []
    for i, raw in enumerate(raw_statements):
        path = f"{where}.statements[{i + 1}]"
        st = r.table(raw, path)
        r.unknown(st, ("id", "text", "press", "hidden", "reveals", "adds"), path)
        statement_id = r.ident(st, "id", path)
        if any(s.id == statement_id for s in statements):
            raise r.fail(f"{path}.id", f"the id {statement_id!r} is used twice in this testimony")
        adds = r.ids(st, "adds", path)
        _known_evidence(r, adds, f"{path}.adds", evidence)
        reveals = r.ident(st, "reveals", path) if "reveals" in st else None
        statements.append(
            Statement(
                statement_id,
                " ".join(r.get(st, "text", path, str).split()),
                r.lines(st, "press", path, characters),
                r.get(st, "hidden", path, bool, False),
                reveals,
                adds,
            )
        )
    ids = [s.id for s in statements]
    for i, s in enumerate(statements):
        path = f"{where}.statements[{i + 1}]"
        if s.reveals is not None:
            if s.reveals not in ids:
                raise r.fail(f"{path}.reveals", f"no statement {s.reveals!r} in this testimony")
            if not statements[ids.index(s.reveals)].hidden:
                raise r.fail(f"{path}.reveals", f"statement {s.reveals!r} is not hidden = true")
    for i, s in enumerate(statements):
        if s.hidden and not any(o.reveals == s.id for o in statements):
            raise r.fail(f"{where}.statements[{i + 1}].hidden", f"no press reveals statement {s.id!r}")
    if sum(not s.hidden for s in statements) < 2:
        raise r.fail(f"{where}.statements", "at least two statements must be shown from the start")
    answer = _answer(
        r,
        r.table(r.get(table, "answer", where, Mapping), f"{where}.answer"),
        f"{where}.answer",
        characters,
        evidence,
        ids,
    )
    choice = None
    if "choice" in table:
        choice = _choice(
            r, r.table(table["choice"], f"{where}.choice"), f"{where}.choice", characters, evidence
        )
    return Testimony(
        r.ident(table, "id", where),
        r.get(table, "title", where, str),
        witness,
        r.lines(table, "intro", where, characters, required=False),
        tuple(statements),
        answer,
        choice,
    )


def _answer(
    r: _Reader,
    table: Mapping[str, Any],
    where: str,
    characters: Mapping[str, Character],
    evidence: Mapping[str, Evidence],
    ids: Sequence[str],
) -> Answer:
    r.unknown(table, ("statement", "evidence", "press", "reason", "solved", "adds"), where)
    statement = r.ident(table, "statement", where)
    if statement not in ids:
        raise r.fail(f"{where}.statement", f"no statement {statement!r} in this testimony")
    shown = r.ids(table, "evidence", where)
    if not shown:
        raise r.fail(
            f"{where}.evidence", "this field is required (the evidence that shows the contradiction)"
        )
    _known_evidence(r, shown, f"{where}.evidence", evidence)
    press = r.ids(table, "press", where)
    for p in press:
        if p not in ids:
            raise r.fail(f"{where}.press", f"no statement {p!r} in this testimony")
    adds = r.ids(table, "adds", where)
    _known_evidence(r, adds, f"{where}.adds", evidence)
    return Answer(
        statement,
        shown,
        press,
        " ".join(r.get(table, "reason", where, str).split()),
        r.lines(table, "solved", where, characters),
        adds,
    )


def _choice(
    r: _Reader,
    table: Mapping[str, Any],
    where: str,
    characters: Mapping[str, Character],
    evidence: Mapping[str, Evidence],
) -> Choice:
    r.unknown(table, ("question", "options", "answer", "right", "wrong", "adds"), where)
    options = r.get(table, "options", where, list)
    if not 2 <= len(options) <= MAX_OPTIONS or not all(isinstance(o, str) and o.strip() for o in options):
        raise r.fail(f"{where}.options", f"expected 2 to {MAX_OPTIONS} non-empty texts")
    answer = r.get(table, "answer", where, int)
    if not 1 <= answer <= len(options):
        raise r.fail(f"{where}.answer", f"expected a number from 1 to {len(options)}, not {answer}")
    adds = r.ids(table, "adds", where)
    _known_evidence(r, adds, f"{where}.adds", evidence)
    return Choice(
        r.line(table.get("question"), f"{where}.question", characters),
        tuple(" ".join(o.split()) for o in options),
        answer,
        r.lines(table, "right", where, characters),
        r.lines(table, "wrong", where, characters),
        adds,
    )


def _check_key(r: _Reader, case: Case) -> None:
    """Every testimony's key names exactly the telling presses, reveals its statement, and shows
    evidence the defense holds by then; every evidence not held at the start is added exactly once."""
    held = {e.id for e in case.evidence if e.held}
    added: dict[str, str] = {}

    def gain(ids: Sequence[str], where: str) -> None:
        for e in ids:
            if case.item(e).held:
                raise r.fail(where, f"evidence {e!r} is held from the start; set held = false to add it")
            if e in added:
                raise r.fail(where, f"evidence {e!r} is already added at {added[e]}")
            added[e] = where
            held.add(e)

    for i, t in enumerate(case.testimonies):
        where = f"testimony[{i + 1}]"
        telling = [s.id for s in t.statements if s.telling]
        if sorted(telling) != sorted(set(t.answer.press)) or len(set(t.answer.press)) != len(t.answer.press):
            raise r.fail(
                f"{where}.answer.press",
                f"expected the statements whose press reveals something "
                f"({', '.join(telling) or 'none'}), not {', '.join(t.answer.press) or 'none'}",
            )
        revealed: set[str] = set()
        for p in t.answer.press:
            s = t.statement(p)
            if s.hidden and s.id not in revealed:
                raise r.fail(f"{where}.answer.press", f"statement {p!r} is pressed before a press reveals it")
            if s.reveals:
                revealed.add(s.reveals)
            gain(s.adds, f"{where}.statements[{[x.id for x in t.statements].index(p) + 1}].adds")
        target = t.statement(t.answer.statement)
        if target.hidden and target.id not in revealed:
            raise r.fail(
                f"{where}.answer.statement",
                f"statement {target.id!r} stays hidden: no press in the key reveals it",
            )
        if not any(e in held for e in t.answer.evidence):
            raise r.fail(f"{where}.answer.evidence", "the defense holds none of this evidence by then")
        gain(t.answer.adds, f"{where}.answer.adds")
        if t.choice is not None:
            gain(t.choice.adds, f"{where}.choice.adds")
    for e in case.evidence:
        if not e.held and e.id not in added:
            raise r.fail(f"evidence[{e.number}].held", f"evidence {e.id!r} is never added (nothing adds it)")


def key_actions(case: Case, testimonies: int | None = None) -> list[str]:
    """The actions that solve ``case`` by its answer key from the start of its first testimony: for
    each testimony, walk to and press every telling statement, walk to the contradiction and present
    its first evidence, then answer the question if there is one. With ``testimonies``, only the
    first that many testimonies (the way to a checkpoint)."""
    actions: list[str] = []
    for t in case.testimonies[:testimonies]:
        revealed: set[str] = set()
        position = 0
        stops = [*t.answer.press, t.answer.statement]
        for n, target in enumerate(stops):
            goal = [s.id for s in t.visible(revealed)].index(target)
            actions += ["next"] * (goal - position) if goal >= position else ["back"] * (position - goal)
            position = goal
            if n < len(stops) - 1:  # a press on the way; the last stop is the contradiction
                actions.append("press")
                reveal = t.statement(target).reveals
                if reveal:
                    revealed.add(reveal)
        actions.append(f"present {case.item(t.answer.evidence[0]).label}")
        if t.choice is not None:
            actions.append(f"choose {'ABCD'[t.choice.answer - 1]}")
    return actions


# -- files ----------------------------------------------------------------------------------------


def _display(path: Path) -> str:
    """How a file is named in messages: bundled cases relative to the assets folder."""
    try:
        return str(Path("assets") / path.resolve().relative_to(assets.path().resolve()))
    except ValueError:
        return str(path)


def load_case(path: str | Path) -> Case:
    """Read the case in ``path`` (``.toml`` or ``.json``).

    Raises:
        CaseFormatError: the file cannot be read or is not a valid case (the message names it).
    """
    file = Path(path)
    name = _display(file)
    try:
        # A FIFO or /dev/zero is refused at once instead of hanging or filling memory.
        text = safeio.read_text(file, cap=4 * 1024 * 1024)
    except safeio.InputError as exc:
        raise CaseFormatError(f"the case file {str(exc).replace(str(file), name, 1)}") from None
    except OSError as exc:
        raise CaseFormatError(f"cannot read the case file {name}: {exc.strerror or exc}") from None
    try:
        if file.suffix.lower() == ".json":
            data = safeio.loads_json(text, name)
        else:
            data = safeio.loads_toml(text, name)
    except safeio.InputError as exc:
        raise CaseFormatError(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise CaseFormatError(f"{name}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except tomllib.TOMLDecodeError as exc:
        raise CaseFormatError(f"{name}: not valid TOML ({exc})") from None
    return parse_case(data, name)


def bundled_ids() -> tuple[str, ...]:
    """The ids of the bundled cases in playing order (from ``assets/courtroom/casebook.toml``)."""
    index = assets.path("courtroom", "casebook.toml")
    try:
        data = tomllib.loads(index.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CaseFormatError(f"{_display(index)}: cannot be read ({exc})") from None
    cases = data.get("cases")
    if (
        not isinstance(cases, list)
        or not cases
        or not all(isinstance(c, str) and _ID.match(c) for c in cases)
    ):
        raise CaseFormatError(f"{_display(index)}: cases: expected a non-empty list of case ids")
    return tuple(cases)


_BUNDLED: tuple[Case, ...] | None = None


def load_bundled() -> tuple[Case, ...]:
    """The bundled cases in playing order, read once.

    Raises:
        CaseFormatError: a bundled file is broken, or its id differs from its file name.
    """
    global _BUNDLED
    if _BUNDLED is None:
        cases = []
        for case_id in bundled_ids():
            case = load_case(assets.path("courtroom", f"{case_id}.toml"))
            if case.id != case_id:
                raise CaseFormatError(
                    f"{case.source}: id: {case.id!r} differs from the file name {case_id!r}"
                )
            cases.append(case)
        _BUNDLED = tuple(cases)
    return _BUNDLED
