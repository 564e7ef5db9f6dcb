"""Surround: rules, per-seat views, GameBot's three oracles (with the paper's flood-fill example),
answer parsing, bots and the simulated model."""

from __future__ import annotations

import asyncio
import random

import pytest

import engine
from engine.agent.parse import extract_tags, extractor_for, parse_answer
from engine.core import IllegalActionError, InvalidActionError, StateFormatError
from engine.games.surround import SAFE_CELLS, Surround, SurroundState, flood_cells, flood_count
from engine.games.surround.board import distances, neighbour_values, territory
from engine.games.surround.questions import (
    QUESTIONS,
    neighbours,
    parse_neighbours,
    parse_safety,
    parse_valid_moves,
    safe_moves,
    valid_moves,
)
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext
from engine.players import Observation
from engine.questions import score


@pytest.fixture
def game() -> Surround:
    g = engine.make("surround")
    assert isinstance(g, Surround)
    return g


def play(game: Surround, *moves: tuple[str, str]) -> SurroundState:
    state = game.initial_state()
    for a, b in moves:
        state = state.apply({0: a, 1: b})
    return state


def example_matrix() -> list[list[int]]:
    """GameBot's flood-fill example (prompt, section 3) on an open 20 x 40 board: we stand at (1,24)
    (value 3) having come from (2,24) (value 2); moving right enters a pocket of 4 cells."""
    grid = [[1 if r in (0, 19) or c in (0, 39) else 0 for c in range(40)] for r in range(20)]
    window = {
        (1, 24): 3,
        (1, 25): 0,
        (1, 26): 1,
        (1, 27): 1,
        (2, 24): 2,
        (2, 25): 0,
        (2, 26): 0,
        (2, 27): 1,
        (3, 24): 1,
        (3, 25): 0,
        (3, 26): 1,
        (3, 27): 1,
        (4, 24): 1,
        (4, 25): 1,
        (4, 26): 1,
        (4, 27): 1,
    }
    for (r, c), v in window.items():
        grid[r][c] = v
    return grid


def example_state() -> SurroundState:
    """The same position as a real state: Magenta's trail walls the pocket in."""
    magenta = ((3, 24), (4, 24), (4, 25), (4, 26), (3, 26), (3, 27), (2, 27), (1, 27), (1, 26))
    return SurroundState(trails=(((2, 24), (1, 24)), magenta), tick=8)


# -- rules --------------------------------------------------------------------------------------------


def test_declaration(game: Surround) -> None:
    assert game.simultaneous and game.num_seats == 2 and game.tick_s == 0.25
    assert game.default_action == "straight" and game.default_prompt == "cot"
    assert game.actions == ("up", "down", "left", "right", "straight")
    assert game.keymap["up"] == "up" and game.keymap["a"] == "left" and game.default_opponent == "survivor"
    assert engine.check_game("surround").states > 0


def test_start_matches_gamebot_and_both_move_at_once(game: Surround) -> None:
    state = game.initial_state()
    assert state.head(0) == (10, 30) and state.head(1) == (10, 10)
    assert state.to_act == (0, 1) and state.legal_actions(0) == list(game.actions)
    after = state.apply({0: "straight", 1: "straight"})
    assert after.head(0) == (10, 29) and after.head(1) == (10, 11) and after.step == 1
    assert state.head(0) == (10, 30)  # the state it was applied to is unchanged
    turned = after.apply({0: "up", 1: "down"}).apply({0: "straight", 1: "straight"})
    assert turned.head(0) == (8, 29) and turned.head(1) == (12, 11)
    assert turned.trails[0] == ((10, 30), (10, 29), (9, 29), (8, 29))


def test_options_size_and_cap() -> None:
    small = engine.make("surround", rows=8, cols=12, max_steps=3)
    state = small.initial_state()
    assert (state.rows, state.cols) == (8, 12) and state.head(0) == (4, 9) and state.head(1) == (4, 3)
    for _ in range(3):
        state = state.apply({0: "straight", 1: "straight"})
    assert state.is_over and state.winner is None and state.scores == (0.0, 0.0)
    assert "Draw" in state.status_text()


def test_wall_crash_loses(game: Surround) -> None:
    state = play(game, *[("up", "straight")] * 9)
    assert state.head(0) == (1, 30) and not state.is_over
    state = state.apply({0: "up", 1: "straight"})
    assert state.is_over and state.winner == 1 and state.scores == (-1.0, 1.0)
    assert state.crash_at == ((0, 30), None) and state.head(0) == (1, 30)
    assert "Cyan crashed at (0,30). Magenta wins." in state.text(0)
    with pytest.raises(IllegalActionError):
        state.apply({0: "up", 1: "up"})


def test_turning_back_into_your_own_trail_crashes(game: Surround) -> None:
    state = play(game, ("straight", "straight"))
    assert state.annotate("right", 0).endswith("this move crashes")
    state = state.apply({0: "right", 1: "straight"})
    assert state.winner == 1 and state.crash_at[0] == (10, 30)


def test_first_move_may_go_any_way(game: Surround) -> None:
    state = play(game, ("right", "left"))
    assert state.head(0) == (10, 31) and state.head(1) == (10, 9) and not state.is_over


def test_head_on_into_the_same_cell_is_a_draw() -> None:
    state = SurroundState(trails=(((10, 22),), ((10, 20),)))
    after = state.apply({0: "left", 1: "right"})
    assert after.is_over and after.crashed == (True, True) and after.winner is None
    assert after.crash_at == ((10, 21), (10, 21)) and after.scores == (0.0, 0.0)


def test_swapping_heads_is_a_draw() -> None:
    state = SurroundState(trails=(((10, 21),), ((10, 20),)))
    after = state.apply({0: "left", 1: "right"})
    assert after.crashed == (True, True) and after.winner is None


def test_bad_actions_raise(game: Surround) -> None:
    state = game.initial_state()
    with pytest.raises(InvalidActionError):
        state.apply({0: "jump", 1: "up"})
    with pytest.raises(IllegalActionError):
        state.apply({0: "up"})
    with pytest.raises(IllegalActionError):
        state.apply("up")


def test_parse_action(game: Surround) -> None:
    state = game.initial_state()
    assert game.parse_action("Move Up", state, 0) == "up"
    assert game.parse_action("  move   LEFT ", state, 1) == "left"
    assert game.parse_action("keep going", state, 0) == "straight"
    with pytest.raises(InvalidActionError):
        game.parse_action("towards the open side", state, 0)


def test_json_round_trip_and_validation(game: Surround) -> None:
    state = play(game, ("up", "down"), ("straight", "left"))
    assert game.state_from_json(state.to_json()) == state
    data = state.to_json()
    data["trails"][0] = [[10, 30], [8, 30]]
    with pytest.raises(StateFormatError):
        game.state_from_json(data)
    with pytest.raises(StateFormatError):
        game.state_from_json({"game": "tictactoe"})


# -- views --------------------------------------------------------------------------------------------


def test_each_seat_sees_itself_as_2_and_3(game: Surround) -> None:
    state = play(game, ("straight", "straight"))
    mine, theirs = state.matrix(0), state.matrix(1)
    assert mine[10][29] == 3 and mine[10][30] == 2 and mine[10][11] == 5 and mine[10][10] == 4
    assert theirs[10][11] == 3 and theirs[10][10] == 2 and theirs[10][29] == 5 and theirs[10][30] == 4
    state = state.apply({0: "straight", 1: "straight"})
    assert state.matrix(0)[10][30] == 1  # older trail cells are walls


def test_text_has_trace_and_full_listing(game: Surround) -> None:
    state = play(game, ("straight", "straight"), ("straight", "straight"))
    text = state.text(0)
    assert "Your moving trace: (10,30)->(10,29)->(10,28)" in text
    assert text.count("):") == 20 * 40
    assert "(0,0):1 (0,1):1" in text and "(10,28):3" in text and "(10,12):5" in state.text(0)
    assert "Your moving trace: (10,10)->(10,11)->(10,12)" in state.text(1) and "(10,12):3" in state.text(1)


# -- oracles ------------------------------------------------------------------------------------------


def test_flood_fill_example_from_the_paper() -> None:
    grid = example_matrix()
    assert sorted(flood_cells(grid, (1, 25))) == [(1, 25), (2, 25), (2, 26), (3, 25)]
    assert flood_count(grid, (1, 25)) == 4 < SAFE_CELLS
    assert flood_count(grid, (1, 23)) >= SAFE_CELLS
    assert flood_count(grid, (1, 23), limit=SAFE_CELLS) == SAFE_CELLS
    assert flood_count(grid, (0, 24)) == 0  # a wall is no region
    assert neighbour_values(grid, (1, 24)) == {"up": 1, "down": 2, "left": 0, "right": 0}


def test_oracles_on_the_example_state() -> None:
    state = example_state()
    assert neighbours(state, 0) == "Up 1, Down 2, Left 0, Right 0"
    assert valid_moves(state, 0) == ["Move Left", "Move Right"]
    assert safe_moves(state, 0) == ["Move Left Safe", "Move Right Unsafe"]


def test_neighbours_off_the_grid_are_minus_one() -> None:
    grid = [[1, 1, 1], [1, 3, 0], [1, 0, 0]]
    assert neighbour_values(grid, (0, 1)) == {"up": -1, "down": 3, "left": 1, "right": 1}
    assert neighbour_values(grid, (2, 2)) == {"up": 0, "down": -1, "left": 0, "right": -1}


def test_no_valid_move_answers_none() -> None:
    state = SurroundState(trails=(((2, 1), (1, 1)), ((3, 1), (3, 2), (2, 2), (1, 2))))
    assert valid_moves(state, 0) == [] and safe_moves(state, 0) == []
    q2 = QUESTIONS[1]
    assert score(q2, "None", q2.expected(state, 0))[0] is True
    assert score(q2, "Move Up", q2.expected(state, 0))[0] is False


def test_territory_and_distances() -> None:
    grid = [[1] * 7] + [[1, 0, 0, 0, 0, 0, 1] for _ in range(3)] + [[1] * 7]
    assert distances(grid, [(2, 1)])[(2, 5)] == 4
    mine, theirs = territory(grid, [(2, 1)], [(2, 5)])
    assert mine == theirs == 5  # the starts are not counted; the middle column is reached by both at once


# -- reading answers ----------------------------------------------------------------------------------


def test_parse_neighbours_normalises_order_and_spacing() -> None:
    assert parse_neighbours("Up 1, Down 0, Left 0, Right 2") == "up 1, down 0, left 0, right 2"
    assert parse_neighbours("right:2 ,left 0,  DOWN 0, up 1") == "up 1, down 0, left 0, right 2"
    assert parse_neighbours("Up (0,24): 1, Down (2,24): 2, Left (1,23): 0, Right (1,25): 0") == (
        "up 1, down 2, left 0, right 0"
    )
    assert parse_neighbours("Up -1, Down 0, Left 1, Right 0") == "up -1, down 0, left 1, right 0"
    assert parse_neighbours("Up 1, Down 0, Left 0") is None
    assert parse_neighbours(None) is None


def test_parse_sets() -> None:
    assert parse_valid_moves("Move Down, move left") == {"Move Down", "Move Left"}
    assert parse_valid_moves("None") == set()
    assert parse_valid_moves("I cannot tell") is None
    assert parse_safety("Move Right Unsafe, Move Left Safe") == {"Move Right Unsafe", "Move Left Safe"}
    assert parse_safety("Right: unsafe (4 cells); Left is safe") == {"Move Right Unsafe", "Move Left Safe"}
    assert parse_safety("None") == set() and parse_safety("lots of room") is None


def test_scoring_each_question_on_the_example() -> None:
    state = example_state()
    q1, q2, q3 = QUESTIONS
    assert score(q1, "Right 0, Left 0, Down 2, Up 1", q1.expected(state, 0))[0] is True
    assert score(q1, "Up 1, Down 0, Left 0, Right 0", q1.expected(state, 0))[0] is False
    assert score(q1, "Up 1", q1.expected(state, 0))[2]["label"] == "format_error"
    assert score(q2, "Move Right, Move Left", q2.expected(state, 0))[0] is True
    assert score(q2, "Move Left", q2.expected(state, 0))[2]["label"] == "MM"
    assert score(q3, "Move Left Safe, Move Right Unsafe", q3.expected(state, 0))[0] is True
    assert score(q3, "Move Left Safe, Move Right Safe", q3.expected(state, 0))[0] is False
    assert all(q.scored_by == "accuracy" for q in QUESTIONS)


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("3. Analysis: Move Up is unsafe.\n5. **Chosen Action**\nMove Left", "left"),
        ("Chosen Action: Move Down", "down"),
        ("My chosen action is Move Up...\nChosen Action:\n**Move Right**", "right"),
        ("[Intermediate Thinking Results 2: Move Up]\nI will go Move Down.", "down"),
    ],
)
def test_extractor_reads_after_the_last_chosen_action(game: Surround, reply: str, action: str) -> None:
    result = parse_answer(game, game.initial_state(), 0, reply)
    assert result.ok and result.action == action


def test_extractor_reports_a_chosen_action_without_a_move(game: Surround) -> None:
    extracted = extractor_for(game)("Move Up looks good.\nChosen Action: the open side", game.actions)
    assert extracted.extracted == "the open side"
    result = parse_answer(game, game.initial_state(), 0, "Move Up looks good.\nChosen Action: the open side")
    assert not result.ok and result.kind == "unparsable"


# -- bots ---------------------------------------------------------------------------------------------


def _decide(game: Surround, spec: str, state: SurroundState, seat: int) -> tuple[str, dict[str, float]]:
    bot = game.make_bot(spec, seed=1)
    obs = Observation(game, state, seat, tuple(state.legal_actions(seat)), ())
    decision = asyncio.run(bot.act(obs))
    return decision.action, dict(decision.values or {})


@pytest.mark.parametrize("spec", ["survivor", "hunter"])
def test_bots_avoid_the_pocket_and_walls(game: Surround, spec: str) -> None:
    action, values = _decide(game, spec, example_state(), 0)
    assert action == "left" and values["up"] == values["down"] == -1000.0 and values["right"] < values["left"]


@pytest.mark.parametrize("spec", ["survivor", "hunter"])
def test_bots_beat_random(game: Surround, spec: str) -> None:
    rng = random.Random(3)
    wins = 0
    for seed in range(6):
        bot = game.make_bot(spec, seed=seed)
        state = game.initial_state()
        while not state.is_over:
            obs = Observation(game, state, 0, tuple(state.legal_actions(0)), ())
            mine = asyncio.run(bot.act(obs)).action
            state = state.apply({0: mine, 1: rng.choice(state.legal_actions(1))})
        wins += state.winner == 0
    assert wins >= 5


# -- the simulated model ------------------------------------------------------------------------------

_COT = " ".join(f"[Intermediate Thinking Results {k}: ]" for k in (1, 2, 3))


def ask(client: SimClient, game: Surround, state: SurroundState, seat: int, prompt: str = _COT) -> str:
    client.set_context(SimContext(game, state, seat))
    request = Request(model="sim", messages=(Message("system", "Play Surround."), Message("user", prompt)))
    return asyncio.run(client.complete(request)).content


def test_a_perfect_sim_answers_every_question_right_in_the_cot_format(game: Surround) -> None:
    client = SimClient("perfect", seed=0, latency=0)
    state = example_state()
    answer = ask(client, game, state, 0)
    tags = extract_tags(answer)
    for q in QUESTIONS:
        assert score(q, tags[q.key], q.expected(state, 0))[0] is True, (q.key, tags)
    assert "Union of the found empty: [(1,25), (2,25), (2,26), (3,25)], total 4 cells" in answer
    result = parse_answer(game, state, 0, answer)
    assert result.action == "left" and answer.rstrip().endswith("Move Left")


def test_sim_words_follow_its_beliefs_and_parse(game: Surround) -> None:
    rng = random.Random(0)
    wrong = 0
    for i in range(60):
        state = game.initial_state()
        for _ in range(rng.randrange(0, 12)):
            nxt = state.apply({0: rng.choice(["up", "straight"]), 1: rng.choice(["down", "straight"])})
            if nxt.is_over:
                break
            state = nxt
        client = SimClient("careless", seed=i, latency=0, format_error_rate=0.0)
        answer = ask(client, game, state, 0)
        tags = extract_tags(answer)
        assert set(tags) == {1, 2, 3}
        result = parse_answer(game, state, 0, answer)
        assert result.ok
        believed = parse_valid_moves(tags[2]) or set()
        move = f"Move {result.action.capitalize()}"
        assert f"Conclusion: {move}" in answer or "Conclusion:" in answer
        wrong += sum(score(q, tags[q.key], q.expected(state, 0))[0] is False for q in QUESTIONS)
        if believed and move not in believed:
            assert "leads into empty space" in answer or "more open side" in answer  # a slip
    assert 10 <= wrong <= 150  # the careless preset gets some answers wrong, not all


def test_sim_without_questions_gives_a_short_answer(game: Surround) -> None:
    client = SimClient("perfect", seed=0, latency=0)
    answer = ask(client, game, example_state(), 0, prompt="Think step by step.")
    assert "Intermediate Thinking Results" not in answer
    assert parse_answer(game, example_state(), 0, answer).action == "left"
