"""Reading a tic-tac-toe move out of a model's reply (the game's answer extractor)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import (
    MARKUP,
    MOVEMENT,
    SEPARATORS,
    Extraction,
    last_value,
    line_after_last,
    read_labelled,
    strip_tags,
)

__all__ = ["extract_move"]

_PAIR_LOOSE = re.compile(r"(\d+)[ \t]*,[ \t]*(\d+)")
_PAIR_BRACKETED = re.compile(r"[\(\[][ \t]*(\d+)[ \t]*,[ \t]*(\d+)[ \t]*[\)\]]")
_CHOSEN = re.compile(r"chosen[ \t]*move", re.IGNORECASE)
#: LVLM-Playground's cell names: row letter A-C, column number 1-3 ("B2"), either way round.
_NAMED = re.compile(r"(?<![A-Za-z0-9])(?:([A-Ca-c])[ \t]*([1-3])|([1-3])[ \t]*([A-Ca-c]))(?![A-Za-z0-9])")


def named_cell(text: str) -> str | None:
    """The first LVLM-Playground cell name in ``text`` as this game's action (``"B2"`` → ``"(1,1)"``)."""
    match = _NAMED.search(text)
    if match is None:
        return None
    letter, number = (match.group(1) or match.group(4)).upper(), match.group(2) or match.group(3)
    return f"({'ABC'.index(letter)},{int(number) - 1})"


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Tic-tac-toe: the ``(r,c)`` after the last ``Chosen Move``; without one, the last ``(r,c)`` outside
    the intermediate-answer tags. An LVLM-Playground answer (prompt variant ``lvlm``) names its cell
    after the last ``Movement:`` as ``B2``."""
    movement = line_after_last(text, MOVEMENT)
    if movement is not None:
        return read_labelled(movement, named_cell, "Movement:", last_value(text, "strategy"))
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
