"""Othello (Reversi), as GameBot and LVLM-Playground play it: everything the game knows but its drawing.

* :mod:`.rules` — bit-board states, rules, text views and the declaration :class:`Othello`;
* :mod:`.reversi` — LVLM-Playground's Reversi (``reversi``): the same rules with row-letter names
  (``"D3"``), the paper's start and points, and the declaration :class:`Reversi`;
* :mod:`.bots` — greedy (most flips), alpha-beta with GameBot's positional heuristic, and alpha-beta on
  the disc difference (Reversi's opponent);
* :mod:`.questions` — GameBot's intermediate questions (corner available, wedge moves) and oracles;
* :mod:`.answers` / :mod:`.reversi_answers` — reading a move out of a model's reply;
* :mod:`.sim` / :mod:`.reversi_sim` — how the simulated model writes its reasoning and answers;
* :mod:`.lvlm` — LVLM-Playground's offline tasks for Reversi (perceiving, QA, rule following);
* :mod:`.gym` — the board as a Gymnasium observation;
* ``prompts/`` — Othello's prompt templates (``cot``, ``naive``, ``none``); ``prompts/reversi/``
  Reversi's (``lvlm``); ``tasks/`` — the offline task prompts of :mod:`.lvlm`.

Its drawing is ``renderers/othello.py`` (``OthelloRenderer`` and ``ReversiRenderer``).
"""

from engine.games.othello.reversi import Reversi, ReversiState
from engine.games.othello.rules import (
    ACTIONS,
    COLUMNS,
    CORNERS,
    PASS,
    SYMBOLS,
    Othello,
    OthelloState,
    action_of,
    bits_of,
    cell_of,
    flips,
    legal_mask,
    parse_cell,
    wedge_moves,
)

__all__ = [
    "ACTIONS",
    "COLUMNS",
    "CORNERS",
    "PASS",
    "SYMBOLS",
    "Othello",
    "OthelloState",
    "Reversi",
    "ReversiState",
    "action_of",
    "bits_of",
    "cell_of",
    "flips",
    "legal_mask",
    "parse_cell",
    "wedge_moves",
]
