"""Reading a Gomoku move out of a model's reply (the game's answer extractor).

LVLM-Playground asks for three labelled lines, ``Observation:``, ``Strategy:`` and ``Movement:``, and
reads the move after ``Movement:`` only: a reply without that line is an invalid move, one of the three
strikes that end a game. The move may come in either order and any case (``h8``, ``8H``) and is
normalised to the column-letter, row-number form (``H8``), as the paper's reference parser does.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.agent.parse import MARKUP, MOVEMENT, Extraction, last_value, line_after_last
from engine.games.gomoku.rules import find_moves

__all__ = ["extract_move", "movement_text"]



def movement_text(text: str) -> str | None:
    """What follows the last ``Movement:`` keyword, up to the end of its line (or the next non-blank
    line when the keyword ends its line); ``None`` when there is no such keyword."""
    line = line_after_last(text, MOVEMENT, lead=" \t*_`")
    return None if line is None else line.strip(MARKUP + ":：.")


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Gomoku: the intersection after the last ``Movement:``, normalised (``8h`` → ``H8``); the
    ``Strategy:`` line is the visible reasoning. No ``Movement:`` line is a format error."""
    thought = last_value(text, "strategy")
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
