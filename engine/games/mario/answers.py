"""Reading a Super Mario Bros action out of a model's reply (the game's answer extractor).

The prompt asks for ``move: <action>``. LMGame-Bench's agents answer ``(action, frame_count)``, so
``move: (right_a, 13)`` is read too: with the game's ``durations`` option (its legal actions are then
``"right_a 13"``) the frame count is the action's duration; without it the action is played and the
answer's record says that the frame count was not used (each action lasts the game's ``frames``).
Without a ``move:`` line, the last action the reply names is taken, and the record says so; a
``move:`` line naming no action is a format error, never patched from elsewhere in the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import Extraction, keyword_lines, last_value, strip_tags
from engine.games.mario.rules import read_action

__all__ = ["extract_action"]

_COUNT = re.compile(r"[,\s(]\s*(\d{1,3})\s*\)?\s*$")
_NAMES = re.compile(
    r"(?<![a-z_])(right_a_b|left_a_b|right_a|right_b|left_a|left_b|noop|no_op|right|left|down|up)(?![a-z_])",
    re.IGNORECASE,
)


def extract_action(text: str, legal: Sequence[str]) -> Extraction:
    """Super Mario Bros: the action on the last ``move:`` line; without one, the last action named."""
    thought = last_value(text, "thought")
    moves = keyword_lines(text, "move")
    if moves:
        value = moves[-1]
        if not value:
            return Extraction(None, error="the 'move:' line is empty", thought=thought)
        action = read_action(value)
        if action is None:
            return Extraction(value, thought=thought)  # the game says why it is not an action
        notes = []
        count = _COUNT.search(value)
        if legal and " " in legal[0]:  # durations: the game reads the name and the frame count
            if count is None:
                notes.append("no frame count on the 'move:' line: the action is held the game's set frames")
            if len(moves) > 1:
                notes.append(f"used the last of {len(moves)} 'move:' lines")
            return Extraction(value, reason="; ".join(notes), thought=thought)
        if count is not None:
            notes.append(f"the frame count {count.group(1)} was not used: actions last the game's set frames")
        if value.strip().lower() != action and count is None:
            notes.append(f"took {action!r} from the 'move:' line {value!r}")
        if len(moves) > 1:
            notes.append(f"used the last of {len(moves)} 'move:' lines")
        return Extraction(action, reason="; ".join(notes), thought=thought)
    named = list(_NAMES.finditer(strip_tags(text)))
    if not named:
        return Extraction(None, error="no 'move:' line and no action named in the answer", thought=thought)
    action = read_action(named[-1].group(1))
    reason = "no 'move:' line; took the last action named in the answer"
    return Extraction(action, reason=reason, thought=thought)
