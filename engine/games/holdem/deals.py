"""The deals a hold'em action can lead to, listed lazily (``HoldemState.outcomes``)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import Any

from engine.core import State
from engine.games.holdem.cards import CODES

__all__ = ["Deals"]


class Deals(Sequence[tuple[float, State]]):
    """Every deal an action that ends a betting round can lead to, each equally likely.

    The full state knows the deck (it was dealt from the seed), but the cards still to come are a
    uniform draw from the cards nobody has seen, so the honest distribution is uniform over those
    draws: C(45, 1) = 45 turns or rivers, C(48, 3) = 17,296 flops, C(48, 5) = 1,712,304 run-outs when
    both players are all in before the flop. Listing a million states eagerly would cost seconds and
    gigabytes, so this sequence makes them on demand (``len``, indexing and iteration all work);
    each is a light state that rebuilds its table only if it is asked something. The first entry is
    the deal :meth:`HoldemState.apply` made, so a search that stops at the actual outcome stops at once.

    A listed state is the hand with the drawn cards in the newly dealt places; a later board card that
    collides with a drawn one is swapped for a card the draw displaced, so every state is a complete,
    consistent deal.
    """

    def __init__(self, before: Any, after: Any, dealt: int) -> None:
        self._after = after
        self._start = 4 + before.facts().board
        self._dealt = dealt
        seen = set(after.cards[: self._start])
        self._unseen = [c for c in CODES if c not in seen]
        self._actual = frozenset(after.cards[self._start : self._start + dealt])
        self._count = math.comb(len(self._unseen), dealt)
        self._p = 1.0 / self._count
        self._actual_rank = _rank(len(self._unseen), sorted(self._unseen.index(c) for c in self._actual))

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        if index == 0:
            return (self._p, self._after)
        # Entry i > 0 is the (i - 1)-th combination in lexicographic order, the actual one left out.
        rank = index - 1
        if rank >= self._actual_rank:
            rank += 1
        combo = _unrank(len(self._unseen), self._dealt, rank)
        return (self._p, self._state(tuple(self._unseen[i] for i in combo)))

    def __iter__(self) -> Iterator[tuple[float, State]]:
        p, after, actual = self._p, self._after, self._actual
        yield (p, after)
        draws = itertools.combinations(self._unseen, self._dealt)
        if self._start + self._dealt < 9:
            for drawn in draws:
                if not actual.issuperset(drawn):
                    yield (p, self._state(drawn))
            return
        # The draw completes the board (turn, river, run-outs): nothing later can collide.
        head = after.cards[: self._start]
        for drawn in draws:
            if not actual.issuperset(drawn):
                yield (p, after.with_cards(head + drawn))

    def _state(self, drawn: Sequence[str]) -> Any:
        after = self._after
        cards = list(after.cards)
        start, end = self._start, self._start + self._dealt
        displaced = [c for c in cards[start:end] if c not in drawn]
        cards[start:end] = drawn
        for i in range(end, 9):
            if cards[i] in drawn:
                cards[i] = displaced.pop()
        return after.with_cards(tuple(cards))


def _unrank(n: int, k: int, rank: int) -> tuple[int, ...]:
    """The ``rank``-th ``k``-combination of ``range(n)`` in lexicographic order."""
    out: list[int] = []
    start = 0
    for left in range(k, 0, -1):
        for i in range(start, n):
            count = math.comb(n - i - 1, left - 1)
            if rank < count:
                out.append(i)
                start = i + 1
                break
            rank -= count
    return tuple(out)


def _rank(n: int, k_combo: Sequence[int]) -> int:
    """The lexicographic rank of the sorted combination ``k_combo`` of ``range(n)``."""
    rank, start, k = 0, 0, len(k_combo)
    for j, value in enumerate(k_combo):
        for i in range(start, value):
            rank += math.comb(n - i - 1, k - j - 1)
        start = value + 1
    return rank
