"""Reading a Sokoban move out of a model's reply (the game's answer extractor, ``Sokoban.extractor``)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.agent.parse import Extraction, first_word_of, keyword_lines, last_value, last_word_of
from engine.games.sokoban.rules import ACTIONS as DIRECTIONS

__all__ = ["extract_move"]


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Sokoban: the last ``move:`` line (``push up`` and ``move up`` read as ``up``, the reference's
    names); without one, the last direction word in the text."""
    thought = last_value(text, "thought")
    vocabulary = list(dict.fromkeys([*DIRECTIONS, *legal]))
    moves = keyword_lines(text, "move")
    if moves:
        value = moves[-1]
        if not value:
            return Extraction(None, error="the 'move:' line is empty", thought=thought)
        word = first_word_of(value, vocabulary)
        if word is None:
            return Extraction(value, thought=thought)  # let the game say why it is not a move
        reason = "" if value.lower() == word else f"took {word!r} from the 'move:' line {value!r}"
        if len(moves) > 1:
            reason = "; ".join(filter(None, [reason, f"used the last of {len(moves)} 'move:' lines"]))
        return Extraction(word, reason=reason, thought=thought)
    word = last_word_of(text, vocabulary)
    if word is None:
        error = "no 'move:' line and no direction (up, down, left, right) in the answer"
        return Extraction(None, error=error, thought=thought)
    reason = "no 'move:' line; took the last direction word in the answer"
    return Extraction(word, reason=reason, thought=thought)
