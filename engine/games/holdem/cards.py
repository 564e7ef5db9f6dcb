"""Cards for hold'em: codes, the names the views use, the seeded deal, pre-flop keys and hand ranks.

A card is a two-letter code as pokerkit writes it: the rank (``23456789TJQKA``, ``T`` for ten) then
the suit (``c d h s``), e.g. ``"As"``, ``"Th"``. People and models read it as GameBot does,
``"Spades A"`` / ``"Hearts 10"`` (:func:`card_name`), or as ``"A♠"`` (:func:`card_symbol`).

Hand evaluation is pokerkit's (:class:`pokerkit.StandardHighHand` and its lookup). GameBot's rank
scale (1 = royal flush … 10 = high card) is derived from pokerkit's hand label, with the royal flush
told apart from other straight flushes and the A-2-3-4-5 wheel counted as a straight, which the
paper's reference evaluator got wrong (see the spec's errata).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence

from pokerkit import Card, Label, StandardHighHand

from engine.games.holdem.preflop import PREFLOP_WIN

__all__ = [
    "CODES",
    "HAND_NAMES",
    "RANKS",
    "SUIT_NAMES",
    "SUIT_SYMBOLS",
    "best_five",
    "card_name",
    "card_symbol",
    "deal",
    "hand_rank",
    "hand_strength",
    "pk_card",
    "preflop_keys",
    "preflop_win",
    "rank_label",
    "rank_of_words",
]

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_NAMES = {"s": "Spades", "h": "Hearts", "d": "Diamonds", "c": "Clubs"}
SUIT_SYMBOLS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}
#: Every card code, clubs first, each suit from deuce to ace.
CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_PK: dict[str, Card] = {code: next(iter(Card.parse(code))) for code in CODES}

#: GameBot's hand ranks, best (1) to worst (10).
HAND_NAMES: dict[int, str] = {
    1: "Royal Flush",
    2: "Straight Flush",
    3: "Four of a Kind",
    4: "Full House",
    5: "Flush",
    6: "Straight",
    7: "Three of a Kind",
    8: "Two Pair",
    9: "One Pair",
    10: "High Card",
}
_RANK_OF_LABEL = {
    Label.STRAIGHT_FLUSH: 2,
    Label.FOUR_OF_A_KIND: 3,
    Label.FULL_HOUSE: 4,
    Label.FLUSH: 5,
    Label.STRAIGHT: 6,
    Label.THREE_OF_A_KIND: 7,
    Label.TWO_PAIR: 8,
    Label.ONE_PAIR: 9,
    Label.HIGH_CARD: 10,
}
_LOOKUP = StandardHighHand.lookup


def pk_card(code: str) -> Card:
    """pokerkit's card for a code (``"As"``)."""
    return _PK[code]


def rank_label(code: str) -> str:
    """The rank as GameBot prints it: ``A``, ``2``..``10``, ``J``, ``Q``, ``K``."""
    return "10" if code[0] == "T" else code[0]


def card_name(code: str) -> str:
    """``"As"`` → ``"Spades A"``, ``"Th"`` → ``"Hearts 10"`` (GameBot's ``<Suit> <Rank>``)."""
    return f"{SUIT_NAMES[code[1]]} {rank_label(code)}"


def card_symbol(code: str) -> str:
    """``"As"`` → ``"A♠"``."""
    return f"{rank_label(code)}{SUIT_SYMBOLS[code[1]]}"


def deal(seed: int) -> tuple[str, ...]:
    """The nine cards of the hand dealt from ``seed``: two per seat, then the five board cards."""
    deck = list(CODES)
    random.Random(f"holdem:{seed}").shuffle(deck)
    return tuple(deck[:9])


# -- pre-flop table ---------------------------------------------------------------------------------


def preflop_keys(hole: Sequence[str]) -> tuple[str, str]:
    """The table keys of two hole cards: the specific one (``"AKs"``, ``"72o"``, ``"QQ"``) and the
    generic one (``"AK"``, ``"72"``, ``"QQ"``)."""
    a, b = sorted(hole, key=lambda c: RANKS.index(c[0]), reverse=True)
    generic = a[0] + b[0]
    if a[0] == b[0]:
        return generic, generic
    return generic + ("s" if a[1] == b[1] else "o"), generic


def preflop_win(hole: Sequence[str]) -> float:
    """The table's win probability (percent) for two hole cards: the suited / offsuit entry when the
    table has one, otherwise the generic entry (the rule the cot prompt states)."""
    specific, generic = preflop_keys(hole)
    return PREFLOP_WIN.get(specific, PREFLOP_WIN[generic])


# -- hand ranks ---------------------------------------------------------------------------------------


def best_five(hole: Sequence[str], board: Sequence[str]) -> tuple[int, tuple[str, ...]]:
    """GameBot's rank (1-10) of the best five-card hand from ``hole`` and ``board`` (at least five
    cards in all), and those five cards as codes."""
    hand = StandardHighHand.from_game([_PK[c] for c in hole], [_PK[c] for c in board])
    codes = tuple(repr(c) for c in hand.cards)
    rank = _RANK_OF_LABEL[hand.entry.label]
    if rank == 2 and {c[0] for c in codes} == set("AKQJT"):
        rank = 1  # the ace-high straight flush; A-2-3-4-5 (the steel wheel) stays a straight flush
    return rank, codes


def hand_rank(hole: Sequence[str], board: Sequence[str]) -> int:
    """GameBot's rank (1 = royal flush … 10 = high card) of the best hand in ``hole`` + ``board``."""
    return best_five(hole, board)[0]


def rank_of_words(text: str) -> int | None:
    """The rank a hand's name stands for (``"two pair"`` → 8), or ``None``."""
    lowered = " ".join(text.lower().replace("-", " ").split())
    for rank in sorted(HAND_NAMES, key=lambda r: -len(HAND_NAMES[r])):
        if HAND_NAMES[rank].lower() in lowered:
            return rank
    return None


def _strength(cards: Sequence[Card]) -> int:
    """pokerkit's strength index of the best five of ``cards`` (higher is stronger)."""
    get = _LOOKUP.get_entry
    return max(get(five).index for five in itertools.combinations(cards, 5))


def hand_strength(
    hole: Sequence[str], board: Sequence[str], rng: random.Random, samples: int, dead: Iterable[str] = ()
) -> float:
    """The chance (0-1, ties counted half) that ``hole`` beats one random opponent hand once the board
    is complete: exact on the river, Monte Carlo over ``samples`` deals before it."""
    known = set(hole) | set(board) | set(dead)
    unseen = [_PK[c] for c in CODES if c not in known]
    mine = [_PK[c] for c in hole]
    shown = [_PK[c] for c in board]
    missing = 5 - len(shown)
    wins = 0.0
    if missing == 0:
        me = _strength(mine + shown)
        pairs = list(itertools.combinations(unseen, 2))
        for pair in pairs:
            them = _strength(list(pair) + shown)
            wins += 1.0 if me > them else 0.5 if me == them else 0.0
        return wins / len(pairs)
    for _ in range(samples):
        drawn = rng.sample(unseen, 2 + missing)
        full = shown + drawn[2:]
        me, them = _strength(mine + full), _strength(drawn[:2] + full)
        wins += 1.0 if me > them else 0.5 if me == them else 0.0
    return wins / samples
