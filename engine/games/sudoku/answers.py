"""Reading a Sudoku move out of a model's reply (the game's answer extractor, ``Sudoku.extractor``).

LVLM-Playground's end-to-end answers are three labelled lines, ``Observation:``, ``Strategy:`` and
``Movement: <row><column> <digit>``; the move is read after the last ``Movement:``. Case, markdown,
``:``/``=`` between cell and digit and a reversed cell (``1A 5``) are forgiven and normalised to the
canonical ``"A1 5"``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import (
    MOVEMENT,
    Extraction,
    labelled_lines,
    last_match,
    last_value,
    line_after_last,
    read_labelled,
)

__all__ = ["extract_move", "find_move", "split_answer"]

_MOVE = re.compile(
    r"(?<![A-Za-z0-9])(?:([A-Ia-i])[ \t]*([1-9])|([1-9])[ \t]*([A-Ia-i]))"
    r"(?:[ \t]*(?:->|[:=,])?[ \t]*|[ \t]*(?:with|to|=)[ \t]*)([0-9])(?![0-9])"
)


def find_move(text: str) -> str | None:
    """The first move in ``text`` normalised to ``"A1 5"`` (``"b2: 7"`` -> ``"B2 7"``,
    ``"2B 7"`` -> ``"B2 7"``), or ``None``."""
    match = _MOVE.search(text)
    if not match:
        return None
    letter = match.group(1) or match.group(4)
    number = match.group(2) or match.group(3)
    return f"{letter.upper()}{number} {match.group(5)}"


def _last_move(text: str) -> str | None:
    found = last_match(_MOVE, text)
    return find_move(found.group(0)) if found else None


def split_answer(text: str) -> dict[str, str]:
    """The last ``Observation:``, ``Strategy:`` and ``Movement:`` values of an answer (missing keys
    are left out), so a front end can show the observation and the strategy apart from the move."""
    return labelled_lines(text, ("observation", "strategy", "movement"))


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Sudoku: the move after the last ``Movement:``; without that keyword, the last move written
    anywhere in the answer (and the reason says so)."""
    thought = last_value(text, "strategy")
    line = line_after_last(text, MOVEMENT)
    if line is not None:
        return read_labelled(line, find_move, "Movement:", thought)
    move = _last_move(text)
    if move is None:
        error = "no 'Movement:' line and no move (<row><column> <digit>, e.g. A1 5) in the answer"
        return Extraction(None, error=error, thought=thought)
    reason = "no 'Movement:' line; took the last move written in the answer"
    return Extraction(move, reason=reason, thought=thought)
