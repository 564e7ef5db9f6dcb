"""Reading a tic-tac-toe move out of a model's reply (the game's answer extractor)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import MARKUP, SEPARATORS, Extraction, last_value, line_after_last, strip_tags

__all__ = ["extract_move"]

_PAIR_LOOSE = re.compile(r"(\d+)[ \t]*,[ \t]*(\d+)")
_PAIR_BRACKETED = re.compile(r"[\(\[][ \t]*(\d+)[ \t]*,[ \t]*(\d+)[ \t]*[\)\]]")
_CHOSEN = re.compile(r"chosen[ \t]*move", re.IGNORECASE)


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Tic-tac-toe: the ``(r,c)`` after the last ``Chosen Move``; without one, the last ``(r,c)`` outside
    the intermediate-answer tags."""
    thought = last_value(text, "conclusion")
    line = line_after_last(text, _CHOSEN, lead=SEPARATORS)
    if line is not None:
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
