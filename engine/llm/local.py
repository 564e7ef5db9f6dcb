"""Local OpenAI-compatible servers: presets for the common ones and a health check for the settings UI.

Ollama, LM Studio, vLLM and llama.cpp's ``llama-server`` all speak the OpenAI Chat Completions wire
format under ``/v1``, so PlayTrace reaches them through :class:`~engine.llm.openai_client.OpenAIClient`
with ``provider="local"``. :func:`health_check` answers the questions a user has before a run: is the
server up, does it have my model, will it take images?
"""

from __future__ import annotations

import dataclasses
import struct
import zlib
from typing import TYPE_CHECKING

from engine.llm.base import ImagePart, LLMError, Message, Request
from engine.llm.keys import mask_url_password, url_password  # noqa: F401  (part of this module's API)

if TYPE_CHECKING:
    from engine.llm.openai_client import OpenAIClient

__all__ = [
    "PRESETS",
    "HealthReport",
    "LocalPreset",
    "health_check",
    "mask_url_password",
    "resolve_base_url",
    "tiny_png",
    "url_password",
]

#: ``scheme://user:password@``: the password is group 2 (it may contain ':' and '@' but not '/').


@dataclasses.dataclass(frozen=True, slots=True)
class LocalPreset:
    """A known local server: its spec prefix, display label and default base URL."""

    name: str
    label: str
    base_url: str


#: The presets by spec prefix (``ollama:MODEL`` uses ``PRESETS["ollama"]``).
PRESETS: dict[str, LocalPreset] = {
    p.name: p
    for p in (
        LocalPreset("ollama", "Ollama", "http://localhost:11434/v1"),
        LocalPreset("lmstudio", "LM Studio", "http://localhost:1234/v1"),
        LocalPreset("vllm", "vLLM", "http://localhost:8000/v1"),
        LocalPreset("llamacpp", "llama.cpp server", "http://localhost:8080/v1"),
    )
}


def resolve_base_url(name_or_url: str) -> str:
    """A preset's base URL for its name (``"ollama"``), or the URL itself, without a trailing slash.

    Raises:
        ValueError: neither a preset name nor an ``http(s)://`` URL.
    """
    text = name_or_url.strip()
    if text.lower() in PRESETS:
        return PRESETS[text.lower()].base_url
    if text.lower().startswith(("http://", "https://")):
        return text.rstrip("/")
    raise ValueError(
        f"{name_or_url!r} is neither a server preset ({', '.join(PRESETS)}) nor an http(s):// base URL"
    )


@dataclasses.dataclass(frozen=True, slots=True)
class HealthReport:
    """What :func:`health_check` found.

    Attributes:
        reachable: The server answered at all (even with an error status).
        models: The model ids it lists (empty when it lists none or could not be asked).
        model_listed: The requested model is among them (Ollama's implicit ``:latest`` tag counts).
        accepts_images: True when a one-token image request succeeded, False when the server refused
            the image, None when that was not tried or the answer was inconclusive.
        message: One sentence for the settings dialog.
    """

    reachable: bool
    models: list[str]
    model_listed: bool
    accepts_images: bool | None
    message: str


def tiny_png() -> bytes:
    """A valid 1x1 white PNG, built without an imaging library (for the image probe)."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(tag + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    pixels = zlib.compress(b"\x00\xff\xff\xff")  # filter byte 0, one white pixel
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


_IMAGE_REFUSAL_HINTS = ("image", "vision", "multimodal", "mmproj", "image_url")


async def health_check(
    base_url: str,
    model: str,
    api_key: str | None = None,
    timeout: float = 3,
    *,
    probe_images: bool = True,
) -> HealthReport:
    """Check a local server: reachable, lists ``model``, accepts images. Never raises for network trouble.

    Args:
        base_url: The server's base URL (or a preset name such as ``"ollama"``).
        model: The model to look for (and to probe with an image).
        api_key: A key, if the server wants one.
        timeout: Seconds for each request; kept short so the dialog answers quickly.
        probe_images: Whether to send the one-token image probe (it loads the model, which can take a
            while on a cold server).

    Returns:
        A :class:`HealthReport`.
    """
    from engine.llm.openai_client import OpenAIClient  # the SDK is only imported when a check runs

    try:
        url = resolve_base_url(base_url)
    except ValueError as exc:
        return HealthReport(False, [], False, None, str(exc))
    client = OpenAIClient(
        api_key=api_key,
        base_url=url,
        provider="local",
        timeout_s=timeout,
        connect_timeout_s=timeout,
        max_retries=0,
    )
    try:
        try:
            models = await client.list_models()
        except LLMError as exc:
            if exc.kind in ("connection", "timeout", "cancelled"):
                return HealthReport(False, [], False, None, f"No server answers at {url}.")
            # It answered, just not with a model list (some servers have no /models route).
            models = []
            listed = False
            status = f" (HTTP {exc.status})" if exc.status is not None else ""
            note = f"The server at {url} answered but did not list its models{status}."
        else:
            listed = model in models or f"{model}:latest" in models
            if listed:
                note = f"The server at {url} has {model}."
            elif models:
                note = f"The server at {url} does not list {model}; it has: {', '.join(models[:8])}."
            else:
                note = f"The server at {url} lists no models."
        accepts: bool | None = None
        if probe_images and (listed or not models):
            accepts, probe_note = await _probe_images(client, model, timeout)
            note = f"{note} {probe_note}"
        return HealthReport(True, models, listed, accepts, note)
    finally:
        await client.aclose()


async def _probe_images(client: OpenAIClient, model: str, timeout: float) -> tuple[bool | None, str]:
    request = Request(
        model=model,
        messages=(Message("user", "Reply with one word.", (ImagePart(tiny_png(), detail="low"),)),),
        max_tokens=1,
        timeout_s=timeout,
        purpose="health_check",
    )
    try:
        await client.complete(request)
    except LLMError as exc:
        text = str(exc).lower()
        if exc.kind in ("bad_request", "server") and any(h in text for h in _IMAGE_REFUSAL_HINTS):
            return False, "It refused an image, so use text perception."
        if exc.kind == "stream" and exc.partial:
            return True, "It accepted an image."
        return None, f"Could not tell whether it takes images ({exc.kind})."
    return True, "It accepted an image."
