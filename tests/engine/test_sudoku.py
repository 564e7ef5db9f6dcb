"""Sudoku: puzzle reading and its errors, the solver and the unique-puzzle generator, the rules and
their end, the points, the bots, the answer extractor, the simulated model and the LVLM tasks."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

import engine
from engine.agent.parse import parse_answer
from engine.core import IllegalActionError, InvalidActionError, StateFormatError
from engine.games.sudoku import (
    DIFFICULTIES,
    Sudoku,
    SudokuState,
    cell_index,
    count_solutions,
    generate,
    lvlm,
    parse_move,
    parse_puzzle,
    solve,
    state_of,
)
from engine.games.sudoku.answers import extract_move, find_move, split_answer
from engine.games.sudoku.bots import hidden_singles, naked_singles
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext
from engine.options import OptionError
from engine.players import Observation

# Well-known puzzles from public collections, typed in here (none is stored in PlayTrace), with the
# solutions published alongside them.
AI_ESCARGOT = "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3.."
AI_ESCARGOT_SOLUTION = "162857493534129678789643521475312986913586742628794135356478219241935867897261354"
# Arto Inkala's 2012 "world's hardest Sudoku".
INKALA_2012 = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."
INKALA_2012_SOLUTION = "812753649943682175675491283154237896369845721287169534521974368438526917796318452"
# The first example grid of Peter Norvig's "Solving Every Sudoku Puzzle" essay.
NORVIG_GRID1 = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
NORVIG_GRID1_SOLUTION = "483921657967345821251876493548132976729564138136798245372689514814253769695417382"
# A 17-clue puzzle (the fewest clues a proper Sudoku can have), from Gordon Royle's collection.
ROYLE_17 = "000000010400000000020000000000050407008000300001090000300400200050100000000806000"
KNOWN = [
    (AI_ESCARGOT, AI_ESCARGOT_SOLUTION),
    (INKALA_2012, INKALA_2012_SOLUTION),
    (NORVIG_GRID1, NORVIG_GRID1_SOLUTION),
    (ROYLE_17, None),
]


def grid(text: str) -> tuple[int, ...]:
    return tuple(0 if ch == "." else int(ch) for ch in text)


def play_bot(game: Sudoku, state: SudokuState, spec: str, seed: int = 0) -> SudokuState:
    bot = game.make_bot(spec, seed)
    while not state.is_over:
        decision = asyncio.run(bot.act(Observation(game, state, 0, tuple(state.legal_actions()), ())))
        state = state.apply(decision.action)
    return state


# -- puzzles --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("puzzle", "solution"), KNOWN, ids=["escargot", "inkala", "norvig", "royle17"])
def test_well_known_puzzles_load_solve_uniquely_and_play_to_a_win(puzzle: str, solution: str | None) -> None:
    givens = parse_puzzle(puzzle)
    assert count_solutions(givens, 2) == 1
    solved = solve(givens)
    assert solved is not None and 0 not in solved
    if solution is not None:
        assert "".join(map(str, solved)) == solution
    game = engine.make("sudoku", puzzle=puzzle)
    state = game.initial_state(seed=5)
    assert state.givens == givens and state.solution == solved
    assert game.initial_state(seed=99) == state  # a given puzzle ignores the seed
    final = play_bot(game, state, "solver")
    blanks = givens.count(0)
    assert final.solved and final.winner == 0 and final.moves == blanks
    assert final.metrics()["lvlm_points"] == 2 * blanks + 10 * blanks + 1000
    assert final.scores == (2.0 * blanks + 10 * blanks + 1000,)


def test_puzzle_text_may_use_dots_zeros_and_separators() -> None:
    rows = [NORVIG_GRID1[i : i + 9] for i in range(0, 81, 9)]
    boxed = "\n".join(f"{r[:3]}|{r[3:6]}|{r[6:]}" for r in rows).replace("0", ".")
    assert parse_puzzle(boxed) == grid(NORVIG_GRID1)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (AI_ESCARGOT[:-1], "81 cells"),
        (AI_ESCARGOT + "1", "not 82"),
        (AI_ESCARGOT[:-1] + "x", "'x'"),
        # A1 and A2 both 1.
        ("11" + "." * 79, "A1 and A2 both hold 1 in the same row"),
        # A1 and D1 both 5.
        ("5" + "." * 26 + "5" + "." * 53, "A1 and D1 both hold 5 in the same column"),
        # A1 and B2 both 7.
        ("7" + "." * 9 + "7" + "." * 70, "A1 and B2 both hold 7 in the same 3x3 box"),
        # Row A holds 1-8, so A9 needs 9, but B9 holds 9: no clue repeats, yet there is no solution.
        ("12345678." + "........9" + "." * 63, "no solution"),
        ("." * 81, "several solutions"),
        ("." + AI_ESCARGOT[1:].replace("9", ".", 1), "several solutions"),
    ],
)
def test_bad_puzzles_are_refused_naming_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(OptionError) as caught:
        engine.make("sudoku", puzzle=text)
    assert "option 'puzzle'" in str(caught.value)
    assert words in str(caught.value)


@pytest.mark.parametrize("difficulty", list(DIFFICULTIES))
def test_every_generated_puzzle_has_exactly_one_solution(difficulty: str) -> None:
    clues = []
    for seed in range(17):
        puzzle, solution = generate(random.Random(seed), difficulty)
        assert count_solutions(puzzle, 2) == 1
        assert solve(puzzle) == solution and 0 not in solution
        assert all(p in (0, s) for p, s in zip(puzzle, solution, strict=True))
        clues.append(81 - puzzle.count(0))
    if difficulty == "easy":
        assert min(clues) >= 45
    elif difficulty == "hard":
        assert max(clues) <= 30
    else:
        assert 22 <= min(clues) and max(clues) <= 50


def test_hard_puzzles_are_minimal_and_easier_levels_keep_more_clues() -> None:
    puzzle, _ = generate(random.Random(7), "hard")
    for i, v in enumerate(puzzle):
        if v:
            fewer = puzzle[:i] + (0,) + puzzle[i + 1 :]
            assert count_solutions(fewer, 2) == 2
    mean = {d: sum(81 - generate(random.Random(s), d)[0].count(0) for s in range(8)) for d in DIFFICULTIES}
    assert mean["easy"] > mean["medium"] > mean["hard"]


def test_the_seed_and_the_difficulty_choose_the_puzzle() -> None:
    game = engine.make("sudoku")
    assert game.initial_state(seed=4) == game.initial_state(seed=4)
    assert game.initial_state(seed=4) != game.initial_state(seed=5)
    hard = engine.make("sudoku", difficulty="hard").initial_state(seed=4)
    assert hard.givens.count(0) > game.initial_state(seed=4).givens.count(0)


# -- moves and rules ------------------------------------------------------------------------------


def test_moves_are_read_in_the_papers_format_and_forgiving_variants() -> None:
    assert parse_move("A1 5") == (0, 5)
    assert parse_move("i9 3") == (80, 3)
    assert parse_move(" c4:7 ") == (21, 7)
    assert parse_move("C4=7") == (21, 7)
    assert parse_move("C4->7") == (21, 7)
    assert parse_move("4C 7") == (21, 7)
    assert parse_move("E5 0") == (40, 0)
    for bad in ("J1 5", "A0 5", "A1", "A1 55", "5", "(1,1)"):
        assert parse_move(bad) is None, bad
    assert cell_index("A1") == 0 and cell_index("1a") == 0
    assert cell_index("I9") == 80 and cell_index("Z1") is None


def test_legal_moves_are_every_non_repeating_digit_in_a_blank() -> None:
    state = engine.make("sudoku", puzzle=NORVIG_GRID1).initial_state()
    legal = state.legal_actions()
    # A1: row A holds 3 2 6, column 1 holds 9 7 8, its box 9 1: candidates 4 and 5.
    assert [a for a in legal if a.startswith("A1 ")] == ["A1 4", "A1 5"]
    assert not any(a.startswith("A3 ") for a in legal)  # A3 is a clue
    assert len(legal) == len(set(legal)) <= Sudoku.action_bound
    assert legal == lvlm.valid_moves(state, 0)


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        ("A3 4", "A3 is a clue (3)"),
        ("A1 3", "3 is already in row A (at A3)"),
        ("A1 9", "9 is already in column 1 (at B1)"),
        ("A2 1", "1 is already in its 3x3 box (at C3)"),
    ],
)
def test_illegal_moves_say_why(move: str, reason: str) -> None:
    game = engine.make("sudoku", puzzle=NORVIG_GRID1)
    state = game.initial_state()
    with pytest.raises(IllegalActionError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        state.apply(move)
    with pytest.raises(IllegalActionError, match="is not legal"):
        game.parse_action(move.lower(), state)
    with pytest.raises(InvalidActionError):
        state.apply("somewhere 5")
    after = state.apply("A1 4")
    with pytest.raises(IllegalActionError, match="A1 already holds 4"):
        after.apply("A1 5")
    with pytest.raises(IllegalActionError, match="erasing is off"):
        after.apply("A1 0")
    assert game.parse_action("a1: 4", state) == "A1 4"


def test_erasing_clears_only_placed_digits_when_the_option_is_on() -> None:
    game = engine.make("sudoku", puzzle=NORVIG_GRID1, erase=True)
    state = game.initial_state().apply("A1 5")  # legal, but the solution has 4
    assert "A1 0" in state.legal_actions() and "A3 0" not in state.legal_actions()
    with pytest.raises(IllegalActionError, match="clues cannot be erased"):
        state.apply("A3 0")
    cleared = state.apply("A1 0")
    assert cleared.cells == state.givens and cleared.moves == 2
    assert "A1 4" in cleared.legal_actions()
    assert "A1 0" in game.rules_text() and "A1 0" not in engine.make("sudoku").rules_text()


def test_a_full_grid_wins_and_a_wrong_digit_can_leave_the_player_stuck() -> None:
    game = engine.make("sudoku")
    rng = random.Random(0)
    stuck = None
    for seed in range(40):
        state = game.initial_state(seed=seed)
        while not state.is_over:
            state = game.play_random(state, rng)
        if not state.full:
            stuck = state
            break
    assert stuck is not None
    assert stuck.is_over and stuck.winner is None and not stuck.legal_actions()
    assert stuck.dead_cells() and "Stuck" in stuck.text() and "Stuck" in stuck.notice()
    placed = stuck.placed()
    correct = sum(1 for i in placed if stuck.cells[i] == stuck.solution[i])
    assert correct < len(placed)  # only a wrong digit can block the way
    assert stuck.metrics()["lvlm_points"] == 2 * len(placed) + 10 * correct


def test_points_count_placed_and_correct_digits() -> None:
    state = engine.make("sudoku", puzzle=NORVIG_GRID1).initial_state()
    assert state.scores == (0.0,)
    right = state.apply("A1 4")
    assert right.scores == (12.0,) and right.metrics()["correct"] == 1
    wrong = state.apply("A1 5")
    assert wrong.scores == (2.0,) and wrong.metrics()["filled"] == 1
    assert "not the solution's digit" in state.annotate("A1 5") and state.annotate("A1 4") == ""


def test_json_round_trip_and_refusals() -> None:
    game = engine.make("sudoku", puzzle=AI_ESCARGOT, erase=True)
    state = game.initial_state().apply("A2 6")
    data = json.loads(json.dumps(state.to_json()))
    assert game.state_from_json(data) == state
    for key, value in [
        ("givens", "1" * 80),
        ("solution", AI_ESCARGOT_SOLUTION[:-2] + "44"),
        ("cells", AI_ESCARGOT.replace(".", "0").replace("1", "2", 1)),
        ("moves", -1),
        ("erase", "yes"),
    ]:
        with pytest.raises(StateFormatError):
            game.state_from_json({**data, key: value})
    with pytest.raises(StateFormatError):
        game.state_from_json({**data, "game": "othello"})


def test_the_text_view_draws_coordinates_and_names_placed_digits() -> None:
    state = engine.make("sudoku", puzzle=NORVIG_GRID1).initial_state().apply("A1 4")
    text = state.text(0)
    assert "    1 2 3   4 5 6   7 8 9" in text
    assert "A | 4 . 3 | . 2 . | 6 . . |" in text
    assert "Digits you placed: A1 4." in text


def test_the_panel_composes_moves_and_says_when_they_are_not_allowed() -> None:
    state = engine.make("sudoku", puzzle=NORVIG_GRID1).initial_state()
    panel = state.panel(0)
    assert panel is not None and panel.submit == "Fill"
    defaults = {a.name: a.default for a in panel.amounts}
    first = panel.action_for(defaults)
    assert first == "A1 4" and first in state.legal_actions()
    assert [a.labels for a in panel.amounts if a.name == "row"][0] == tuple("ABCDEFGHI")
    assert panel.action_for({"row": 8, "col": 9, "digit": 2}) == "I9 2"
    assert panel.summary is not None
    assert panel.summary({"row": 0, "col": 3, "digit": 1}) == "Not allowed: A3 is a clue (3)"
    assert panel.summary(defaults) == "Places 4 in A1"
    assert state.panel(1) is None
    erasing = engine.make("sudoku", puzzle=NORVIG_GRID1, erase=True).initial_state().panel(0)
    assert erasing is not None and erasing.amounts[2].labels[0] == "Erase"


def test_conformance() -> None:
    report = engine.check_game("sudoku")
    assert report.states > 0


# -- bots -------------------------------------------------------------------------------------------


def test_the_solver_takes_forced_digits_first_and_always_wins() -> None:
    game = engine.make("sudoku", difficulty="hard")
    for seed in range(3):
        state = game.initial_state(seed=seed)
        naked, hidden = naked_singles(state), hidden_singles(state)
        decision = asyncio.run(
            game.make_bot("solver", seed).act(Observation(game, state, 0, tuple(state.legal_actions()), ()))
        )
        move = parse_move(decision.action)
        assert move is not None
        if naked:
            assert naked.get(move[0]) == move[1] and "only digit left" in decision.rationale
        elif hidden:
            assert hidden[move[0]][0] == move[1]
        assert play_bot(game, state, "solver", seed).solved


def test_singles_are_found_on_a_hand_case() -> None:
    state = engine.make("sudoku", puzzle=NORVIG_GRID1).initial_state()
    naked = naked_singles(state)
    assert naked and all(state.candidates(i) == [d] and state.solution[i] == d for i, d in naked.items())
    hidden = hidden_singles(state)
    assert hidden
    for index, (digit, unit) in hidden.items():
        kind, name = unit.split(" ")
        cells = (
            [cell_index(f"{name}{c}") for c in range(1, 10)] if kind == "row"
            else [cell_index(f"{r}{name}") for r in "ABCDEFGHI"] if kind == "column"
            else [i for i in range(81) if (i // 27) * 3 + (i % 9) // 3 == int(name) - 1]
        )
        assert index in cells and [i for i in cells if digit in state.candidates(i)] == [index]
        assert state.solution[index] == digit


def test_the_candidate_bot_sometimes_fails_where_the_solver_never_does() -> None:
    game = engine.make("sudoku")
    results = [play_bot(game, game.initial_state(seed=s), "candidate", s).solved for s in range(8)]
    assert any(results) and not all(results)


# -- answers and the simulated model ----------------------------------------------------------------


def test_the_extractor_reads_the_move_after_the_last_movement() -> None:
    reply = "Observation: B2 is blank.\nStrategy: fill C3.\nMovement: C3 7\nMovement: **e5 6**"
    found = extract_move(reply, [])
    assert found.extracted == "E5 6" and found.thought == "fill C3"
    assert extract_move("Movement:\n  2b 7", []).extracted == "B2 7"
    assert extract_move("Movement: the middle", []).extracted == "the middle"
    assert extract_move("Movement:", []).error
    fallback = extract_move("I would put 4 in A1, so A1 4.", [])
    assert fallback.extracted == "A1 4" and "no 'Movement:'" in fallback.reason
    assert extract_move("no move here", []).extracted is None
    assert find_move("place D7=3 now") == "D7 3"
    assert split_answer(reply) == {"observation": "B2 is blank", "strategy": "fill C3", "movement": "e5 6"}


def ask(client: SimClient, game: Sudoku, state: SudokuState) -> str:
    client.set_context(SimContext(game, state, 0))
    messages = (Message("system", "Sudoku."), Message("user", "Movement: <row><column> <digit>"))
    return asyncio.run(client.complete(Request(model="sim", messages=messages))).content


def test_a_perfect_sim_writes_the_three_lines_and_plays_the_solution() -> None:
    game = engine.make("sudoku")
    for seed in range(6):
        state = game.initial_state(seed=seed)
        reply = ask(SimClient("perfect", seed=seed, latency=0), game, state)
        lines = reply.splitlines()
        assert [ln.split(":")[0] for ln in lines] == ["Observation", "Strategy", "Movement"]
        parsed = parse_answer(game, state, 0, reply)
        assert parsed.ok, reply
        index, digit = parse_move(parsed.action or "") or (0, 0)
        assert state.solution[index] == digit


def test_a_careless_sim_misplays_the_way_models_do() -> None:
    game = engine.make("sudoku")
    kinds = {"ok": 0, "illegal": 0, "unparsable": 0, "wrong": 0}
    for seed in range(40):
        state = game.initial_state(seed=seed % 5)
        reply = ask(SimClient("careless", seed=seed, latency=0), game, state)
        parsed = parse_answer(game, state, 0, reply)
        kinds[parsed.kind] += 1
        if parsed.ok:
            index, digit = parse_move(parsed.action or "") or (0, 0)
            kinds["wrong"] += state.solution[index] != digit
    assert kinds["illegal"] >= 3 and kinds["unparsable"] >= 3 and kinds["wrong"] >= 3 and kinds["ok"] >= 10


# -- LVLM tasks -------------------------------------------------------------------------------------


def test_random_boards_and_legal_positions_are_reproducible_puzzles() -> None:
    a, b = lvlm.random_board(random.Random(3)), lvlm.random_board(random.Random(3))
    assert a == b and a != lvlm.random_board(random.Random(4))
    for seed in range(5):
        state, seat = lvlm.random_legal(random.Random(seed))
        assert seat == 0 and not state.is_over
        assert isinstance(state, SudokuState) and count_solutions(state.givens, 2) == 1
        moves = lvlm.valid_moves(state, seat)
        assert moves and all(m in state.legal_actions() for m in moves)


def test_the_matrix_is_the_grid_row_by_row() -> None:
    state = engine.make("sudoku", puzzle=NORVIG_GRID1).initial_state().apply("A1 4")
    m = lvlm.matrix(state)
    assert len(m) == lvlm.MATRIX_SHAPE[0] and all(len(row) == lvlm.MATRIX_SHAPE[1] for row in m)
    assert m[0] == [4, 0, 3, 0, 2, 0, 6, 0, 0] and m[8][4] == 1
    assert all(lvlm.MATRIX_RANGE[0] <= v <= lvlm.MATRIX_RANGE[1] for row in m for v in row)


def test_questions_are_answered_right_on_a_hand_case() -> None:
    state = state_of(NORVIG_GRID1)
    rng = random.Random(0)
    asked = lvlm.questions(state, rng)
    assert len(asked) == 9
    for text, answer, distractors in asked:
        assert len(distractors) == 3 and answer not in distractors and len(set(distractors)) == 3
        assert all(not d.lstrip("-").isdigit() or int(d) >= 0 for d in distractors), text
    # Every kind, recomputed by hand, on seeds that ask about these rows, columns, cells and boxes.
    answers: dict[str, str] = {}
    for seed in range(3000):
        for q, a, _ in lvlm.questions(state, random.Random(seed)):
            answers[q] = a
    box = "the 3x3 box whose top-left cell is A1 (rows A-C, columns 1-3)"
    assert answers["What is the number in cell A3 (row A, column 3)?"] == "3"
    assert answers["What is the number in cell A1 (row A, column 1)?"] == "empty"
    assert answers["How many 3s are on the board?"] == "4"  # A3, B4, H6, I7
    assert answers["How many empty cells are on the board?"] == "49"
    assert answers["How many 9s are in row B?"] == "1" and answers["How many 4s are in row B?"] == "0"
    assert answers["How many 8s are in column 1?"] == "1"
    assert answers[f"How many 9s are in {box}?"] == "1"
    assert answers["What is the sum of the numbers in row A?"] == str(3 + 2 + 6)
    assert answers["What is the sum of the numbers in column 1?"] == str(9 + 7 + 8)
    assert answers[f"What is the sum of the numbers in {box}?"] == str(3 + 9 + 1)
    assert answers[f"How many empty cells are in {box}?"] == "6"
    assert answers["Does row A contain the number 6?"] == "yes"
    assert answers["Does row A contain the number 5?"] == "no"


def test_read_move_normalises_a_models_movement() -> None:
    assert lvlm.read_move("Movement: 2b 7") == "B2 7"
    assert lvlm.read_move("Observation: ...\nMovement: **A1 5**") == "A1 5"
    assert lvlm.read_move("c3 9") == "C3 9"
    assert lvlm.read_move("Movement: pass") is None
    assert lvlm.read_move("") is None


def test_task_prompts_carry_the_output_keys() -> None:
    assert "Game State:" in lvlm.PROMPTS["perceive"]
    assert "Answer:" in lvlm.PROMPTS["qa"] and "{question}" in lvlm.PROMPTS["qa"]
    assert "Movement:" in lvlm.PROMPTS["rules"]
