"""Reading a Candy Crush swap out of a model's reply (the game's answer extractor).

The swap is the one on the last ``move:`` line (LMGame-Bench's answer format), written as
``((r1,c1),(r2,c2))`` or any form :func:`~engine.games.candycrush.board.parse_swap` reads. Without a
``move:`` line, the last swap written in the text (outside the intermediate-answer tags) is taken, and
the reason says so. A ``move:`` line with no swap on it is passed on as written, so the game says why it
is not one (a swap found elsewhere is never patched in).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import Extraction, keyword_lines, last_value, strip_tags
from engine.games.candycrush.board import format_swap, parse_swap

__all__ = ["extract_move"]

_SWAP_ANYWHERE = re.compile(r"\(\s*\(\s*\d+\s*,\s*\d+\s*\)\s*,\s*\(\s*\d+\s*,\s*\d+\s*\)\s*\)")


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Candy Crush: the swap on the last ``move:`` line; without one, the last ``((r,c),(r,c))``."""
    thought = last_value(text, "thought")
    moves = keyword_lines(text, "(?:move|action|swap)")
    if moves:
        value = moves[-1]
        if not value:
            return Extraction(None, error="the 'move:' line is empty", thought=thought)
        swap = parse_swap(value)
        if swap is None:
            return Extraction(value, thought=thought)  # the game says why it is not a swap
        written = format_swap(swap)
        reasons = [] if value.replace(" ", "") == written else [f"read {written} from {value!r}"]
        if len(moves) > 1:
            reasons.append(f"used the last of {len(moves)} 'move:' lines")
        return Extraction(written, reason="; ".join(reasons), thought=thought)
    found = _SWAP_ANYWHERE.findall(strip_tags(text))
    if not found:
        error = "no 'move:' line and no swap ((row,col),(row,col)) in the answer"
        return Extraction(None, error=error, thought=thought)
    swap = parse_swap(found[-1])
    assert swap is not None
    reason = "no 'move:' line; took the last swap written in the answer"
    return Extraction(format_swap(swap), reason=reason, thought=thought)
