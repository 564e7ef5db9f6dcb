"""AnthropicClient against the loopback server: thinking, images, retries, failures, keys."""

from __future__ import annotations

import base64
import json
import time
import traceback
from typing import Any

import pytest

from engine.llm import pricing
from engine.llm.anthropic_client import AnthropicClient
from engine.llm.base import Completion, Delta, ImagePart, LLMError, Message, Request, RetryNotice
from tests.engine.llm_helpers import cancel_once_sent, complete_with, disconnects_seen, failure_of, run
from tests.loopback import Answer, Fail, Garbage, LoopbackServer, Slow, Torn

KEY = "sk-ant-test-0123456789abcdef"
MODEL = "claude-haiku-4-5"


def client_for(server: LoopbackServer, **kw: Any) -> AnthropicClient:
    kw.setdefault("api_key", KEY)
    kw.setdefault("max_retry_wait_s", 0.01)
    return AnthropicClient(base_url=server.anthropic_base_url, **kw)


def ask(text: str = "Your move?", **kw: Any) -> Request:
    return Request(model=MODEL, messages=(Message("system", "You play chess."), Message("user", text)), **kw)


def complete(server: LoopbackServer, request: Request | None = None, **kw: Any) -> Completion:
    return complete_with(client_for(server, **kw), request or ask())


def failure(server: LoopbackServer, request: Request | None = None, **kw: Any) -> LLMError:
    return failure_of(client_for(server, **kw), request or ask())


def test_thinking_and_text_stream_in_order(loopback: LoopbackServer) -> None:
    loopback.script(
        Answer("e2-e4", reasoning="Open with the king's pawn.", pieces=3, input_tokens=900, output_tokens=300,
               reasoning_tokens=200)
    )
    deltas: list[Delta] = []
    result = run(client_for(loopback), lambda c: c.complete(ask(thinking=True), on_delta=deltas.append))
    assert [d.kind for d in deltas] == ["reasoning"] * 3 + ["content"] * 3
    assert result.reasoning == "Open with the king's pawn."
    assert result.content == "e2-e4"
    assert result.stop_reason == "stop"
    usage = result.usage
    assert (usage.input_tokens, usage.output_tokens, usage.reasoning_tokens) == (900, 300, 200)
    assert result.model == MODEL and result.retries == 0 and result.latency_ms > 0
    assert pricing.cost(MODEL, result.usage, provider="anthropic") == pytest.approx((900 * 1 + 300 * 5) / 1e6)


def test_request_on_the_wire_with_thinking(loopback: LoopbackServer) -> None:
    png = b"\x89PNG\r\n\x1a\nboard"
    request = Request(
        model=MODEL,
        messages=(
            Message("system", "Rules part one."),
            Message("system", "Rules part two."),
            Message("user", "Board:", (ImagePart(png),)),
        ),
        temperature=0.3,
        max_tokens=512,
        thinking=True,
    )
    complete(loopback, request)
    sent = loopback.posts()[0]
    assert sent.path == "/v1/messages"
    body = sent.body
    assert body["system"] == "Rules part one.\n\nRules part two."
    assert all(m["role"] != "system" for m in body["messages"])
    blocks = body["messages"][0]["content"]
    assert blocks[0]["type"] == "image"
    assert blocks[0]["source"]["media_type"] == "image/png"
    assert base64.b64decode(blocks[0]["source"]["data"]) == png
    assert blocks[1] == {"type": "text", "text": "Board:"}
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] == 2048 + 512  # raised above the budget
    assert "temperature" not in body  # the current Messages API has no sampling parameters
    assert body["stream"] is True
    assert KEY not in sent.text
    assert any(KEY in v for k, v in sent.headers.items() if k in ("x-api-key", "authorization"))


def test_thinking_budget_bounds_and_no_thinking(loopback: LoopbackServer) -> None:
    complete(loopback, ask(thinking=True, thinking_budget=100, max_tokens=4000))
    complete(loopback, ask(temperature=0.4, max_tokens=200))
    thinking, plain = (r.body for r in loopback.posts())
    assert thinking["thinking"]["budget_tokens"] == 1024  # the API's minimum
    assert thinking["max_tokens"] == 4000  # already above the budget
    assert "thinking" not in plain and "temperature" not in plain and plain["max_tokens"] == 200


def test_rate_limit_retry_is_visible(loopback: LoopbackServer) -> None:
    loopback.script(Fail(429, {"retry-after": "0.05"}), Answer("d4"))
    notices: list[RetryNotice] = []
    client = client_for(loopback, max_retry_wait_s=None)
    result = run(client, lambda c: c.complete(ask(), on_retry=notices.append))
    assert result.content == "d4" and result.retries == 1
    assert [(n.attempt, n.status) for n in notices] == [(1, 429)]
    assert notices[0].wait_s == pytest.approx(0.05)
    assert "rate limited" in notices[0].reason


def test_overloaded_persistently_is_a_server_error(loopback: LoopbackServer) -> None:
    loopback.script(Fail(529), Fail(529), Fail(529))
    notices: list[RetryNotice] = []
    with pytest.raises(LLMError) as info:
        run(client_for(loopback), lambda c: c.complete(ask(), on_retry=notices.append))
    assert (info.value.kind, info.value.status) == ("server", 529)
    assert [n.attempt for n in notices] == [1, 2]
    assert len(loopback.posts()) == 3


def test_auth_failure(loopback: LoopbackServer) -> None:
    loopback.script(Fail(401))
    err = failure(loopback)
    assert (err.kind, err.status) == ("auth", 401)


def test_timeout_fails_quickly(loopback: LoopbackServer) -> None:
    loopback.script(Slow(10))
    start = time.monotonic()
    err = failure(loopback, max_retries=0, timeout_s=0.3)
    assert err.kind == "timeout"
    assert time.monotonic() - start < 3


def test_timeout_retry_is_visible(loopback: LoopbackServer) -> None:
    loopback.script(Slow(10), Answer("c4"))
    notices: list[RetryNotice] = []
    client = client_for(loopback, max_retries=1, timeout_s=0.3)
    result = run(client, lambda c: c.complete(ask(), on_retry=notices.append))
    assert result.content == "c4"
    assert [n.reason for n in notices] == ["timeout"]


def test_a_timeout_is_retried_at_most_once_per_call(loopback: LoopbackServer) -> None:
    loopback.script(*[Slow(10)] * 6)
    notices: list[RetryNotice] = []
    client = client_for(loopback, max_retries=5, timeout_s=0.3)
    start = time.monotonic()
    with pytest.raises(LLMError) as info:
        run(client, lambda c: c.complete(ask(), on_retry=notices.append))
    assert info.value.kind == "timeout"
    assert [n.reason for n in notices] == ["timeout"]
    assert len(loopback.posts()) == 2
    assert time.monotonic() - start < 1.5


@pytest.mark.parametrize("mode", ["reset", "eof"])
def test_torn_stream_keeps_partial_text(loopback: LoopbackServer, mode: str) -> None:
    loopback.script(Torn("Nf3 looks", reasoning="consider", mode=mode))
    err = failure(loopback)
    assert err.kind == "stream"
    assert err.partial == "Nf3 looks"


def test_garbage_is_an_llm_error(loopback: LoopbackServer) -> None:
    loopback.script(Garbage(b"event: message_start\ndata: {broken json\n\n"))
    err = failure(loopback)
    assert err.kind == "stream"


def test_error_event_inside_the_stream(loopback: LoopbackServer) -> None:
    error = b'{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}'
    loopback.script(Garbage(b"event: error\ndata: " + error + b"\n\n"))
    err = failure(loopback)
    assert err.kind == "server"
    assert "Overloaded" in str(err)


def test_error_event_after_some_text_reads_as_a_mid_stream_error(loopback: LoopbackServer) -> None:
    start = _sse_event("message_start", {"type": "message_start", "message": {
        "id": "m", "type": "message", "role": "assistant", "model": MODEL, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 1}}})
    block = _sse_event("content_block_start", {"type": "content_block_start", "index": 0,
                                               "content_block": {"type": "text", "text": ""}})
    text = _sse_event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                              "delta": {"type": "text_delta", "text": "Nf3 is"}})
    error = _sse_event("error", {"type": "error",
                                 "error": {"type": "overloaded_error", "message": "Overloaded"}})
    loopback.script(Garbage(start + block + text + error))
    err = failure(loopback)
    assert err.kind == "server" and err.partial == "Nf3 is"
    assert str(err) == "Anthropic: the server reported an error mid-stream: overloaded_error: Overloaded"
    assert err.status is None  # the 200 of the stream is not the status of a failure


def _sse_event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def test_cancelling_the_task_cancels_the_call(loopback: LoopbackServer) -> None:
    loopback.script(Slow(10))
    assert cancel_once_sent(loopback, client_for(loopback), ask()) < 1
    assert disconnects_seen(loopback) == 1


def test_env_key_and_base_url_are_honoured(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env-000111222")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.anthropic_base_url)
    client = AnthropicClient(max_retry_wait_s=0.01)
    assert client.base_url.startswith(loopback.url)
    run(client, lambda c: c.complete(ask()))
    headers = loopback.posts()[0].headers
    assert any("sk-ant-from-env-000111222" in headers.get(k, "") for k in ("x-api-key", "authorization"))


def test_key_never_appears_in_repr_or_errors(loopback: LoopbackServer) -> None:
    secret = "sk-ant-api03-SECRETSECRETSECRET"
    loopback.script(Fail(401, message=f"invalid x-api-key {secret}"))
    client = client_for(loopback, api_key=secret)
    assert secret not in repr(client) and secret not in str(client)
    with pytest.raises(LLMError) as info:
        run(client, lambda c: c.complete(ask()))
    rendered = "".join(traceback.format_exception(info.value))
    assert secret not in str(info.value) and secret not in rendered


def test_missing_key_is_an_auth_error(
    loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    # An empty SDK config folder, so no profile on the machine running the tests can supply credentials.
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("ANTHROPIC_PROFILE", raising=False)
    with pytest.raises(LLMError) as info:
        run(AnthropicClient(base_url=loopback.anthropic_base_url), lambda c: c.complete(ask()))
    assert info.value.kind == "auth"
    assert loopback.posts() == []
