"""Reading a Gomoku move out of a model's reply (the game's answer extractor).

LVLM-Playground asks for three labelled lines, ``Observation:``, ``Strategy:`` and ``Movement:``, and
reads the move after ``Movement:`` only: a reply without that line is an invalid move, one of the three
strikes that end a game. The move may come in either order and any case (``h8``, ``8H``) and is
normalised to the column-letter, row-number form (``H8``), as the paper's reference parser does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import MARKUP, Extraction, keyword_lines
from engine.games.gomoku.rules import find_moves

__all__ = ["extract_move", "movement_text"]

_MOVEMENT = re.compile(r"movement[ \t]*\**[ \t]*[:：]", re.IGNORECASE)


def movement_text(text: str) -> str | None:
    """What follows the last ``Movement:`` keyword, up to the end of its line (or the next non-blank
    line when the keyword ends its line); ``None`` when there is no such keyword."""
    keyword = None
    for keyword in _MOVEMENT.finditer(text):  # noqa: B007  (the loop only walks to the last match)
        continue
    if keyword is None:
        return None
    rest = text[keyword.end() :]
    line = rest.lstrip(" \t*_`").split("\n", 1)[0]
    if not line.strip(MARKUP + ":"):
        nonblank = [ln for ln in rest.splitlines() if ln.strip(MARKUP + ":")]
        line = nonblank[0] if nonblank else ""
    return line.strip(MARKUP + ":：.")


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Gomoku: the intersection after the last ``Movement:``, normalised (``8h`` → ``H8``); the
    ``Strategy:`` line is the visible reasoning. No ``Movement:`` line is a format error."""
    strategies = keyword_lines(text, "strategy")
    thought = strategies[-1] if strategies else ""
    line = movement_text(text)
    if line is None:
        return Extraction(None, error="no 'Movement:' line in the answer", thought=thought)
    moves = find_moves(line)
    if moves:
        reason = "" if moves[0] == line.strip().upper() else f"read {line.strip()[:40]!r} as {moves[0]}"
        return Extraction(moves[0], reason=reason, thought=thought)
    if not line:
        return Extraction(None, error="the 'Movement:' line names no intersection", thought=thought)
    return Extraction(line[:80], thought=thought)
