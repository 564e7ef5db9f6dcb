"""Secrets never reach a session folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import events as ev
from engine.events import Event
from sessions import SessionWriter, load_session, register_secret
from sessions.redact import MASK, is_secret_key, redact

OPENAI_KEY = "sk-proj-Abc123Def456Ghi789Jkl012"
ANTHROPIC_KEY = "sk-ant-api03-ZyXwVuTsRqPoNm-0987"
BEARER = "eyJhbGciOiJIUzI1NiJ9.payload.sig"
ENV_KEY = "local-server-key-77aa"
TYPED_KEY = "typed-in-the-settings-dialog-99"


def _all_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def test_secrets_never_reach_disk(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCAL_API_KEY", ENV_KEY)
    register_secret(TYPED_KEY)
    writer = SessionWriter.create(
        root,
        game="fake",
        players=[{"seat": 0, "spec": "openai:gpt-x", "label": "GPT", "kind": "model"}],
        seed=1,
        options={},
        harness={"0": {"api_key": OPENAI_KEY, "temperature": 0.2, "thinking_budget": 1024}},
        extra={"headers": {"Authorization": f"Bearer {BEARER}", "x-api-key": ANTHROPIC_KEY}},
    )
    writer.append(Event(ev.SESSION_STARTED, {"game": "fake", "state": {}, "players": []}, step=0))
    writer.append(
        Event(
            ev.MODEL_CALL_STARTED,
            {
                "provider": "openai",
                "model": "gpt-x",
                "params": {
                    "api_key": OPENAI_KEY,
                    "max_tokens": 512,
                    "password": "hunter22",
                    "token": "t0k3n-value",
                },
                "client": {"apiKey": ANTHROPIC_KEY, "base_url": "http://localhost:8000/v1"},
            },
            step=0,
            seat=0,
            call=1,
        )
    )
    writer.append(
        Event(
            ev.MODEL_CALL_FAILED,
            {
                "error": f"401 Unauthorized: invalid key {OPENAI_KEY}; sent Authorization: Bearer {BEARER} "
                f"and {ANTHROPIC_KEY}, env {ENV_KEY}, typed {TYPED_KEY}",
                "kind": "auth",
            },
            step=0,
            seat=0,
            call=1,
        )
    )
    writer.append(
        Event(
            ev.MODEL_CALL_FINISHED,
            {"latency_ms": 5, "input_tokens": 10, "output_tokens": 3, "reasoning_tokens": 2, "cost_usd": 0.0},
            step=0,
            seat=0,
            call=2,
        )
    )
    writer.update_manifest(extra={"note": f"key was {OPENAI_KEY}", "secret": "shh-very-secret"})
    writer.close("aborted")

    blob = _all_bytes(writer.path)
    for secret in (
        OPENAI_KEY,
        ANTHROPIC_KEY,
        BEARER,
        ENV_KEY,
        TYPED_KEY,
        "hunter22",
        "t0k3n-value",
        "shh-very-secret",
        "sk-proj",
        "sk-ant",
    ):
        assert secret.encode() not in blob, secret
    assert b'"api_key"' not in blob and b"apiKey" not in blob and b"Authorization" not in blob

    # What is not secret is kept: token counters, budgets, the masked message's context.
    session = load_session(writer.path)
    started, failed, finished = (
        session.events[1]["data"],
        session.events[2]["data"],
        session.events[3]["data"],
    )
    assert started["params"] == {"max_tokens": 512}
    assert started["client"] == {"base_url": "http://localhost:8000/v1"}
    assert failed["error"].startswith("401 Unauthorized: invalid key " + MASK)
    assert (
        finished["input_tokens"] == 10
        and finished["output_tokens"] == 3
        and finished["reasoning_tokens"] == 2
    )
    assert session.manifest["harness"] == {"0": {"temperature": 0.2, "thinking_budget": 1024}}
    assert session.manifest["extra"] == {"note": f"key was {MASK}"}


def test_environment_dump_is_never_written(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    monkeypatch.setenv("SOME_SETTING", "visible-only-in-env-1234")
    writer = SessionWriter.create(root, game="fake", players=[], seed=None, options={})
    writer.append(Event(ev.ERROR, {"message": "crash", "env": dict(os.environ)}, step=0))
    writer.close("error")
    assert b"visible-only-in-env-1234" not in _all_bytes(writer.path)
    assert load_session(writer.path).events[0]["data"]["env"] == "[environment omitted]"


@pytest.mark.parametrize(
    ("key", "secret"),
    [
        ("api_key", True),
        ("Authorization", True),
        ("x-api-key", True),
        ("password", True),
        ("secret", True),
        ("token", True),
        ("OPENAI_API_KEY", True),
        ("access_token", True),
        ("input_tokens", False),
        ("output_tokens", False),
        ("reasoning_tokens", False),
        ("max_tokens", False),
        ("thinking_budget", False),
        ("model", False),
        ("tokenizer", False),
    ],
)
def test_secret_key_names(key: str, secret: bool) -> None:
    assert is_secret_key(key) is secret


def test_ordinary_text_is_left_alone() -> None:
    text = "sk-learn is a library; the flag bearer moves up; tokens used: 12"
    assert redact({"t": text}) == {"t": text}
    assert json.dumps(redact({"n": (1, 2.5, None, True)})) == '{"n": [1, 2.5, null, true]}'


def test_url_passwords_are_masked(root: Path) -> None:
    # A local server behind basic auth is reached as http://user:pass@host; that URL is part of the
    # player spec and of connection errors, so it reaches the manifest and the event log.
    spec = "local:llama3@http://admin:s3cret-pass-42@10.0.0.2:8080/v1"
    writer = SessionWriter.create(
        root,
        game="fake",
        players=[{"seat": 0, "spec": spec, "label": "llama3", "kind": "model"}],
        seed=1,
        options={},
        harness={"0": {"spec": spec}},
    )
    writer.append(
        Event(
            ev.MODEL_CALL_FAILED,
            {"error": f"cannot connect to {spec.split('@', 1)[1]}", "kind": "connection"},
            step=0,
            seat=0,
            call=1,
        )
    )
    writer.close("error")
    assert b"s3cret-pass-42" not in _all_bytes(writer.path)
    session = load_session(writer.path)
    assert session.manifest["players"][0]["spec"] == f"local:llama3@http://admin:{MASK}@10.0.0.2:8080/v1"
    assert session.events[0]["data"]["error"] == f"cannot connect to http://admin:{MASK}@10.0.0.2:8080/v1"
    plain = "see http://localhost:8000/v1 or mail me@example.org"
    assert redact({"t": plain}) == {"t": plain}


def test_keys_known_to_the_model_providers_never_reach_disk(root: Path) -> None:
    # Every model client registers the key it sends with engine.llm.keys; a local server's key looks
    # like nothing in particular, so only its value can be masked, and the writer must know it,
    # whether the client was made before the writer or after it (a player seated mid-session).
    from engine.llm import keys

    early, late = "local-server-key-early-1234", "local-server-key-late-5678"
    keys.register_secret(early)
    try:
        writer = SessionWriter.create(
            root, game="fake", players=[], seed=None, options={}, extra={"note": f"started with {early}"}
        )
        writer.append(
            Event(
                ev.MODEL_CALL_FAILED,
                {"error": f"server echoed {early}", "kind": "auth"},
                step=0,
                seat=0,
                call=1,
            )
        )
        keys.register_secret(late)
        writer.append(
            Event(
                ev.MODEL_CALL_FAILED,
                {"error": f"server echoed {late}", "kind": "auth"},
                step=0,
                seat=0,
                call=2,
            )
        )
        writer.close("error")
    finally:
        keys.forget_secret(early)
        keys.forget_secret(late)
    blob = _all_bytes(writer.path)
    assert early.encode() not in blob and late.encode() not in blob
    errors = [e["data"]["error"] for e in load_session(writer.path).events]
    assert errors == [f"server echoed {MASK}", f"server echoed {MASK}"]
