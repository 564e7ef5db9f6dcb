"""Reading a Reversi move out of a model's reply (the game's answer extractor).

LVLM-Playground asks for three labelled lines, ``Observation:``, ``Strategy:`` and ``Movement:``, and
reads the move after ``Movement:`` only: a reply without that line is an invalid move, one of the three
strikes that end a game. The square may come in either order and any case (``d4``, ``4D``) and is
normalised to the row-letter, column-number form (``D4``), as the paper's reference parser does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import MARKUP, MOVEMENT, Extraction, last_value, line_after_last
from engine.games.othello.reversi import find_moves
from engine.games.othello.rules import PASS

__all__ = ["extract_move", "movement_text"]

_PASS_WORD = re.compile(r"\bpass(es|ing)?\b", re.IGNORECASE)


def movement_text(text: str) -> str | None:
    """What follows the last ``Movement:`` keyword, up to the end of its line (or the next non-blank
    line when the keyword ends its line); ``None`` when there is no such keyword."""
    line = line_after_last(text, MOVEMENT, lead=" \t*_`")
    return None if line is None else line.strip(MARKUP + ":：.")


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Reversi: the square after the last ``Movement:``, normalised (``4d`` -> ``D4``); ``pass`` when it
    is the only legal action. The ``Strategy:`` line is the visible reasoning. A reply without a
    ``Movement:`` line is a format error (LVLM-Playground counts it as an invalid move)."""
    thought = last_value(text, "strategy")
    if list(legal) == [PASS]:
        return Extraction(PASS, reason="pass is the only legal action", thought=thought)
    line = movement_text(text)
    if line is None:
        return Extraction(None, error="no 'Movement:' line in the answer", thought=thought)
    moves = find_moves(line)
    if moves:
        reason = "" if moves[0] == line.strip() else f"read {line.strip()[:40]!r} as {moves[0]}"
        return Extraction(moves[0], reason=reason, thought=thought)
    if _PASS_WORD.search(line):
        return Extraction(PASS, thought=thought)
    if not line:
        return Extraction(None, error="the 'Movement:' line names no square", thought=thought)
    return Extraction(line[:80], thought=thought)
