"""The simulated model's mistakes look like real models' (misread cells, missed blocks, repeated
invalid moves) and its words agree with its move unless the mistake is the point of the step."""

from __future__ import annotations

import asyncio
import random

import engine
from engine.games.g2048.rules import State2048
from engine.games.tictactoe.rules import ACTIONS, LINES, MARKS, TicTacToeState, winning_moves
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext

TTT = engine.make("tictactoe")
G2048 = engine.make("2048")


def positions(n: int, seed: int = 0) -> list[tuple[TicTacToeState, int]]:
    """Reachable, unfinished tic-tac-toe positions with the seat to act (the empty board included)."""
    rng = random.Random(seed)
    out: list[tuple[TicTacToeState, int]] = []
    while len(out) < n:
        state = TTT.initial_state()
        for _ in range(rng.randrange(0, 8)):
            if state.is_over:
                break
            seat = state.to_act[0]
            state = state.apply(rng.choice(state.legal_actions(seat)))
        if not state.is_over:
            out.append((state, state.to_act[0]))
    return out


def ask(client: SimClient, game: object, state: object, seat: int, reask: str = "") -> tuple[str, str]:
    client.set_context(SimContext(game, state, seat))  # type: ignore[arg-type]
    messages = [Message("system", "Play."), Message("user", "Your move?")]
    if reask:
        messages += [Message("assistant", "..."), Message("user", reask)]
    completion = asyncio.run(client.complete(Request(model="sim", messages=tuple(messages))))
    return completion.reasoning, completion.content


def move_of(answer: str) -> str:
    return answer.rsplit("Chosen Move:", 1)[1].strip()


def plan_of(answer: str) -> str:
    lines = answer.splitlines()
    return lines[lines.index("2. Strategic Analysis") + 1]


def test_without_a_slip_the_plan_names_the_move_played() -> None:
    for i, (state, seat) in enumerate(positions(300)):
        client = SimClient("careless", seed=i, latency=0, format_error_rate=0.0)
        reasoning, answer = ask(client, TTT, state, seat)
        move = move_of(answer)
        if move not in state.legal_actions(seat):
            continue  # a slip: checked below
        assert move in plan_of(answer), answer
        assert move in reasoning.splitlines()[-1], reasoning
        assert f"Conclusion: {move} is the best move." in answer


def test_the_empty_board_never_has_a_winning_line() -> None:
    empty = TTT.initial_state()
    for i in range(60):
        client = SimClient("careless", seed=i, latency=0, wrong_ir_rate=1.0, format_error_rate=0.0)
        reasoning, answer = ask(client, TTT, empty, 0)
        for text in (reasoning, answer):
            assert "complete a line" not in text and "must block" not in text
        assert "Empty board: I open" in plan_of(answer) and move_of(answer) in plan_of(answer)


def test_wrong_intermediate_answers_are_plausible() -> None:
    style = SimClient().behaviour(TTT)
    rng = random.Random(5)
    wrong = 0
    for state, seat in positions(400, seed=1):
        me, them = MARKS[seat], MARKS[1 - seat]
        answers = style.intermediate(SimContext(TTT, state, seat), rng, 1.0)
        for key, mark in ((1, me), (2, them)):
            truth = winning_moves(state, mark)
            seen = answers[key]
            if seen == truth:
                # Right only when no plausible mistake exists: no threat to miss, no mark to misread.
                assert not truth and not _ghost_cells(state.cells, mark)
                continue
            wrong += 1
            extra = set(seen) - set(truth)
            missed = set(truth) - set(seen)
            assert len(extra) + len(missed) == 1
            assert missed <= set(truth)  # a real threat missed
            for cell in extra:
                assert cell in _ghost_cells(state.cells, mark), (state.cells, mark, cell)
    assert wrong > 100


def _ghost_cells(cells: tuple[str, ...], mark: str) -> set[str]:
    """Empty cells next to a ``mark`` on a line holding that one mark and nothing else."""
    found = set()
    for line in LINES:
        values = [cells[i] for i in line]
        if values.count(mark) == 1 and values.count("") == 2:
            owner = next(i for i in line if cells[i] == mark)
            for i in line:
                if not cells[i] and abs(i // 3 - owner // 3) <= 1 and abs(i % 3 - owner % 3) <= 1:
                    found.add(ACTIONS[i])
    return found


def test_a_wrong_belief_is_acted_on_and_explained_from_the_board() -> None:
    acted = 0
    for i, (state, seat) in enumerate(positions(300, seed=2)):
        client = SimClient("perfect", seed=i, latency=0, wrong_ir_rate=1.0)
        reasoning, answer = ask(client, TTT, state, seat)
        move = move_of(answer)
        plan = plan_of(answer)
        if "complete a line" in plan or "must block" in plan:
            assert move in plan and "has" in plan and f"so {move} completes it" in plan
            acted += 1
        elif winning_moves(state, MARKS[1 - seat]) or winning_moves(state, MARKS[seat]):
            # It saw neither a win nor a threat that is there: it plays elsewhere, as a model would.
            assert move not in {*winning_moves(state, MARKS[1 - seat]), *winning_moves(state, MARKS[seat])}
            assert "No immediate threats" in plan
    assert acted > 30


def test_a_slip_is_a_misread_cell_and_may_be_repeated_when_re_asked() -> None:
    slips = repeats = 0
    for i, (state, seat) in enumerate(positions(200, seed=3)):
        if not any(state.cells):
            continue
        client = SimClient("perfect", seed=i, latency=0, illegal_rate=1.0)
        reasoning, answer = ask(client, TTT, state, seat)
        move = move_of(answer)
        assert state.cells[ACTIONS.index(move)], "a slip plays an occupied cell"
        observed = reasoning.splitlines()[0]
        assert move not in observed and move not in answer.splitlines()[1]  # the mark it misread
        assert f"{move} is still empty" in reasoning and f"{move} is still empty" in plan_of(answer)
        slips += 1
        client.rates["illegal_rate"] = 1e-9  # no new slip: only a repeat can play the same cell again
        again_reasoning, again = ask(client, TTT, state, seat, reask="Your answer is not a legal move: taken")
        if move_of(again) == move:
            repeats += 1
            assert "checked again" in again_reasoning
    assert slips > 100 and 0 < repeats < slips


def test_2048_wasted_moves_are_misread_merges_and_plain_moves_are_named() -> None:
    rng = random.Random(4)
    checked = 0
    for i in range(200):
        state = G2048.initial_state(seed=i)
        for _ in range(rng.randrange(0, 40)):
            if state.is_over:
                break
            state = state.apply(rng.choice(state.legal_actions(0)))
        if state.is_over or not isinstance(state, State2048):
            continue
        client = SimClient("perfect", seed=i, latency=0, illegal_rate=0.5)
        reasoning, answer = ask(client, G2048, state, 0)
        move = answer.rsplit("move:", 1)[1].strip()
        last = reasoning.splitlines()[-1]
        assert last.endswith(f"I'll go with {move}.")
        if not state.changes_board(move):
            assert "should merge" in last and "should merge" in answer
            listed = [line for line in reasoning.splitlines() if line.startswith(f"- {move}:")]
            assert not any("does not change" in line for line in listed)  # it does not see it is wasted
            checked += 1
        else:
            assert "shake" not in answer and f"{move} looks strongest" in last
    assert checked > 10
