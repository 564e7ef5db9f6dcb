"""A scripted loopback HTTP server speaking the OpenAI and Anthropic wire formats, for provider tests.

The server runs in a background thread on ``127.0.0.1`` (random port) and answers, per request, the
next behaviour from a queue that the test scripts:

* :class:`Answer` — a normal answer, streamed as SSE (or one JSON document when the request did not
  ask for a stream), optionally with reasoning/thinking text, tool calls (OpenAI ``tool_calls`` deltas,
  Anthropic ``tool_use`` blocks with ``input_json_delta`` pieces) and, in the OpenAI format, token
  log-probabilities (``logprobs.content`` with ``top_logprobs``);
* :class:`Fail` — an HTTP error status with headers (``Retry-After``...) and a provider-shaped body;
* :class:`Slow` — nothing for ``delay_s`` (timeouts, cancellation), then optionally an answer;
* :class:`Torn` — part of a stream, then the connection is cut;
* :class:`Garbage` — a 200 whose body is not what the client expects;
* :class:`KeepAlive` — a 200 stream of SSE comments only (bytes arrive, an answer never does).

Routes: ``POST /v1/chat/completions`` (OpenAI), ``POST /v1/messages`` (Anthropic), ``GET /v1/models``
(both shapes at once). Every request is recorded (method, path, lower-cased headers, JSON body) in
:attr:`LoopbackServer.requests`, so tests can assert exactly what was sent. Use it through the
:func:`loopback` fixture, which tests/conftest.py offers to every test.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

__all__ = ["Answer", "Fail", "Garbage", "KeepAlive", "LoopbackServer", "Recorded", "Slow", "Torn", "loopback"]


@dataclasses.dataclass
class Answer:
    """A normal answer. ``content``/``reasoning`` are streamed in ``pieces`` roughly equal chunks.

    ``reasoning_field`` picks the OpenAI-compatible delta field (``reasoning_content`` as DeepSeek and
    vLLM send it, or ``reasoning`` as Ollama does); Anthropic answers use thinking blocks.
    ``stream=None`` follows the request's own ``stream`` flag; ``False`` forces one JSON document.
    """

    content: str = "ok"
    reasoning: str = ""
    reasoning_field: str = "reasoning_content"
    pieces: int = 3
    input_tokens: int = 12
    output_tokens: int = 7
    reasoning_tokens: int = 0
    finish: str | None = None
    stream: bool | None = None
    gap_s: float = 0.0
    model: str | None = None
    #: Tool calls, each ``(name, arguments JSON)``; their arguments stream in ``pieces`` chunks.
    tool_calls: tuple[tuple[str, str], ...] = ()
    #: OpenAI token log-probabilities: ``(token, logprob, ((alternative, logprob), ...))`` per token.
    #: When given, the answer's content is these tokens, streamed one per chunk.
    logprobs: tuple[tuple[str, float, tuple[tuple[str, float], ...]], ...] | None = None

    @property
    def text(self) -> str:
        """The answer's content: the tokens when log-probabilities are scripted, else ``content``."""
        return "".join(t[0] for t in self.logprobs) if self.logprobs is not None else self.content


@dataclasses.dataclass
class Fail:
    """An HTTP error: ``status`` with ``headers`` (e.g. ``{"retry-after": "0"}``)."""

    status: int = 500
    headers: dict[str, str] = dataclasses.field(default_factory=dict)
    message: str = "scripted failure"


@dataclasses.dataclass
class Slow:
    """Say nothing for ``delay_s`` (or until the client hangs up), then answer with ``then`` if given."""

    delay_s: float = 10.0
    then: Answer | None = None


@dataclasses.dataclass
class Torn:
    """Stream ``content`` (and ``reasoning``), then cut the connection.

    ``mode="reset"`` cuts a chunked body mid-way (the client sees a protocol error); ``mode="eof"``
    ends a connection-delimited body cleanly but before the final event (``[DONE]``/``message_stop``).
    """

    content: str = "partial answer"
    reasoning: str = ""
    mode: str = "reset"


@dataclasses.dataclass
class Garbage:
    """A 200 with a body the client cannot use."""

    body: bytes = b"data: this is not json\n\n"
    content_type: str = "text/event-stream"


@dataclasses.dataclass
class KeepAlive:
    """A 200 stream that only ever sends SSE comments (``: keep-alive``) every ``every_s`` seconds, for
    ``for_s`` seconds or until the client hangs up: bytes keep arriving, no answer ever does."""

    every_s: float = 0.2
    for_s: float = 30.0


Behaviour = Answer | Fail | Slow | Torn | Garbage | KeepAlive


@dataclasses.dataclass
class Recorded:
    """One request as received."""

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    body: Any

    @property
    def text(self) -> str:
        return self.raw.decode("utf-8", errors="replace")


class LoopbackServer:
    """The server; see the module docstring. ``default`` answers when the queue is empty."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.models: list[str] = ["loop-model", "llava:latest"]
        self.models_status = 200
        #: When set, ``GET /models`` answers 200 with this ``(body, content_type)`` instead of a model list.
        self.models_body: tuple[bytes, str] | None = None
        self.default: Behaviour = Answer()
        #: How many times a client hung up while the server was still waiting (Slow).
        self.disconnects = 0
        self._queue: collections.deque[Behaviour] = collections.deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------------------

    def start(self) -> LoopbackServer:
        handler = type("_Handler", (_Handler,), {"owner": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """What an OpenAI client takes as ``base_url``."""
        return self.url + "/v1"

    @property
    def anthropic_base_url(self) -> str:
        """What an Anthropic client takes as ``base_url`` (the SDK adds ``/v1/messages``)."""
        return self.url

    # -- scripting ---------------------------------------------------------------------------------------

    def script(self, *behaviours: Behaviour) -> None:
        """Queue behaviours for the next requests, in order."""
        with self._lock:
            self._queue.extend(behaviours)

    def _next(self) -> Behaviour:
        with self._lock:
            return self._queue.popleft() if self._queue else self.default

    def _record(self, rec: Recorded) -> None:
        with self._lock:
            self.requests.append(rec)

    def posts(self) -> list[Recorded]:
        """The POST requests received (model calls), in order."""
        with self._lock:
            return [r for r in self.requests if r.method == "POST"]

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> bool:
        """Block until at least ``n`` requests arrived; returns whether they did."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self._lock:
                if len(self.requests) >= n:
                    return True
            time.sleep(0.005)
        return False


class _Handler(BaseHTTPRequestHandler):
    owner: LoopbackServer
    protocol_version = "HTTP/1.1"
    # Stream chunks go out as small writes: without this, Nagle's algorithm delays each by ~40 ms.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # keep test output clean

    # -- routing -------------------------------------------------------------------------------------------

    def do_GET(self) -> None:
        self._record(b"")
        if self.path.rstrip("/").endswith("/models"):
            if self.owner.models_body is not None:
                self._send_raw(200, *self.owner.models_body)
                return
            if self.owner.models_status != 200:
                self._send_json(self.owner.models_status, {"error": {"message": "no models here"}})
                return
            data = [
                {
                    "id": m,
                    "object": "model",
                    "created": 0,
                    "owned_by": "loopback",
                    "type": "model",
                    "display_name": m,
                    "created_at": "2026-01-01T00:00:00Z",
                }
                for m in self.owner.models
            ]
            first = data[0]["id"] if data else None
            last = data[-1]["id"] if data else None
            self._send_json(
                200, {"object": "list", "data": data, "has_more": False, "first_id": first, "last_id": last}
            )
            return
        self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = self._record(raw)
        if self.path.endswith("/chat/completions"):
            wire = "openai"
        elif self.path.endswith("/messages"):
            wire = "anthropic"
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        behaviour = self.owner._next()
        wants_stream = bool(isinstance(body, dict) and body.get("stream"))
        model = str(body.get("model", "loop-model")) if isinstance(body, dict) else "loop-model"
        include_usage = bool(
            isinstance(body, dict) and (body.get("stream_options") or {}).get("include_usage")
        )
        if isinstance(behaviour, Slow):
            if not self._wait(behaviour.delay_s) or behaviour.then is None:
                self.close_connection = True
                return
            behaviour = behaviour.then
        if isinstance(behaviour, Fail):
            self._fail(wire, behaviour)
        elif isinstance(behaviour, Garbage):
            self._send_raw(200, behaviour.body, behaviour.content_type)
        elif isinstance(behaviour, Torn):
            self._torn(wire, behaviour, model)
        elif isinstance(behaviour, KeepAlive):
            self._keep_alive(behaviour)
        else:
            stream = wants_stream if behaviour.stream is None else behaviour.stream
            if wire == "openai":
                self._openai_answer(behaviour, model, stream, include_usage)
            else:
                self._anthropic_answer(behaviour, model, stream)

    # -- plumbing ------------------------------------------------------------------------------------------

    def _record(self, raw: bytes) -> Any:
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.owner._record(Recorded(self.command, self.path, headers, raw, body))
        return body

    def _wait(self, delay: float) -> bool:
        """Sleep up to ``delay``; False as soon as the client hangs up (or the server stops)."""
        end = time.monotonic() + delay
        while time.monotonic() < end:
            if self.owner._stopping.is_set():
                return False
            readable, _, _ = select.select([self.connection], [], [], 0.02)
            if readable:
                try:
                    peek = self.connection.recv(1, socket.MSG_PEEK)
                except OSError:
                    peek = b""
                if not peek:
                    with self.owner._lock:
                        self.owner.disconnects += 1
                    return False
        return True

    def _send_raw(
        self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(obj).encode(), "application/json", headers)

    def _start_stream(self, *, chunked: bool = True) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        if chunked:
            self.send_header("transfer-encoding", "chunked")
        else:
            # No length and no chunking: the body ends when the connection closes.
            self.send_header("connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.flush()

    def _write_chunk(self, data: bytes, *, chunked: bool = True) -> None:
        if chunked:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        else:
            self.wfile.write(data)
        self.wfile.flush()

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _cut(self) -> None:
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # -- behaviours ----------------------------------------------------------------------------------------

    def _keep_alive(self, drip: KeepAlive) -> None:
        self._start_stream()
        end = time.monotonic() + drip.for_s
        try:
            while time.monotonic() < end and not self.owner._stopping.is_set():
                self._write_chunk(b": keep-alive\n\n")
                if not self._wait(drip.every_s):
                    break
        except OSError:
            pass
        self.close_connection = True

    def _fail(self, wire: str, fail: Fail) -> None:
        if wire == "openai":
            error = {"message": fail.message, "type": "loopback_error", "code": None}
            body: dict[str, Any] = {"error": error}
        else:
            kind = {429: "rate_limit_error", 401: "authentication_error", 529: "overloaded_error"}.get(
                fail.status, "api_error"
            )
            body = {"type": "error", "error": {"type": kind, "message": fail.message}}
        self._send_json(fail.status, body, fail.headers)

    def _torn(self, wire: str, torn: Torn, model: str) -> None:
        chunked = torn.mode != "eof"
        self._start_stream(chunked=chunked)
        events = (
            _openai_events(Answer(torn.content, torn.reasoning, pieces=2), model, include_usage=False)
            if wire == "openai"
            else _anthropic_events(Answer(torn.content, torn.reasoning, pieces=2), model)
        )
        # Everything but the finishing events: the model was still talking when the line went dead.
        stop_at = _first_finishing_event(events, wire)
        for event in events[:stop_at]:
            self._write_chunk(event, chunked=chunked)
        if chunked:
            # Half a chunk, then nothing: an incomplete chunked body.
            self.wfile.write(b"40\r\ndata: {\"tru")
            self.wfile.flush()
        self._cut()

    def _openai_answer(self, answer: Answer, model: str, stream: bool, include_usage: bool) -> None:
        model = answer.model or model
        if not stream:
            message: dict[str, Any] = {"role": "assistant", "content": answer.text or None}
            if answer.reasoning:
                message[answer.reasoning_field] = answer.reasoning
            if answer.tool_calls:
                message["tool_calls"] = [
                    {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": args}}
                    for i, (name, args) in enumerate(answer.tool_calls)
                ]
            choice: dict[str, Any] = {"index": 0, "message": message,
                                      "finish_reason": answer.finish or _openai_finish(answer)}
            if answer.logprobs is not None:
                choice["logprobs"] = {"content": [_openai_logprob(t) for t in answer.logprobs]}
            self._send_json(
                200,
                {
                    "id": "chatcmpl-loop",
                    "object": "chat.completion",
                    "created": 0,
                    "model": model,
                    "choices": [choice],
                    "usage": _openai_usage(answer),
                },
            )
            return
        self._start_stream()
        for event in _openai_events(answer, model, include_usage=include_usage):
            self._write_chunk(event)
            if answer.gap_s:
                time.sleep(answer.gap_s)
        self._end_stream()

    def _anthropic_answer(self, answer: Answer, model: str, stream: bool) -> None:
        model = answer.model or model
        if not stream:
            content: list[dict[str, Any]] = []
            if answer.reasoning:
                content.append({"type": "thinking", "thinking": answer.reasoning, "signature": "sig"})
            if answer.content or not answer.tool_calls:
                content.append({"type": "text", "text": answer.content})
            for i, (name, args) in enumerate(answer.tool_calls):
                block = {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": json.loads(args)}
                content.append(block)
            self._send_json(
                200,
                {
                    "id": "msg_loop",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": content,
                    "stop_reason": answer.finish or ("tool_use" if answer.tool_calls else "end_turn"),
                    "stop_sequence": None,
                    "usage": {"input_tokens": answer.input_tokens, "output_tokens": answer.output_tokens},
                },
            )
            return
        self._start_stream()
        for event in _anthropic_events(answer, model):
            self._write_chunk(event)
            if answer.gap_s:
                time.sleep(answer.gap_s)
        self._end_stream()


# -- wire formats ----------------------------------------------------------------------------------------


def _split(text: str, pieces: int) -> list[str]:
    if not text:
        return []
    pieces = max(1, min(pieces, len(text)))
    size = -(-len(text) // pieces)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {payload}\n\n".encode()


def _openai_usage(answer: Answer) -> dict[str, Any]:
    return {
        "prompt_tokens": answer.input_tokens,
        "completion_tokens": answer.output_tokens,
        "total_tokens": answer.input_tokens + answer.output_tokens,
        "completion_tokens_details": {"reasoning_tokens": answer.reasoning_tokens},
    }


def _openai_events(answer: Answer, model: str, *, include_usage: bool) -> list[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None, logprobs: Any = None) -> bytes:
        choice: dict[str, Any] = {"index": 0, "delta": delta, "finish_reason": finish}
        if logprobs is not None:
            choice["logprobs"] = logprobs
        return _sse(
            {
                "id": "chatcmpl-loop",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [choice],
            }
        )

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({answer.reasoning_field: piece}) for piece in _split(answer.reasoning, answer.pieces)]
    if answer.logprobs is not None:
        events += [chunk({"content": t[0]}, logprobs={"content": [_openai_logprob(t)]})
                   for t in answer.logprobs]
    else:
        events += [chunk({"content": piece}) for piece in _split(answer.content, answer.pieces)]
    for i, (name, args) in enumerate(answer.tool_calls):
        function = {"name": name, "arguments": ""}
        head = {"index": i, "id": f"call_{i}", "type": "function", "function": function}
        events.append(chunk({"tool_calls": [head]}))
        events += [chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
                   for piece in _split(args, answer.pieces)]
    events.append(chunk({}, answer.finish or _openai_finish(answer)))
    if include_usage:
        events.append(
            _sse(
                {
                    "id": "chatcmpl-loop",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": model,
                    "choices": [],
                    "usage": _openai_usage(answer),
                }
            )
        )
    events.append(_sse("[DONE]"))
    return events


def _anthropic_events(answer: Answer, model: str) -> list[bytes]:
    events = [
        _sse(
            {
                "type": "message_start",
                "message": {
                    "id": "msg_loop",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": answer.input_tokens, "output_tokens": 1},
                },
            },
            "message_start",
        ),
        _sse({"type": "ping"}, "ping"),
    ]
    def block_delta(index: int, delta: dict[str, Any]) -> bytes:
        return _sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta")

    index = 0
    if answer.reasoning:
        events.append(
            _sse(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                },
                "content_block_start",
            )
        )
        for piece in _split(answer.reasoning, answer.pieces):
            events.append(block_delta(index, {"type": "thinking_delta", "thinking": piece}))
        events.append(block_delta(index, {"type": "signature_delta", "signature": "sig"}))
        events.append(_sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        index += 1
    events.append(
        _sse(
            {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
            "content_block_start",
        )
    )
    for piece in _split(answer.content, answer.pieces):
        events.append(block_delta(index, {"type": "text_delta", "text": piece}))
    events.append(_sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    for i, (name, args) in enumerate(answer.tool_calls):
        index += 1
        block = {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": {}}
        events.append(_sse({"type": "content_block_start", "index": index, "content_block": block},
                           "content_block_start"))
        for piece in _split(args, answer.pieces):
            events.append(block_delta(index, {"type": "input_json_delta", "partial_json": piece}))
        events.append(_sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    usage: dict[str, Any] = {"output_tokens": answer.output_tokens}
    if answer.reasoning_tokens:
        usage["output_tokens_details"] = {"thinking_tokens": answer.reasoning_tokens}
    events.append(
        _sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": answer.finish or ("tool_use" if answer.tool_calls else "end_turn"),
                          "stop_sequence": None},
                "usage": usage,
            },
            "message_delta",
        )
    )
    events.append(_sse({"type": "message_stop"}, "message_stop"))
    return events


def _openai_finish(answer: Answer) -> str:
    return "tool_calls" if answer.tool_calls else "stop"


def _openai_logprob(token: tuple[str, float, tuple[tuple[str, float], ...]]) -> dict[str, Any]:
    text, logprob, top = token
    return {"token": text, "logprob": logprob, "bytes": list(text.encode()),
            "top_logprobs": [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in top]}


def _first_finishing_event(events: list[bytes], wire: str) -> int:
    marker = b'"finish_reason": "' if wire == "openai" else b'"message_delta"'
    for i, event in enumerate(events):
        if marker in event:
            return i
    return len(events)


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    """A started :class:`LoopbackServer`, stopped after the test."""
    server = LoopbackServer().start()
    try:
        yield server
    finally:
        server.stop()
