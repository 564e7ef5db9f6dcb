"""Reading a Tetris action out of a model's reply (the game's answer extractor, ``Tetris.extractor``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import Extraction, keyword_lines, last_value
from engine.games.tetris.rules import read_actions

__all__ = ["extract_move"]


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Tetris: the last ``move:`` line (canonical names and the usual aliases, such as ``move left`` or
    ``rotate clockwise``); without one, the last action named anywhere in the text."""
    thought = last_value(text, "thought")
    moves = keyword_lines(text, "move")
    if moves:
        value = moves[-1]
        if not value:
            # "move:" alone on its line, the action on the next one.
            after = re.split(r"move\s*:", text, flags=re.IGNORECASE)[-1]
            below = read_actions(after)
            if not below:
                return Extraction(None, error="the 'move:' line is empty", thought=thought)
            reason = f"the 'move:' line is empty; took {below[0]!r} from the text after it"
            return Extraction(below[0], reason=reason, thought=thought)
        named = list(dict.fromkeys(read_actions(value)))
        if len(named) != 1:
            return Extraction(value, thought=thought)  # let the game say why it is not one action
        action = named[0]
        reason = "" if value.strip().lower() == action else f"took {action!r} from the 'move:' line {value!r}"
        if len(moves) > 1:
            reason = "; ".join(filter(None, [reason, f"used the last of {len(moves)} 'move:' lines"]))
        return Extraction(action, reason=reason, thought=thought)
    named = read_actions(text)
    if not named:
        error = "no 'move:' line and no Tetris action (left, right, rotate_left, ..., hold) in the answer"
        return Extraction(None, error=error, thought=thought)
    reason = "no 'move:' line; took the last action named in the answer"
    return Extraction(named[-1], reason=reason, thought=thought)
