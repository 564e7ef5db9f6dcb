"""Every model call has a deadline on the answer itself, not only on the gap between bytes: a server that
keeps the connection alive with SSE comments (or any bytes that carry no answer) times out at the
call's timeout, in both wire formats; a rejected key or an unknown model is a run error (``is_run_error``).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from engine.llm.anthropic_client import AnthropicClient
from engine.llm.base import LLMError, Message, Request
from engine.llm.openai_client import OpenAIClient
from tests.engine.llm_helpers import complete_with
from tests.loopback import Answer, Fail, KeepAlive, LoopbackServer

pytestmark = pytest.mark.timeout(30)


def _client(wire: str, server: LoopbackServer, timeout_s: float) -> Any:
    if wire == "openai":
        return OpenAIClient(base_url=server.openai_base_url, api_key="sk-test", timeout_s=timeout_s,
                            max_retry_wait_s=0.01)
    return AnthropicClient(base_url=server.anthropic_base_url, api_key="sk-ant-test", timeout_s=timeout_s,
                           max_retry_wait_s=0.01)


def _ask(wire: str) -> Request:
    model = "gpt-4o" if wire == "openai" else "claude-sonnet-4-5"
    return Request(model=model, messages=(Message("user", "Your move?"),), timeout_s=60)


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_keep_alive_comments_do_not_hold_a_call_past_its_timeout(wire: str, loopback: LoopbackServer) -> None:
    loopback.script(KeepAlive(every_s=0.1, for_s=20))
    started = time.monotonic()
    with pytest.raises(LLMError) as info:
        complete_with(_client(wire, loopback, 1.0), _ask(wire))
    assert info.value.kind == "timeout"
    assert "nothing of the answer in 1 s" in str(info.value)
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_slow_but_steady_answer_is_not_cut(wire: str, loopback: LoopbackServer) -> None:
    # Four pieces 0.4 s apart: 1.6 s in all, longer than the 1 s timeout between pieces.
    loopback.script(Answer(content="move: left", pieces=4, gap_s=0.4))
    completion = complete_with(_client(wire, loopback, 1.0), _ask(wire))
    assert completion.content == "move: left"


@pytest.mark.parametrize(("status", "kind"), [(401, "auth"), (403, "auth"), (404, "not_found")])
@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_refused_keys_and_unknown_models_are_run_errors(
    wire: str, status: int, kind: str, loopback: LoopbackServer
) -> None:
    loopback.script(Fail(status, message="no such key or model"))
    with pytest.raises(LLMError) as info:
        complete_with(_client(wire, loopback, 5.0), _ask(wire))
    assert info.value.kind == kind and info.value.is_run_error
