"""Heads-up no-limit Texas Hold'em, as GameBot plays it: one hand, 100 chips each, blinds 1/2.

The rules, the betting and the showdown are pokerkit's (see :mod:`.table`); this module turns them
into PlayTrace's contract. GameBot's five actions (PettingZoo's no-limit action set) are the only
actions: ``Fold``, ``Check and Call``, ``Raise Half Pot``, ``Raise Full Pot`` and ``All in``.

* **Raises.** A pot-sized raise raises by the pot after calling (pokerkit's pot-limit amount); a
  half-pot raise by half of it (rounded down), and never less than the minimum raise. A raise is
  offered only when it leaves chips behind (otherwise ``All in`` is the same bet), and a half-pot raise
  only when it is smaller than the pot-sized one.
* **Fold** is offered only when facing a bet (with nothing to call, pokerkit refuses it: check).
* **The button** posts the small blind, acts first before the flop and last after it. By default the
  first seat holds it (a tournament swaps seats between matches); ``button="seed"`` alternates with
  the seed.
* **The deal** is nine cards drawn from the seed (:func:`.cards.deal`): two per seat, then the board.
* **Scores** are the chips won or lost (0 until the hand ends); :meth:`Holdem.outcome_value` is the
  same, GameBot's value-based outcome.
* **Matches.** With ``hands`` above 1 the episode is a match of that many hands (LMGame-Bench's
  Appendix G: 40), each from equal stacks with the button alternating, and ``mirrored`` plays every
  deal twice with the seats' cards and positions swapped (:mod:`.match`). The scores are the chips won
  over the match; the state's metrics hold each seat's aggression factor and fold rate.
* **Privacy.** :meth:`HoldemState.observe` masks the opponent's hole cards and the undealt board; at a
  showdown both hands are shown, as in real poker. A hand won by a fold shows neither.

A state is a value: the options, the button, the nine cards, the actions so far and (for a seat's
view) the viewer. It keeps pokerkit's table as a private cache, never mutated once built: ``apply``
works on a copy. A state made without its table (read from JSON, or listed by :meth:`outcomes`)
rebuilds it by replaying the actions.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypedDict

from engine.controls import Amount, Button, Panel
from engine.core import (
    Action,
    Game,
    GameError,
    IllegalActionError,
    InvalidActionError,
    JsonDict,
    Seat,
    SeatInfo,
    State,
)
from engine.games._common import one_action, reading_state
from engine.games.holdem.cards import CODES, HAND_NAMES, best_five, card_name, card_symbol, deal
from engine.games.holdem.deals import Deals
from engine.games.holdem.match import PastHand, SeatStyle, button_for_hand, cards_for_hand
from engine.games.holdem.table import Table, clone, fresh, player_of, seat_of
from engine.options import Option, OptionError

__all__ = [
    "ACTIONS",
    "ALL_IN",
    "CALL",
    "FOLD",
    "HALF_POT",
    "POT",
    "SEAT_NAMES",
    "STREETS",
    "Holdem",
    "HoldemState",
    "Step",
    "canonical_action",
]

ACTIONS: tuple[Action, ...] = ("Fold", "Check and Call", "Raise Half Pot", "Raise Full Pot", "All in")
FOLD, CALL, HALF_POT, POT, ALL_IN = ACTIONS
RAISES = (HALF_POT, POT, ALL_IN)
STREETS = ("Pre-flop", "Flop", "Turn", "River")
SEAT_NAMES = ("Player 1", "Player 2")
_STREET_OF_BOARD = {0: 0, 3: 1, 4: 2, 5: 3}

_ALIASES = {
    "fold": FOLD,
    "check": CALL,
    "call": CALL,
    "check and call": CALL,
    "check/call": CALL,
    "check or call": CALL,
    "raise half pot": HALF_POT,
    "half pot": HALF_POT,
    "raise half": HALF_POT,
    "bet half pot": HALF_POT,
    "raise full pot": POT,
    "raise pot": POT,
    "full pot": POT,
    "pot": POT,
    "bet pot": POT,
    "bet full pot": POT,
    "all in": ALL_IN,
    "all-in": ALL_IN,
    "allin": ALL_IN,
    "shove": ALL_IN,
}


def canonical_action(text: str) -> Action | None:
    """The action ``text`` names (``"check"``, ``"Raise pot"``, ``"ALL-IN"``), or ``None``."""
    cleaned = " ".join(text.strip().strip(".*`'\"[]()").lower().replace("_", " ").split())
    if cleaned in _ALIASES:
        return _ALIASES[cleaned]
    return _ALIASES.get(cleaned.replace("-", " "))


@dataclasses.dataclass(frozen=True, slots=True)
class Step:
    """One action of the hand: who, what, on which street, the chips it put in, and every seat's
    total in the pot afterwards."""

    seat: Seat
    action: Action
    street: int
    chips: int
    put_in: tuple[int, int]

    def describe(self) -> str:
        """``"Raise Full Pot (puts in 6)"``, ``"Check"``, ``"Call 4"``, ``"Fold"``."""
        if self.action == CALL:
            return f"Call {self.chips}" if self.chips else "Check"
        if self.action == FOLD:
            return FOLD
        return f"{self.action} (puts in {self.chips})"


class _Match(TypedDict, total=False):
    """A state's match fields (see :class:`HoldemState`); none for a single hand read from JSON."""

    hands: int
    hand: int
    deal_seed: int | None
    mirrored: bool
    past: tuple[PastHand, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class _Facts:
    """What the table says about a state, computed once (the state's every query reads these)."""

    to_act: tuple[Seat, ...]
    legal: tuple[Action, ...]
    #: The total bet this round each raise makes.
    raise_to: Mapping[Action, int]
    call: int
    stacks: tuple[int, int]
    bets: tuple[int, int]
    board: int
    payoffs: tuple[int, int]


@dataclasses.dataclass(frozen=True, slots=True)
class HoldemState(State):
    """A hand of heads-up no-limit hold'em (see the module's documentation).

    Attributes:
        stack: Every seat's starting stack.
        small_blind: The small blind (posted by the button).
        big_blind: The big blind.
        button: The seat holding the dealer button.
        cards: Nine card codes: seat 0's two hole cards, seat 1's two, then the five board cards in
            the order they are dealt. In a seat's view, what that seat cannot see is ``None``.
        history: The actions played so far.
        viewer: ``None`` for the full state; the seat whose view this is otherwise.
        hands: The hands of the match (1: GameBot's single hand).
        hand: This hand's index in the match (from 0).
        deal_seed: The seed the match's deals come from (``None`` in a seat's view: it would tell the
            cards to come).
        mirrored: Whether every deal is played twice with the seats swapped.
        past: The match's finished hands (in a seat's view, as that seat saw them).
    """

    game_id: ClassVar[str] = "holdem"
    #: The seats' names, for views and the renderer.
    seat_names: ClassVar[tuple[str, str]] = SEAT_NAMES

    stack: int
    small_blind: int
    big_blind: int
    button: Seat
    cards: tuple[str | None, ...]
    history: tuple[Action, ...] = ()
    viewer: Seat | None = None
    _table: Table | None = dataclasses.field(default=None, compare=False, repr=False)
    _log: tuple[Step, ...] | None = dataclasses.field(default=None, compare=False, repr=False)
    _facts: _Facts | None = dataclasses.field(default=None, compare=False, repr=False)
    hands: int = 1
    hand: int = 0
    deal_seed: int | None = dataclasses.field(default=None, repr=False)
    mirrored: bool = False
    past: tuple[PastHand, ...] = dataclasses.field(default=(), repr=False)

    def _match(self) -> _Match:
        """The match fields, for a state of the same match."""
        return {
            "hands": self.hands,
            "hand": self.hand,
            "deal_seed": self.deal_seed,
            "mirrored": self.mirrored,
            "past": self.past,
        }

    def with_cards(self, cards: tuple[str | None, ...]) -> HoldemState:
        """This state with other cards (the same actions and match): a chance outcome."""
        return HoldemState(
            self.stack, self.small_blind, self.big_blind, self.button, cards, self.history, self.viewer,
            **self._match(),
        )  # fmt: skip

    @property
    def first_button(self) -> Seat:
        """The button of the match's first hand."""
        return (self.button - self.hand) % 2

    def _next_hand(self) -> HoldemState:
        """The next hand of the match, this finished one recorded."""
        if self.deal_seed is None:
            raise GameError("a seat's view of a hold'em match cannot deal the next hand")
        record = PastHand(
            self.button,
            self.cards,
            self.history,
            self.facts().payoffs,
            tuple((step.seat, step.action, step.chips) for step in self.log),
            self.showdown,
            self.facts().board,
        )
        hand = self.hand + 1
        return HoldemState(
            self.stack, self.small_blind, self.big_blind, button_for_hand(self.first_button, hand),
            cards_for_hand(self.deal_seed, hand, self.mirrored), (), None, None, None, None,
            self.hands, hand, self.deal_seed, self.mirrored, (*self.past, record),
        )  # fmt: skip

    # -- the table behind the state -----------------------------------------------------------------

    def _replayed(self) -> tuple[Table, tuple[Step, ...]]:
        """Build the table and the log by replaying the actions (a view's hidden cards are replaced
        by unseen ones: betting never depends on them, and a showdown shows them)."""
        known = [c for c in self.cards if c is not None]
        spare = iter(c for c in CODES if c not in known)
        cards = tuple(c if c is not None else next(spare) for c in self.cards)
        table = fresh(self.stack, self.small_blind, self.big_blind, self.button, cards)
        log: tuple[Step, ...] = ()
        for action in self.history:
            facts = _read(table, self, log)
            if action not in facts.legal:
                raise ValueError(f"{action!r} is not legal after {len(log)} actions")
            step = _perform(table, facts, action, log, self)
            log = (*log, step)
        return table, log

    def table(self) -> Table:
        """pokerkit's table for this state (built on first use; never mutated, copy before changing)."""
        table = self._table
        if table is None:
            if self.viewer is not None:
                raise GameError("a seat's view of a hold'em hand has no table: the deck is hidden")
            table, log = self._replayed()
            object.__setattr__(self, "_table", table)
            if self._log is None:
                object.__setattr__(self, "_log", log)
        return table

    @property
    def log(self) -> tuple[Step, ...]:
        """Every action so far with its seat, street and chips."""
        log = self._log
        if log is None:
            if self.viewer is None:
                self.table()  # replays and caches the log with the table
                log = self._log
                assert log is not None
            else:
                table, log = self._replayed()
                object.__setattr__(self, "_log", log)
                object.__setattr__(self, "_facts", _read(table, self, log))
        return log

    def facts(self) -> _Facts:
        facts = self._facts
        if facts is None:
            if self.viewer is None:
                facts = _read(self.table(), self, self.log)
                object.__setattr__(self, "_facts", facts)
            else:
                self.log  # noqa: B018  (a view computes its facts while replaying)
                facts = self._facts
                assert facts is not None
        return facts

    # -- the contract ----------------------------------------------------------------------------------

    @property
    def to_act(self) -> tuple[Seat, ...]:
        return self.facts().to_act

    @property
    def step(self) -> int:
        return sum(len(p.history) for p in self.past) + len(self.history)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        facts = self.facts()
        if not facts.to_act or (seat is not None and seat not in facts.to_act):
            return []
        return list(facts.legal)

    def apply(self, action: Action | Mapping[Seat, Action]) -> HoldemState:
        if isinstance(action, Mapping):
            action = one_action(action, "hold'em", self.to_act, "seat {seat} is not to act")
        if not isinstance(action, str) or action not in ACTIONS:
            raise InvalidActionError(f"{action!r} is not a hold'em action; actions: {', '.join(ACTIONS)}")
        if self.viewer is not None:
            raise GameError("a seat's view of a hold'em hand cannot be played forward: the deck is hidden")
        facts = self.facts()
        if not facts.to_act:
            raise IllegalActionError(f"the hand is over; {action!r} cannot be played")
        if action not in facts.legal:
            raise IllegalActionError(f"{action!r} is not legal here; legal: {', '.join(facts.legal)}")
        table = clone(self.table())
        step = _perform(table, facts, action, self.log, self)
        after = HoldemState(
            self.stack, self.small_blind, self.big_blind, self.button, self.cards,
            (*self.history, action), None, table, (*self.log, step), None, **self._match(),
        )  # fmt: skip
        if self.hand + 1 < self.hands and not after.facts().to_act:
            return after._next_hand()
        return after

    def outcomes(self, action: Action | Mapping[Seat, Action]) -> Sequence[tuple[float, State]]:
        """The deals ``action`` can lead to, each equally likely (see :class:`Deals`)."""
        after = self.apply(action)
        dealt = after.facts().board - self.facts().board
        if dealt == 0 or after.hand != self.hand:
            return [(1.0, after)]
        return Deals(self, after, dealt)

    @property
    def scores(self) -> tuple[float, ...]:
        """The chips each seat has won (negative: lost): in this hand, or over the match so far."""
        payoffs = self.facts().payoffs
        return tuple(float(payoffs[s] + sum(p.payoffs[s] for p in self.past)) for s in (0, 1))

    @property
    def winner(self) -> Seat | None:
        if not self.is_over:
            return None
        a, b = self.scores
        return 0 if a > b else 1 if b > a else None

    # -- public facts the views, bots and the renderer read ------------------------------------------

    @property
    def street(self) -> int:
        """0 pre-flop, 1 flop, 2 turn, 3 river (the last street reached once the hand is over)."""
        return _STREET_OF_BOARD[self.facts().board]

    @property
    def street_name(self) -> str:
        return STREETS[self.street]

    @property
    def board(self) -> tuple[str, ...]:
        """The community cards dealt so far."""
        return tuple(c for c in self.cards[4 : 4 + self.facts().board] if c is not None)

    def hole(self, seat: Seat) -> tuple[str, ...] | None:
        """``seat``'s two hole cards, or ``None`` when this view cannot see them."""
        pair = self.cards[2 * seat : 2 * seat + 2]
        return None if None in pair else tuple(c for c in pair if c is not None)

    @property
    def stacks(self) -> tuple[int, int]:
        """Chips each seat has behind (after the hand: its final stack)."""
        return self.facts().stacks

    @property
    def bets(self) -> tuple[int, int]:
        """Chips each seat has bet on the current street."""
        return self.facts().bets

    @property
    def put_in(self) -> tuple[int, int]:
        """Chips each seat has put in the pot during the hand (blinds included)."""
        log = self.log
        return log[-1].put_in if log else self._blinds()

    @property
    def pot(self) -> int:
        return sum(self.put_in)

    @property
    def to_call(self) -> int:
        """What the seat to act must put in to call (0: it may check)."""
        return self.facts().call

    def raise_to(self, action: Action) -> int | None:
        """The total bet this street after the raise ``action``, when it is legal."""
        return self.facts().raise_to.get(action)

    def chips_for(self, action: Action) -> int:
        """The chips the seat to act puts in with ``action``."""
        facts = self.facts()
        if not facts.to_act:
            return 0
        seat = facts.to_act[0]
        if action == CALL:
            return min(facts.call, facts.stacks[seat])
        if action in facts.raise_to:
            return facts.raise_to[action] - facts.bets[seat]
        return 0

    @property
    def folded(self) -> Seat | None:
        """The seat that folded, if the hand ended that way."""
        log = self.log
        return log[-1].seat if log and log[-1].action == FOLD else None

    @property
    def showdown(self) -> bool:
        """Whether the hand ended with both hands shown."""
        return self.is_over and self.folded is None

    @property
    def last_action(self) -> str | None:
        """``"Player 1: Raise Full Pot (puts in 6)"`` for the last action, or ``None``."""
        log = self.log
        return f"{SEAT_NAMES[log[-1].seat]}: {log[-1].describe()}" if log else None

    def hand_name(self, seat: Seat) -> str | None:
        """The name of ``seat``'s best hand (``"Two Pair"``) once the flop is out and its cards are
        visible here, else ``None``."""
        hole = self.hole(seat)
        if hole is None or len(self.board) < 3:
            return None
        return HAND_NAMES[best_five(hole, self.board)[0]]

    def _blinds(self) -> tuple[int, int]:
        small = min(self.small_blind, self.stack)
        big = min(self.big_blind, self.stack)
        return (small, big) if self.button == 0 else (big, small)

    # -- information -----------------------------------------------------------------------------------

    def observe(self, seat: Seat) -> HoldemState:
        if self.viewer == seat:
            return self
        past = tuple(p.seen_by(seat) for p in self.past)
        facts = self.facts()
        log = self.log
        cards = list(self.cards)
        if not self.showdown:
            cards[2 * (1 - seat)] = cards[2 * (1 - seat) + 1] = None
        for i in range(4 + facts.board, 9):
            cards[i] = None
        return HoldemState(
            self.stack, self.small_blind, self.big_blind, self.button, tuple(cards),
            self.history, seat, None, log, facts, self.hands, self.hand, None, self.mirrored, past,
        )  # fmt: skip

    def secrets(self, seat: Seat) -> frozenset[str]:
        """The words naming ``seat``'s hole cards (GameBot's ``Spades A``, ``A♠`` and the code ``As``),
        until a showdown shows them."""
        hole = self.hole(seat)
        if hole is None or self.showdown:
            return frozenset()
        return frozenset(w for c in hole for w in (card_name(c), card_symbol(c), c))

    def metrics(self) -> dict[str, float]:
        """The hand's pot, street and showdown; the match's hands and each seat's chips; and each seat's
        style over the finished hands (LMGame-Bench's aggression factor and fold rate, with counts)."""
        out = {"pot": float(self.pot), "street": float(self.street), "showdown": float(self.showdown)}
        hands = [p.actions for p in self.past]
        if self.is_over:
            hands.append(tuple((step.seat, step.action, step.chips) for step in self.log))
        out["hands_played"] = float(len(hands))
        for seat in (0, 1):
            style = SeatStyle.count(seat, hands, FOLD, CALL)
            tag = f"p{seat + 1}"
            out[f"chips_{tag}"] = self.scores[seat]
            out[f"aggression_factor_{tag}"] = round(style.aggression_factor, 6)
            out[f"fold_rate_{tag}"] = round(style.fold_rate, 6)
            out[f"bets_raises_{tag}"] = float(style.bets_raises)
            out[f"calls_{tag}"] = float(style.calls)
            out[f"folds_{tag}"] = float(style.folds)
        return out

    def styles(self) -> tuple[SeatStyle, SeatStyle]:
        """Each seat's style over the finished hands of the match."""
        hands = [p.actions for p in self.past]
        if self.is_over:
            hands.append(tuple((step.seat, step.action, step.chips) for step in self.log))
        return (SeatStyle.count(0, hands, FOLD, CALL), SeatStyle.count(1, hands, FOLD, CALL))

    # -- the match, in words ------------------------------------------------------------------------------

    @property
    def match_line(self) -> str | None:
        """``"Hand 4 of 40 (deal 2, swapped) · Player 1 +12 · Player 2 -12"`` in a match, else ``None``."""
        if self.hands == 1:
            return None
        swapped = ", swapped" if self.hand % 2 else ""
        pair = f" (deal {self.hand // 2 + 1}{swapped})" if self.mirrored else ""
        chips = " \u00b7 ".join(f"{SEAT_NAMES[s]} {int(self.scores[s]):+d}" for s in (0, 1))
        return f"Hand {self.hand + 1} of {self.hands}{pair} \u00b7 {chips}"

    @property
    def last_hand(self) -> str | None:
        """How the match's previous hand went, as this view's seat saw it (``None`` before it)."""
        if not self.past:
            return None
        past, seat = self.past[-1], self.viewer
        names = SEAT_NAMES if seat is None else tuple("you" if s == seat else "your opponent" for s in (0, 1))
        winner = next((s for s in (0, 1) if past.payoffs[s] > 0), None)
        how = "fold" if not past.showdown else "showdown"
        if winner is None:
            return f"Hand {len(self.past)}: {how}, split pot"
        return f"Hand {len(self.past)}: {how}, {names[winner]} won {past.payoffs[winner]} chips"

    def _match_lines(self, seat: Seat | None) -> list[str]:
        """The match's header for a text view: which hand, the chips so far, how the last hand went."""
        if self.hands == 1:
            return []
        pair = ""
        if self.mirrored:
            replay = "the second playing, seats swapped" if self.hand % 2 else "the first playing"
            pair = f" (deal {self.hand // 2 + 1}, {replay})"
        before = [sum(p.payoffs[s] for p in self.past) for s in (0, 1)]
        if seat is None:
            so_far = ", ".join(f"{SEAT_NAMES[s]} {before[s]:+d}" for s in (0, 1))
        else:
            so_far = f"you {before[seat]:+d} chips, your opponent {before[1 - seat]:+d}"
        lines = [
            f"Match: hand {self.hand + 1} of {self.hands}{pair}. Every hand starts from {self.stack} "
            f"chips each. Chips won over the earlier hands: {so_far}."
        ]
        if self.past:
            lines.append(f"Last hand: {_past_text(self.past[-1], seat)}")
        return lines

    # -- text views ------------------------------------------------------------------------------------

    def _me(self, seat: Seat | None) -> Seat | None:
        return self.viewer if seat is None else seat

    def text(self, seat: Seat | None = None) -> str:
        """GameBot's state prompt for ``seat`` (its own cards only), or a spectator's summary."""
        seat = self._me(seat)
        if seat is None:
            return self._spectator_text()
        them = 1 - seat
        hole = self.hole(seat)
        mine = ", ".join(card_name(c) for c in hole) if hole else "hidden"
        board = ", ".join(card_name(c) for c in self.board)
        lines = [
            *self._match_lines(seat),
            f"Current round is {self.street_name}",
            f"The cards in your hands is [{mine}]",
            f"The community cards is [{board}]",
            f"You now have {self.stacks[seat]} chips. You has put in the pot {self.put_in[seat]} chips. "
            f"Your opponent has put in the pot {self.put_in[them]} chips.",
            f"The pot {'was' if self.is_over else 'holds'} {self.pot} chips. "
            f"Your opponent has {self.stacks[them]} chips behind.",
            self._position(seat),
        ]
        history = self._history_text(seat)
        if history:
            lines.append(f"Actions so far: {history}")
        if self.is_over:
            lines.append(self._result_text(seat))
        elif seat in self.to_act:
            legal = self.legal_actions(seat)
            lines.append(f"You can choose one of the following actions: [ {', '.join(legal)} ]")
            lines.append("What they do: " + "; ".join(f"{a}: {self._effect(a)}" for a in legal) + ".")
        else:
            lines.append("Your opponent is to act.")
        return "\n".join(lines)

    def _position(self, seat: Seat) -> str:
        if seat == self.button:
            return (
                f"You are the dealer (small blind {self.small_blind}): you act first before the flop "
                "and last after it."
            )
        return f"You are the big blind ({self.big_blind}): you act last before the flop and first after it."

    def _effect(self, action: Action) -> str:
        chips = self.chips_for(action)
        if action == FOLD:
            return "give up the hand and the pot"
        if action == CALL:
            return f"call {chips} chips" if chips else "check (nothing to call)"
        return f"put in {chips} chips (your bet becomes {self.raise_to(action)})"

    def _history_text(self, seat: Seat | None) -> str:
        parts: list[str] = []
        street = -1
        for step in self.log:
            who = SEAT_NAMES[step.seat] if seat is None else ("you" if step.seat == seat else "opponent")
            prefix = ""
            if step.street != street:
                street = step.street
                prefix = f"{STREETS[street]}: "
            parts.append(f"{prefix}{who} {step.describe()}")
        return "; ".join(parts)

    def _result_text(self, seat: Seat) -> str:
        won = self.facts().payoffs[seat]
        result = f"you win {won} chips" if won > 0 else f"you lose {-won} chips" if won < 0 else "split pot"
        if self.folded is not None:
            who = "You" if self.folded == seat else "Your opponent"
            return f"The hand is over: {who} folded; {result}."
        theirs = self.hole(1 - seat)
        shown = ", ".join(card_name(c) for c in theirs) if theirs else "hidden"
        return f"The hand is over. Showdown: your opponent shows [{shown}]; {result}."

    def _spectator_text(self) -> str:
        lines = [*self._match_lines(None), f"Current round is {self.street_name}"]
        for seat in (0, 1):
            hole = self.hole(seat)
            cards = ", ".join(card_name(c) for c in hole) if hole else "hidden"
            role = "dealer, small blind" if seat == self.button else "big blind"
            lines.append(
                f"{SEAT_NAMES[seat]} ({role}): [{cards}], {self.stacks[seat]} chips behind, "
                f"{self.put_in[seat]} in the pot"
            )
        lines.append(f"The community cards is [{', '.join(card_name(c) for c in self.board)}]")
        lines.append(f"Pot: {self.pot}")
        history = self._history_text(None)
        if history:
            lines.append(f"Actions so far: {history}")
        if self.is_over:
            payoffs = self.facts().payoffs
            lines.append(
                "The hand is over: " + ", ".join(f"{SEAT_NAMES[s]} {payoffs[s]:+d}" for s in (0, 1)) + "."
            )
            if self.hands > 1:
                lines.append(
                    f"The match of {self.hands} hands is over: "
                    + ", ".join(f"{SEAT_NAMES[s]} {int(self.scores[s]):+d}" for s in (0, 1))
                    + "."
                )
        elif self.to_act:
            lines.append(f"{SEAT_NAMES[self.to_act[0]]} to act: {', '.join(self.legal_actions())}")
        return "\n".join(lines)

    def text_table(self, seat: Seat | None = None) -> str:
        """A symbolic table: each seat's cards (``??`` when hidden), stack, bet and total in the pot."""
        seat = self._me(seat)
        rows = ["seat | cards | stack | bet this round | in pot"]
        for s in (0, 1):
            hole = self.hole(s) if (seat is None or s == seat or self.showdown) else None
            cards = " ".join(card_symbol(c) for c in hole) if hole else "?? ??"
            name = SEAT_NAMES[s] + (" (you)" if s == seat else "") + (" [D]" if s == self.button else "")
            rows.append(f"{name} | {cards} | {self.stacks[s]} | {self.bets[s]} | {self.put_in[s]}")
        rows.append(f"board | {' '.join(card_symbol(c) for c in self.board) or '-'} | pot {self.pot}")
        return "\n".join(rows)

    def notice(self, seat: Seat | None = None) -> str:
        if self.is_over:
            return self._spectator_text().splitlines()[-1]
        if self.hands > 1:
            chips = ", ".join(f"{SEAT_NAMES[s]} {int(self.scores[s]):+d}" for s in (0, 1))
            return f"Hand {self.hand + 1} of {self.hands} \u00b7 {chips}"
        return ""

    def annotate(self, action: Action, seat: Seat | None = None) -> str:
        if action in RAISES and action in self.legal_actions():
            return f"puts in {self.chips_for(action)} chips"
        return ""

    # -- controls for people ---------------------------------------------------------------------------

    def panel(self, seat: Seat) -> Panel | None:
        """Fold, Check / Call N, and a raise slider over the legal stops (half pot, full pot, all in)."""
        legal = self.legal_actions(seat)
        if not legal:
            return None
        call = self.chips_for(CALL)
        buttons = (
            Button("Fold", FOLD, enabled=FOLD in legal, hint="Give up the hand"),
            Button(f"Call {call}" if call else "Check", CALL, hint="Match the bet" if call else "Pass"),
        )
        stops = [a for a in RAISES if a in legal]
        if not stops:
            return Panel("Your action", buttons)
        names = {HALF_POT: "Half pot", POT: "Full pot", ALL_IN: "All in"}
        labels = tuple(f"{names[a]} (to {self.raise_to(a)})" for a in stops)
        amount = Amount("size", "Raise size", 0, len(stops) - 1, 0, labels)

        def compose(values: Mapping[str, int]) -> Action:
            return stops[max(0, min(len(stops) - 1, int(values.get("size", 0))))]

        def summary(values: Mapping[str, int]) -> str:
            action = compose(values)
            return f"{action}: you put in {self.chips_for(action)} chips"

        verb = "Raise" if self.street == 0 or self.to_call else "Bet"
        return Panel("Your action", buttons, (amount,), verb, compose, summary)

    # -- JSON ------------------------------------------------------------------------------------------

    def to_json(self) -> JsonDict:
        data: JsonDict = {
            "game": self.game_id,
            "stack": self.stack,
            "small_blind": self.small_blind,
            "big_blind": self.big_blind,
            "button": self.button,
            "cards": list(self.cards),
            "history": list(self.history),
            "viewer": self.viewer,
        }
        if self.hands > 1:
            data["match"] = {
                "hands": self.hands,
                "hand": self.hand,
                "deal_seed": self.deal_seed,
                "mirrored": self.mirrored,
                "past": [
                    {"button": p.button, "cards": list(p.cards), "history": list(p.history)}
                    for p in self.past
                ],
            }
        return data


# -- reading and driving the table ------------------------------------------------------------------


def _read(table: Table, state: HoldemState, log: Sequence[Step]) -> _Facts:
    button = state.button
    p0, p1 = player_of(0, button), player_of(1, button)
    stacks = (table.stacks[p0], table.stacks[p1])
    bets = (table.bets[p0], table.bets[p1])
    board = len(table.board_cards)
    if not table.status:
        payoffs = (stacks[0] - state.stack, stacks[1] - state.stack)
        return _Facts((), (), {}, 0, stacks, bets, board, payoffs)
    actor = table.actor_index
    if actor is None:  # every automation is on, so a running table always waits on a player
        raise GameError("pokerkit's table is running but no player is to act")
    seat = seat_of(actor, button)
    call = max(bets) - bets[seat]
    legal = [FOLD, CALL] if call > 0 else [CALL]
    raise_to: dict[Action, int] = {}
    low = table.min_completion_betting_or_raising_to_amount
    if low is not None:
        everything = stacks[seat] + bets[seat]
        put_in = log[-1].put_in if log else state._blinds()
        after_call = sum(put_in) + call
        top = max(bets)
        half = max(low, top + after_call // 2)
        full = max(low, top + after_call)
        if half < everything and half < full:
            raise_to[HALF_POT] = half
        if full < everything:
            raise_to[POT] = full
        raise_to[ALL_IN] = everything
        legal += list(raise_to)
    return _Facts((seat,), tuple(legal), raise_to, call, stacks, bets, board, (0, 0))


def _perform(table: Table, facts: _Facts, action: Action, log: Sequence[Step], state: HoldemState) -> Step:
    """Play ``action`` on ``table`` (mutating it) and return its log entry."""
    seat = facts.to_act[0]
    street = _STREET_OF_BOARD[facts.board]
    if action == FOLD:
        chips = 0
        table.fold()
    elif action == CALL:
        chips = min(facts.call, facts.stacks[seat])
        table.check_or_call()
    else:
        target = facts.raise_to[action]
        chips = target - facts.bets[seat]
        table.complete_bet_or_raise_to(target)
    before = log[-1].put_in if log else state._blinds()
    put_in = (before[0] + chips, before[1]) if seat == 0 else (before[0], before[1] + chips)
    return Step(seat, action, street, chips, put_in)


# -- the declaration ---------------------------------------------------------------------------------

_RULES = """\
Heads-up no-limit Texas Hold'em, one hand. Each player starts with {stack} chips; the dealer posts the
small blind ({sb}), the other player the big blind ({bb}). Each player gets two private cards; five
community cards follow: three on the flop, one on the turn, one on the river, with a betting round
before the flop and after each deal. The dealer acts first before the flop and last after it.
Actions: Fold (give up), Check and Call (check when nothing is owed, otherwise match the bet),
Raise Half Pot, Raise Full Pot (raise by half of, or all of, the pot after calling) and All in.
At the showdown the best five-card hand from your two cards and the board wins the pot; hand ranks
from best (1) to worst (10): Royal Flush, Straight Flush, Four of a Kind, Full House, Flush,
Straight, Three of a Kind, Two Pair, One Pair, High Card. A is the highest card (and the lowest in
A-2-3-4-5). Your score is the chips you win or lose."""

_MATCH_RULES = """
This is a match of {hands} hands against the same opponent. Every hand starts again from {stack} chips
each, with the same blinds; the dealer button moves to the other player every hand. Your score is the
total of the chips you win or lose over all the hands.{mirror}"""
_MIRROR = """ Every deal is played twice: the second time
each player gets the cards and the position the other player had."""


class Holdem(Game):
    """Heads-up no-limit Texas Hold'em (GameBot): one hand, value-scored in chips."""

    id: ClassVar[str] = "holdem"
    title: ClassVar[str] = "Texas Hold'em"
    suites: ClassVar[tuple[str, ...]] = ("gamebot",)
    description: ClassVar[str] = "Heads-up no-limit hold'em: one hand, 100 chips each, blinds 1/2."
    seats = (SeatInfo(SEAT_NAMES[0], "P1"), SeatInfo(SEAT_NAMES[1], "P2"))
    chance: ClassVar[bool] = True
    perfect_information: ClassVar[bool] = False
    outcome: ClassVar[str] = "value"
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option("stack", int, 100, "Every player's starting chips", minimum=3, maximum=1_000_000),
        Option("small_blind", int, 1, "The small blind (posted by the dealer)", minimum=1, maximum=500_000),
        Option("big_blind", int, 2, "The big blind", minimum=1, maximum=1_000_000),
        Option(
            "button",
            str,
            "first",
            "Who deals: the first seat, the second, or alternating with the seed (even: the first)",
            choices=("first", "second", "seed"),
        ),
        Option(
            "hands",
            int,
            1,
            "Hands in a match (1: GameBot's single hand; LMGame-Bench plays 40), each from equal stacks",
            minimum=1,
            maximum=1000,
        ),
        Option(
            "mirrored",
            bool,
            False,
            "Play every deal twice, the second time with the seats' cards and positions swapped",
        ),
    )
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    keymap: ClassVar[Mapping[str, Action]] = {"f": FOLD, "c": CALL, "h": HALF_POT, "p": POT, "a": ALL_IN}
    controls: ClassVar[str] = "Buttons under the table, or F fold, C check/call, H half pot, P pot, A all in"
    bots: ClassVar[Mapping[str, str]] = {"equity": ".bots:EquityBot", "caller": ".bots:CallerBot"}
    default_opponent: ClassVar[str] = "equity"
    sim_behaviour: ClassVar[str | None] = ".sim:HoldemSim"
    questions: ClassVar[str | None] = ".questions:QUESTIONS"
    extractor: ClassVar[str | None] = ".answers:extract_action"
    default_prompt: ClassVar[str] = "cot"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        o = self.options
        if o["small_blind"] > o["big_blind"]:
            raise OptionError(
                f"option 'small_blind' ({o['small_blind']}) must not exceed 'big_blind' ({o['big_blind']})"
            )
        if o["big_blind"] >= o["stack"]:
            raise OptionError(f"option 'big_blind' ({o['big_blind']}) must be below 'stack' ({o['stack']})")
        if o["mirrored"] and o["hands"] % 2:
            raise OptionError(
                f"option 'mirrored' plays every deal twice, so 'hands' must be even, not {o['hands']}"
            )

    def initial_state(self, seed: int | None = None) -> HoldemState:
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        o = self.options
        button = {"first": 0, "second": 1}.get(o["button"], seed % 2)
        if o["hands"] == 1:
            return HoldemState(o["stack"], o["small_blind"], o["big_blind"], button, deal(seed))
        return HoldemState(
            o["stack"], o["small_blind"], o["big_blind"], button, cards_for_hand(seed, 0, o["mirrored"]),
            hands=o["hands"], deal_seed=seed, mirrored=o["mirrored"],
        )  # fmt: skip

    def state_from_json(self, data: JsonDict) -> HoldemState:
        with reading_state(data, self.id, "hold'em"):
            cards = tuple(data["cards"])
            if len(cards) != 9 or any(c is not None and c not in CODES for c in cards):
                raise ValueError("cards must be nine card codes (or null where hidden)")
            known = [c for c in cards if c is not None]
            if len(set(known)) != len(known):
                raise ValueError("a card appears twice")
            viewer = data.get("viewer")
            if viewer not in (None, 0, 1) or data["button"] not in (0, 1):
                raise ValueError("button and viewer are seats (0 or 1)")
            history = tuple(data["history"])
            if any(a not in ACTIONS for a in history):
                raise ValueError("history holds an unknown action")
            ints = [data[k] for k in ("stack", "small_blind", "big_blind")]
            if not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in ints):
                raise ValueError("stack and blinds are positive integers")
            stack, small_blind, big_blind = ints
            state = HoldemState(
                stack, small_blind, big_blind, data["button"], cards, history, viewer,
                **_match_from_json(data, ints),
            )  # fmt: skip
            state.log  # noqa: B018  (replays now, so a bad history is reported here)
            return state

    def outcome_value(self, final: State, seat: Seat) -> float:
        """The chips ``seat`` won (negative: lost) in the hand."""
        return float(final.scores[seat])

    def rules_text(self) -> str:
        o = self.options
        text = _RULES.format(stack=o["stack"], sb=o["small_blind"], bb=o["big_blind"])
        if o["hands"] > 1:
            text = text.replace(
                "Heads-up no-limit Texas Hold'em, one hand.", "Heads-up no-limit Texas Hold'em."
            )
            text += _MATCH_RULES.format(
                hands=o["hands"], stack=o["stack"], mirror=_MIRROR if o["mirrored"] else ""
            )
        return text

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read an action, forgiving case and common names (``check``, ``call``, ``raise pot``,
        ``all-in``).

        Raises:
            InvalidActionError: the text names no hold'em action.
            IllegalActionError: it names one that is not legal now.
        """
        action = canonical_action(text)
        if action is None:
            raise InvalidActionError(f"{text!r} is not one of {', '.join(ACTIONS)}")
        legal = state.legal_actions(seat)
        if action not in legal:
            if state.is_over:
                raise IllegalActionError(f"the hand is over; {text!r} cannot be played")
            raise IllegalActionError(f"{action!r} is not legal here; legal: {', '.join(legal)}")
        return action


def _past_text(past: PastHand, seat: Seat | None) -> str:
    """How a finished hand went, for ``seat`` (or a spectator)."""
    if seat is None:
        result = ", ".join(f"{SEAT_NAMES[s]} {past.payoffs[s]:+d}" for s in (0, 1))
    else:
        won = past.payoffs[seat]
        result = f"you won {won} chips" if won > 0 else f"you lost {-won} chips" if won < 0 else "split pot"
    folded = next((who for who, action, _ in past.actions if action == FOLD), None)
    if folded is not None:
        who = SEAT_NAMES[folded] if seat is None else "you" if folded == seat else "your opponent"
        return f"{who} folded; {result}."
    names = SEAT_NAMES if seat is None else tuple("you" if s == seat else "your opponent" for s in (0, 1))
    shown = "; ".join(
        f"{names[s]} [{', '.join(card_name(c) for c in past.cards[2 * s : 2 * s + 2] if c)}]" for s in (0, 1)
    )
    board = ", ".join(card_name(c) for c in past.cards[4:9] if c)
    return f"showdown ({shown}; board [{board}]); {result}."


def _match_from_json(data: JsonDict, ints: Sequence[int]) -> _Match:
    """The match fields of a state's JSON (none for a single hand); past hands are replayed."""
    match = data.get("match")
    if match is None:
        return {}
    hands, hand, seed, mirrored = (match[k] for k in ("hands", "hand", "deal_seed", "mirrored"))
    if (
        not all(isinstance(x, int) and not isinstance(x, bool) for x in (hands, hand))
        or not 0 <= hand < hands
    ):
        raise ValueError("match: hand must be below hands")
    if not (seed is None or (isinstance(seed, int) and not isinstance(seed, bool))) or not isinstance(
        mirrored, bool
    ):
        raise ValueError("match: deal_seed is an integer (or null) and mirrored true or false")
    stack, small_blind, big_blind = ints
    past: list[PastHand] = []
    for item in match["past"]:
        cards = tuple(item["cards"])
        if len(cards) != 9 or any(c is not None and c not in CODES for c in cards):
            raise ValueError("match: a past hand's cards must be nine card codes (or null)")
        if any(a not in ACTIONS for a in item["history"]) or item["button"] not in (0, 1):
            raise ValueError("match: a past hand holds an unknown action or button")
        known = [c for c in cards if c is not None]
        spare = iter(c for c in CODES if c not in known)
        full = tuple(c if c is not None else next(spare) for c in cards)  # betting never reads them
        played = HoldemState(stack, small_blind, big_blind, item["button"], full, tuple(item["history"]))
        if played.facts().to_act:
            raise ValueError("match: a past hand is not finished")
        past.append(
            PastHand(
                item["button"], cards, played.history, played.facts().payoffs,
                tuple((step.seat, step.action, step.chips) for step in played.log),
                played.showdown, played.facts().board,
            )
        )  # fmt: skip
    if len(past) != hand:
        raise ValueError("match: past must hold every hand before this one")
    return {"hands": hands, "hand": hand, "deal_seed": seed, "mirrored": mirrored, "past": tuple(past)}
