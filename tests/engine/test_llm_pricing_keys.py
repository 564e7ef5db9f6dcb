"""The price table and cost arithmetic; key resolution, the key store and redaction."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from engine.llm import keys, pricing
from engine.llm.base import Usage
from engine.llm.keys import KeyStore, config_dir, key_source, keys_path, redact, resolve_key
from engine.llm.pricing import PriceTable

# -- pricing ---------------------------------------------------------------------------------------------


def test_bundled_table_has_both_providers_and_free_local() -> None:
    table = PriceTable.load()
    assert table.lookup("gpt-4o") is not None
    assert table.lookup("claude-haiku-4-5") is not None
    assert table.lookup("anything", provider="local") == pricing.Price(0.0, 0.0, "local")
    raw = json.loads(Path(table.source).read_text(encoding="utf-8"))
    assert raw["unit"] == "per million tokens" and raw["currency"] == "USD"


def test_cost_known_model() -> None:
    usage = Usage(input_tokens=2_000_000, output_tokens=1_000_000, reasoning_tokens=400_000)
    # Reasoning tokens are part of output_tokens and are not charged twice.
    assert pricing.cost("gpt-4o", usage) == pytest.approx(2 * 2.5 + 1 * 10.0)
    assert pricing.cost("openai:gpt-4o", usage) == pytest.approx(15.0)


def test_snapshots_match_their_row_but_other_prefixes_do_not() -> None:
    usage = Usage(input_tokens=1_000_000)
    assert pricing.cost("gpt-4o-2024-08-06", usage) == pytest.approx(2.5)
    assert pricing.cost("claude-haiku-4-5-20251001", usage) == pytest.approx(1.0)
    assert pricing.cost("gpt-4o-mini", usage) == pytest.approx(0.15)  # its own row, not gpt-4o's
    assert pricing.cost("gpt-5.9-ultra", usage) is None  # never priced as gpt-5 by accident


def test_unknown_model_has_no_cost_and_a_note() -> None:
    usage = Usage(input_tokens=10, output_tokens=10)
    assert pricing.cost("mystery-model", usage) is None
    note = pricing.price_note("mystery-model")
    assert note is not None and "mystery-model" in note
    assert pricing.price_note("gpt-4o") is None


def test_local_and_sim_are_free() -> None:
    usage = Usage(input_tokens=10_000, output_tokens=10_000)
    assert pricing.cost("llama3.2", usage, provider="local") == 0.0
    assert pricing.cost("local:qwen2.5:7b@http://box:8000/v1", usage) == 0.0
    assert pricing.cost("ollama:llava", usage) == 0.0
    assert pricing.cost("sim", usage) == 0.0


def test_estimate() -> None:
    est = pricing.estimate("claude-haiku-4-5", 2000, 500, 100)
    assert (est.input_tokens, est.output_tokens, est.steps) == (200_000, 50_000, 100)
    assert est.cost == pytest.approx(0.2 * 1.0 + 0.05 * 5.0)
    assert est.note is None
    unknown = pricing.estimate("mystery-model", 2000, 500, 100)
    assert unknown.cost is None and unknown.note and unknown.input_tokens == 200_000


def test_hand_edited_table_skips_bad_rows(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(
        json.dumps(
            {
                "models": {
                    "good": {"input": 1, "output": 2},
                    "missing": {"input": 1},
                    "negative": {"input": -1, "output": 2},
                    "text": {"input": "cheap", "output": 2},
                }
            }
        ),
        encoding="utf-8",
    )
    table = pricing.reload(path)
    try:
        assert set(table.models) == {"good"}
        assert pricing.cost("good", Usage(1_000_000, 1_000_000)) == pytest.approx(3.0)
    finally:
        pricing.reload()
    with pytest.raises(ValueError):
        PriceTable.from_dict({"nothing": 1})


# -- keys ------------------------------------------------------------------------------------------------


def test_config_dir_follows_playtrace_home() -> None:
    home = Path(os.environ["PLAYTRACE_HOME"])
    assert config_dir() == home / "config"
    assert keys_path() == home / "config" / "keys.json"


def test_resolution_order_explicit_env_store(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_key("openai") is None and key_source("openai") is None
    KeyStore().set("openai", "sk-stored-111111111")
    assert resolve_key("openai") == "sk-stored-111111111" and key_source("openai") == "store"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-2222222222")
    assert resolve_key("openai") == "sk-env-2222222222" and key_source("openai") == "env"
    assert resolve_key("openai", "sk-explicit-33333333") == "sk-explicit-33333333"
    assert key_source("openai", "sk-explicit-33333333") == "explicit"


def test_local_never_reads_the_openai_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-2222222222")
    assert resolve_key("local") is None
    KeyStore().set("local", "local-server-token")
    assert resolve_key("local") == "local-server-token"


def test_key_store_file_is_private_and_separate() -> None:
    store = KeyStore()
    store.set("anthropic", "  sk-ant-stored-4444444  ")
    assert store.path == keys_path() and store.path.name == "keys.json"
    data = json.loads(store.path.read_text(encoding="utf-8"))
    assert data == {"version": 1, "keys": {"anthropic": "sk-ant-stored-4444444"}}
    if sys.platform != "win32":
        assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert "sk-ant-stored" not in repr(store)
    assert store.providers() == ["anthropic"]
    assert store.delete("anthropic") and not store.delete("anthropic")
    assert store.get("anthropic") is None
    with pytest.raises(ValueError):
        store.set("openai", "   ")
    # Only keys.json is written in the config folder: never a settings file.
    assert [p.name for p in store.path.parent.iterdir()] == ["keys.json"]


def test_damaged_key_store_reads_as_empty() -> None:
    keys_path().parent.mkdir(parents=True, exist_ok=True)
    keys_path().write_text("{not json", encoding="utf-8")
    assert KeyStore().get("openai") is None
    KeyStore().set("openai", "sk-fresh-5555555555")
    assert KeyStore().get("openai") == "sk-fresh-5555555555"


@pytest.mark.parametrize("content", ['{"version": 1, "keys": null}', '{"keys": ["sk-a"]}', '["x"]'])
def test_key_store_of_the_wrong_shape_reads_as_empty_and_redact_still_works(content: str) -> None:
    # redact() reads the store for every log line: a hand-edited file must not make logging raise.
    keys_path().parent.mkdir(parents=True, exist_ok=True)
    keys_path().write_text(content, encoding="utf-8")
    assert KeyStore().get("openai") is None
    assert redact("token sk-proj-abcDEF123456789xyz") == "token sk-[REDACTED]"
    KeyStore().set("anthropic", "sk-ant-fresh-5555555555")
    assert KeyStore().get("anthropic") == "sk-ant-fresh-5555555555"


@pytest.mark.parametrize(
    "text,secret",
    [
        ("key=sk-proj-abcDEF123456789xyz in the log", "sk-proj-abcDEF123456789xyz"),
        ("anthropic sk-ant-api03-AAAABBBBCCCC-dddd", "sk-ant-api03-AAAABBBBCCCC-dddd"),
        ("Authorization: Bearer abc.def-ghi_jkl12345", "abc.def-ghi_jkl12345"),
        ('{"x-api-key": "weird-shaped-token-999"}', "weird-shaped-token-999"),
        ("api_key=plainsecretvalue", "plainsecretvalue"),
    ],
)
def test_redact_masks_key_shaped_text(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out
    assert "REDACTED" in out


def test_redact_masks_known_values_of_any_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    KeyStore().set("local", "opaque-local-token-777")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "envtokenwithoutprefix88")
    keys.register_secret("registered-secret-999")
    try:
        out = redact("a opaque-local-token-777 b envtokenwithoutprefix88 c registered-secret-999 d")
    finally:
        keys.forget_secret("registered-secret-999")
    assert out == "a [REDACTED] b [REDACTED] c [REDACTED] d"


def test_redact_leaves_ordinary_text_alone() -> None:
    text = "Move: up. The ask-price is 5; risk-free. Bearer of news."
    assert redact(text) == text
    assert redact("") == ""
