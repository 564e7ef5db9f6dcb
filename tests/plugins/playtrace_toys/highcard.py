"""High card: two seats each hold a hidden card; seat 0 bets or checks, seat 1 calls or folds.

A check or a call goes to the showdown, where the higher card wins the pot (1, or 2 after a call);
a fold gives seat 0 the pot without showing a card. Each seat sees its own card only, until the
showdown shows both. Cards are ``C1`` .. ``C9``, dealt from the seed.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.core import (
    Action,
    Game,
    IllegalActionError,
    InvalidActionError,
    JsonDict,
    Seat,
    State,
    StateFormatError,
    seats_of,
)

HIDDEN = "??"
_RULES = """Two seats each hold a hidden card numbered from one to nine. The first seat bets or checks; after
a bet, the second seat calls or folds. A check or a call goes to the showdown, where the higher card
wins the pot (1, or 2 after a call); a fold gives the first seat the pot."""
CARDS = tuple(f"C{i}" for i in range(1, 10))
ACTIONS = ("bet", "check", "call", "fold")


@dataclasses.dataclass(frozen=True, slots=True)
class HighCardState(State):
    game_id: ClassVar[str] = "highcard"

    cards: tuple[str, str]
    moves: tuple[str, ...] = ()
    #: The seat whose view this is, or ``None`` for the full state.
    viewer: Seat | None = None

    @property
    def step(self) -> int:
        return len(self.moves)

    @property
    def showdown(self) -> bool:
        return self.moves in (("check",), ("bet", "call"))

    @property
    def to_act(self) -> tuple[Seat, ...]:
        if not self.moves:
            return (0,)
        if self.moves == ("bet",):
            return (1,)
        return ()

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        to_act = self.to_act
        if not to_act or (seat is not None and seat not in to_act):
            return []
        return ["bet", "check"] if to_act == (0,) else ["call", "fold"]

    def apply(self, action: Action | Mapping[Seat, Action]) -> HighCardState:
        if self.viewer is not None:
            raise IllegalActionError("a seat's view cannot be played forward; the match holds the full state")
        if isinstance(action, Mapping):
            if len(action) != 1:
                raise IllegalActionError("one seat acts at a time")
            ((seat, action),) = action.items()
            if seat not in self.to_act:
                raise IllegalActionError(f"seat {seat} is not to act")
        if action not in ACTIONS:
            raise InvalidActionError(f"{action!r} is not one of {', '.join(ACTIONS)}")
        if action not in self.legal_actions():
            raise IllegalActionError(f"{action!r} is not legal now")
        return dataclasses.replace(self, moves=(*self.moves, action))

    @property
    def winner(self) -> Seat | None:
        if self.moves == ("bet", "fold"):
            return 0
        if self.showdown:
            return 0 if CARDS.index(self.cards[0]) > CARDS.index(self.cards[1]) else 1
        return None

    @property
    def scores(self) -> tuple[float, ...]:
        winner = self.winner
        if winner is None:
            return (0.0, 0.0)
        pot = 2.0 if self.moves == ("bet", "call") else 1.0
        return (pot, -pot) if winner == 0 else (-pot, pot)

    def observe(self, seat: Seat) -> HighCardState:
        if self.showdown:
            return dataclasses.replace(self, viewer=seat)
        cards = tuple(c if i == seat else HIDDEN for i, c in enumerate(self.cards))
        return dataclasses.replace(self, cards=(cards[0], cards[1]), viewer=seat)

    def secrets(self, seat: Seat) -> frozenset[str]:
        return frozenset() if self.showdown else frozenset({self.cards[seat]})

    def text(self, seat: Seat | None = None) -> str:
        lines = []
        for i, card in enumerate(self.cards):
            who = "You" if i == seat else f"Seat {i + 1}"
            lines.append(f"{who}: {card}")
        lines.append("Moves: " + (" ".join(self.moves) if self.moves else "none yet"))
        if self.is_over:
            lines.append(f"Winner: seat {self.winner + 1}" if self.winner is not None else "No winner")
        return "\n".join(lines)

    def to_json(self) -> JsonDict:
        data: JsonDict = {"game": self.game_id, "cards": list(self.cards), "moves": list(self.moves)}
        if self.viewer is not None:
            data["viewer"] = self.viewer
        return data


class HighCard(Game):
    id: ClassVar[str] = "highcard"
    title: ClassVar[str] = "High card"
    description: ClassVar[str] = "Each seat holds a hidden card; bet, check, call or fold."
    seats = seats_of(["First", "Second"])
    chance: ClassVar[bool] = True
    perfect_information: ClassVar[bool] = False
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    keymap: ClassVar[Mapping[str, Action]] = {"b": "bet", "k": "check", "c": "call", "f": "fold"}
    controls: ClassVar[str] = "B bet, K check, C call, F fold"
    bots: ClassVar[Mapping[str, str]] = {"cardsense": ".bots:CardSense"}
    default_opponent: ClassVar[str] = "cardsense"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)

    def initial_state(self, seed: int | None = None) -> HighCardState:
        rng = random.Random(f"highcard:{seed}")
        first, second = rng.sample(CARDS, 2)
        return HighCardState(cards=(first, second))

    def rules_text(self) -> str:
        return _RULES

    def state_from_json(self, data: JsonDict) -> HighCardState:
        try:
            cards = data["cards"]
            moves = tuple(data["moves"])
            if len(cards) != 2 or not all(c in CARDS for c in cards) or cards[0] == cards[1]:
                raise ValueError("two different cards C1..C9")
            if not all(m in ACTIONS for m in moves):
                raise ValueError("unknown move")
        except (KeyError, TypeError, ValueError) as exc:
            raise StateFormatError(f"not a high card state: {exc}") from None
        return HighCardState(cards=(cards[0], cards[1]), moves=moves)
