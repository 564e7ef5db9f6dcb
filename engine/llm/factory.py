"""Model specs to clients: ``"openai:gpt-4o"`` → an :class:`~engine.llm.base.LLMClient` and a model name.

Specs:

* ``openai:MODEL`` — OpenAI (``OPENAI_BASE_URL`` honoured by the SDK);
* ``anthropic:MODEL`` — Anthropic (``ANTHROPIC_BASE_URL`` honoured by the SDK);
* ``local:MODEL@BASE_URL`` — any OpenAI-compatible server; ``BASE_URL`` may also be a preset name
  (``local:llama3.2@ollama``); without ``@`` the Ollama preset is used;
* ``ollama:MODEL``, ``lmstudio:MODEL``, ``vllm:MODEL``, ``llamacpp:MODEL`` — a local preset;
* ``sim`` / ``sim:NAME`` — the offline simulated model (:mod:`engine.llm.sim`).

Local model names may contain colons (``ollama:qwen2.5:7b``) and ``@``: only the first colon separates
the provider. In ``local:MODEL@BASE_URL`` the base URL starts at the first ``@`` that is followed by
``http://`` or ``https://``, so the URL itself may carry credentials
(``local:llama3@http://user:secret@host/v1``, sent as HTTP basic authentication) and the model name may
contain ``@`` (``local:team@v2@http://host/v1``). Without such an ``@``, the text after the last ``@``
must be a preset name (``local:llama3.2@ollama``).

A password in a base URL is never shown: :func:`public_spec` and every client's ``base_url`` mask it,
it is registered with :func:`engine.llm.keys.register_secret`, and :func:`engine.llm.keys.redact` (used
by logs and session writers) masks the password of any URL it sees.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from engine.llm.base import LLMClient
from engine.llm.keys import mask_url_password, register_secret, url_password
from engine.llm.local import PRESETS, resolve_base_url

__all__ = ["ModelSpec", "make_client", "parse_spec", "public_spec"]

# The '@' that starts a base URL: the first one followed by a scheme.
_URL_AT = re.compile(r"@(?=https?://)", re.IGNORECASE)

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

    def __repr__(self) -> str:  # a password in the base URL never reaches a log through a repr
        url = mask_url_password(self.base_url) if self.base_url else None
        return (
            f"ModelSpec(provider={self.provider!r}, model={self.model!r}, base_url={url!r}, "
            f"preset={self.preset!r})"
        )


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
        model, where = _split_local(rest)
        if where is None:
            return ModelSpec("local", rest, PRESETS["ollama"].base_url, "ollama")
        if not model:
            raise ValueError(f"model spec {public_spec(spec)!r} needs a model name before '@': {_FORMS}")
        preset = where.strip().lower() if where.strip().lower() in PRESETS else None
        try:
            base_url = resolve_base_url(where)
        except ValueError as exc:
            raise ValueError(mask_url_password(str(exc))) from None
        register_secret(url_password(base_url))
        return ModelSpec("local", model, base_url, preset)
    raise ValueError(f"unknown model provider {head!r} in {spec!r}: {_FORMS}")


def _split_local(rest: str) -> tuple[str, str | None]:
    """``MODEL@WHERE`` → (model, where): at the first ``@`` followed by a URL scheme, else at the last
    ``@`` (a preset name); ``where`` is None without any ``@``."""
    found = _URL_AT.search(rest)
    if found is not None:
        return rest[: found.start()].strip(), rest[found.end() :]
    model, at, where = rest.rpartition("@")
    return (model.strip(), where) if at else (rest, None)


def public_spec(spec: str) -> str:
    """``spec`` as it may be shown, logged or recorded: the password of a base URL in it masked."""
    return mask_url_password(spec)


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
