"""A 200 that is not the API (a web page from a proxy or the wrong port) is named as such, with the
first line of what the server sent, in both wire formats."""

from __future__ import annotations

import pytest

from engine.llm.anthropic_client import AnthropicClient
from engine.llm.base import LLMClient, Message, Request
from engine.llm.openai_client import OpenAIClient
from tests.engine.llm_helpers import complete_with, failure_of
from tests.loopback import Answer, Garbage, LoopbackServer

KEY = "sk-test-0123456789abcdef"
PAGE = b"\n  <!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Proxy login</body></html>\n"


def client(wire: str, server: LoopbackServer) -> LLMClient:
    if wire == "openai":
        return OpenAIClient(api_key=KEY, base_url=server.openai_base_url, provider="local", max_retries=0)
    return AnthropicClient(api_key=KEY, base_url=server.anthropic_base_url, max_retries=0)


def ask() -> Request:
    return Request(model="m", messages=(Message("user", "Your move?"),), max_tokens=16)


@pytest.mark.parametrize(("wire", "api"), [("openai", "OpenAI API"), ("anthropic", "Anthropic API")])
def test_an_html_page_is_not_the_api(loopback: LoopbackServer, wire: str, api: str) -> None:
    loopback.script(Garbage(PAGE, "text/html; charset=utf-8"))
    err = failure_of(client(wire, loopback), ask())
    text = str(err)
    assert f"did not answer in the {api} format" in text
    assert "text/html" in text and "'<!DOCTYPE html>'" in text
    assert "stream ended" not in text and err.kind == "stream"


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_long_first_line_is_cut_and_real_answers_still_pass(loopback: LoopbackServer, wire: str) -> None:
    loopback.script(Garbage(b"<html>" + b"x" * 5000, "text/html"))
    text = str(failure_of(client(wire, loopback), ask()))
    assert "<html>xxx" in text and "…" in text and len(text) < 400
    loopback.script(Answer(content="fine"))
    assert complete_with(client(wire, loopback), ask()).content == "fine"
