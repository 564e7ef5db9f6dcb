"""The provider protocol: one request in, a stream of normalised deltas out.

Every provider (OpenAI and compatible servers, Anthropic, the offline simulated model) implements
:class:`LLMClient`. The harness records what goes in (:class:`Request`, exactly as sent) and what comes
out (:class:`Delta` items while streaming, then one :class:`Completion`), so the inspector can show
reasoning and answer apart, live, with tokens, latency and retries.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant"]


@dataclasses.dataclass(frozen=True, slots=True)
class ImagePart:
    """A PNG sent to a vision model."""

    png: bytes
    detail: str = "auto"


@dataclasses.dataclass(frozen=True, slots=True)
class Message:
    role: Role
    text: str
    images: tuple[ImagePart, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Tool:
    """A function the model may call (native tool calling): ``parameters`` is its JSON schema."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclasses.dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call the model made: ``arguments`` is the JSON text exactly as it arrived."""

    name: str
    arguments: str
    id: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class TokenLogprob:
    """One answer token with its log-probability and the most likely alternatives at its place."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Request:
    """One model call. ``thinking`` asks for extended thinking / reasoning where the provider has it:
    ``budget_tokens`` for Anthropic, ``effort`` (low/medium/high) for OpenAI reasoning models."""

    model: str
    messages: tuple[Message, ...]
    temperature: float | None = None
    max_tokens: int = 1024
    thinking: bool = False
    thinking_budget: int | None = None
    effort: str | None = None
    timeout_s: float = 60.0
    #: Free-form tag recorded with the call ("action", "reflection", "perception").
    purpose: str = "action"
    #: Whether the transport may retry this call after a timeout (see ``_calls.MAX_TIMEOUT_RETRIES``).
    #: A caller that re-asks by itself after a failure turns it off so retries do not multiply the wait.
    retry_timeouts: bool = True
    #: Tools offered for native tool calling; the model is asked to call one (empty: a text answer).
    tools: tuple[Tool, ...] = ()
    #: Most likely alternatives to return per answer token where the provider has log-probabilities
    #: (OpenAI's ``logprobs``/``top_logprobs``); 0 asks for none.
    logprobs: int = 0

    def params(self) -> dict[str, Any]:
        """The request parameters as recorded in a session (never credentials)."""
        out: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens, "purpose": self.purpose}
        if self.temperature is not None:
            out["temperature"] = self.temperature
        if self.thinking:
            out["thinking"] = True
            if self.thinking_budget:
                out["thinking_budget"] = self.thinking_budget
            if self.effort:
                out["effort"] = self.effort
        if self.tools:
            out["tools"] = [tool.name for tool in self.tools]
        if self.logprobs:
            out["logprobs"] = self.logprobs
        return out


@dataclasses.dataclass(frozen=True, slots=True)
class Delta:
    """A piece of streamed output: ``kind`` is ``"reasoning"`` (thinking), ``"content"`` (answer) or
    ``"tool"`` (the arguments of a tool call as they stream)."""

    kind: Literal["reasoning", "content", "tool"]
    text: str


@dataclasses.dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class Completion:
    """The finished call: the assembled texts and what it took."""

    content: str
    reasoning: str = ""
    usage: Usage = Usage()
    latency_ms: float = 0.0
    stop_reason: str | None = None
    model: str = ""
    retries: int = 0
    #: Tool calls the model made (native tool calling), in order.
    tool_calls: tuple[ToolCall, ...] = ()
    #: The answer's tokens with their log-probabilities, when asked for and returned.
    logprobs: tuple[TokenLogprob, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class RetryNotice:
    """Reported through ``on_retry`` when the transport retries (429, 5xx, dropped connection)."""

    attempt: int
    reason: str
    wait_s: float | None = None
    status: int | None = None


#: Error kinds that say the model cannot be used at all, whatever is asked: a rejected key (401/403)
#: or a model the server does not have (404). They are run errors, never a player's move or forfeit.
RUN_ERROR_KINDS = frozenset({"auth", "not_found"})


class LLMError(Exception):
    """A model call failed for good. ``kind`` is one of ``timeout``, ``rate_limit``, ``server``,
    ``auth``, ``not_found``, ``connection``, ``bad_request``, ``stream``, ``cancelled``, ``other``.

    ``partial`` holds the answer text received before a stream broke (empty otherwise)."""

    def __init__(
        self, message: str, *, kind: str = "other", status: int | None = None, partial: str = ""
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.partial = partial

    @property
    def is_run_error(self) -> bool:
        """Whether the model cannot be used at all (see :data:`RUN_ERROR_KINDS`)."""
        return self.kind in RUN_ERROR_KINDS


class ModelUnusable(Exception):  # noqa: N818  (a state, like StopIteration)
    """Raised by a model player instead of choosing a move when its model cannot be used at all (a
    rejected key, an unknown model): the episode ends in error, is not scored, and is played again
    once the key or model name is fixed. The message is the provider's one line."""

    def __init__(self, error: LLMError) -> None:
        super().__init__(str(error))
        self.error = error


@runtime_checkable
class LLMClient(Protocol):
    """A model provider.

    :meth:`complete` always streams: every piece of reasoning or answer is passed to ``on_delta`` as
    it arrives (the inspector shows it live), and the assembled :class:`Completion` is returned.
    Transport retries are reported through ``on_retry``. Failures raise :class:`LLMError`;
    cancelling the awaiting task cancels the call.
    """

    #: ``"openai"``, ``"anthropic"``, ``"local"``, ``"sim"``.
    provider: str
    #: Whether the model is simulated (shown as such everywhere in the app).
    simulated: bool

    async def complete(
        self,
        request: Request,
        *,
        on_delta: Callable[[Delta], None] | None = None,
        on_retry: Callable[[RetryNotice], None] | None = None,
    ) -> Completion: ...

    async def aclose(self) -> None: ...
