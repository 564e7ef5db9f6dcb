"""``local:MODEL@BASE_URL`` with credentials in the URL and '@'/':' in the model name: parsed at the
first '@' that starts a URL, and the password never shown."""

from __future__ import annotations

import asyncio
import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import events as ev
from engine.agent.player import make_model_player
from engine.events import Event
from engine.llm.base import Message, Request
from engine.llm.factory import make_client, parse_spec, public_spec
from engine.llm.keys import forget_secret, known_secrets, redact
from engine.players import Observation
from tests.loopback import LoopbackServer

NAME_CHARS = st.sampled_from("abcxyz019.-_:@/")
MODELS = st.text(NAME_CHARS, min_size=1, max_size=20).filter(
    lambda m: m.strip() == m and "@http" not in m and not m.startswith(("@", ":"))
)
USERS = st.text(st.sampled_from("abcdef0189_-."), min_size=1, max_size=10)
PASSWORDS = st.text(st.sampled_from("ABCpqrs0189!$%&*+=:@-_~"), min_size=1, max_size=24)
HOSTS = st.sampled_from(["host", "127.0.0.1:8000", "llm.example.test", "h:1"])


def test_the_issue_spec_parses() -> None:
    parsed = parse_spec("local:M@http://user:pw@host/v1")
    assert (parsed.model, parsed.base_url) == ("M", "http://user:pw@host/v1")
    assert public_spec("local:M@http://user:pw@host/v1") == "local:M@http://user:***@host/v1"
    assert "pw@" not in repr(parsed)
    parse_spec("local:M@http://user:long-password@host/v1")
    assert "long-password" in known_secrets()
    forget_secret("long-password")
    assert parse_spec("local:team@v2@ollama").model == "team@v2"
    assert parse_spec("local:qwen2.5:7b@http://h:1/v1").model == "qwen2.5:7b"


@settings(max_examples=300, deadline=None)
@given(MODELS, st.sampled_from(["http", "https", "HTTP"]), USERS, PASSWORDS, HOSTS)
def test_any_model_name_and_password_round_trip(
    model: str, scheme: str, user: str, pw: str, host: str
) -> None:
    url = f"{scheme}://{user}:{pw}@{host}/v1"
    spec = f"local:{model}@{url}"
    parsed = parse_spec(spec)
    forget_secret(pw)  # registered by parse_spec; the pattern alone must mask it (and no test leaks it)
    assert (parsed.provider, parsed.model, parsed.base_url) == ("local", model, url)
    shown = public_spec(spec)
    assert shown == f"local:{model}@{scheme}://{user}:***@{host}/v1"
    # Wherever PlayTrace prints or writes it, a URL's password is masked as public_spec shows it.
    assert redact(f"calling {spec} failed") == f"calling {shown} failed"
    assert f"{user}:***@{host}/v1" in repr(parsed) and f"{user}:{pw}@" not in repr(parsed)


@settings(max_examples=200, deadline=None)
@given(MODELS, HOSTS)
def test_urls_without_credentials_are_left_alone(model: str, host: str) -> None:
    spec = f"local:{model}@http://{host}/v1"
    assert parse_spec(spec).model == model and public_spec(spec) == spec


def test_credentials_reach_the_server_and_never_the_session(loopback: LoopbackServer) -> None:
    url = loopback.openai_base_url.replace("http://", "http://alice:pw@")
    spec = f"local:loop-model@{url}"
    client, model = make_client(spec)
    assert "pw@" not in client.base_url and "pw@" not in repr(client)

    async def call() -> None:
        try:
            await client.complete(Request(model=model, messages=(Message("user", "hi"),), max_tokens=4))
        finally:
            await client.aclose()

    asyncio.run(call())
    auth = loopback.posts()[-1].headers.get("authorization", "")
    assert auth == "Basic " + base64.b64encode(b"alice:pw").decode()

    game = engine.make("2048")
    player = make_model_player(spec, game, seed=1, reflection=False)
    assert "pw@" not in player.spec and "pw@" not in player.label
    assert "pw@" not in str(player.harness_config())
    events: list[Event] = []
    state = game.initial_state(seed=1)
    asyncio.run(player.act(Observation(game, state, 0, tuple(state.legal_actions(0)), emit=events.append)))
    assert all("pw@" not in str(e.data) for e in events if e.type == ev.PROMPT_BUILT)


def test_a_bad_url_error_does_not_show_the_password() -> None:
    with pytest.raises(ValueError) as info:
        parse_spec("local:m@ftp://bob:hunter22@host/v1")
    assert "hunter22" not in str(info.value)
