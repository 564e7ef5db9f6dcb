"""Plumbing shared by the SDK-backed providers: per-call state, visible retries, error wording.

Nothing here imports a provider SDK. The SDK clients are subclassed in their own modules with
:class:`RetryReportingMixin`, which overrides the SDKs' retry-sleep hook so every transport retry the
SDK performs (429 with ``Retry-After``, 5xx, dropped connections, timeouts) reaches the current call's
``on_retry`` before the wait starts. The current call is found through a :class:`contextvars.ContextVar`,
so concurrent calls on one client (batch runs) each report their own retries.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
import time
from collections.abc import Callable
from typing import Any

from engine.llm.base import Delta, LLMError, RetryNotice
from engine.llm.keys import redact

__all__ = [
    "CallState",
    "CallbackFailed",
    "RetryReportingMixin",
    "current_call",
    "kind_for_status",
    "llm_error",
]


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
    ) -> None:
        self.on_delta = on_delta
        self.on_retry = on_retry
        self.max_retry_wait_s = max_retry_wait_s
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self.retries = 0
        self.started = time.perf_counter()

    def emit(self, kind: str, text: str) -> None:
        """Record a streamed piece and pass it on, in arrival order."""
        if not text:
            return
        (self.reasoning if kind == "reasoning" else self.content).append(text)
        if self.on_delta is not None:
            try:
                self.on_delta(Delta("reasoning" if kind == "reasoning" else "content", text))
            except Exception as exc:
                raise CallbackFailed(exc) from exc

    @property
    def content_text(self) -> str:
        return "".join(self.content)

    @property
    def reasoning_text(self) -> str:
        return "".join(self.reasoning)

    @property
    def latency_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000.0

    def retry(
        self, *, attempt: int, wait_s: float | None, status: int | None, exc: BaseException | None
    ) -> None:
        """Count a transport retry and report it through ``on_retry``."""
        self.retries = max(self.retries, attempt)
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
    it, then sleeps; the SDK's retry *policy* is untouched. The hook is private SDK API, so it accepts
    extra keyword arguments and tolerates a missing response.
    """

    async def _sleep_for_retry(  # type: ignore[override]
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
        headers = getattr(response, "headers", None)
        calculate = self._calculate_retry_timeout  # type: ignore[attr-defined]
        wait = float(calculate(max_retries - retries_taken, options, headers))
        call = current_call.get()
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
    if status == 429:
        return "rate_limit"
    if status == 408:
        return "timeout"
    if status >= 500:
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
