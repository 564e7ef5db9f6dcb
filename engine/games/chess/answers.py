"""Reading a chess move out of a model's reply (the game's answer extractor, ``Chess.extractor``).

LVLM-Playground's end-to-end answers are three labelled lines, ``Observation:``, ``Strategy:`` and
``Movement: <SAN>``; the move is read after the last ``Movement:`` (the reference code reads SAN or a
UCI pair there). Markdown, a trailing full stop, check marks and ``0-0`` for ``O-O`` are forgiven;
the game's :meth:`~engine.games.chess.rules.Chess.parse_action` then matches the move to the canonical
legal SAN (or says why it is illegal).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import (
    MOVEMENT,
    Extraction,
    labelled_lines,
    last_value,
    line_after_last,
    read_labelled,
)

__all__ = ["MOVE_RE", "extract_move", "find_move", "split_answer"]

#: A move as people and models write it: castling, a square pair (UCI, ``e2-e4``, ``e2->e4``), or SAN.
MOVE_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"(?P<castle>[O0o]-[O0o](?:-[O0o])?)"
    r"|(?P<pair>[a-h][1-8][ \t]*(?:->|-|x)?[ \t]*[a-h][1-8](?:=?[qrbnQRBN](?![a-z]))?)"
    r"|(?P<san>[KQRBNkqrn]?[a-h]?[1-8]?x?[a-h][1-8](?:=?[QRBNqrbn])?)"
    r")(?P<mark>[+#]?)(?![A-Za-z0-9])"
)


def find_move(text: str) -> str | None:
    """The first move written in ``text``, tidied (``"0-0"`` → ``"O-O"``, ``"e2 - e4"`` → ``"e2-e4"``,
    check marks kept), or ``None``."""
    match = MOVE_RE.search(text)
    if match is None:
        return None
    if match["castle"]:
        return match["castle"].upper().replace("0", "O") + match["mark"]
    if match["pair"]:
        return re.sub(r"[ \t]+", "", match["pair"]) + match["mark"]
    return match["san"] + match["mark"]


def split_answer(text: str) -> dict[str, str]:
    """The last ``Observation:``, ``Strategy:`` and ``Movement:`` values of an answer (missing keys
    are left out), so a front end can show the observation and the strategy apart from the move."""
    return labelled_lines(text, ("observation", "strategy", "movement"))


def extract_move(text: str, legal: Sequence[str]) -> Extraction:
    """Chess: the move after the last ``Movement:``; without that keyword, the last move written in
    the answer (and the reason says so)."""
    thought = last_value(text, "strategy")
    line = line_after_last(text, MOVEMENT)
    if line is not None:
        return read_labelled(line, find_move, "Movement:", thought)
    moves = [m.group(0) for m in MOVE_RE.finditer(text)]
    if not moves:
        error = "no 'Movement:' line and no move (SAN such as e4, Nf3 or O-O) in the answer"
        return Extraction(None, error=error, thought=thought)
    return Extraction(
        find_move(moves[-1]),
        reason="no 'Movement:' line; took the last move written in the answer",
        thought=thought,
    )
