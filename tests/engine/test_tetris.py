"""Tetris rules: the raw score on hand-worked boards, SRS rotation and wall kicks, the seeded 7-bag,
hold, gravity in turn-based and real-time play, the end of the game, views, JSON, the Gymnasium
environment, the Dellacherie bot and the simulated model."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import warnings
from collections.abc import Sequence

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import engine
import engine.gym  # noqa: F401  (registers the environments)
from engine.core import IllegalActionError, InvalidActionError, StateFormatError
from engine.games.tetris import (
    ACTIONS,
    HEIGHT,
    KINDS,
    STUCK_LIMIT,
    WIDTH,
    Tetris,
    TetrisState,
    apply_all,
)
from engine.games.tetris.bots import evaluate_board, plans
from engine.llm.simstyle import SimContext
from engine.players import Observation, StepRecord


def game(**options: object) -> Tetris:
    g = engine.make("tetris", **options)
    assert isinstance(g, Tetris)
    return g


def board(*bottom_rows: str) -> bytes:
    """A board whose lowest rows are ``bottom_rows`` (``X`` a settled block, ``.`` empty), top first."""
    rows = ["." * WIDTH] * (HEIGHT - len(bottom_rows)) + list(bottom_rows)
    assert all(len(r) == WIDTH for r in rows)
    return bytes(0 if ch == "." else KINDS.index("Z") + 1 for row in rows for ch in row)


def with_piece(state: TetrisState, piece: str, row: int, col: int, rotation: int = 0) -> TetrisState:
    return dataclasses.replace(state, piece=piece, row=row, col=col, rotation=rotation)


@pytest.fixture
def still() -> TetrisState:
    """A start state without gravity, so every action does exactly what it names."""
    return game(gravity=False).initial_state(seed=0)


# -- the raw score (LMGame-Bench: +1 a piece, +10 a line) ------------------------------------------


def test_a_fresh_game_scores_nothing(still: TetrisState) -> None:
    assert still.scores == (0.0,) and still.metrics() == {"raw_score": 0, "lines": 0, "pieces": 0}


def test_one_placed_piece_scores_one(still: TetrisState) -> None:
    after = still.apply("hard_drop")
    assert (after.pieces, after.lines, after.raw_score) == (1, 0, 1)
    assert after.locked and after.last == "hard_drop"


def test_a_flat_i_completing_a_row_scores_eleven(still: TetrisState) -> None:
    # Row 19 is full but for columns 3-6; a flat I dropped at box column 3 fills it.
    start = dataclasses.replace(still, board=board("XXX....XXX"), piece="I", row=-1, col=3, rotation=0)
    after = start.apply("hard_drop")
    assert (after.pieces, after.lines, after.cleared, after.raw_score) == (1, 1, 1, 11)
    assert after.board == bytes(WIDTH * HEIGHT)  # the only row cleared, nothing is left


def test_a_vertical_i_clearing_four_rows_scores_fortyone(still: TetrisState) -> None:
    well = ("XXXXXXXXX.",) * 4
    start = dataclasses.replace(still, board=board(*well), piece="I", rotation=1, row=0, col=7)
    assert start.cells()[0] == (0, 9)
    after = start.apply("hard_drop")
    assert (after.lines, after.cleared, after.raw_score) == (4, 4, 41)


def test_rows_above_a_cleared_row_move_down(still: TetrisState) -> None:
    start = dataclasses.replace(
        still, board=board("X.........", "XXX....XXX"), piece="I", row=-1, col=3, rotation=0
    )
    after = start.apply("hard_drop")
    assert after.cleared == 1 and after.raw_score == 11
    assert after.cell(HEIGHT - 1, 0) == "Z" and after.cell(HEIGHT - 2, 0) == ""


def test_the_score_adds_up_over_a_game() -> None:
    rng = random.Random(7)
    state = game().initial_state(seed=7)
    while not state.is_over:
        state = state.apply(rng.choice(ACTIONS))
    assert state.scores[0] == state.pieces + 10 * state.lines


# -- rotation and SRS wall kicks ---------------------------------------------------------------------


def test_a_t_turns_in_place_on_an_open_board(still: TetrisState) -> None:
    start = with_piece(still, "T", 5, 3)
    right = start.apply("rotate_right")
    assert (right.rotation, right.row, right.col) == (1, 5, 3)
    assert sorted(right.cells()) == [(5, 4), (6, 4), (6, 5), (7, 4)]
    assert start.apply("rotate_left").rotation == 3
    assert apply_all(start, ["rotate_right"] * 4) == dataclasses.replace(
        start, step=4, last="rotate_right"
    )


def test_a_vertical_i_at_the_left_wall_is_kicked_two_columns_right(still: TetrisState) -> None:
    start = with_piece(still, "I", 5, -2, rotation=1)  # its cells are in column 0
    assert {c for _, c in start.cells()} == {0}
    flat = start.apply("rotate_left")  # R -> 0: SRS tries (0,0) then two to the right
    assert (flat.rotation, flat.row, flat.col) == (0, 5, 0)
    assert sorted(flat.cells()) == [(6, 0), (6, 1), (6, 2), (6, 3)]


def test_a_vertical_i_at_the_right_wall_is_kicked_one_column_left(still: TetrisState) -> None:
    start = with_piece(still, "I", 5, 7, rotation=1)  # its cells are in column 9
    flat = start.apply("rotate_right")  # R -> 2: SRS tries (0,0) then one to the left
    assert (flat.rotation, flat.col) == (2, 6)
    assert sorted(flat.cells()) == [(7, 6), (7, 7), (7, 8), (7, 9)]


def test_a_t_on_the_floor_is_kicked_up_when_it_turns(still: TetrisState) -> None:
    start = with_piece(still, "T", HEIGHT - 2, 3)  # resting flat on the floor
    turned = start.apply("rotate_left")  # 0 -> L: (0,0) and (+1,0) leave the board; (+1,+1) fits
    assert (turned.rotation, turned.row, turned.col) == (3, HEIGHT - 3, 4)
    assert max(r for r, _ in turned.cells()) == HEIGHT - 1


def test_a_turn_without_room_changes_nothing(still: TetrisState) -> None:
    walls = board(*(["XXX...XXXX"] * 6))
    start = dataclasses.replace(still, board=walls, piece="I", rotation=1, row=HEIGHT - 4, col=2)
    assert start.blocked("rotate_right")
    after = start.apply("rotate_right")
    assert (after.rotation, after.row, after.col) == (1, start.row, start.col) and after.stuck == 1
    assert "no room to turn" in start.annotate("rotate_right")


def test_the_o_piece_does_not_turn(still: TetrisState) -> None:
    start = with_piece(still, "O", 5, 4)
    assert start.apply("rotate_right").cells() == start.cells()
    assert "O piece" in start.annotate("rotate_left")


def test_moves_stop_at_the_walls(still: TetrisState) -> None:
    state = apply_all(still, ["left"] * 8)
    assert min(c for _, c in state.cells()) == 0 and state.stuck > 0
    assert "cannot move left" in state.annotate("left")
    assert state.annotate("right") == ""


# -- the seeded 7-bag ------------------------------------------------------------------------------


def sequence(seed: int, pieces: int) -> str:
    state = game(gravity=False).initial_state(seed=seed)
    seen = state.piece
    while len(seen) < pieces:
        state = state.apply("hard_drop")
        if state.is_over:
            state = dataclasses.replace(state, board=bytes(WIDTH * HEIGHT), topped=False)
        seen += state.piece
    return seen


def test_every_bag_of_seven_holds_each_piece_once() -> None:
    pieces = sequence(3, 28)
    for start in range(0, 28, 7):
        assert sorted(pieces[start : start + 7]) == sorted(KINDS)


def test_the_same_seed_gives_the_same_pieces_and_others_differ() -> None:
    assert sequence(11, 21) == sequence(11, 21)
    assert len({sequence(s, 14) for s in range(5)}) > 1
    first = game().initial_state(seed=11)
    assert first.piece + first.queue == sequence(11, 6)


def test_the_preview_shows_the_pieces_that_come() -> None:
    g = game(gravity=False, preview=3)
    state = g.initial_state(seed=5)
    assert len(state.queue) == 3
    after = state.apply("hard_drop")
    assert after.piece == state.queue[0] and after.queue[:2] == state.queue[1:]


def test_outcomes_list_every_piece_the_bag_can_reveal(still: TetrisState) -> None:
    results = still.outcomes("hard_drop")
    assert sum(p for p, _ in results) == pytest.approx(1.0)
    revealed = {s.queue[-1] for _, s in results}  # type: ignore[attr-defined]
    assert revealed == set(still.bag) and len(results) == len(still.bag)
    assert still.apply("hard_drop") in [s for _, s in results]
    assert still.outcomes("left") == [(1.0, still.apply("left"))]


def test_a_saved_game_continues_the_same_way() -> None:
    g = game()
    rng = random.Random(2)
    state = g.initial_state(seed=2)
    for _ in range(40):
        state = state.apply(rng.choice(ACTIONS[1:7]))
    copy = g.state_from_json(json.loads(json.dumps(state.to_json())))
    assert copy == state
    moves = ["hard_drop", "left", "hard_drop", "rotate_right", "hard_drop"]
    assert apply_all(copy, moves) == apply_all(state, moves)


# -- hold ---------------------------------------------------------------------------------------------


def test_hold_takes_the_next_piece_then_swaps_back_after_a_lock(still: TetrisState) -> None:
    first, nxt = still.piece, still.queue[0]
    held = still.apply("hold")
    assert (held.piece, held.hold, held.held) == (nxt, first, True)
    again = held.apply("hold")
    assert (again.piece, again.hold) == (nxt, first) and again.stuck == 1
    assert "already used" in held.annotate("hold")
    placed = held.apply("hard_drop")
    assert not placed.held
    swapped = placed.apply("hold")
    assert swapped.piece == first and swapped.hold == placed.piece


# -- gravity, real time and the end of the game -------------------------------------------------------


def test_gravity_moves_the_piece_down_after_every_action() -> None:
    state = game().initial_state(seed=0)
    assert state.apply("no_op").row == state.row + 1
    assert state.apply("left").row == state.row + 1
    assert state.apply("soft_drop").row == state.row + 2


def test_a_piece_that_cannot_fall_locks_at_once() -> None:
    state = game().initial_state(seed=0)
    resting = dataclasses.replace(state, row=HEIGHT - 2, piece="T", col=3)
    after = resting.apply("left")
    assert after.locked and after.pieces == 1 and after.cell(HEIGHT - 1, 2) == "T"


def test_real_time_play_ticks_for_people_and_falls_only_when_idle() -> None:
    g = game(realtime=0.5)
    assert g.tick_s == 0.5 and g.default_action == "no_op" and Tetris.tick_s is None
    assert game().tick_s is None
    state = g.initial_state(seed=0)
    assert state.apply("left").row == state.row
    assert state.apply("no_op").row == state.row + 1
    assert "tick passes" in g.rules_text()


def test_without_gravity_idle_actions_end_the_game_after_the_stuck_limit(still: TetrisState) -> None:
    state = apply_all(still, ["no_op"] * (STUCK_LIMIT - 1))
    assert not state.is_over and "Nothing has changed" in state.notice()
    state = state.apply("no_op")
    assert state.is_over and "nothing changed" in state.ending
    with pytest.raises(IllegalActionError):
        state.apply("left")


def test_the_step_limit_ends_the_episode() -> None:
    state = apply_all(game(max_steps=10).initial_state(seed=0), ["no_op"] * 10)
    assert state.is_over and state.legal_actions() == [] and "step limit" in state.ending


def test_a_piece_without_room_to_enter_ends_the_game(still: TetrisState) -> None:
    stack = board(*(["XXXX.XXXX."] * (HEIGHT - 2)))  # two gaps a row: nothing clears
    start = dataclasses.replace(still, board=stack, piece="O", rotation=0, row=0, col=3)
    after = start.apply("hard_drop")
    assert after.is_over and after.topped and "no room to enter" in after.ending
    assert after.pieces == 1 and after.raw_score == 1
    assert "Game over" in after.text()


def test_actions_are_checked(still: TetrisState) -> None:
    with pytest.raises(InvalidActionError):
        still.apply("jump")
    with pytest.raises(IllegalActionError):
        still.apply({1: "left"})
    assert still.apply({0: "left"}) == still.apply("left")


# -- views and JSON ------------------------------------------------------------------------------------


def test_the_text_view_shows_the_board_piece_queue_and_hold(still: TetrisState) -> None:
    text = still.apply("hold").text()
    grid = [line[4:] for line in text.splitlines()[1 : HEIGHT + 1]]
    assert len(grid) == HEIGHT and all(len(row) == WIDTH for row in grid)
    assert sum(row.count("@") for row in grid) == 4
    assert "Next pieces: " in text and f"Hold: {still.piece} (used for this piece)" in text
    assert "Score: 0 (pieces placed 0, lines cleared 0)" in text


def test_the_symbolic_table_lists_cells_heights_and_holes(still: TetrisState) -> None:
    holed = dataclasses.replace(still, board=board("X.........", ".XXXXXXXXX"))
    table = holed.text_table()
    assert "Column heights (col 0 to 9): 2 1 1 1 1 1 1 1 1 1" in table
    assert "Holes: 1" in table and "Settled blocks in row 19: cols 1,2,3,4,5,6,7,8,9" in table
    assert "Landing cells after a hard drop" in table


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("board", ["." * WIDTH] * 3),
        ("piece", "Q"),
        ("rotation", 4),
        ("queue", ""),
        ("fall", "sometimes"),
        ("held", "yes"),
        ("last", "jump"),
        ("bag", "II"),
    ],
)
def test_malformed_saved_states_are_refused(still: TetrisState, field: str, value: object) -> None:
    data = still.to_json() | {field: value}
    with pytest.raises(StateFormatError, match="not a Tetris state"):
        game().state_from_json(data)


def test_conformance() -> None:
    report = engine.check_game("tetris")
    assert report.states > 0


# -- Gymnasium ------------------------------------------------------------------------------------


def test_the_gymnasium_environment_passes_check_env_and_carries_the_text_view() -> None:
    env = gymnasium.make("playtrace/tetris-v0", render_mode="rgb_array", render_size=(200, 160))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    obs, info = env.reset(seed=4)
    assert set(obs) == {"board", "piece", "queue", "hold"} and obs["piece"].sum() > 0
    assert "Next pieces:" in info["text"] and info["raw_score"] == 0.0
    frame = env.render()
    assert frame.shape == (160, 200, 3)
    hard = ACTIONS.index("hard_drop")
    obs, reward, terminated, truncated, info = env.step(hard)
    assert reward == 1.0 and info["pieces"] == 1.0 and not terminated
    env.close()


# -- the bot and the simulated model ---------------------------------------------------------------


def test_dellacherie_prefers_the_flat_spot_without_holes() -> None:
    flat = board("XXXXXX....")
    bottom, above = HEIGHT - 1, HEIGHT - 2
    value, features, lines = evaluate_board(flat, tuple((bottom, c) for c in range(6, 10)))
    assert lines == 1 and features[1] == 4  # one line, four of the piece's cells in it
    covering, covering_features, _ = evaluate_board(flat, tuple((above, c) for c in range(4)))
    assert value > covering and covering_features[4] == 0


def test_the_bot_plans_every_reachable_placement(still: TetrisState) -> None:
    t = with_piece(still, "T", 0, 3)
    found = plans(t)
    # A T reaches 8 columns flat (twice: pointing up and down) and 9 on each side turned.
    assert len(found) == 8 + 8 + 9 + 9
    assert all(p.actions[-1] == "hard_drop" for p in found)
    assert found == sorted(found, key=lambda p: p.value, reverse=True)


def play_bot(g: Tetris, seed: int, steps: int) -> TetrisState:
    bot = g.make_bot("dellacherie", seed)
    state = g.initial_state(seed=seed)
    for _ in range(steps):
        if state.is_over:
            break
        decision = asyncio.run(bot.act(Observation(g, state, 0, tuple(state.legal_actions()))))
        assert decision.action in ACTIONS and decision.values
        state = state.apply(decision.action)
    return state


def test_the_bot_clears_lines_and_survives() -> None:
    state = play_bot(game(), 0, 160)
    assert not state.is_over and state.lines >= 5
    assert state.raw_score == state.pieces + 10 * state.lines


def sim_context(states: Sequence[TetrisState], actions: Sequence[str]) -> SimContext:
    history = [
        StepRecord(i, before, {0: a}, (after.raw_score - before.raw_score,), after)
        for i, (before, after, a) in enumerate(zip(states, states[1:], actions, strict=False))
    ]
    return SimContext(game(), states[-1], 0, history)


def test_the_simulated_model_reasons_towards_a_placement_and_reflects_on_it() -> None:
    from engine.llm.sim import SimClient

    g = game()
    style = SimClient().behaviour(g)
    start = g.initial_state(seed=1)
    analysis = asyncio.run(style.analyse(SimContext(g, start, 0), random.Random(0), "dellacherie"))
    ctx = SimContext(g, start, 0)
    reasoning = style.reasoning(ctx, analysis, analysis.best, "", {})
    assert "The falling piece is" in reasoning and "hard_drop" in reasoning
    assert analysis.best in reasoning.splitlines()[-1]
    assert "Aim for" in style.thought(ctx, analysis, analysis.best, "")
    dropped = start.apply("hard_drop")
    assert "placed the" in style.reflection(sim_context([start, dropped], ["hard_drop"]))
    walled = apply_all(game(gravity=False).initial_state(seed=1), ["left"] * 6)
    blocked = walled.apply("left")
    assert "did nothing" in style.reflection(sim_context([walled, blocked], ["left"]))
    held = start.apply("hold")  # with gravity a second hold is refused but the piece still falls
    again = held.apply("hold")
    note = style.reflection(sim_context([held, again], ["hold"]))
    assert "already used" in note and "only the fall" in note


def test_a_person_who_does_not_act_in_real_time_lets_the_piece_fall_each_tick() -> None:
    from engine import events as ev
    from engine.match import Match
    from engine.players import DEFAULT, HumanPlayer

    g = game(realtime=0.01, max_steps=10)  # a short tick, so the test takes milliseconds
    match = Match(g, [HumanPlayer()], seed=0)
    decisions: list[ev.Event] = []
    match.subscribe(lambda e: decisions.append(e) if e.type == ev.DECISION else None)
    result = asyncio.run(match.run())
    assert result.steps == 10 and len(decisions) == 10
    assert all(d.data["source"] == DEFAULT and d.data["action"] == "no_op" for d in decisions)
    start = g.initial_state(seed=0)
    assert isinstance(match.state, TetrisState) and match.state.row == start.row + 10


def test_the_harness_scoring_counts_one_a_line_and_survives_json(still: TetrisState) -> None:
    harness = game(gravity=False, scoring="harness").initial_state(seed=0)
    start = dataclasses.replace(harness, board=board("XXX....XXX"), piece="I", row=-1, col=3, rotation=0)
    after = start.apply("hard_drop")
    # The modular-harness paper: pieces dropped plus lines cleared (LMGame-Bench: 1 + 10 = 11).
    assert (after.pieces, after.lines, after.raw_score) == (1, 1, 2) and after.metrics()["raw_score"] == 2
    back = game(scoring="harness").state_from_json(json.loads(json.dumps(after.to_json())))
    assert back == after and back.raw_score == 2
    assert "+1 for every line" in game(scoring="harness").rules_text()
    assert "+10 for every line" in game().rules_text() and still.line_points == 10
