"""The betting table under a hold'em state: pokerkit's state machine, dealt and copied quickly.

pokerkit (:class:`pokerkit.NoLimitTexasHoldem`) keeps the rules: blinds, who acts, the minimum raise,
all-ins and side pots, the run-out, the showdown and the chips pushed. It is a mutable object, while
PlayTrace states are values, so every :meth:`HoldemState.apply` works on a copy. ``copy.deepcopy``
of a pokerkit state costs about 0.4 ms, more than a whole random hand, so :func:`clone` copies the
containers pokerkit mutates (lists, deques, sets and the lists inside them) and shares the immutable
rest (cards, operations, streets): about 15 µs. Likewise a new hand starts from a copy of a template
table whose blinds are already posted (pokerkit's ``create_state`` costs about 0.17 ms).

The deal is ours, not pokerkit's shuffle: :func:`fresh` puts the hand's nine cards (and three burn
cards) at the top of the deck, so pokerkit's automatic burning and board dealing deal exactly them.

Seats and pokerkit's players differ: heads-up, pokerkit's player 1 posts the small blind and is the
button, so the seat holding the button is player 1 and the other seat is player 0.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Sequence

from pokerkit import Automation, NoLimitTexasHoldem
from pokerkit import State as Table

from engine.games.holdem.cards import CODES, pk_card

__all__ = ["Table", "clone", "fresh", "player_of", "seat_of"]

_AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.BOARD_DEALING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
_MUTABLE = (list, deque, set, dict)


def player_of(seat: int, button: int) -> int:
    """pokerkit's player index of ``seat`` (the button is player 1)."""
    return 1 if seat == button else 0


def seat_of(player: int, button: int) -> int:
    """The seat of pokerkit's ``player``."""
    return button if player == 1 else 1 - button


@functools.lru_cache(maxsize=32)
def _template(stack: int, small_blind: int, big_blind: int) -> Table:
    """A table with the blinds posted, waiting for the hole cards (never mutated: only cloned)."""
    return NoLimitTexasHoldem.create_state(
        _AUTOMATIONS, True, 0, (small_blind, big_blind), big_blind, stack, 2
    )


def clone(table: Table) -> Table:
    """A copy of ``table`` that shares nothing pokerkit mutates (see the module's documentation)."""
    new = object.__new__(type(table))
    data = table.__dict__.copy()
    for key, value in data.items():
        kind = type(value)
        if kind is list or kind is deque:
            data[key] = kind([x.copy() if type(x) in _MUTABLE else x for x in value])
        elif kind is set or kind is dict:
            data[key] = value.copy()
    new.__dict__ = data
    return new


def fresh(stack: int, small_blind: int, big_blind: int, button: int, cards: Sequence[str]) -> Table:
    """A table with the hole cards of ``cards`` dealt (two per seat, seat 0 first) and its deck set
    so the board comes out as ``cards[4:9]``."""
    table = clone(_template(stack, small_blind, big_blind))
    used = set(cards)
    burns = [c for c in CODES if c not in used][:3]
    board = cards[4:9]
    order = [*cards[:4], burns[0], *board[:3], burns[1], board[3], burns[2], board[4]]
    table.deck_cards = deque(pk_card(c) for c in order)
    for seat in (0, 1):
        table.deal_hole((pk_card(cards[2 * seat]), pk_card(cards[2 * seat + 1])), player_of(seat, button))
    return table
