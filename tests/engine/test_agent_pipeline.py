"""The model harness end to end: every decision is a recorded pipeline of facts, in order."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pytest

import engine
from engine import events as ev
from engine.agent.player import ModelPlayer, make_model_player
from engine.events import Event
from engine.llm.base import Completion, Delta, LLMError, ModelUnusable, Request, RetryNotice, Usage
from engine.match import Match, MatchResult
from engine.players import Observation
from engine.roster import make_player


def play(
    game_id: str,
    specs: list[str],
    *,
    seed: int = 1,
    max_steps: int | None = None,
    game_options: dict[str, Any] | None = None,
    render: Callable[[Any], bytes] | None = None,
    **options: Any,
) -> tuple[MatchResult, list[Event], list[Any]]:
    game = engine.make(game_id, **(game_options or {}))
    players = [
        make_player(spec, game, seed=seed + i, latency=0, **options)
        if spec.startswith("sim")
        else make_player(spec, game, seed=seed + i)
        for i, spec in enumerate(specs)
    ]
    match = Match(game, players, seed=seed, max_steps=max_steps, render=render)
    events: list[Event] = []
    match.subscribe(events.append)
    result = asyncio.run(match.run())
    return result, events, players


def by_step(events: list[Event]) -> dict[int, list[Event]]:
    steps: dict[int, list[Event]] = defaultdict(list)
    for e in events:
        if e.step is not None and e.type not in (ev.SESSION_STARTED, ev.SESSION_FINISHED):
            steps[e.step].append(e)
    return steps


def first(events: list[Event], type_: str, **match: Any) -> int:
    for i, e in enumerate(events):
        if e.type == type_ and all(e.data.get(k) == v for k, v in match.items()):
            return i
    raise AssertionError(f"no {type_} {match} in {[e.type for e in events]}")


ORDER = [
    (ev.PROMPT_BUILT, {}),
    (ev.MODEL_CALL_STARTED, {"purpose": "action"}),
    (ev.ANSWER, {}),
    (ev.MODEL_CALL_FINISHED, {"purpose": "action"}),
    (ev.ACTION_PARSED, {}),
    (ev.DECISION, {}),
    (ev.ACTION_APPLIED, {}),
]


def assert_pipeline_order(step_events: list[Event]) -> None:
    positions = [first(step_events, t, **m) for t, m in ORDER]
    assert positions == sorted(positions), [step_events[i].type for i in positions]


# -- full games ---------------------------------------------------------------------------------------


def test_full_2048_game_records_the_pipeline_in_order() -> None:
    result, events, players = play("2048", ["sim:perfect"], game_options={"size": 3}, memory=3)
    assert result.status == "completed" and result.steps > 10
    steps = by_step(events)
    assert len(steps) == result.steps
    for k, step_events in steps.items():
        assert_pipeline_order(step_events)
        memory = [e for e in step_events if e.type == ev.MEMORY]
        assert len(memory) == 1 and len(memory[0].data["entries"]) == min(k, 3)
        assert first(step_events, ev.MEMORY) < first(step_events, ev.PROMPT_BUILT)
        reflections = [e for e in step_events if e.type == ev.REFLECTION]
        assert len(reflections) == (1 if k >= 1 else 0)
        if reflections:
            # Reflection is its own model call, recorded before the prompt it feeds.
            assert (
                first(step_events, ev.MODEL_CALL_STARTED, purpose="reflection")
                < first(step_events, ev.REFLECTION)
                < first(step_events, ev.PROMPT_BUILT)
            )
            prompt = step_events[first(step_events, ev.PROMPT_BUILT)].data["user"]
            assert reflections[0].data["text"] in prompt
            assert reflections[0].data["words"] < 100
        decision = step_events[first(step_events, ev.DECISION)].data
        assert decision["source"] == "model" and decision["policy"] == "answer" and decision["attempts"] == 1
    # Streaming reaches the listeners live, reasoning first, and is recorded assembled as well.
    deltas = [e for e in steps[0] if e.type == ev.MODEL_DELTA]
    assert {d.data["kind"] for d in deltas} == {"reasoning", "content"}
    answer = next(e for e in steps[0] if e.type == ev.ANSWER).data["text"]
    assert "".join(d.data["text"] for d in deltas if d.data["kind"] == "content") == answer
    # The harness configuration is recorded with the player's first prompt.
    prompts = [e for e in events if e.type == ev.PROMPT_BUILT]
    harness = prompts[0].data["harness"]
    assert harness == players[0].harness_config()
    assert "harness" not in prompts[1].data
    assert harness["memory"] == 3 and harness["reflection"] is True and harness["perception"] == "text"
    assert harness["invalid_policy"] == {"reask": "feedback", "retries": 3, "fallback": "random",
                                         "strikes": 0}
    assert harness["template"] == "prompts/2048/default.md" and len(harness["template_hash"]) == 64
    json.dumps(harness)  # manifest-ready


def test_full_tictactoe_game_verifies_intermediate_answers() -> None:
    result, events, _ = play("tictactoe", ["sim:perfect", "sim:perfect"])
    assert result.status == "completed" and result.steps >= 5
    for k, step_events in by_step(events).items():
        assert_pipeline_order(step_events)
        checks = [e.data for e in step_events if e.type == ev.VERIFICATION]
        assert [c["key"] for c in checks] == [1, 2]
        assert all(c["correct"] and c["detail"]["label"] in ("TP", "TN") for c in checks)
        assert (
            first(step_events, ev.ACTION_PARSED)
            < first(step_events, ev.VERIFICATION)
            < first(step_events, ev.DECISION)
        )
        # Each seat reflects from its own second decision on (steps 2, 3, ...).
        assert len([e for e in step_events if e.type == ev.REFLECTION]) == (1 if k >= 2 else 0)
    verified = [e.data for e in events if e.type == ev.VERIFICATION]
    assert any(c["truth"] for c in verified), "a full game should reach a position with a winning threat"


def test_wrong_intermediate_answers_are_marked_wrong() -> None:
    _, events, _ = play("tictactoe", ["sim:perfect", "sim:perfect"], wrong_ir_rate=1.0)
    checks = [e.data for e in events if e.type == ev.VERIFICATION]
    # A model does not see a winning line where a side has no mark yet (the empty board above all), so
    # such answers stay right; every other answer is wrong.
    right = [c for c in checks if c["correct"]]
    wrong = [c for c in checks if not c["correct"]]
    assert wrong and all(c["answer"] == c["truth"] == [] for c in right)
    assert {c["detail"]["label"] for c in wrong} <= {"FP", "FN", "MM"}


def test_reflection_off_means_no_reflection_calls() -> None:
    _, events, players = play("2048", ["sim:perfect"], max_steps=6, reflection=False, memory=0)
    assert not [e for e in events if e.type in (ev.REFLECTION, ev.MEMORY)]
    assert not [e for e in events if e.type == ev.MODEL_CALL_STARTED and e.data["purpose"] == "reflection"]
    assert players[0].harness_config()["reflection"] is False
    user = next(e for e in events if e.type == ev.PROMPT_BUILT and e.step == 5).data["user"]
    assert "## Previous game history" not in user and "## Reflection" not in user


# -- invalid answers and failures --------------------------------------------------------------------


def test_format_errors_are_reasked_then_fallback_is_recorded() -> None:
    result, events, _ = play(
        "2048",
        ["sim:perfect"],
        max_steps=3,
        format_error_rate=1.0,
        invalid_policy={"retries": 2, "fallback": "random"},
    )
    assert result.status == "max_steps" and result.steps == 3
    for step_events in by_step(events).values():
        failures = [e for e in step_events if e.type == ev.ACTION_UNPARSABLE]
        assert [e.data["attempt"] for e in failures] == [1, 2, 3]
        reasks = [e.data for e in step_events if e.type == ev.PROMPT_BUILT and e.data.get("reask")]
        assert len(reasks) == 2 and "could not be read" in reasks[0]["user"]
        assert reasks[-1]["conversation"][-1]["role"] == "user"
        assert not [e for e in step_events if e.type == ev.ACTION_PARSED]
        decision = next(e.data for e in step_events if e.type == ev.DECISION)
        assert decision["policy"] == "random" and decision["attempts"] == 3
        assert "random legal move" in decision["fallback_reason"]
        applied = next(e.data for e in step_events if e.type == ev.ACTION_APPLIED)
        assert applied["actions"]["0"] == decision["action"]


def test_noop_fallback_without_a_noop_action_says_so() -> None:
    _, events, _ = play(
        "2048",
        ["sim:perfect"],
        max_steps=1,
        format_error_rate=1.0,
        invalid_policy={"retries": 0, "fallback": "noop"},
    )
    decision = next(e.data for e in events if e.type == ev.DECISION)
    assert decision["policy"] == "random" and "no no-op action" in decision["fallback_reason"]


def test_forfeit_policy_ends_the_match() -> None:
    result, events, _ = play(
        "tictactoe",
        ["sim:perfect", "random"],
        format_error_rate=1.0,
        invalid_policy={"retries": 1, "fallback": "forfeit"},
    )
    assert result.status == "forfeit" and result.steps == 0 and result.winner == 1
    decision = next(e.data for e in events if e.type == ev.DECISION)
    assert decision["forfeit"] is True and decision["policy"] == "forfeit" and decision["action"] is None
    assert "forfeits" in decision["fallback_reason"]
    assert events[-1].type == ev.SESSION_FINISHED and events[-1].data["status"] == "forfeit"


def test_the_third_unusable_answer_in_a_game_forfeits_it() -> None:
    """LVLM-Playground's rule: three invalid moves in one game, counted across decisions, lose it."""
    result, events, _ = play(
        "tictactoe",
        ["sim:perfect", "random"],
        format_error_rate=0.9,
        strikes=3,
        invalid_policy={"retries": 1, "fallback": "random"},
    )
    unusable = [e for e in events if e.type in (ev.ACTION_UNPARSABLE, ev.ACTION_ILLEGAL) and e.seat == 0]
    decisions = [e.data for e in events if e.type == ev.DECISION and e.seat == 0]
    assert result.status == "forfeit" and result.winner == 1 and len(unusable) == 3
    assert decisions[-1]["policy"] == "strikes" and "3 unusable answers" in decisions[-1]["fallback_reason"]
    # They were spread over more than one decision: the count is per game, not per move.
    assert len({e.step for e in unusable}) > 1
    # Off by default: the same game plays on.
    result, events, _ = play("tictactoe", ["sim:perfect", "random"], format_error_rate=0.5,
                             invalid_policy={"retries": 1, "fallback": "random"})
    assert result.status == "completed"


def test_illegal_moves_are_recorded_and_reasked() -> None:
    _, events, _ = play(
        "tictactoe",
        ["sim:perfect", "sim:perfect"],
        illegal_rate=1.0,
        invalid_policy={"retries": 1, "fallback": "random"},
    )
    illegal = [e.data for e in events if e.type == ev.ACTION_ILLEGAL]
    assert illegal and all("taken" in d["error"] for d in illegal)


class ScriptedClient:
    """A provider that plays back a script: strings are answers, exceptions are raised."""

    provider = "fake"
    simulated = False

    def __init__(self, script: list[str | BaseException], *, repeat_last: bool = True) -> None:
        self.script = list(script)
        self.requests: list[Request] = []
        self.repeat_last = repeat_last

    async def complete(
        self,
        request: Request,
        *,
        on_delta: Callable[[Delta], None] | None = None,
        on_retry: Callable[[RetryNotice], None] | None = None,
    ) -> Completion:
        self.requests.append(request)
        item = self.script[0] if (len(self.script) == 1 and self.repeat_last) else self.script.pop(0)
        if isinstance(item, BaseException):
            if on_retry is not None:
                on_retry(RetryNotice(1, "HTTP 503", wait_s=0.0, status=503))
            raise item
        if on_delta is not None:
            on_delta(Delta("content", item))
        return Completion(item, usage=Usage(100, 20), model="fake-1")

    async def aclose(self) -> None:
        return None


def test_api_failure_is_recorded_and_the_game_continues() -> None:
    game = engine.make("2048")
    client = ScriptedClient([LLMError("service unavailable", kind="server", status=503)])
    player = make_model_player(
        "openai:fake-1", game, client=client, seed=0, invalid_policy={"retries": 1, "fallback": "random"}
    )
    # Two decisions of two failed calls each: under the five-failures-in-a-row forfeit.
    match = Match(game, [player], seed=2, max_steps=2)
    events: list[Event] = []
    match.subscribe(events.append)
    result = asyncio.run(match.run())
    assert result.status == "max_steps" and result.steps == 2
    failed = [e.data for e in events if e.type == ev.MODEL_CALL_FAILED]
    assert failed and all(d["kind"] == "server" and d["status"] == 503 for d in failed)
    assert [e for e in events if e.type == ev.MODEL_RETRY]
    decisions = [e.data for e in events if e.type == ev.DECISION]
    assert all(d["policy"] == "random" and "model call failed" in d["fallback_reason"] for d in decisions)


def test_a_recovered_call_uses_the_answer_and_the_prompt_is_what_was_sent() -> None:
    game = engine.make("2048")
    client = ScriptedClient([LLMError("timed out", kind="timeout"), "thought: merge.\n**Move:** Left"])
    player = make_model_player(
        "openai:fake-1",
        game,
        client=client,
        reflection=False,
        prices={"input_per_mtok": 1.0, "output_per_mtok": 2.0},
    )
    obs_events: list[Event] = []
    state = game.initial_state(seed=4)
    obs = Observation(game, state, 0, tuple(state.legal_actions(0)), emit=obs_events.append)
    decision = asyncio.run(player.act(obs))
    assert decision.action == "left"
    assert decision.extra["attempts"] == 2 and decision.extra["policy"] == "answer"
    built = next(e.data for e in obs_events if e.type == ev.PROMPT_BUILT)
    sent = client.requests[-1].messages
    assert (sent[0].text, sent[1].text) == (built["system"], built["user"])
    finished = next(e.data for e in obs_events if e.type == ev.MODEL_CALL_FINISHED)
    assert finished["cost_usd"] == pytest.approx((100 * 1.0 + 20 * 2.0) / 1e6)
    parsed = next(e.data for e in obs_events if e.type == ev.ACTION_PARSED)
    assert parsed["extracted"] == "left" and parsed["matched"] == "left"


def test_hopeless_errors_forfeit_without_retrying() -> None:
    game = engine.make("2048")
    client = ScriptedClient([LLMError("malformed request", kind="bad_request", status=400)])
    player = make_model_player("openai:x", game, client=client, reflection=False)
    state = game.initial_state(seed=1)
    obs = Observation(game, state, 0, tuple(state.legal_actions(0)))
    decision = asyncio.run(player.act(obs))
    assert len(client.requests) == 1
    assert decision.forfeit and decision.action is None and decision.extra["policy"] == "forfeit"
    assert "bad_request" in decision.extra["fallback_reason"]


@pytest.mark.parametrize(("kind", "status"), [("auth", 401), ("auth", 403), ("not_found", 404)])
def test_a_rejected_key_or_unknown_model_is_a_run_error_not_a_forfeit(kind: str, status: int) -> None:
    game = engine.make("2048")
    client = ScriptedClient([LLMError("bad key", kind=kind, status=status)])
    player = make_model_player("openai:x", game, client=client, reflection=False)
    state = game.initial_state(seed=1)
    obs = Observation(game, state, 0, tuple(state.legal_actions(0)))
    with pytest.raises(ModelUnusable, match="bad key"):
        asyncio.run(player.act(obs))
    assert len(client.requests) == 1


def test_a_silent_server_ends_the_decision_after_two_timed_out_calls() -> None:
    game = engine.make("2048")
    client = ScriptedClient([LLMError("no answer in time", kind="timeout")])
    player = make_model_player(
        "openai:x", game, client=client, reflection=False, invalid_policy={"retries": 5, "fallback": "random"}
    )
    state = game.initial_state(seed=1)
    decision = asyncio.run(player.act(Observation(game, state, 0, tuple(state.legal_actions(0)))))
    assert len(client.requests) == 2
    assert decision.extra["policy"] == "random" and "timeout" in decision.extra["fallback_reason"]


def test_a_torn_stream_keeps_its_partial_text() -> None:
    game = engine.make("2048")
    client = ScriptedClient([LLMError("stream cut", kind="stream", partial="thought: merge left")])
    player = make_model_player(
        "openai:x", game, client=client, reflection=False, invalid_policy={"retries": 0, "fallback": "random"}
    )
    state = game.initial_state(seed=1)
    recorded: list[Any] = []
    obs = Observation(game, state, 0, tuple(state.legal_actions(0)), emit=recorded.append)
    asyncio.run(player.act(obs))
    failed = [e.data for e in recorded if e.type == ev.MODEL_CALL_FAILED]
    assert failed and failed[0]["partial"] == "thought: merge left"


# -- budget -------------------------------------------------------------------------------------------


def test_budget_soft_cap_warns_and_hard_cap_forfeits() -> None:
    # About 1000 tokens per call at $1000 per million tokens: roughly $1 per call.
    result, events, players = play(
        "2048",
        ["sim:perfect"],
        max_steps=50,
        reflection=False,
        prices={"input_per_mtok": 1000.0, "output_per_mtok": 1000.0},
        budget_soft_usd=1.5,
        budget_hard_usd=3.0,
    )
    assert result.status == "forfeit" and 1 < result.steps < 50
    budget = [e.data for e in events if e.type == ev.ERROR and e.data.get("where") == "budget"]
    assert [d["cap"] for d in budget] == ["soft", "hard"]
    assert players[0].spent_usd >= 3.0
    last = [e.data for e in events if e.type == ev.DECISION][-1]
    assert last["forfeit"] and last["policy"] == "budget" and "hard budget" in last["fallback_reason"]


# -- perception ---------------------------------------------------------------------------------------


def test_image_perception_sends_the_rendered_png() -> None:
    png = b"\x89PNG\r\n\x1a\nfake"
    _, events, players = play(
        "2048", ["sim:perfect"], max_steps=1, perception="both", render=lambda s, **_: png
    )
    built = next(e for e in events if e.type == ev.PROMPT_BUILT)
    assert built.blobs["image"].data == png and built.data["images"] == 1
    assert built.data["perception"] == {"requested": "both", "used": "both"}
    assert "Tile" in built.data["user"]  # "both" keeps the coordinate table


def test_image_perception_without_renderer_falls_back_to_text_and_says_why() -> None:
    _, events, _ = play("2048", ["sim:perfect"], max_steps=1, perception="image")
    built = next(e for e in events if e.type == ev.PROMPT_BUILT)
    assert not built.blobs and built.data["perception"]["used"] == "text"
    assert "renderer" in built.data["perception"]["note"]


# -- cancellation -------------------------------------------------------------------------------------


class HangingClient(ScriptedClient):
    async def complete(self, request: Request, **kw: Any) -> Completion:
        on_delta = kw.get("on_delta")
        if on_delta is not None:
            on_delta(Delta("content", "thought: hmm"))
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


def test_cancellation_propagates_without_half_written_answers() -> None:
    game = engine.make("2048")
    player = make_model_player("openai:x", game, client=HangingClient([]), reflection=False)
    state = game.initial_state(seed=1)
    recorded: list[Event] = []
    obs = Observation(game, state, 0, tuple(state.legal_actions(0)), emit=recorded.append)

    async def scenario() -> None:
        task = asyncio.create_task(player.act(obs))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    types = [e.type for e in recorded]
    assert ev.ANSWER not in types and ev.DECISION not in types and ev.MODEL_CALL_FINISHED not in types
    assert recorded[-1].type == ev.MODEL_CALL_FAILED and recorded[-1].data["kind"] == "cancelled"


# -- construction -------------------------------------------------------------------------------------


def test_make_model_player_validates_options_and_labels_sim() -> None:
    game = engine.make("2048")
    player = make_model_player("sim", game, seed=1)
    assert isinstance(player, ModelPlayer) and player.kind == "model"
    assert player.label == "Simulated model (offline)" and player.client.simulated
    careless = make_model_player("sim:careless", game, seed=1)
    assert careless.harness_config()["sim"]["format_error_rate"] > 0.05
    with pytest.raises(ValueError, match="unknown model option"):
        make_model_player("sim", game, perceptoin="text")
    with pytest.raises(ValueError, match="sim:careless"):
        make_model_player("sim:nonsense", game)
    with pytest.raises(ValueError, match="fallback"):
        make_model_player("sim", game, invalid_policy={"retries": 1, "fallback": "pray"})
    with pytest.raises(ValueError, match="compact"):
        make_model_player("sim", game, prompt_variant="nope")
    compact = make_model_player("sim", game, prompt_variant="compact")
    assert compact.harness_config()["template"] == "prompts/2048/compact.md"
