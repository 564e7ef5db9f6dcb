"""Reading a checkers move out of a model's reply (the game's answer extractor).

The move is the one written after the last ``Chosen Move`` (GameBot's reference reads the text after
the last "chosen move" with ``\\((\\d),\\s*(\\d)\\)\\s*->\\s*\\((\\d),\\s*(\\d)\\)``; here the pattern is
extended to whole paths, ``(5,0)->(3,2)->(1,4)``, and forgives ``→``, ``-->`` and ``to``). When the
keyword is missing altogether, the last move written outside the intermediate-answer tags is taken,
and the reason says so.

A multi-jump given by its first hop only (``(5,0)->(3,2)`` for ``(5,0)->(3,2)->(1,4)``), or by its
first and last squares, is completed when exactly one legal action fits; the reason says so. When
several legal multi-jumps start that way the move is left as written and the game reports it as
ambiguous.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import MARKUP, Extraction, last_match, line_after_last, strip_tags
from engine.games.checkers.rules import MOVE_RE, parse_path, write_path

__all__ = ["complete", "extract_move"]

_CHOSEN = re.compile(r"chosen[ \t]*move", re.IGNORECASE)
_CONCLUSION = re.compile(r"conclusion", re.IGNORECASE)


def complete(move: str, legal: Sequence[str]) -> tuple[str, str]:
    """The legal action a written move stands for, and the reason when it was not written in full."""
    if move in legal:
        return move, ""
    squares = move.split("->")
    if len(squares) != 2:
        return move, ""
    starts = [a for a in legal if a.startswith(move + "->")]
    if len(starts) == 1:
        return starts[
            0
        ], f"{move} is the first hop only; completed to the only multi-jump starting so, {starts[0]}"
    if starts:
        return move, ""
    ends = [a for a in legal if a.startswith(squares[0] + "->") and a.endswith("->" + squares[1])]
    if len(ends) == 1:
        return ends[0], f"{move} gives the first and last squares only; completed to the multi-jump {ends[0]}"
    return move, ""


def _thought(text: str) -> str:
    """The conclusion's words: the text after the last "Conclusion" up to the "Chosen Move"."""
    found = last_match(_CONCLUSION, text)
    if found is None:
        return ""
    rest = text[found.end() :]
    chosen = _CHOSEN.search(rest)
    body = rest[: chosen.start()] if chosen else rest
    words = " ".join(line.strip(MARKUP + ":-0123456789.") for line in body.splitlines())
    return " ".join(words.split())[:400]


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Checkers: the move after the last ``Chosen Move``; without one, the last move outside the tags."""
    thought = _thought(text)
    line = line_after_last(text, _CHOSEN)
    reasons: list[str] = []
    if line is not None:
        path = parse_path(line)
        if path is None:
            # The keyword's line (or the next non-blank one) must hold the move: a move elsewhere is
            # not patched in, which is how silent "ghost moves" happen.
            error = "the 'Chosen Move' line names no move (row,col)->(row,col)"
            return Extraction(None, error=error, thought=thought)
    else:
        found = list(MOVE_RE.finditer(strip_tags(text)))
        if not found:
            error = "no 'Chosen Move' line and no (row,col)->(row,col) move in the answer"
            return Extraction(None, error=error, thought=thought)
        path = parse_path(found[-1].group(0))
        reasons.append("no 'Chosen Move' line; took the last move written in the answer")
    assert path is not None
    move, why = complete(write_path(path), legal)
    if why:
        reasons.append(why)
    return Extraction(move, reason="; ".join(reasons), thought=thought)
