"""Re-score recorded answers with today's extractor and oracles, without asking any model again.

A parser or oracle fix changes how old answers would have been read. :func:`rescore_session` runs the
answer chain (:func:`engine.agent.parse.parse_answer`) over every answer a session recorded, on the
board the model saw, and the intermediate-answer oracles (:func:`engine.agent.verify.verify`) over
the decision's final answer, and lists every verdict that now differs from the recorded one. Nothing
is written: the session stays as it was played (the report can be saved elsewhere by the caller).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from engine.agent.action_format import reparse
from engine.agent.verify import verify
from engine.core import Game, State
from engine.questions import asked_keys
from sessions.reader import Session, load_session

__all__ = ["Change", "Rescore", "rescore_session"]

_PARSE_EVENTS = {"action_parsed": "ok", "action_illegal": "illegal", "action_unparsable": "unparsable"}


@dataclasses.dataclass(frozen=True)
class Change:
    """One verdict that re-scoring changed."""

    session: str
    step: int  #: numbered from 1, as the app numbers steps
    seat: int
    what: str  #: ``"parse"`` or ``"Q<key>"``
    attempt: int | None
    before: str
    after: str

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Rescore:
    """The outcome of re-scoring one session."""

    session: str
    path: str
    game: str
    answers: int = 0
    checks: int = 0
    changes: list[Change] = dataclasses.field(default_factory=list)
    problems: list[str] = dataclasses.field(default_factory=list)


def _parse_verdict(kind: str, action: Any) -> str:
    return f"{kind}: {action}" if kind == "ok" else kind


def _check_verdict(correct: Any, label: Any) -> str:
    mark = {True: "correct", False: "wrong", None: "not checked"}.get(correct, str(correct))
    return f"{mark} ({label})" if label else mark


def _decisions(session: Session) -> Iterator[tuple[int, int, int, list[dict[str, Any]]]]:
    """``(state index, event step, seat, events)`` of every model decision, in order."""
    for k in range(session.num_steps):
        by_seat: dict[int, list[dict[str, Any]]] = {}
        step = None
        for event in session.events_for_step(k):
            seat = event.get("seat")
            step = event.get("step")
            if isinstance(seat, int) and event["type"] in (*_PARSE_EVENTS, "verification", "prompt_built"):
                by_seat.setdefault(seat, []).append(event)
        for seat, events in sorted(by_seat.items()):
            if any(e["type"] in _PARSE_EVENTS for e in events) and isinstance(step, int):
                yield k, step, seat, events


def rescore_session(path: Path | str) -> Rescore:
    """Re-score every recorded answer of the session at ``path`` (no model is called).

    Raises:
        sessions.SessionError: ``path`` is not a readable session.
    """
    session = load_session(path)
    report = Rescore(session.id, str(session.path), session.game_id)
    try:
        game = session.game()
    except Exception as exc:  # an unknown game or options this PlayTrace refuses: say so, skip it
        report.problems.append(f"the game cannot be built here: {exc}")
        return report
    for k, step, seat, events in _decisions(session):
        try:
            state = session.state_at(k).observe(seat)
        except Exception as exc:
            report.problems.append(f"step {step}: the board cannot be rebuilt ({exc})")
            continue
        _rescore_decision(report, game, state, step + 1, seat, events)
    return report


def _rescore_decision(
    report: Rescore, game: Game, state: State, step: int, seat: int, events: list[dict[str, Any]]
) -> None:
    prompts = [e["data"] for e in events if e["type"] == "prompt_built" and not e["data"].get("reask")]
    asked = asked_keys(f"{prompts[0].get('system', '')}\n{prompts[0].get('user', '')}") if prompts else None
    last = None
    for event in events:
        kind = _PARSE_EVENTS.get(event["type"])
        if kind is None:
            continue
        data: Mapping[str, Any] = event["data"]
        result = reparse(game, state, seat, data)  # in the answer's own format: text, JSON or a tool call
        report.answers += 1
        before = _parse_verdict(kind, data.get("matched"))
        after = _parse_verdict(result.kind, result.action)
        if before != after:
            report.changes.append(
                Change(report.session, step, seat, "parse", data.get("attempt"), before, after)
            )
        last = result
    recorded = {e["data"].get("key"): e["data"] for e in events if e["type"] == "verification"}
    if last is None or not recorded:
        return
    for check in verify(game, state, seat, last.tags, asked, last.action):
        report.checks += 1
        old = recorded.pop(check.key, None)
        label = check.detail.get("label")
        after = _check_verdict(check.correct, label)
        if old is None:
            report.changes.append(
                Change(report.session, step, seat, f"Q{check.key}", None, "not checked", after)
            )
            continue
        before = _check_verdict(old.get("correct"), (old.get("detail") or {}).get("label"))
        same_answer = json.dumps(old.get("answer"), sort_keys=True, default=str) == json.dumps(
            check.answer, sort_keys=True, default=str
        )
        if before != after or not same_answer:
            report.changes.append(Change(report.session, step, seat, f"Q{check.key}", None, before, after))
    for key, old in recorded.items():
        before = _check_verdict(old.get("correct"), (old.get("detail") or {}).get("label"))
        report.changes.append(Change(report.session, step, seat, f"Q{key}", None, before, "not checked"))
