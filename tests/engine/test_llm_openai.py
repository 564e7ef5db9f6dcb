"""OpenAIClient against the loopback server: streaming, reasoning, images, retries, failures, keys."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import time
import traceback
from typing import Any

import pytest

from engine.llm import pricing
from engine.llm.base import Completion, Delta, ImagePart, LLMError, Message, Request, RetryNotice
from engine.llm.openai_client import REASONING_ALLOWANCE, OpenAIClient, is_reasoning_model
from tests.engine.llm_helpers import cancel_once_sent, complete_with, disconnects_seen, failure_of, run
from tests.loopback import Answer, Fail, Garbage, LoopbackServer, Slow, Torn

KEY = "sk-test-0123456789abcdef"


def client_for(server: LoopbackServer, **kw: Any) -> OpenAIClient:
    kw.setdefault("api_key", KEY)
    kw.setdefault("max_retry_wait_s", 0.01)
    return OpenAIClient(base_url=server.openai_base_url, **kw)


def ask(text: str = "Your move?", *, model: str = "gpt-4o", **kw: Any) -> Request:
    return Request(model=model, messages=(Message("system", "You play 2048."), Message("user", text)), **kw)


def complete(server: LoopbackServer, request: Request | None = None, **kw: Any) -> Completion:
    return complete_with(client_for(server, **kw), request or ask())


def failure(server: LoopbackServer, request: Request | None = None, **kw: Any) -> LLMError:
    return failure_of(client_for(server, **kw), request or ask())


def test_deltas_stream_in_order_with_reasoning_separated(loopback: LoopbackServer) -> None:
    loopback.script(Answer("Move: up", reasoning="The big tile is top-left.", pieces=4))
    deltas: list[Delta] = []
    result = run(client_for(loopback), lambda c: c.complete(ask(), on_delta=deltas.append))
    kinds = [d.kind for d in deltas]
    assert kinds == ["reasoning"] * 4 + ["content"] * 4
    assert "".join(d.text for d in deltas if d.kind == "reasoning") == "The big tile is top-left."
    assert "".join(d.text for d in deltas if d.kind == "content") == "Move: up"
    assert result.content == "Move: up"
    assert result.reasoning == "The big tile is top-left."
    assert result.stop_reason == "stop"
    assert result.retries == 0
    assert result.latency_ms > 0
    assert result.usage.input_tokens == 12 and result.usage.output_tokens == 7


def test_reasoning_field_named_reasoning_is_understood(loopback: LoopbackServer) -> None:
    loopback.script(Answer("left", reasoning="ollama style", reasoning_field="reasoning"))
    result = complete(loopback)
    assert (result.reasoning, result.content) == ("ollama style", "left")


def test_request_on_the_wire(loopback: LoopbackServer) -> None:
    png = b"\x89PNG\r\n\x1a\nfake-image-bytes"
    request = Request(
        model="gpt-4o",
        messages=(Message("system", "Rules."), Message("user", "Board:", (ImagePart(png, detail="high"),))),
        temperature=0.2,
        max_tokens=300,
    )
    complete(loopback, request)
    sent = loopback.posts()[0]
    assert sent.path == "/v1/chat/completions"
    body = sent.body
    assert body["model"] == "gpt-4o"
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["max_completion_tokens"] == 300 and "max_tokens" not in body
    assert body["temperature"] == 0.2
    assert body["messages"][0] == {"role": "system", "content": "Rules."}
    parts = body["messages"][1]["content"]
    assert parts[0] == {"type": "text", "text": "Board:"}
    assert parts[1]["type"] == "image_url"
    assert parts[1]["image_url"]["detail"] == "high"
    url = parts[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == png
    # The key travels in the Authorization header only, never in the body.
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in sent.text


def test_reasoning_models_get_effort_and_no_temperature(loopback: LoopbackServer) -> None:
    assert is_reasoning_model("o4-mini") and is_reasoning_model("gpt-5-mini")
    assert not is_reasoning_model("gpt-4o")
    complete(loopback, ask(model="o4-mini", temperature=0.7, thinking=True, effort="high"))
    complete(loopback, ask(model="gpt-4o", temperature=0.7, thinking=True, effort="high"))
    reasoning, plain = (r.body for r in loopback.posts())
    assert reasoning["reasoning_effort"] == "high" and "temperature" not in reasoning
    assert "reasoning_effort" not in plain and plain["temperature"] == 0.7


def test_reasoning_models_get_room_for_hidden_reasoning(loopback: LoopbackServer) -> None:
    # Their reasoning counts against max_completion_tokens; 1024 in all would often leave no answer.
    complete(loopback, ask(model="o4-mini", max_tokens=1024))
    complete(loopback, ask(model="gpt-5-mini", max_tokens=1024, thinking=True, thinking_budget=4096))
    complete(loopback, ask(model="gpt-4o", max_tokens=1024))
    bare, budgeted, plain = (r.body["max_completion_tokens"] for r in loopback.posts())
    assert bare == REASONING_ALLOWANCE + 1024
    assert budgeted == 4096 + 1024
    assert plain == 1024


def test_reasoning_tokens_usage_and_cost(loopback: LoopbackServer) -> None:
    loopback.script(Answer("up", reasoning="hmm", input_tokens=1000, output_tokens=500, reasoning_tokens=120))
    result = complete(loopback)
    usage = result.usage
    assert (usage.input_tokens, usage.output_tokens, usage.reasoning_tokens) == (1000, 500, 120)
    assert pricing.cost("gpt-4o", usage, provider="openai") == pytest.approx((1000 * 2.5 + 500 * 10) / 1e6)


def test_rate_limit_retry_is_visible_and_honours_retry_after(loopback: LoopbackServer) -> None:
    loopback.script(Fail(429, {"retry-after": "0.05"}, "slow down"), Answer("right"))
    notices: list[RetryNotice] = []
    start = time.monotonic()
    client = client_for(loopback, max_retry_wait_s=None)
    result = run(client, lambda c: c.complete(ask(), on_retry=notices.append))
    assert result.content == "right"
    assert result.retries == 1
    assert len(notices) == 1
    notice = notices[0]
    assert (notice.attempt, notice.status) == (1, 429)
    assert "rate limited" in notice.reason
    assert notice.wait_s == pytest.approx(0.05)
    assert time.monotonic() - start >= 0.05
    posts = loopback.posts()
    assert len(posts) == 2 and posts[1].headers["x-stainless-retry-count"] == "1"


def test_persistent_server_error_retries_then_fails(loopback: LoopbackServer) -> None:
    loopback.script(Fail(500), Fail(502), Fail(500))
    notices: list[RetryNotice] = []
    with pytest.raises(LLMError) as info:
        run(client_for(loopback), lambda c: c.complete(ask(), on_retry=notices.append))
    err = info.value
    assert err.kind == "server" and err.status == 500
    assert [(n.attempt, n.status) for n in notices] == [(1, 500), (2, 502)]
    assert all(n.wait_s is not None and n.wait_s <= 0.01 for n in notices)
    assert len(loopback.posts()) == 3


def test_auth_failure_is_not_retried(loopback: LoopbackServer) -> None:
    loopback.script(Fail(401, message="bad key"))
    err = failure(loopback)
    assert (err.kind, err.status) == ("auth", 401)
    assert len(loopback.posts()) == 1


def test_timeout_fails_quickly(loopback: LoopbackServer) -> None:
    loopback.script(Slow(10))
    start = time.monotonic()
    err = failure(loopback, max_retries=0, timeout_s=0.3)
    assert err.kind == "timeout"
    assert time.monotonic() - start < 3


def test_request_timeout_can_only_shorten_the_clients(loopback: LoopbackServer) -> None:
    loopback.script(Slow(10))
    start = time.monotonic()
    err = failure(loopback, ask(timeout_s=0.3), max_retries=0, timeout_s=60)
    assert err.kind == "timeout"
    assert time.monotonic() - start < 3


def test_timeout_is_retried_visibly(loopback: LoopbackServer) -> None:
    loopback.script(Slow(10), Answer("down"))
    notices: list[RetryNotice] = []
    client = client_for(loopback, max_retries=1, timeout_s=0.3)
    result = run(client, lambda c: c.complete(ask(), on_retry=notices.append))
    assert result.content == "down"
    assert [(n.reason, n.status) for n in notices] == [("timeout", None)]


def test_torn_stream_keeps_partial_text(loopback: LoopbackServer) -> None:
    loopback.script(Torn("I think the answer is", reasoning="first"))
    deltas: list[Delta] = []
    with pytest.raises(LLMError) as info:
        run(client_for(loopback), lambda c: c.complete(ask(), on_delta=deltas.append))
    err = info.value
    assert err.kind == "stream"
    assert err.partial == "I think the answer is"
    assert "".join(d.text for d in deltas if d.kind == "content") == "I think the answer is"
    assert len(loopback.posts()) == 1  # a broken stream is not silently re-asked


def test_stream_that_ends_without_finishing_is_an_error(loopback: LoopbackServer) -> None:
    loopback.script(Torn("half an answ", mode="eof"))
    err = failure(loopback)
    assert err.kind == "stream" and err.partial == "half an answ"


@pytest.mark.parametrize(
    "body,content_type",
    [(b"data: this is not json\n\n", "text/event-stream"), (b"<html>proxy error</html>", "text/html")],
)
def test_garbage_body_is_an_llm_error(loopback: LoopbackServer, body: bytes, content_type: str) -> None:
    loopback.script(Garbage(body, content_type))
    err = failure(loopback)
    assert err.kind == "stream"


@pytest.mark.parametrize(
    "body",
    [b'{"object": "error", "message": "model is loading"}', b'{"choices": []}'],
)
def test_json_body_without_an_answer_is_an_llm_error(loopback: LoopbackServer, body: bytes) -> None:
    # A compatible server that ignores stream=True and sends a JSON error object (or no choices) with a
    # 200: the contract is an LLMError, never a raw KeyError/IndexError.
    loopback.script(Garbage(body, "application/json"))
    err = failure(loopback)
    assert err.kind == "stream"


def _chunk(choice: dict[str, Any]) -> bytes:
    body = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [choice]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


@pytest.mark.parametrize(
    "first,last",
    [
        # A compatible server that leaves out the choice's "index".
        ({"delta": {"content": "up"}}, {"delta": {}, "finish_reason": "stop"}),
        # One that streams content as a list of text parts.
        ({"index": 0, "delta": {"content": [{"type": "text", "text": "up"}]}},
         {"index": 0, "delta": {}, "finish_reason": "stop"}),
    ],
)
def test_compatible_stream_variants_are_read(
    loopback: LoopbackServer, first: dict[str, Any], last: dict[str, Any]
) -> None:
    loopback.script(Garbage(_chunk(first) + _chunk(last) + b"data: [DONE]\n\n"))
    result = complete(loopback, provider="local")
    assert (result.content, result.stop_reason) == ("up", "stop")


def test_json_answer_with_content_parts_is_read(loopback: LoopbackServer) -> None:
    body = {"choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": [{"type": "text", "text": "left"}]}}]}
    loopback.script(Garbage(json.dumps(body).encode(), "application/json"))
    assert complete(loopback, provider="local").content == "left"


def test_conflict_after_retries_is_a_server_error_not_a_bad_request(loopback: LoopbackServer) -> None:
    # The SDK retries 409 as transient; "bad_request" would make the harness forfeit at once.
    loopback.script(Fail(409), Fail(409))
    err = failure(loopback, max_retries=1)
    assert (err.kind, err.status) == ("server", 409)
    assert len(loopback.posts()) == 2


def test_a_timeout_is_retried_at_most_once_per_call(loopback: LoopbackServer) -> None:
    # max_retries=5 would otherwise wait six timeouts for one call.
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


def test_other_retries_still_follow_max_retries_after_a_timeout(loopback: LoopbackServer) -> None:
    loopback.script(Slow(10), Fail(503), Fail(503), Answer("left"))
    notices: list[RetryNotice] = []
    client = client_for(loopback, max_retries=3, timeout_s=0.3)
    result = run(client, lambda c: c.complete(ask(), on_retry=notices.append))
    assert result.content == "left"
    assert [n.status for n in notices] == [None, 503, 503]


def test_json_answer_instead_of_a_stream_is_accepted(loopback: LoopbackServer) -> None:
    loopback.script(Answer("up", reasoning="because", stream=False, input_tokens=5, output_tokens=2))
    deltas: list[Delta] = []
    result = run(client_for(loopback), lambda c: c.complete(ask(), on_delta=deltas.append))
    assert (result.content, result.reasoning) == ("up", "because")
    assert [d.kind for d in deltas] == ["reasoning", "content"]
    assert (result.usage.input_tokens, result.usage.output_tokens) == (5, 2)


def test_cancelling_the_task_cancels_the_call(loopback: LoopbackServer) -> None:
    loopback.script(Slow(10))
    elapsed = cancel_once_sent(loopback, client_for(loopback), ask())
    assert elapsed < 1
    assert disconnects_seen(loopback) == 1  # the server saw the connection go away


@pytest.mark.parametrize("make", ["openai", "anthropic"])
def test_a_call_after_aclose_is_a_cancelled_llm_error(loopback: LoopbackServer, make: str) -> None:
    from engine.llm.anthropic_client import AnthropicClient

    client: Any = (
        client_for(loopback) if make == "openai"
        else AnthropicClient(api_key=KEY, base_url=loopback.anthropic_base_url, max_retry_wait_s=0.01)
    )

    async def scenario() -> LLMError:
        await client.aclose()
        with pytest.raises(LLMError) as info:
            await client.complete(ask())
        return info.value

    err = asyncio.run(scenario())
    assert err.kind == "cancelled"
    assert loopback.posts() == []


def test_unreachable_server_is_a_connection_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = OpenAIClient(api_key=KEY, base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
    with pytest.raises(LLMError) as info:
        run(client, lambda c: c.complete(ask()))
    assert info.value.kind == "connection"


def test_callback_errors_are_not_disguised_as_stream_errors(loopback: LoopbackServer) -> None:
    def broken(_: Delta) -> None:
        raise RuntimeError("UI bug")

    with pytest.raises(RuntimeError, match="UI bug"):
        run(client_for(loopback), lambda c: c.complete(ask(), on_delta=broken))


def test_images_outside_user_messages_are_refused(loopback: LoopbackServer) -> None:
    messages = (Message("system", "x", (ImagePart(b"png"),)), Message("user", "y"))
    request = Request(model="gpt-4o", messages=messages)
    err = failure(loopback, request)
    assert err.kind == "bad_request"
    assert loopback.posts() == []


def test_env_key_and_base_url_are_honoured(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-9876543210")
    monkeypatch.setenv("OPENAI_BASE_URL", loopback.openai_base_url)
    client = OpenAIClient(max_retry_wait_s=0.01)
    assert client.base_url.startswith(loopback.url)
    run(client, lambda c: c.complete(ask()))
    assert loopback.posts()[0].headers["authorization"] == "Bearer sk-from-env-9876543210"


def test_missing_openai_key_is_an_auth_error() -> None:
    with pytest.raises(LLMError) as info:
        OpenAIClient()
    assert info.value.kind == "auth"
    assert "OPENAI_API_KEY" in str(info.value)


def test_local_servers_never_get_the_openai_key(
    loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-openai-key-000000")
    client = OpenAIClient(provider="local", base_url=loopback.openai_base_url)
    run(client, lambda c: c.complete(ask(model="llama3.2")))
    sent = loopback.posts()[0]
    assert "sk-real-openai-key" not in sent.headers["authorization"]
    assert "max_tokens" in sent.body and "max_completion_tokens" not in sent.body


def test_key_never_appears_in_repr_or_errors(loopback: LoopbackServer) -> None:
    secret = "sk-proj-SECRETSECRETSECRET1234"
    loopback.script(Fail(401, message=f"Incorrect API key provided: {secret}"))
    client = client_for(loopback, api_key=secret)
    assert secret not in repr(client) and secret not in str(client)
    with pytest.raises(LLMError) as info:
        run(client, lambda c: c.complete(ask()))
    err = info.value
    rendered = "".join(traceback.format_exception(err))
    assert secret not in str(err) and secret not in repr(err) and secret not in rendered
    assert err.__cause__ is None


def test_concurrent_calls_each_report_their_own_retries(loopback: LoopbackServer) -> None:
    loopback.script(Fail(429, {"retry-after": "0.05"}), Answer("a"), Answer("b"))
    first: list[RetryNotice] = []
    second: list[RetryNotice] = []

    async def both(client: OpenAIClient) -> list[Completion]:
        return list(
            await asyncio.gather(
                client.complete(ask(), on_retry=first.append), client.complete(ask(), on_retry=second.append)
            )
        )

    results = run(client_for(loopback), both)
    assert sorted(r.content for r in results) == ["a", "b"]
    assert sorted([len(first), len(second)]) == [0, 1]
    assert sorted(r.retries for r in results) == [0, 1]
