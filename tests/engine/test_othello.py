"""Othello: rules (perft from both starts, hand-built positions), bots, questions and their oracles,
the answer extractor and the simulated model."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

import engine
from engine.agent.parse import parse_answer
from engine.controls import Panel
from engine.core import IllegalActionError, InvalidActionError, StateFormatError
from engine.games.othello import ACTIONS, PASS, Othello, OthelloState, wedge_moves
from engine.games.othello.answers import extract_move
from engine.games.othello.bots import flip_count
from engine.games.othello.questions import QUESTIONS, corner_available, parse_cells, wedges
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext
from engine.players import Observation
from engine.questions import score

EMPTY_ROW = "........"


def board(rows: dict[int, str], mover: int = 0, wedge: str = "paper") -> OthelloState:
    """A position from its non-empty rows (row number 1..8 -> 8 characters of "B", "W", ".")."""
    data = {
        "game": "othello",
        "board": [rows.get(r, EMPTY_ROW) for r in range(1, 9)],
        "mover": mover,
        "last_action": None,
        "ply": 10,
        "wedge": wedge,
    }
    state = Othello().state_from_json(data)
    assert isinstance(state, OthelloState)
    return state


def perft(state: OthelloState, depth: int) -> int:
    if depth == 0 or state.is_over:
        return 1
    return sum(perft(state.apply(a), depth - 1) for a in state.legal_actions())


# -- rules ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("start", ["gamebot", "lvlm"])
def test_perft_from_the_start_matches_the_known_counts(start: str) -> None:
    state = Othello(start=start).initial_state()
    assert [perft(state, d) for d in range(1, 7)] == [4, 12, 56, 244, 1396, 8200]


def test_perft_depth_7() -> None:
    assert perft(Othello().initial_state(), 7) == 55092


def test_start_positions_and_black_moves_first() -> None:
    gamebot = Othello().initial_state()
    assert (gamebot.at("(D,4)"), gamebot.at("(E,5)"), gamebot.at("(D,5)"), gamebot.at("(E,4)")) == (
        "B", "B", "W", "W")
    lvlm = Othello(start="lvlm").initial_state()
    assert (lvlm.at("(D,4)"), lvlm.at("(E,5)"), lvlm.at("(D,5)"), lvlm.at("(E,4)")) == ("W", "W", "B", "B")
    for state in (gamebot, lvlm):
        assert state.to_act == (0,) and state.scores == (2.0, 2.0) and state.step == 0
    assert gamebot.legal_actions() == ["(E,3)", "(F,4)", "(C,5)", "(D,6)"]
    assert lvlm.legal_actions() == ["(D,3)", "(C,4)", "(F,5)", "(E,6)"]
    after = gamebot.apply("(E,3)")
    assert after.to_act == (1,) and after.at("(E,4)") == "B" and after.scores == (4.0, 1.0)
    assert gamebot.at("(E,4)") == "W"  # the receiver is unchanged


def test_a_move_flips_every_outflanked_line_and_nothing_else() -> None:
    # Black plays (D,4): White lines run east to (G,4), south to (D,7), south-east to (G,7) and
    # north-west to (A,1); the one to the west, (C,4), is not closed by a black disc.
    state = board({
        1: "B.......",
        2: ".W......",
        3: "..W.....",
        4: ".WW.WWB.",
        5: "...WW...",
        6: "...W.W..",
        7: "...B..B.",
    })
    after = state.apply("(D,4)")
    flipped = {"(E,4)", "(F,4)", "(B,2)", "(C,3)", "(D,5)", "(D,6)", "(E,5)", "(F,6)"}
    for cell in flipped:
        assert after.at(cell) == "B", cell
    assert after.at("(C,4)") == after.at("(B,4)") == "W"
    assert after.scores == (state.scores[0] + 1 + len(flipped), state.scores[1] - len(flipped))
    assert after.last_action == "(D,4)" and after.step == state.step + 1


def test_a_seat_without_a_move_must_pass() -> None:
    # White to move: Black's only disc is in the corner (A,1), so nothing White plays can outflank it,
    # while Black can take (B,1) by playing (C,1).
    state = board({1: "BW......"}, mover=1)
    assert state.to_act == (1,)
    assert state.legal_actions(1) == [PASS] and state.legal_actions(0) == []
    panel = state.panel(1)
    assert isinstance(panel, Panel) and [b.action for b in panel.buttons] == [PASS]
    assert "must pass" in state.notice()
    with pytest.raises(IllegalActionError, match="must pass"):
        state.apply("(C,1)")
    after = state.apply(PASS)
    assert after.to_act == (0,) and after.last_action == PASS and after.step == state.step + 1
    assert after.panel(0) is None
    with pytest.raises(IllegalActionError, match="may not pass"):
        after.apply(PASS)


def test_the_game_ends_when_neither_seat_can_move() -> None:
    only_black = board({4: "...BB...", 5: "...B...."})
    assert only_black.is_over and only_black.legal_actions() == [] and only_black.winner == 0
    full_draw = board({r: "BBBBBBBB" if r <= 4 else "WWWWWWWW" for r in range(1, 9)})
    assert full_draw.is_over and full_draw.winner is None and full_draw.scores == (32.0, 32.0)
    with pytest.raises(IllegalActionError, match="over"):
        full_draw.apply(PASS)
    white_wins = board({1: "WWW.....", 2: "W......."})
    assert white_wins.is_over and white_wins.winner == 1


def test_bad_and_illegal_actions() -> None:
    state = Othello().initial_state()
    with pytest.raises(InvalidActionError):
        state.apply("(Z,9)")
    with pytest.raises(IllegalActionError, match="taken"):
        state.apply("(D,4)")
    with pytest.raises(IllegalActionError, match="outflanks no"):
        state.apply("(A,1)")
    with pytest.raises(IllegalActionError, match="may not pass"):
        state.apply(PASS)
    with pytest.raises(IllegalActionError):
        state.apply({1: "(E,3)"})


@pytest.mark.parametrize(
    ("text", "action"),
    [("(E,3)", "(E,3)"), ("(e, 3)", "(E,3)"), ("E3", "(E,3)"), ("e3", "(E,3)"), ("(E 3)", "(E,3)"),
     ("**(F,4)**", "(F,4)"), ("I play C5", "(C,5)")],
)
def test_parse_action_is_lenient(text: str, action: str) -> None:
    game = Othello()
    assert game.parse_action(text, game.initial_state()) == action


def test_parse_action_errors() -> None:
    game = Othello()
    state = game.initial_state()
    with pytest.raises(InvalidActionError):
        game.parse_action("the corner", state)
    with pytest.raises(InvalidActionError, match="several"):
        game.parse_action("(E,3) or (F,4)", state)
    with pytest.raises(IllegalActionError, match="outflanks no"):
        game.parse_action("(A,1)", state)


def test_declaration_actions_and_text() -> None:
    game = engine.make("othello")
    assert isinstance(game, Othello)
    assert game.id == "othello" and game.title == "Othello" and game.suites == ("gamebot", "lvlm")
    assert [s.name for s in game.seats] == ["Black", "White"]
    assert len(game.actions) == 65 and game.actions[0] == "(A,1)" and game.actions[-1] == PASS
    assert game.default_opponent == "alphabeta" and game.default_prompt == "cot"
    text = game.initial_state().text(0)
    assert "(D,4):B" in text and "(E,4):W" in text and "(A,1):." in text and "empty squares are" in text


def test_json_round_trip_and_bad_data() -> None:
    game = Othello(wedge="gap1")
    state = game.initial_state().apply("(E,3)")
    back = game.state_from_json(state.to_json())
    assert back == state and back.wedge == "gap1"
    for bad in (
        {"board": ["X" * 8] * 8, "mover": 0, "ply": 0},
        {"board": [EMPTY_ROW] * 8, "mover": 2, "ply": 0},
        {"board": [EMPTY_ROW] * 7, "mover": 0, "ply": 0},
        {"game": "chess"},
    ):
        with pytest.raises(StateFormatError):
            game.state_from_json(bad)


def test_conformance() -> None:
    report = engine.check_game("othello")
    assert report.states > 0


# -- questions ------------------------------------------------------------------------------------


def test_corner_question() -> None:
    # Black at (C,3) behind White (B,2): Black can take (A,1).
    state = board({2: ".W......", 3: "..B.....", 4: "...W....", 5: "....B..."})
    assert corner_available(state, 0) is True
    assert "(A,1)" in state.moves_of(0)
    assert corner_available(state, 1) is False
    assert corner_available(Othello().initial_state(), 0) is False


def test_wedge_example_from_the_paper() -> None:
    # Row 1: C1 B, D1 empty, E1 B; White can play D1 (it outflanks D2 through D3): a wedge for White.
    rows = {1: "..B.B...", 2: "...B....", 3: "...W...."}
    for mode in ("paper", "gap1"):
        state = board(rows, mover=1, wedge=mode)
        assert "(D,1)" in state.legal_actions(1)
        assert wedges(state, 1) == ["(D,1)"]
    # Black's own discs are no wedge for Black.
    assert wedges(board(rows, wedge="paper"), 0) == []


def test_a_gap_of_three_counts_only_in_paper_mode() -> None:
    # Row 1: B at B1 and F1, C1..E1 empty; White can play D1 only.
    rows = {1: ".B...B..", 2: "...B....", 3: "...W...."}
    paper = board(rows, mover=1, wedge="paper")
    gap1 = board(rows, mover=1, wedge="gap1")
    assert [a for a in paper.legal_actions(1) if a.endswith(",1)")] == ["(D,1)"]
    assert wedges(paper, 1) == ["(D,1)"]
    assert wedges(gap1, 1) == []


def test_even_gaps_open_corners_and_illegal_squares_are_no_wedges() -> None:
    even = board({1: ".B..B...", 2: "..B.....", 3: "..W....."}, mover=1)  # gap C1-D1 (2)
    assert "(C,1)" in even.legal_actions(1) and wedges(even, 1) == []
    open_corner = board({1: "..B.....", 2: ".B......", 3: ".W......"}, mover=1)  # B1 runs to A1
    assert "(B,1)" in open_corner.legal_actions(1) and wedges(open_corner, 1) == []
    not_legal = board({1: "..B.B...", 4: "...WB..."}, mover=1)  # D1 between B discs but illegal
    assert "(D,1)" not in not_legal.legal_actions(1) and wedges(not_legal, 1) == []


def test_wedges_on_a_vertical_edge() -> None:
    # Column H: B at (H,3) and (H,5); White plays (H,4) outflanking (G,4) through (F,4).
    state = board({3: ".......B", 4: ".....WB.", 5: ".......B"}, mover=1)
    assert wedge_moves(state.white, state.black, "gap1") == ["(H,4)"]
    assert wedges(state, 1) == ["(H,4)"]


def test_wedge_answers_are_read_leniently_and_scored() -> None:
    assert parse_cells("(D, 3)") == {"(D,3)"}
    assert parse_cells("D3, e8") == {"(D,3)", "(E,8)"}
    assert parse_cells("None") == set() and parse_cells("none.") == set()
    assert parse_cells("no idea") is None and parse_cells(None) is None
    wedge_q = next(q for q in QUESTIONS if q.key == 2)
    correct, answer, detail = score(wedge_q, "D1", ["(D,1)"])
    assert correct and answer == ["(D,1)"] and detail["label"] == "TP"
    correct, _, detail = score(wedge_q, "(D,1), (F,1)", ["(D,1)"])
    assert not correct and detail["label"] == "MM"
    corner_q = next(q for q in QUESTIONS if q.key == 1)
    assert corner_q.kind == "bool" and corner_q.scored_by == "f1"
    assert score(corner_q, "True", True)[2]["label"] == "TP"
    assert score(corner_q, "True", False)[2]["label"] == "FP"


# -- answers --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "move"),
    [
        ("Chosen Move: (A,1)", "(A,1)"),
        ("Chosen Move: (A 1)", "(A,1)"),
        ("Chosen Move: A1", "(A,1)"),
        ("chosen move: (h,8)", "(H,8)"),
        ("Chosen Move: (C,4) is tempting.\n3. **Chosen Move**\nChosen Move: **(E,6)**", "(E,6)"),
        ("3. Chosen Move:\n\n(F,5)", "(F,5)"),
    ],
)
def test_extract_move_after_the_last_chosen_move(reply: str, move: str) -> None:
    assert extract_move(reply, ["(A,1)", "(H,8)", "(E,6)", "(F,5)", "(C,4)"]).extracted == move


def test_extract_move_fallback_skips_tags_and_pass_when_forced() -> None:
    reply = "I like (C,4).\n[Intermediate Thinking Results 2: (D,1)]\nNo decision line."
    found = extract_move(reply, ["(C,4)", "(D,1)"])
    assert found.extracted == "(C,4)" and "last square" in found.reason
    assert extract_move("Chosen Move: (C,4)", [PASS]).extracted == PASS
    assert extract_move("Chosen Move: the edge", ["(C,4)"]).extracted == "the edge"
    assert extract_move("nothing here", ["(C,4)"]).extracted is None


def test_parse_answer_chain() -> None:
    game = Othello()
    state = game.initial_state()
    assert parse_answer(game, state, 0, "Conclusion: fine\nChosen Move: e3").action == "(E,3)"
    assert parse_answer(game, state, 0, "Chosen Move: (A,1)").kind == "illegal"
    assert parse_answer(game, state, 0, "Chosen Move: corner").kind == "unparsable"


# -- bots -----------------------------------------------------------------------------------------


def act(game: Othello, spec: str, state: OthelloState, seed: int = 0) -> tuple[str, float]:
    bot = game.make_bot(spec, seed)
    seat = state.to_act[0]
    started = time.perf_counter()
    decision = asyncio.run(bot.act(Observation(game, state, seat, tuple(state.legal_actions(seat)), ())))
    return decision.action, (time.perf_counter() - started) * 1000


#: Black to move: (A,1) takes a corner and flips one disc; (E,6) flips four (B6, C6, D6 and F7).
CORNER_OR_MANY = {2: ".W......", 3: "..B.....", 6: "BWWW....", 7: ".....W..", 8: "......B."}


def test_greedy_flips_the_most() -> None:
    game = Othello()
    state = board(CORNER_OR_MANY)
    assert state.legal_actions() == ["(A,1)", "(E,6)"]
    assert act(game, "greedy", state)[0] == "(E,6)"
    for state in positions(15, seed=5):
        action = act(game, "greedy", state)[0]
        counts = {a: flip_count(state, a) for a in state.legal_actions()}
        assert counts[action] == max(counts.values())


def test_alphabeta_takes_a_free_corner_over_more_discs() -> None:
    assert act(Othello(), "alphabeta", board(CORNER_OR_MANY))[0] == "(A,1)"


def test_alphabeta_beats_greedy() -> None:
    # Its move time (well under 200 ms) is measured by benchmarks/bench_gamebot.py.
    game = Othello()
    for alpha_seat in (0, 1):
        state = game.initial_state()
        while not state.is_over:
            spec = "alphabeta" if state.to_act[0] == alpha_seat else "greedy"
            action, _ = act(game, spec, state)
            state = state.apply(action)
        assert state.winner == alpha_seat


# -- simulated model ------------------------------------------------------------------------------


COT = "[Intermediate Thinking Results 1: True/False] [Intermediate Thinking Results 2: (X,X)]"


def ask(client: SimClient, state: OthelloState, seat: int) -> str:
    client.set_context(SimContext(Othello(), state, seat))
    messages = (Message("system", "Othello."), Message("user", f"{COT}\nChosen Move: (X,X)"))
    return asyncio.run(client.complete(Request(model="sim", messages=messages))).content


def positions(n: int, seed: int = 0) -> list[OthelloState]:
    rng = random.Random(seed)
    game = Othello()
    out = []
    while len(out) < n:
        state = game.initial_state()
        for _ in range(rng.randrange(0, 50)):
            if state.is_over:
                break
            state = game.play_random(state, rng)
        if not state.is_over:
            out.append(state)
    return out


def test_a_perfect_sim_answers_the_oracles_and_its_move_parses() -> None:
    game = Othello()
    for i, state in enumerate(positions(12)):
        seat = state.to_act[0]
        reply = ask(SimClient("perfect", seed=i, latency=0), state, seat)
        parsed = parse_answer(game, state, seat, reply)
        assert parsed.ok, reply
        assert parsed.tags[1] == str(corner_available(state, seat))
        assert parse_cells(parsed.tags[2]) == set(wedges(state, seat))
        assert "Corner Control" in reply and "Mobility" in reply


def test_a_sim_with_wrong_answers_is_wrong_and_passes_when_it_must() -> None:
    wrong = 0
    for i, state in enumerate(positions(20, seed=3)):
        seat = state.to_act[0]
        reply = ask(SimClient("perfect", seed=i, latency=0, wrong_ir_rate=1.0), state, seat)
        tags = parse_answer(Othello(), state, seat, reply).tags
        wrong += tags[1] != str(corner_available(state, seat))
    assert wrong >= 15
    forced = board({1: "BW......"}, mover=1)
    reply = ask(SimClient("perfect", seed=0, latency=0), forced, 1)
    assert reply.rstrip().endswith("Chosen Move: pass")
    assert parse_answer(Othello(), forced, 1, reply).action == PASS


def test_all_actions_are_cells_or_pass() -> None:
    assert len(set(ACTIONS)) == 65


def test_wrong_wedge_answers_miss_a_wedge_or_add_a_phantom() -> None:
    from engine.games.othello.questions import phantom_wedges, wrong_wedges

    # White: (D,1) is a wedge (it outflanks (D,2)); (F,1) lies between Black discs but flips nothing.
    state = board({1: "..B.B.B.", 2: "...B..B.", 3: "...W..W."}, mover=1)
    truth = wedges(state, 1)
    assert truth == ["(D,1)"]
    assert "(F,1)" in phantom_wedges(state, 1)  # empty, between two Black discs, but flips nothing
    seen = {tuple(wrong_wedges(truth, state, 1, random.Random(seed))) for seed in range(30)}
    assert () in seen and any(len(answer) == 2 and "(D,1)" in answer for answer in seen)
    assert all(list(answer) != truth for answer in seen)
