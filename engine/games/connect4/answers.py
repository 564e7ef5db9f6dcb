"""Reading a Connect Four move out of a model's reply (the game's answer extractor).

GameBot asks for ``Chosen Move: (r,c)``, the cell where the disc lands. Models sometimes name only the
column ("Chosen Move: column 3"), which is what a disc drop really is; such an answer is read as the
playable cell of that column, and the parse chain records that it was.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import MARKUP, SEPARATORS, Extraction, last_value, line_after_last, strip_tags

__all__ = ["extract_move"]

_PAIR_LOOSE = re.compile(r"(\d+)[ \t]*,[ \t]*(\d+)")
_PAIR_BRACKETED = re.compile(r"[\(\[][ \t]*(\d+)[ \t]*,[ \t]*(\d+)[ \t]*[\)\]]")
_COLUMN = re.compile(r"\bcol(?:umn)?[ \t]*[:#]?[ \t]*(\d+)\b", re.IGNORECASE)
_CHOSEN = re.compile(r"chosen[ \t]*move", re.IGNORECASE)


def _column(col: int, legal: Sequence[str], how: str, thought: str) -> Extraction:
    """A bare column read as its playable cell (or left as ``column N`` when it has none, so the game
    reports the full column)."""
    for action in legal:
        if action.endswith(f",{col})"):
            return Extraction(action, reason=f"{how} names only column {col}; read as its playable cell "
                              f"{action}", thought=thought)
    return Extraction(f"column {col}", reason=f"{how} names only column {col}", thought=thought)


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Connect Four: the ``(r,c)`` (or bare column) after the last ``Chosen Move``; without one, the
    last ``(r,c)`` outside the intermediate-answer tags, else the last ``column N`` named."""
    thought = last_value(text, "conclusion")
    line = line_after_last(text, _CHOSEN, lead=SEPARATORS)
    if line is not None:
        pair = _PAIR_LOOSE.search(line)
        if pair:
            return Extraction(f"({int(pair.group(1))},{int(pair.group(2))})", thought=thought)
        column = _COLUMN.search(line)
        if column:
            return _column(int(column.group(1)), legal, "the 'Chosen Move:' line", thought)
        value = line.strip(MARKUP + ":：.")
        if not value:
            return Extraction(None, error="the 'Chosen Move:' line names no cell", thought=thought)
        return Extraction(value[:80], thought=thought)
    plain = strip_tags(text)
    pairs = list(_PAIR_BRACKETED.finditer(plain))
    if pairs:
        last = pairs[-1]
        return Extraction(
            f"({int(last.group(1))},{int(last.group(2))})",
            reason="no 'Chosen Move:' line; took the last (row,col) in the answer",
            thought=thought,
        )
    columns = list(_COLUMN.finditer(plain))
    if columns:
        return _column(int(columns[-1].group(1)), legal, "no 'Chosen Move:' line; the answer", thought)
    return Extraction(None, error="no 'Chosen Move:' line and no (row,col) in the answer", thought=thought)
