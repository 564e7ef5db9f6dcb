"""Checkers: rules (perft and hand positions), draws, views, parsing, the three intermediate-question
oracles, the answer extractor, the alpha-beta bot, the simulated model and the prompts."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

import engine
from engine.agent.parse import parse_answer
from engine.agent.prompts import load_template
from engine.core import IllegalActionError, InvalidActionError, StateFormatError
from engine.games.checkers import INITIAL_BOARD, WHITE, Checkers, CheckersState, perft, position
from engine.games.checkers.answers import extract_move
from engine.games.checkers.bots import CheckersBot, evaluate_board
from engine.games.checkers.questions import (
    QUESTIONS,
    king_moves,
    looks_exposed,
    two_for_one_moves,
    worthless_moves,
)
from engine.games.checkers.rules import parse_paths
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext
from engine.players import Observation
from engine.questions import asked_keys, score

W, B = 0, 1


@pytest.fixture
def game() -> Checkers:
    g = engine.make("checkers")
    assert isinstance(g, Checkers)
    return g


# -- the declaration and the start -----------------------------------------------------------------


def test_declaration(game: Checkers) -> None:
    assert game.id == "checkers" and [s.name for s in game.seats] == ["White", "Black"]
    assert game.action_bound == 64 and game.actions == ()
    assert game.default_opponent == "alphabeta" and game.default_prompt == "cot"
    assert "White" in game.description and "first" in game.description
    assert game.options["draw_rule"] == "paper"
    assert "40 moves" in game.rules_text()
    assert "20 moves" in engine.make("checkers", draw_rule="reference").rules_text()


def test_start_position(game: Checkers) -> None:
    state = game.initial_state()
    assert state.to_act == (W,) and state.step == 0
    assert state.board.count("w") == 12 and state.board.count("b") == 12
    for i, piece in enumerate(state.board):
        r, c = divmod(i, 8)
        if piece != "_":
            assert (r + c) % 2 == 1, f"piece on a light square ({r},{c})"
            assert (piece == "w" and r <= 2) or (piece == "b" and r >= 5)
    assert state.legal_actions() == [
        "(2,1)->(3,0)",
        "(2,1)->(3,2)",
        "(2,3)->(3,2)",
        "(2,3)->(3,4)",
        "(2,5)->(3,4)",
        "(2,5)->(3,6)",
        "(2,7)->(3,6)",
    ]
    assert state.legal_actions(B) == []


@pytest.mark.parametrize(("depth", "count"), [(1, 7), (2, 49), (3, 302), (4, 1469), (5, 7361), (6, 36768)])
def test_perft_matches_published_counts(depth: int, count: int) -> None:
    assert perft(INITIAL_BOARD, WHITE, depth) == count


def test_perft_through_states_agrees(game: Checkers) -> None:
    def walk(state: CheckersState, depth: int) -> int:
        if depth == 0:
            return 1
        return sum(walk(state.apply(a), depth - 1) for a in state.legal_actions())

    assert walk(game.initial_state(), 4) == 1469


# -- hand positions -----------------------------------------------------------------------------------


def test_capture_is_forced() -> None:
    state = position({(2, 1): "w", (2, 5): "w", (3, 2): "b"}, W)
    assert state.legal_actions() == ["(2,1)->(4,3)"]
    with pytest.raises(IllegalActionError):
        state.apply("(2,5)->(3,6)")
    after = state.apply("(2,1)->(4,3)")
    assert after.piece(3, 2) == "_" and after.piece(4, 3) == "w" and after.quiet == 0
    assert state.notice() == "White must capture."


def test_multi_jump_is_one_action_and_the_player_chooses() -> None:
    state = position({(2, 1): "w", (3, 2): "b", (5, 4): "b", (5, 2): "b", (6, 7): "b"}, W)
    assert sorted(state.legal_actions()) == ["(2,1)->(4,3)->(6,1)", "(2,1)->(4,3)->(6,5)"]
    after = state.apply("(2,1)->(4,3)->(6,5)")
    assert after.piece(6, 5) == "w" and after.piece(3, 2) == "_" and after.piece(5, 4) == "_"
    assert after.piece(5, 2) == "b" and after.to_act == (B,)
    assert after.last_move == "(2,1)->(4,3)->(6,5)"
    with pytest.raises(IllegalActionError):
        state.apply("(2,1)->(4,3)")  # stopping half-way is not a move


def test_promotion_crowns_and_ends_the_move() -> None:
    # The man lands on row 7 by a capture; as a king it could jump (6,5) next, but crowning ends the move.
    state = position({(5, 2): "w", (6, 3): "b", (6, 5): "b"}, W)
    assert state.legal_actions() == ["(5,2)->(7,4)"]
    after = state.apply("(5,2)->(7,4)")
    assert after.piece(7, 4) == "W" and after.piece(6, 5) == "b"
    simple = position({(6, 1): "w", (1, 0): "b"}, W).apply("(6,1)->(7,2)")
    assert simple.piece(7, 2) == "W"
    black = position({(1, 2): "b", (6, 1): "w"}, B).apply("(1,2)->(0,3)")
    assert black.piece(0, 3) == "B"


def test_kings_move_and_jump_both_ways() -> None:
    state = position({(4, 3): "W", (7, 0): "b"}, W)
    assert sorted(state.legal_actions()) == ["(4,3)->(3,2)", "(4,3)->(3,4)", "(4,3)->(5,2)", "(4,3)->(5,4)"]
    men = position({(4, 3): "w", (7, 0): "b"}, W)
    assert sorted(men.legal_actions()) == ["(4,3)->(5,2)", "(4,3)->(5,4)"]
    # A king can take four pieces around a square and land back where it started.
    ring = position({(2, 3): "W", (3, 4): "b", (5, 4): "b", (5, 2): "b", (3, 2): "b"}, W)
    assert "(2,3)->(4,5)->(6,3)->(4,1)->(2,3)" in ring.legal_actions()
    after = ring.apply("(2,3)->(4,5)->(6,3)->(4,1)->(2,3)")
    assert after.board.count("b") == 0 and after.winner == W and after.is_over


def test_blocked_side_loses() -> None:
    state = position({(3, 0): "w", (4, 1): "b", (5, 2): "b"}, W)
    assert state.legal_actions() == [] and state.is_over
    assert state.winner == B and state.scores == (0.0, 1.0)
    assert "Black wins" in state.status_text()
    no_pieces = position({(5, 2): "b"}, W)
    assert no_pieces.winner == B
    with pytest.raises(IllegalActionError):
        state.apply("(3,0)->(4,1)")


# -- draws ---------------------------------------------------------------------------------------------


def shuffle(state: CheckersState, n: int) -> CheckersState:
    """Two kings step back and forth ``n`` times each."""
    cycle = ["(0,1)->(1,2)", "(7,6)->(6,5)", "(1,2)->(0,1)", "(6,5)->(7,6)"]
    for _ in range(n):
        state = state.apply(cycle[state.plies % 4])
    return state


def test_paper_rule_threefold_repetition() -> None:
    start = position({(0, 1): "W", (7, 6): "B"}, W)
    assert start.repetitions == 1
    state = shuffle(start, 4)
    assert state.board == start.board and state.repetitions == 2 and not state.is_over
    state = shuffle(state, 4)
    assert state.repetitions == 3 and state.is_over and state.winner is None
    assert state.scores == (0.5, 0.5) and state.status_text() == "Draw."
    with pytest.raises(IllegalActionError):
        state.apply("(0,1)->(1,2)")


def test_reference_rule_twenty_quiet_moves() -> None:
    start = position({(0, 1): "W", (7, 6): "B", (0, 7): "w", (7, 0): "b"}, W, draw_rule="reference")
    state = shuffle(start, 19)
    assert not state.is_over and state.quiet == 19
    state = shuffle(state, 1)
    assert state.quiet == 20 and state.is_over and state.winner is None
    assert "Moves without a capture: 20 of 20" in state.text(0) and "Draw." in state.text(0)


def test_paper_rule_forty_quiet_moves_and_none_rule() -> None:
    # Men move irreversibly, so repetition never ends this sequence before the 40-move rule does.
    pieces = {(0, 1): "W", (7, 6): "B"}
    paper = CheckersState(board=position(pieces).board, seen=(position(pieces).board + "0",), quiet=39)
    assert not paper.is_over
    assert paper.apply("(0,1)->(1,2)").is_over
    none = position(pieces, W, draw_rule="none")
    state = shuffle(none, 60)
    assert not state.is_over and state.quiet == 60 and state.repetitions > 3


def test_capture_resets_the_quiet_counter_and_repetition() -> None:
    state = CheckersState(board=position({(2, 1): "w", (3, 2): "b", (7, 0): "b"}).board, quiet=30)
    after = state.apply("(2,1)->(4,3)")
    assert after.quiet == 0 and len(after.seen) == 1


# -- views and serialisation -------------------------------------------------------------------------


def test_text_view(game: Checkers) -> None:
    text = game.initial_state().text(0)
    assert "   0 1 2 3 4 5 6 7" in text
    assert "0  _ w _ w _ w _ w" in text and "7  b _ b _ b _ b _" in text
    assert "Current valid moves for player White: (2,1)->(3,0)" in text
    assert "You are player White." in text and "Moves without a capture: 0 of 40" in text


def test_json_round_trip(game: Checkers) -> None:
    rng = random.Random(3)
    state = game.initial_state()
    for _ in range(30):
        if state.is_over:
            break
        state = state.apply(rng.choice(state.legal_actions()))
        back = game.state_from_json(json.loads(json.dumps(state.to_json())))
        assert back == state and back.legal_actions() == state.legal_actions()


@pytest.mark.parametrize(
    "patch",
    [
        {"board": ["________"] * 7},
        {"board": ["w_______"] + ["________"] * 7},  # a piece on a light square
        {"mover": 2},
        {"draw_rule": "sometimes"},
        {"quiet": -1},
        {"seen": ["x"]},
        {"game": "othello"},
    ],
)
def test_state_from_json_rejects_bad_data(game: Checkers, patch: dict[str, object]) -> None:
    data = game.initial_state().to_json() | patch
    with pytest.raises(StateFormatError):
        game.state_from_json(data)


# -- parsing -------------------------------------------------------------------------------------------


def test_parse_action(game: Checkers) -> None:
    state = game.initial_state()
    assert game.parse_action("(2, 1) -> (3, 2)", state) == "(2,1)->(3,2)"
    assert game.parse_action("I like (2,1)->(3,0). Chosen Move: (2,5)->(3,6)", state) == "(2,5)->(3,6)"
    assert game.parse_action("(2,1) → (3,2)", state) == "(2,1)->(3,2)"
    with pytest.raises(InvalidActionError):
        game.parse_action("the centre", state)
    with pytest.raises(IllegalActionError):
        game.parse_action("(2,1)->(4,3)", state)
    with pytest.raises(IllegalActionError):
        game.parse_action("(2,1)->(3,2)", state, seat=1)
    with pytest.raises(InvalidActionError):
        state.apply("hello")


def test_parse_action_completes_an_unambiguous_first_hop(game: Checkers) -> None:
    one = position({(2, 1): "w", (3, 2): "b", (5, 4): "b", (7, 0): "b"}, W)
    assert game.parse_action("(2,1)->(4,3)", one) == "(2,1)->(4,3)->(6,5)"
    assert game.parse_action("(2,1)->(6,5)", one) == "(2,1)->(4,3)->(6,5)"
    two = position({(2, 1): "w", (3, 2): "b", (5, 4): "b", (5, 2): "b"}, W)
    with pytest.raises(IllegalActionError, match="several"):
        game.parse_action("(2,1)->(4,3)", two)


def test_extractor() -> None:
    legal = ["(2,1)->(4,3)->(6,5)", "(2,1)->(4,3)->(6,1)", "(6,1)->(4,3)->(2,5)"]
    ex = extract_move(
        "analysis (2,1)->(4,3)->(6,1)\n3. **Chosen Move**\nChosen Move: (6, 1) -> (4, 3)", legal
    )
    assert ex.extracted == "(6,1)->(4,3)->(2,5)" and "first hop" in ex.reason
    ex = extract_move("Chosen Move: (2,1)->(4,3)", legal)
    assert ex.extracted == "(2,1)->(4,3)" and not ex.reason  # ambiguous: left for the game to refuse
    ex = extract_move("Chosen Move: somewhere good", legal)
    assert ex.extracted is None and "names no move" in ex.error
    ex = extract_move(
        "[Intermediate Thinking Results 1: (6,1)->(4,3)->(2,5)] I play (2,1)->(4,3)->(6,5).", legal
    )
    assert ex.extracted == "(2,1)->(4,3)->(6,5)" and "no 'Chosen Move'" in ex.reason
    ex = extract_move(
        "2. Conclusion\nThe double jump wins two.\n3. Chosen Move\nChosen Move: (2,1)->(4,3)->(6,1)", legal
    )
    assert ex.extracted == "(2,1)->(4,3)->(6,1)" and ex.thought == "The double jump wins two"


def test_parse_answer_chain(game: Checkers) -> None:
    one = position({(2, 1): "w", (3, 2): "b", (5, 4): "b", (7, 0): "b"}, W)
    result = parse_answer(game, one, W, "Chosen Move: (2,1)->(4,3)")
    assert result.ok and result.action == "(2,1)->(4,3)->(6,5)" and "first hop" in result.reason
    two = position({(2, 1): "w", (3, 2): "b", (5, 4): "b", (5, 2): "b"}, W)
    result = parse_answer(game, two, W, "Chosen Move: (2,1)->(4,3)")
    assert not result.ok and result.kind == "illegal"


# -- intermediate questions ---------------------------------------------------------------------------


def test_spec_worthless_die_example() -> None:
    # GameBot: White (1,4)->(2,3) is taken by (3,2):b, and (0,3), (0,5) are empty: nothing takes back.
    bare = position({(1, 4): "w", (3, 2): "b"}, W)
    assert worthless_moves(bare.board, W) == ["(1,4)->(2,3)"]
    guarded = position({(1, 4): "w", (3, 2): "b", (0, 5): "w"}, W)
    assert worthless_moves(guarded.board, W) == []  # (0,5) jumps the capturer on (1,4)


def test_spec_two_for_one_example() -> None:
    # GameBot: Black (5,6)->(4,5) forces White (3,4)x(5,6); then (6,7) jumps (5,6) and (3,6) to (2,7).
    state = position({(1, 4): "w", (3, 4): "w", (3, 6): "w", (5, 4): "b", (5, 6): "b", (6, 7): "b"}, B)
    assert two_for_one_moves(state.board, B) == ["(5,6)->(4,5)"]
    after = state.apply("(5,6)->(4,5)")
    assert after.legal_actions() == ["(3,4)->(5,6)"]
    assert after.apply("(3,4)->(5,6)").legal_actions() == ["(6,7)->(4,5)->(2,7)"]
    # The cot prompt's worked example gives these answers for this board.
    assert sorted(worthless_moves(state.board, B)) == ["(5,4)->(4,3)", "(5,4)->(4,5)"]
    assert king_moves(state.board, B) == []


def test_two_for_one_needs_every_capture_to_allow_the_shot() -> None:
    # Without the black man on (5,4), White may also take with (3,6), landing on (5,4): no double jump
    # follows, so White escapes the shot (GameBot's code, which asks for *some* capture, would count it).
    escape = position({(1, 4): "w", (3, 4): "w", (3, 6): "w", (5, 6): "b", (6, 7): "b", (7, 0): "b"}, B)
    after = escape.apply("(5,6)->(4,5)")
    assert sorted(after.legal_actions()) == ["(3,4)->(5,6)", "(3,6)->(5,4)"]
    assert after.apply("(3,4)->(5,6)").legal_actions() == ["(6,7)->(4,5)->(2,7)"]
    assert two_for_one_moves(escape.board, B) == []


def test_king_making_moves_need_a_man() -> None:
    state = position({(6, 1): "w", (6, 5): "w", (7, 4): "b", (6, 7): "W", (1, 0): "b"}, W)
    # (6,5) is blocked towards (7,4) but can reach (7,6); the king on (6,7) reaching (7,6) is no new king.
    assert sorted(king_moves(state.board, W)) == ["(6,1)->(7,0)", "(6,1)->(7,2)", "(6,5)->(7,6)"]
    capture = position({(5, 2): "w", (6, 3): "b"}, W)
    assert king_moves(capture.board, W) == ["(5,2)->(7,4)"]
    assert king_moves(position({(1, 2): "b", (6, 1): "w"}, B).board, B) == ["(1,2)->(0,1)", "(1,2)->(0,3)"]


def test_worthless_die_hand_cases() -> None:
    # A king can take the moved piece from behind; a supporting piece makes the exchange even.
    behind = position({(2, 3): "w", (1, 0): "w", (4, 1): "B"}, W)
    assert "(2,3)->(3,2)" in worthless_moves(behind.board, W)
    edge = position({(2, 1): "w", (4, 1): "b"}, W)
    assert worthless_moves(edge.board, W) == ["(2,1)->(3,2)"]  # (3,0) on the edge cannot be jumped
    # The shallow reading flags a move whose jump would land off the board.
    side = position({(3, 6): "w", (5, 6): "b"}, B)
    assert "(5,6)->(4,7)" in looks_exposed(side.board, B)
    assert "(5,6)->(4,7)" not in worthless_moves(side.board, B)


def test_questions_are_set_questions_with_move_answers() -> None:
    assert [q.key for q in QUESTIONS] == [1, 2, 3]
    assert all(q.kind == "set" and q.scored_by == "f1" for q in QUESTIONS)
    assert parse_paths("(5,6) -> (4,5), (6,7)->(4,5)->(2,7)") == {"(5,6)->(4,5)", "(6,7)->(4,5)->(2,7)"}
    assert parse_paths("None") == set() and parse_paths("a few") is None
    state = position({(1, 4): "w", (3, 2): "b"}, W)
    q2 = QUESTIONS[1]
    truth = q2.expected(state, W)
    assert truth == ["(1,4)->(2,3)"]
    assert q2.written(truth) == "(1,4)->(2,3)"
    assert score(q2, "(1,4) -> (2,3)", truth)[0] is True
    assert score(q2, "None", truth)[2]["label"] == "FN"


def test_wrong_answers_differ_from_the_truth() -> None:
    rng = random.Random(0)
    state = position({(1, 4): "w", (3, 4): "w", (3, 6): "w", (5, 4): "b", (5, 6): "b", (6, 7): "b"}, B)
    for q in QUESTIONS:
        truth = q.expected(state, B)
        for _ in range(10):
            wrong = q.wrong(truth, state, B, rng)
            assert sorted(set(wrong)) != truth or not truth


# -- the bot -------------------------------------------------------------------------------------------


def decide(bot: CheckersBot, game: Checkers, state: CheckersState) -> str:
    obs = Observation(game, state, state.mover, tuple(state.legal_actions()), ())
    return asyncio.run(bot.act(obs)).action


def test_bot_takes_the_double_jump_and_avoids_dying(game: Checkers) -> None:
    bot = CheckersBot(game, 0)
    state = position({(1, 4): "w", (3, 4): "w", (3, 6): "w", (5, 4): "b", (5, 6): "b", (6, 7): "b"}, B)
    assert decide(bot, game, state) == "(5,6)->(4,5)"  # the two-for-one shot
    bare = position({(1, 4): "w", (1, 6): "w", (3, 2): "b", (7, 0): "b"}, W)
    assert decide(bot, game, bare) != "(1,4)->(2,3)"


def test_evaluation_prefers_material_and_kings() -> None:
    base = position({(2, 1): "w", (5, 2): "b"}).board
    more = position({(2, 1): "w", (2, 3): "w", (5, 2): "b"}).board
    king = position({(2, 1): "W", (5, 2): "b"}).board
    assert evaluate_board(more, W) > evaluate_board(base, W) + 90
    assert evaluate_board(king, W) > evaluate_board(base, W)
    assert evaluate_board(base, B) == -evaluate_board(base, W)


def test_bot_plays_legal_moves_through_a_game(game: Checkers) -> None:
    # Its move time (about 200 ms at most) is measured by benchmarks/bench_gamebot.py.
    rng = random.Random(5)
    bot = CheckersBot(game, 0)
    state = game.initial_state()
    for _ in range(40):
        if state.is_over:
            break
        action = decide(bot, game, state)
        assert action in state.legal_actions()
        state = state.apply(action if rng.random() < 0.6 else rng.choice(state.legal_actions()))


# -- the simulated model and the prompts --------------------------------------------------------------


def ask(client: SimClient, game: Checkers, state: CheckersState, prompt: str) -> tuple[str, str]:
    client.set_context(SimContext(game, state, state.mover))
    request = Request(model="sim", messages=(Message("user", prompt),))
    completion = asyncio.run(client.complete(request))
    return completion.reasoning, completion.content


def cot_prompt(game: Checkers) -> str:
    template = load_template(game, "cot")
    return template.system + "\n" + template.user


def test_sim_answers_from_the_oracles_and_parses(game: Checkers) -> None:
    prompt = cot_prompt(game)
    state = position({(1, 4): "w", (3, 4): "w", (3, 6): "w", (5, 4): "b", (5, 6): "b", (6, 7): "b"}, B)
    client = SimClient(
        "perfect", seed=1, latency=0, wrong_ir_rate=0.0, illegal_rate=0.0, format_error_rate=0.0
    )
    reasoning, answer = ask(client, game, state, prompt)
    result = parse_answer(game, state, B, answer)
    assert result.ok and result.action == "(5,6)->(4,5)"
    assert result.tags == {1: "None", 2: "(5,4)->(4,3), (5,4)->(4,5)", 3: "(5,6)->(4,5)"}
    assert "Center Control" in answer and "two-for-one" in answer and "(5,6)->(4,5)" in reasoning
    assert answer.rstrip().endswith("Chosen Move: (5,6)->(4,5)")


def test_sim_plays_whole_games_with_parsable_answers(game: Checkers) -> None:
    prompt = cot_prompt(game)
    rng = random.Random(2)
    client = SimClient("careless", seed=3, latency=0, format_error_rate=0.0, illegal_rate=0.0)
    state = game.initial_state()
    for _ in range(30):
        if state.is_over:
            break
        _, answer = ask(client, game, state, prompt)
        result = parse_answer(game, state, state.mover, answer)
        assert result.ok, answer
        assert set(result.tags) == {1, 2, 3}
        state = state.apply(result.action if rng.random() < 0.8 else rng.choice(state.legal_actions()))


def test_sim_slips_are_illegal_misreadings(game: Checkers) -> None:
    state = position({(2, 1): "w", (2, 5): "w", (3, 2): "b", (7, 0): "b"}, W)
    for seed in range(5):
        client = SimClient("perfect", seed=seed, latency=0, illegal_rate=1.0, format_error_rate=0.0)
        _, answer = ask(client, game, state, cot_prompt(game))
        result = parse_answer(game, state, W, answer)
        assert result.kind == "illegal"
        assert result.extracted in ("(2,5)->(3,4)", "(2,5)->(3,6)", "(2,1)->(3,0)")
        assert "No capture is available" in answer


def test_prompts_ask_the_questions_only_in_cot(game: Checkers) -> None:
    cot = cot_prompt(game)
    assert asked_keys(cot) == {1, 2, 3}
    assert "White moves first" in cot and "_" in cot and "Chosen Move: (X,X)->(X,X)" in cot
    for variant in ("naive", "none"):
        template = load_template(game, variant)
        assert asked_keys(template.system + template.user) == set()
        assert "Chosen Move" in template.user


def test_conformance() -> None:
    assert engine.check_game("checkers").states > 50
