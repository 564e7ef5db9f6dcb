"""A model whose provider keeps failing forfeits after N failed calls in a row, and a silent server
cannot hold a run for long: retries and reflection calls do not multiply the wait."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import engine
from engine import events as ev
from engine.agent.player import HarnessConfig, make_model_player
from engine.events import Event
from engine.match import Match
from engine.players import Observation
from tests.loopback import Answer, LoopbackServer, Slow


def run_match(game_id: str, players: list[Any], *, max_steps: int = 30) -> tuple[Any, list[Event]]:
    game = players[0].game
    match = Match(game, players, seed=3, max_steps=max_steps)
    events: list[Event] = []
    match.subscribe(events.append)
    return asyncio.run(match.run()), events


def test_the_simulated_model_forfeits_after_five_failed_calls_in_a_row() -> None:
    game = engine.make("2048")
    player = make_model_player("sim", game, seed=1, latency=0, api_error_rate=1.0)
    assert player.harness_config()["max_failed_calls"] == 5
    result, events = run_match("2048", [player])
    failed = [e.data for e in events if e.type == ev.MODEL_CALL_FAILED]
    assert len(failed) == 5 and [d["failed_in_a_row"] for d in failed] == [1, 2, 3, 4, 5]
    decisions = [e.data for e in events if e.type == ev.DECISION]
    assert decisions[-1]["policy"] == "failed_calls" and decisions[-1]["forfeit"] is True
    assert "5 model calls failed in a row" in decisions[-1]["fallback_reason"]
    assert "forfeits" in decisions[-1]["fallback_reason"]
    assert result.status == "forfeit"


def test_the_limit_is_an_option_and_a_successful_call_resets_the_count() -> None:
    game = engine.make("tictactoe")
    player = make_model_player("sim:perfect", game, seed=2, latency=0, max_failed_calls=2)
    assert player.config.max_failed_calls == 2 and player.harness_config()["max_failed_calls"] == 2
    state = game.initial_state(seed=1)
    obs = Observation(game, state, 0, tuple(state.legal_actions(0)))
    player.failed_calls = 1  # one failure before: the successful call clears it
    decision = asyncio.run(player.act(obs))
    assert decision.extra["policy"] == "answer" and player.failed_calls == 0
    player.client.rates["api_error_rate"] = 1.0  # type: ignore[attr-defined]
    decision = asyncio.run(player.act(obs))
    assert decision.forfeit and decision.extra["policy"] == "failed_calls" and decision.extra["attempts"] == 2
    with pytest.raises(ValueError, match="max_failed_calls"):
        HarnessConfig(max_failed_calls=-1)


def test_zero_turns_the_rule_off() -> None:
    game = engine.make("2048")
    player = make_model_player("sim", game, seed=1, latency=0, api_error_rate=1.0, max_failed_calls=0)
    result, events = run_match("2048", [player], max_steps=3)
    assert result.status == "max_steps"
    assert all(e.data["policy"] == "random" for e in events if e.type == ev.DECISION)


def test_a_silent_server_gets_six_requests_and_the_seat_forfeits(loopback: LoopbackServer) -> None:
    """Five failed calls; only the first lets the transport retry its timeout (six requests in all),
    and no reflection call is made while the server is failing."""
    loopback.default = Slow(delay_s=30)
    game = engine.make("tictactoe")
    model = make_model_player(
        f"local:loop-model@{loopback.openai_base_url}", game, seed=1, timeout_s=0.2, reflection=True
    )
    other = make_model_player("sim:perfect", game, seed=2, latency=0)
    result, events = run_match("tictactoe", [model, other])
    started = [e.data for e in events if e.type == ev.MODEL_CALL_STARTED and e.seat == 0]
    assert len(started) == 5 and all(d["purpose"] == "action" for d in started)
    failed = [e.data for e in events if e.type == ev.MODEL_CALL_FAILED and e.seat == 0]
    assert len(failed) == 5 and all(d["kind"] == "timeout" for d in failed)
    assert len(loopback.posts()) == 6
    decision = [e.data for e in events if e.type == ev.DECISION and e.seat == 0][-1]
    assert decision["policy"] == "failed_calls" and decision["forfeit"]
    assert result.status == "forfeit" and result.winner == 1


def test_a_failing_reflection_counts_and_is_not_retried_on_timeout(loopback: LoopbackServer) -> None:
    """A server that answers once, then goes silent: the reflection call's failure counts, and the
    next decisions make only action calls, each a single request."""
    loopback.script(Answer(content="1. Observations\nChosen Move: (1,1)"))
    loopback.default = Slow(delay_s=30)
    game = engine.make("tictactoe")
    model = make_model_player(
        f"local:loop-model@{loopback.openai_base_url}", game, seed=1, timeout_s=0.2, max_failed_calls=3
    )
    other = make_model_player("sim:perfect", game, seed=2, latency=0)
    result, events = run_match("tictactoe", [model, other])
    started = [e.data["purpose"] for e in events if e.type == ev.MODEL_CALL_STARTED and e.seat == 0]
    assert started == ["action", "reflection", "action", "action"]
    assert len(loopback.posts()) == 1 + 2 + 1 + 1
    decision = [e.data for e in events if e.type == ev.DECISION and e.seat == 0][-1]
    assert decision["policy"] == "failed_calls" and result.status == "forfeit"
