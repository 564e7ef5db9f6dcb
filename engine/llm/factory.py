"""Model specs to clients: ``"openai:gpt-4o"`` → an :class:`~engine.llm.base.LLMClient` and a model name.

Specs:

* ``openai:MODEL`` — OpenAI (``OPENAI_BASE_URL`` honoured by the SDK);
* ``anthropic:MODEL`` — Anthropic (``ANTHROPIC_BASE_URL`` honoured by the SDK);
* ``local:MODEL@BASE_URL`` — any OpenAI-compatible server; ``BASE_URL`` may also be a preset name
  (``local:llama3.2@ollama``); without ``@`` the Ollama preset is used;
* ``ollama:MODEL``, ``lmstudio:MODEL``, ``vllm:MODEL``, ``llamacpp:MODEL`` — a local preset;
* ``sim`` / ``sim:NAME`` — the offline simulated model (:mod:`engine.llm.sim`).

Local model names may contain colons (``ollama:qwen2.5:7b``); only the first colon separates the
provider, and the last ``@`` the base URL.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.llm.base import LLMClient
from engine.llm.local import PRESETS, resolve_base_url

__all__ = ["ModelSpec", "make_client", "parse_spec"]

# Options make_client passes on to the SDK-backed clients; anything else is ignored for them, so callers
# can hand the same option dict to every provider.
_CLIENT_OPTIONS = ("api_key", "timeout_s", "connect_timeout_s", "max_retries", "max_retry_wait_s")


@dataclasses.dataclass(frozen=True, slots=True)
class ModelSpec:
    """A parsed spec: ``provider`` is ``openai``, ``anthropic``, ``local`` or ``sim``."""

    provider: str
    model: str
    base_url: str | None = None
    preset: str | None = None


def parse_spec(spec: str) -> ModelSpec:
    """Parse a model spec (see the module docstring).

    Raises:
        ValueError: an unknown provider, a missing model name or a bad base URL; the message lists the
            accepted forms.
    """
    text = spec.strip()
    if text == "sim" or text.startswith("sim:"):
        return ModelSpec("sim", text.partition(":")[2] or "default")
    head, sep, rest = text.partition(":")
    head = head.lower()
    if not sep or not rest.strip():
        raise ValueError(f"model spec {spec!r} needs a model name: {_FORMS}")
    rest = rest.strip()
    if head in ("openai", "anthropic"):
        return ModelSpec(head, rest)
    if head in PRESETS:
        return ModelSpec("local", rest, PRESETS[head].base_url, head)
    if head == "local":
        model, at, where = rest.rpartition("@")
        if not at:
            return ModelSpec("local", rest, PRESETS["ollama"].base_url, "ollama")
        if not model:
            raise ValueError(f"model spec {spec!r} needs a model name before '@': {_FORMS}")
        preset = where.strip().lower() if where.strip().lower() in PRESETS else None
        return ModelSpec("local", model, resolve_base_url(where), preset)
    raise ValueError(f"unknown model provider {head!r} in {spec!r}: {_FORMS}")


_FORMS = (
    "use openai:MODEL, anthropic:MODEL, local:MODEL@BASE_URL, "
    + ", ".join(f"{name}:MODEL" for name in PRESETS)
    + ", sim or sim:NAME"
)


def make_client(spec: str, **opts: Any) -> tuple[LLMClient, str]:
    """Build the client for a spec and return it with the bare model name to put in requests.

    Args:
        spec: A model spec (see the module docstring).
        **opts: For openai/anthropic/local: ``api_key``, ``base_url`` (overrides the spec's),
            ``timeout_s``, ``connect_timeout_s``, ``max_retries``, ``max_retry_wait_s``; other options are
            ignored. For ``sim``: passed to :class:`engine.llm.sim.SimClient` as they are.

    Returns:
        ``(client, model)``.

    Raises:
        ValueError: the spec is malformed.
        LLMError: the client cannot be built (e.g. ``kind="auth"``: no OpenAI key anywhere).
    """
    parsed = parse_spec(spec)
    if parsed.provider == "sim":
        # Imported lazily: the simulated model lives in its own module and needs no SDK.
        from engine.llm import sim

        name = sim.parse_spec(spec) if hasattr(sim, "parse_spec") else parsed.model
        client = sim.SimClient(name, **opts)
        return client, str(getattr(client, "model", name))
    kwargs = {k: opts[k] for k in _CLIENT_OPTIONS if opts.get(k) is not None}
    base_url = opts.get("base_url") or parsed.base_url
    if parsed.provider == "anthropic":
        from engine.llm.anthropic_client import AnthropicClient

        return AnthropicClient(base_url=base_url, **kwargs), parsed.model
    from engine.llm.openai_client import OpenAIClient

    return OpenAIClient(base_url=base_url, provider=parsed.provider, **kwargs), parsed.model
