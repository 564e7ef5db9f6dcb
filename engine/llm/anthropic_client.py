"""Anthropic's Messages API behind :class:`LLMClient`, through the official ``anthropic`` SDK.

Calls use ``AsyncAnthropic.messages.create(stream=True)`` and read the raw stream events
(``message_start``, ``content_block_start/delta/stop``, ``message_delta``, ``message_stop``):
``thinking_delta`` becomes ``Delta("reasoning")``, ``text_delta`` becomes ``Delta("content")``.
System messages go to the separate ``system`` parameter; images are base64 PNG blocks. Extended thinking
is requested as ``{"type": "enabled", "budget_tokens": N}`` when ``Request.thinking`` is set (adaptive
thinking for the models the SDK marks as preferring it). ``Request.temperature`` is not sent: the
current Messages API has no sampling parameters.

Native tool calling: ``Request.tools`` go out as ``tools`` with ``tool_choice={"type": "any"}`` (``auto``
with extended thinking, which refuses a forced tool); ``tool_use`` blocks and their
``input_json_delta`` pieces become ``Completion.tool_calls``. The Messages API has no log-probabilities.

Transport retries are the SDK's own and each is reported through ``on_retry``. SDK types never leave
this module: failures are :class:`LLMError`.
"""

from __future__ import annotations

import base64
import warnings
from typing import Any, ClassVar

import anthropic
import httpx2

from engine.llm._calls import CallState, RetryReportingMixin, SDKClient, kind_for_status, llm_error
from engine.llm.base import Completion, LLMError, Request, Usage
from engine.llm.keys import register_secret, resolve_key

__all__ = ["DEFAULT_THINKING_BUDGET", "MIN_THINKING_BUDGET", "AnthropicClient"]

#: Thinking budget when a request asks for thinking without a budget.
DEFAULT_THINKING_BUDGET = 2048
#: The API's smallest accepted budget.
MIN_THINKING_BUDGET = 1024

_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_use",
    "refusal": "refusal",
    "pause_turn": "pause",
}


def _adaptive_thinking_models() -> frozenset[str]:
    # The SDK keeps the list of models that should get adaptive rather than budgeted thinking; it is not
    # public API, so its absence simply means "budgeted thinking everywhere".
    try:
        from anthropic.resources.messages.messages import (  # type: ignore[attr-defined]
            MODELS_TO_WARN_WITH_THINKING_ENABLED,
        )
    except ImportError:
        return frozenset()
    return frozenset(MODELS_TO_WARN_WITH_THINKING_ENABLED)


_ADAPTIVE_THINKING_MODELS = _adaptive_thinking_models()


def _deprecated_models() -> dict[str, str]:
    # The SDK's list of deprecated models and their end-of-life dates (not public API either).
    try:
        from anthropic.resources.messages.messages import DEPRECATED_MODELS  # type: ignore[attr-defined]
    except ImportError:
        return {}
    return dict(DEPRECATED_MODELS)


_DEPRECATED_MODELS = _deprecated_models()
#: The SDK's stream over server-sent events, yielding each event as the JSON object it is.
_EventStream = anthropic.AsyncStream[object]


class AsyncAnthropic(RetryReportingMixin, anthropic.AsyncAnthropic):
    """The SDK client with its retries reported (see :class:`RetryReportingMixin`).

    Named like the SDK class on purpose: the SDK derives its User-Agent header from the class name.
    """


class AnthropicClient(SDKClient):
    """A Claude model.

    Args:
        api_key: The key; when None it is resolved by :func:`engine.llm.keys.resolve_key`
            (``ANTHROPIC_API_KEY``, then the key store); with none there, the SDK's own credential
            sources (profiles, ``ANTHROPIC_AUTH_TOKEN``) apply and a call without any fails with
            ``LLMError(kind="auth")``.
        base_url: None for Anthropic itself (the SDK then honours ``ANTHROPIC_BASE_URL``).
        timeout_s: Longest wait for the connection or for the next piece of the stream; a request's own
            ``timeout_s`` can only shorten it.
        connect_timeout_s: Longest wait to connect.
        max_retries: Transport retries by the SDK (429, 408, 409, 5xx/529, connection errors, timeouts;
            a timeout is retried at most once per call, see ``_calls.MAX_TIMEOUT_RETRIES``).
        max_retry_wait_s: Upper bound on any single retry wait (None: the SDK's own, honouring
            ``Retry-After``).
    """

    provider = "anthropic"
    sdk: ClassVar[Any] = anthropic
    wire_format: ClassVar[str] = "Anthropic API"
    # Besides the SDK's API errors: httpx2's, because the SDK does not wrap transport errors raised
    # while reading the stream, and AnthropicError for credential problems found before sending.
    call_errors = (anthropic.APIError, httpx2.HTTPError, anthropic.AnthropicError)

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_s: float = 60.0,
        connect_timeout_s: float = 5.0,
        max_retries: int = 2,
        max_retry_wait_s: float | None = None,
    ) -> None:
        super().__init__(
            timeout_s=timeout_s,
            connect_timeout_s=connect_timeout_s,
            max_retries=max_retries,
            max_retry_wait_s=max_retry_wait_s,
        )
        key = resolve_key("anthropic", api_key)
        register_secret(key)
        kwargs: dict[str, Any] = {
            "timeout": self._timeout(self.timeout_s),
            "max_retries": self.max_retries,
            # Sessions are PlayTrace's trace; prompts must not also flow to a tracing backend by accident.
            "open_telemetry": False,
        }
        if key is not None:
            kwargs["api_key"] = key
        if base_url:
            kwargs["base_url"] = base_url
        try:
            self._sdk = AsyncAnthropic(**kwargs)
        except anthropic.AnthropicError as exc:
            # The SDK's own credential sources (profiles, federation) can fail while it is built.
            raise llm_error(self.provider, "no usable credentials", kind="auth", detail=str(exc)) from None

    def __repr__(self) -> str:
        # Deliberately without the key: reprs end up in logs and crash reports.
        return f"AnthropicClient(base_url={self.base_url!r})"

    __str__ = __repr__

    # -- one call --------------------------------------------------------------------------------------

    def build_params(self, request: Request) -> dict[str, Any]:
        """The keyword arguments for ``messages.create`` for ``request`` (no credentials)."""
        system = "\n\n".join(m.text for m in request.messages if m.role == "system" and m.text)
        messages: list[dict[str, Any]] = []
        for m in request.messages:
            if m.role == "system":
                if m.images:
                    raise LLMError("images cannot be sent in a system message", kind="bad_request")
                continue
            if not m.images:
                messages.append({"role": m.role, "content": m.text})
                continue
            blocks: list[dict[str, Any]] = [
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": "image/png",
                        "data": base64.b64encode(img.png).decode("ascii"),
                    },
                }
                for img in m.images
            ]
            if m.text:
                blocks.append({"type": "text", "text": m.text})
            messages.append({"role": m.role, "content": blocks})
        params: dict[str, Any] = {
            "model": request.model,
            "messages": messages,
            "max_tokens": request.max_tokens,
            "stream": True,
        }
        if system:
            params["system"] = system
        if request.tools:
            params["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
                for t in request.tools
            ]
            # Extended thinking only allows the model to choose; otherwise it must call a tool.
            params["tool_choice"] = {"type": "auto" if request.thinking else "any"}
        if request.thinking:
            budget = max(MIN_THINKING_BUDGET, int(request.thinking_budget or DEFAULT_THINKING_BUDGET))
            if request.model in _ADAPTIVE_THINKING_MODELS:
                # Models for which the SDK deprecates budgeted thinking; "summarized" keeps the thinking
                # text visible in the inspector.
                params["thinking"] = {"type": "adaptive", "display": "summarized"}
            else:
                params["thinking"] = {"type": "enabled", "budget_tokens": budget}
            # max_tokens counts thinking too and must exceed the budget; keep the request's allowance
            # for the answer itself on top of the budget.
            if request.max_tokens <= budget:
                params["max_tokens"] = budget + request.max_tokens
        # No temperature: the current Messages API (and so SDK 2.x's create()) has no sampling
        # parameters any more, so Request.temperature does not apply to Anthropic models.
        return params

    async def _open_stream(self, params: dict[str, Any], timeout: Any) -> Any:
        # The SDK's own request path (auth, retries, errors, SSE decoding, "error" events) without a
        # pydantic model per streamed event: a batch of many episodes pays that on one event loop. The
        # parameters are the Messages API's JSON already, and the events are read as the JSON sent.
        if params["model"] in _DEPRECATED_MODELS:  # what messages.create would say
            warnings.warn(f"The model '{params['model']}' is deprecated and will reach end-of-life on "
                          f"{_DEPRECATED_MODELS[params['model']]}.", DeprecationWarning, stacklevel=2)
        return await self._sdk.post(
            "/v1/messages", body=params, cast_to=object, stream=True, stream_cls=_EventStream,
            options={"timeout": timeout},
        )

    async def _consume(self, stream: Any, request: Request, state: CallState) -> Completion:
        input_tokens = output_tokens = thinking_tokens = 0
        stop_reason: str | None = None
        model = ""
        finished = False
        async for event in stream:
            if not isinstance(event, dict):
                raise TypeError(f"a stream event that is not a JSON object: {type(event).__name__}")
            kind = event.get("type")
            if kind != "ping":  # a ping is a keep-alive: it does not move the answer on
                state.progress()
            if kind == "message_start":
                message = event["message"]
                model = message.get("model") or model
                usage = message.get("usage")
                if isinstance(usage, dict):
                    # Cached prompt tokens are input tokens too (billed differently, counted the same).
                    input_tokens = (
                        int(usage.get("input_tokens") or 0)
                        + int(usage.get("cache_creation_input_tokens") or 0)
                        + int(usage.get("cache_read_input_tokens") or 0)
                    )
                    output_tokens = int(usage.get("output_tokens") or 0)
            elif kind == "content_block_start":
                block = event["content_block"]
                btype = block.get("type")
                if btype == "thinking":
                    state.emit("reasoning", block.get("thinking") or "")
                elif btype == "text":
                    state.emit("content", block.get("text") or "")
                elif btype == "tool_use":
                    index = event.get("index")
                    state.tool(index if isinstance(index, int) else 0, id=str(block.get("id") or ""),
                               name=str(block.get("name") or ""))
            elif kind == "content_block_delta":
                delta = event["delta"]
                dtype = delta.get("type")
                if dtype == "thinking_delta":
                    state.emit("reasoning", delta["thinking"])
                elif dtype == "text_delta":
                    state.emit("content", delta["text"])
                elif dtype == "input_json_delta":
                    index = event.get("index")
                    piece = delta.get("partial_json") or ""
                    state.tool(index if isinstance(index, int) else 0, arguments=piece)
                # signature_delta (thinking integrity) and tool input deltas carry no readable text.
            elif kind == "message_delta":
                stop_reason = (event.get("delta") or {}).get("stop_reason") or stop_reason
                usage = event.get("usage")
                if isinstance(usage, dict):
                    # message_delta's output_tokens are cumulative for the whole message.
                    output_tokens = int(usage.get("output_tokens") or output_tokens)
                    if usage.get("input_tokens"):
                        input_tokens = int(usage["input_tokens"])
                    details = usage.get("output_tokens_details")
                    if isinstance(details, dict):
                        thinking_tokens = int(details.get("thinking_tokens") or 0)
            elif kind == "message_stop":
                finished = True
        if not finished:
            raise self._failure(state, "the stream ended before the answer was finished", kind="stream")
        return state.completion(
            usage=Usage(
                input_tokens=input_tokens, output_tokens=output_tokens, reasoning_tokens=thinking_tokens
            ),
            stop_reason=_STOP_REASONS.get(stop_reason or "", stop_reason),
            model=model or request.model,
        )

    def _call_error(self, exc: Exception, state: CallState, *, streaming: bool) -> LLMError:
        if isinstance(exc, anthropic.APIStatusError) and exc.status_code < 400 and not self._closed:
            # An "error" event inside a 200 stream (overloaded mid-answer): "HTTP 200" plus the body's
            # repr would read as a success; say what happened and name the error type.
            error = exc.body.get("error") if isinstance(exc.body, dict) else None
            if isinstance(error, dict):
                detail = ": ".join(str(error[k]) for k in ("type", "message") if error.get(k))
            else:
                detail = exc.message
            return self._failure(
                state, "the server reported an error mid-stream", kind="server", detail=detail
            )
        if isinstance(exc, anthropic.APIError):
            return super()._call_error(exc, state, streaming=streaming)
        # httpx2's errors come from reading the stream, which the SDK does not wrap.
        if isinstance(exc, httpx2.TimeoutException):
            return self._failure(state, "timed out waiting for the rest of the answer", kind="timeout")
        if isinstance(exc, httpx2.HTTPError):
            if self._closed:
                return self._failure(state, "the client was closed during the call", kind="cancelled")
            return self._failure(
                state,
                "the connection broke in the middle of the answer",
                kind="stream",
                detail=type(exc).__name__,
            )
        # Credentials problems and the like, raised before anything is sent.
        return llm_error(self.provider, "the call could not be made", kind="auth", detail=str(exc))

    def _request_error(self, exc: Exception) -> None:
        if isinstance(exc, TypeError) and self._sdk.api_key is None and self._sdk.auth_token is None:
            # The SDK refuses to build a request without any credentials (a TypeError).
            raise llm_error(
                self.provider,
                "no API key; set ANTHROPIC_API_KEY or add a key in PlayTrace's settings",
                kind="auth",
            ) from None

    def _status_kind(self, status: int) -> str:
        # An "error" event inside a 200 stream (e.g. overloaded mid-answer) arrives as a status error
        # carrying the 200 response; it is the server's failure, not the request's.
        return "server" if status < 400 else kind_for_status(status)
