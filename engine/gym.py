"""A Gymnasium adapter for single-player PlayTrace games.

Importing this module registers ``playtrace/2048-v0``::

    import gymnasium
    import engine.gym  # noqa: F401  (registers the environments)

    env = gymnasium.make("playtrace/2048-v0")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

The action space is ``Discrete`` over the game's fixed action list (for 2048: up, down, left,
right, in that order); the observation is the board as integers; the reward is the change in the
game's raw score (the merged sum for 2048); an episode terminates when the game is over. The same
seed gives the same episode, because the game state carries its own seed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from engine.core import Action, Game, State
from engine.registry import make

ENV_IDS: dict[str, str] = {"playtrace/2048-v0": "2048"}


def _board_space(game: Game) -> spaces.Space[Any]:
    size = int(getattr(game, "size", 4))
    # The largest tile a board of n*n cells can hold is 2**(n*n + 1) (131072 on 4x4). From 8x8 on
    # that exceeds int64 (Box would refuse it), and no tile that large can be reached in practice.
    high = min(2 ** (size * size + 1), int(np.iinfo(np.int64).max))
    return spaces.Box(low=0, high=high, shape=(size, size), dtype=np.int64)


def _board_obs(state: State) -> np.ndarray:
    return np.asarray(state.board, dtype=np.int64)  # type: ignore[attr-defined]


#: Per game: how to build the observation space and an observation from a state.
OBSERVERS: dict[str, tuple[Callable[[Game], spaces.Space[Any]], Callable[[State], np.ndarray]]] = {
    "2048": (_board_space, _board_obs),
}


class PlayTraceEnv(gymnasium.Env[np.ndarray, np.int64]):
    """A Gymnasium environment around one single-player PlayTrace game.

    Args:
        game_id: a registered single-player game with an observation builder in :data:`OBSERVERS`.
        render_mode: ``None`` or ``"ansi"`` (the game's text view).
        **options: game options (e.g. ``size=3`` for 2048).

    Actions that are not legal in the current state (none exist in 2048 while it is on) leave the
    state unchanged with reward 0 and ``info["illegal"] = True``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, game_id: str = "2048", render_mode: str | None = None, **options: Any) -> None:
        if game_id not in OBSERVERS:
            raise ValueError(f"no Gymnasium observation is defined for {game_id!r}; known: {', '.join(OBSERVERS)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.game = make(game_id, **options)
        if self.game.num_seats != 1 or self.game.simultaneous:
            raise ValueError(f"{game_id} is not a single-player game")
        self.render_mode = render_mode
        self.actions: tuple[Action, ...] = tuple(getattr(self.game, "actions", ()))
        if not self.actions:
            raise ValueError(f"{game_id} has no fixed action list")
        space_of, self._observe = OBSERVERS[game_id]
        self.observation_space = space_of(self.game)
        self.action_space = spaces.Discrete(len(self.actions))
        self.state: State | None = None

    def _info(self) -> dict[str, Any]:
        assert self.state is not None
        return {
            "score": float(self.state.scores[0]),
            "step": self.state.step,
            "legal": list(self.state.legal_actions()),
            **{k: float(v) for k, v in self.state.metrics().items()},
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        # The game's own seed comes from the env's generator, so reset(seed=s) fixes the whole episode.
        game_seed = int(self.np_random.integers(0, 2**31 - 1))
        self.state = self.game.initial_state(seed=game_seed)
        return self._observe(self.state), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self.state.is_over:
            raise RuntimeError("the episode is over; call reset()")
        if not self.action_space.contains(action):
            # Indexing the action list directly would turn -1 into the last action without a word.
            raise ValueError(f"{action!r} is not an action of {self.action_space}")
        name = self.actions[int(action)]
        before = self.state
        illegal = name not in before.legal_actions()
        if illegal:
            after, reward, changed = before, 0.0, False
        else:
            after = before.apply(name)
            transition = self.game.transition(before, after)
            reward, changed = float(transition.rewards[0]), transition.changed
        self.state = after
        info = self._info() | {"action": name, "changed": changed, "illegal": illegal}
        return self._observe(after), reward, after.is_over, False, info

    def render(self) -> str | None:  # type: ignore[override]
        if self.render_mode != "ansi" or self.state is None:
            return None
        return self.state.text()


def register_envs() -> None:
    """Register PlayTrace's environments with Gymnasium (idempotent)."""
    for env_id, game_id in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="engine.gym:PlayTraceEnv", kwargs={"game_id": game_id})


register_envs()
