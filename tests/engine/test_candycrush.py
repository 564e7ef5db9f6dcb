"""Candy Crush (LMGame-Bench): the board's mechanics, the rules and scores, the views, JSON, the
bot, the simulated model, the answer extractor and the Gymnasium environment."""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import json
import random

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import engine
import engine.gym  # noqa: F401  (registers the environments)
from engine.agent import prompts
from engine.agent.parse import parse_answer
from engine.core import IllegalActionError, InvalidActionError, StateFormatError
from engine.games.candycrush import ACTIONS, CandyCrush, CandyState
from engine.games.candycrush import board as B
from engine.games.candycrush.answers import extract_move
from engine.games.candycrush.bots import sure_clears
from engine.games.candycrush.sim import near_misses
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext
from engine.players import Observation, StepRecord

GAME = engine.make("candycrush")

#: A settled board (no line) on which ((6,3),(7,3)) lines up three reds in row 6 (P R R P -> P R R R),
#: and the candies falling into the gap line up 16 more before any new candy arrives: the best swap.
ROWS = [
    "CGGRCCGG",
    "RRGCGPCG",
    "PRCRRPRP",
    "CPCCRGPP",
    "PPGGPPRG",
    "GGCPGGCC",
    "PRRPCPPR",
    "CGGRCRRP",
]


def state_of(rows: list[str], **fields: object) -> CandyState:
    data = GAME.initial_state(seed=5).to_json() | {"board": rows} | fields
    state = GAME.state_from_json(data)
    assert isinstance(state, CandyState)
    return state


def test_declaration_and_conformance() -> None:
    assert isinstance(GAME, CandyCrush)
    assert GAME.raw_score == "candies_cleared" and GAME.progress_score == "candies_cleared"
    assert len(ACTIONS) == 112 and len(set(ACTIONS)) == 112
    # tile-match-gym's order: the 56 vertical swaps row by row, then the 56 horizontal ones.
    assert ACTIONS[0] == "((0,0),(1,0))" and ACTIONS[55] == "((6,7),(7,7))" and ACTIONS[56] == "((0,0),(0,1))"
    report = engine.check_game("candycrush", episodes=2, max_steps=60)
    assert report.states > 50


def test_new_boards_are_settled_playable_and_follow_the_seed() -> None:
    for seed in range(20):
        state = GAME.initial_state(seed=seed)
        assert not B.matched(state.board) and state.legal_actions()
        assert set(state.board) <= set("GCPR") and len(state.board) == 64
        assert GAME.initial_state(seed=seed) == state
    assert GAME.initial_state(seed=1).board != GAME.initial_state(seed=2).board
    six = engine.make("candycrush", colours=6).initial_state(seed=1)
    assert set(six.board) == set("GCPRYB")


def test_the_fast_swap_finder_agrees_with_the_plain_test() -> None:
    rng = random.Random(3)
    for _ in range(60):
        board = B.new_board(rng, "GCPRY")
        assert B.effective_swaps(board) == [s for s in B.SWAPS if B.effective(board, s)]


def test_a_swap_clears_its_line_and_the_certain_cascade() -> None:
    state = state_of(ROWS)
    assert not B.matched(state.board)
    action = "((6,3),(7,3))"
    assert action in state.legal_actions()
    assert sure_clears(state.board, action) == (3, 16)
    after = state.apply(action)
    assert after.waves[0] == 3 and len(after.waves) >= 2 and after.score == sum(after.waves) >= 19
    assert after.moves == 1 and after.last == action and after.moves_left == 49
    assert not B.matched(after.board) and after.legal_actions()
    assert state.apply(action) == after  # the refill comes from the seed: the same every time
    assert "cascade" in after.text() and "Last move: ((6,3),(7,3)) cleared 3 candies" in after.text()
    assert "lines up red candies: 3 cleared" in state.annotate(action)


def test_a_swap_that_makes_no_line_is_refused_and_says_why() -> None:
    state = state_of(ROWS)
    with pytest.raises(IllegalActionError, match=r"\(\(0,0\),\(0,1\)\) makes no line: cyan \(C\) at"):
        state.apply("((0,0),(0,1))")
    assert "makes no line" in state.annotate("((0,0),(0,1))")
    assert "((0,0),(0,1))" not in state.legal_actions()
    with pytest.raises(IllegalActionError, match="swaps two green candies"):
        state.apply("((0,1),(0,2))")
    with pytest.raises(InvalidActionError, match="not neighbours"):
        state.apply("((0,0),(1,1))")
    with pytest.raises(InvalidActionError, match="off the board"):
        state.apply("((7,7),(8,7))")
    with pytest.raises(InvalidActionError, match="names no swap"):
        state.apply("sideways")


def test_the_session_ends_after_its_moves() -> None:
    game = engine.make("candycrush", moves=3)
    state = game.initial_state(seed=4)
    rng = random.Random(0)
    scores = [state.score]
    while not state.is_over:
        state = game.play_random(state, rng)
        scores.append(state.score)
    assert state.moves == 3 and state.legal_actions() == [] and state.to_act == ()
    assert scores == sorted(scores) and scores[-1] >= 9
    assert "Game over" in state.notice() and "Game over: all 3 moves played." in state.text()
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply(ACTIONS[0])
    assert state.metrics()["candies_cleared"] == state.score and state.metrics()["moves_left"] == 0


def test_reshuffle_keeps_the_candies_and_leaves_a_swap() -> None:
    rng = random.Random(9)
    stuck = "GCPRGCPRPRGCPRGC" * 4  # no line and no swap that makes one
    assert not B.matched(stuck) and not B.effective_indices(stuck)
    again = B.reshuffle(stuck, rng, "GCPR")
    assert collections.Counter(again) == collections.Counter(stuck)
    assert not B.matched(again) and B.effective_indices(again)


def test_outcomes_sample_the_refills_and_hold_the_seeds_own() -> None:
    state = state_of(ROWS)
    outcomes = state.outcomes("((6,3),(7,3))")
    assert abs(sum(p for p, _ in outcomes) - 1) < 1e-9 and len(outcomes) == 8
    assert outcomes[0][1] == state.apply("((6,3),(7,3))")
    assert len({s.board for _, s in outcomes}) > 3  # the refills differ


def test_views_list_every_candy_and_the_counters() -> None:
    state = state_of(ROWS)
    text = state.text()
    assert " 7| C G G R C R R P" in text and "    0 1 2 3 4 5 6 7" in text
    assert "Colours: G green, C cyan, P purple, R red" in text
    table = state.text_table()
    assert table.count("(row ") == 64 and "Red (R) candies at: (row 0, col 3), (row 1, col 0)" in table
    assert "moves left: 50 of 50" in table


def test_json_round_trip_and_bad_json() -> None:
    state = state_of(ROWS).apply("((6,3),(7,3))")
    assert GAME.state_from_json(json.loads(json.dumps(state.to_json()))) == state
    bad = [
        {"board": ["GCPR"] * 8},
        {"board": ["XXXXXXXX"] * 8},
        {"colours": "GG"},
        {"moves": 60},
        {"waves": [1]},
        {"last": "((0,0),(5,5))"},
        {"shuffled": "no"},
        {"game": "2048"},
    ]
    for change in bad:
        with pytest.raises(StateFormatError, match="not a Candy Crush state"):
            GAME.state_from_json(state.to_json() | change)
    with pytest.raises(StateFormatError, match="missing field"):
        GAME.state_from_json({"game": "candycrush"})


def test_clicks_name_a_candy_then_its_neighbour_in_either_order() -> None:
    state = state_of(ROWS)
    paths = state.path_actions(0)
    assert paths["(6,3)->(7,3)"] == paths["(7,3)->(6,3)"] == "((6,3),(7,3))"
    assert set(paths.values()) == set(state.legal_actions())
    assert len(paths) == 2 * len(state.legal_actions())
    assert "Click a candy" in GAME.controls


def test_the_greedy_bot_plays_the_biggest_sure_clear() -> None:
    state = state_of(ROWS)
    bot = GAME.make_bot("greedy", 0)
    decision = asyncio.run(bot.act(Observation(GAME, state, 0, tuple(state.legal_actions()))))
    best = max(sum(sure_clears(state.board, a)) for a in state.legal_actions())
    assert sum(sure_clears(state.board, decision.action)) == best
    assert "clears" in decision.rationale
    assert GAME.analysis_bot() == "greedy"


def ask(state: CandyState, seed: int, **rates: float) -> tuple[str, str]:
    client = SimClient("perfect", seed=seed, latency=0, format_error_rate=0.0, **rates)
    client.set_context(SimContext(GAME, state, 0))
    messages = (Message("system", "Play."), Message("user", "Your move?"))
    done = asyncio.run(client.complete(Request(model="sim", messages=messages)))
    return done.reasoning, done.content


def test_the_simulated_model_expects_the_cascade_misreads_and_reflects() -> None:
    state = state_of(ROWS)
    reasoning, answer = ask(state, 1)
    assert "((6,3),(7,3)) lines up red candies and clears 3" in reasoning
    assert "line up 16 more, a cascade" in reasoning
    parsed = parse_answer(GAME, state, 0, answer)
    assert parsed.ok and parsed.action in state.legal_actions()
    slips = []
    for seed in range(12):
        reasoning, answer = ask(state, seed, illegal_rate=1.0)
        parsed = parse_answer(GAME, state, 0, answer)
        assert parsed.kind == "illegal" and "makes no line" in parsed.error
        slips.append(parsed.extracted)
        assert "three in a row" in reasoning
    assert set(slips) <= set(near_misses(state)) and len(set(slips)) > 1
    behaviour = SimClient().behaviour(GAME)
    after = state.apply("((6,3),(7,3))")
    note = behaviour.reflection(
        SimContext(GAME, after, 0, [StepRecord(0, state, {0: "((6,3),(7,3))"}, (6.0,), after)])
    )
    assert "((6,3),(7,3)) cleared 3 candies and set off a cascade" in note


def test_the_prompts_carry_the_board_and_the_answer_format() -> None:
    state = state_of(ROWS)
    assert prompts.variants(GAME) == ["default", "compact"]
    for variant in ("default", "compact"):
        template = prompts.load_template(GAME, variant)
        assert {"rules", "state", "history", "reflection"} <= template.placeholders
        rendered = template.render(
            {"rules": GAME.rules_text(), "state": state.text(), "history": "", "reflection": ""}
        )
        text = repr(rendered)
        assert "7| C G G R C R R P" in text and "((row1,col1),(row2,col2))" in text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("thought: reds line up\nmove: ((6,3),(7,3))", "((6,3),(7,3))"),
        ("move: (7,3) -> (6,3)", "((6,3),(7,3))"),
        ("**Move:** swap (6,3) with (7,3).", "((6,3),(7,3))"),
        ("I will swap ((6,3),(7,3)) now", "((6,3),(7,3))"),
        ("move: (6,3) down", "((6,3),(7,3))"),
    ],
)
def test_the_extractor_reads_the_usual_ways_of_writing_a_swap(text: str, expected: str) -> None:
    state = state_of(ROWS)
    parsed = parse_answer(GAME, state, 0, text)
    assert parsed.action == expected, parsed.error


def test_the_extractor_never_patches_an_empty_move_line() -> None:
    found = extract_move("thought: ((6,3),(7,3)) looks good\nmove: ", ACTIONS)
    assert found.extracted is None and "empty" in found.error
    assert extract_move("no idea", ACTIONS).error.startswith("no 'move:' line")


def test_gymnasium_env_passes_the_checker_and_illegal_swaps_change_nothing() -> None:
    env = gymnasium.make("playtrace/candycrush-v0", render_mode="rgb_array")
    check_env(env.unwrapped)
    obs, info = env.reset(seed=0)
    assert obs["board"].shape == (8, 8) and obs["board"].dtype == np.uint8 and obs["moves_left"] == 50
    assert "Candies cleared: 0" in info["text"] and info["candies_cleared"] == 0
    illegal = next(i for i, a in enumerate(ACTIONS) if a not in info["legal"])
    again, reward, done, _, step_info = env.step(illegal)
    assert step_info["illegal"] and reward == 0 and not done
    assert np.array_equal(again["board"], obs["board"]) and again["moves_left"] == 50
    legal = ACTIONS.index(info["legal"][0])
    after, reward, _, _, step_info = env.step(legal)
    assert reward >= 3 and after["moves_left"] == 49 and step_info["changed"]
    frame = env.render()
    assert frame.ndim == 3 and frame.shape[2] == 3
    env.close()


def test_views_are_cached_values_not_shared_state() -> None:
    state = state_of(ROWS)
    other = dataclasses.replace(state, score=7)
    assert state.text() != other.text() and "Candies cleared: 7" in other.text()
