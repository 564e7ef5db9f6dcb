"""Reading a courtroom action out of a model's reply (the game's answer extractor)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import Extraction, keyword_lines, last_value

__all__ = ["extract_action"]

_ACTION_WORDS = re.compile(r"\b(?:present\s+e\s*\d{1,2}|choose\s+[a-d]|next|back|press)\b", re.IGNORECASE)


def extract_action(text: str, legal: Sequence[str]) -> Extraction:
    """The last ``action:`` line (or ``move:``, or Fig. 9's ``Presented_Evidence:``); without one, the
    last action phrase in the text (``present E2``, ``choose B``, ``next``, ``back``, ``press``)."""
    thought = last_value(text, "thought")
    for keyword in ("action", "move"):
        lines = keyword_lines(text, keyword)
        if lines:
            value = lines[-1]
            if not value:
                return Extraction(None, error=f"the '{keyword}:' line is empty", thought=thought)
            reason = f"used the last of {len(lines)} '{keyword}:' lines" if len(lines) > 1 else ""
            if keyword != "action":
                reason = "; ".join(filter(None, [f"no 'action:' line; took the '{keyword}:' line", reason]))
            return Extraction(value, reason=reason, thought=thought)
    shown = keyword_lines(text, "presented_evidence")
    if shown and shown[-1] and shown[-1].lower() not in ("none", "n/a", "-"):
        return Extraction(
            f"present {shown[-1]}", reason="no 'action:' line; took 'Presented_Evidence:'", thought=thought
        )
    found = _ACTION_WORDS.findall(text)
    if not found:
        return Extraction(
            None,
            error="no 'action:' line and no action (next, back, press, present E<n>, "
            "choose A-D) in the answer",
            thought=thought,
        )
    return Extraction(
        " ".join(found[-1].split()),
        reason="no 'action:' line; took the last action named in the answer",
        thought=thought,
    )
