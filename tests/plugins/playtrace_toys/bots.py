"""High card's own bot: bets or calls with a card above the middle."""

from __future__ import annotations

from engine.bots.base import SearchBot
from engine.core import Action
from engine.players import Observation
from playtrace_toys.highcard import CARDS, HIDDEN, HighCardState


class CardSense(SearchBot):
    spec = "cardsense"
    label = "Card sense"

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        view = observation.state
        assert isinstance(view, HighCardState)
        mine = view.cards[observation.seat]
        assert mine != HIDDEN, "a seat always sees its own card"
        strength = CARDS.index(mine) / (len(CARDS) - 1)  # 0 .. 1
        values = {"bet": strength - 0.5, "check": 0.0, "call": strength - 0.5, "fold": 0.0}
        return {a: values[a] for a in observation.legal_actions}
