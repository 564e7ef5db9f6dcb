"""The Gymnasium adapter: registration, the env checker, and an episode matching the engine."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import engine
import engine.gym
from engine.gym import PlayTraceEnv


def test_registered_and_passes_the_env_checker() -> None:
    assert "playtrace/2048-v0" in gymnasium.registry
    env = gymnasium.make("playtrace/2048-v0", render_mode="ansi")
    assert isinstance(env.unwrapped, PlayTraceEnv)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker reports problems as warnings
        check_env(env.unwrapped)
    env.close()


def test_registration_is_idempotent() -> None:
    engine.gym.register_envs()
    assert gymnasium.spec("playtrace/2048-v0").entry_point == "engine.gym:PlayTraceEnv"


def test_episode_matches_the_engine() -> None:
    env = gymnasium.make("playtrace/2048-v0", render_mode="ansi")
    obs, info = env.reset(seed=123)
    base = env.unwrapped
    assert isinstance(base, PlayTraceEnv)
    assert base.actions == ("up", "down", "left", "right")
    assert env.action_space == gymnasium.spaces.Discrete(4)
    assert obs.shape == (4, 4) and obs.dtype == np.int64
    assert int((obs > 0).sum()) == 2
    assert info["score"] == 0.0 and info["step"] == 0
    state = base.state
    assert state is not None
    game = engine.make("2048")
    rng = np.random.default_rng(0)
    total = 0.0
    terminated = truncated = False
    steps = 0
    while not (terminated or truncated) and steps < 2000:
        action = int(rng.integers(4))
        expected = state.apply(base.actions[action])
        obs, reward, terminated, truncated, info = env.step(action)
        reward_expected = game.transition(state, expected).rewards[0]
        assert reward == reward_expected
        assert np.array_equal(obs, np.array(expected.board))
        assert terminated == expected.is_over and not truncated
        assert info["action"] == base.actions[action]
        state = expected
        total += reward
        steps += 1
    assert terminated
    assert total == info["score"] == state.scores[0] > 0
    text = env.render()
    assert isinstance(text, str) and "Game over" in text
    env.close()


def test_same_seed_same_episode() -> None:
    def episode(seed: int) -> list[np.ndarray]:
        env = gymnasium.make("playtrace/2048-v0")
        obs, _ = env.reset(seed=seed)
        frames = [obs]
        for a in [0, 2, 1, 3] * 10:
            obs, *_ = env.step(a)
            frames.append(obs)
        return frames

    a, b, c = episode(5), episode(5), episode(6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_options_and_errors() -> None:
    env = gymnasium.make("playtrace/2048-v0", size=3)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (3, 3)
    assert env.render() is None  # no render mode
    with pytest.raises(ValueError, match="seats 0..1"):
        PlayTraceEnv("tictactoe", agent_seat=2)
    with pytest.raises(ValueError, match="size"):
        PlayTraceEnv("2048", size=9)
    with pytest.raises(ValueError):
        PlayTraceEnv("2048", render_mode="human")
    with pytest.raises(RuntimeError):
        PlayTraceEnv("2048").step(0)


def test_largest_board_builds_an_observation_space() -> None:
    # size 8 is a valid 2048 option; its theoretical top tile (2**65) does not fit int64.
    env = PlayTraceEnv(size=8)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (8, 8) and env.observation_space.contains(obs)


def test_out_of_range_actions_are_refused() -> None:
    env = PlayTraceEnv()
    env.reset(seed=0)
    for bad in (-1, 4):
        with pytest.raises(ValueError):
            env.step(bad)
    assert env.state is not None and env.state.step == 0
    env.step(np.int64(2))
    assert env.state.step == 1


def test_a_two_seat_game_is_played_against_its_default_opponent() -> None:
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("playtrace/tictactoe-v0")
    check_env(env.unwrapped)
    obs, info = env.reset(seed=4)
    # The board as two planes (mine, the opponent's), PettingZoo's tictactoe_v3 layout.
    assert obs.shape == (3, 3, 2) and not obs.any() and len(info["legal"]) == 9
    # X plays the centre; minimax (O) answers at once, so X is to move again with two cells taken.
    obs, reward, terminated, _, info = env.step(4)
    assert not terminated and reward == 0.0 and len(info["legal"]) == 7
    assert obs[1, 1, 0] == 1 and obs[:, :, 1].sum() == 1  # my centre, and minimax's answer
    o_seat = PlayTraceEnv("tictactoe", agent_seat=1)
    _, info = o_seat.reset(seed=1)
    assert len(info["legal"]) == 8  # minimax already opened as X
