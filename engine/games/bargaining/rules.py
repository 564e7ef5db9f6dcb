"""Bargaining (GameBot's negotiation game, after Lewis et al. 2017 "Deal or No Deal").

Two players split a pool of three item types (books, hats, balls). Each player values the items
privately, and the pool is worth 30 to each of them. Player1 (seat 0) proposes first and the players
alternate; on its turn a player either agrees to the opponent's latest proposal, which ends the game
with each player receiving the value of its share, or proposes a new division of the whole pool.
Eight rounds are always played; after round 8 each further round happens only with probability 0.8
(the game ends before it, without a deal, with probability 0.2). No deal gives 0 to both.

How PlayTrace reads GameBot where the paper leaves room (and where it does not follow GameBot's own
code, whose quirks are listed in the spec):

* a *round* is one player's turn, as in GameBot's history lines ``Round n Player1 proposes: ...``;
  the random stop is drawn after each proposal made in round 8 or later, so round 9 is reached with
  probability 0.8, round 10 with 0.64, and so on (options ``rounds_before_stop`` and
  ``stop_probability``); ``max_rounds`` caps a negotiation that the dice let run on;
* ``Agree`` is only legal when there is an opponent proposal to agree to. GameBot's code lets
  Player1 "accept" before any proposal and then scores (0, 15); here that is an illegal action;
* an answer that cannot be read as ``Agree`` or a division is a format error (GameBot's code
  treats it as ``Agree``), and a division whose shares do not add up to the pool is an illegal
  action (GameBot's code ends the game with −10 for the proposer): the harness re-asks in both cases.

Setup comes from the seed the state carries: the pool has 8 to 12 items, at least one of each type;
each player's values are non-negative integers with ``values · pool = 30``, drawn independently and
redrawn while both players value the same item at 0. The stop draws are derived from the same seed,
so the same seed and the same actions always give the same game.

A seat's view (:meth:`BargainingState.observe`) hides the opponent's values and the seed (the seed
would give the values away) until the game is over; then both values are shown.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from engine.agent.parse import last_match
from engine.controls import Amount, Button, Panel
from engine.core import (
    Action,
    Game,
    GameError,
    IllegalActionError,
    InvalidActionError,
    JsonDict,
    Seat,
    State,
    seats_of,
)
from engine.games._common import one_action, reading_state
from engine.options import Option

#: The item types, in the order of every count and value triple.
ITEMS: tuple[str, str, str] = ("books", "hats", "balls")
#: What the whole pool is worth to each player.
TOTAL_VALUE = 30
#: Half the pool's value: the line GameBot's prompt tells a player not to go below.
HALF_VALUE = TOTAL_VALUE // 2
#: How many items the pool holds, at least and at most.
MIN_ITEMS, MAX_ITEMS = 8, 12
AGREE: Action = "Agree"
SEAT_NAMES: tuple[str, str] = ("Player1", "Player2")
#: How the proposals name the seats: ``P1: (..), P2: (..)``.
SHORT_NAMES: tuple[str, str] = ("P1", "P2")
#: Why a game ended: an accepted proposal, the random stop, the ``max_rounds`` cap.
AGREED, STOPPED, CAPPED = "agreed", "stopped", "max_rounds"
ENDINGS = ("", AGREED, STOPPED, CAPPED)

DEFAULT_ROUNDS_BEFORE_STOP = 8
DEFAULT_STOP_PROBABILITY = 0.2
DEFAULT_MAX_ROUNDS = 40

Triple = tuple[int, int, int]


# -- the setup ---------------------------------------------------------------------------------------


def value_of(values: Sequence[int], share: Sequence[int]) -> int:
    """What ``share`` (counts per item) is worth under ``values``: GameBot's ground truth."""
    return sum(v * s for v, s in zip(values, share, strict=True))


@functools.cache
def value_vectors(pool: Triple) -> tuple[Triple, ...]:
    """Every non-negative integer value triple ``v`` with ``v · pool = 30``."""
    a, b, c = pool
    found = []
    for x in range(TOTAL_VALUE // a + 1):
        for y in range((TOTAL_VALUE - a * x) // b + 1):
            rest = TOTAL_VALUE - a * x - b * y
            if rest % c == 0:
                found.append((x, y, rest // c))
    return tuple(found)


def clash(first: Sequence[int], second: Sequence[int]) -> bool:
    """Whether both players value the same item at 0 (such a draw is redrawn)."""
    return any(x == 0 and y == 0 for x, y in zip(first, second, strict=True))


@functools.cache
def playable_pools() -> tuple[Triple, ...]:
    """Every pool the setup can draw: 8 to 12 items, each type at least once, and at least one pair
    of value triples that does not clash ((4, 4, 4) is the only pool left out: 4 does not divide 30)."""
    pools = []
    for total in range(MIN_ITEMS, MAX_ITEMS + 1):
        for a in range(1, total - 1):
            for b in range(1, total - a):
                pool = (a, b, total - a - b)
                vectors = value_vectors(pool)
                if any(not clash(u, w) for u in vectors for w in vectors):
                    pools.append(pool)
    return tuple(pools)


def setup(seed: int) -> tuple[Triple, tuple[Triple, Triple]]:
    """The pool and both players' values dealt from ``seed``.

    The total is drawn from 8..12, then the counts uniformly among the splits of that total with each
    type at least once; a pool no value triples fit is drawn again. Each player's values are drawn
    uniformly from :func:`value_vectors`, both again while they :func:`clash`.
    """
    rng = _rng(seed, "setup")
    while True:
        total = rng.randint(MIN_ITEMS, MAX_ITEMS)
        splits = [(a, b, total - a - b) for a in range(1, total - 1) for b in range(1, total - a)]
        pool = rng.choice(splits)
        if pool in playable_pools():
            break
    vectors = value_vectors(pool)
    while True:
        first, second = rng.choice(vectors), rng.choice(vectors)
        if not clash(first, second):
            return pool, (first, second)


def _rng(seed: int, tag: str) -> random.Random:
    # A string seed is hashed with SHA-512 by random.Random, independent of PYTHONHASHSEED.
    return random.Random(f"bargaining:{seed}:{tag}")


# -- actions -------------------------------------------------------------------------------------------


def division_action(first: Sequence[int], second: Sequence[int]) -> Action:
    """The canonical action for a division: ``"P1: (3, 3, 2), P2: (2, 1, 1)"``."""
    return f"P1: ({', '.join(map(str, first))}), P2: ({', '.join(map(str, second))})"


@functools.cache
def divisions(pool: Triple) -> tuple[Action, ...]:
    """Every division of ``pool`` as an action, ordered by Player1's share."""
    a, b, c = pool
    return tuple(
        division_action((x, y, z), (a - x, b - y, c - z))
        for x in range(a + 1)
        for y in range(b + 1)
        for z in range(c + 1)
    )


def action_bound() -> int:
    """The most legal actions a state can have: ``Agree`` plus every division of the largest pool."""
    return 1 + max((a + 1) * (b + 1) * (c + 1) for a, b, c in playable_pools())


_NUM3 = r"[\(\[\{]?\s*(\d+)\s*[,;\s]\s*(\d+)\s*[,;\s]\s*(\d+)\s*[\)\]\}]?"
#: A division as models write it: ``P1: (3,3,2), P2: (2,1,1)``, ``[P1: [3, 3, 2], P2: [2, 1, 1]]``,
#: ``Player1 (3 3 2) Player2 (2 1 1)``.
DIVISION = re.compile(
    r"(?<![a-z])(?:p|player)\s*1\s*[:=]?\s*"
    + _NUM3
    + r"\s*[,;]?\s*(?:and\s+)?(?<![a-z])(?:p|player)\s*2\s*[:=]?\s*"
    + _NUM3,
    re.IGNORECASE,
)
_AGREE = re.compile(r"(?<![\w'])(agree|accept)(?:s|ed)?(?!\w)", re.IGNORECASE)
_NEGATED = re.compile(r"(?:\bnot|n't|\bno|\bnever)\s+(?:\w+\s+)?$", re.IGNORECASE)


def read_division(text: str) -> tuple[Triple, Triple] | None:
    """The last division written in ``text`` as (Player1's share, Player2's share), or ``None``."""
    found = last_match(DIVISION, text)
    if found is None:
        return None
    numbers = [int(g) for g in found.groups()]
    return (numbers[0], numbers[1], numbers[2]), (numbers[3], numbers[4], numbers[5])


def says_agree(text: str) -> bool:
    """Whether ``text`` agrees ("Agree", "[Agree]", "I accept"), not counting "do not agree"."""
    for match in _AGREE.finditer(text):
        if not _NEGATED.search(text[: match.start()]):
            return True
    return False


def read_action(text: str) -> tuple[Triple, Triple] | str | None:
    """``text`` read as a division (two shares), as :data:`AGREE`, or ``None`` when it is neither.

    A division wins over the word "agree" in the same text (``"I don't agree: P1: ..."``).
    """
    division = read_division(text)
    if division is not None:
        return division
    return AGREE if says_agree(text) else None


# -- states ----------------------------------------------------------------------------------------------


def _not_your_turn(seat: Seat) -> str:
    return f"it is not {SEAT_NAMES[seat] if seat in (0, 1) else seat}'s turn"


@dataclasses.dataclass(frozen=True, slots=True)
class BargainingState(State):
    """A negotiation in progress, or a seat's view of one.

    Attributes:
        pool: how many books, hats and balls there are.
        values: each seat's value per item, ``None`` where the state is a seat's view that does not
            know them.
        offers: Player1's share in every proposal made so far, in order; Player2's share is the rest of
            the pool. Proposal ``i`` (from 0) was made by seat ``i % 2`` in round ``i + 1``.
        end: ``""`` while the game is on, else why it ended: ``"agreed"`` (the latest proposal was
            accepted), ``"stopped"`` (the random stop) or ``"max_rounds"`` (the cap).
        seed: what the setup and the stop draws come from; ``None`` in a seat's view.
        rounds_before_stop: rounds always played before the random stop can end the game.
        stop_probability: the chance the game ends before each later round.
        max_rounds: the most rounds a negotiation lasts.
    """

    game_id: ClassVar[str] = "bargaining"

    pool: Triple
    values: tuple[Triple | None, Triple | None]
    offers: tuple[Triple, ...] = ()
    end: str = ""
    seed: int | None = 0
    rounds_before_stop: int = DEFAULT_ROUNDS_BEFORE_STOP
    stop_probability: float = DEFAULT_STOP_PROBABILITY
    max_rounds: int = DEFAULT_MAX_ROUNDS

    # -- the course of the game ---------------------------------------------------------------------

    @property
    def items(self) -> tuple[str, str, str]:
        """The item names, in the order of the counts and values."""
        return ITEMS

    @property
    def seat_names(self) -> tuple[str, str]:
        return SEAT_NAMES

    @property
    def step(self) -> int:
        return len(self.offers) + (1 if self.end == AGREED else 0)

    @property
    def round(self) -> int:
        """The round being played (1-based); after the end, the last round played."""
        return len(self.offers) + (0 if self.end in (STOPPED, CAPPED) else 1)

    @property
    def to_act(self) -> tuple[Seat, ...]:
        return () if self.end else (len(self.offers) % 2,)

    def share(self, index: int, seat: Seat) -> Triple:
        """``seat``'s share in proposal ``index``."""
        first = self.offers[index]
        if seat == 0:
            return first
        a, b, c = self.pool
        return (a - first[0], b - first[1], c - first[2])

    def proposer(self, index: int) -> Seat:
        """Who made proposal ``index`` (Player1 makes the even ones)."""
        return index % 2

    def latest_from(self, seat: Seat) -> int | None:
        """The index of ``seat``'s latest proposal, or ``None`` when it has made none."""
        last = len(self.offers) - 1
        if last >= 0 and self.proposer(last) != seat:
            last -= 1
        return last if last >= 0 else None

    def opponent_offer(self, seat: Seat) -> int | None:
        """The index of the opponent's latest proposal to ``seat``, or ``None``."""
        return self.latest_from(1 - seat)

    def deal(self) -> tuple[Triple, Triple] | None:
        """Both seats' shares once a proposal was accepted, else ``None``."""
        if self.end != AGREED or not self.offers:
            return None
        last = len(self.offers) - 1
        return self.share(last, 0), self.share(last, 1)

    def value_for(self, seat: Seat, share: Sequence[int]) -> int | None:
        """What ``share`` is worth to ``seat``, or ``None`` when this view does not know its values."""
        values = self.values[seat]
        return None if values is None else value_of(values, share)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        to_act = self.to_act
        if not to_act or (seat is not None and seat not in to_act):
            return []
        every = list(divisions(self.pool))
        return [AGREE, *every] if self.offers else every

    def division_of(self, action: Action) -> tuple[Triple, Triple] | str:
        """``action`` read as :data:`AGREE` or two shares (checked against the pool only by ``apply``).

        Raises:
            InvalidActionError: it is neither.
        """
        if action == AGREE:
            return AGREE
        read = read_action(action)
        if read is None:
            raise InvalidActionError(
                f"{action!r} is not a bargaining action; answer Agree or a division such as "
                f"{division_action(self.pool, (0, 0, 0))}"
            )
        return read

    def check(self, read: tuple[Triple, Triple] | str) -> Action:
        """The canonical legal action for ``read`` (from :meth:`division_of`).

        Raises:
            IllegalActionError: the game is over, there is nothing to agree to, or the shares do not
                add up to the pool.
        """
        if self.end:
            raise IllegalActionError("the negotiation is over; no more proposals")
        if isinstance(read, str):  # the one text a division can be: AGREE
            if not self.offers:
                raise IllegalActionError("there is no proposal to agree to yet: make the first one")
            return AGREE
        first, second = read
        sums = [x + y for x, y in zip(first, second, strict=True)]
        if tuple(sums) != self.pool:
            what = ", ".join(
                f"{x} + {y} = {x + y} {item} (the pool has {n})"
                for x, y, n, item in zip(first, second, self.pool, ITEMS, strict=True)
                if x + y != n
            )
            raise IllegalActionError(f"the shares do not add up to the pool {_listed(self.pool)}: {what}")
        return division_action(first, second)

    def apply(self, action: Action | Mapping[Seat, Action]) -> BargainingState:
        outcomes = self._outcomes(action)
        if len(outcomes) == 1:
            return outcomes[0][1]
        if self.seed is None:
            raise GameError("a seat's view cannot be played forward: the stop draw needs the seed")
        stopped = _rng(self.seed, f"stop:{len(self.offers)}").random() < self.stop_probability
        return outcomes[0][1] if stopped else outcomes[1][1]

    def outcomes(self, action: Action | Mapping[Seat, Action]) -> list[tuple[float, State]]:
        """One outcome, or after a proposal from round ``rounds_before_stop`` on two: the game ends
        without a deal (``stop_probability``) or goes on."""
        return list(self._outcomes(action))

    def _outcomes(self, action: Action | Mapping[Seat, Action]) -> list[tuple[float, BargainingState]]:
        if isinstance(action, Mapping):
            action = one_action(action, "bargaining", self.to_act, _not_your_turn)
        if not isinstance(action, str):
            raise InvalidActionError(f"{action!r} is not a bargaining action")
        canonical = self.check(self.division_of(action))
        if canonical == AGREE:
            return [(1.0, dataclasses.replace(self, end=AGREED))]
        read = read_division(canonical)
        assert read is not None
        moved = dataclasses.replace(self, offers=(*self.offers, read[0]))
        played = len(moved.offers)
        if played >= self.max_rounds:
            return [(1.0, dataclasses.replace(moved, end=CAPPED))]
        p = self.stop_probability if played >= self.rounds_before_stop else 0.0
        if p <= 0.0:
            return [(1.0, moved)]
        if p >= 1.0:
            return [(1.0, dataclasses.replace(moved, end=STOPPED))]
        return [(p, dataclasses.replace(moved, end=STOPPED)), (1.0 - p, moved)]

    @property
    def scores(self) -> tuple[float, ...]:
        deal = self.deal()
        if deal is None:
            return (0.0, 0.0)
        return tuple(float(self.value_for(s, deal[s]) or 0) for s in (0, 1))

    @property
    def winner(self) -> Seat | None:
        """The seat that got more value from the deal (the game is not zero-sum: both may gain);
        ``None`` without a deal or when both got the same."""
        if self.deal() is None:
            return None
        first, second = self.scores
        return 0 if first > second else 1 if second > first else None

    def metrics(self) -> dict[str, float]:
        return {"rounds": float(len(self.offers)), "deal": 1.0 if self.end == AGREED else 0.0}

    # -- information ---------------------------------------------------------------------------------

    def observe(self, seat: Seat) -> State:
        """The state as ``seat`` knows it: the opponent's values and the seed hidden until the end."""
        if self.end or seat not in (0, 1):
            return self
        values = (self.values[0], None) if seat == 0 else (None, self.values[1])
        return dataclasses.replace(self, values=values, seed=None)

    def secrets(self, seat: Seat) -> frozenset[str]:
        """``seat``'s values as its text view writes them (``(Player1): [2, 5, 0]``) and as its JSON
        view holds them (``"Player1": [2, 5, 0]``), while the game is on."""
        values = self.values[seat] if seat in (0, 1) else None
        if self.end or values is None:
            return frozenset()
        return frozenset(
            {f"({SEAT_NAMES[seat]}): {_listed(values)}", f'"{SEAT_NAMES[seat]}": {_listed(values)}'}
        )

    # -- controls for people ---------------------------------------------------------------------------

    def panel(self, seat: Seat) -> Panel | None:
        """An amount per item (how many books you keep), the Propose button, and Accept."""
        if seat not in self.to_act:
            return None
        theirs = self.opponent_offer(seat)
        mine = self.latest_from(seat)
        start = mine if mine is not None else theirs
        default = self.share(start, seat) if start is not None else tuple((n + 1) // 2 for n in self.pool)
        amounts = tuple(
            Amount(item, item.capitalize(), 0, n, d)
            for item, n, d in zip(ITEMS, self.pool, default, strict=True)
        )
        offer_hint = ""
        if theirs is not None:
            worth = self.value_for(seat, self.share(theirs, seat))
            offer_hint = f"their latest proposal is worth {worth} to you" if worth is not None else ""

        def shares(picked: Mapping[str, int]) -> tuple[Triple, Triple]:
            kept = [
                max(0, min(n, int(picked.get(item, 0)))) for item, n in zip(ITEMS, self.pool, strict=True)
            ]
            mine_: Triple = (kept[0], kept[1], kept[2])
            other: Triple = (self.pool[0] - kept[0], self.pool[1] - kept[1], self.pool[2] - kept[2])
            return (mine_, other) if seat == 0 else (other, mine_)

        def compose(picked: Mapping[str, int]) -> Action:
            first, second = shares(picked)
            return division_action(first, second)

        def summary(picked: Mapping[str, int]) -> str:
            split = shares(picked)
            worth = self.value_for(seat, split[seat])
            given = ", ".join(f"{n} {item}" for n, item in zip(split[1 - seat], ITEMS, strict=True))
            kept = f"You keep items worth {worth} to you" if worth is not None else "You keep your share"
            return f"{kept}; {SEAT_NAMES[1 - seat]} gets {given}"

        accept = Button("Accept", AGREE, enabled=theirs is not None, hint=offer_hint)
        title = "Your proposal: how many of each you keep"
        return Panel(title, (accept,), amounts, "Propose", compose, summary)

    def annotate(self, action: Action, seat: Seat | None = None) -> str:
        """For a seat that knows its values: what accepting or proposing is worth to it, when that is
        under half the pool's value (the line GameBot's prompt draws)."""
        seat = self.to_act[0] if seat is None and self.to_act else seat
        if seat not in (0, 1) or self.values[seat] is None:
            return ""
        try:
            read = self.division_of(action)
        except GameError:
            return ""
        share: Triple | None
        if isinstance(read, str):  # AGREE
            index = self.opponent_offer(seat)
            share = self.share(index, seat) if index is not None else None
        else:
            share = read[seat]
        worth = self.value_for(seat, share) if share is not None else None
        if worth is None or worth >= HALF_VALUE:
            return ""
        return f"worth only {worth} of {TOTAL_VALUE} to you"

    # -- text views --------------------------------------------------------------------------------------

    def history_lines(self) -> list[str]:
        """GameBot's history: ``Round n Player1 proposes: P1 [3, 3, 2], P2 [2, 1, 1]``."""
        lines = []
        for i in range(len(self.offers)):
            first, second = self.share(i, 0), self.share(i, 1)
            lines.append(
                f"Round {i + 1} {SEAT_NAMES[self.proposer(i)]} proposes: "
                f"P1 {_listed(first)}, P2 {_listed(second)}"
            )
        if self.end == AGREED:
            accepter = len(self.offers) % 2
            lines.append(f"Round {len(self.offers) + 1} {SEAT_NAMES[accepter]} agrees.")
        return lines

    def status_text(self) -> str:
        if self.end == AGREED:
            first, second = self.scores
            known = self.values[0] is not None and self.values[1] is not None
            got = f" Player1 gets {first:g}, Player2 gets {second:g}." if known else ""
            return f"Deal: the latest proposal was accepted.{got}"
        if self.end == STOPPED:
            return (
                f"The game ended without a deal after round {len(self.offers)} (the random stop): 0 for both."
            )
        if self.end == CAPPED:
            return f"The game ended without a deal after {self.max_rounds} rounds: 0 for both."
        return f"Round {self.round}: {SEAT_NAMES[self.to_act[0]]} to act."

    def stop_text(self) -> str:
        """The random-stop rule as it stands now."""
        pct = f"{self.stop_probability * 100:g}%"
        if self.stop_probability <= 0:
            return f"The game ends without a deal after round {self.max_rounds}."
        if self.round <= self.rounds_before_stop:
            return (
                f"Rounds 1 to {self.rounds_before_stop} are always played; before each later round the "
                f"game ends without a deal with probability {pct}."
            )
        return f"Before each further round the game ends without a deal with probability {pct}."

    def text(self, seat: Seat | None = None) -> str:
        lines = []
        me = seat if seat in (0, 1) else None
        if me is not None:
            lines.append(f"You are {SEAT_NAMES[me]} (P{me + 1} in proposals).")
        lines.append(f"Items: {', '.join(ITEMS)}")
        lines.append(f"Pool: {_listed(self.pool)}")
        for s in (0, 1):
            values = self.values[s]
            if values is None:
                continue
            owner = "Your values" if s == me else "Opponent's values" if me is not None else "Values"
            lines.append(f"{owner} ({SEAT_NAMES[s]}): {_listed(values)}")
        lines.append("")
        lines.append("Bargaining history:")
        lines.extend(self.history_lines() or ["(no proposals yet)"])
        lines.append("")
        lines.append(self.status_text())
        if not self.end:
            lines.append(self.stop_text())
            mover = self.to_act[0]
            if me is not None and me != mover:
                lines.append(f"Waiting for {SEAT_NAMES[mover]}.")
                return "\n".join(lines)
            formats = 'a new division "P1: (a, b, c), P2: (d, e, f)"'
            if self.offers:
                accept = f"accept {SEAT_NAMES[1 - mover]}'s latest proposal"
                lines.append(
                    f'Legal answers: "Agree" ({accept}) or {formats}, '
                    "where the two shares of each item add up to the pool."
                )
            else:
                lines.append(
                    f"Legal answers: {formats}, where the two shares of each item add up to the pool "
                    "(there is no proposal to agree to yet)."
                )
        return "\n".join(lines)

    def notice(self, seat: Seat | None = None) -> str:
        if self.end or self.stop_probability <= 0 or self.round <= self.rounds_before_stop:
            return ""
        chance = f"{self.stop_probability:.0%}"
        return f"Round {self.round}: the game could have ended before this round ({chance} each round)"

    def to_json(self) -> JsonDict:
        values = {SEAT_NAMES[s]: list(v) for s, v in enumerate(self.values) if v is not None}
        return {
            "game": self.game_id,
            "pool": list(self.pool),
            "values": values,
            "offers": [list(o) for o in self.offers],
            "end": self.end,
            "seed": self.seed,
            "rounds_before_stop": self.rounds_before_stop,
            "stop_probability": self.stop_probability,
            "max_rounds": self.max_rounds,
        }


def _listed(numbers: Sequence[Any]) -> str:
    return "[" + ", ".join(str(n) for n in numbers) + "]"


_RULES = """\
* The game consists of two players, Player1 and Player2.
* In the pool there are three kinds of items: books, hats and balls. Each item has a different value
  for each player (unknown to the other player), but the items in the pool are worth 30 in total to
  each player.
* The players negotiate to share the items. Each player aims to maximise the total value of the items
  it receives.
* Player1 makes the first proposal; then the players take turns, one round each.
* At each round, the player either accepts the opponent's latest proposal or proposes a new division
  of the items. If the proposal is accepted, the game ends and the players receive the items according
  to it; each player is rewarded the total value of the items it receives.
* After {rounds} bargaining rounds, the game has a {stop} percent chance of ending at each round. If
  the game ends without an agreement, both players receive 0.
* A proposal divides the whole pool: for each kind of item, Player1's and Player2's numbers add up to
  the number in the pool."""


class Bargaining(Game):
    """Bargaining (GameBot): split a pool of items you value privately, before the game stops."""

    id: ClassVar[str] = "bargaining"
    title: ClassVar[str] = "Bargaining"
    suites: ClassVar[tuple[str, ...]] = ("gamebot",)
    description: ClassVar[str] = (
        "Deal or No Deal: split books, hats and balls you value privately; after round 8 each round "
        "may end the game without a deal."
    )
    seats = seats_of(list(SEAT_NAMES))
    chance: ClassVar[bool] = True
    perfect_information: ClassVar[bool] = False
    outcome: ClassVar[str] = "value"
    action_bound: int | None = 121
    controls: ClassVar[str] = "Set your share of each item and press Propose, or Accept their proposal"
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option(
            "rounds_before_stop",
            int,
            DEFAULT_ROUNDS_BEFORE_STOP,
            "Rounds always played before the random stop may end the game",
            minimum=0,
            maximum=100,
        ),
        Option(
            "stop_probability",
            float,
            DEFAULT_STOP_PROBABILITY,
            "Chance that the game ends without a deal before each later round",
            minimum=0.0,
            maximum=1.0,
        ),
        Option(
            "max_rounds",
            int,
            DEFAULT_MAX_ROUNDS,
            "The most rounds a negotiation lasts (then it ends without a deal)",
            minimum=1,
            maximum=500,
        ),
    )
    bots: ClassVar[Mapping[str, str]] = {"fair": ".bots:FairBot", "greedy": ".bots:GreedyBot"}
    default_opponent: ClassVar[str] = "fair"
    sim_behaviour: ClassVar[str | None] = ".sim:BargainingSim"
    questions: ClassVar[str | None] = ".questions:QUESTIONS"
    extractor: ClassVar[str | None] = ".answers:extract_proposal"
    default_prompt: ClassVar[str] = "cot"

    def initial_state(self, seed: int | None = None) -> BargainingState:
        if seed is None:
            # An unseeded game still carries a concrete seed, so its future is reproducible from the state.
            seed = random.SystemRandom().randrange(2**31)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"a bargaining seed is an integer, not {seed!r}")
        pool, values = setup(seed)
        return BargainingState(
            pool=pool,
            values=values,
            seed=seed,
            rounds_before_stop=self.options["rounds_before_stop"],
            stop_probability=self.options["stop_probability"],
            max_rounds=self.options["max_rounds"],
        )

    def rules_text(self) -> str:
        p = self.options["stop_probability"]
        return _RULES.format(rounds=self.options["rounds_before_stop"], stop=f"{p * 100:g}")

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read ``Agree`` or a division from ``"[Agree]"``, ``"Proposal: [P1: (3,3,2), P2: (2,1,1)]"``,
        ``"P1 [3, 3, 2], P2 [2, 1, 1]"`` and the like.

        Raises:
            InvalidActionError: the text is neither ``Agree`` nor a division.
            IllegalActionError: a division whose shares do not add up to the pool, ``Agree`` with no
                proposal to agree to, the game is over, or ``seat`` is not to act.
        """
        if not isinstance(state, BargainingState):
            raise InvalidActionError("not a bargaining state")
        read = read_action(text)
        if read is None:
            raise InvalidActionError(
                f"{text.strip()[:80]!r} is neither Agree nor a division such as "
                f"{division_action(state.pool, (0, 0, 0))}"
            )
        action = state.check(read)
        if seat is not None and seat not in state.to_act:
            raise IllegalActionError(f"it is not {SEAT_NAMES[seat] if seat in (0, 1) else seat}'s turn")
        return action

    def state_from_json(self, data: JsonDict) -> BargainingState:
        with reading_state(data, self.id, "bargaining"):
            pool = _triple(data["pool"], "pool", minimum=1)
            raw = data["values"]
            if not isinstance(raw, Mapping) or not set(raw) <= set(SEAT_NAMES):
                raise ValueError("values must map Player1 / Player2 to value triples")
            values = tuple(
                _triple(raw[name], f"{name}'s values") if name in raw else None for name in SEAT_NAMES
            )
            for v in values:
                if v is not None and value_of(v, pool) != TOTAL_VALUE:
                    raise ValueError(
                        f"values {list(v)} are not worth {TOTAL_VALUE} for the pool {list(pool)}"
                    )
            offers = data["offers"]
            if not isinstance(offers, list):
                raise ValueError("offers must be a list")
            shares = tuple(_triple(o, "an offer") for o in offers)
            if any(x > n for o in shares for x, n in zip(o, pool, strict=True)):
                raise ValueError("an offer gives Player1 more items than the pool holds")
            end = data["end"]
            if end not in ENDINGS or (end == AGREED and not shares):
                raise ValueError(f"end {end!r} is not one of {', '.join(map(repr, ENDINGS))}")
            seed = data["seed"]
            if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
                raise ValueError("seed must be an integer or null")
            rounds = data["rounds_before_stop"]
            p = data["stop_probability"]
            cap = data["max_rounds"]
            if not isinstance(rounds, int) or not isinstance(cap, int) or not isinstance(p, int | float):
                raise ValueError("rounds_before_stop, max_rounds and stop_probability must be numbers")
        return BargainingState(
            pool=pool,
            values=(values[0], values[1]),
            offers=shares,
            end=end,
            seed=seed,
            rounds_before_stop=rounds,
            stop_probability=float(p),
            max_rounds=cap,
        )


def _triple(raw: Any, what: str, minimum: int = 0) -> Triple:
    if (
        not isinstance(raw, list | tuple)
        or len(raw) != 3
        or not all(isinstance(x, int) and not isinstance(x, bool) and x >= minimum for x in raw)
    ):
        raise ValueError(f"{what} must be three integers of at least {minimum}")
    return (raw[0], raw[1], raw[2])
