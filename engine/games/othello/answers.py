"""Reading an Othello move out of a model's reply (the game's answer extractor).

GameBot's reference parser accepts ``(A,1)``, ``(A 1)`` or ``A1`` after the last ``Chosen Move``;
so does this one, in any case. When passing is the only legal action the answer is ``pass``, whatever
the reply says (there is nothing else the seat may do). Without a ``Chosen Move`` line the last
bracketed cell outside the intermediate-answer tags is taken, and the reason is recorded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import MARKUP, SEPARATORS, Extraction, last_value, line_after_last, strip_tags
from engine.games.othello.rules import PASS

__all__ = ["extract_move"]

#: A cell on the "Chosen Move" line: (D,3), (D 3), (d, 3), D3.
_CELL_LOOSE = re.compile(r"(?<![A-Za-z])\(?\s*([A-Ha-h])\s*[,\s]?\s*([1-8])(?!\d)")
#: A cell anywhere else: bracketed, or a letter glued to its digit (never "a 3" in prose).
_CELL_STRICT = re.compile(
    r"\(\s*([A-Ha-h])\s*[,\s]\s*([1-8])\s*\)|(?<![A-Za-z0-9])([A-Ha-h])([1-8])(?![A-Za-z0-9])"
)
_CHOSEN = re.compile(r"chosen[ \t]*move", re.IGNORECASE)
_PASS = re.compile(r"\bpass(es|ing)?\b", re.IGNORECASE)


def _cell(letter: str, digit: str) -> str:
    return f"({letter.upper()},{digit})"


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Othello: the cell after the last ``Chosen Move``; ``pass`` when it is the only legal action;
    without the keyword, the last cell outside the intermediate-answer tags."""
    thought = last_value(text, "conclusion")
    if list(legal) == [PASS]:
        return Extraction(PASS, reason="pass is the only legal action", thought=thought)
    line = line_after_last(text, _CHOSEN, lead=SEPARATORS)
    if line is not None:
        found = _CELL_LOOSE.search(line)
        if found:
            return Extraction(_cell(found.group(1), found.group(2)), thought=thought)
        if _PASS.search(line):
            return Extraction(PASS, thought=thought)
        value = line.strip(MARKUP + ":：.")
        if not value:
            return Extraction(None, error="the 'Chosen Move:' line names no square", thought=thought)
        return Extraction(value[:80], thought=thought)
    cells = list(_CELL_STRICT.finditer(strip_tags(text)))
    if not cells:
        return Extraction(None, error="no 'Chosen Move:' line and no square such as (D,3) in the answer",
                          thought=thought)
    last = cells[-1]
    letter, digit = (last.group(1), last.group(2)) if last.group(1) else (last.group(3), last.group(4))
    return Extraction(
        _cell(letter, digit),
        reason="no 'Chosen Move:' line; took the last square in the answer",
        thought=thought,
    )
