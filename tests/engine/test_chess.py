"""Chess: perft through the state API, SAN/UCI/click parsing, draws, points, bots (Stockfish or its
labelled fallback), the LVLM tasks, PGN export and simulated play."""

from __future__ import annotations

import asyncio
import json
import random

import chess
import pytest

import engine
from engine.agent.parse import parse_answer
from engine.core import IllegalActionError, InvalidActionError
from engine.games.chess import lvlm, lvlm_points, perft, position
from engine.games.chess.answers import extract_move
from engine.games.chess.bots import ChessSearchBot, StockfishBot, find_stockfish
from engine.games.chess.pgn import to_pgn
from engine.options import OptionError
from engine.players import Observation

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def test_conformance() -> None:
    assert engine.check_game("chess").states > 0


def test_perft_start_and_kiwipete() -> None:
    start = position()
    assert [perft(start, d) for d in (1, 2, 3)] == [20, 400, 8902]
    kiwi = position(KIWIPETE)
    assert (perft(kiwi, 1), perft(kiwi, 2)) == (48, 2039)


def test_actions_are_san_and_parsing_normalises() -> None:
    game = engine.make("chess")
    s = game.initial_state()
    assert "e4" in s.legal_actions() and "Nf3" in s.legal_actions() and len(s.legal_actions(0)) == 20
    assert s.legal_actions(1) == []
    for text in ("e4", "e2e4", "e2-e4", "e2->e4", "Movement: e4", "**Movement:** e2e4."):
        assert game.parse_action(text, s) == "e4"
    assert game.parse_action("g1f3", s) == "Nf3" and game.parse_action("nf3", s) == "Nf3"
    with pytest.raises(IllegalActionError):
        game.parse_action("e5", s)
    with pytest.raises(IllegalActionError):
        game.parse_action("Nf3", s, seat=1)
    with pytest.raises(InvalidActionError):
        s.apply("hello there")
    with pytest.raises(IllegalActionError):
        s.apply({1: "e4"})
    # castling, check marks, promotion
    c = position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert game.parse_action("0-0", c) == "O-O" and "O-O-O" in c.legal_actions()
    p = position("8/P6k/8/8/8/8/5K2/8 w - - 0 1")
    assert "a8=Q" in p.legal_actions() and game.parse_action("a7a8", p) == "a8=Q"
    assert game.parse_action("a7a8n", p) == "a8=N" and game.parse_action("a7->a8", p) == "a8=Q"
    mate = position(moves=["f3", "e5", "g4"])
    assert "Qh4#" in mate.legal_actions() and game.parse_action("Qh4", mate) == "Qh4#"
    assert s.path_actions(0)["g1->f3"] == "Nf3" and p.path_actions(0)["a7->a8"] == "a8=Q"


def test_apply_is_immutable_and_json_round_trips() -> None:
    game = engine.make("chess")
    s = game.initial_state()
    t = s.apply("e4")
    assert s.fen == chess.STARTING_FEN and t.last_san == "e4" and t.last_move_squares == ("e2", "e4")
    back = game.state_from_json(json.loads(json.dumps(t.to_json())))
    assert back == t and back.fen == t.fen
    with pytest.raises(engine.core.StateFormatError):
        game.state_from_json({"start": chess.STARTING_FEN, "moves": ["e2e5"]})


def test_checkmate_and_draw_rules() -> None:
    fools = position(moves=["f3", "e5", "g4", "Qh4#"])
    assert (
        fools.is_over and fools.winner == 1 and fools.scores == (0.0, 1.0) and fools.ending[0] == "checkmate"
    )
    stale = position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert stale.is_over and stale.winner is None and stale.ending[0] == "stalemate"
    bare = position("8/8/8/4k3/8/8/8/4KB2 w - - 0 1")
    assert bare.ending[0] == "insufficient material" and bare.scores == (0.5, 0.5)
    fifty = position("8/8/8/4k3/8/8/8/R3K3 w - - 99 80")
    assert not fifty.is_over and fifty.apply("Ra2").ending[0] == "fifty-move rule"
    shuffle = position(moves=["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"])
    assert not shuffle.is_over and shuffle.notice() != ""
    assert shuffle.apply("Ng8").ending[0] == "threefold repetition"


def test_fen_option_is_validated() -> None:
    assert engine.make("chess", fen=KIWIPETE).initial_state().fen == KIWIPETE
    for bad in ("not a fen", "8/8/8/8/8/8/8/8 w - - 0 1"):
        with pytest.raises(OptionError, match="fen"):
            engine.make("chess", fen=bad)


def test_lvlm_points() -> None:
    s = position(moves=["e4", "d5", "exd5", "Qxd5", "Nc3", "Qe5+", "Qe2", "Qxe2+", "Bxe2"])
    assert s.white_moves == 5 and s.captured == 10  # a pawn and the queen
    assert lvlm_points(s) == 10 * 5 + 5 * 10 and s.metrics()["lvlm_points"] == 100
    assert lvlm_points(position(moves=["f3", "e5", "g4", "Qh4#"])) == 20
    scholar = position(moves=["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"])
    assert lvlm_points(scholar) == 40 + 5 + 1000


def _act(bot, state):  # noqa: ANN001, ANN202
    return asyncio.run(
        bot.act(Observation(engine.make("chess"), state, state.mover, tuple(state.legal_actions())))
    )


def test_search_bot_mates_wins_material_and_plays_a_game() -> None:
    game = engine.make("chess")
    bot = ChessSearchBot(game, 0)
    assert _act(bot, position(moves=["f3", "e5", "g4"])).action == "Qh4#"
    hanging = position("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1")
    assert _act(bot, hanging).action == "Rxd5"
    state = game.initial_state()
    for _ in range(16):  # its speed is benchmarks/bench_gamebot.py's to print, not a test's to assert
        decision = _act(bot, state)
        assert decision.action in state.legal_actions()
        state = state.apply(decision.action)
    assert len(state.moves) == 16


def test_stockfish_or_its_labelled_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    game = engine.make("chess", engine_time=0.05)
    state = position(moves=["f3", "e5", "g4"])
    if find_stockfish() is None:
        bot = game.make_bot("stockfish", 0)
        assert not bot.available and bot.label == "Built-in search (Stockfish not found)"
        decision = _act(bot, state)
        assert decision.action == "Qh4#" and decision.rationale.startswith(
            "Built-in search (Stockfish not found)"
        )
    else:
        bot = game.make_bot("stockfish", 0)
        try:
            decision = _act(bot, state)
            assert bot.available and "Stockfish" in bot.label and decision.action == "Qh4#"
        finally:
            bot.close()
        assert bot._engine is None
    monkeypatch.setenv("PLAYTRACE_STOCKFISH", "/nonexistent/stockfish")
    missing = StockfishBot(game, 0)
    assert missing.label == "Built-in search (Stockfish not found)"


def test_lvlm_tasks() -> None:
    assert lvlm.MATRIX_SHAPE == (8, 8) and lvlm.MATRIX_RANGE == (-6, 6)
    grid = lvlm.matrix(position())
    assert grid[0] == [-4, -2, -3, -5, -6, -3, -2, -4] and grid[7] == [4, 2, 3, 5, 6, 3, 2, 4]
    assert grid[1] == [-1] * 8 and grid[4] == [0] * 8
    a, b = lvlm.random_board(random.Random(7)), lvlm.random_board(random.Random(7))
    assert a == b and 5 <= a.step <= 55
    for seed in range(20):
        state, seat = lvlm.random_legal(random.Random(seed))
        assert seat == 0 and state.mover == 0 and not state.is_over and lvlm.valid_moves(state, seat)
    s = position()
    assert "Nf3" in lvlm.valid_moves(s, 0) and lvlm.valid_moves(s, 1) == []
    assert lvlm.read_move("Observation: x\nMovement: nf3+") == "Nf3"
    assert lvlm.read_move("Movement: 0-0") == "O-O" and lvlm.read_move("nothing here") is None
    assert lvlm.read_move("Movement: bxc3") == "bxc3"
    assert "Game State:" in lvlm.PROMPTS["perceive"] and "{question}" in lvlm.PROMPTS["qa"]
    assert "Movement:" in lvlm.PROMPTS["rules"]


def test_lvlm_questions_on_the_start_position() -> None:
    asked = {q: (answer, wrong) for q, answer, wrong in lvlm.questions(position(), random.Random(3))}
    assert len(asked) >= 8
    assert asked["Which color has more pieces on the board?"][0] == "equal"
    assert asked["How many pieces are on the edge of the board?"][0] == "20"
    assert asked["Which half of the board has more empty cells?"][0] == "equal"
    for question, (answer, wrong) in asked.items():
        assert answer not in wrong and len(set(wrong)) == len(wrong) >= 2
        if question.startswith("How many pieces are in row"):
            assert answer == ("8" if question.rstrip("?")[-1] in "1278" else "0")
        if question.startswith("How many"):
            assert all(int(w) >= 0 and abs(int(w) - int(answer)) <= 3 for w in wrong)


def test_pgn_export_with_comments() -> None:
    text = to_pgn(
        chess.STARTING_FEN,
        [("f3", "a poor start"), ("e5", ""), ("g4", "Strategy: open lines"), ("Qh4#", "mate")],
        {"White": "Simulated model", "Black": "Alpha-beta search"},
    )
    assert '[Result "0-1"]' in text and '[White "Simulated model"]' in text
    flat = " ".join(text.split())
    assert "1. f3 { a poor start } 1... e5 2. g4 { Strategy: open lines } 2... Qh4# { mate } 0-1" in flat
    odd = to_pgn(KIWIPETE, [("e2a6", "")], {})
    assert '[FEN "' in odd and "Bxb5" not in odd and "Bxa6" in odd
    with pytest.raises(ValueError):
        to_pgn(chess.STARTING_FEN, [("e5", "")], {})


def test_extractor_and_simulated_answers_parse() -> None:
    game = engine.make("chess")
    s = game.initial_state()
    answer = "Observation: start.\nStrategy: centre.\nMovement: e4"
    assert extract_move(answer, s.legal_actions()).extracted == "e4"
    result = parse_answer(game, s, 0, answer)
    assert result.action == "e4"
    assert parse_answer(game, s, 0, "Observation: x\nMovement: the knight").action is None
    from engine.games.chess.sim import ChessSim, illegal_moves
    from engine.llm.simstyle import Analysis, SimContext

    sim = ChessSim(game)
    ctx = SimContext(game, s, 0)
    analysis = Analysis("Nf3", {"Nf3": 30.0, "e4": 25.0}, "search")
    text = sim.answer(ctx, analysis, "Nf3", "", False, {}, random.Random(0))
    assert text.splitlines()[0].startswith("Observation:") and parse_answer(game, s, 0, text).action == "Nf3"
    wrong, kind = sim.slip(ctx, analysis, random.Random(0))
    assert kind == "illegal" and wrong not in s.legal_actions() and wrong in illegal_moves(s)
    assert parse_answer(game, s, 0, f"Movement: {wrong}").kind == "illegal"
