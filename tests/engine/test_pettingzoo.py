"""Every multi-seat game as a PettingZoo AEC environment: PettingZoo's own API test, actions and masks,
simultaneous moves, seeding, and rgb_array frames from the game's renderer."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test  # noqa: E402

import engine  # noqa: E402
from engine import pettingzoo as ptz  # noqa: E402
from engine.games.tictactoe import TicTacToe  # noqa: E402
from tests.toys import installed  # noqa: E402

# A dict observation (board plus action mask) is PettingZoo's own convention for board games; its API
# test only whitelists its own classic games by name when it warns about it.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation is not a NumPy array", "ignore:Observation space for each agent probably"
)

#: Every available game with two or more seats (games still being written may be missing).
GAMES = ptz.games()


@pytest.fixture
def toys() -> Iterator[None]:
    with installed():
        yield


def play_out(env: ptz.PlayTraceAEC, rng: random.Random) -> dict[str, float]:
    """Random masked play to the end; returns each agent's total reward."""
    totals: dict[str, float] = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(10_000):
        obs, reward, terminated, truncated, _info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(list(legal))))
    return totals


def test_the_gamebot_board_games_are_wrapped() -> None:
    assert {"tictactoe", "connect4"} <= set(GAMES)
    assert "2048" not in GAMES  # one seat: Gymnasium's business


@pytest.mark.parametrize("game_id", GAMES)
def test_pettingzoos_api_test_passes(game_id: str) -> None:
    api_test(ptz.env(game_id), num_cycles=300)


@pytest.mark.parametrize("game_id", ["highcard", "triple"])
def test_api_test_passes_for_hidden_cards_and_three_simultaneous_seats(toys: None, game_id: str) -> None:
    api_test(ptz.env(game_id), num_cycles=100)


def test_connect4_actions_masks_and_observations() -> None:
    env = ptz.env("connect4")
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1"]
    assert env.seat_names == {"player_0": "X", "player_1": "O"}
    assert env.action_space("player_0").n == 42 and env.agent_selection == "player_0"
    obs = env.observe("player_0")
    assert obs["observation"].shape == (6, 7, 2) and obs["observation"].dtype == np.int8
    assert list(np.flatnonzero(obs["action_mask"])) == list(range(7))  # (0,0)..(0,6)
    assert not env.observe("player_1")["action_mask"].any()  # not O's turn
    env.step(3)  # "(0,3)"
    assert env.game_state is not None and env.game_state.cells[3] == "X"
    assert env.agent_selection == "player_1"
    mine = env.observe("player_1")["observation"]
    assert mine[0, 3, 1] == 1 and mine[0, 3, 0] == 0  # O sees X's disc in the opponent plane
    assert list(np.flatnonzero(env.observe("player_1")["action_mask"])) == [0, 1, 2, 4, 5, 6, 10]


def test_an_illegal_index_changes_nothing_and_says_so() -> None:
    env = ptz.env("connect4")
    env.reset(seed=0)
    before = env.game_state
    env.step(17)  # "(2,3)": not playable on an empty board
    assert env.game_state == before and env.agent_selection == "player_0"
    assert env.infos["player_0"]["illegal"] and "(0,3)" in env.infos["player_0"]["legal"]
    with pytest.raises(ValueError):
        env.step(42)
    with pytest.raises(ValueError):
        env.step(None)


@pytest.mark.parametrize("game_id", ["tictactoe", "connect4"])
def test_a_random_game_runs_to_the_end_with_frames_of_the_renderers_size(game_id: str) -> None:
    import renderers

    env = ptz.env(game_id, render_mode="rgb_array")
    env.reset(seed=3)
    first = env.render()
    aspect = renderers.get(game_id).aspect
    width, height = ptz.DEFAULT_FRAME_WIDTH, round(ptz.DEFAULT_FRAME_WIDTH / aspect)
    assert isinstance(first, np.ndarray) and first.dtype == np.uint8 and first.shape == (height, width, 3)
    totals = play_out(env, random.Random(3))
    assert env.agents == [] and env.game_state is not None and env.game_state.is_over
    state = env.game_state
    assert [totals[a] for a in env.possible_agents] == list(state.scores)
    last = env.render()
    assert last.shape == first.shape and (last != first).any()
    expected = renderers.get(game_id).render(state, width, height)
    from tests.renderers.render_helpers import pixels

    assert np.array_equal(last, pixels(expected))
    small = ptz.env(game_id, render_mode="rgb_array", render_size=(300, 200))
    small.reset(seed=0)
    assert small.render().shape == (200, 300, 3)
    text = ptz.env(game_id, render_mode="ansi")
    text.reset(seed=0)
    assert isinstance(text.render(), str) and "to move" in text.render()


def test_the_same_seed_gives_the_same_episode() -> None:
    def episode(seed: int) -> list[Any]:
        env = ptz.env("connect4")
        env.reset(seed=seed)
        seen = []
        for agent in env.agent_iter(100):
            obs, _reward, terminated, truncated, _ = env.last()
            action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
            seen.append(action)
            env.step(action)
        return seen

    assert episode(7) == episode(7)
    assert episode(7) != episode(8)


def test_simultaneous_seats_act_in_turn_and_move_together(toys: None) -> None:
    env = ptz.env("triple")
    env.reset(seed=0)
    start = env.game_state
    assert env.agent_selection == "player_0"
    env.step(0)
    assert env.game_state == start and env.agent_selection == "player_1"
    assert not env.observe("player_0")["action_mask"].any() and env.observe("player_1")["action_mask"].all()
    env.step(0)
    assert env.game_state == start and env.agent_selection == "player_2"
    env.step(1)  # seats pick 1, 1, 2: seat 2 holds the lowest unique number
    assert env.game_state is not None and env.game_state.step == 1
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 1.0}
    assert env.agent_selection == "player_0"


def test_hidden_cards_stay_hidden(toys: None) -> None:
    env = ptz.env("highcard")
    env.reset(seed=5)
    state = env.game_state
    own = bytes(env.observe("player_1")["observation"]).decode("utf-8").rstrip("\0")
    assert str(state.cards[1]) in own and f"card {state.cards[0]}" not in own.lower()


class _Bounded(TicTacToe):
    """Tic-tac-toe declared without its fixed action list: the legal actions are numbered instead."""

    actions: ClassVar[tuple[str, ...]] = ()
    action_bound: ClassVar[int | None] = 9
    observation: ClassVar[str | None] = None  # the text view, bytes in a fixed-length vector


def test_games_without_a_fixed_list_number_their_sorted_legal_actions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ptz, "make", lambda game_id, **options: _Bounded(**options))
    env = ptz.env("tictactoe")
    env.reset(seed=0)
    assert env.action_space("player_0").n == 9
    env.step(4)  # the fifth legal action in sorted order: "(1,1)"
    assert env.game_state is not None and env.game_state.cells[4] == "X"
    assert env.legal_actions("player_1") == sorted(env.game_state.legal_actions(1))
    assert list(env.observe("player_1")["action_mask"]) == [1] * 8 + [0]
    assert env.action_name("player_1", 0) == "(0,0)" and env.action_name("player_1", 8) is None
    obs = env.observe("player_1")["observation"]
    assert obs.dtype == np.uint8 and bytes(obs).startswith(b"Current Game Board")
    api_test(env, num_cycles=50)


def test_one_seat_games_are_refused() -> None:
    with pytest.raises(ValueError, match="one seat"):
        ptz.env("2048")
    with pytest.raises(engine.UnknownGameError):
        ptz.env("no-such-game")


def test_reset_with_a_seed_seeds_each_agents_action_space() -> None:
    from gymnasium import spaces

    from engine import pettingzoo as ptz

    env = ptz.env("connect4")
    for seed in (5, 6):
        env.reset(seed=seed)
        for i, agent in enumerate(env.possible_agents):
            reference = spaces.Discrete(env.action_space(agent).n)
            reference.seed(seed + i)
            drawn = [env.action_space(agent).sample() for _ in range(8)]
            assert drawn == [reference.sample() for _ in range(8)]
    env.reset(seed=5)
    env.action_space("player_0").seed(11)  # an explicit seed after reset wins
    reference = spaces.Discrete(env.action_space("player_0").n)
    reference.seed(11)
    assert env.action_space("player_0").sample() == reference.sample()
