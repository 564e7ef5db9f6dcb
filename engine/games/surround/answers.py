"""Reading a Surround move out of a model's reply (the game's answer extractor)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import MARKUP, SEPARATORS, Extraction, last_value, line_after_last, strip_tags

__all__ = ["extract_move"]

_CHOSEN = re.compile(r"chosen[ \t]*action", re.IGNORECASE)
_MOVE = re.compile(r"\b(?:move[ \t]*)?(up|down|left|right)\b", re.IGNORECASE)
_MOVE_PHRASE = re.compile(r"\bmove[ \t]*(up|down|left|right)\b", re.IGNORECASE)


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Surround: the ``Move X`` after the last ``Chosen Action`` (GameBot reads the text after that
    keyword); without the keyword, the last ``Move X`` outside the intermediate-answer tags."""
    thought = last_value(text, "conclusion")
    line = line_after_last(text, _CHOSEN, lead=SEPARATORS)
    if line is not None:
        move = _MOVE.search(line)
        if move:
            return Extraction(move.group(1).lower(), thought=thought)
        value = line.strip(MARKUP + ":：.-")
        if not value:
            return Extraction(None, error="the 'Chosen Action' section names no move", thought=thought)
        return Extraction(value[:80], thought=thought)
    moves = list(_MOVE_PHRASE.finditer(strip_tags(text)))
    if not moves:
        error = "no 'Chosen Action' section and no 'Move Up/Down/Left/Right' in the answer"
        return Extraction(None, error=error, thought=thought)
    return Extraction(
        moves[-1].group(1).lower(),
        reason="no 'Chosen Action' section; took the last 'Move X' in the answer",
        thought=thought,
    )
