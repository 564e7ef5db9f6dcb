"""Multi-hand matches (LMGame-Bench's Appendix G): which cards and which button each hand of a match
gets, the record of a finished hand, and the players' style over the hands.

A match of ``hands`` hands is one episode: every hand starts from equal stacks with fixed blinds (as
PettingZoo's no-limit environment, which LMGame-Bench adapts, resets its stacks every hand), the button
alternates, and a seat's match score is the sum of its chips won and lost. With ``mirrored`` every deal
is played twice: the second time each seat gets the hole cards the other seat had, and the button
moves with them, so both players meet every situation from both sides (the paper's mirrored seating).

The style metrics are the paper's: the aggression factor AF = (bets + raises) / calls, and the fold
rate FR = folds / hands. A check is not a call; every raise size (half pot, full pot, all in) is a bet
or a raise. With no calls at all the paper's ratio has no value; PlayTrace then reports bets + raises
(as if over one call), so a player who never calls still reads as aggressive. A player is tight when
FR >= 0.72, aggressive when AF >= 1 (both thresholds are arguments of :func:`style_label`).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

from engine.core import Action, Seat
from engine.games.holdem.cards import CODES, deal

__all__ = [
    "AGGRESSIVE_AF",
    "TIGHT_FR",
    "PastHand",
    "SeatStyle",
    "button_for_hand",
    "cards_for_hand",
    "style_label",
]

#: The paper's thresholds: tight when the fold rate is at least this.
TIGHT_FR = 0.72
#: Aggressive when the aggression factor is at least this.
AGGRESSIVE_AF = 1.0


def cards_for_hand(seed: int, hand: int, mirrored: bool) -> tuple[str, ...]:
    """The nine cards of hand ``hand`` (from 0) of the match dealt from ``seed``: the first deal is the
    single hand's deal (:func:`.cards.deal`); with ``mirrored``, odd hands repeat the deal before with
    the two seats' hole cards swapped."""
    index = hand // 2 if mirrored else hand
    if index == 0:
        cards = deal(seed)
    else:
        deck = list(CODES)
        random.Random(f"holdem:{seed}:{index}").shuffle(deck)
        cards = tuple(deck[:9])
    if mirrored and hand % 2:
        return cards[2:4] + cards[0:2] + cards[4:]
    return cards


def button_for_hand(first: Seat, hand: int) -> Seat:
    """The button of hand ``hand``: the first hand's, then alternating (so a mirrored replay of a deal
    gives each seat the other's position as well as its cards)."""
    return (first + hand) % 2


@dataclasses.dataclass(frozen=True, slots=True)
class PastHand:
    """A finished hand of the match.

    Attributes:
        button: Who held the button.
        cards: The nine cards as dealt (in a seat's view, the opponent's hole cards are ``None`` unless
            the hand went to a showdown, and the board cards never dealt are ``None``).
        history: The actions played.
        payoffs: Chips each seat won (negative: lost).
        actions: Every action as ``(seat, action, chips put in)``.
        showdown: Whether both hands were shown.
        board: How many board cards were dealt (0, 3, 4 or 5).
    """

    button: Seat
    cards: tuple[str | None, ...]
    history: tuple[Action, ...]
    payoffs: tuple[int, int]
    actions: tuple[tuple[Seat, Action, int], ...]
    showdown: bool
    board: int

    def seen_by(self, seat: Seat) -> PastHand:
        """This hand as ``seat`` may remember it: its own cards, the board cards dealt, and the
        opponent's cards only after a showdown."""
        cards = list(self.cards)
        if not self.showdown:
            other = 1 - seat
            cards[2 * other] = cards[2 * other + 1] = None
        for i in range(4 + self.board, 9):
            cards[i] = None
        return dataclasses.replace(self, cards=tuple(cards))


@dataclasses.dataclass(frozen=True, slots=True)
class SeatStyle:
    """One seat's betting over the hands of a match: the counts and the paper's two ratios."""

    hands: int
    bets_raises: int
    calls: int
    folds: int

    @property
    def aggression_factor(self) -> float:
        """(bets + raises) / calls; bets + raises when there was no call (see the module's notes)."""
        return self.bets_raises / self.calls if self.calls else float(self.bets_raises)

    @property
    def fold_rate(self) -> float:
        return self.folds / self.hands if self.hands else 0.0

    @property
    def label(self) -> str:
        return style_label(self.aggression_factor, self.fold_rate)

    @classmethod
    def count(
        cls, seat: Seat, hands: Sequence[Sequence[tuple[Seat, Action, int]]], fold: Action, call: Action
    ) -> SeatStyle:
        """``seat``'s style over ``hands`` (each a hand's ``(seat, action, chips)``), given the names of
        the fold and the check-or-call actions (every other action is a bet or a raise)."""
        bets = calls = folds = 0
        for actions in hands:
            for who, action, chips in actions:
                if who != seat:
                    continue
                if action == fold:
                    folds += 1
                elif action == call:
                    calls += chips > 0
                else:
                    bets += 1
        return cls(len(hands), bets, calls, folds)


def style_label(
    aggression_factor: float, fold_rate: float, tight: float = TIGHT_FR, aggressive: float = AGGRESSIVE_AF
) -> str:
    """The paper's four styles: ``TAG`` (tight-aggressive), ``TP`` (tight-passive), ``LAG``
    (loose-aggressive) or ``LP`` (loose-passive)."""
    tightness = "T" if fold_rate >= tight else "L"
    if aggression_factor >= aggressive:
        return f"{tightness}AG"
    return f"{tightness}P"
