"""Bargaining (GameBot): setup, rules, the random stop, privacy, questions, answers, bots, sim, panel."""

from __future__ import annotations

import asyncio
import dataclasses
import random

import pytest

import engine
from engine.agent.parse import ILLEGAL, OK, UNPARSABLE, parse_answer
from engine.agent.verify import verify
from engine.conformance import ConformanceError
from engine.core import IllegalActionError, InvalidActionError
from engine.games.bargaining import AGREE, Bargaining, BargainingState, divisions, setup, value_of
from engine.games.bargaining.answers import extract_proposal
from engine.games.bargaining.bots import fair_proposal, threshold
from engine.games.bargaining.questions import QUESTIONS, mistakes
from engine.games.bargaining.rules import action_bound, clash, playable_pools, read_division, value_vectors
from engine.games.bargaining.sim import acceptance
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext
from engine.players import Observation
from engine.questions import NOT_APPLICABLE

GAME = Bargaining()
SPLIT = "P1: (3, 3, 2), P2: (2, 1, 1)"


def example(offers: tuple[tuple[int, int, int], ...] = ((3, 3, 2),), **kw: object) -> BargainingState:
    """The paper's example: pool (5, 4, 3); Player2 values [2, 5, 0]; Player1 values [0, 6, 2]."""
    data = {
        "game": "bargaining",
        "pool": [5, 4, 3],
        "values": {"Player1": [0, 6, 2], "Player2": [2, 5, 0]},
        "offers": [list(o) for o in offers],
        "end": "",
        "seed": 11,
        "rounds_before_stop": 8,
        "stop_probability": 0.2,
        "max_rounds": 40,
        **kw,
    }
    return GAME.state_from_json(data)


def play(state: BargainingState, *actions: str) -> BargainingState:
    for action in actions:
        state = state.apply(action)
    return state


def other_split(state: BargainingState, k: int) -> str:
    """A valid division that is not the latest proposal (so the game goes on)."""
    return [a for a in divisions(state.pool) if a != SPLIT][k]


# -- declaration and setup -------------------------------------------------------------------------


def test_declaration() -> None:
    assert Bargaining.id == "bargaining" and [s.name for s in Bargaining.seats] == ["Player1", "Player2"]
    assert Bargaining.chance and not Bargaining.perfect_information and Bargaining.outcome == "value"
    assert Bargaining.default_prompt == "cot" and Bargaining.default_opponent == "fair"
    assert Bargaining.action_bound == action_bound() == 121
    assert max(len(divisions(p)) + 1 for p in playable_pools()) == 121
    assert (4, 4, 4) not in playable_pools()  # 4 does not divide 30: no values fit
    assert {o.name for o in Bargaining.options_schema} == {
        "rounds_before_stop",
        "stop_probability",
        "max_rounds",
    }


def test_setup_follows_the_reference() -> None:
    totals = set()
    for seed in range(300):
        pool, (first, second) = setup(seed)
        totals.add(sum(pool))
        assert 8 <= sum(pool) <= 12 and min(pool) >= 1
        assert value_of(first, pool) == value_of(second, pool) == 30
        assert not clash(first, second)
        assert setup(seed) == (pool, (first, second))
    assert totals == set(range(8, 13))
    vectors = value_vectors((5, 4, 3))
    assert {(2, 5, 0), (0, 6, 2)} <= set(vectors) and all(value_of(v, (5, 4, 3)) == 30 for v in vectors)
    assert clash((0, 5, 2), (0, 1, 9)) and not clash((0, 5, 2), (4, 0, 1))


def test_conformance() -> None:
    report = engine.check_game("bargaining")
    assert report.states > 10


def test_the_privacy_check_catches_a_view_that_shows_both_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(BargainingState, "observe", lambda self, seat: self)
    with pytest.raises(ConformanceError, match="reveals seat 1's secret"):
        engine.check_game("bargaining")


# -- rules -------------------------------------------------------------------------------------------


def test_legal_actions_and_agree_needs_a_proposal() -> None:
    state = GAME.initial_state(seed=3)
    a, b, c = state.pool
    legal = state.legal_actions()
    assert len(legal) == (a + 1) * (b + 1) * (c + 1) and AGREE not in legal
    assert state.legal_actions(1) == [] and state.to_act == (0,)
    # GameBot's code scores "accept" before any proposal as (0, 15); here it is not legal at all.
    with pytest.raises(IllegalActionError, match="no proposal to agree to"):
        state.apply(AGREE)
    after = state.apply(legal[5])
    assert after.to_act == (1,) and after.legal_actions(1)[0] == AGREE
    assert len(after.legal_actions(1)) == len(legal) + 1


def test_a_deal_pays_each_player_its_own_values() -> None:
    state = example().apply(AGREE)
    assert state.is_over and state.end == "agreed"
    # Player1 keeps (3, 3, 2) worth 0*3 + 6*3 + 2*2 = 22; Player2 keeps (2, 1, 1) worth 2*2 + 5*1 + 0 = 9.
    assert state.scores == (22.0, 9.0) and state.winner == 0
    assert GAME.outcome_value(state, 0) == 13.0 and GAME.outcome_value(state, 1) == -13.0
    assert "Deal" in state.text(0) and state.legal_actions() == []


def test_bad_divisions_are_illegal_and_nonsense_is_invalid() -> None:
    state = example()
    with pytest.raises(IllegalActionError, match="do not add up to the pool"):
        state.apply("P1: (3, 3, 2), P2: (2, 1, 2)")
    with pytest.raises(InvalidActionError):
        state.apply("let us split evenly")
    assert GAME.parse_action("[P1: (3,3,2), P2: (2,1,1)]", state, 1) == SPLIT
    assert GAME.parse_action("Proposal: [ Agree ]", state, 1) == AGREE
    assert GAME.parse_action("P1 [3, 3, 2], P2 [2, 1, 1]", state, 1) == SPLIT
    with pytest.raises(IllegalActionError):
        GAME.parse_action("P1: (6, 0, 0), P2: (0, 4, 3)", state, 1)
    with pytest.raises(InvalidActionError):
        GAME.parse_action("I do not agree", state, 1)
    with pytest.raises(IllegalActionError, match="turn"):
        GAME.parse_action(AGREE, state, 0)


def test_the_random_stop_starts_after_round_eight() -> None:
    state = example(offers=())
    for k in range(7):  # rounds 1..7: never a stop
        assert len(state.outcomes(other_split(state, k))) == 1
        state = state.apply(other_split(state, k))
    assert state.round == 8
    branches = state.outcomes(other_split(state, 0))  # the proposal of round 8: round 9 may not come
    assert sorted(p for p, _ in branches) == pytest.approx([0.2, 0.8])
    ends = {s.end for _, s in branches}
    assert ends == {"", "stopped"}
    assert state.apply(other_split(state, 0)) in [s for _, s in branches]
    assert state.apply(AGREE).end == "agreed"  # agreeing is never cut short


def test_stop_rate_is_seeded_and_about_the_probability() -> None:
    stopped = 0
    for seed in range(400):
        state = dataclasses.replace(example(offers=((1, 1, 1),) * 8), seed=seed)
        after = state.apply(other_split(state, 1))
        assert after == state.apply(other_split(state, 1))
        stopped += after.end == "stopped"
    assert 50 <= stopped <= 110  # 0.2 of 400 = 80


def test_options_change_the_stop_and_the_cap() -> None:
    never = Bargaining(stop_probability=0.0, max_rounds=12).initial_state(seed=1)
    rng = random.Random(0)
    while not never.is_over:
        never = never.apply(rng.choice([a for a in never.legal_actions() if a != AGREE]))
    assert never.end == "max_rounds" and len(never.offers) == 12 and never.scores == (0.0, 0.0)
    sure = Bargaining(stop_probability=1.0, rounds_before_stop=2).initial_state(seed=1)
    sure = play(sure, divisions(sure.pool)[0])
    assert not sure.is_over
    sure = play(sure, divisions(sure.pool)[1])
    assert sure.end == "stopped" and "0 for both" in sure.text(0)


def test_json_round_trip_of_states_and_views() -> None:
    state = play(example(), other_split(example(), 2))
    for s in (state, state.observe(0), state.observe(1), state.apply(AGREE)):
        assert GAME.state_from_json(s.to_json()) == s
    with pytest.raises(engine.StateFormatError):
        GAME.state_from_json({**state.to_json(), "values": {"Player1": [1, 1, 1]}})


# -- information -------------------------------------------------------------------------------------


def test_a_view_hides_the_opponents_values_and_the_seed() -> None:
    state = example()
    view = state.observe(1)
    assert view.values == (None, (2, 5, 0)) and view.seed is None
    text = view.text(1)
    assert "Your values (Player2): [2, 5, 0]" in text and "[0, 6, 2]" not in text
    assert "Pool: [5, 4, 3]" in text
    assert "Round 1 Player1 proposes: P1 [3, 3, 2], P2 [2, 1, 1]" in text
    assert '"Agree"' in text and "P1: (a, b, c), P2: (d, e, f)" in text
    for word in state.secrets(1):
        assert word in text or word in str(view.to_json()).replace("'", '"')
    assert state.secrets(0).isdisjoint(state.secrets(1))
    over = state.apply(AGREE)
    assert over.observe(0) is over and over.secrets(0) == frozenset()  # revealed at the end


# -- questions ---------------------------------------------------------------------------------------


def test_the_papers_example_is_worth_nine() -> None:
    q1, q2 = QUESTIONS
    view = example().observe(1)
    assert q1.expected(view, 1) == 9.0 and q1.tolerance == 0.5
    assert q1.expected(example(offers=()).observe(0), 0) == NOT_APPLICABLE
    assert q2.about_action
    assert q2.expected(view, 1, "P1: (1, 0, 3), P2: (4, 4, 0)") == 2 * 4 + 5 * 4  # 28
    assert q2.expected(view, 1, AGREE) == NOT_APPLICABLE
    assert q2.expected(view, 1, None) == NOT_APPLICABLE
    assert q2.expected(view, 1, "P1: (1, 0, 3), P2: (4, 4, 1)") == NOT_APPLICABLE  # invalid
    checks = verify(GAME, view, 1, {1: "2*2+5*1+0*1=9", 2: "28"}, {1, 2}, "P1: (1, 0, 3), P2: (4, 4, 0)")
    assert [c.correct for c in checks] == [True, True]
    checks = verify(GAME, view, 1, {1: "10"}, {1, 2}, AGREE)
    assert [c.correct for c in checks] == [False, None]


def test_mistakes_are_the_wrong_side_a_dropped_term_or_a_miscount() -> None:
    found = mistakes(9, (2, 5, 0), (2, 1, 1))
    assert found == {"side": 21, "dropped": 5, "miscount": 11}
    assert all(v != 9 for v in mistakes(9, (2, 5, 0), (2, 1, 1)).values())


# -- answers -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "extracted"),
    [
        ("Conclusion: fine.\nProposal: [Agree]", AGREE),
        ("Proposal: Agree", AGREE),
        ("**Proposal:** [P1: (3,3,2), P2: (2,1,1)]", SPLIT),
        ("Proposal:\n[ P1: [3, 3, 2] , P2: [2, 1, 1] ]", SPLIT),
        ("My proposal: P1: (5, 4, 3), P2: (0, 0, 0)\n5. Proposal\nProposal: [P1:(3,3,2),P2:(2,1,1)]", SPLIT),
        ("I think [Intermediate Thinking Results 2: 9]\nP1: (3, 3, 2), P2: (2, 1, 1)", SPLIT),
        ("Everything considered.\n[Agree]", AGREE),
    ],
)
def test_extract_proposal(reply: str, extracted: str) -> None:
    assert extract_proposal(reply, []).extracted == extracted


@pytest.mark.parametrize("reply", ["Proposal: I do not agree.", "Proposal: disagree", "Proposal:", "no idea"])
def test_unreadable_proposals_are_format_errors(reply: str) -> None:
    assert extract_proposal(reply, []).extracted is None


def test_the_parse_chain_calls_a_bad_sum_illegal_and_nonsense_unparsable() -> None:
    state = example().observe(1)
    assert parse_answer(GAME, state, 1, "Proposal: [P1: (3,3,2), P2: (2,1,1)]").kind == OK
    assert parse_answer(GAME, state, 1, "Proposal: [P1: (3,3,2), P2: (2,1,2)]").kind == ILLEGAL
    assert parse_answer(GAME, state, 1, "Proposal: maybe later").kind == UNPARSABLE
    first = example(offers=()).observe(0)
    assert parse_answer(GAME, first, 0, "Proposal: [Agree]").kind == ILLEGAL


# -- bots --------------------------------------------------------------------------------------------


def act(spec: str, state: BargainingState, seat: int) -> str:
    view = state.observe(seat)
    decision = asyncio.run(
        GAME.make_bot(spec, 0).act(Observation(GAME, view, seat, tuple(view.legal_actions(seat))))
    )
    assert decision.action in view.legal_actions(seat)
    return decision.action


def test_fair_opens_near_twenty_and_concedes_to_fifteen() -> None:
    state = example(offers=())
    opening = act("fair", state, 0)
    assert 20 <= value_of((0, 6, 2), _share(opening, 0)) <= 22
    assert threshold(example(offers=((1, 1, 1),) * 7)) == 15 and threshold(example(offers=())) == 20
    action, worth = fair_proposal(state, 0, 15)
    assert worth >= 15 and action in state.legal_actions(0)
    # Player2 is offered 9 by the example: far under its demand, so it counters; 28 it accepts.
    assert act("fair", example(), 1) != AGREE
    assert act("fair", example(offers=((1, 0, 3),)), 1) == AGREE


def test_greedy_accepts_fifteen_or_keeps_every_valued_item() -> None:
    assert act("greedy", example(), 1) == "P1: (0, 0, 3), P2: (5, 4, 0)"  # 9 < 15
    assert act("greedy", example(offers=((3, 1, 3),)), 1) == AGREE  # 2*2 + 5*3 = 19


def test_fair_bots_mostly_reach_a_deal() -> None:
    deals = 0
    for seed in range(40):
        state = GAME.initial_state(seed=seed)
        while not state.is_over:
            seat = state.to_act[0]
            state = state.apply(act("fair", state, seat))
        deals += state.end == "agreed"
        if state.end == "agreed":
            assert min(state.scores) >= 15
    assert deals >= 36


def _share(action: str, seat: int) -> tuple[int, ...]:
    read = read_division(action)
    assert read is not None
    return read[seat]


# -- panel -------------------------------------------------------------------------------------------


def test_panel_has_an_amount_per_item_accept_and_a_summary() -> None:
    panel = example().panel(1)
    assert [a.label for a in panel.amounts] == [
        "Books",
        "Hats",
        "Balls",
    ]
    assert [a.maximum for a in panel.amounts] == [5, 4, 3] and panel.submit == "Propose"
    (accept,) = panel.buttons
    assert accept.label == "Accept" and accept.action == AGREE and accept.enabled
    picked = {"books": 4, "hats": 4, "balls": 0}
    action = panel.action_for(picked)
    assert action == "P1: (1, 0, 3), P2: (4, 4, 0)" and action in example().legal_actions(1)
    assert panel.summary(picked).startswith("You keep items worth 28 to you")
    first = example(offers=()).panel(0)
    assert not first.buttons[0].enabled and example().panel(0) is None


# -- the simulated model -----------------------------------------------------------------------------

_PROMPT = "[Intermediate Thinking Results 1: XXX] ... [Intermediate Thinking Results 2: XXX]"


def ask(client: SimClient, state: BargainingState, seat: int, reask: str = "") -> str:
    client.set_context(SimContext(GAME, state.observe(seat), seat))
    messages = [Message("user", _PROMPT)]
    if reask:
        messages += [Message("assistant", "..."), Message("user", reask)]
    return asyncio.run(client.complete(Request(model="sim", messages=tuple(messages)))).content


def positions(n: int) -> list[BargainingState]:
    rng = random.Random(4)
    out = []
    while len(out) < n:
        state = GAME.initial_state(seed=rng.randrange(10**6))
        for _ in range(rng.randrange(12)):
            state = state.apply(rng.choice([a for a in state.legal_actions() if a != AGREE]))
            if state.is_over:
                break
        if not state.is_over:
            out.append(state)
    return out


def test_a_perfect_sim_answers_right_and_its_proposal_parses() -> None:
    for i, state in enumerate(positions(40)):
        seat = state.to_act[0]
        view = state.observe(seat)
        answer = ask(SimClient("perfect", seed=i, latency=0), state, seat)
        result = parse_answer(GAME, view, seat, answer)
        assert result.kind == OK, answer
        assert "5. **Proposal**" in answer and answer.splitlines()[-1].startswith("Proposal: [")
        checks = verify(GAME, view, seat, result.tags, {1, 2}, result.action)
        assert all(c.correct is not False for c in checks), (answer, checks)
        if result.action != AGREE:
            assert value_of(view.values[seat], _share(result.action, seat)) >= 15
        if view.offers:
            assert checks[0].correct is True


def test_a_wrong_total_is_acted_on_and_shown_in_the_sum() -> None:
    wrong = 0
    for i, state in enumerate(positions(60)):
        seat = state.to_act[0]
        view = state.observe(seat)
        if not view.offers:
            continue
        answer = ask(SimClient("perfect", seed=i, latency=0, wrong_ir_rate=1.0), state, seat)
        result = parse_answer(GAME, view, seat, answer)
        believed = int(result.tags[1])
        wrong += believed != QUESTIONS[0].truth(view, seat)
        assert f"= {believed}." in answer  # the written-out sum ends in the number it believes
        assert (result.action == AGREE) == (believed >= acceptance(view))
    assert wrong > 20


def test_a_slip_miscounts_the_opponents_share_and_is_illegal() -> None:
    for i, state in enumerate(positions(20)):
        seat = state.to_act[0]
        view = state.observe(seat)
        answer = ask(SimClient("perfect", seed=i, latency=0, illegal_rate=1.0), state, seat)
        assert parse_answer(GAME, view, seat, answer).kind == ILLEGAL, answer


def test_a_broken_answer_is_a_format_error() -> None:
    for i, state in enumerate(positions(20)):
        seat = state.to_act[0]
        answer = ask(SimClient("perfect", seed=i, latency=0, format_error_rate=1.0), state, seat)
        assert parse_answer(GAME, state.observe(seat), seat, answer).kind == UNPARSABLE, answer


def test_notes_for_people_name_low_values_and_the_stop() -> None:
    view = example().observe(1)
    assert view.annotate(AGREE, 1) == "worth only 9 of 30 to you"
    assert view.annotate("P1: (1, 0, 3), P2: (4, 4, 0)", 1) == ""  # 28 for Player2
    assert example().observe(0).annotate(AGREE, 0) == ""  # Player1's view: nothing to agree to yet
    assert example().notice() == ""
    late = example(offers=((1, 1, 1),) * 9)
    assert late.round == 10 and "10" in late.notice() and "20%" in late.notice()
    assert "Before each further round" in late.text(1)
