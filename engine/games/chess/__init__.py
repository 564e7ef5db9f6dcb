"""Chess, as LVLM-Playground plays it: everything the game knows but its drawing.

* :mod:`.rules` — states on python-chess, SAN actions, draws, points and the declaration :class:`Chess`;
* :mod:`.bots` — a built-in alpha-beta search and Stockfish (when it is installed);
* :mod:`.answers` — reading a move out of a model's reply;
* :mod:`.sim` — how the simulated model writes its observation, strategy and move;
* :mod:`.lvlm` — LVLM-Playground's perceiving, question-answering and rule-following tasks;
* :mod:`.pgn` — a played game, with the reasoning behind each move, as PGN;
* ``prompts/`` — the end-to-end prompt; ``tasks/`` — the task prompts.

Its drawing is ``renderers/chess.py``.
"""

from engine.games.chess.rules import (
    ACTION_BOUND,
    BLACK,
    CAPTURE_VALUES,
    PIECE_NAMES,
    SEAT_NAMES,
    WHITE,
    Chess,
    ChessState,
    lvlm_points,
    perft,
    position,
    strip_san,
)

__all__ = [
    "ACTION_BOUND",
    "BLACK",
    "CAPTURE_VALUES",
    "PIECE_NAMES",
    "SEAT_NAMES",
    "WHITE",
    "Chess",
    "ChessState",
    "lvlm_points",
    "perft",
    "position",
    "strip_san",
]
