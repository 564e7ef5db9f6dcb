"""OpenAI, and any OpenAI-compatible server (Ollama, LM Studio, vLLM, llama.cpp), behind :class:`LLMClient`.

Calls go through the official ``openai`` SDK's ``AsyncOpenAI.chat.completions.create(stream=True)``:
the Chat Completions wire format is the one every compatible local server speaks. Reasoning arrives
as ``reasoning_content`` (DeepSeek, vLLM, llama.cpp) or ``reasoning`` (Ollama, OpenRouter, newer vLLM)
delta fields and becomes ``Delta("reasoning")``; the answer becomes ``Delta("content")``.

Native tool calling: ``Request.tools`` go out as ``tools`` (functions) with ``tool_choice="required"``
and the streamed ``tool_calls`` deltas are assembled into ``Completion.tool_calls``. With
``Request.logprobs`` the answer's token log-probabilities (``logprobs``/``top_logprobs``) come back in
``Completion.logprobs``; OpenAI's reasoning models have none, so they are not asked for there.

Transport retries are the SDK's own (``max_retries``, ``Retry-After`` honoured) and each one is
reported through ``on_retry``. SDK types never leave this module: failures are :class:`LLMError`.
"""

from __future__ import annotations

import base64
import json
from typing import Any, ClassVar

import openai

from engine.llm._calls import CallState, RetryReportingMixin, SDKClient, llm_error
from engine.llm.base import Completion, LLMError, Message, Request, Usage
from engine.llm.keys import register_secret, resolve_key

__all__ = ["REASONING_ALLOWANCE", "OpenAIClient", "is_reasoning_model"]

#: Sent as the key to local servers that need none (the SDK insists on some key).
NO_KEY = "no-key"
#: Room for hidden reasoning that OpenAI reasoning models get on top of a request's ``max_tokens`` when
#: the request names no ``thinking_budget``. Their reasoning counts against ``max_completion_tokens`` and
#: happens even without ``Request.thinking``; a bare 1024 is often spent on reasoning alone, which ends
#: the call with ``finish_reason="length"`` and no answer (and the harness re-asks into the same wall).
#: It is only a cap: what is billed is what the model uses.
REASONING_ALLOWANCE = 8192

_STOP_REASONS = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
    "tool_calls": "tool_use",
}


#: The SDK's stream over server-sent events, yielding each chunk as the JSON object it is.
_ChunkStream = openai.AsyncStream[object]
#: Send the API key as a bearer token (what ``chat.completions.create`` asks of the SDK).
_SECURITY = {"bearer_auth": True}


class AsyncOpenAI(RetryReportingMixin, openai.AsyncOpenAI):
    """The SDK client with its retries reported (see :class:`RetryReportingMixin`).

    Named like the SDK class on purpose: the SDK derives its User-Agent header from the class name.
    """


def is_reasoning_model(model: str) -> bool:
    """Whether an OpenAI model takes ``reasoning_effort`` and refuses a custom temperature.

    The o-series (o1, o3, o4-mini, ...) and the gpt-5 family do; gpt-4o/gpt-4.1 do not.
    """
    name = model.rsplit("/", 1)[-1].lower()
    return name.startswith("gpt-5") or (len(name) > 1 and name[0] == "o" and name[1].isdigit())


class OpenAIClient(SDKClient):
    """A model behind the OpenAI API or an OpenAI-compatible server.

    Args:
        api_key: The key; when None it is resolved by :func:`engine.llm.keys.resolve_key` (for
            ``provider="openai"``: ``OPENAI_API_KEY``, then the key store; a local server never gets
            ``OPENAI_API_KEY`` and is sent a placeholder when it has no key).
        base_url: The server, e.g. ``http://localhost:11434/v1``. None for OpenAI itself (the SDK then
            honours ``OPENAI_BASE_URL``). Required when ``provider="local"``.
        provider: ``"openai"`` or ``"local"``.
        timeout_s: Longest wait for the connection or for the next piece of the stream; a request's own
            ``timeout_s`` can only shorten it. The SDK's default (10 minutes) is far too long for a UI.
        connect_timeout_s: Longest wait to connect.
        max_retries: Transport retries by the SDK (429, 408, 409, 5xx, connection errors, timeouts;
            a timeout is retried at most once per call, see ``_calls.MAX_TIMEOUT_RETRIES``).
        max_retry_wait_s: Upper bound on any single retry wait (None: the SDK's own, which honours
            ``Retry-After`` up to 2 minutes). A UI may prefer to fail fast and say so.

    Raises:
        LLMError: kind ``auth`` when no key can be found for OpenAI; ``bad_request`` for a local
            provider without a base URL.
    """

    sdk: ClassVar[Any] = openai
    wire_format: ClassVar[str] = "OpenAI API"
    call_errors = (openai.APIError,)

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        provider: str = "openai",
        timeout_s: float = 60.0,
        connect_timeout_s: float = 5.0,
        max_retries: int = 2,
        max_retry_wait_s: float | None = None,
    ) -> None:
        if provider not in ("openai", "local"):
            raise ValueError(f"provider must be 'openai' or 'local', not {provider!r}")
        self.provider = provider
        super().__init__(
            timeout_s=timeout_s,
            connect_timeout_s=connect_timeout_s,
            max_retries=max_retries,
            max_retry_wait_s=max_retry_wait_s,
        )
        if provider == "local" and not base_url:
            raise llm_error(provider, "a local server needs a base URL", kind="bad_request")
        key = resolve_key(provider, api_key)
        if key is None:
            if provider == "openai":
                raise llm_error(
                    provider,
                    "no API key; set OPENAI_API_KEY or add a key in PlayTrace's settings",
                    kind="auth",
                )
            key = NO_KEY
        register_secret(key)
        self._sdk = AsyncOpenAI(
            api_key=key,
            base_url=base_url,
            timeout=self._timeout(self.timeout_s),
            max_retries=self.max_retries,
        )

    def __repr__(self) -> str:
        # Deliberately without the key: reprs end up in logs and crash reports.
        return f"OpenAIClient(provider={self.provider!r}, base_url={self.base_url!r})"

    __str__ = __repr__

    async def list_models(self) -> list[str]:
        """The model ids the server lists (``GET /models``).

        Raises:
            LLMError: the server could not be asked.
        """
        try:
            page = await self._sdk.models.list()
            return [m.id async for m in page]
        except openai.APIError as exc:
            raise self._api_error(exc, "listing models", CallState(None, None), streaming=False) from None
        except (ValueError, TypeError, AttributeError, LookupError) as exc:
            # A 200 that is not a model list (a web page on the wrong port, a bare JSON array): the SDK
            # does not validate it, so reading it fails with whatever the body happened to be.
            raise llm_error(
                self.provider,
                "the server did not answer with a model list",
                kind="stream",
                detail=type(exc).__name__,
            ) from None

    # -- one call --------------------------------------------------------------------------------------

    def build_params(self, request: Request) -> dict[str, Any]:
        """The keyword arguments for ``chat.completions.create`` for ``request`` (no credentials)."""
        params: dict[str, Any] = {
            "model": request.model,
            "messages": [_wire_message(m) for m in request.messages],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        reasoning = self.provider == "openai" and is_reasoning_model(request.model)
        if self.provider == "openai":
            # OpenAI deprecated max_tokens and reasoning models reject it; compatible servers vary, and
            # all of them understand max_tokens.
            params["max_completion_tokens"] = request.max_tokens
            if reasoning:
                # As for Anthropic's budget: the answer's allowance comes on top of the reasoning room.
                room = int(request.thinking_budget or REASONING_ALLOWANCE)
                if request.max_tokens <= room:
                    params["max_completion_tokens"] = room + request.max_tokens
        else:
            params["max_tokens"] = request.max_tokens
        if request.temperature is not None and not reasoning:
            # Reasoning models refuse any temperature but the default; it is dropped rather than failing.
            params["temperature"] = request.temperature
        if request.effort and (reasoning or self.provider == "local"):
            params["reasoning_effort"] = request.effort
        if request.tools:
            params["tools"] = [
                {"type": "function",
                 "function": {"name": t.name, "description": t.description, "parameters": dict(t.parameters)}}
                for t in request.tools
            ]
            # An answer must be a call (compatible servers too: vLLM, llama.cpp; Ollama ignores it).
            params["tool_choice"] = "required"
        if request.logprobs and not reasoning:
            params["logprobs"] = True
            params["top_logprobs"] = min(20, int(request.logprobs))
        return params

    async def _open_stream(self, params: dict[str, Any], timeout: Any) -> Any:
        # The SDK's own request path (auth, retries, errors, SSE decoding) without its per-call extras:
        # ``chat.completions.create`` walks the whole request through its type-driven transform and
        # builds a pydantic model of every streamed chunk, about 2.5 ms of CPU per call that a batch
        # of many episodes pays on one event loop. The parameters are plain JSON already (what
        # ``build_params`` makes) and the chunks are read as the JSON the server sent.
        return await self._sdk.post(
            "/chat/completions",
            body=params,
            cast_to=object,
            stream=True,
            stream_cls=_ChunkStream,
            options={"timeout": timeout, "security": _SECURITY},
        )

    async def _consume(self, stream: Any, request: Request, state: CallState) -> Completion:
        content_type = stream.response.headers.get("content-type", "")
        if content_type.startswith("application/json"):
            # Some compatible servers ignore stream=True and answer with one JSON document.
            return await self._from_json(stream, request, state)
        finish: str | None = None
        usage = Usage()
        model = ""
        async for chunk in stream:
            state.progress()  # a chunk of the API (SSE comments never get here)
            if not isinstance(chunk, dict):
                raise TypeError(f"a stream chunk that is not a JSON object: {type(chunk).__name__}")
            model = chunk.get("model") or model
            for choice in chunk.get("choices") or ():
                # Some compatible servers leave out "index"; they send one choice anyway.
                if choice.get("index") not in (0, None):
                    continue
                delta = choice.get("delta")
                if isinstance(delta, dict):
                    reasoning = _reasoning_text(delta)
                    if reasoning:
                        state.emit("reasoning", reasoning)
                    if delta.get("content"):
                        state.emit("content", _text_of(delta["content"]))
                    if delta.get("refusal"):
                        state.emit("content", delta["refusal"])
                    for call in delta.get("tool_calls") or ():
                        _tool_piece(state, call)
                _logprobs(state, choice.get("logprobs"))
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
            if chunk.get("usage") is not None:
                usage = _usage(chunk["usage"])
        if finish is None:
            # The body ended cleanly but the model never finished: a proxy or server cut the stream.
            raise self._failure(state, "the stream ended before the answer was finished", kind="stream")
        return state.completion(
            usage=usage, stop_reason=_STOP_REASONS.get(finish, finish), model=model or request.model
        )

    async def _from_json(self, stream: Any, request: Request, state: CallState) -> Completion:
        data = json.loads(await stream.response.aread())
        choice = data["choices"][0]
        message = choice.get("message") or {}
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        if isinstance(reasoning, str):
            state.emit("reasoning", reasoning)
        state.emit("content", _text_of(message.get("content")))
        for index, call in enumerate(message.get("tool_calls") or ()):
            _tool_piece(state, {"index": index, **call})
        _logprobs(state, choice.get("logprobs"))
        raw_usage = data.get("usage") or {}
        details = raw_usage.get("completion_tokens_details") or {}
        finish = choice.get("finish_reason") or "stop"
        return state.completion(
            usage=Usage(
                input_tokens=int(raw_usage.get("prompt_tokens") or 0),
                output_tokens=int(raw_usage.get("completion_tokens") or 0),
                reasoning_tokens=int(details.get("reasoning_tokens") or 0),
            ),
            stop_reason=_STOP_REASONS.get(finish, finish),
            model=data.get("model") or request.model,
        )

    def _other_api_error(self, exc: Any, what: str, state: CallState, *, streaming: bool) -> LLMError:
        # An error object inside the stream, or a response the SDK could not validate.
        if not streaming:
            return super()._other_api_error(exc, what, state, streaming=streaming)
        return self._failure(
            state, "the server reported an error mid-stream", kind="server", detail=exc.message
        )


def _wire_message(message: Message) -> dict[str, Any]:
    if not message.images:
        return {"role": message.role, "content": message.text}
    if message.role != "user":
        # The Chat Completions API only takes images from the user; dropping them silently would break
        # "what the human sees is what the model gets".
        raise LLMError("images can only be sent in user messages", kind="bad_request")
    parts: list[dict[str, Any]] = []
    if message.text:
        parts.append({"type": "text", "text": message.text})
    for image in message.images:
        url = "data:image/png;base64," + base64.b64encode(image.png).decode("ascii")
        parts.append({"type": "image_url", "image_url": {"url": url, "detail": image.detail}})
    return {"role": "user", "content": parts}


def _text_of(content: Any) -> str:
    """A delta's ``content`` as text: a string, or the text parts of a list of content parts (some
    compatible servers stream ``[{"type": "text", "text": ...}]``); anything else has no text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            get = part.get if isinstance(part, dict) else lambda key, p=part: getattr(p, key, None)
            if get("type") in (None, "text") and isinstance(get("text"), str):
                texts.append(str(get("text")))
        return "".join(texts)
    return ""


def _tool_piece(state: CallState, call: Any) -> None:
    """One streamed piece of a tool call (``{"index", "id", "function": {"name", "arguments"}}``)."""
    if not isinstance(call, dict):
        return
    raw_function = call.get("function")
    function: dict[str, Any] = raw_function if isinstance(raw_function, dict) else {}
    index = call.get("index")
    arguments = function.get("arguments")
    state.tool(
        index if isinstance(index, int) else 0,
        id=str(call.get("id") or ""),
        name=str(function.get("name") or ""),
        arguments=arguments if isinstance(arguments, str) else "",
    )


def _logprobs(state: CallState, raw: Any) -> None:
    """The answer tokens' log-probabilities of a choice (``{"content": [{"token", "logprob",
    "top_logprobs"}]}``); anything else carries none."""
    if not isinstance(raw, dict):
        return
    for item in raw.get("content") or ():
        if not isinstance(item, dict) or not isinstance(item.get("logprob"), (int, float)):
            continue
        top = tuple(
            (str(alt.get("token", "")), float(alt["logprob"]))
            for alt in item.get("top_logprobs") or ()
            if isinstance(alt, dict) and isinstance(alt.get("logprob"), (int, float))
        )
        state.logprob(str(item.get("token", "")), float(item["logprob"]), top)


def _reasoning_text(delta: dict[str, Any]) -> str:
    # Only plain strings are reasoning.
    for name in ("reasoning_content", "reasoning"):
        value = delta.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    details = raw.get("completion_tokens_details")
    return Usage(
        input_tokens=int(raw.get("prompt_tokens") or 0),
        output_tokens=int(raw.get("completion_tokens") or 0),
        reasoning_tokens=int(details.get("reasoning_tokens") or 0) if isinstance(details, dict) else 0,
    )
