"""Gomoku: rules and win detection on the edges, parsing, the pattern bot (and its speed), the
extractor, the simulated model's Observation / Strategy / Movement answers, and LVLM-Playground's
offline task functions."""

from __future__ import annotations

import asyncio
import random
import statistics
import time

import pytest

import engine
from engine.agent import prompts
from engine.agent.parse import parse_answer
from engine.core import IllegalActionError, InvalidActionError, StateFormatError
from engine.games.gomoku import ACTIONS, Gomoku, GomokuState, board_state, five_moves, fives, lvlm
from engine.games.gomoku.answers import extract_move
from engine.games.gomoku.bots import PatternBot, search
from engine.games.gomoku.sim import open_four_moves
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext
from engine.players import Observation

GAME = engine.make("gomoku")
EMPTY = "." * 15


def play(*moves: str) -> GomokuState:
    """The state after ``moves`` from the start, Black first."""
    state = GAME.initial_state()
    for move in moves:
        state = state.apply(move)
    assert isinstance(state, GomokuState)
    return state


def rows(**marked: str) -> list[str]:
    """An empty board with some rows replaced: ``rows(r8="......BBB......")`` (rows numbered 1-15)."""
    board = [EMPTY] * 15
    for key, text in marked.items():
        board[int(key[1:]) - 1] = text
    return board


def line_game(black: list[str], white: list[str]) -> GomokuState:
    """Black plays ``black`` in order and White ``white`` in between (White one shorter or equal)."""
    moves: list[str] = []
    for i, b in enumerate(black):
        moves.append(b)
        if i < len(white):
            moves.append(white[i])
    return play(*moves)


FAR_WHITE = ["A15", "C15", "E15", "G15", "I15"]


# -- declaration and coordinates ------------------------------------------------------------------


def test_declaration_and_actions() -> None:
    assert isinstance(GAME, Gomoku) and GAME.id == "gomoku" and GAME.suites == ("lvlm",)
    assert [s.name for s in GAME.seats] == ["Black", "White"]
    assert len(GAME.actions) == 225 and len(set(GAME.actions)) == 225
    assert GAME.actions[0] == "A1" and GAME.actions[14] == "O1" and GAME.actions[15] == "A2"
    assert GAME.actions[112] == "H8" and GAME.actions[-1] == "O15"
    assert GAME.default_opponent == "pattern" and "pattern" in GAME.bots
    assert prompts.load_template(GAME).path == "prompts/gomoku/default.md"


def test_conformance() -> None:
    report = engine.check_game("gomoku")
    assert report.states > 100


def test_columns_are_letters_and_rows_numbers_from_the_top() -> None:
    state = play("C2")  # column C (third from the left), row 2 (second from the top)
    assert state.cells[1 * 15 + 2] == "B"
    assert state.grid_text().splitlines()[2].split()[1:4] == [".", ".", "B"]
    assert lvlm.matrix(state)[1][2] == 1


# -- win detection --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("black", "name"),
    [
        (["A1", "B1", "C1", "D1", "E1"], "top edge row from the corner"),
        (["O11", "O12", "O13", "O14", "O15"], "right edge column to the corner"),
        (["K11", "L12", "M13", "N14", "O15"], "down-right diagonal into the corner"),
        (["A15", "B14", "C13", "D12", "E11"], "up-right diagonal from the bottom-left corner"),
        (["O1", "N2", "M3", "L4", "K5"], "down-left diagonal from the top-right corner"),
        (["D4", "E5", "F6", "G7", "H8"], "main diagonal in the middle"),
    ],
)
def test_five_wins_on_edges_and_both_diagonals(black: list[str], name: str) -> None:
    white = ["H1", "H3", "H5", "J9"]
    # The fifth stone is played last, in the middle of the order, so every case checks both sides.
    order = [black[0], black[1], black[3], black[4], black[2]]
    state = line_game(order, white)
    assert state.is_over and state.winner == 0 and state.scores == (1.0, 0.0), name
    line = state.winning_line()
    assert line is not None and sorted(ACTIONS[i] for i in line) == sorted(black)
    assert state.legal_actions() == [] and state.to_act == ()
    with pytest.raises(IllegalActionError):
        state.apply("H9")


def test_four_does_not_win_and_a_blocked_line_does_not_either() -> None:
    state = line_game(["A1", "B1", "C1", "D1"], ["A3", "B3", "C3"])
    assert not state.is_over and state.winner is None
    blocked = line_game(["A1", "B1", "C1", "D1", "F1"], ["E1", "B3", "C3", "D3"])
    assert not blocked.is_over  # B B B B W B: no five


def test_six_in_a_row_wins_freestyle() -> None:
    # B B B . B B on row 8, then the gap: an overline of six counts as a win.
    state = line_game(["C8", "D8", "E8", "G8", "H8", "F8"], ["C10", "D10", "E10", "G10", "L12"])
    assert state.winner == 0
    line = state.winning_line()
    assert line is not None and len(line) == 6
    # Before the gap is filled, F8 is the only point that makes five or more (B8 and I8 make four).
    assert five_moves(line_game(["C8", "D8", "E8", "G8", "H8"], FAR_WHITE[:4]).cells, "B") == ["F8"]


def test_white_wins_too() -> None:
    state = line_game(["A1", "C1", "E1", "G1", "A14"], ["H5", "H6", "H7", "H8", "H9"])
    assert state.winner == 1 and state.scores == (0.0, 1.0)
    assert state.metrics()["lvlm_points"] == 10 * 5  # a loss: 10 per Black stone, no bonus


def _draw_cells() -> list[str]:
    return ["BW"[((c // 2) + r) % 2] for r in range(15) for c in range(15)]


def test_a_full_board_without_five_is_a_draw() -> None:
    cells = _draw_cells()
    assert not fives(cells) and cells.count("B") == 113
    black = [ACTIONS[i] for i in range(225) if cells[i] == "B"]
    white = [ACTIONS[i] for i in range(225) if cells[i] == "W"]
    state = GAME.initial_state()
    for i in range(225):
        assert not state.is_over
        state = state.apply(black[i // 2] if i % 2 == 0 else white[i // 2])
    assert isinstance(state, GomokuState)
    assert state.is_over and state.winner is None and state.scores == (0.5, 0.5)
    assert state.metrics()["lvlm_points"] == 10 * 113 + 500


def test_points_for_a_win() -> None:
    state = line_game(["H8", "H9", "H10", "H11", "H12"], FAR_WHITE[:4])
    assert state.metrics() == {"lvlm_points": 1050.0, "black_stones": 5.0, "white_stones": 4.0}
    assert play("H8", "I9").metrics()["lvlm_points"] == 10


# -- actions, parsing, JSON ------------------------------------------------------------------------


def test_apply_rejects_taken_points_nonsense_and_the_wrong_seat() -> None:
    state = play("H8")
    with pytest.raises(IllegalActionError, match="taken"):
        state.apply("H8")
    with pytest.raises(InvalidActionError):
        state.apply("P1")
    with pytest.raises(InvalidActionError):
        state.apply("H16")
    with pytest.raises(IllegalActionError):
        state.apply({0: "A1"})
    assert state.apply({1: "a1"}).cells[0] == "W"


def test_parse_action_reads_either_order_and_the_movement_line() -> None:
    state = play("H8")
    assert GAME.parse_action("h9", state) == "H9"
    assert GAME.parse_action("9H", state) == "H9"
    assert GAME.parse_action("Observation: H8 is Black.\nMovement: I 9", state) == "I9"
    assert GAME.parse_action("O15", state) == "O15"  # two digits, not O1
    with pytest.raises(InvalidActionError, match="several"):
        GAME.parse_action("H9 or J9", state)
    with pytest.raises(InvalidActionError):
        GAME.parse_action("the centre", state)
    with pytest.raises(IllegalActionError, match="taken"):
        GAME.parse_action("Movement: H8", state)


def test_json_round_trip_and_errors() -> None:
    state = play("H8", "I9", "A15")
    data = state.to_json()
    assert data["rows"][7][7] == "B" and data["rows"][8][8] == "W" and data["rows"][14][0] == "B"
    assert GAME.state_from_json(data) == state
    board = lvlm.random_board(random.Random(5))
    assert GAME.state_from_json(board.to_json()) == board
    for bad in (
        {"rows": ["." * 15] * 14},
        {"rows": ["X" * 15] * 15},
        {"rows": ["." * 15] * 15, "last_action": "H8"},
        {"game": "othello", "rows": ["." * 15] * 15},
        [],
    ):
        with pytest.raises(StateFormatError):
            GAME.state_from_json(bad)  # type: ignore[arg-type]


def test_text_view_names_the_coordinates() -> None:
    text = play("H8", "I9").text(0)
    assert "A B C D E F G H I J K L M N O" in text and "Last move: White at I9." in text
    assert " 8  . . . . . . . B" in text
    assert "Black stones at: H8" in play("H8").text_table(0)


# -- the pattern bot ---------------------------------------------------------------------------------


def best(state: GomokuState, seat: int) -> set[str]:
    values = {ACTIONS[i]: v for i, v in search(state.cells, "BW"[seat]).items()}
    top = max(values.values())
    return {a for a, v in values.items() if v == top}


def test_bot_takes_a_five_and_blocks_one() -> None:
    win = board_state(rows(r8="......WWWW.....", r9=".....BBBB......", r1="B.............."))
    assert len(best(win, 1)) == 1 and best(win, 1) <= {"F8", "K8"}
    assert len(search(win.cells, "W")) == 1  # a five ends the search at once
    block = board_state(rows(r8="......BBBB.....", r9=".....W.W.W....."))
    assert best(block, 1) <= {"F8", "K8"}  # lost anyway (an open four), but it still blocks a side
    closed = board_state(rows(r8=".....WBBBB.....", r9=".....W.W.W....."))
    assert best(closed, 1) == {"K8"}


def test_bot_blocks_an_open_three() -> None:
    state = board_state(rows(r8="......BBB......", r9=".....W.W......."))
    assert best(state, 1) <= {"F8", "J8"}


def test_bot_opens_in_the_centre_and_plays_near_stones() -> None:
    assert list(search(GAME.initial_state().cells, "B")) == [ACTIONS.index("H8")]
    values = search(play("H8").cells, "W")
    assert all(abs(i // 15 - 7) <= 2 and abs(i % 15 - 7) <= 2 for i in values)


def test_bot_moves_within_200_ms() -> None:
    bot = PatternBot(GAME, seed=1)
    times = []
    states = [lvlm.random_legal(random.Random(k))[0] for k in range(20)]
    state = GAME.initial_state()
    rng = random.Random(2)
    while not state.is_over and state.step < 60:
        states.append(state)
        state = state.apply(rng.choice(state.legal_actions()))
    for s in states:
        seat = s.to_act[0]
        started = time.perf_counter()
        decision = asyncio.run(bot.act(Observation(GAME, s, seat, tuple(s.legal_actions(seat)))))
        times.append(time.perf_counter() - started)
        assert decision.action in s.legal_actions(seat)
    # Measured on the development machine: mean about 5 ms, slowest about 35 ms.
    assert max(times) < 0.2, f"slowest move {max(times) * 1000:.0f} ms"
    assert statistics.mean(times) < 0.05


def test_bot_beats_random_play() -> None:
    wins = 0
    for seed in range(4):
        bot = PatternBot(GAME, seed=seed)
        rng = random.Random(seed)
        state = GAME.initial_state()
        while not state.is_over:
            if state.mover == 1:
                obs = Observation(GAME, state, 1, tuple(state.legal_actions(1)))
                state = state.apply(asyncio.run(bot.act(obs)).action)
            else:
                state = state.apply(rng.choice(state.legal_actions()))
        wins += state.winner == 1
    assert wins == 4


# -- extraction and the simulated model ----------------------------------------------------------------


def test_extractor_reads_the_last_movement_line() -> None:
    legal = list(ACTIONS)
    got = extract_move("Observation: Black at H8.\nStrategy: Block.\nMovement: 9j", legal)
    assert got.extracted == "J9" and got.thought == "Block" and "J9" in got.reason
    assert extract_move("**Movement:** H15", legal).extracted == "H15"
    assert extract_move("Movement: H8\n...\nMovement: A1", legal).extracted == "A1"
    assert extract_move("Movement:\n  K3", legal).extracted == "K3"
    missing = extract_move("Observation: ...\nStrategy: H8 is best.", legal)
    assert missing.extracted is None and "Movement" in missing.error
    assert extract_move("Movement: the centre", legal).extracted == "the centre"
    result = parse_answer(GAME, play("H8"), 1, "Movement: the centre")
    assert result.kind == "unparsable"


def ask(client: SimClient, state: GomokuState) -> str:
    client.set_context(SimContext(GAME, state, state.to_act[0]))
    prompt = prompts.load_template(GAME).user
    messages = (Message("user", prompt),)
    return asyncio.run(client.complete(Request(model="sim", messages=messages))).content


def test_the_simulated_model_answers_in_the_lvlm_format_and_parses() -> None:
    rng = random.Random(4)
    ok = 0
    for i in range(30):
        state = GAME.initial_state()
        for _ in range(rng.randrange(0, 30)):
            state = state.apply(rng.choice(state.legal_actions()))
            if state.is_over:
                break
        if state.is_over:
            continue
        answer = ask(SimClient("careless", seed=i, latency=0, format_error_rate=0.0), state)
        lines = answer.splitlines()
        assert lines[0].startswith("Observation: ") and lines[1].startswith("Strategy: ")
        assert lines[2].startswith("Movement: ")
        result = parse_answer(GAME, state, state.to_act[0], answer)
        assert result.ok or result.kind == "illegal", answer
        ok += result.ok
    assert ok > 15


def test_the_simulated_model_blocks_what_it_sees_and_misses_what_it_overlooks() -> None:
    state = line_game(["G8", "H8", "I8", "J8", "B2"], ["F8", "A1", "A3", "A5"])
    assert state.mover == 1 and five_moves(state.cells, "B") == ["K8"]
    sharp = ask(SimClient("perfect", seed=0, latency=0), state)
    assert sharp.endswith("Movement: K8") and "must block" in sharp and "threatens five at K8" in sharp
    blind = ask(SimClient("perfect", seed=0, latency=0, wrong_ir_rate=1.0), state)
    assert not blind.endswith("Movement: K8") and "K8" not in blind


def test_a_slip_plays_a_taken_point_and_a_format_slip_has_no_move() -> None:
    state = play("H8", "I9", "H9")
    slip = ask(SimClient("perfect", seed=0, latency=0, illegal_rate=1.0), state)
    result = parse_answer(GAME, state, 1, slip)
    assert result.kind == "illegal" and "taken" in result.error
    broken = ask(SimClient("perfect", seed=0, latency=0, format_error_rate=1.0), state)
    assert parse_answer(GAME, state, 1, broken).kind == "unparsable"


def test_open_four_points() -> None:
    state = board_state(rows(r8="......BBB......"))
    assert open_four_moves(state.cells, "B") == ["F8", "J8"]
    assert open_four_moves(board_state(rows(r8="WBBB...........")).cells, "B") == []


# -- LVLM-Playground's offline tasks ---------------------------------------------------------------------


def test_random_boards_follow_the_reference_generator_and_are_reproducible() -> None:
    for k in range(30):
        board = lvlm.random_board(random.Random(k))
        assert board == lvlm.random_board(random.Random(k))
        stones = board.black_stones + board.white_stones
        assert 67 <= stones <= 157
        assert stones * 30 // 100 <= board.black_stones <= stones * 70 // 100
        flat = [v for row in lvlm.matrix(board) for v in row]
        assert flat.count(1) == board.black_stones and flat.count(2) == board.white_stones
    assert lvlm.random_board(random.Random(1)) != lvlm.random_board(random.Random(2))
    assert lvlm.MATRIX_SHAPE == (15, 15) and lvlm.MATRIX_RANGE == (0, 2)


def test_random_legal_positions_are_playable_with_black_to_move() -> None:
    for k in range(40):
        state, seat = lvlm.random_legal(random.Random(k))
        again, _ = lvlm.random_legal(random.Random(k))
        assert state == again and seat == 0
        assert not fives(state.cells) and not state.is_over and state.to_act == (0,)
        assert state.black_stones == state.white_stones > 0
        moves = lvlm.valid_moves(state, seat)
        assert moves and len(moves) == 225 - 2 * state.black_stones
        assert all(state.cells[ACTIONS.index(m)] == "" for m in moves)
    assert lvlm.valid_moves(state, 1) == []
    # The fill's share of occupied points is kept: a random point is empty about half the time, as
    # the paper's random row for rule following (0.508) implies.
    empty = [lvlm.random_legal(random.Random(k))[0].cells.count("") / 225 for k in range(200)]
    assert 0.47 < sum(empty) / len(empty) < 0.56


def test_matrix_encoding() -> None:
    state = play("H8", "I8", "A1", "O15")
    m = lvlm.matrix(state)
    assert len(m) == 15 and all(len(r) == 15 for r in m)
    assert m[7][7] == 1 and m[7][8] == 2 and m[0][0] == 1 and m[14][14] == 2
    assert sum(map(sum, m)) == 1 + 2 + 1 + 2


def test_read_move() -> None:
    assert lvlm.read_move("2b") == "B2"
    assert lvlm.read_move("Movement: o 15") == "O15"
    assert lvlm.read_move("I think H8.\nMovement: J10") == "J10"
    assert lvlm.read_move("Movement: nowhere") is None
    assert lvlm.read_move("P3 or Z9") is None


HAND = board_state(rows(
    r1="B.............W",
    r2=".B.............",
    r3="..B............",
    r4="...B...........",
    r5="....B..........",
    r8=".......BW......",
    r9="......WWW......",
    r15="W.............B",
))


def test_questions_on_a_hand_made_board() -> None:
    seen: dict[str, str] = {}
    for seed in range(1500):
        for question, answer, distractors in lvlm.questions(HAND, random.Random(seed)):
            assert answer not in distractors and len(set(distractors)) == len(distractors)
            if answer.isdigit():
                assert len(distractors) == 3
                assert all(d.isdigit() and abs(int(d) - int(answer)) <= 3 for d in distractors)
            seen[question] = answer
    assert seen["How many Black stones are on the board?"] == "7"
    assert seen["How many White stones are on the board?"] == "6"
    assert seen["How many empty intersections are there on the board?"] == "212"
    assert seen["How many Black stones are in row 8?"] == "1"
    assert seen["How many White stones are in row 9?"] == "3"
    assert seen["How many Black stones are in column A?"] == "1"
    assert seen["How many White stones are in column O?"] == "1"
    winning = [q for q in seen if q.startswith("Is there a winning line")]
    assert winning and seen[winning[0]] == "yes"
    assert seen["What is the largest number of consecutive Black stones on any diagonal?"] == "5"
    assert seen["What is the largest number of consecutive White stones in row 9?"] == "3"
    assert seen["What is the largest number of consecutive White stones on any diagonal?"] == "2"
    assert seen["How many Black stones are on the edge of the board (the outermost rows and columns)?"] == "2"
    assert seen["How many White stones are on the edge of the board (the outermost rows and columns)?"] == "2"
    point = "What is at intersection H8 (column H, row 8): a Black stone, a White stone, or is it empty?"
    assert seen[point] == "Black"
    adjacent = [q for q in seen if "adjacent to H8 " in q]
    assert adjacent and seen[adjacent[0]] == "4"  # I8, G9, H9, I9
    assert lvlm.questions(HAND, random.Random(3)) == lvlm.questions(HAND, random.Random(3))
    assert len(lvlm.questions(HAND, random.Random(3))) == 8


def test_no_winning_line_on_a_legal_position() -> None:
    state, _ = lvlm.random_legal(random.Random(9))
    for question, answer, distractors in lvlm.questions(state, random.Random(1)):
        if question.startswith("Is there a winning line"):
            assert answer == "no" and distractors == ["yes"]


def test_task_prompts() -> None:
    assert set(lvlm.PROMPTS) == {"perceive", "qa", "rules"}
    assert "Game State:" in lvlm.PROMPTS["perceive"] and "15x15" in lvlm.PROMPTS["perceive"]
    assert "{question}" in lvlm.PROMPTS["qa"] and "Answer:" in lvlm.PROMPTS["qa"]
    assert "Movement:" in lvlm.PROMPTS["rules"] and "A to O" in lvlm.PROMPTS["rules"]
    e2e = prompts.load_template(GAME).user
    for key in ("Observation:", "Strategy:", "Movement:", "{state}", "{mark}"):
        assert key in e2e
