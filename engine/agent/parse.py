"""The parse chain: raw model text → extracted answer → matched legal action.

Each link is recorded with the reason whenever it changed something, because silent substitution of
moves is the failure users of other arenas complain about most ("ghost moves"). The rules:

* the game's *extractor* (declared as ``Game.extractor`` and kept in the game's package) finds the
  answer in the raw text: the last ``move:`` line for 2048, the coordinates after the last
  ``Chosen Move:`` for tic-tac-toe, and for games without one the generic last ``move:``/``action:``
  line. Only when that keyword is missing altogether does it fall back to the last action word
  or the last ``(r,c)`` in the text (intermediate-answer tags excluded), and it says so;
* a keyword line that names no action is a format error; it is *not* patched from elsewhere in the
  text, which is exactly how ghost moves happen;
* the game's own :meth:`~engine.core.Game.parse_action` then matches the extracted text to a canonical
  legal action, distinguishing unparsable text from an illegal move.

:func:`parse_answer` never raises, whatever the text: it returns a :class:`ParseResult` with either an
action or an error message. Intermediate answers (``[Intermediate Thinking Results k: ...]``) are pulled
out here too, for :mod:`engine.agent.verify`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence

from engine.core import Game, IllegalActionError, InvalidActionError, Seat, State

OK = "ok"
UNPARSABLE = "unparsable"
ILLEGAL = "illegal"

MARKUP = " \t*#>`'\"~|"

#: What may stand between a keyword such as ``Chosen Move`` and its value (``:``, ``**:**``, ``-``).
SEPARATORS = " \t*:：_`-"

#: LVLM-Playground's move keyword, ``Movement:`` (markdown between the word and its colon forgiven).
MOVEMENT = re.compile(r"movement[ \t]*[*_`]*[ \t]*[:：]", re.IGNORECASE)


@dataclasses.dataclass(frozen=True, slots=True)
class Extraction:
    """What an extractor found: the answer text (or ``None``), how, and the visible reasoning."""

    extracted: str | None
    reason: str = ""
    error: str = ""
    thought: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class ParseResult:
    """The outcome of parsing one answer.

    Attributes:
        raw: The model's answer text, unchanged.
        extracted: The answer as cut out of ``raw`` (``None`` when nothing could be found).
        action: The matched canonical legal action, or ``None`` on failure.
        kind: ``"ok"``, ``"unparsable"`` (format error) or ``"illegal"`` (well formed but not legal now).
        error: Why parsing failed (empty on success).
        reason: How ``extracted`` and ``action`` were obtained when they differ from a plain reading.
        thought: The visible reasoning the answer gave (``thought:`` line, conclusion), if any.
        tags: Intermediate answers by question number (``{1: "(0,2)", 2: "None"}``).
    """

    raw: str
    extracted: str | None
    action: str | None
    kind: str
    error: str = ""
    reason: str = ""
    thought: str = ""
    tags: dict[int, str] = dataclasses.field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.action is not None


#: ``extractor(text, legal_actions)`` finds the answer in a model's reply.
Extractor = Callable[[str, Sequence[str]], Extraction]


def extractor_for(game: Game) -> Extractor:
    """The game's own extractor (``Game.extractor``), or :func:`extract_generic`."""
    if game.extractor:
        found: Extractor = game.load(game.extractor)
        return found
    return extract_generic


# -- intermediate answers ---------------------------------------------------------------------------

_TAG = re.compile(
    r"intermediate[ \t]+thinking[ \t]+results?[ \t]*(\d{1,2})[ \t]*[:：]?([^\]\n]*)", re.IGNORECASE
)


def extract_tags(text: str) -> dict[int, str]:
    """``[Intermediate Thinking Results k: ...]`` answers by ``k`` (first occurrence of each wins).

    Tolerates a missing bracket, colon or extra spaces; the answer runs to ``]`` or the end of the line.
    """
    tags: dict[int, str] = {}
    for match in _TAG.finditer(text):
        k = int(match.group(1))
        if k not in tags:
            tags[k] = match.group(2).strip().strip("*`").strip()
    return tags


def strip_tags(text: str) -> str:
    """``text`` without its intermediate-answer tags (so their cells are never taken for a move)."""
    return re.sub(r"\[?[ \t]*" + _TAG.pattern + r"\]?", " ", text, flags=re.IGNORECASE)


# -- helpers ----------------------------------------------------------------------------------------


def clean_line(line: str) -> str:
    """A line without markdown decoration (``**move:**``, ``# move:``, ``> move:``, backticks)."""
    line = line.strip()
    line = re.sub(r"[*`~]", "", line)
    return line.strip(MARKUP + "-•")


def keyword_lines(text: str, keyword: str) -> list[str]:
    """Values of lines shaped ``keyword: value`` (markup, case and ``=``/``-`` separators forgiven)."""
    pattern = re.compile(rf"^{keyword}[ \t]*(?:[:：=]|-(?!\w))[ \t]*(.*)$", re.IGNORECASE)
    values = []
    for line in text.splitlines():
        match = pattern.match(clean_line(line))
        if match:
            values.append(match.group(1).strip(MARKUP + ".,;:!"))
    return values


def last_value(text: str, keyword: str) -> str:
    """The value of the last ``keyword: value`` line (see :func:`keyword_lines`), or ``""``."""
    values = keyword_lines(text, keyword)
    return values[-1] if values else ""


def labelled_lines(text: str, keys: Sequence[str]) -> dict[str, str]:
    """The last value of each ``key: value`` line in ``text`` by key (keys with no line are left out),
    so a front end can show an answer's labelled parts (``Observation:``, ``Strategy:``) apart."""
    parts = {}
    for key in keys:
        values = keyword_lines(text, key)
        if values:
            parts[key] = values[-1]
    return parts


def last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match of ``pattern`` in ``text``, or ``None``."""
    found = None
    for found in pattern.finditer(text):  # noqa: B007  (the loop only walks to the last match)
        continue
    return found


def movement_or_text(text: str) -> str:
    """What a task answer's move is read from: the line after the last ``Movement:`` (from its first
    non-blank character; ``""`` when nothing follows), or the whole ``text`` without that keyword."""
    found = last_match(MOVEMENT, text)
    if found is None:
        return text
    return text[found.end() :].strip().split("\n", 1)[0]


def line_after_last(text: str, pattern: re.Pattern[str], *, lead: str = "") -> str | None:
    """The rest of the line after the last match of ``pattern`` (without the ``lead`` characters it
    starts with) or, when nothing but markup and colons is left there, the next line that has more
    (``"Chosen Move:"`` with the move on the following line); ``""`` when no line has.

    The line comes back unstripped: callers strip what their format forgives. ``None`` when
    ``pattern`` does not occur in ``text``.
    """
    found = last_match(pattern, text)
    if found is None:
        return None
    rest = text[found.end() :]
    first = rest.lstrip(lead).splitlines()
    if first and first[0].strip(MARKUP + ":："):
        return first[0]
    return next((line for line in rest.splitlines() if line.strip(MARKUP + ":：")), "")


def read_labelled(
    line: str, find: Callable[[str], str | None], label: str, thought: str = ""
) -> Extraction:
    """The move ``find`` reads on a keyword's ``line`` (see :func:`line_after_last`); the reason says
    when the line held more than the move. A line with no move is passed on as written (trimmed to 80
    characters) so the game says why it is none; an empty line is a format error."""
    line = line.strip(MARKUP + ":")
    if not line:
        return Extraction(None, error=f"the '{label}' line is empty", thought=thought)
    move = find(line)
    if move is None:
        return Extraction(line[:80].strip(" .,;"), thought=thought)
    plain = line.strip(" .") == move
    reason = "" if plain else f"read {move!r} from the '{label}' line {line.strip()!r}"
    return Extraction(move, reason=reason, thought=thought)


def last_word_of(text: str, vocabulary: Sequence[str]) -> str | None:
    """The vocabulary word that occurs last in ``text`` (whole words, any case)."""
    best: tuple[int, str] | None = None
    lowered = text.lower()
    for word in vocabulary:
        for match in re.finditer(rf"(?<![\w]){re.escape(word.lower())}(?![\w])", lowered):
            if best is None or match.start() > best[0]:
                best = (match.start(), word)
    return best[1] if best else None


def first_word_of(text: str, vocabulary: Sequence[str]) -> str | None:
    best: tuple[int, str] | None = None
    lowered = text.lower()
    for word in vocabulary:
        match = re.search(rf"(?<![\w]){re.escape(word.lower())}(?![\w])", lowered)
        if match and (best is None or match.start() < best[0]):
            best = (match.start(), word)
    return best[1] if best else None


# -- the generic extractor -------------------------------------------------------------------------


def extract_generic(text: str, legal: Sequence[str]) -> Extraction:
    """Any game: the last ``move:`` or ``action:`` line; without one, the last legal action named."""
    values = keyword_lines(text, "(?:move|action|chosen move|answer)")
    thought = last_value(text, "thought")
    if values:
        value = values[-1]
        if not value:
            return Extraction(None, error="the 'move:' line is empty", thought=thought)
        return Extraction(value, thought=thought)
    stripped = text.strip().strip(MARKUP + ".")
    if stripped and "\n" not in stripped and len(stripped) <= 80:
        return Extraction(stripped, thought=thought)
    # Longest actions first so "raise 20" is preferred over a shorter action inside it.
    named = last_word_of(text, sorted(legal, key=len, reverse=True)) if legal else None
    if named is None:
        error = "no 'move:' line and no legal action named in the answer"
        return Extraction(None, error=error, thought=thought)
    reason = "no 'move:' line; took the last legal action named in the answer"
    return Extraction(named, reason=reason, thought=thought)




# -- the chain ----------------------------------------------------------------------------------------


def parse_answer(
    game: Game, state: State, seat: Seat | None, raw: object, *, extraction: Extraction | None = None
) -> ParseResult:
    """Run the whole chain on ``raw``; never raises.

    ``extraction`` is what another reader already found (a JSON answer's or a tool call's move, see
    :mod:`engine.agent.action_format`); the game's extractor is then skipped and only the matching runs.

    Returns:
        A :class:`ParseResult` whose ``action`` is a legal action, or whose ``error`` says why not.
    """
    text = raw if isinstance(raw, str) else ("" if raw is None else str(raw))
    try:
        tags = extract_tags(text)
    except Exception:  # defensive: a pathological text must cost a format error, never a crash
        tags = {}
    try:
        legal = list(state.legal_actions(seat))
    except Exception as exc:
        error = f"could not list legal actions: {exc}"
        return ParseResult(text, None, None, UNPARSABLE, error=error, tags=tags)
    try:
        ex = extraction if extraction is not None else extractor_for(game)(text, legal)
    except Exception as exc:
        error = f"extractor failed: {type(exc).__name__}: {exc}"
        return ParseResult(text, None, None, UNPARSABLE, error=error, tags=tags)

    def failed(kind: str, error: str) -> ParseResult:
        return ParseResult(
            text, ex.extracted, None, kind, error=error, reason=ex.reason, thought=ex.thought, tags=tags
        )

    if ex.extracted is None:
        return failed(UNPARSABLE, ex.error or "no answer found")
    try:
        matched = game.parse_action(ex.extracted, state, seat)
    except IllegalActionError as exc:
        return failed(ILLEGAL, str(exc) or "not a legal move here")
    except (InvalidActionError, ValueError, TypeError) as exc:
        return failed(UNPARSABLE, str(exc) or type(exc).__name__)
    except Exception as exc:
        return failed(UNPARSABLE, f"{type(exc).__name__}: {exc}")
    if matched not in legal:
        # A game's parse_action should only return legal actions; do not trust it blindly.
        return failed(ILLEGAL, f"{matched!r} is not legal here")
    reasons = [ex.reason] if ex.reason else []
    if matched != ex.extracted:
        reasons.append(f"{ex.extracted!r} matched the legal action {matched!r}")
    return ParseResult(
        text, ex.extracted, matched, OK, reason="; ".join(reasons), thought=ex.thought, tags=tags
    )


#: The four grid directions, as 2048's and Sokoban's actions name them.
DIRECTIONS: tuple[str, ...] = ("up", "down", "left", "right")


def extract_direction(text: str, legal: Sequence[str]) -> Extraction:
    """A direction move (``up``, ``down``, ``left``, ``right``): the last ``move:`` line, where the first
    direction word counts (``push up`` is ``up``); without one, the last direction word in the text."""
    thought = last_value(text, "thought")
    vocabulary = list(dict.fromkeys([*DIRECTIONS, *legal]))
    moves = keyword_lines(text, "move")
    if moves:
        value = moves[-1]
        if not value:
            return Extraction(None, error="the 'move:' line is empty", thought=thought)
        word = first_word_of(value, vocabulary)
        if word is None:
            return Extraction(value, thought=thought)  # let the game say why it is not a move
        reason = "" if value.lower() == word else f"took {word!r} from the 'move:' line {value!r}"
        if len(moves) > 1:
            reason = "; ".join(filter(None, [reason, f"used the last of {len(moves)} 'move:' lines"]))
        return Extraction(word, reason=reason, thought=thought)
    word = last_word_of(text, vocabulary)
    if word is None:
        error = "no 'move:' line and no direction (up, down, left, right) in the answer"
        return Extraction(None, error=error, thought=thought)
    reason = "no 'move:' line; took the last direction word in the answer"
    return Extraction(word, reason=reason, thought=thought)
