"""Reading a tic-tac-toe move out of a model's reply (the game's answer extractor)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import MARKUP, Extraction, keyword_lines, strip_tags

__all__ = ["extract_move"]

_PAIR_LOOSE = re.compile(r"(\d+)[ \t]*,[ \t]*(\d+)")
_PAIR_BRACKETED = re.compile(r"[\(\[][ \t]*(\d+)[ \t]*,[ \t]*(\d+)[ \t]*[\)\]]")
_CHOSEN = re.compile(r"chosen[ \t]*move", re.IGNORECASE)


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Tic-tac-toe: the ``(r,c)`` after the last ``Chosen Move``; without one, the last ``(r,c)`` outside
    the intermediate-answer tags."""
    conclusions = keyword_lines(text, "conclusion")
    thought = conclusions[-1] if conclusions else ""
    keyword = _last_match(_CHOSEN, text)
    if keyword is not None:
        rest = text[keyword.end() :]
        line = rest.lstrip(" \t*:：_`-").split("\n", 1)[0] if rest.strip() else ""
        if not line.strip():
            # "Chosen Move:" followed by the move on the next line is common enough to accept.
            nonblank = [ln for ln in rest.splitlines() if ln.strip(MARKUP + ":")]
            line = nonblank[0] if nonblank else ""
        pair = _PAIR_LOOSE.search(line)
        if pair:
            return Extraction(f"({int(pair.group(1))},{int(pair.group(2))})", thought=thought)
        value = line.strip(MARKUP + ":：.")
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


def _last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match of ``pattern`` in ``text``, or ``None``."""
    found = None
    for found in pattern.finditer(text):  # noqa: B007  (the loop only walks to the last match)
        continue
    return found
