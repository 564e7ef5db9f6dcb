"""The game contract every PlayTrace game implements.

A game is a deterministic state machine. States are immutable values: ``apply`` returns a new state
and leaves the old one untouched, so any state can be kept, compared, serialised, re-asked or forked.
Actions are canonical strings (``"up"``, ``"(1,1)"``, ``"raise 20"``). Randomness (a 2048 tile spawn, a
shuffled deck) is derived from the seed carried inside the state, never from global state, so
``initial_state(seed=s)`` followed by the same actions always yields the same states.

The :class:`Game` subclass *is* the game's declaration: its class attributes carry everything the rest
of PlayTrace needs to know (id, title, suites, seats, flags, options, keys, bots, prompts, optional
dependencies). Code outside a game's package reads those attributes and never branches on a game id.
Hooks that live in the game's package (bots, intermediate questions, the answer extractor, the
simulated model's behaviour) are named by import strings, resolved by :meth:`Game.load`, so listing
26 games imports none of their bots.

Every seat sees only its own view: :meth:`State.observe` gives the state as one seat knows it (the
opponent's cards hidden), and :meth:`State.secrets` names what only that seat may know, which
:func:`engine.conformance.check_game` uses to prove that no other seat ever receives it.
"""

from __future__ import annotations

import abc
import dataclasses
import importlib
import sys
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from engine.options import Option, validate

Seat = int
Action = str
JsonDict = dict[str, Any]


class GameError(ValueError):
    """Base class for errors about games, states and actions."""


class UnknownGameError(GameError, LookupError):
    """No game is registered under the requested id."""


class GameUnavailableError(UnknownGameError):
    """The game is registered but cannot be played here (an optional dependency is missing)."""


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

        Turn-based games take one action string; simultaneous games take ``{seat: action}`` with one
        entry per seat in :attr:`to_act`.

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

    def notice(self, seat: Seat | None = None) -> str:
        """A short line a person should see about the state now (a rule about to bite, a counter),
        or ``""``. Front ends show it beside the board; it never replaces :meth:`text`."""
        return ""

    def text_table(self, seat: Seat | None = None) -> str:
        """A symbolic listing with coordinates (``"Tile 8 at (row 0, col 2)"``), or ``""`` when the
        text view already is one. Perception adds it to a model's text view."""
        return ""

    @abc.abstractmethod
    def to_json(self) -> JsonDict:
        """A JSON-compatible dict from which :meth:`Game.state_from_json` rebuilds an equal state."""

    def metrics(self) -> dict[str, float]:
        """Extra named figures for summaries and plots (e.g. ``max_tile``); empty by default."""
        return {}

    # -- information: what each seat may see --------------------------------------------------

    def observe(self, seat: Seat) -> State:
        """This state as ``seat`` knows it. Players, prompts, images and bots get only this.

        Games with perfect information return the state itself (the default). Games with hidden
        information return a state whose other seats' private parts are masked; such a view must
        still answer ``text``, ``text_table``, ``legal_actions(seat)``, ``scores`` and ``to_json``
        (so it can be drawn and recorded), but need not support ``apply``.
        """
        return self

    def secrets(self, seat: Seat) -> frozenset[str]:
        """Words that only ``seat`` may know now (its hole cards, its secret value); empty when the
        game hides nothing. :func:`engine.conformance.check_game` checks that no other seat's
        observation contains any of them as a word."""
        return frozenset()

    # -- chance ---------------------------------------------------------------------------------

    def outcomes(self, action: Action | Mapping[Seat, Action]) -> Sequence[tuple[float, State]]:
        """Every state ``action`` can lead to, with its probability (they sum to 1).

        Deterministic games have one outcome, the default. Games with chance (a tile spawn, a card
        dealt) list each possible result (a list, or a lazy sequence when there are very many), so
        search bots can average over them without knowing the game's internals; :meth:`apply` picks
        one of them from the seed the state carries.
        """
        return [(1.0, self.apply(action))]

    # -- controls for people ---------------------------------------------------------------------

    def panel(self, seat: Seat) -> Any:
        """The :class:`engine.controls.Panel` of buttons and amounts a person at ``seat`` acts with
        here (hold'em's bets, a bargaining offer), or ``None`` when the board and the keys suffice."""
        return None

    def path_actions(self, seat: Seat | None = None) -> Mapping[str, Action]:
        """Moves a person makes by clicking cells in turn when the action's name is not that path
        (chess: ``{"e2->e4": "e4", "g1->f3": "Nf3"}``), click path → action. Empty by default: an
        action whose name is ``"<cell>-><cell>…"`` (checkers) is its own path."""
        return {}

    # -- notes for people and models --------------------------------------------------------------

    def annotate(self, action: Action, seat: Seat | None = None) -> str:
        """A short note on a legal ``action`` that a reader of a model's decision should see
        (``"this move does not change the board (a wasted turn)"``), or ``""``."""
        return ""


@dataclasses.dataclass(frozen=True, slots=True)
class PlayedMove:
    """One move of a played game, for a game's own export formats (:attr:`Game.exports`)."""

    step: int
    seat: Seat
    action: Action
    #: Why it was played: a model's rationale, a bot's, or empty.
    comment: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class PlayedGame:
    """A played game as a session records it, for a game's own export formats (chess's PGN)."""

    start: State
    moves: tuple[PlayedMove, ...]
    #: The label of the player in each seat.
    players: tuple[str, ...]
    status: str
    winner: Seat | None
    title: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class Transition:
    """What one applied action did: the reward each seat earned and whether the state changed."""

    rewards: tuple[float, ...]
    changed: bool = True


class Game(abc.ABC):
    """A game: its declaration (class attributes), its options, and how to start and restore states.

    Subclasses set the class attributes below and implement :meth:`initial_state` and
    :meth:`state_from_json`. They register under the ``playtrace.games`` entry-point group, with the
    game id as the entry point's name (see :mod:`engine.registry`).
    """

    # -- identity -------------------------------------------------------------------------------
    #: Short lowercase id (``"2048"``, ``"tictactoe"``); the entry point's name.
    id: ClassVar[str]
    #: The name people read (``"Tic-tac-toe"``).
    title: ClassVar[str]
    #: Benchmarks that include the game: ``"lmgame"``, ``"gamebot"``, ``"lvlm"``, ``"gvgai"``.
    suites: ClassVar[tuple[str, ...]] = ()
    #: One sentence about the game, for lists and the New game dialog.
    description: ClassVar[str] = ""
    #: Names of the seats in order; ``len(seats)`` is the number of players.
    seats: ClassVar[tuple[SeatInfo, ...]]

    # -- flags ----------------------------------------------------------------------------------
    #: All seats in :attr:`State.to_act` act at once (Pong, Surround) rather than in turn.
    simultaneous: ClassVar[bool] = False
    #: Chance events happen (tile spawns, dealt cards); :meth:`State.outcomes` lists them.
    chance: ClassVar[bool] = False
    #: Every seat sees the whole state; ``False`` when :meth:`State.observe` hides something.
    perfect_information: ClassVar[bool] = True
    #: Seconds per tick for real-time games: a human who has not acted by then plays
    #: :attr:`default_action`. ``None`` for turn-by-turn games.
    tick_s: ClassVar[float | None] = None
    #: The action applied for a seat that did not act in time (``"noop"``), and the no-op a model's
    #: fallback policy may choose; ``None`` when the game has none.
    default_action: ClassVar[Action | None] = None

    # -- play -----------------------------------------------------------------------------------
    #: The options the game takes (see :mod:`engine.options`).
    options_schema: ClassVar[tuple[Option, ...]] = ()
    #: Every action of the game in a fixed order, when there is such a list (2048's four moves);
    #: the Gymnasium adapter's discrete action space. Empty when actions depend on the state.
    actions: ClassVar[tuple[Action, ...]] = ()
    #: The most legal actions any state can have, for games without a fixed :attr:`actions` list
    #: (checkers, bargaining): adapters that need a fixed-size action space (PettingZoo) number the
    #: sorted legal actions up to this bound and mask the rest. ``None`` when :attr:`actions` is set.
    #: A game whose options shrink the board narrows it per instance (Minesweeper).
    action_bound: int | None = None
    #: Neutral key names (``"up"``, ``"w"``, ``"1"``) to actions, for human play.
    keymap: ClassVar[Mapping[str, Action]] = {}
    #: Actions a held key plays once, not on every tick: rotations, hard drop. In real time a held
    #: key repeats its action each tick (moving left while Left is down); one of these plays on the
    #: key's press only.
    once_per_press: ClassVar[frozenset[Action]] = frozenset()
    #: How a person plays, in one line (``"Arrows or W A S D slide the tiles"``).
    controls: ClassVar[str] = ""
    #: How a match's outcome is scored in tournaments: ``"win"`` (GameBot's s1 = (W − L) / N) or
    #: ``"value"`` (s2: the mean of :meth:`Game.outcome_value`, hold'em's chips, bargaining's values).
    outcome: ClassVar[str] = "win"
    #: The most steps an episode can last when the rules bound it (Tic-tac-toe: 9), else ``None``.
    max_episode_steps: ClassVar[int | None] = None
    #: The key of :meth:`State.metrics` holding the game's raw score as its benchmark defines it
    #: (LMGame-Bench's Table 1: 2048's merged sum, Sokoban's boxes on goals), for ``playtrace
    #: baseline``; ``None``: the first seat's :attr:`State.scores`.
    raw_score: ClassVar[str | None] = None
    #: The key of :meth:`State.metrics` holding the benchmark's progress score (2048's max tile,
    #: Tetris' lines), or ``None`` when the game defines none.
    progress_score: ClassVar[str | None] = None

    # -- players and models (import strings; a leading "." is relative to the game's package) -----
    #: Built-in bots: player spec -> ``"module:factory"``; a factory takes ``(game, seed)``.
    bots: ClassVar[Mapping[str, str]] = {}
    #: The player spec a new game offers as the opponent (``"random"`` or one of :attr:`bots`).
    default_opponent: ClassVar[str] = "random"
    #: The bot whose analysis the simulated model's reasoning is written from (default: the
    #: default opponent when it is a bot, otherwise a one-move lookahead).
    sim_bot: ClassVar[str | None] = None
    #: ``"module:Class"`` of the simulated model's behaviour for this game (an
    #: :class:`engine.llm.simstyle.SimBehaviour`); ``None``: the generic behaviour.
    sim_behaviour: ClassVar[str | None] = None
    #: ``"module:NAME"`` of the intermediate questions (a sequence of
    #: :class:`engine.questions.Question`) whose answers are checked against ground truth.
    questions: ClassVar[str | None] = None
    #: ``"module:function"`` finding the answer in a model's reply (an
    #: :data:`engine.agent.parse.Extractor`); ``None``: the generic ``move:`` line extractor.
    extractor: ClassVar[str | None] = None
    #: ``"module:Class"`` of the Gymnasium observation (an :class:`engine.gym.ObservationCodec`);
    #: ``None``: the text view.
    observation: ClassVar[str | None] = None
    #: The module holding the game's LVLM-Playground task definitions (``".lvlm"``: ``random_board``,
    #: ``random_legal``, ``matrix``, ``questions``, ``valid_moves``, ``read_move``, ``PROMPTS``,
    #: ``MATRIX_SHAPE``, ``MATRIX_RANGE``; see :mod:`engine.tasks`), or ``None``.
    tasks: ClassVar[str | None] = None
    #: The folder of prompt templates, relative to the game's package (``None``: no folder; the
    #: generic template is used).
    prompts: ClassVar[str | None] = "prompts"
    #: The prompt variant (a file stem in :attr:`prompts`) played when none is chosen; GameBot's games
    #: name their curated chain-of-thought prompt ``"cot"`` beside ``"naive"`` and ``"none"``.
    default_prompt: ClassVar[str] = "default"

    #: A game's own export formats: file suffix → ``"module:function"`` taking a :class:`PlayedGame`
    #: and returning the file's text (chess: ``{".pgn": ".pgn:played_pgn"}``).
    exports: ClassVar[Mapping[str, str]] = {}

    # -- installation ---------------------------------------------------------------------------
    #: Importable modules the game needs beyond PlayTrace's own dependencies (``("nes_py",)``).
    requires: ClassVar[tuple[str, ...]] = ()
    #: The optional extra that installs them (``"mario"`` -> ``pip install 'playtrace[mario]'``).
    extra: ClassVar[str | None] = None

    def __init__(self, **options: Any) -> None:
        """Build the game with ``options``, checked against :attr:`options_schema`.

        Raises:
            engine.options.OptionError: an unknown option or an invalid value (the message names it).
        """
        #: Every option's value, defaults included (what a session records).
        self.options: dict[str, Any] = validate(self.options_schema, options, game=self.id)

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

    def outcome_value(self, final: State, seat: Seat) -> float:
        """What a finished match was worth to ``seat`` for a ``"value"`` outcome: by default its score
        minus the mean of the other seats' scores (hold'em overrides it with the chips won)."""
        scores = final.scores
        others = [s for i, s in enumerate(scores) if i != seat]
        return float(scores[seat] - (sum(others) / len(others) if others else 0.0))

    def move(self, actions: Mapping[Seat, Action]) -> Action | Mapping[Seat, Action]:
        """What :meth:`State.apply` takes for the seats' ``actions``: the mapping itself in a
        simultaneous game, the one action in a turn-based game."""
        return dict(actions) if self.simultaneous else next(iter(actions.values()))

    def play_random(self, state: State, rng: Any) -> State:
        """``state`` after every seat to act plays a uniformly random legal action from ``rng``
        (a :class:`random.Random`): random play for checks, benchmarks and playouts."""
        return state.apply(self.move({s: rng.choice(state.legal_actions(s)) for s in state.to_act}))

    def forfeit_result(self, state: State, forfeited: Sequence[Seat]) -> Seat | None:
        """The winner when ``forfeited`` seats give up in ``state``: the only seat left, or else the
        remaining seat with the strictly highest score; ``None`` when that is a tie or nobody is left."""
        left = [s for s in range(self.num_seats) if s not in forfeited]
        if len(left) <= 1:
            return left[0] if left else None
        scores = state.scores
        best = max(scores[s] for s in left)
        leaders = [s for s in left if scores[s] == best]
        return leaders[0] if len(leaders) == 1 else None

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
        if state.is_over:
            raise IllegalActionError(f"the game is over; {text!r} cannot be played")
        for action in self.actions:
            if action.lower() == cleaned:
                raise IllegalActionError(f"{action!r} is not legal here; legal: {', '.join(legal)}")
        raise InvalidActionError(f"{text!r} is not one of {', '.join(legal) or 'no legal actions'}")

    # -- hooks living in the game's package ----------------------------------------------------------

    @classmethod
    def load(cls, ref: str) -> Any:
        """Import what ``ref`` names: ``"module:attr"``, or ``".module:attr"`` relative to the
        package the game class is defined in.

        Raises:
            ImportError: the module cannot be imported.
            AttributeError: the module has no such attribute.
        """
        key = (cls, ref)
        found = _LOADED.get(key)
        if found is not None:
            return found
        module_name, sep, attr = ref.partition(":")
        if not sep or not attr:
            raise ValueError(f"{cls.__name__}: hooks are written 'module:attr', not {ref!r}")
        obj: Any = None
        if module_name.startswith("."):
            # Relative to the game's package; a subclass defined elsewhere (a test's faster variant)
            # inherits its base's hooks, so the bases' packages are tried in turn.
            failure: ImportError | None = None
            for klass in cls.__mro__:
                if not (isinstance(klass, type) and issubclass(klass, Game)) or klass is Game:
                    continue
                module = sys.modules.get(klass.__module__)
                package = (module.__package__ if module else None) or klass.__module__.rpartition(".")[0]
                try:
                    obj = importlib.import_module(module_name, package)
                    break
                except ImportError as exc:
                    failure = failure or exc
            else:
                raise failure or ImportError(f"{ref!r} cannot be imported for {cls.__name__}")
        else:
            obj = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
        _LOADED[key] = obj
        return obj

    def make_bot(self, spec: str, seed: int | None = None) -> Any:
        """A built-in bot of this game (a :class:`engine.players.Player`).

        Raises:
            KeyError: the game has no bot called ``spec``.
        """
        ref = self.bots.get(spec)
        if ref is None:
            raise KeyError(spec)
        return self.load(ref)(self, seed)

    def analysis_bot(self) -> str | None:
        """The bot spec the simulated model reasons with, or ``None`` for a one-move lookahead."""
        if self.sim_bot is not None:
            return self.sim_bot or None
        return self.default_opponent if self.default_opponent in self.bots else None


#: Hooks already imported, by (game class, reference): a model's every answer looks up its extractor.
_LOADED: dict[tuple[type[Game], str], Any] = {}


def seats_of(names: Sequence[str]) -> tuple[SeatInfo, ...]:
    """Convenience: build seat descriptions from names."""
    return tuple(SeatInfo(name=n, short=n[:1]) for n in names)
