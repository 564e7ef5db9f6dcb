"""The step model reads sessions the engine recorded: real sim matches on tic-tac-toe and 2048.

Every expectation is taken from the recorded events themselves, so a change in what the harness
records (a renamed key, a re-ask filed under another call) breaks these tests rather than passing
against a hand-made fixture.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

import sessions
from engine import events as ev
from sessions.steps import StepModel, model_steps


@dataclasses.dataclass
class Recording:
    """A recorded match: the session read back, and every record as a panel receives it live."""

    session: sessions.Session
    #: The match's events in emission order: the written events (attachments as references) with the
    #: live-only ``model_delta`` stream in between, as the app's controller forwards them.
    live: list[dict[str, Any]]

    def live_for(self, index: int) -> list[dict[str, Any]]:
        """The live records of decision ``index``."""
        step = self.step(index)
        return [r for r in self.live if r.get("step") == step and r["type"] != ev.SESSION_STARTED]

    def step(self, index: int) -> int:
        """The step number of decision ``index`` as its events carry it."""
        return int(self.session.events_for_step(index)[0]["step"])

    def find(self, predicate: Callable[[list[dict[str, Any]]], bool], what: str) -> int:
        """The first decision whose recorded events satisfy ``predicate``."""
        for index in range(self.session.num_steps):
            if predicate(self.session.events_for_step(index)):
                return index
        raise AssertionError(f"the recorded match has no step with {what}")


def record_sim_match(
    root: Path,
    game_id: str,
    specs: Sequence[str],
    *,
    seed: int,
    max_steps: int | None = None,
    render: Callable[..., bytes] | None = None,
    **model_options: Any,
) -> Recording:
    """Play a real match (the simulated model without latency) and read its session back."""
    from desktop.episode import start_episode  # the wiring the app and the CLI record matches with

    episode = start_episode(
        game_id, specs, root=root, seed=seed, max_steps=max_steps, render=render,
        model_options={"latency": 0, **model_options},
    )
    emitted: list[ev.Event] = []
    episode.match.subscribe(emitted.append)
    asyncio.run(episode.run())
    session = sessions.load_session(episode.path)
    assert not session.warnings, session.warnings
    written = iter(session.events)
    live = []
    for event in emitted:
        if event.type == ev.MODEL_DELTA:
            live.append(
                {"type": event.type, "step": event.step, "seat": event.seat, "call": event.call,
                 "data": dict(event.data)}
            )
        else:
            line = next(written)
            assert line["type"] == event.type
            live.append(line)
    return Recording(session, live)


def of_type(records: Sequence[dict[str, Any]], *types: str) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] in types]


def has_mixed_checks(records: list[dict[str, Any]]) -> bool:
    verdicts = {r["data"]["correct"] for r in of_type(records, ev.VERIFICATION)}
    return verdicts == {True, False}


@pytest.fixture(scope="module")
def tictactoe(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    """The simulated model (X, wrong intermediate answers half the time) against minimax."""
    root = tmp_path_factory.mktemp("ttt")
    return record_sim_match(root, "tictactoe", ["sim", "minimax"], seed=3, wrong_ir_rate=0.5)


@pytest.fixture(scope="module")
def careless(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    """A model whose every answer breaks the format: re-asks, then the random fallback."""
    return record_sim_match(
        tmp_path_factory.mktemp("fmt"), "tictactoe", ["sim", "minimax"], seed=3, format_error_rate=1.0
    )


@pytest.fixture(scope="module")
def g2048(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    """2048 with a server that fails half the calls."""
    root = tmp_path_factory.mktemp("2048")
    return record_sim_match(root, "2048", ["sim"], seed=3, max_steps=6, api_error_rate=0.5)


@pytest.mark.parametrize("name", ["tictactoe", "g2048"])
def test_each_recorded_step_folds_into_samples_that_keep_the_records(
    name: str, request: pytest.FixtureRequest
) -> None:
    rec: Recording = request.getfixturevalue(name)
    session = rec.session
    assert model_steps(session)
    for index in range(session.num_steps):
        records = session.events_for_step(index)
        model = StepModel.from_session(session, index)
        assert model.step == rec.step(index)
        applied = of_type(records, ev.ACTION_APPLIED)[0]["data"]
        assert model.applied == applied
        (decision,) = of_type(records, ev.DECISION)
        sample = model.decided()
        assert sample is not None and sample.key == (decision["seat"], decision["call"])
        assert sample.decision == decision["data"]
        assert model.default_key() == sample.key
        assert model.executed(sample) == applied["actions"][str(decision["seat"])]
        assert model.legal() == of_type(records, ev.TURN_STARTED)[0]["data"]["legal"][str(decision["seat"])]
        assert (index in model_steps(session)) == sample.is_model
        if not sample.is_model:
            assert decision["data"]["source"] == "bot" and sample.decision.get("values")
            continue
        prompts = of_type(records, ev.PROMPT_BUILT)
        assert sample.prompt == prompts[0]["data"]
        assert sample.reasks == [p["data"] for p in prompts[1:]]
        answers = [r["data"]["text"] for r in of_type(records, ev.ANSWER)]
        assert sample.answer_parts == answers and sample.answer.startswith("".join(answers[:1]))
        parses = of_type(records, *(ev.ACTION_PARSED, ev.ACTION_UNPARSABLE, ev.ACTION_ILLEGAL))
        assert sample.attempts == [(r["type"], r["data"]) for r in parses]
        assert sample.verifications == [r["data"] for r in of_type(records, ev.VERIFICATION)]
        finished = [r["data"] for r in of_type(records, ev.MODEL_CALL_FINISHED)]
        assert sample.usage()["input_tokens"] == sum(f["input_tokens"] for f in finished)
        assert sample.usage()["cost_usd"] == 0.0 and sample.simulated
        assert not sample.streaming
        reflections = of_type(records, ev.REFLECTION)
        assert sample.reflection == (reflections[0]["data"]["text"] if reflections else None)
        memory = of_type(records, ev.MEMORY)
        assert sample.memory == (memory[0]["data"]["entries"] if memory else None)


def test_verifications_keep_the_engines_verdicts(tictactoe: Recording) -> None:
    index = tictactoe.find(has_mixed_checks, "a right and a wrong intermediate answer")
    sample = StepModel.from_session(tictactoe.session, index).decided()
    assert sample is not None
    verdicts = [v["correct"] for v in sample.verifications]
    labels = [v["detail"]["label"] for v in sample.verifications]
    assert True in verdicts and False in verdicts
    assert all(label in ("TP", "TN") for label, ok in zip(labels, verdicts, strict=True) if ok)
    assert all(label not in ("TP", "TN") for label, ok in zip(labels, verdicts, strict=True) if not ok)


def test_unusable_answers_are_reasked_within_the_call_then_the_fallback_plays(careless: Recording) -> None:
    index = careless.find(lambda r: bool(of_type(r, ev.PROMPT_BUILT)), "a model step")
    model = StepModel.from_session(careless.session, index)
    (sample,) = [s for s in model.ordered() if s.is_model]
    assert sample.reasks and all(r["reask"] for r in sample.reasks)
    assert [r["attempt"] for r in sample.reasks] == list(range(2, len(sample.reasks) + 2))
    assert {kind for kind, _ in sample.attempts} == {ev.ACTION_UNPARSABLE}
    assert len(sample.answer_parts) == len(sample.attempts) == len(sample.reasks) + 1
    assert sample.failed() and sample.decision is not None
    assert sample.decision["policy"] == "random" and sample.decision["fallback_reason"]
    assert sample.chosen() == sample.decision["action"] == model.executed(sample)
    assert model.why_differs(sample) == "fallback policy random"


def test_failed_calls_are_kept_beside_the_answer_that_followed(g2048: Recording) -> None:
    index = g2048.find(
        lambda r: any(f["data"]["purpose"] == "action" for f in of_type(r, ev.MODEL_CALL_FAILED)),
        "a failed action call",
    )
    sample = StepModel.from_session(g2048.session, index).decided()
    assert sample is not None
    assert sample.failures and {f["kind"] for f in sample.failures} == {"server"}
    assert len(sample.started) == len(sample.finished) + len(sample.failures)
    assert not sample.streaming and sample.failed()
    assert sample.chosen() is not None  # a later attempt answered


def test_the_live_stream_folds_into_the_step_that_was_recorded(g2048: Recording) -> None:
    index = g2048.find(lambda r: bool(of_type(r, ev.REFLECTION)), "a reflection")
    recorded = StepModel.from_session(g2048.session, index).decided()
    assert recorded is not None
    live = StepModel(g2048.step(index))
    reflection_stream = ""
    for record in g2048.live_for(index):
        data = record["data"]
        changed = live.add(record)
        assert changed == (record["type"] != ev.MODEL_DELTA)
        sample = live.samples.get(live.latest) if live.latest else None
        if record["type"] == ev.MODEL_DELTA:
            assert sample is not None and sample.streaming
            if data["purpose"] == "reflection":
                reflection_stream += data["text"]
                assert sample.reflection_live == reflection_stream and sample.answer == ""
            elif data["kind"] == "reasoning":
                assert sample.reasoning_live.endswith(data["text"])
            else:
                assert sample.answer_live.endswith(data["text"])
    sample = live.decided()
    assert sample is not None and sample.key == recorded.key
    assert reflection_stream and sample.reflection == recorded.reflection
    assert (sample.reasoning, sample.answer) == (recorded.reasoning, recorded.answer)
    assert sample.reasoning_live == sample.answer_live == sample.reflection_live == ""
    assert sample.attempts == recorded.attempts and not sample.streaming
