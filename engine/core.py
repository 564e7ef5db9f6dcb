"""The game contract every PlayTrace game implements.

A game is a deterministic state machine. States are immutable values: ``apply`` returns a new state
and leaves the old one untouched, so any state can be kept, compared, serialised, re-asked or forked.
Actions are canonical strings (``"up"``, ``"(1,1)"``, ``"raise 20"``). Randomness (a 2048 tile spawn, a
shuffled deck) is derived from the seed carried inside the state, never from global state, so
``initial_state(seed=s)`` followed by the same actions always yields the same states.

Everything else in PlayTrace builds on this module: bots search states, oracles inspect them,
sessions snapshot them as JSON, renderers draw them and the Gymnasium adapter wraps them.
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

Seat = int
Action = str
JsonDict = dict[str, Any]


class GameError(ValueError):
    """Base class for errors about games, states and actions."""


class UnknownGameError(GameError):
    """No game is registered under the requested id."""


class InvalidActionError(GameError):
    """The text could not be read as an action of this game (for example unparsable model output)."""


class IllegalActionError(GameError):
    """The action is well formed but not legal in this state."""


class StateFormatError(GameError):
    """A serialised state could not be read back (wrong game, missing fields, bad values)."""


@dataclasses.dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who a seat is in a game: ``name`` is shown to people (``"X"``, ``"Black"``, ``"Player"``)."""

    name: str
    short: str = ""


class State(abc.ABC):
    """An immutable snapshot of a game in progress.

    Subclasses are frozen dataclasses (or behave like them). Equality is by value.
    """

    game_id: ClassVar[str]

    @property
    @abc.abstractmethod
    def to_act(self) -> tuple[Seat, ...]:
        """Seats that must act now: one seat for turn-based games, several for simultaneous moves,
        and ``()`` when the game is over."""

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (no seat acts any more)."""
        return not self.to_act

    @property
    @abc.abstractmethod
    def step(self) -> int:
        """How many actions (or joint actions) have been applied since the initial state."""

    @abc.abstractmethod
    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        """Canonical legal actions for ``seat`` (default: the first seat to act), in a stable order.

        Empty when the game is over or the seat does not act now.
        """

    @abc.abstractmethod
    def apply(self, action: Action | Mapping[Seat, Action]) -> State:
        """Return the state after ``action``; the receiver is unchanged.

        Turn-based games take one action string; simultaneous games take ``{seat: action}``.

        Raises:
            IllegalActionError: the action is not legal here.
            InvalidActionError: the text is not an action of this game.
        """

    @property
    @abc.abstractmethod
    def scores(self) -> tuple[float, ...]:
        """The running score of every seat, as the game's paper defines its raw score."""

    @property
    def winner(self) -> Seat | None:
        """The winning seat once the game is over, or ``None`` (draw, single-player, or not over)."""
        return None

    @abc.abstractmethod
    def text(self, seat: Seat | None = None) -> str:
        """The text view of this state for ``seat`` (what a text-only model and the UI show)."""

    @abc.abstractmethod
    def to_json(self) -> JsonDict:
        """A JSON-compatible dict from which :meth:`Game.state_from_json` rebuilds an equal state."""

    def metrics(self) -> dict[str, float]:
        """Extra named figures for summaries and plots (e.g. ``max_tile``); empty by default."""
        return {}


@dataclasses.dataclass(frozen=True, slots=True)
class Transition:
    """What one applied action did: the reward each seat earned and whether the state changed."""

    rewards: tuple[float, ...]
    changed: bool = True


class Game(abc.ABC):
    """A registered game: its rules, seats, options and how to start and restore states."""

    id: ClassVar[str]
    title: ClassVar[str]
    #: Papers whose benchmark includes this game (for grouping in the UI): "lmgame", "gamebot", ...
    suites: ClassVar[tuple[str, ...]] = ()
    #: Names of the seats in order; ``len(seats)`` is the number of players.
    seats: ClassVar[tuple[SeatInfo, ...]]
    #: Whether all seats act at once (Pong, Surround) rather than in turn.
    simultaneous: ClassVar[bool] = False
    #: Neutral key names (``"up"``, ``"w"``, ``"1"``) to actions, for human play.
    keymap: ClassVar[Mapping[str, Action]] = {}
    #: The most steps an episode can last when the rules bound it (Tic-tac-toe: 9), else ``None``.
    max_episode_steps: ClassVar[int | None] = None

    def __init__(self, **options: Any) -> None:
        self.options: dict[str, Any] = dict(options)

    @property
    def num_seats(self) -> int:
        return len(self.seats)

    @abc.abstractmethod
    def initial_state(self, seed: int | None = None) -> State:
        """The start state; the same ``seed`` always gives the same state and the same future."""

    @abc.abstractmethod
    def state_from_json(self, data: JsonDict) -> State:
        """Rebuild a state written by :meth:`State.to_json`.

        Raises:
            StateFormatError: the data is not a state of this game.
        """

    def transition(self, before: State, after: State) -> Transition:
        """The per-seat reward of going from ``before`` to ``after`` (default: the change in score)."""
        rewards = tuple(a - b for a, b in zip(after.scores, before.scores, strict=True))
        return Transition(rewards=rewards, changed=before != after)

    def rules_text(self) -> str:
        """The rules in plain words, as given to a model and shown in the help panel."""
        return ""

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Match free text to a canonical legal action (case and spacing are forgiven).

        Raises:
            InvalidActionError: the text names no action of this game.
            IllegalActionError: it names an action that is not legal now.
        """
        cleaned = " ".join(text.strip().lower().split())
        legal = state.legal_actions(seat)
        for action in legal:
            if action.lower() == cleaned or action.replace(" ", "").lower() == cleaned.replace(" ", ""):
                return action
        raise InvalidActionError(f"{text!r} is not one of {', '.join(legal) or 'no legal actions'}")

    def describe_options(self) -> str:
        """A short human-readable summary of non-default options (for session headers)."""
        return ", ".join(f"{k}={v}" for k, v in sorted(self.options.items()))


def require_legal(state: State, action: Action, seat: Seat | None = None) -> None:
    """Raise :class:`IllegalActionError` unless ``action`` is legal for ``seat`` in ``state``."""
    legal = state.legal_actions(seat)
    if action not in legal:
        if state.is_over:
            raise IllegalActionError(f"the game is over; {action!r} cannot be played")
        raise IllegalActionError(f"{action!r} is not legal here; legal: {', '.join(legal)}")


def seats_of(names: Sequence[str]) -> tuple[SeatInfo, ...]:
    """Convenience: build seat descriptions from names."""
    return tuple(SeatInfo(name=n, short=n[:1]) for n in names)
