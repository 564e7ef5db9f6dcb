"""Hold'em: pokerkit's rules behind the contract, privacy, outcomes, questions, bots and the sim."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

import engine
from engine.core import GameError, IllegalActionError, InvalidActionError
from engine.games.holdem import ACTIONS, ALL_IN, CALL, FOLD, HALF_POT, POT, Holdem, HoldemState
from engine.games.holdem.answers import extract_action
from engine.games.holdem.bots import EquityBot
from engine.games.holdem.cards import hand_rank, preflop_keys, preflop_win
from engine.games.holdem.questions import QUESTIONS, parse_probability, parse_rank
from engine.options import OptionError
from engine.players import Observation
from engine.questions import score


def _state(cards: str, history: tuple[str, ...] = (), button: int = 0) -> HoldemState:
    codes = tuple(cards.split())
    state = HoldemState(100, 1, 2, button, codes)
    for action in history:
        state = state.apply(action)
    return state


def test_conforms() -> None:
    report = engine.check_game("holdem")
    assert report.states > 0


def test_declaration() -> None:
    game = engine.make("holdem")
    assert isinstance(game, Holdem)
    assert (game.id, game.title, game.chance, game.perfect_information, game.outcome) == (
        "holdem", "Texas Hold'em", True, False, "value")
    assert game.actions == ("Fold", "Check and Call", "Raise Half Pot", "Raise Full Pot", "All in")
    assert game.default_prompt == "cot" and game.default_opponent == "equity"
    with pytest.raises(OptionError, match="small_blind"):
        Holdem(small_blind=3, big_blind=2)


def test_blinds_button_and_first_actor() -> None:
    state = engine.make("holdem").initial_state(seed=5)
    assert state.button == 0 and state.put_in == (1, 2) and state.stacks == (99, 98)
    assert state.to_act == (0,)  # the button acts first before the flop
    flop = state.apply(CALL).apply(CALL)
    assert len(flop.board) == 3 and flop.to_act == (1,)  # and last after it
    second = engine.make("holdem", button="second").initial_state(seed=5)
    assert second.button == 1 and second.put_in == (2, 1) and second.to_act == (1,)
    assert {engine.make("holdem", button="seed").initial_state(seed=s).button for s in (2, 3)} == {0, 1}


def test_raise_sizes_and_legality() -> None:
    state = _state("As Kd 7c 2h 9s 9d 4c Jh Qs")
    # Pot 3, 1 to call: a pot raise is to 2 + (3 + 1) = 6, half pot to 4 (the minimum raise).
    assert state.legal_actions() == list(ACTIONS)
    assert (state.raise_to(HALF_POT), state.raise_to(POT), state.raise_to(ALL_IN)) == (4, 6, 100)
    limped = state.apply(CALL)
    assert FOLD not in limped.legal_actions()  # nothing to call: check, never fold
    assert limped.chips_for(CALL) == 0
    shove = state.apply(ALL_IN)
    assert shove.legal_actions() == [FOLD, CALL]  # no raise over an all-in
    done = shove.apply(CALL)
    assert done.is_over and len(done.board) == 5 and done.showdown
    assert sum(done.scores) == 0 and done.scores[0] == 100  # AK high vs 72 on a 9 9 4 J Q board
    folded = state.apply(FOLD)
    assert folded.is_over and folded.scores == (-1.0, 1.0) and folded.winner == 1 and not folded.showdown


def test_apply_is_pure_and_errors() -> None:
    state = engine.make("holdem").initial_state(seed=11)
    before = state.to_json()
    for action in state.legal_actions():
        state.apply(action)
    assert state.to_json() == before and state.stacks == (99, 98)
    with pytest.raises(InvalidActionError):
        state.apply("raise 20")
    with pytest.raises(IllegalActionError):
        state.apply(CALL).apply(FOLD)
    with pytest.raises(IllegalActionError):
        state.apply({1: CALL})
    with pytest.raises(GameError):
        state.observe(0).apply(CALL)


def test_json_round_trip_of_states_and_views() -> None:
    game = engine.make("holdem")
    state = game.initial_state(seed=4).apply(POT).apply(CALL).apply(CALL)
    assert game.state_from_json(json.loads(json.dumps(state.to_json()))) == state
    view = state.observe(1)
    back = game.state_from_json(json.loads(json.dumps(view.to_json())))
    assert back == view and back.legal_actions(1) == view.legal_actions(1) and back.pot == view.pot


def test_views_hide_the_opponent_until_showdown() -> None:
    state = _state("As Kd 7c 2h 9s 9d 4c Jh Qs")
    view = state.observe(1)
    assert view.hole(0) is None and view.hole(1) == ("7c", "2h")
    text = view.text() + view.text_table() + json.dumps(view.to_json())
    for word in state.secrets(0):
        assert word not in text
    assert "The cards in your hands is [Clubs 7, Hearts 2]" in view.text()
    assert "Spades A" in state.text(0) and "Spades A" not in state.text(1)
    assert view.cards[4:] == (None,) * 5  # the undealt board is hidden too
    shown = state.apply(ALL_IN).apply(CALL)
    assert shown.observe(1).hole(0) == ("As", "Kd") and shown.secrets(0) == frozenset()
    folded = state.apply(FOLD)
    assert folded.observe(1).hole(0) is None and "As" in folded.secrets(0)


def test_text_follows_gamebot() -> None:
    text = _state("Ts Ah 7c 2h 9s 9d 4c Jh Qs").text(0)
    assert text.splitlines()[0] == "Current round is Pre-flop"
    assert "The cards in your hands is [Spades 10, Hearts A]" in text
    assert "The community cards is []" in text
    assert "You now have 99 chips. You has put in the pot 1 chips." in text
    assert "Your opponent has put in the pot 2 chips." in text
    assert "[ Fold, Check and Call, Raise Half Pot, Raise Full Pot, All in ]" in text


def test_outcomes_list_every_deal_lazily() -> None:
    state = _state("As Kd 7c 2h 9s 9d 4c Jh Qs").apply(CALL)
    flop = state.outcomes(CALL)
    after = state.apply(CALL)
    assert len(flop) == 17296 and flop[0] == (pytest.approx(1 / 17296), after)
    assert abs(sum(p for p, _ in flop) - 1) < 1e-9
    boards = {s.cards[4:7] for _, s in flop}
    assert len(boards) == 17296
    assert flop[1234][1] == list(flop)[1234][1]
    assert all(len(set(s.cards)) == 9 for _, s in list(flop)[:500])
    assert state.outcomes(HALF_POT) == [(1.0, state.apply(HALF_POT))]  # no card dealt
    runout = _state("As Kd 7c 2h 9s 9d 4c Jh Qs").apply(ALL_IN).outcomes(CALL)
    assert len(runout) == 1712304 and runout[len(runout) - 1][1].is_over


@pytest.mark.parametrize(
    ("hole", "board", "rank"),
    [
        ("As Ks", "Qs Js Ts 2d 3h", 1),  # royal flush
        ("As 2s", "3s 4s 5s Kd Qh", 2),  # steel wheel: a straight flush, not a royal
        ("9h 8h", "7h 6h 5h Ad Ac", 2),
        ("Ah Ad", "As Ac 5h", 3),
        ("Ah Ad", "As Kc Kh", 4),
        ("2h 9h", "Jh Kh 4h", 5),
        ("Ah 2s", "3s 4d 5c Kd Qh", 6),  # the wheel is a straight
        ("Th Jd", "Qs Kc Ah", 6),
        ("7h 7d", "7s Kc 2h", 7),
        ("7h 2d", "7s 2c Ah", 8),
        ("7h 3d", "7s Kc Ah", 9),
        ("7h 3d", "9s Kc Ah", 10),
    ],
)
def test_hand_ranks(hole: str, board: str, rank: int) -> None:
    assert hand_rank(hole.split(), board.split()) == rank


def test_preflop_table_lookup() -> None:
    assert preflop_keys(["3d", "4d"]) == ("43s", "43") and preflop_win(["3d", "4d"]) == 35.7
    assert preflop_win(["Qs", "4c"]) == 47.7  # no Q4o entry: the generic Q4
    assert preflop_win(["Ah", "Kh"]) == 66.2 and preflop_win(["Ah", "Kc"]) == 64.5
    assert preflop_win(["7c", "2h"]) == 31.7 and preflop_win(["Qd", "Qs"]) == 79.6
    assert preflop_win(["Td", "9c"]) == 49.8


def test_questions_score_with_abs_tolerance() -> None:
    q1, q2 = QUESTIONS
    pre = _state("Ah Kh 7c 2h 9s 9d 4c Jh Qs").observe(0)
    truth = q1.expected(pre, 0)
    assert truth == 66.2 and q2.expected(pre, 0) == "not_applicable"
    assert score(q1, "66.2%", truth)[0] is True
    assert score(q1, "0.662", truth)[0] is True  # a fraction is read as percent
    assert score(q1, "64.9%", truth)[0] is False  # the generic AK entry is not the answer
    assert score(q1, "50%", truth)[0] is False  # a lower number does not pass (no missing abs())
    assert score(q1, "66.35", truth)[0] is False
    flop = _state("As 2s 7c 2h 3s 4s 5s Jh Qs", (CALL, CALL)).observe(0)
    assert q1.expected(flop, 0) == "not_applicable" and q2.expected(flop, 0) == 2
    assert score(q2, "2", 2.0)[0] is True and score(q2, "1", 2.0)[0] is False
    assert score(q2, "3", 2.0)[0] is False
    assert parse_rank("Two Pair") == 8 and parse_probability("35.7%") == 35.7


def test_extractor() -> None:
    assert extract_action("Conclusion: strong.\nChosen Action: Raise Full Pot", ACTIONS).extracted == POT
    assert extract_action("Chosen Action:\n\n**All-in**", ACTIONS).extracted == ALL_IN
    assert extract_action("Chosen Action: call", ACTIONS).extracted == CALL
    bad = extract_action("Chosen Action: wait and see", ACTIONS)
    assert bad.extracted is None and bad.error  # a format error, not a fold
    assert extract_action("I think I should check.", ACTIONS).extracted is None


def test_equity_bot_is_sensible() -> None:
    game = engine.make("holdem")
    bot = EquityBot(game, seed=1)

    def decide(state: HoldemState, seat: int) -> str:
        view = state.observe(seat)
        obs = Observation(game, view, seat, tuple(view.legal_actions(seat)))
        decision = asyncio.run(bot.act(obs))
        return decision.action

    assert decide(_state("As Ad 7c 2h 9s 9d 4c Jh Qs"), 0) in (POT, ALL_IN, HALF_POT)
    facing = _state("7c 2h As Ad 9s 9d 4c Jh Qs", (CALL, ALL_IN))
    assert decide(facing, 0) == FOLD
    flop = _state("Kh Kd 7c 2h Ks 9d 4c Jh Qs", (CALL, CALL))
    assert flop.to_act == (1,) and decide(flop, 1) in (CALL, FOLD)
    assert decide(flop.apply(CALL), 0) in (HALF_POT, POT, ALL_IN)  # a set of kings bets
    turn = _state("Kh Kd 7c 2h Ks 9d 4c Jh Qs", (CALL, CALL, CALL, CALL))
    assert len(turn.board) == 4 and decide(turn, 1) in (CALL, HALF_POT, POT, ALL_IN)
    river = turn.apply(CALL).apply(CALL)
    assert len(river.board) == 5 and decide(river, 1) in (CALL, HALF_POT, POT, ALL_IN)


def test_panel() -> None:
    state = _state("As Kd 7c 2h 9s 9d 4c Jh Qs")
    panel = state.panel(0)
    assert [b.label for b in panel.buttons] == ["Fold", "Call 1"] and panel.submit == "Raise"
    (amount,) = panel.amounts
    assert amount.labels == ("Half pot (to 4)", "Full pot (to 6)", "All in (to 100)")
    assert panel.action_for({"size": 1}) == POT and state.panel(1) is None
    check = state.apply(CALL).panel(1)
    assert check.buttons[1].label == "Check" and not check.buttons[0].enabled


def test_sim_answers_parse_and_follow_the_prompt() -> None:
    from engine.games.holdem.sim import HoldemSim
    from engine.llm.simstyle import Analysis, SimContext

    game = engine.make("holdem")
    sim = HoldemSim(game)
    view = _state("Ah Kh 7c 2h 9s 9d 4c Jh Qs").observe(0)
    ctx = SimContext(game, view, 0)
    answers = sim.intermediate(ctx, random.Random(0), 0.0)
    assert answers == {1: 66.2}
    analysis = Analysis(POT, {a: 0.0 for a in view.legal_actions(0)}, "equity")
    action = sim.choose(ctx, analysis, answers)
    assert action in (HALF_POT, POT, ALL_IN)
    text = sim.answer(ctx, analysis, action, "", False, answers, random.Random(0))
    assert "[Intermediate Thinking Results 1: 66.2%]" in text
    assert extract_action(text, view.legal_actions(0)).extracted == action
