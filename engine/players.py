"""Players: everything that can sit in a seat implements ``async act(observation) -> Decision``.

Humans, random play, search bots, Stockfish, language models and the offline simulated model are
interchangeable to the match loop. A :class:`HumanPlayer` awaits a future that the app (or a test)
resolves with :meth:`HumanPlayer.submit`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from engine.core import Action, Game, Seat, State
from engine.events import Event, EventSink, ignore_event

HUMAN = "human"
BOT = "bot"
MODEL = "model"


@dataclasses.dataclass(frozen=True, slots=True)
class StepRecord:
    """One applied step, as remembered by the match (and by the model harness's memory module)."""

    step: int
    state: State
    actions: Mapping[Seat, Action]
    rewards: tuple[float, ...]
    next_state: State


@dataclasses.dataclass(frozen=True, slots=True)
class Observation:
    """What a player receives when it must act.

    ``emit`` records facts into the session (prompts, reasoning, parse chain) and the live panels;
    ``render(state, *, grid_labels=True)`` draws a state to PNG bytes with the same renderer the screen
    uses (optionally with row/column labels around the board), when one is there.
    """

    game: Game
    state: State
    seat: Seat
    legal_actions: tuple[Action, ...]
    history: Sequence[StepRecord] = ()
    emit: EventSink = ignore_event
    render: Callable[..., bytes] | None = None
    call: int = 0

    @property
    def step(self) -> int:
        return self.state.step

    def record(self, type_: str, data: Mapping[str, Any] | None = None, **kw: Any) -> None:
        """Emit an event stamped with this observation's step, seat and call."""
        self.emit(Event(type_, dict(data or {}), step=self.step, seat=self.seat, call=self.call, **kw))


@dataclasses.dataclass(slots=True)
class Decision:
    """A player's choice and why: ``values`` holds what a search bot computed per action."""

    action: Action | None
    source: str = BOT
    rationale: str = ""
    values: dict[Action, float] | None = None
    #: Set when the player gives up (a model that exhausted its invalid-answer policy, a human resign).
    forfeit: bool = False
    #: Extra facts for the ``decision`` event (policy applied, call counts...).
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"action": self.action, "source": self.source}
        if self.rationale:
            data["rationale"] = self.rationale
        if self.values is not None:
            data["values"] = {a: round(v, 6) for a, v in self.values.items()}
        if self.forfeit:
            data["forfeit"] = True
        data.update(self.extra)
        return data


@runtime_checkable
class Player(Protocol):
    """Anything that can sit in a seat."""

    #: ``"human"``, ``"bot"`` or ``"model"``.
    kind: str
    #: The spec it was made from (``"random"``, ``"minimax"``, ``"sim"``, ``"openai:gpt-4.1-mini"``).
    spec: str
    #: A short name for people (``"Random"``, ``"Minimax"``, ``"Simulated model"``).
    label: str

    async def act(self, observation: Observation) -> Decision: ...


class RandomPlayer:
    """Uniform random choice over the legal actions (the papers' random baseline)."""

    kind = BOT
    spec = "random"
    label = "Random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    async def act(self, observation: Observation) -> Decision:
        action = self._rng.choice(observation.legal_actions)
        return Decision(action, rationale=f"uniform over {len(observation.legal_actions)} legal actions")


class HumanPlayer:
    """A person at the board: :meth:`act` waits until :meth:`submit` is called with a legal action."""

    kind = HUMAN
    spec = "human"

    def __init__(self, label: str = "Human") -> None:
        self.label = label
        self._future: asyncio.Future[Action] | None = None
        self._observation: Observation | None = None

    @property
    def waiting(self) -> Observation | None:
        """The observation the human is asked to act on, or ``None`` when it is not their turn."""
        return self._observation if self._future is not None and not self._future.done() else None

    async def act(self, observation: Observation) -> Decision:
        loop = asyncio.get_running_loop()
        self._future = loop.create_future()
        self._observation = observation
        started = loop.time()
        try:
            action = await self._future
        finally:
            self._observation = None
        return Decision(action, source=HUMAN, extra={"latency_ms": round((loop.time() - started) * 1000)})

    def submit(self, action: Action) -> bool:
        """Play ``action`` if the human is to move and it is legal; returns whether it was taken."""
        obs = self.waiting
        if obs is None or self._future is None or action not in obs.legal_actions:
            return False
        self._future.set_result(action)
        return True


BotFactory = Callable[[Game, int | None], Player]
_BOTS: dict[str, dict[str, BotFactory]] = {}
_MODEL_FACTORY: Callable[..., Player] | None = None


def register_bot(game_id: str, name: str, factory: BotFactory) -> None:
    """Make ``name`` a player spec for ``game_id`` (``"*"`` for every game)."""
    _BOTS.setdefault(game_id, {})[name] = factory


def bots_for(game_id: str) -> list[str]:
    """The bot specs available for a game (``random`` first)."""
    _load_bots()
    names = ["random", *sorted(_BOTS.get(game_id, {})), *sorted(_BOTS.get("*", {}))]
    return list(dict.fromkeys(names))


def _load_bots() -> None:
    import engine.bots  # noqa: F401  (registers the built-in bots)


#: Spec prefixes that name a model player (the last four are presets of local OpenAI-compatible servers).
MODEL_PREFIXES = ("sim", "openai", "anthropic", "local", "ollama", "lmstudio", "vllm", "llamacpp")


def is_model_spec(spec: str) -> bool:
    return spec.split(":", 1)[0] in MODEL_PREFIXES


def make_player(spec: str, game: Game, *, seed: int | None = None, **model_options: Any) -> Player:
    """Build a player from its spec (``human``, ``random``, a bot name, ``sim``, ``openai:MODEL``...).

    Raises:
        ValueError: the spec names nothing PlayTrace knows for this game; the message lists choices.
    """
    spec = spec.strip()
    if spec == HUMAN:
        return HumanPlayer()
    if spec == "random":
        return RandomPlayer(seed)
    if is_model_spec(spec):
        from engine.agent.player import make_model_player

        return make_model_player(spec, game, seed=seed, **model_options)
    _load_bots()
    factory = _BOTS.get(game.id, {}).get(spec) or _BOTS.get("*", {}).get(spec)
    if factory is None:
        choices = ", ".join([HUMAN, *bots_for(game.id), "sim", "openai:MODEL", "anthropic:MODEL"])
        raise ValueError(f"unknown player {spec!r} for {game.id}; choose from: {choices}")
    return factory(game, seed)
