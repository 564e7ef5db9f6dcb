"""Gymnasium environments for every PlayTrace game with a fixed action list.

Importing this module registers ``playtrace/<id>-v0`` for each available game (:func:`register_envs`
runs again after a plug-in is installed)::

    import gymnasium
    import engine.gym  # noqa: F401  (registers the environments)

    env = gymnasium.make("playtrace/2048-v0")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

The agent plays seat 0 (``agent_seat`` changes it); every other seat is played by the game's default
opponent (``Game.default_opponent``, or ``opponent="random"``), seeded from the environment's seed.
The action space is ``Discrete`` over the game's fixed action list (``Game.actions``). The observation
is the game's own encoding when it declares one (``Game.observation``, an :class:`ObservationCodec`:
2048 gives the board as integers), otherwise the agent seat's text view. Only the agent seat's view is
ever observed, so hidden information stays hidden. The reward is the agent seat's change in raw
score; an episode terminates when the game is over. The same seed gives the same episode.
"""

from __future__ import annotations

import string
from collections.abc import Coroutine
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces

from engine.core import Action, Game, Seat, State
from engine.frames import frame, frame_size
from engine.players import Decision, Observation, Player
from engine.registry import entries, make
from engine.roster import make_player

__all__ = ["ObservationCodec", "PlayTraceEnv", "TextObservation", "env_id", "register_envs"]

#: Characters a text observation may contain; anything else is written as ``?``.
TEXT_CHARSET = string.printable
TEXT_MAX_LENGTH = 8192


class ObservationCodec(Protocol):
    """How a game's states become Gymnasium observations (named by ``Game.observation``)."""

    def __init__(self, game: Game) -> None: ...

    @property
    def space(self) -> spaces.Space[Any]: ...

    def encode(self, view: State, seat: Seat) -> Any: ...


class TextObservation:
    """The default observation: the seat's text view, in a :class:`gymnasium.spaces.Text` space."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.space = spaces.Text(max_length=TEXT_MAX_LENGTH, min_length=0, charset=TEXT_CHARSET)
        self._allowed = frozenset(TEXT_CHARSET)

    def encode(self, view: State, seat: Seat) -> str:
        text = view.text(seat)
        return "".join(c if c in self._allowed else "?" for c in text)[:TEXT_MAX_LENGTH]


#: Integer types whose membership in a ``Discrete`` space is a plain range check.
_PLAIN_INTS = frozenset(
    {int, np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32, np.uint16, np.uint8}
)


def env_id(game_id: str) -> str:
    """The Gymnasium id of a game: ``playtrace/<id>-v0``."""
    return f"playtrace/{game_id}-v0"


def _run_now(coroutine: Coroutine[Any, Any, Decision]) -> Decision:
    """Run a bot's ``act`` to completion without an event loop: built-in bots never wait on anything."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise RuntimeError("an opponent waited on something; only bots that decide at once can play in Gymnasium")


class PlayTraceEnv(gymnasium.Env[Any, np.int64]):
    """A Gymnasium environment around one PlayTrace game, seen from one seat.

    Args:
        game_id: A registered game with a fixed action list (``Game.actions``).
        render_mode: ``None``, ``"ansi"`` (the agent seat's text view) or ``"rgb_array"`` (the
            picture the app shows, drawn by the game's renderer, as a ``height x width x 3`` array).
        render_size: ``(width, height)`` of ``rgb_array`` frames (default: 512 wide, the renderer's
            aspect).
        agent_seat: The seat the agent plays.
        opponent: The player spec for every other seat (default: the game's default opponent).
        **options: Game options (e.g. ``size=3`` for 2048).

    Actions that are not legal in the current state leave the state unchanged with reward 0 and
    ``info["illegal"] = True``; ``info["legal"]`` lists the legal ones. ``info["text"]`` is the agent
    seat's text view, the one a model is given.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        game_id: str = "2048",
        render_mode: str | None = None,
        *,
        agent_seat: Seat = 0,
        opponent: str | None = None,
        render_size: tuple[int, int] | None = None,
        **options: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', not {render_mode!r}")
        self.render_size = render_size
        self.game = make(game_id, **options)
        if not self.game.actions:
            raise ValueError(f"{game_id} has no fixed action list, so it has no Gymnasium action space")
        if not 0 <= agent_seat < self.game.num_seats:
            raise ValueError(f"{game_id} has seats 0..{self.game.num_seats - 1}, not {agent_seat}")
        self.render_mode = render_mode
        self.agent_seat = agent_seat
        self.opponent = opponent or self.game.default_opponent
        self.actions: tuple[Action, ...] = tuple(self.game.actions)
        codec = self.game.load(self.game.observation) if self.game.observation else TextObservation
        self.codec: ObservationCodec = codec(self.game)
        self.observation_space = self.codec.space
        self.action_space = spaces.Discrete(len(self.actions))
        self.state: State | None = None
        self._others: dict[Seat, Player] = {}
        #: The agent seat's legal actions in the state they were listed for (each state's list is
        #: worked out once: ``info`` hands it out and the next step checks the action against it).
        self._legal_in: tuple[State | None, frozenset[Action]] = (None, frozenset())

    def _observe(self) -> Any:
        assert self.state is not None
        return self.codec.encode(self.state.observe(self.agent_seat), self.agent_seat)

    def _info(self) -> dict[str, Any]:
        state = self.state
        assert state is not None
        seat = self.agent_seat
        legal = list(state.legal_actions(seat))
        self._legal_in = (state, frozenset(legal))
        info = {
            "score": float(state.scores[seat]),
            "step": state.step,
            "legal": legal,
            "text": state.observe(seat).text(seat),
        }
        for key, value in state.metrics().items():
            info[key] = float(value)
        return info

    def _is_legal(self, state: State, action: Action) -> bool:
        known, legal = self._legal_in
        if known is state:
            return action in legal
        return action in state.legal_actions(self.agent_seat)

    def _play_others(self, agent_action: Action | None) -> None:
        """Let the other seats act until the agent must act (or the game ends)."""
        assert self.state is not None
        if agent_action is not None and self.game.num_seats == 1:
            # Alone at the table, the agent's action is the whole turn (what the loop below does).
            self.state = self.state.apply(self.game.move({self.agent_seat: agent_action}))
            return
        while not self.state.is_over:
            seats = self.state.to_act
            if self.agent_seat in seats and agent_action is None:
                return
            joint: dict[Seat, Action] = {}
            for seat in seats:
                if seat == self.agent_seat:
                    assert agent_action is not None
                    joint[seat] = agent_action
                    continue
                view = self.state.observe(seat)
                obs = Observation(self.game, view, seat, tuple(self.state.legal_actions(seat)))
                decision = _run_now(self._others[seat].act(obs))
                if decision.action is None:
                    raise RuntimeError(f"the {self.opponent} opponent in seat {seat} gave up")
                joint[seat] = decision.action
            self.state = self.state.apply(self.game.move(joint))
            if self.agent_seat in joint:
                agent_action = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        # The game's own seed comes from the env's generator, so reset(seed=s) fixes the whole episode.
        game_seed = int(self.np_random.integers(0, 2**31 - 1))
        self.state = self.game.initial_state(seed=game_seed)
        self._others = {
            s: make_player(self.opponent, self.game, seed=game_seed + s)
            for s in range(self.game.num_seats)
            if s != self.agent_seat
        }
        self._play_others(None)
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self.state.is_over:
            raise RuntimeError("the episode is over; call reset()")
        space = self.action_space
        if type(action) in _PLAIN_INTS and type(space) is spaces.Discrete:
            # What ``Discrete.contains`` decides for a plain integer, without its conversions.
            valid = int(space.start) <= action < int(space.start) + int(space.n)
        else:
            valid = space.contains(action)
        if not valid:
            # Indexing the action list directly would turn -1 into the last action without a word.
            raise ValueError(f"{action!r} is not an action of {self.action_space}")
        name = self.actions[int(action)]
        before = self.state
        illegal = not self._is_legal(before, name)
        changed = False
        if not illegal:
            self._play_others(name)
            changed = self.game.transition(before, self.state).changed
        reward = float(self.state.scores[self.agent_seat] - before.scores[self.agent_seat])
        info = self._info() | {"action": name, "changed": changed, "illegal": illegal}
        return self._observe(), reward, self.state.is_over, False, info

    def render(self) -> Any:
        if self.render_mode is None or self.state is None:
            return None
        view = self.state.observe(self.agent_seat)
        if self.render_mode == "ansi":
            return view.text(self.agent_seat)
        return frame(self.game.id, view, *frame_size(self.game.id, self.render_size))


def register_envs() -> list[str]:
    """Register an environment for every available game with a fixed action list (idempotent);
    returns the Gymnasium ids."""
    ids = []
    for entry in entries(include_unavailable=False):
        if entry.cls is None or not entry.cls.actions:
            continue
        name = env_id(entry.id)
        if name not in gymnasium.registry:
            gymnasium.register(id=name, entry_point="engine.gym:PlayTraceEnv", kwargs={"game_id": entry.id})
        ids.append(name)
    return ids


register_envs()
