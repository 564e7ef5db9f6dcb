"""Reading a bargaining answer out of a model's reply (the game's answer extractor).

GameBot reads the action after the last ``proposal:``. What follows it may be ``[Agree]``, ``Agree``,
``[P1: (3,3,2), P2: (2,1,1)]`` or the same with other spaces and brackets; the extracted text is the
canonical ``Agree`` or ``P1: (a, b, c), P2: (d, e, f)``. Whether a division adds up to the pool is
not checked here: :meth:`~engine.games.bargaining.rules.Bargaining.parse_action` calls a division that
does not an illegal action (the harness re-asks). Text that is neither is a format error: GameBot's
code would have read it as ``Agree``, which ends the game on a misreading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import MARKUP, Extraction, last_value, line_after_last, strip_tags
from engine.games.bargaining.rules import AGREE, division_action, read_division, says_agree

__all__ = ["extract_proposal"]

_PROPOSAL = re.compile(r"proposal[ \t]*(?:\*\*)?[ \t]*[:：]", re.IGNORECASE)
_AGREE_ONLY = re.compile(r"^\[?\s*(agree|accept)\s*\]?\.?$", re.IGNORECASE)


def extract_proposal(text: str, legal: Sequence[str]) -> Extraction:
    """The answer after the last ``Proposal:``; without one, the last division written outside the
    intermediate-answer tags, or a last line that is just ``Agree``."""
    thought = last_value(text, "conclusion")
    line = line_after_last(text, _PROPOSAL)
    if line is not None:
        found = _read(line)
        if found is not None:
            return Extraction(found, thought=thought)
        value = line.strip(MARKUP + ":：.")
        if not value:
            return Extraction(None, error="the 'Proposal:' line is empty", thought=thought)
        return Extraction(
            None,
            error=f"the 'Proposal:' line {value[:60]!r} is neither Agree nor a division P1: (..), P2: (..)",
            thought=thought,
        )
    plain = strip_tags(text)
    division = read_division(plain)
    if division is not None:
        return Extraction(
            division_action(*division),
            reason="no 'Proposal:' line; took the last division in the answer",
            thought=thought,
        )
    lines = [ln.strip(MARKUP) for ln in plain.splitlines() if ln.strip(MARKUP)]
    if lines and _AGREE_ONLY.match(lines[-1]):
        return Extraction(AGREE, reason="no 'Proposal:' line; the answer ends with Agree", thought=thought)
    return Extraction(None, error="no 'Proposal:' line and no division in the answer", thought=thought)


def _read(line: str) -> str | None:
    """``Agree`` or the canonical division written on ``line``, or ``None``."""
    division = read_division(line)
    if division is not None:
        return division_action(*division)
    return AGREE if says_agree(line) else None
