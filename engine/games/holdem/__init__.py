"""Heads-up no-limit Texas Hold'em, as GameBot plays it (one hand) and as LMGame-Bench's Appendix G plays
it (40-hand matches with mirrored seats): everything the game knows but its drawing.

* :mod:`.rules` — states, the five actions, text views, the panel and the declaration :class:`Holdem`;
* :mod:`.match` — multi-hand matches: each hand's deal and button, finished hands, style metrics;
* :mod:`.table` — pokerkit's betting table under a state (dealt from the seed, copied quickly);
* :mod:`.cards` — card names, the seeded deal, pre-flop keys and hand ranks (pokerkit's evaluator);
* :mod:`.preflop` — GameBot's pre-flop win-probability table;
* :mod:`.bots` — the equity bot (the table, Monte Carlo hand strength, pot odds) and a caller;
* :mod:`.questions` — GameBot's intermediate questions (pre-flop win probability, best hand rank);
* :mod:`.answers` — reading the chosen action out of a model's reply;
* :mod:`.sim` — how the simulated model reasons and answers here;
* ``prompts/`` — the prompt templates (GameBot's ``cot``, ``naive``, ``none``; LMGame-Bench's ``v0``,
  ``v1``, ``v2``).

Its drawing is ``renderers/holdem.py``.
"""

from engine.games.holdem.cards import HAND_NAMES, best_five, card_name, card_symbol, hand_rank, preflop_win
from engine.games.holdem.rules import (
    ACTIONS,
    ALL_IN,
    CALL,
    FOLD,
    HALF_POT,
    POT,
    SEAT_NAMES,
    STREETS,
    Holdem,
    HoldemState,
    canonical_action,
)

__all__ = [
    "ACTIONS",
    "ALL_IN",
    "CALL",
    "FOLD",
    "HALF_POT",
    "HAND_NAMES",
    "POT",
    "SEAT_NAMES",
    "STREETS",
    "Holdem",
    "HoldemState",
    "best_five",
    "canonical_action",
    "card_name",
    "card_symbol",
    "hand_rank",
    "preflop_win",
]
