"""2048 rules: merges, merged sum, spawns, stagnation, views and serialisation."""

from __future__ import annotations

import collections
import dataclasses

import pytest

import engine
from engine.core import IllegalActionError, InvalidActionError, StateFormatError
from engine.games.g2048 import (
    STAGNATION_LIMIT,
    Game2048,
    State2048,
    empty_cells,
    move_board,
    score_2048,
    slide_row_left,
)


@pytest.fixture
def game() -> Game2048:
    g = engine.make("2048")
    assert isinstance(g, Game2048)
    return g


def board(*rows: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    return tuple(rows)


@pytest.mark.parametrize(
    ("row", "expected", "gain"),
    [
        ((2, 2, 2, 2), (4, 4, 0, 0), 8),
        ((4, 4, 8, 0), (8, 8, 0, 0), 8),  # a merged tile does not merge again in the same move
        ((2, 0, 2, 4), (4, 4, 0, 0), 4),
        ((2, 2, 4, 4), (4, 8, 0, 0), 12),
        ((8, 4, 4, 0), (8, 8, 0, 0), 8),
        ((0, 0, 0, 2), (2, 0, 0, 0), 0),
        ((2, 4, 8, 16), (2, 4, 8, 16), 0),
        ((4, 2, 2, 0), (4, 4, 0, 0), 4),
        ((0, 0, 0, 0), (0, 0, 0, 0), 0),
    ],
)
def test_slide_row_left(row: tuple[int, ...], expected: tuple[int, ...], gain: int) -> None:
    assert slide_row_left(row) == (expected, gain)


def test_moves_in_every_direction() -> None:
    b = board((2, 2, 2, 2), (4, 4, 8, 0), (0, 0, 0, 0), (2, 0, 0, 2))
    assert move_board(b, "left") == (board((4, 4, 0, 0), (8, 8, 0, 0), (0, 0, 0, 0), (4, 0, 0, 0)), 20)
    assert move_board(b, "right") == (board((0, 0, 4, 4), (0, 0, 8, 8), (0, 0, 0, 0), (0, 0, 0, 4)), 20)
    assert move_board(b, "up") == (board((2, 2, 2, 4), (4, 4, 8, 0), (2, 0, 0, 0), (0, 0, 0, 0)), 4)
    assert move_board(b, "down") == (board((0, 0, 0, 0), (2, 0, 0, 0), (4, 2, 2, 0), (2, 4, 8, 4)), 4)
    with pytest.raises(InvalidActionError):
        move_board(b, "north")


def test_apply_adds_merged_sum_and_spawns_one_tile(game: Game2048) -> None:
    b = board((2, 2, 2, 2), (0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0))
    state = State2048(board=b, merged_sum=10, seed=5)
    after = state.apply("left")
    assert after.merged_sum == 18
    assert after.scores == (18,)
    assert after.step == 1 and after.stagnant == 0 and after.last_action == "left"
    moved, _ = move_board(b, "left")
    assert after.spawned is not None
    r, c = after.spawned
    assert moved[r][c] == 0 and after.board[r][c] in (2, 4)
    # Exactly one cell differs from the moved board: the spawned one.
    diffs = [(i, j) for i in range(4) for j in range(4) if after.board[i][j] != moved[i][j]]
    assert diffs == [after.spawned]
    assert game.transition(state, after).rewards == (8,)
    assert game.transition(state, after).changed


def test_spawns_are_deterministic_and_resume_from_json(game: Game2048) -> None:
    a = game.initial_state(seed=42)
    b = game.initial_state(seed=42)
    assert a == b
    assert sum(1 for row in a.board for v in row if v) == 2
    boards = {game.initial_state(seed=s).board for s in range(20)}
    assert len(boards) > 5  # different seeds give different starts
    moves = ["left", "up", "right", "down"] * 5
    s1 = a
    for m in moves:
        s1 = s1.apply(m)
        resumed = game.state_from_json(s1.to_json())
        assert resumed.apply("left") == s1.apply("left")
    s2 = b
    for m in moves:
        s2 = s2.apply(m)
    assert s1 == s2


def test_spawn_values_are_two_or_four_with_four_about_ten_percent(game: Game2048) -> None:
    counts: collections.Counter[int] = collections.Counter()
    for seed in range(1500):
        state = game.initial_state(seed=seed)
        counts.update(v for row in state.board for v in row if v)
    assert set(counts) <= {2, 4}
    share = counts[4] / sum(counts.values())
    assert 0.07 < share < 0.13


def test_unchanged_board_counts_towards_stagnation(game: Game2048) -> None:
    # Every row is packed to the left without equal neighbours: "left" cannot change anything.
    b = board((2, 4, 0, 0), (4, 2, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0))
    state = State2048(board=b, seed=1)
    assert not state.changes_board("left") and state.changes_board("right")
    for turn in range(1, STAGNATION_LIMIT + 1):
        assert not state.is_over
        assert state.legal_actions() == ["up", "down", "left", "right"]
        before = state
        state = state.apply("left")
        assert state.board == b and state.stagnant == turn and state.spawned is None
        assert state.merged_sum == 0 and state.step == turn
        assert game.transition(before, state).rewards == (0,)
        assert not game.transition(before, state).changed
    assert state.is_over and state.stalled
    assert state.to_act == () and state.legal_actions() == []
    with pytest.raises(IllegalActionError):
        state.apply("right")
    assert "did not change" in state.text()


def test_a_changing_move_resets_stagnation() -> None:
    b = board((2, 4, 0, 0), (4, 2, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0))
    state = State2048(board=b, seed=1)
    for _ in range(STAGNATION_LIMIT - 1):
        state = state.apply("left")
    assert state.stagnant == STAGNATION_LIMIT - 1 and not state.is_over
    state = state.apply("right")
    assert state.stagnant == 0 and not state.is_over


def test_locked_board_is_game_over() -> None:
    locked = board((2, 4, 2, 4), (4, 2, 4, 2), (2, 4, 2, 4), (4, 2, 4, 2))
    state = State2048(board=locked, merged_sum=100, seed=0)
    assert state.is_over and not state.stalled
    assert state.to_act == () and state.legal_actions() == []
    assert state.scores == (100,)
    nearly = board((2, 4, 2, 4), (4, 2, 4, 2), (2, 4, 2, 4), (4, 2, 4, 4))
    assert not State2048(board=nearly, seed=0).is_over


def test_metrics_and_score_2048() -> None:
    assert score_2048(0) == 0
    assert score_2048(1024) == pytest.approx(100.0)
    b = board((2, 0, 0, 0), (0, 8, 0, 0), (0, 0, 0, 0), (0, 0, 0, 64))
    metrics = State2048(board=b, merged_sum=256, seed=0).metrics()
    assert metrics["score_2048"] == pytest.approx(80.0)
    assert metrics["max_tile"] == 64
    assert metrics["empty"] == 13
    assert metrics["merged_sum"] == 256


def test_text_views() -> None:
    b = board((0, 0, 8, 0), (0, 0, 0, 0), (2, 0, 0, 0), (0, 0, 0, 1024))
    state = State2048(board=b, merged_sum=30, seed=0)
    text = state.text()
    assert "1024" in text and "Score (merged sum): 30" in text and "Max tile: 1024" in text
    assert text.splitlines()[0].split() == [".", ".", "8", "."]
    table = state.text_table().splitlines()
    assert table[:3] == [
        "Tile 8 at (row 0, col 2)",
        "Tile 2 at (row 2, col 0)",
        "Tile 1024 at (row 3, col 3)",
    ]
    assert table[3].startswith("Empty cells: (row 0, col 0)")
    assert len(empty_cells(b)) == 13


def test_keymap_rules_and_parse(game: Game2048) -> None:
    assert dict(game.keymap) == {
        "up": "up", "down": "down", "left": "left", "right": "right",
        "w": "up", "s": "down", "a": "left", "d": "right",
    }  # fmt: skip
    assert "up, down, left or right" in game.rules_text()
    state = game.initial_state(seed=0)
    assert game.parse_action("Move: UP.", state) == "up"
    assert game.parse_action(" left ", state) == "left"
    with pytest.raises(InvalidActionError):
        game.parse_action("left or right", state)
    with pytest.raises(InvalidActionError):
        game.parse_action("upwards", state)
    over = State2048(board=board((2, 4, 2, 4), (4, 2, 4, 2), (2, 4, 2, 4), (4, 2, 4, 2)), seed=0)
    with pytest.raises(IllegalActionError):
        game.parse_action("up", over)
    with pytest.raises(InvalidActionError):
        state.apply("jump")


def test_size_option() -> None:
    game = engine.make("2048", size=3)
    state = game.initial_state(seed=1)
    assert len(state.board) == 3 and all(len(row) == 3 for row in state.board)
    assert game.state_from_json(state.to_json()) == state
    with pytest.raises(StateFormatError):
        engine.make("2048").state_from_json(state.to_json())
    with pytest.raises(ValueError):
        engine.make("2048", size=1)


def test_unseeded_games_carry_a_concrete_seed(game: Game2048) -> None:
    state = game.initial_state()
    assert isinstance(state.seed, int)
    assert game.state_from_json(state.to_json()).apply("up") == state.apply("up")
    with pytest.raises(ValueError):
        game.initial_state(seed="7")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "change",
    [
        {"board": [[3, 0, 0, 0]] + [[0] * 4] * 3},
        {"board": [[0] * 4] * 3},
        {"board": [[0, 0, 0]] * 4},
        {"merged_sum": -1},
        {"stagnant": "0"},
        {"seed": True},
        {"last_action": "jump"},
        {"spawned": [4, 0]},
        {"game": "tictactoe"},
    ],
)
def test_state_from_json_rejects_bad_fields(game: Game2048, change: dict[str, object]) -> None:
    data = game.initial_state(seed=3).to_json() | change
    with pytest.raises(StateFormatError):
        game.state_from_json(data)


def test_state_from_json_reports_missing_fields(game: Game2048) -> None:
    data = game.initial_state(seed=3).to_json()
    del data["merged_sum"]
    with pytest.raises(StateFormatError, match="merged_sum"):
        game.state_from_json(data)


def test_the_harness_scoring_credits_a_merge_with_the_tiles_that_merged() -> None:
    lmgame, harness = engine.make("2048"), engine.make("2048", scoring="harness")
    b = board((2, 2, 8, 8), (0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0))
    plain = State2048(board=b, seed=1).apply("left")
    halved = dataclasses.replace(harness.initial_state(seed=1), board=b).apply("left")
    # Two 2s and two 8s merge: LMGame-Bench credits 4 + 16, the modular-harness paper 2 + 8.
    assert plain.merged_sum == 20 and halved.merged_sum == 10 and halved.board == plain.board
    assert harness.state_from_json(halved.to_json()) == halved
    assert lmgame.state_from_json(plain.to_json()) == plain
    assert "merging two 2s gives +2" in harness.rules_text() and "gives +4" in lmgame.rules_text()


@pytest.mark.parametrize("variant", ["p1", "p2", "dspy_p1", "dspy_p2"])
def test_lmgame_bench_s_printed_prompts_are_variants_with_the_board_and_history(variant: str) -> None:
    from engine.agent.prompts import load_template, variants

    game = engine.make("2048")
    assert variant in variants(game)
    template = load_template(game, variant)
    assert "{state}" in template.user and "{history}" in template.user and "thought:" in template.user
    assert 'move:' in template.system + template.user and template.path == f"prompts/2048/{variant}.md"
