"""Bargaining, as GameBot plays it (Deal or No Deal with values worth 30 and a random stop):
everything the game knows but its drawing.

* :mod:`.rules` — states, rules, text views, the person's panel and the declaration :class:`Bargaining`;
* :mod:`.bots` — a fair-split negotiator (the default opponent) and a greedy one;
* :mod:`.questions` — GameBot's intermediate questions (the value of the opponent's latest proposal,
  the value of my own proposal) and their oracles;
* :mod:`.answers` — reading ``Agree`` or a division out of a model's reply;
* :mod:`.sim` — how the simulated model negotiates and writes its answers here;
* ``prompts/`` — the prompt templates (``cot``, ``naive``, ``none``).

Its drawing is ``renderers/bargaining.py``.
"""

from engine.games.bargaining.rules import (
    AGREE,
    ITEMS,
    TOTAL_VALUE,
    Bargaining,
    BargainingState,
    division_action,
    divisions,
    read_action,
    setup,
    value_of,
)

__all__ = [
    "AGREE",
    "ITEMS",
    "TOTAL_VALUE",
    "Bargaining",
    "BargainingState",
    "division_action",
    "divisions",
    "read_action",
    "setup",
    "value_of",
]
