"""Reading a Minesweeper move out of a model's reply (the game's answer extractor,
``Minesweeper.extractor``).

LVLM-Playground's end-to-end answers are three labelled lines, ``Observation:``, ``Strategy:`` and
``Movement: <row><column>``; the move is read after the last ``Movement:``. Case, markdown, a space
between letter and number and the reversed ``3B`` are forgiven and normalised to ``"B3"`` (the paper's
prompt writes ``<row> <column>`` while its parser wants ``A1``; both are read). ``flag B3`` is kept
as a flag (people's action; the prompt never offers it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import (
    MOVEMENT,
    Extraction,
    labelled_lines,
    last_value,
    line_after_last,
    read_labelled,
)

__all__ = ["extract_move", "find_move", "split_answer"]

_MOVE = re.compile(
    r"(?<![A-Za-z0-9])(flag[ \t]+)?(?:([A-Za-z])[ \t]?(\d{1,2})|(\d{1,2})[ \t]?([A-Za-z]))(?![A-Za-z0-9])",
    re.IGNORECASE,
)


def find_move(text: str, *, last: bool = False) -> str | None:
    """The first (or ``last``) cell named in ``text`` as ``"B3"`` (``"b 3"``, ``"3B"`` read too),
    with ``"flag "`` in front when the text flags it; ``None`` when it names no cell."""
    found = None
    for match in _MOVE.finditer(text):
        found = match
        if not last:
            break
    if found is None:
        return None
    letter = found.group(2) or found.group(5)
    number = found.group(3) or found.group(4)
    cell = f"{letter.upper()}{int(number)}"
    return f"flag {cell}" if found.group(1) else cell


def split_answer(text: str) -> dict[str, str]:
    """The last ``Observation:``, ``Strategy:`` and ``Movement:`` values of an answer (missing keys
    are left out), so a front end can show the observation and the strategy apart from the move."""
    return labelled_lines(text, ("observation", "strategy", "movement"))


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Minesweeper: the cell after the last ``Movement:``; without that keyword, the last cell written
    anywhere in the answer (and the reason says so)."""
    thought = last_value(text, "strategy")
    line = line_after_last(text, MOVEMENT)
    if line is not None:
        return read_labelled(line, find_move, "Movement:", thought)
    move = find_move(text, last=True)
    if move is None:
        error = "no 'Movement:' line and no cell (<row><column>, e.g. B3) in the answer"
        return Extraction(None, error=error, thought=thought)
    return Extraction(
        move, reason="no 'Movement:' line; took the last cell written in the answer", thought=thought
    )
