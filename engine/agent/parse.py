"""The parse chain: raw model text → extracted answer → matched legal action.

Each link is recorded with the reason whenever it changed something, because silent substitution of
moves is the failure users of other arenas complain about most ("ghost moves"). The rules:

* a per-game *extractor* finds the answer in the raw text: the last ``move:`` line for 2048, the
  coordinates after the last ``Chosen Move:`` for tic-tac-toe, the last ``move:``/``action:`` line for
  other games. Only when that keyword is missing altogether does it fall back to the last action word
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

_MARKUP = " \t*#>`'\"~|"


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


Extractor = Callable[[str, Sequence[str]], Extraction]
_EXTRACTORS: dict[str, Extractor] = {}


def register_extractor(game_id: str, extractor: Extractor) -> None:
    """Use ``extractor(text, legal_actions)`` to find the answer in a model's reply for ``game_id``."""
    _EXTRACTORS[game_id] = extractor


def extractor_for(game_id: str) -> Extractor:
    return _EXTRACTORS.get(game_id, extract_generic)


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


def _clean_line(line: str) -> str:
    """A line without markdown decoration (``**move:**``, ``# move:``, ``> move:``, backticks)."""
    line = line.strip()
    line = re.sub(r"[*`~]", "", line)
    return line.strip(_MARKUP + "-•")


def _keyword_lines(text: str, keyword: str) -> list[str]:
    """Values of lines shaped ``keyword: value`` (markup, case and ``=``/``-`` separators forgiven)."""
    pattern = re.compile(rf"^{keyword}[ \t]*(?:[:：=]|-(?!\w))[ \t]*(.*)$", re.IGNORECASE)
    values = []
    for line in text.splitlines():
        match = pattern.match(_clean_line(line))
        if match:
            values.append(match.group(1).strip(_MARKUP + ".,;:!"))
    return values


def _last_word_of(text: str, vocabulary: Sequence[str]) -> str | None:
    """The vocabulary word that occurs last in ``text`` (whole words, any case)."""
    best: tuple[int, str] | None = None
    lowered = text.lower()
    for word in vocabulary:
        for match in re.finditer(rf"(?<![\w]){re.escape(word.lower())}(?![\w])", lowered):
            if best is None or match.start() > best[0]:
                best = (match.start(), word)
    return best[1] if best else None


def _first_word_of(text: str, vocabulary: Sequence[str]) -> str | None:
    best: tuple[int, str] | None = None
    lowered = text.lower()
    for word in vocabulary:
        match = re.search(rf"(?<![\w]){re.escape(word.lower())}(?![\w])", lowered)
        if match and (best is None or match.start() < best[0]):
            best = (match.start(), word)
    return best[1] if best else None


# -- per-game extractors ----------------------------------------------------------------------------

DIRECTIONS = ("up", "down", "left", "right")


def extract_2048(text: str, legal: Sequence[str]) -> Extraction:
    """2048: the last ``move:`` line; without one, the last direction word in the text."""
    thoughts = _keyword_lines(text, "thought")
    thought = thoughts[-1] if thoughts else ""
    vocabulary = list(dict.fromkeys([*DIRECTIONS, *legal]))
    moves = _keyword_lines(text, "move")
    if moves:
        value = moves[-1]
        if not value:
            return Extraction(None, error="the 'move:' line is empty", thought=thought)
        word = _first_word_of(value, vocabulary)
        if word is None:
            return Extraction(value, thought=thought)  # let the game say why it is not a move
        reason = "" if value.lower() == word else f"took {word!r} from the 'move:' line {value!r}"
        if len(moves) > 1:
            reason = "; ".join(filter(None, [reason, f"used the last of {len(moves)} 'move:' lines"]))
        return Extraction(word, reason=reason, thought=thought)
    word = _last_word_of(text, vocabulary)
    if word is None:
        error = "no 'move:' line and no direction (up, down, left, right) in the answer"
        return Extraction(None, error=error, thought=thought)
    reason = "no 'move:' line; took the last direction word in the answer"
    return Extraction(word, reason=reason, thought=thought)


_PAIR_LOOSE = re.compile(r"(\d+)[ \t]*,[ \t]*(\d+)")
_PAIR_BRACKETED = re.compile(r"[\(\[][ \t]*(\d+)[ \t]*,[ \t]*(\d+)[ \t]*[\)\]]")
_CHOSEN = re.compile(r"chosen[ \t]*move", re.IGNORECASE)


def extract_tictactoe(text: str, legal: Sequence[str]) -> Extraction:
    """Tic-tac-toe: the ``(r,c)`` after the last ``Chosen Move``; without one, the last ``(r,c)`` outside
    the intermediate-answer tags."""
    conclusions = _keyword_lines(text, "conclusion")
    thought = conclusions[-1] if conclusions else ""
    keyword = None
    for keyword in _CHOSEN.finditer(text):
        pass
    if keyword is not None:
        rest = text[keyword.end() :]
        line = rest.lstrip(" \t*:：_`-").split("\n", 1)[0] if rest.strip() else ""
        if not line.strip():
            # "Chosen Move:" followed by the move on the next line is common enough to accept.
            nonblank = [ln for ln in rest.splitlines() if ln.strip(_MARKUP + ":")]
            line = nonblank[0] if nonblank else ""
        pair = _PAIR_LOOSE.search(line)
        if pair:
            return Extraction(f"({int(pair.group(1))},{int(pair.group(2))})", thought=thought)
        value = line.strip(_MARKUP + ":：.")
        if not value:
            return Extraction(None, error="the 'Chosen Move:' line names no cell", thought=thought)
        return Extraction(value[:80], thought=thought)
    pairs = list(_PAIR_BRACKETED.finditer(strip_tags(text)))
    if not pairs:
        error = "no 'Chosen Move:' line and no (row,col) in the answer"
        return Extraction(None, error=error, thought=thought)
    last = pairs[-1]
    return Extraction(
        f"({int(last.group(1))},{int(last.group(2))})",
        reason="no 'Chosen Move:' line; took the last (row,col) in the answer",
        thought=thought,
    )


def extract_generic(text: str, legal: Sequence[str]) -> Extraction:
    """Any game: the last ``move:`` or ``action:`` line; without one, the last legal action named."""
    values = _keyword_lines(text, "(?:move|action|chosen move|answer)")
    thoughts = _keyword_lines(text, "thought")
    thought = thoughts[-1] if thoughts else ""
    if values:
        value = values[-1]
        if not value:
            return Extraction(None, error="the 'move:' line is empty", thought=thought)
        return Extraction(value, thought=thought)
    stripped = text.strip().strip(_MARKUP + ".")
    if stripped and "\n" not in stripped and len(stripped) <= 80:
        return Extraction(stripped, thought=thought)
    # Longest actions first so "raise 20" is preferred over a shorter action inside it.
    named = _last_word_of(text, sorted(legal, key=len, reverse=True)) if legal else None
    if named is None:
        error = "no 'move:' line and no legal action named in the answer"
        return Extraction(None, error=error, thought=thought)
    reason = "no 'move:' line; took the last legal action named in the answer"
    return Extraction(named, reason=reason, thought=thought)


register_extractor("2048", extract_2048)
register_extractor("tictactoe", extract_tictactoe)


# -- the chain ----------------------------------------------------------------------------------------


def parse_answer(game: Game, state: State, seat: Seat | None, raw: object) -> ParseResult:
    """Run the whole chain on ``raw``; never raises.

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
        ex = extractor_for(game.id)(text, legal)
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
