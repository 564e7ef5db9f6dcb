"""Plumbing shared by the SDK-backed providers: the call skeleton, per-call state, visible retries,
error wording.

Nothing here imports a provider SDK. :class:`SDKClient` holds what a streamed call does whatever the
provider; each provider module subclasses it and supplies only what is specific to its SDK. The SDK
clients are subclassed in their own modules with :class:`RetryReportingMixin`, which overrides the
SDKs' retry-sleep hook so every transport retry the SDK performs (429 with ``Retry-After``, 5xx,
dropped connections, timeouts) reaches the current call's ``on_retry`` before the wait starts. The
current call is found through a :class:`contextvars.ContextVar`, so concurrent calls on one client
(batch runs) each report their own retries."""

from __future__ import annotations

import abc
import asyncio
import contextlib
import contextvars
import email.utils
import math
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from engine.llm.base import Completion, Delta, LLMError, Request, RetryNotice, TokenLogprob, ToolCall, Usage
from engine.llm.keys import mask_url_password, redact
from engine.llm.limits import estimate_tokens

if TYPE_CHECKING:
    from engine.llm.limits import RateLimiter

__all__ = [
    "CallState",
    "CallbackFailed",
    "MAX_TIMEOUT_RETRIES",
    "RetryReportingMixin",
    "SDKClient",
    "current_call",
    "kind_for_status",
    "llm_error",
]


#: Transport retries after a *timeout* within one call, whatever ``max_retries`` allows. A server that
#: stayed silent for a whole timeout twice in a row is unlikely to answer a third time, and each such
#: retry costs a full timeout: with the SDK's default policy (``max_retries=2``) one call could wait
#: three timeouts, and the harness re-asks on top of that. With this bound one call waits at most two
#: timeouts plus a short backoff; 429/5xx/connection retries still follow ``max_retries``.
MAX_TIMEOUT_RETRIES = 1

#: A call's total deadline, in timeouts: however the server keeps the connection alive (SSE comments,
#: a drip of empty chunks), a call ends after this many times its ``--timeout``.
TOTAL_DEADLINE_TIMEOUTS = 20
#: Slack on the watchdog so the SDK's own read timeout fires first when the server is silent.
_WATCHDOG_SLACK_S = 0.5

#: Shared pauses one call waits out after 429 answers when its client has a
#: :class:`~engine.llm.limits.RateLimiter` (then the SDK does not retry a 429 by itself).
MAX_RATE_LIMITED_WAITS = 8


#: Content types a streamed answer may come with; anything else (text/html above all) is not the API.
_API_MEDIA_TYPES = frozenset(
    {"", "text/event-stream", "application/json", "text/plain", "application/x-ndjson"}
)
#: How much of a body that is not the API's is read to quote its first line.
_PEEK_BYTES = 4096
_FIRST_LINE_CHARS = 120


class _TimeoutRetriesSpent(Exception):
    """Raised by :class:`RetryReportingMixin` instead of retrying a call's timeout once more."""


class _RateLimited(Exception):
    """Raised by :class:`RetryReportingMixin` on a 429 when the call's client has a rate limiter: the
    call waits for the limiter's shared pause instead of the SDK retrying it on its own."""

    def __init__(self, wait_s: float | None) -> None:
        super().__init__(wait_s)
        self.wait_s = wait_s


def retry_after(headers: Any) -> float | None:
    """The wait a 429/503 asks for: ``retry-after-ms``, else ``retry-after`` in seconds or as an HTTP
    date; ``None`` when the headers name none (or something unreadable)."""
    if headers is None:
        return None
    try:
        millis = headers.get("retry-after-ms")
        if millis is not None:
            value = float(millis) / 1000.0
            return value if math.isfinite(value) and value >= 0 else None
        text = headers.get("retry-after")
    except (AttributeError, TypeError, ValueError):
        return None
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(str(text))
        except (TypeError, ValueError, IndexError):
            return None
        return max(0.0, when.timestamp() - time.time())
    return value if math.isfinite(value) and value >= 0 else None


class CallbackFailed(Exception):
    """Carries an exception raised by the caller's ``on_delta``/``on_retry`` through the provider code.

    Providers re-raise ``original`` unchanged, so a bug in a UI callback is never mistaken for (and
    reported as) a broken stream.
    """

    def __init__(self, original: BaseException) -> None:
        super().__init__(repr(original))
        self.original = original


class CallState:
    """What one :meth:`complete` call has received so far, and where to report it."""

    def __init__(
        self,
        on_delta: Callable[[Delta], None] | None,
        on_retry: Callable[[RetryNotice], None] | None,
        *,
        max_retry_wait_s: float | None = None,
        max_timeout_retries: int = MAX_TIMEOUT_RETRIES,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.on_delta = on_delta
        self.on_retry = on_retry
        self.max_retry_wait_s = max_retry_wait_s
        self.content: list[str] = []
        self.reasoning: list[str] = []
        #: Tool calls by their index in the answer: [id, name, argument pieces].
        self.tools: dict[int, tuple[list[str], list[str], list[str]]] = {}
        self.logprobs: list[TokenLogprob] = []
        self.retries = 0
        #: Transport retries this call already spent on timeouts (see :data:`MAX_TIMEOUT_RETRIES`).
        self.timeout_retries = 0
        #: How many timeouts this call may retry (0 when the caller re-asks by itself).
        self.max_timeout_retries = max_timeout_retries
        #: The client's shared rate limiter: a 429 pauses every call through it.
        self.limiter = limiter
        self.started = time.perf_counter()
        #: The watchdog of the attempt in progress: the answer must keep coming (see :meth:`progress`).
        self._watchdog: asyncio.Timeout | None = None
        self._gap_s = 0.0
        self._hard_end = math.inf

    def watch(self, watchdog: asyncio.Timeout, gap_s: float, hard_end: float) -> None:
        """Arm ``watchdog``: it fires when no piece of the answer came for ``gap_s`` seconds (bytes that
        carry none, such as SSE keep-alive comments, do not count) or at ``hard_end`` (loop time)."""
        self._watchdog = watchdog
        self._gap_s = gap_s
        self._hard_end = hard_end
        self.progress()

    def progress(self, extra_s: float = 0.0) -> None:
        """A piece of the answer arrived (or a retry starts after ``extra_s`` of waiting)."""
        if self._watchdog is None:
            return
        now = asyncio.get_running_loop().time()
        self._watchdog.reschedule(min(now + extra_s + self._gap_s + _WATCHDOG_SLACK_S, self._hard_end))

    def emit(self, kind: str, text: str) -> None:
        """Record a streamed piece and pass it on, in arrival order."""
        if not text or not isinstance(text, str):
            # Only text is kept: anything else would break joining the pieces, even in the error path.
            return
        (self.reasoning if kind == "reasoning" else self.content).append(text)
        self.progress()
        if self.on_delta is not None:
            try:
                self.on_delta(Delta("reasoning" if kind == "reasoning" else "content", text))
            except Exception as exc:
                raise CallbackFailed(exc) from exc

    def tool(self, index: int, *, id: str = "", name: str = "", arguments: str = "") -> None:  # noqa: A002
        """Record a streamed piece of tool call ``index`` (its id and name arrive first, then the
        arguments in pieces) and pass the argument text on as a ``tool`` delta."""
        ids, names, args = self.tools.setdefault(index, ([], [], []))
        if id:
            ids.append(id)
        if name:
            names.append(name)
        if arguments and isinstance(arguments, str):
            args.append(arguments)
            if self.on_delta is not None:
                try:
                    self.on_delta(Delta("tool", arguments))
                except Exception as exc:
                    raise CallbackFailed(exc) from exc

    def logprob(self, token: str, logprob: float, top: tuple[tuple[str, float], ...] = ()) -> None:
        """Record one answer token's log-probability (and its most likely alternatives)."""
        self.logprobs.append(TokenLogprob(token, float(logprob), top))

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(
            ToolCall("".join(names), "".join(args), "".join(ids))
            for _, (ids, names, args) in sorted(self.tools.items())
        )

    @property
    def content_text(self) -> str:
        return "".join(self.content)

    @property
    def reasoning_text(self) -> str:
        return "".join(self.reasoning)

    @property
    def latency_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000.0

    def completion(self, *, usage: Usage, stop_reason: str | None, model: str) -> Completion:
        """The finished call: the texts received so far plus what the provider reported."""
        return Completion(
            content=self.content_text,
            reasoning=self.reasoning_text,
            usage=usage,
            latency_ms=self.latency_ms,
            stop_reason=stop_reason,
            model=model,
            retries=self.retries,
            tool_calls=self.tool_calls,
            logprobs=tuple(self.logprobs),
        )

    def retry(
        self, *, attempt: int, wait_s: float | None, status: int | None, exc: BaseException | None
    ) -> None:
        """Count a transport retry and report it through ``on_retry``."""
        self.retries = max(self.retries, attempt)
        self.progress(wait_s or 0.0)
        if self.on_retry is not None:
            reason = retry_reason(status, exc)
            notice = RetryNotice(attempt=attempt, reason=reason, wait_s=wait_s, status=status)
            try:
                self.on_retry(notice)
            except Exception as err:
                raise CallbackFailed(err) from err


#: The call being made in the current task (set by the providers' ``complete``).
current_call: contextvars.ContextVar[CallState | None] = contextvars.ContextVar(
    "playtrace_llm_call", default=None
)


def retry_reason(status: int | None, exc: BaseException | None) -> str:
    """A short human phrase for why the transport retries ("rate limited (429)", "timeout", ...)."""
    if status is not None:
        if status == 429:
            return "rate limited (429)"
        if status == 408:
            return "request timeout (408)"
        if status == 409:
            return "conflict (409)"
        if status >= 500:
            return f"server error ({status})"
        return f"HTTP {status}"
    name = type(exc).__name__ if exc is not None else ""
    if "Timeout" in name:
        return "timeout"
    return "connection error"


class RetryReportingMixin:
    """Mixed in front of ``AsyncOpenAI`` / ``AsyncAnthropic``: makes the SDK's own retries visible.

    Both SDKs route every retry through ``_sleep_for_retry(retries_taken=, max_retries=, options=,
    response=)`` and compute the wait (honouring ``Retry-After``/``retry-after-ms``, else exponential
    backoff with jitter) in ``_calculate_retry_timeout``. This override computes the same wait, reports
    it, then sleeps. The SDK's retry policy is kept with one bound: a call retries a timeout at most
    :data:`MAX_TIMEOUT_RETRIES` times (then it fails with ``kind="timeout"``). The hook is private SDK
    API, so it accepts extra keyword arguments and tolerates a missing response.
    """

    async def _sleep_for_retry(
        self,
        *,
        retries_taken: int,
        max_retries: int,
        options: Any,
        response: Any = None,
        **_: Any,
    ) -> None:
        # Called from inside the SDK's ``except`` block for timeouts/connection errors, so the
        # exception being handled says what went wrong when there is no response.
        exc = sys.exc_info()[1]
        call = current_call.get()
        if call is not None and response is None and "Timeout" in type(exc).__name__:
            if call.timeout_retries >= call.max_timeout_retries:
                # Raised from inside the SDK's retry loop, so the SDK gives up on this call.
                raise _TimeoutRetriesSpent() from None
            call.timeout_retries += 1
        headers = getattr(response, "headers", None)
        if call is not None and call.limiter is not None and getattr(response, "status_code", None) == 429:
            # Raised from inside the SDK's retry loop: the call waits for the shared pause instead.
            raise _RateLimited(retry_after(headers))
        calculate = self._calculate_retry_timeout  # type: ignore[attr-defined]
        wait = float(calculate(max_retries - retries_taken, options, headers))
        if call is not None and call.max_retry_wait_s is not None:
            wait = min(wait, call.max_retry_wait_s)
        wait = max(0.0, wait)
        if call is not None:
            status = getattr(response, "status_code", None)
            call.retry(attempt=retries_taken + 1, wait_s=wait, status=status, exc=exc)
        await asyncio.sleep(wait)


def kind_for_status(status: int) -> str:
    """The :class:`LLMError` kind for an HTTP error status."""
    if status in (401, 403):
        return "auth"
    if status == 404:
        # A model name the server does not have (or a wrong base URL): every call fails the same way.
        return "not_found"
    if status == 429:
        return "rate_limit"
    if status == 408:
        return "timeout"
    if status == 409 or status >= 500:
        # 409 is a lock timeout/conflict on the server's side: the SDK retries it as transient, so once
        # the retries are spent it is the server's failure, not a request that can never succeed.
        return "server"
    return "bad_request"


def llm_error(
    provider: str,
    what: str,
    *,
    kind: str,
    detail: str = "",
    status: int | None = None,
    partial: str = "",
    retries: int = 0,
) -> LLMError:
    """An :class:`LLMError` with a one-sentence, redacted message."""
    label = {"openai": "OpenAI", "anthropic": "Anthropic", "local": "Local server"}.get(provider, provider)
    text = f"{label}: {what}"
    if retries:
        text += f" (after {retries} {'retry' if retries == 1 else 'retries'})"
    if detail:
        text += f": {detail}"
    # Error bodies can echo a (masked) key; anything key-shaped is masked again before it reaches logs.
    return LLMError(redact(text), kind=kind, status=status, partial=partial)


class SDKClient(abc.ABC):
    """The part of an SDK-backed :class:`~engine.llm.base.LLMClient` that does not depend on the SDK.

    :meth:`complete` is the same for every provider: build the parameters, register the call for
    :class:`RetryReportingMixin`, open the stream, read it, close it (also on cancellation) and turn
    whatever went wrong into an :class:`LLMError` that keeps the answer text already streamed.
    Subclasses set :attr:`sdk`, :attr:`call_errors` and ``_sdk`` (the SDK client) and implement
    :meth:`build_params`, :meth:`_open_stream` and :meth:`_consume`; the other hooks have defaults.

    Args:
        timeout_s: Longest wait for the connection or for the next piece of the stream; a request's own
            ``timeout_s`` can only shorten it.
        connect_timeout_s: Longest wait to connect.
        max_retries: Transport retries by the SDK (of which at most :data:`MAX_TIMEOUT_RETRIES` after a
            timeout).
        max_retry_wait_s: Upper bound on any single retry wait (None: the SDK's own).
    """

    #: The provider SDK module (``openai`` or ``anthropic``). Both SDKs are generated from one template,
    #: so ``Timeout``, ``APITimeoutError``, ``APIConnectionError`` and ``APIStatusError`` have the same
    #: names and meaning in each; reaching them through this attribute keeps this module SDK-free.
    sdk: ClassVar[Any]
    #: The exceptions :meth:`_call_error` turns into an :class:`LLMError`. They are caught before
    #: ``ValueError``/``TypeError``/``AttributeError``/``LookupError``, which mean a malformed stream
    #: (or a bug).
    call_errors: ClassVar[tuple[type[Exception], ...]]

    #: The API's name in messages ("the server did not answer in the ... format").
    wire_format: ClassVar[str] = "API"

    provider: str
    simulated = False
    _sdk: Any
    #: Paces the calls of every user of this client (set by :class:`~engine.llm.pool.ClientPool`).
    limiter: RateLimiter | None = None

    def __init__(
        self,
        *,
        timeout_s: float,
        connect_timeout_s: float,
        max_retries: int,
        max_retry_wait_s: float | None,
    ) -> None:
        self.timeout_s = float(timeout_s)
        self.connect_timeout_s = float(connect_timeout_s)
        self.max_retries = int(max_retries)
        self.max_retry_wait_s = max_retry_wait_s
        self._closed = False
        self._timeouts: dict[float, Any] = {}

    @property
    def base_url(self) -> str:
        """The server this client talks to (no credentials: a password in the URL is masked)."""
        return mask_url_password(str(self._sdk.base_url))

    async def aclose(self) -> None:
        """Close the connection pool; calls in flight fail with ``LLMError(kind="cancelled")``."""
        self._closed = True
        await self._sdk.close()

    def _timeout(self, timeout_s: float) -> Any:
        """The SDK timeout for a call that may wait ``timeout_s`` (connecting takes at most as long);
        made once per value, as every call of a player asks for the same."""
        timeout = self._timeouts.get(timeout_s)
        if timeout is None:
            timeout = self._timeouts[timeout_s] = self.sdk.Timeout(
                timeout_s, connect=min(self.connect_timeout_s, timeout_s)
            )
        return timeout

    # -- provider hooks --------------------------------------------------------------------------------

    @abc.abstractmethod
    def build_params(self, request: Request) -> dict[str, Any]:
        """The keyword arguments for the SDK's create call for ``request`` (no credentials)."""
        raise NotImplementedError

    @abc.abstractmethod
    async def _open_stream(self, params: dict[str, Any], timeout: Any) -> Any:
        """Send the request; returns the SDK's stream."""
        raise NotImplementedError

    @abc.abstractmethod
    async def _consume(self, stream: Any, request: Request, state: CallState) -> Completion:
        """Read ``stream`` to the end, passing every piece to ``state.emit``."""
        raise NotImplementedError

    def _call_error(self, exc: Exception, state: CallState, *, streaming: bool) -> LLMError:
        """The :class:`LLMError` for one of :attr:`call_errors` raised during :meth:`complete`."""
        return self._api_error(exc, "the call failed", state, streaming=streaming)

    def _request_error(self, exc: Exception) -> None:  # noqa: B027  (a hook: doing nothing is the default)
        """Look at a ``ValueError``/``TypeError``/``AttributeError`` raised before anything was sent.

        It is re-raised unchanged afterwards (a programming error, not a bad answer) unless this raises
        a clearer :class:`LLMError` instead.
        """

    def _status_kind(self, status: int) -> str:
        """The :class:`LLMError` kind for an ``APIStatusError`` with HTTP ``status``."""
        return kind_for_status(status)

    def _other_api_error(self, exc: Any, what: str, state: CallState, *, streaming: bool) -> LLMError:
        """The :class:`LLMError` for an SDK ``APIError`` that is neither a status nor a connection error."""
        return self._failure(state, what, kind="other", detail=exc.message)

    # -- the call --------------------------------------------------------------------------------------

    async def complete(
        self,
        request: Request,
        *,
        on_delta: Callable[[Delta], None] | None = None,
        on_retry: Callable[[RetryNotice], None] | None = None,
    ) -> Completion:
        """Stream one completion; see :class:`~engine.llm.base.LLMClient`.

        Raises:
            LLMError: the call failed for good (``partial`` holds any answer text already streamed).
            asyncio.CancelledError: the awaiting task was cancelled; the HTTP request is closed.
        """
        params = self.build_params(request)
        timeout = self._timeout(min(self.timeout_s, request.timeout_s))
        limiter = self.limiter
        state = CallState(
            on_delta,
            on_retry,
            max_retry_wait_s=self.max_retry_wait_s,
            max_timeout_retries=MAX_TIMEOUT_RETRIES if request.retry_timeouts else 0,
            limiter=limiter,
        )
        if self._closed:
            # The SDK would raise a bare RuntimeError (OpenAI) or retry a closed pool (Anthropic).
            raise self._failure(state, "the client is closed", kind="cancelled")
        if limiter is None:
            return await self._attempt(params, timeout, request, state)
        estimate = estimate_tokens(request)
        waits = 0
        while True:
            await limiter.acquire(estimate)
            try:
                completion = await self._attempt(params, timeout, request, state)
            except _RateLimited as exc:
                waits += 1
                if waits > MAX_RATE_LIMITED_WAITS:
                    raise self._failure(
                        state, "HTTP 429", kind="rate_limit", status=429,
                        detail=f"still rate limited after {MAX_RATE_LIMITED_WAITS} shared pauses",
                    ) from None
                asked = exc.wait_s
                if asked is not None and self.max_retry_wait_s is not None:
                    asked = min(asked, self.max_retry_wait_s)
                wait = limiter.backoff(asked)
                try:
                    state.retry(attempt=state.retries + 1, wait_s=wait, status=429, exc=None)
                except CallbackFailed as err:
                    raise err.original from None
                continue  # acquire() holds the call until the shared pause is over
            usage = completion.usage
            limiter.settle(estimate, usage.input_tokens + usage.output_tokens)
            return completion

    async def _attempt(
        self, params: dict[str, Any], timeout: Any, request: Request, state: CallState
    ) -> Completion:
        """Send the request once (the SDK's own transport retries included) and read the answer.

        Raises:
            _RateLimited: a 429 when the client has a rate limiter.
        """
        token = current_call.set(state)
        streaming = False
        gap = min(self.timeout_s, request.timeout_s)
        loop = asyncio.get_running_loop()
        hard_end = loop.time() + gap * TOTAL_DEADLINE_TIMEOUTS
        watchdog = asyncio.timeout(None)
        try:
            async with watchdog:
                state.watch(watchdog, gap, hard_end)
                stream = await self._open_stream(params, timeout)
                streaming = True
                try:
                    await self._check_format(stream, state)
                    return await self._consume(stream, request, state)
                finally:
                    # Also on cancellation: closing the response tells the server to stop generating.
                    with contextlib.suppress(Exception):
                        await stream.close()
        except TimeoutError:
            if not watchdog.expired():
                raise
            # Bytes kept coming (keep-alive comments) but no answer: the server is not answering.
            over = loop.time() >= hard_end
            raise self._failure(
                state, "timed out waiting for the server", kind="timeout",
                detail=(f"the call passed its total deadline of {gap * TOTAL_DEADLINE_TIMEOUTS:g} s" if over
                        else f"nothing of the answer in {gap:g} s"),
            ) from None
        except CallbackFailed as exc:
            raise exc.original from None
        except _TimeoutRetriesSpent:
            raise self._failure(state, "timed out waiting for the server", kind="timeout") from None
        except self.call_errors as exc:
            if (
                state.limiter is not None
                and not streaming
                and isinstance(exc, self.sdk.APIStatusError)
                and exc.status_code == 429
                and str(exc.response.headers.get("x-should-retry", "")).lower() != "false"
            ):
                # The SDK had no retry left to offer (max_retries=0): the limiter's pause still applies.
                raise _RateLimited(retry_after(exc.response.headers)) from None
            raise self._call_error(exc, state, streaming=streaming) from None
        except (ValueError, TypeError, AttributeError, LookupError) as exc:
            if not streaming:
                self._request_error(exc)
                raise  # a programming error before anything was sent, not a bad answer
            # Not JSON, or JSON that is not a piece of the stream (an error object or no choices in a
            # plain JSON answer: KeyError/IndexError): a garbage body.
            raise self._failure(
                state,
                "the server sent a malformed stream",
                kind="stream",
                detail=f"{type(exc).__name__}: {exc}",
            ) from None
        finally:
            state._watchdog = None
            current_call.reset(token)

    async def _check_format(self, stream: Any, state: CallState) -> None:
        """Refuse a 200 whose body is not the API's: a web page (a proxy's login or error page, the
        wrong port) would otherwise read as an empty stream, reported as "the stream ended"."""
        response = getattr(stream, "response", None)
        headers = getattr(response, "headers", None)
        if response is None or headers is None:
            return
        media = str(headers.get("content-type", "")).split(";", 1)[0].strip().lower()
        if media in _API_MEDIA_TYPES or media.endswith("+json"):
            return
        body = b""
        with contextlib.suppress(Exception):
            async for piece in response.aiter_bytes():
                body += piece
                if len(body) >= _PEEK_BYTES:
                    break
        lines = body.decode("utf-8", "replace").splitlines()
        first = next((line.strip() for line in lines if line.strip()), "")
        if len(first) > _FIRST_LINE_CHARS:
            first = first[: _FIRST_LINE_CHARS - 1] + "…"
        sent = f"it sent {media or 'a body without a content type'}"
        detail = f"{sent} starting with {first!r}" if first else f"{sent} with an empty body"
        raise self._failure(
            state, f"the server did not answer in the {self.wire_format} format", kind="stream", detail=detail
        )

    # -- errors ----------------------------------------------------------------------------------------

    def _failure(
        self, state: CallState, what: str, *, kind: str, detail: str = "", status: int | None = None
    ) -> LLMError:
        """An :class:`LLMError` for the call ``state`` tracks, with its partial answer and retry count."""
        return llm_error(
            self.provider,
            what,
            kind=kind,
            detail=detail,
            status=status,
            partial=state.content_text,
            retries=state.retries,
        )

    def _api_error(self, exc: Any, what: str, state: CallState, *, streaming: bool) -> LLMError:
        """The :class:`LLMError` for an SDK ``APIError``; ``what`` names the failed operation."""
        if self._closed:
            return self._failure(state, "the client was closed during the call", kind="cancelled")
        if isinstance(exc, self.sdk.APITimeoutError):
            return self._failure(state, "timed out waiting for the server", kind="timeout")
        if isinstance(exc, self.sdk.APIConnectionError):
            if streaming:
                return self._failure(state, "the connection broke in the middle of the answer", kind="stream")
            return self._failure(
                state, f"could not reach {self.base_url}", kind="connection", detail=str(exc)
            )
        if isinstance(exc, self.sdk.APIStatusError):
            status = exc.status_code
            return self._failure(
                state, f"HTTP {status}", kind=self._status_kind(status), status=status, detail=exc.message
            )
        return self._other_api_error(exc, what, state, streaming=streaming)
