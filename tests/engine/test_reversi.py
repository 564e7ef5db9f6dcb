"""Reversi (LVLM-Playground): Othello's rules under LVLM names, the start the prompt states, the points,
the disc-difference opponent, the extractor, the simulated model and the offline task definitions."""

from __future__ import annotations

import asyncio
import math
import random
import re

import pytest

import engine
from engine.agent.parse import parse_answer
from engine.agent.prompts import load_template
from engine.core import IllegalActionError, InvalidActionError, StateFormatError
from engine.games.othello import Othello, OthelloState, Reversi, ReversiState, lvlm
from engine.games.othello.bots import DiscDifferenceBot, PositionalBot
from engine.games.othello.reversi import ACTIONS, CELLS, PASS, find_moves, parse_move
from engine.games.othello.reversi_answers import extract_move
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext
from engine.players import Observation

EMPTY_ROW = "........"


def board(rows: dict[str, str], mover: int = 0, black_moves: int = 0) -> ReversiState:
    """A position from its non-empty rows (row letter A..H -> 8 characters of "B", "W", ".")."""
    data = {
        "game": "reversi",
        "board": [rows.get(r, EMPTY_ROW) for r in "ABCDEFGH"],
        "mover": mover,
        "last_action": None,
        "ply": 10,
        "black_moves": black_moves,
    }
    state = Reversi().state_from_json(data)
    assert isinstance(state, ReversiState)
    return state


def othello_name(name: str) -> str:
    """Reversi's "D3" (row D, column 3) as Othello writes the same square: "(C,4)"."""
    if name == PASS:
        return PASS
    return f"({'ABCDEFGH'[int(name[1]) - 1]},{'ABCDEFGH'.index(name[0]) + 1})"


# -- the declaration and the start -------------------------------------------------------------------


def test_declaration() -> None:
    game = engine.make("reversi")
    assert isinstance(game, Reversi)
    assert (game.id, game.title, game.suites) == ("reversi", "Reversi", ("lvlm",))
    assert game.default_opponent == "alphabeta" and game.bots["alphabeta"].endswith("DiscDifferenceBot")
    assert "positional" in game.bots and "greedy" in game.bots
    assert len(game.actions) == 65 and game.actions[:3] == ("A1", "A2", "A3") and game.actions[-1] == PASS
    assert game.actions[8] == "B1" and game.actions == ACTIONS and len(set(CELLS)) == 64
    assert game.questions is None


def test_start_matches_the_prompt_and_the_reference_code() -> None:
    state = Reversi().initial_state()
    # The reference's board[3][3], [3][4], [4][3], [4][4] = 2, 1, 1, 2 (row letter, column number).
    assert (state.at("D4"), state.at("D5"), state.at("E4"), state.at("E5")) == ("W", "B", "B", "W")
    assert state.to_act == (0,) and state.legal_actions() == ["C4", "D3", "E6", "F5"]
    prompt = load_template(Reversi()).render({
        "game_title": "Reversi", "rules": "", "history": "", "reflection": "", "state": state.text(0),
        "legal_moves": "", "seat_name": "Black", "mark": "Black", "opponent_mark": "White", "step": "0",
    })
    text = prompt.system + "\n" + prompt.user
    assert "two white (at D4 and E5) and two black (at D5 and E4)" in text
    assert "Observation:" in text and "Strategy:" in text and "Movement:" in text
    assert "You play Black" in text
    assert "White on D4 and E5, Black on D5 and E4" in Reversi().rules_text()


def test_same_rules_as_othello_under_transposed_names() -> None:
    rng = random.Random(5)
    for _ in range(20):
        rev, oth = Reversi().initial_state(), Othello(start="lvlm").initial_state()
        while not rev.is_over:
            assert {othello_name(a) for a in rev.legal_actions()} == set(oth.legal_actions())
            action = rng.choice(rev.legal_actions())
            rev, oth = rev.apply(action), oth.apply(othello_name(action))
            assert (rev.black, rev.white, rev.mover) == (oth.black, oth.white, oth.mover)
        assert oth.is_over and rev.winner == oth.winner and rev.scores == oth.scores


def test_names_are_read_in_either_order_and_any_case() -> None:
    assert parse_move("D3") == parse_move("d3") == parse_move("3D") == parse_move(" 3 d ") == 3 * 8 + 2
    assert parse_move("(D,3)") is None and parse_move("D9") is None and parse_move("I1") is None
    assert find_moves("Movement: 3d, not e6 or AB7") == ["D3", "E6"]
    start = Reversi().initial_state()
    assert start.apply("3d") == start.apply("D3") and start.apply("D3").last_action == "D3"
    with pytest.raises(InvalidActionError, match="row letter then column number"):
        start.apply("(C,4)")
    with pytest.raises(IllegalActionError, match="D4 is already taken"):
        start.apply("D4")
    with pytest.raises(IllegalActionError, match="A1 outflanks no White disc"):
        start.apply("A1")


def test_parse_action() -> None:
    game, state = Reversi(), Reversi().initial_state()
    assert game.parse_action("Movement: **4c**", state) == "C4"
    assert game.parse_action("f5", state, 0) == "F5"
    with pytest.raises(InvalidActionError, match="several squares"):
        game.parse_action("C4 or D3", state)
    with pytest.raises(InvalidActionError, match="names no square"):
        game.parse_action("the corner", state)
    with pytest.raises(IllegalActionError, match="outflanks no White"):
        game.parse_action("A1", state)
    with pytest.raises(IllegalActionError, match="not to move"):
        game.parse_action("C4", state, 1)


# -- points, passes, JSON ------------------------------------------------------------------------------


def test_points_count_black_moves_discs_and_the_result() -> None:
    state = Reversi().initial_state()
    assert state.metrics()["lvlm_points"] == 40.0  # the paper's "stagnate at 40"
    state = state.apply("C4")  # Black places one and flips D4: 4 Black discs
    assert state.black_moves == 1 and state.metrics()["lvlm_points"] == 10 + 4 * 20
    state = state.apply("C3")  # White's move is not Black's: 3 Black discs now
    assert state.black_moves == 1 and state.lvlm_points() == 10 + 3 * 20
    won = board({"A": "BBB....."}, black_moves=7)
    assert won.is_over and won.winner == 0 and won.lvlm_points() == 70 + 60 + 1000
    drawn = board({"A": "B......W"}, black_moves=2)
    assert drawn.is_over and drawn.winner is None and drawn.lvlm_points() == 20 + 20 + 500
    lost = board({"A": "B.......", "H": "......WW"}, black_moves=3)
    assert lost.is_over and lost.winner == 1 and lost.lvlm_points() == 30 + 20
    assert lost.metrics()["black_moves"] == 3.0


def test_a_pass_is_not_a_black_move() -> None:
    # Black has no move (nothing it could outflank); White can play A3.
    state = board({"A": "WB......"}, black_moves=4)
    assert state.legal_actions() == [PASS] and state.panel(0) is not None
    after = state.apply(PASS)
    assert after.black_moves == 4 and after.mover == 1 and after.last_action == PASS
    assert after.legal_actions() == ["A3"]


def test_json_round_trip_and_bad_data() -> None:
    game = Reversi()
    state = game.initial_state().apply("C4").apply("C3")
    data = state.to_json()
    assert data["game"] == "reversi" and data["black_moves"] == 1 and data["last_action"] == "C3"
    assert "wedge" not in data
    assert game.state_from_json(data) == state
    for bad in (
        {**data, "last_action": "(C,3)"},
        {**data, "black_moves": -1},
        {**data, "game": "othello"},
        {**data, "board": data["board"][:7]},
    ):
        with pytest.raises(StateFormatError):
            game.state_from_json(bad)
    # Othello's states are not Reversi's, though the bits mean the same squares.
    assert Othello(start="lvlm").initial_state() != game.initial_state()
    assert isinstance(game.initial_state(), OthelloState)


def test_text_view_is_labelled_as_drawn() -> None:
    text = Reversi().initial_state().apply("C4").text(1)
    assert "You are the White player (W)." in text
    assert "   1 2 3 4 5 6 7 8" in text and "C  . . . B . . . ." in text and "D  . . . B B . . ." in text
    assert "Last move: Black played C4." in text


def test_conformance_of_both_games() -> None:
    assert engine.check_game("reversi").episodes > 0
    assert engine.check_game("othello").episodes > 0


# -- the opponent ---------------------------------------------------------------------------------------


def _minimax(state: ReversiState, seat: int, depth: int) -> float:
    """A plain depth-limited minimax on the disc difference (no pruning), for reference."""
    if state.is_over:
        margin = state.discs(seat).bit_count() - state.discs(1 - seat).bit_count()
        return (1e9 if state.winner == seat else -1e9 if state.winner is not None else 0) + margin
    if depth == 0:
        return state.discs(seat).bit_count() - state.discs(1 - seat).bit_count()
    values = [_minimax(state.apply(a), seat, depth - 1) for a in state.legal_actions()]
    return max(values) if state.mover == seat else min(values)


def test_alphabeta_is_a_depth_3_disc_difference_search() -> None:
    game = Reversi()
    rng = random.Random(2)
    bot = game.make_bot("alphabeta", seed=0)
    assert isinstance(bot, DiscDifferenceBot) and bot.depth == 3
    assert isinstance(game.make_bot("positional", seed=0), PositionalBot)
    checked = 0
    state = game.initial_state()
    while not state.is_over and checked < 8:
        if state.legal_actions() != [PASS]:
            obs = Observation(game, state, state.mover, tuple(state.legal_actions()), ())
            values = bot.evaluate(obs)
            for action, value in values.items():
                expected = _minimax(state.apply(action), state.mover, 2)
                if abs(expected) < 1e8:
                    assert math.isclose(value, expected), (action, value, expected)
            decision = asyncio.run(bot.act(obs))
            assert decision.action in state.legal_actions()
            assert values[decision.action] == max(values.values())
            checked += 1
        state = game.play_random(state, rng)
    assert checked == 8


def test_alphabeta_beats_random_and_names_its_moves_the_lvlm_way() -> None:
    game = Reversi()
    bot = game.make_bot("alphabeta", seed=1)
    rng = random.Random(0)
    state = game.initial_state()
    while not state.is_over:
        if state.mover == 1:
            obs = Observation(game, state, 1, tuple(state.legal_actions()), ())
            action = asyncio.run(bot.act(obs)).action
            assert action in CELLS or action == PASS
            state = state.apply(action)
        else:
            state = game.play_random(state, rng)
    assert state.winner == 1


# -- the extractor and the simulated model ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "move"),
    [
        ("Observation: x\nStrategy: y\nMovement: D3", "D3"),
        ("Observation: x\nStrategy: y\nMovement: **3d**", "D3"),
        ("Movement: c4\nOn second thought...\nMovement: f5.", "F5"),
        ("Strategy: take C4\n**Movement:**\n E6", "E6"),
    ],
)
def test_extract_move_after_the_last_movement(reply: str, move: str) -> None:
    found = extract_move(reply, ["C4", "D3", "E6", "F5"])
    assert found.extracted == move


def test_extract_move_errors_and_forced_pass() -> None:
    legal = ["C4", "D3"]
    assert extract_move("Observation: x\nStrategy: play D3", legal).extracted is None
    assert "Movement" in (extract_move("Strategy: play D3", legal).error or "")
    assert extract_move("Movement: the corner", legal).extracted == "the corner"
    assert extract_move("Movement: pass", legal).extracted == PASS
    assert extract_move("Strategy: I must pass\nMovement: A1", [PASS]).extracted == PASS
    assert extract_move("Strategy: flip the edge\nMovement: C4", legal).thought == "flip the edge"


def ask(client: SimClient, state: ReversiState, seat: int) -> str:
    client.set_context(SimContext(Reversi(), state, seat))
    messages = (Message("system", "Reversi."), Message("user", "Movement: <position>"))
    return asyncio.run(client.complete(Request(model="sim", messages=messages))).content


def positions(n: int, seed: int = 0) -> list[ReversiState]:
    rng = random.Random(seed)
    game = Reversi()
    out: list[ReversiState] = []
    while len(out) < n:
        state = game.initial_state()
        for _ in range(rng.randrange(0, 50)):
            if state.is_over:
                break
            state = game.play_random(state, rng)
        if not state.is_over and state.legal_actions() != [PASS]:
            out.append(state)
    return out


def test_a_perfect_sim_answers_in_the_lvlm_format_with_a_legal_move() -> None:
    game = Reversi()
    for i, state in enumerate(positions(12)):
        seat = state.to_act[0]
        reply = ask(SimClient("perfect", seed=i, latency=0), state, seat)
        lines = reply.strip().splitlines()
        assert [ln.split(":")[0] for ln in lines] == ["Observation", "Strategy", "Movement"], reply
        parsed = parse_answer(game, state, seat, reply)
        assert parsed.ok and parsed.action in state.legal_actions(seat), reply
        assert lvlm.read_move(reply) == parsed.action
        corners = [a for a in ("A1", "A8", "H1", "H8") if a in state.legal_actions(seat)]
        if corners:
            assert parsed.action in corners


def test_sim_slips_are_invalid_squares_and_format_slips_lose_the_move() -> None:
    game = Reversi()
    illegal = 0
    for i, state in enumerate(positions(10, seed=4)):
        seat = state.to_act[0]
        reply = ask(SimClient("perfect", seed=i, latency=0, illegal_rate=1.0), state, seat)
        parsed = parse_answer(game, state, seat, reply)
        move = lvlm.read_move(reply)
        assert move in CELLS and move not in state.legal_actions(seat)
        illegal += not parsed.ok
    assert illegal == 10
    broken = ask(SimClient("perfect", seed=1, latency=0, format_error_rate=1.0), positions(1)[0], 0)
    assert extract_move(broken, ["C4"]).extracted not in CELLS


def test_sim_passes_when_it_must() -> None:
    forced = board({"A": "WB......"})
    reply = ask(SimClient("perfect", seed=0, latency=0), forced, 0)
    assert reply.rstrip().endswith("Movement: pass")
    assert parse_answer(Reversi(), forced, 0, reply).action == PASS


# -- the offline tasks ------------------------------------------------------------------------------------


def test_random_boards_follow_the_reference_generator() -> None:
    a = [lvlm.matrix(lvlm.random_board(random.Random(9))) for _ in range(2)]
    assert a[0] == a[1]
    rng = random.Random(3)
    for _ in range(200):
        state = lvlm.random_board(rng)
        assert isinstance(state, ReversiState) and state.mover == 0
        flat = [v for row in lvlm.matrix(state) for v in row]
        discs = 64 - flat.count(0)
        assert 10 <= discs <= 56 and set(flat) <= {0, 1, 2}
        assert discs * 30 // 100 <= flat.count(1) <= discs * 70 // 100


def test_random_legal_positions_have_a_black_move() -> None:
    first = lvlm.random_legal(random.Random(4))
    again = lvlm.random_legal(random.Random(4))
    assert first[0] == again[0] and first[1] == again[1] == 0
    rng = random.Random(8)
    for _ in range(50):
        state, seat = lvlm.random_legal(rng)
        assert seat == 0 and not state.is_over
        moves = lvlm.valid_moves(state, seat)
        assert moves and all(m in CELLS for m in moves)
        for move in moves:
            state.apply(move)  # every listed move is legal


def test_matrix_valid_moves_and_read_move_on_a_hand_case() -> None:
    state = board({"A": "B.......", "D": "...WB...", "E": "...BW...", "H": ".......W"})
    grid = lvlm.matrix(state)
    assert grid[0] == [1, 0, 0, 0, 0, 0, 0, 0] and grid[3] == [0, 0, 0, 2, 1, 0, 0, 0]
    assert grid[7][7] == 2 and sum(v == 0 for row in grid for v in row) == 58
    assert lvlm.MATRIX_SHAPE == (8, 8) and lvlm.MATRIX_RANGE == (0, 2)
    assert lvlm.valid_moves(state, 0) == ["C4", "D3", "E6", "F5"]
    assert lvlm.valid_moves(state, 1) == []  # not White's turn
    assert lvlm.valid_moves(board({"A": "WB......"}), 0) == []  # a forced pass is no LVLM move
    assert lvlm.read_move("Observation: D4 is white\nStrategy: x\nMovement: 4c") == "C4"
    assert lvlm.read_move("I would play f5 here") == "F5"
    assert lvlm.read_move("Movement: nothing") is None and lvlm.read_move("no move") is None


def test_questions_are_answered_right_on_a_hand_case() -> None:
    state = board({
        "A": "BBB.....",
        "B": "W.......",
        "C": "WW.B....",
        "D": "...WB...",
        "E": "...BW...",
        "H": "......WB",
    })
    # Black: A1 A2 A3 C4 D5 E4 H8 = 7; White: B1 C1 C2 D4 E5 H7 = 6; empty 51.
    for seed in range(40):
        for question, answer, wrong in lvlm.questions(state, random.Random(seed)):
            assert answer not in wrong and len(set(wrong)) == len(wrong) >= 2
            if question.startswith("How many"):
                assert all(int(w) >= 0 and abs(int(w) - int(answer)) <= 3 for w in wrong)
            expected = {
                "How many 'Black' pieces are on the board?": "7",
                "How many 'White' pieces are on the board?": "6",
                "How many 'Black' pieces are there in total on the board?": "7",
                "How many 'White' pieces are there in total on the board?": "6",
                "How many empty cells are on the board?": "51",
                "Which player has more pieces on the board?": "Black",
                "Which row has the most 'Black' pieces?": "A",
                "Which row has the most 'White' pieces?": "C",
                "How many pieces are in total in row A?": "3",
                "How many pieces are in total in row C?": "3",
                "How many pieces are in total in column 1?": "3",
                "How many pieces are in total in column 8?": "1",
                "How many 'White' pieces are in row C?": "2",
                "How many 'Black' pieces are in row C?": "1",
                "How many 'White' pieces are in column 1?": "2",
                "How many 'Black' pieces are in column 4?": "2",
                "What is the symbol in row A, column 1?": "Black",
                "What is the symbol in row B, column 1?": "White",
                "What is the symbol in row B, column 2?": "empty",
                "What is the symbol in row H, column 8?": "Black",
            }.get(question)
            if expected is not None:
                assert answer == expected, question
    asked = [q for seed in range(40) for q, _, _ in lvlm.questions(state, random.Random(seed))]
    kinds = {re.sub(r"'(Black|White)'|row [A-H]|column [1-8]", "", q) for q in asked}
    # symbol, board count (two wordings), empty, colour in a line, most, more, discs in a line
    assert len(kinds) == 8


def test_which_row_never_offers_a_tied_row() -> None:
    state = board({"A": "B.......", "C": "B.......", "F": "BB......"})
    for seed in range(30):
        for question, answer, wrong in lvlm.questions(state, random.Random(seed)):
            if question == "Which row has the most 'Black' pieces?":
                assert answer == "F" and len(wrong) == 3
    tied = board({"A": "B.......", "C": "B.......", "F": "B......."})
    for seed in range(30):
        for question, answer, wrong in lvlm.questions(tied, random.Random(seed)):
            if question == "Which row has the most 'Black' pieces?":
                assert answer == "A" and not {"C", "F"} & set(wrong)


def test_task_prompts() -> None:
    assert set(lvlm.PROMPTS) == {"perceive", "qa", "rules"}
    perceive = lvlm.PROMPTS["perceive"]
    assert "Game State:" in perceive and "[0, 0, 0, 2, 1, 0, 0, 0]" in perceive
    assert "{question}" in lvlm.PROMPTS["qa"] and "Answer:" in lvlm.PROMPTS["qa"]
    assert "Movement:" in lvlm.PROMPTS["rules"] and "Rows are labelled A to H" in lvlm.PROMPTS["rules"]
