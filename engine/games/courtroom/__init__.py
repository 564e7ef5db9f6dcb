"""Courtroom: cross-examination in the style of LMGame-Bench's Ace Attorney, on PlayTrace's own cases.

* :mod:`.cases` — reading and checking case files (``assets/courtroom``), and their answer keys;
* :mod:`.state` — a moment of a trial: actions, scores, text views, the picture's scene, the panel;
* :mod:`.rules` — the declaration :class:`Courtroom`, its options and rules, and reading actions from text;
* :mod:`.bots` — the attorney, who plays by the answer key;
* :mod:`.answers` — reading an action out of a model's reply;
* :mod:`.sim` — how the simulated model reasons about contradictions (and sometimes errs);
* :mod:`.gym` — the text view as a Gymnasium observation, oldest dialogue trimmed to fit;
* ``prompts/`` — the prompt templates.

Its drawing is ``renderers/courtroom.py``.
"""

from engine.games.courtroom.cases import Case, CaseFormatError, key_actions, load_bundled, load_case
from engine.games.courtroom.rules import ACTIONS, IDLE_LIMIT, PENALTY_LIMIT, Courtroom, CourtState

__all__ = [
    "ACTIONS",
    "IDLE_LIMIT",
    "PENALTY_LIMIT",
    "Case",
    "CaseFormatError",
    "CourtState",
    "Courtroom",
    "key_actions",
    "load_bundled",
    "load_case",
]
