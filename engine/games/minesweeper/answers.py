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

from engine.agent.parse import MARKUP, Extraction, keyword_lines

__all__ = ["extract_move", "find_move", "split_answer"]

_MOVEMENT = re.compile(r"movement[ \t]*[*_`]*[ \t]*[:：]", re.IGNORECASE)
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
    parts = {}
    for key in ("observation", "strategy", "movement"):
        values = keyword_lines(text, key)
        if values:
            parts[key] = values[-1]
    return parts


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Minesweeper: the cell after the last ``Movement:``; without that keyword, the last cell written
    anywhere in the answer (and the reason says so)."""
    strategies = keyword_lines(text, "strategy")
    thought = strategies[-1] if strategies else ""
    found = None
    for found in _MOVEMENT.finditer(text):  # noqa: B007  (the loop only walks to the last match)
        continue
    if found is not None:
        rest = text[found.end() :]
        line = rest.split("\n", 1)[0].strip(MARKUP + ":")
        if not line:
            nonblank = [ln for ln in rest.splitlines() if ln.strip(MARKUP + ":")]
            line = nonblank[0].strip(MARKUP) if nonblank else ""
        if not line:
            return Extraction(None, error="the 'Movement:' line is empty", thought=thought)
        move = find_move(line)
        if move is None:
            return Extraction(line[:80].strip(" .,;"), thought=thought)  # the game says why it is no move
        reason = (
            "" if line.strip(" .") == move else f"read {move!r} from the 'Movement:' line {line.strip()!r}"
        )
        return Extraction(move, reason=reason, thought=thought)
    move = find_move(text, last=True)
    if move is None:
        error = "no 'Movement:' line and no cell (<row><column>, e.g. B3) in the answer"
        return Extraction(None, error=error, thought=thought)
    return Extraction(
        move, reason="no 'Movement:' line; took the last cell written in the answer", thought=thought
    )
