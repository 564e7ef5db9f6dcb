"""Courtroom: reading actions out of model replies (property tests), and the simulated model's
reasoning, mistakes and reflections."""

from __future__ import annotations

import asyncio
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.agent.parse import parse_answer
from engine.core import IllegalActionError, InvalidActionError
from engine.games.courtroom import CourtState, key_actions, load_bundled
from engine.games.courtroom.answers import extract_action
from engine.games.courtroom.sim import CourtroomSim
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import Analysis, SimContext
from engine.players import StepRecord

GAME = engine.make("courtroom")


def reachable(seed: int) -> CourtState:
    """A state partway through the cases: some of the key played, then a few free moves."""
    rng = random.Random(seed)
    actions = [a for case in load_bundled() for a in key_actions(case)]
    state = GAME.initial_state(seed=0)
    for action in actions[: rng.randrange(len(actions))]:
        state = state.apply(action)
    for _ in range(rng.randrange(4)):
        moves = [a for a in state.legal_actions() if a in ("next", "back", "press")] or state.legal_actions()
        state = state.apply(rng.choice(moves))
    assert isinstance(state, CourtState)
    return state


STATES = [reachable(seed) for seed in range(40)]
states = st.sampled_from(STATES)


def _decorate(action: str, style: int) -> str:
    return [
        action,
        action.upper(),
        f"  {action}.  ",
        f"**{action}**",
        f"`{action}`",
        action.replace(" ", "  "),
    ][style]


@settings(max_examples=200, deadline=None)
@given(states, st.data(), st.integers(0, 5))
def test_every_legal_action_reads_back_as_itself(state: CourtState, data: st.DataObject, style: int) -> None:
    action = data.draw(st.sampled_from(state.legal_actions()))
    assert GAME.parse_action(_decorate(action, style), state) == action


@settings(max_examples=300, deadline=None)
@given(states, st.text(max_size=60))
def test_any_text_is_an_action_or_a_clear_error(state: CourtState, text: str) -> None:
    try:
        action = GAME.parse_action(text, state)
    except (InvalidActionError, IllegalActionError) as exc:
        assert str(exc)
    else:
        assert action in state.legal_actions()


@settings(max_examples=100, deadline=None)
@given(states)
def test_evidence_is_read_by_number_and_by_name(state: CourtState) -> None:
    if state.phase != "cross":
        return
    for item in state.evidence():
        action = f"present {item.label}"
        assert GAME.parse_action(f"Objection! I present the {item.name.lower()}.", state) == action
        assert GAME.parse_action(f"present {item.number}", state) == action
        assert GAME.parse_action(f"Presented_Evidence {item.label}", state) == action


def test_press_names_only_the_current_statement() -> None:
    state = GAME.initial_state(seed=0).apply("next")
    assert GAME.parse_action("press statement 2", state) == "press"
    try:
        GAME.parse_action("press statement 4", state)
    except IllegalActionError as exc:
        assert "current statement (2)" in str(exc)
    else:
        raise AssertionError("pressing another statement was accepted")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_the_extractor_never_raises(text: str) -> None:
    found = extract_action(text, ["next", "press"])
    assert found.extracted is not None or found.error


@settings(max_examples=100, deadline=None)
@given(states, st.data(), st.text(alphabet=st.characters(blacklist_characters="\n\r"), max_size=80))
def test_an_answer_in_the_prompt_format_plays_its_action(
    state: CourtState, data: st.DataObject, thought: str
) -> None:
    action = data.draw(st.sampled_from(state.legal_actions()))
    reply = f"thought: {thought}\naction: {action}"
    result = parse_answer(GAME, state, 0, reply)
    assert result.action == action


def test_the_extractor_falls_back_to_the_last_action_named() -> None:
    found = extract_action("I will move on, then maybe press. Final: present E3", ["next"])
    assert found.extracted == "present E3" and "no 'action:' line" in found.reason
    assert extract_action("Presented_Evidence: E2", []).extracted == "present E2"
    assert extract_action("action:", []).error


# -- the simulated model -------------------------------------------------------------------------


def ask(client: SimClient, state: CourtState, history: tuple[StepRecord, ...] = ()) -> tuple[str, str]:
    client.set_context(SimContext(GAME, state, 0, history))
    request = Request(model="sim", messages=(Message("system", "Defend."), Message("user", "Your action?")))
    completion = asyncio.run(client.complete(request))
    return completion.reasoning, completion.content


def action_of(answer: str) -> str:
    return answer.rsplit("action:", 1)[1].strip()


def test_at_the_contradiction_the_sim_names_the_statement_and_the_evidence() -> None:
    state = GAME.initial_state(seed=0)
    for action in ("next", "next", "next"):
        state = state.apply(action)
    client = SimClient("perfect", seed=1, latency=0)
    reasoning, answer = ask(client, state)
    assert action_of(answer) == "present E2"
    assert "full moon" in answer and "E2 Harbour almanac" in answer and "new moon" in answer
    assert "Cause:" in reasoning and "Effect: present E2 at statement 4" in reasoning


def test_without_mistakes_the_sim_solves_every_case() -> None:
    client = SimClient("perfect", seed=2, latency=0)
    state = GAME.initial_state(seed=0)
    for _ in range(400):
        if state.is_over:
            break
        _, answer = ask(client, state)
        state = state.apply(GAME.parse_action(action_of(answer), state))
    assert state.phase == "won" and state.penalties == 0 and state.score == 33


def test_the_sim_sometimes_objects_wrongly_and_explains_why_it_believed_it() -> None:
    state = GAME.initial_state(seed=0)
    for action in ("next", "next", "next"):
        state = state.apply(action)
    wrong = 0
    for seed in range(60):
        client = SimClient(
            "default", seed=seed, latency=0, wrong_ir_rate=0.5, illegal_rate=0.0, format_error_rate=0.0
        )
        _, answer = ask(client, state)
        action = action_of(answer)
        assert action in state.legal_actions()
        if action != "present E2":
            wrong += 1
            assert action.startswith("present") and "seems to tell a different story" in answer
    assert 10 < wrong < 50


def test_the_sims_slips_are_illegal_actions_it_believes_in() -> None:
    state = GAME.initial_state(seed=0)
    seen = set()
    for seed in range(40):
        client = SimClient(
            "default", seed=seed, latency=0, illegal_rate=1.0, format_error_rate=0.0, wrong_ir_rate=0.0
        )
        _, answer = ask(client, state)
        action = action_of(answer)
        assert action not in state.legal_actions()
        seen.add(action)
        assert re.search(r"Cause: .+ Evidence: .+ Effect: ", answer)
    assert "back" in seen


def test_the_reflection_reads_the_last_step() -> None:
    behaviour = CourtroomSim(GAME)
    before = GAME.initial_state(seed=0)
    after = before.apply("present E1")
    text = behaviour.reflection(
        SimContext(GAME, after, 0, (StepRecord(0, before, {0: "present E1"}, (0.0,), after),))
    )
    assert "overruled" in text and "4 left" in text
    moved = before.apply("next")
    text = behaviour.reflection(
        SimContext(GAME, moved, 0, (StepRecord(0, before, {0: "next"}, (0.0,), moved),))
    )
    assert "statement 2 of 8" in text and "1 action without" in text


def test_the_sims_analysis_is_the_answer_key() -> None:
    behaviour = CourtroomSim(GAME)
    state = GAME.initial_state(seed=0)
    analysis = asyncio.run(behaviour.analyse(SimContext(GAME, state, 0), random.Random(0), "attorney"))
    assert isinstance(analysis, Analysis) and analysis.best == "next" and analysis.source == "attorney"


def test_the_sim_sometimes_hears_a_witness_out_before_moving_on() -> None:
    state = GAME.initial_state(seed=0)
    actions = []
    for seed in range(40):
        _, answer = ask(SimClient("perfect", seed=seed, latency=0), state)
        actions.append(action_of(answer))
        if actions[-1] == "press":
            assert "may say more under pressure" in answer
    assert set(actions) == {"next", "press"} and 3 < actions.count("press") < 25


def test_every_slip_is_written_and_illegal_in_every_phase() -> None:
    behaviour = CourtroomSim(GAME)
    for index, state in enumerate(STATES):
        if state.is_over:
            continue
        ctx = SimContext(GAME, state, 0)
        for seed in range(5):
            action, kind = behaviour.slip(
                ctx, Analysis("next", {}, "attorney"), random.Random(index * 10 + seed)
            )
            assert kind == "illegal" and action not in state.legal_actions()
            assert behaviour.thought(ctx, Analysis(action, {}, "attorney"), action, kind).startswith("Cause:")
