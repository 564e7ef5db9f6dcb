"""Local servers (presets, health check) and model specs (factory)."""

from __future__ import annotations

import asyncio
import io
import socket
import time

import pytest
from PIL import Image

from engine.llm.anthropic_client import AnthropicClient
from engine.llm.base import LLMClient, LLMError
from engine.llm.factory import ModelSpec, make_client, parse_spec
from engine.llm.local import PRESETS, HealthReport, health_check, resolve_base_url, tiny_png
from engine.llm.openai_client import OpenAIClient
from tests.loopback import Fail, LoopbackServer


def check(base_url: str, model: str, **kw: object) -> HealthReport:
    return asyncio.run(health_check(base_url, model, **kw))  # type: ignore[arg-type]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_presets_and_base_urls() -> None:
    assert PRESETS["ollama"].base_url == "http://localhost:11434/v1"
    assert PRESETS["lmstudio"].base_url == "http://localhost:1234/v1"
    assert PRESETS["vllm"].base_url == "http://localhost:8000/v1"
    assert PRESETS["llamacpp"].base_url == "http://localhost:8080/v1"
    assert resolve_base_url("Ollama") == PRESETS["ollama"].base_url
    assert resolve_base_url("http://box:9000/v1/") == "http://box:9000/v1"
    with pytest.raises(ValueError, match="preset"):
        resolve_base_url("not a url")


def test_tiny_png_is_a_real_image() -> None:
    with Image.open(io.BytesIO(tiny_png())) as image:
        image.load()
        assert image.size == (1, 1)


def test_health_check_reachable_listed_and_accepts_images(loopback: LoopbackServer) -> None:
    report = check(loopback.openai_base_url, "loop-model")
    assert report.reachable and report.model_listed
    assert report.models == ["loop-model", "llava:latest"]
    assert report.accepts_images is True
    probe = loopback.posts()[0].body
    assert probe["max_tokens"] == 1
    assert probe["messages"][0]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_health_check_knows_ollamas_latest_tag(loopback: LoopbackServer) -> None:
    report = check(loopback.openai_base_url, "llava", probe_images=False)
    assert report.model_listed and report.accepts_images is None
    assert loopback.posts() == []


def test_health_check_model_not_listed(loopback: LoopbackServer) -> None:
    report = check(loopback.openai_base_url, "mistral")
    assert report.reachable and not report.model_listed
    assert report.accepts_images is None  # no probe for a model the server does not have
    assert "mistral" in report.message and "loop-model" in report.message


def test_health_check_image_refused(loopback: LoopbackServer) -> None:
    loopback.script(Fail(400, message="this model does not support image input"))
    report = check(loopback.openai_base_url, "loop-model")
    assert report.reachable and report.accepts_images is False


def test_health_check_server_without_model_list(loopback: LoopbackServer) -> None:
    loopback.models_status = 404
    report = check(loopback.openai_base_url, "loop-model", probe_images=False)
    assert report.reachable and report.models == [] and not report.model_listed


@pytest.mark.parametrize(
    "body,content_type",
    [(b"<html>router login</html>", "text/html"), (b"[]", "application/json"),
     (b'{"data": [1, 2]}', "application/json"), (b"", "application/json")],
)
def test_health_check_server_answering_something_else_never_raises(
    loopback: LoopbackServer, body: bytes, content_type: str
) -> None:
    # The base URL points at some other web server: it answers 200, but not with a model list.
    loopback.models_body = (body, content_type)
    report = check(loopback.openai_base_url, "loop-model", probe_images=False)
    assert report.reachable and report.models == [] and not report.model_listed
    assert report.message.endswith("answered but did not list its models.")


def test_health_check_unreachable_never_raises() -> None:
    start = time.monotonic()
    report = check(f"http://127.0.0.1:{free_port()}/v1", "anything", timeout=1)
    assert not report.reachable
    assert report.models == [] and report.accepts_images is None
    assert "No server" in report.message
    assert time.monotonic() - start < 3


def test_health_check_bad_url_never_raises() -> None:
    report = check("nonsense", "m")
    assert not report.reachable and "preset" in report.message


@pytest.mark.parametrize(
    "spec,expected",
    [
        ("openai:gpt-4o", ModelSpec("openai", "gpt-4o")),
        ("anthropic:claude-haiku-4-5", ModelSpec("anthropic", "claude-haiku-4-5")),
        ("local:qwen2.5:7b@http://box:8000/v1", ModelSpec("local", "qwen2.5:7b", "http://box:8000/v1")),
        ("local:llama3.2@ollama", ModelSpec("local", "llama3.2", PRESETS["ollama"].base_url, "ollama")),
        ("local:llama3.2", ModelSpec("local", "llama3.2", PRESETS["ollama"].base_url, "ollama")),
        ("ollama:qwen2.5:7b", ModelSpec("local", "qwen2.5:7b", PRESETS["ollama"].base_url, "ollama")),
        ("vllm:meta/llama", ModelSpec("local", "meta/llama", PRESETS["vllm"].base_url, "vllm")),
        ("sim", ModelSpec("sim", "default")),
        ("sim:careless", ModelSpec("sim", "careless")),
    ],
)
def test_parse_spec(spec: str, expected: ModelSpec) -> None:
    assert parse_spec(spec) == expected


@pytest.mark.parametrize("spec", ["gpt-4o", "openai:", "mystery:model", "local:@http://x", "local:m@ftp://x"])
def test_parse_spec_rejects(spec: str) -> None:
    with pytest.raises(ValueError):
        parse_spec(spec)


def test_make_client_builds_each_provider(loopback: LoopbackServer) -> None:
    async def scenario() -> None:
        openai_client, model = make_client("openai:gpt-4o", api_key="sk-test-aaaaaaaaaaaa", timeout_s=5)
        assert isinstance(openai_client, OpenAIClient) and openai_client.provider == "openai"
        assert model == "gpt-4o" and openai_client.timeout_s == 5
        anthropic_client, model = make_client("anthropic:claude-haiku-4-5", api_key="sk-ant-test-bbbbbbbb")
        assert isinstance(anthropic_client, AnthropicClient) and model == "claude-haiku-4-5"
        local_client, model = make_client(f"local:llava@{loopback.openai_base_url}", unknown_option=1)
        assert isinstance(local_client, OpenAIClient) and local_client.provider == "local"
        assert model == "llava" and local_client.base_url.startswith(loopback.url)
        for client in (openai_client, anthropic_client, local_client):
            assert isinstance(client, LLMClient) and not client.simulated
            await client.aclose()

    asyncio.run(scenario())


def test_make_client_sim_is_the_simulated_model() -> None:
    client, model = make_client("sim")
    assert client.provider == "sim" and client.simulated
    assert isinstance(model, str) and model


def test_make_client_without_openai_key_is_an_auth_error() -> None:
    with pytest.raises(LLMError) as info:
        make_client("openai:gpt-4o")
    assert info.value.kind == "auth"
