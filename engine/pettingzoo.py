"""Every multi-seat game as a PettingZoo AEC environment: the same rules and bots the app shows.

PettingZoo is an optional extra (``pip install 'playtrace[pettingzoo]'``)::

    from engine import pettingzoo as ptz

    env = ptz.env("connect4", render_mode="rgb_array")
    env.reset(seed=0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        mask = observation["action_mask"]
        action = None if terminated or truncated else env.action_space(agent).sample(mask)
        env.step(action)
    frame = env.render()  # height x width x 3 uint8, drawn by the game's own renderer

How a PlayTrace game maps onto PettingZoo's contract:

* agents are ``"player_0"``, ``"player_1"``, ... in seat order (``env.seat_names`` gives each one's
  seat name, "X", "Black", ...);
* the action space is ``Discrete(len(Game.actions))`` over the game's fixed action list when it has one
  (Connect Four's 42 cells), else ``Discrete(Game.action_bound)`` numbering the seat's legal actions in
  sorted order (:meth:`PlayTraceAEC.action_name` turns an index back into the action);
* an observation is ``{"observation": ..., "action_mask": int8 vector}``: the game's own numeric
  encoding when it declares one (``Game.observation``, the Gymnasium codec), else the seat's text view
  as a fixed-length vector of UTF-8 bytes (zero-padded). Only the seat's own view is ever encoded, so
  hidden information stays hidden. The mask is non-zero only for the agent that must act now;
* simultaneous games (``Game.simultaneous``: Pong, Surround) take each live agent's action in turn and
  apply them together once every seat to act has chosen; rewards then arrive for all at once;
* rewards are :meth:`Game.transition`'s per-seat rewards; every agent terminates when the game ends and
  is truncated when ``max_episode_steps`` (the game's own bound unless given) is reached first;
* an action the mask forbids leaves the state unchanged, with reward 0 and ``info["illegal"] = True``
  for that agent, who is asked again (as :mod:`engine.gym` does);
* ``render()`` gives the ``"ansi"`` text view or, for ``"rgb_array"``, the frame the game's renderer
  draws (the app's own picture) as a ``height x width x 3`` uint8 array. The renderers need Qt, which the
  engine never imports: they are looked up only when a frame is asked for.

``reset(seed=s)`` fixes the whole episode, chance included.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from engine.core import Action, Game, Seat, State
from engine.frames import DEFAULT_FRAME_WIDTH, frame, frame_size
from engine.registry import entries, make

try:
    from pettingzoo import AECEnv
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "PettingZoo is not installed; install it with: pip install 'playtrace[pettingzoo]'"
    ) from exc

__all__ = ["DEFAULT_FRAME_WIDTH", "TEXT_LENGTH", "PlayTraceAEC", "env", "games"]

#: Bytes of a text observation (the seat's text view as UTF-8, zero-padded or cut).
TEXT_LENGTH = 16384

_NUMERIC_SPACES = (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)


def games() -> list[str]:
    """The ids of the available games with two or more seats and an action space (a fixed action
    list or an action bound): those :func:`env` can wrap."""
    return [
        e.id
        for e in entries(include_unavailable=False)
        if e.cls is not None and len(e.cls.seats) >= 2 and (e.cls.actions or e.cls.action_bound)
    ]


def env(game_id: str, render_mode: str | None = None, **options: Any) -> PlayTraceAEC:
    """The PettingZoo AEC environment of ``game_id`` (game options as keywords).

    Keywords the adapter itself takes: ``render_size=(width, height)`` for ``rgb_array`` frames,
    ``max_episode_steps`` (truncation), ``text_length`` (bytes of a text observation).

    Raises:
        engine.UnknownGameError: no such game, or it cannot be played here.
        ValueError: the game has one seat (use :mod:`engine.gym`), or no fixed-size action space.
    """
    return PlayTraceAEC(game_id, render_mode=render_mode, **options)


class _TextBytes:
    """The fallback observation: the seat's text view as UTF-8 bytes in a fixed-length vector."""

    def __init__(self, length: int) -> None:
        self.length = length
        self.space: spaces.Space[Any] = spaces.Box(low=0, high=255, shape=(length,), dtype=np.uint8)

    def encode(self, view: State, seat: Seat) -> np.ndarray:
        data = view.text(seat).encode("utf-8")[: self.length]
        out = np.zeros(self.length, dtype=np.uint8)
        out[: len(data)] = np.frombuffer(data, dtype=np.uint8)
        return out


class _ActionSpace(spaces.Discrete):
    """``Discrete`` whose seeding from :meth:`PlayTraceAEC.reset` waits until it is first drawn from.

    ``reset(seed=s)`` seeds each agent's space; making a numpy generator costs about as much as a
    whole turn of a quick game, and most loops never sample the spaces. The seed is kept and the
    generator made on first use, so ``sample()`` draws exactly what it would have drawn."""

    _pending: int | None = None

    def defer_seed(self, seed: int) -> None:
        """Seed with ``seed`` when the generator is next needed."""
        self._pending = seed
        self._np_random = None  # type: ignore[assignment]  # PettingZoo makes it again when next needed

    @property
    def np_random(self) -> np.random.Generator:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            super().seed(pending)
        return super().np_random

    def seed(self, seed: int | None = None) -> int | Any:
        self._pending = None
        return super().seed(seed)


class PlayTraceAEC(AECEnv):  # type: ignore[misc]
    """A PlayTrace game as a PettingZoo AEC environment (see the module's documentation).

    Args:
        game_id: A registered game with at least two seats.
        render_mode: ``None``, ``"ansi"`` or ``"rgb_array"``.
        render_size: ``(width, height)`` of ``rgb_array`` frames (default: 512 wide, the renderer's
            aspect).
        max_episode_steps: Truncate after this many steps (default: ``Game.max_episode_steps``).
        text_length: Bytes of a text observation, for games without a numeric encoding.
        **options: Game options.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "name": "playtrace", "render_fps": 4,
                                "is_parallelizable": False}

    def __init__(
        self,
        game_id: str,
        render_mode: str | None = None,
        *,
        render_size: tuple[int, int] | None = None,
        max_episode_steps: int | None = None,
        text_length: int = TEXT_LENGTH,
        **options: Any,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in ("ansi", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', not {render_mode!r}")
        self.game: Game = make(game_id, **options)
        if self.game.num_seats < 2:
            raise ValueError(f"{game_id} has one seat; use its Gymnasium environment (engine.gym) instead")
        self.fixed: tuple[Action, ...] = tuple(self.game.actions)
        self._index = {a: i for i, a in enumerate(self.fixed)}
        self._legal_key: tuple[int, Seat, int] | None = None
        self._legal_for: State | None = None
        self._legal: list[Action] = []
        size = len(self.fixed) or int(self.game.action_bound or 0)
        if size < 1:
            raise ValueError(f"{game_id} declares neither a fixed action list nor an action bound")
        self.metadata = {**type(self).metadata, "name": f"playtrace_{game_id}_v0"}
        self.render_mode = render_mode
        self.render_size = render_size
        self.max_episode_steps = max_episode_steps or self.game.max_episode_steps
        self.possible_agents = [f"player_{i}" for i in range(self.game.num_seats)]
        #: Each agent's seat name ("X", "O").
        self.seat_names = {a: self.game.seats[i].name for i, a in enumerate(self.possible_agents)}
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.codec = self._codec(text_length)
        self.action_spaces = {a: _ActionSpace(size) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": self.codec.space,
                    "action_mask": spaces.Box(low=0, high=1, shape=(size,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.game_state: State | None = None
        self._pending: dict[Seat, Action] = {}
        self._np_random, _ = seeding.np_random(None)

    def _codec(self, text_length: int) -> Any:
        """The game's numeric observation codec, or the text-bytes fallback."""
        if self.game.observation:
            codec = self.game.load(self.game.observation)(self.game)
            if isinstance(codec.space, _NUMERIC_SPACES):
                return codec
        return _TextBytes(text_length)

    # -- spaces ---------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- what the agents see --------------------------------------------------------------------

    def _state(self) -> State:
        if self.game_state is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game_state

    def _acting(self, seat: Seat) -> bool:
        """Whether ``seat`` must choose now (in a simultaneous game: and has not chosen yet)."""
        state = self._state()
        return seat in state.to_act and seat not in self._pending

    def legal_actions(self, agent: str) -> list[Action]:
        """The agent's legal actions now, in the order the action space numbers them when the game
        has no fixed list (sorted); empty when it is not the agent's turn."""
        seat = self._seat[agent]
        state = self._state()
        key = (id(state), seat, len(self._pending))
        if self._legal_key == key and self._legal_for is state:
            return self._legal
        legal: list[Action] = []
        if seat in state.to_act and seat not in self._pending:
            legal = list(state.legal_actions(seat))
            if not self.fixed:
                legal.sort()
        # Asked for the mask, then again to check the action: computed once per state and agent.
        self._legal_key, self._legal_for, self._legal = key, state, legal
        return legal

    def action_name(self, agent: str, index: int) -> Action | None:
        """The action ``index`` means for ``agent`` now, or ``None`` when it means nothing legal."""
        if self.fixed:
            return self.fixed[index] if 0 <= index < len(self.fixed) else None
        legal = self.legal_actions(agent)
        return legal[index] if 0 <= index < len(legal) else None

    def action_mask(self, agent: str) -> np.ndarray:
        mask = np.zeros(self.action_spaces[agent].n, dtype=np.int8)
        legal = self.legal_actions(agent)
        if self.fixed:
            index = self._index
            for action in legal:
                if action in index:
                    mask[index[action]] = 1
        else:
            mask[: min(len(legal), len(mask))] = 1
        return mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        view = self._state().observe(seat)
        return {"observation": self.codec.encode(view, seat), "action_mask": self.action_mask(agent)}

    # -- the episode ----------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
            for i, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].defer_seed(seed + i)
        # The game's own seed comes from the env's generator, so reset(seed=s) fixes the whole episode.
        game_seed = int(self._np_random.integers(0, 2**31 - 1))
        self.game_state = self.game.initial_state(seed=game_seed)
        self._pending = {}
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {"seat": self.seat_names[a]} for a in self.agents}
        self._skip_agent_selection = None
        self.agent_selection = self._next_to_act()

    def _next_to_act(self) -> str:
        """The agent to act next: the first seat to act that has not chosen yet."""
        state = self._state()
        for seat in state.to_act:
            if seat not in self._pending:
                return self.possible_agents[seat]
        return self.agents[0] if self.agents else self.possible_agents[0]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: None is only for agents that are done")
        index = int(action)
        if not self.action_spaces[agent].contains(index):
            raise ValueError(f"{action!r} is not an action of {self.action_spaces[agent]}")
        seat = self._seat[agent]
        self._cumulative_rewards[agent] = 0.0
        name = self.action_name(agent, index)
        self.infos[agent] = {"seat": self.seat_names[agent]}
        if name is None or name not in self.legal_actions(agent):
            self._clear_rewards()
            self.infos[agent] = {**self.infos[agent], "illegal": True, "legal": self.legal_actions(agent)}
            self._accumulate_rewards()
            return
        before = self._state()
        self._pending[seat] = name
        if any(s not in self._pending for s in before.to_act):
            # A simultaneous game waits for every seat to act before anything happens.
            self._clear_rewards()
            self.agent_selection = self._next_to_act()
            self._accumulate_rewards()
            return
        after = before.apply(self.game.move(self._pending))
        self._pending = {}
        self.game_state = after
        rewards = self.game.transition(before, after).rewards
        for a in self.agents:
            self.rewards[a] = float(rewards[self._seat[a]])
        if after.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.max_episode_steps is not None and after.step >= self.max_episode_steps:
            self.truncations = dict.fromkeys(self.agents, True)
        if after.is_over or any(self.truncations.values()):
            # Everyone is done: the agent after the last actor steps out first.
            order = self.agents
            self.agent_selection = order[(order.index(agent) + 1) % len(order)]
        else:
            self.agent_selection = self._next_to_act()
        self._accumulate_rewards()

    # -- pictures -------------------------------------------------------------------------------

    def render(self) -> Any:
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode; pass render_mode to env()")
            return None
        state = self._state()
        if self.render_mode == "ansi":
            return state.text(None)
        return self._frame(state)

    def frame_size(self) -> tuple[int, int]:
        """``(width, height)`` of an ``rgb_array`` frame."""
        return frame_size(self.game.id, self.render_size)

    def _frame(self, state: State) -> np.ndarray:
        return frame(self.game.id, state, *self.frame_size())

    def close(self) -> None:
        """Nothing to release: renderers are shared and keep no per-environment state."""

