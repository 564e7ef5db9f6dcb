"""Re-run a recorded match from its own answers, call for call, offline: an audit of the pipeline.

Each model seat is rebuilt from its recorded harness settings with a client that answers every call
with the answer the session recorded for it (same purpose, same order: reflections, perception
descriptions, actions, re-asks; a recorded failure fails again). Every other seat plays the moves it
recorded. The match is played again by today's engine, harness and parser, and each decision and
board is compared with the recording: :func:`audit_session` reports the first difference, if any. No
model is called and nothing is written.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from engine.core import Game
from engine.events import Event
from engine.llm.base import Completion, Delta, LLMError, Request, RetryNotice, Usage
from engine.match import Match
from engine.players import Decision, Observation, Player
from sessions.reader import Session, load_session

__all__ = ["AuditResult", "RecordedClient", "audit_session"]


@dataclasses.dataclass(frozen=True)
class _Call:
    purpose: str
    content: str = ""
    reasoning: str = ""
    usage: Usage = Usage()
    stop_reason: str | None = None
    failure: tuple[str, str] | None = None  #: (kind, message) of a call that failed


class RecordedClient:
    """An :class:`~engine.llm.base.LLMClient` that answers with a seat's recorded calls, in order."""

    provider = "replay"
    simulated = True

    def __init__(self, calls: list[_Call], model: str) -> None:
        self.model = model
        self._queues: dict[str, collections.deque[_Call]] = collections.defaultdict(collections.deque)
        for call in calls:
            self._queues[call.purpose].append(call)
        self.served = 0

    async def complete(
        self,
        request: Request,
        *,
        on_delta: Callable[[Delta], None] | None = None,
        on_retry: Callable[[RetryNotice], None] | None = None,
    ) -> Completion:
        queue = self._queues.get(request.purpose)
        if not queue:
            raise LLMError(f"the recording has no further {request.purpose} answer", kind="other")
        call = queue.popleft()
        self.served += 1
        if call.failure is not None:
            raise LLMError(call.failure[1], kind=call.failure[0])
        if on_delta is not None:
            if call.reasoning:
                on_delta(Delta("reasoning", call.reasoning))
            on_delta(Delta("content", call.content))
        return Completion(call.content, call.reasoning, call.usage, 0.0, call.stop_reason, self.model)

    async def aclose(self) -> None:
        return None


class _Scripted:
    """A seat that plays the moves it recorded, step by step."""

    kind = "bot"
    label = "Recorded moves"

    def __init__(self, spec: str, moves: Mapping[int, str | None]) -> None:
        self.spec = spec
        self._moves = moves

    async def act(self, observation: Observation) -> Decision:
        if observation.step not in self._moves:
            return Decision(None, rationale="the recording has no move here", forfeit=True)
        return Decision(self._moves[observation.step], rationale="recorded move")


@dataclasses.dataclass
class AuditResult:
    session: str
    path: str
    decisions: int = 0
    calls_replayed: int = 0
    difference: str | None = None  #: the first difference, or None when the re-run is identical

    @property
    def identical(self) -> bool:
        return self.difference is None


def _recorded_calls(session: Session) -> dict[int, list[_Call]]:
    """Every seat's model calls in the order they were made."""
    calls: dict[int, list[_Call]] = collections.defaultdict(list)
    open_: dict[tuple[int, Any], dict[str, Any]] = {}
    for e in session.events:
        seat, kind, data = e.get("seat"), e["type"], e["data"]
        if not isinstance(seat, int):
            continue
        key = (seat, e.get("call"))
        if kind == "model_call_started":
            open_[key] = {"purpose": data.get("purpose", "action"), "content": "", "reasoning": ""}
        elif kind in ("answer", "reasoning") and key in open_:
            open_[key]["content" if kind == "answer" else "reasoning"] = data.get("text") or ""
        elif kind == "model_call_finished" and key in open_:
            c = open_.pop(key)
            usage = Usage(
                int(data.get("input_tokens") or 0),
                int(data.get("output_tokens") or 0),
                int(data.get("reasoning_tokens") or 0),
            )
            calls[seat].append(
                _Call(c["purpose"], c["content"], c["reasoning"], usage, data.get("stop_reason"))
            )
        elif kind == "model_call_failed" and key in open_:
            c = open_.pop(key)
            failure = (str(data.get("kind") or "other"), str(data.get("message") or "failed"))
            calls[seat].append(_Call(c["purpose"], failure=failure))
    return calls


def _harness_options(recorded: Mapping[str, Any]) -> dict[str, Any]:
    from engine.agent.player import OPTIONS

    skip = {
        "client",
        "model",
        "label",
        "perception_client",
        "perception_model_name",
        "perception_model",
        "invalid_policy",
    }
    return {k: v for k, v in recorded.items() if k in OPTIONS and k not in skip and v is not None}


def _players(session: Session, game: Game) -> tuple[list[Player], list[RecordedClient]]:
    from engine.agent.player import make_model_player

    calls = _recorded_calls(session)
    harness = session.manifest.get("harness") or {}
    moves: dict[int, dict[int, str | None]] = collections.defaultdict(dict)
    for e in session.events:
        if e["type"] == "decision" and isinstance(e.get("seat"), int) and isinstance(e.get("step"), int):
            moves[e["seat"]][e["step"]] = e["data"].get("action")
    players: list[Player] = []
    clients: list[RecordedClient] = []
    for p in sorted(session.manifest.get("players") or [], key=lambda p: p.get("seat", 0)):
        seat = int(p.get("seat", len(players)))
        h = harness.get(str(seat)) or harness.get(seat) or {}
        if p.get("kind") == "model" and h:
            client = RecordedClient(calls.get(seat, []), str(h.get("model") or p.get("spec")))
            clients.append(client)
            players.append(
                make_model_player(
                    str(h.get("spec") or p.get("spec")),
                    game,
                    seed=h.get("seed"),
                    client=client,
                    model=client.model,
                    perception_client=client,
                    perception_model_name=client.model,
                    **_harness_options(h),
                )
            )
        else:
            players.append(_Scripted(str(p.get("spec")), moves.get(seat, {})))
    return players, clients


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def audit_session(path: Path | str) -> AuditResult:
    """Play the session at ``path`` again from its recorded answers and compare it with the recording.

    Raises:
        sessions.SessionError: not a readable session. ValueError: its players cannot be rebuilt here.
    """
    session = load_session(path)
    result = AuditResult(session.id, str(session.path))
    game = session.game()
    players, clients = _players(session, game)
    match = Match(game, players, seed=session.manifest.get("seed"), max_steps=session.num_steps)
    replayed: list[Event] = []
    match.subscribe(replayed.append)
    asyncio.run(match.run())
    result.calls_replayed = sum(c.served for c in clients)

    def decisions(events: list[Mapping[str, Any]]) -> list[tuple[Any, Any, Any, Any]]:
        return [
            (e.get("step"), e.get("seat"), e["data"].get("action"), e["data"].get("policy"))
            for e in events
            if e["type"] == "decision"
        ]

    recorded = decisions(list(session.events))
    again = decisions([{"type": e.type, "step": e.step, "seat": e.seat, "data": e.data} for e in replayed])
    result.decisions = len(again)
    for old, new in zip(recorded, again, strict=False):
        if old != new:
            result.difference = (
                f"step {old[0] + 1}, seat {old[1]}: recorded {old[2]!r} ({old[3]}), "
                f"re-run {new[2]!r} ({new[3]})"
            )
            return result
    if len(recorded) != len(again):
        result.difference = f"the recording has {len(recorded)} decisions, the re-run {len(again)}"
        return result
    boards = [e.data.get("state") for e in replayed if e.type == "action_applied"]
    for k, board in enumerate(boards, 1):
        try:
            expected = session.state_json_at(k)
        except IndexError:
            break
        if _key(board) != _key(expected):
            result.difference = f"the board after step {k} differs from the recorded one"
            return result
    return result
