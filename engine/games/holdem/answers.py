"""Reading a hold'em action out of a model's reply (the game's answer extractor).

GameBot's reference parses the action after ``chosen action``; this one reads the text after the
last ``Chosen Action`` (same line, or the next non-blank line) and matches it to one of the five
actions, forgiving case and common names (``Call``, ``Check``, ``All-in``, ``Raise Pot``). An
unreadable or missing action is a format error, never a fold (the reference folded): PlayTrace's
invalid-answer policy re-asks. Without a ``Chosen Action`` keyword the last action named on a line
of its own, outside the intermediate-answer tags, is taken and the reason recorded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import MARKUP, SEPARATORS, Extraction, last_value, line_after_last, strip_tags
from engine.games.holdem.rules import ACTIONS, canonical_action

__all__ = ["extract_action"]

_CHOSEN = re.compile(r"chosen[ \t]*action", re.IGNORECASE)
#: Action names, longest first, to find one inside a longer phrase ("I choose: Raise Full Pot.").
_NAMES = sorted(
    {
        **{a.lower(): a for a in ACTIONS},
        "check": "Check and Call",
        "call": "Check and Call",
        "all-in": "All in",
        "raise pot": "Raise Full Pot",
    }.items(),
    key=lambda kv: -len(kv[0]),
)


def _find(text: str) -> str | None:
    """The action ``text`` names: the whole text, or the first action name inside it."""
    whole = canonical_action(text)
    if whole is not None:
        return whole
    lowered = text.lower()
    best: tuple[int, str] | None = None
    for name, action in _NAMES:
        match = re.search(rf"(?<![a-z]){re.escape(name)}(?![a-z])", lowered)
        if match and (best is None or match.start() < best[0]):
            best = (match.start(), action)
    return best[1] if best else None


def extract_action(text: str, legal: Sequence[str]) -> Extraction:
    """Hold'em: the action after the last ``Chosen Action``; a format error when none is readable."""
    thought = last_value(text, "conclusion")
    line = line_after_last(text, _CHOSEN, lead=SEPARATORS)
    if line is not None:
        value = line.strip(MARKUP + ":：.")
        if not value:
            return Extraction(None, error="the 'Chosen Action:' line names no action", thought=thought)
        action = _find(value)
        if action is None:
            error = f"the 'Chosen Action:' line names no hold'em action: {value[:60]!r}"
            return Extraction(None, error=error, thought=thought)
        return Extraction(action, thought=thought)
    lines = [ln.strip(MARKUP + ":：.-") for ln in strip_tags(text).splitlines()]
    for line in reversed(lines):
        action = canonical_action(line) if line else None
        if action is not None:
            return Extraction(action, reason="no 'Chosen Action:' line; took the last line naming an action",
                              thought=thought)
    return Extraction(None, error="no 'Chosen Action:' line and no action on a line of its own",
                      thought=thought)
