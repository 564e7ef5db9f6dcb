"""What the board may show: a person in a live game of hidden information sees only their own view."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from desktop.board_view import BoardView
from desktop.model.visibility import shown_state
from engine.core import Game, State, seats_of


@dataclasses.dataclass(frozen=True)
class CardState(State):
    """Each seat holds one card; ``masked`` hides the other seat's card (``"?"``)."""

    cards: tuple[str, str] = ("K", "3")
    turn: int = 0
    moves: int = 0
    viewer: int | None = None

    game_id = "cards"

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.moves >= 2 else (self.turn,)

    @property
    def step(self) -> int:
        return self.moves

    def legal_actions(self, seat: int | None = None) -> list[str]:
        return ["show"] if self.to_act else []

    def apply(self, action: str | Mapping[int, str]) -> CardState:
        return dataclasses.replace(self, turn=1 - self.turn, moves=self.moves + 1)

    @property
    def scores(self) -> tuple[float, ...]:
        return (0.0, 0.0)

    def text(self, seat: int | None = None) -> str:
        return " ".join(self.cards)

    def to_json(self) -> dict[str, Any]:
        return {"cards": list(self.cards), "turn": self.turn, "moves": self.moves}

    def observe(self, seat: int) -> CardState:
        cards = tuple(c if i == seat else "?" for i, c in enumerate(self.cards))
        return dataclasses.replace(self, cards=cards, viewer=seat)  # type: ignore[arg-type]


class HiddenCards(Game):
    """A two-seat game whose players cannot see each other's card."""

    id = "cards"
    title = "Hidden cards"
    seats = seats_of(["North", "South"])
    perfect_information = False

    def initial_state(self, seed: int | None = None) -> CardState:
        return CardState()

    def state_from_json(self, data: dict[str, Any]) -> CardState:
        return CardState(tuple(data["cards"]), data["turn"], data["moves"])  # type: ignore[arg-type]


class OpenCards(HiddenCards):
    """The same game with the cards face up."""

    perfect_information = True


def test_a_person_in_a_live_hidden_game_sees_only_their_own_seat() -> None:
    game = HiddenCards()
    state = game.initial_state()
    shown = shown_state(game, state, [1], live=True)
    assert shown is not None and shown.cards == ("?", "3") and shown.viewer == 1
    # The class alone (the declaration) is enough to decide.
    assert shown_state(HiddenCards, state, [0], live=True).cards == ("K", "?")  # type: ignore[union-attr]


def test_past_steps_of_a_live_game_are_masked_too() -> None:
    game = HiddenCards()
    later = game.initial_state().apply("show")
    assert shown_state(game, later, [0], live=True).cards == ("K", "?")  # type: ignore[union-attr]


def test_hot_seat_shows_the_view_of_the_person_to_act() -> None:
    game = HiddenCards()
    state = game.initial_state()  # North (seat 0) acts first
    assert shown_state(game, state, [0, 1], live=True).viewer == 0  # type: ignore[union-attr]
    assert shown_state(game, state.apply("show"), [0, 1], live=True).viewer == 1  # type: ignore[union-attr]


def test_full_state_when_nothing_is_hidden_from_the_people_watching() -> None:
    hidden, state = HiddenCards(), CardState()
    # A replay of a finished session, a game with nobody seated, a game of perfect information.
    assert shown_state(hidden, state, [0], live=False) is state
    assert shown_state(hidden, state, [], live=True) is state
    assert shown_state(OpenCards(), state, [0], live=True) is state
    assert shown_state(None, state, [0], live=True) is state
    assert shown_state(hidden, None, [0], live=True) is None


def test_the_board_draws_the_masked_view_as_text(qtbot: Any) -> None:
    game = HiddenCards()
    board = BoardView()
    qtbot.addWidget(board)
    board.set_game(game)  # no renderer of its own: the text fallback draws the state it is given
    board.set_state(shown_state(game, game.initial_state(), [1], live=True))
    assert board.state is not None and board.state.text() == "? 3"
    board.resize(300, 300)
    board.grab()  # painting the masked view must work
