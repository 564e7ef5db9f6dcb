"""One step of a session as the facts a person inspects: who was asked, and what each attempt did.

The match loop and the model harness record a decision as a run of events (``engine/events.py``):
``turn_started``; for each model attempt (one ``call`` of one seat) the reflection call, the memory
window, ``prompt_built`` (and a re-ask ``prompt_built`` per unusable answer), ``model_call_*`` with
the assembled ``reasoning`` and ``answer``, the parse chain, the ``verification`` of intermediate
answers and the ``decision``; then ``action_applied``. :class:`StepModel` folds those records, as a
:class:`~sessions.reader.Session` returns them or as they arrive live (with the ``model_delta``
stream), into one :class:`Sample` per attempt plus the step-wide facts.

Qt-free: the desktop's model panel and its formatters read this, and so can any other front end.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from engine import events as ev

if TYPE_CHECKING:
    from sessions.reader import Session

#: A sample is identified by the seat that was asked and the call number of the attempt.
SampleKey = tuple["int | None", "int | None"]

PARSE_TYPES = (ev.ACTION_PARSED, ev.ACTION_UNPARSABLE, ev.ACTION_ILLEGAL)

#: Event types that belong to one attempt (one ``(seat, call)``) rather than to the whole step.
_SAMPLE_TYPES = frozenset(
    {
        ev.PROMPT_BUILT,
        ev.MODEL_CALL_STARTED,
        ev.MODEL_RETRY,
        ev.MODEL_CALL_FINISHED,
        ev.MODEL_CALL_FAILED,
        ev.REASONING,
        ev.ANSWER,
        ev.MODEL_DELTA,
        *PARSE_TYPES,
        ev.VERIFICATION,
        ev.REFLECTION,
        ev.PERCEPTION,
        ev.MEMORY,
        ev.DECISION,
        ev.OVERRIDE,
        ev.ERROR,
    }
)

_USAGE_KEYS = ("input_tokens", "output_tokens", "reasoning_tokens", "latency_ms")


def _join_parts(parts: Iterable[str], live: str) -> str:
    texts = [p for p in (*parts, live) if p]
    if len(texts) <= 1:
        return texts[0] if texts else ""
    return "\n\n".join(t if i == 0 else f"── re-prompt {i + 1} ──\n{t}" for i, t in enumerate(texts))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclasses.dataclass
class Sample:
    """The events of one decision attempt (one ``call`` of one seat) at a step.

    Record data is kept as recorded (dicts with the keys listed in ``engine/events.py``).
    """

    seat: int | None
    call: int | None
    #: The first ``prompt_built`` of the attempt (system, user, image reference, template, perception).
    prompt: dict[str, Any] | None = None
    #: Images sent with the prompt: ``attachment://`` references (or, live, engine Blobs / bytes).
    images: list[Any] = dataclasses.field(default_factory=list)
    #: Provider calls made for this attempt (the invalid-answer policy may re-prompt within one call).
    started: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    retries: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    finished: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    failures: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    #: Assembled texts, one per provider call, and the text still streaming in.
    reasoning_parts: list[str] = dataclasses.field(default_factory=list)
    reasoning_live: str = ""
    answer_parts: list[str] = dataclasses.field(default_factory=list)
    answer_live: str = ""
    #: The parse chain, in order: ``(event type, data)`` for each answer read.
    attempts: list[tuple[str, dict[str, Any]]] = dataclasses.field(default_factory=list)
    verifications: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    reflection: str | None = None
    #: The reflection call's text while it streams (before the ``reflection`` event arrives).
    reflection_live: str = ""
    #: The ``describe`` perception call: its prompt, image reference and the description (or error).
    perception: dict[str, Any] | None = None
    #: The description while it streams (before the ``perception`` event arrives).
    perception_live: str = ""
    #: Re-ask prompts of the invalid-answer policy (the first prompt stays in ``prompt``).
    reasks: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    memory: list[dict[str, Any]] | None = None
    decision: dict[str, Any] | None = None
    override: dict[str, Any] | None = None
    errors: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    @property
    def key(self) -> SampleKey:
        return (self.seat, self.call)

    @property
    def reasoning(self) -> str:
        """All reasoning of this attempt, re-prompts separated, including what is still streaming."""
        return _join_parts(self.reasoning_parts, self.reasoning_live)

    @property
    def answer(self) -> str:
        """All raw answers of this attempt, re-prompts separated, including what is still streaming."""
        return _join_parts(self.answer_parts, self.answer_live)

    @property
    def is_model(self) -> bool:
        """Whether a model worked on this attempt (a bot's or a person's decision is not)."""
        return (
            bool(
                self.prompt or self.perception or self.started or self.reasoning or self.answer
                or self.attempts or self.failures
            )
            or (self.decision or {}).get("source") == "model"
        )

    @property
    def streaming(self) -> bool:
        """Whether a provider call of this attempt has started and not ended yet."""
        return len(self.started) > len(self.finished) + len(self.failures)

    @property
    def simulated(self) -> bool:
        """Whether the calls went to PlayTrace's offline simulated model."""
        return any(s.get("provider") == "sim" for s in self.started)

    @property
    def description(self) -> str:
        """The perception call's description of the board, or what of it has streamed so far."""
        if self.perception is not None:
            return str(self.perception.get("text") or "")
        return self.perception_live

    def usage(self) -> dict[str, float]:
        """Tokens, cost and latency summed over this attempt's provider calls.

        ``cost_usd`` is present only when at least one call has a known price.
        """
        total: dict[str, float] = {}
        for fin in self.finished:
            for key in _USAGE_KEYS:
                total[key] = total.get(key, 0) + float(fin.get(key) or 0)
            if fin.get("cost_usd") is not None:
                total["cost_usd"] = total.get("cost_usd", 0.0) + float(fin["cost_usd"])
        return total

    def chosen(self) -> str | None:
        """The action this sample settled on: its decision, else its last successfully parsed answer."""
        if self.decision and self.decision.get("action") is not None:
            return str(self.decision["action"])
        for kind, data in reversed(self.attempts):
            if kind == ev.ACTION_PARSED:
                return str(data.get("matched"))
        return None

    def failed(self) -> bool:
        """Whether this attempt ended without a usable answer (a failed call or a rejected answer)."""
        return bool(self.failures) or (
            bool(self.attempts) and self.attempts[-1][0] != ev.ACTION_PARSED and not self.streaming
        )

    def fold(self, kind: str, data: Mapping[str, Any]) -> bool:
        """Add one event of this attempt; returns whether the structure changed (not just live text)."""
        if kind == ev.MODEL_DELTA:
            text = str(data.get("text", ""))
            if data.get("purpose") == "reflection":
                if data.get("kind") != "reasoning":
                    self.reflection_live += text
            elif data.get("purpose") == "perception":
                if data.get("kind") != "reasoning":
                    self.perception_live += text
            elif data.get("kind") == "reasoning":
                self.reasoning_live += text
            else:
                self.answer_live += text
            return False
        if kind == ev.PROMPT_BUILT:
            if data.get("reask") and self.prompt is not None:
                self.reasks.append(dict(data))
                return True
            self.prompt = dict(data)
            # Recorded prompts carry ``images`` as a count and the image under ``image`` (an
            # ``attachment://`` reference once written, a Blob live); a list of references is read too.
            images = data.get("images")
            self.images = list(images) if isinstance(images, (list, tuple)) else []
            if data.get("image") is not None:
                self.images.insert(0, data["image"])
        elif kind == ev.REASONING:
            # The assembled text replaces what streamed in for this provider call.
            self.reasoning_parts.append(str(data.get("text", "")))
            self.reasoning_live = ""
        elif kind == ev.ANSWER:
            # A tool call is part of the answer: shown after the text as ``name(arguments)``.
            calls = [f"{c.get('name')}({c.get('arguments') or '{}'})" for c in data.get("tool_calls") or ()
                     if isinstance(c, Mapping)]
            self.answer_parts.append("\n".join(t for t in (str(data.get("text", "")), *calls) if t))
            self.answer_live = ""
        elif kind in PARSE_TYPES:
            self.attempts.append((kind, dict(data)))
        elif kind == ev.REFLECTION:
            self.reflection = str(data.get("text", ""))
            self.reflection_live = ""
        elif kind == ev.PERCEPTION:
            self.perception = dict(data)
            self.perception_live = ""
        elif kind == ev.MEMORY:
            self.memory = [dict(e) for e in data.get("entries") or [] if isinstance(e, Mapping)]
        elif kind == ev.DECISION:
            self.decision = dict(data)
        elif kind == ev.OVERRIDE:
            self.override = dict(data)
        else:
            target = {
                ev.MODEL_CALL_STARTED: self.started,
                ev.MODEL_RETRY: self.retries,
                ev.MODEL_CALL_FINISHED: self.finished,
                ev.MODEL_CALL_FAILED: self.failures,
                ev.VERIFICATION: self.verifications,
                ev.ERROR: self.errors,
            }.get(kind)
            if target is None:
                return False
            target.append(dict(data))
        return True


class StepModel:
    """All events of one step, grouped into samples ``(seat, call)`` plus the step-wide facts.

    Build it from a session with :meth:`from_session`, from records with :meth:`from_records`, or
    feed live records one by one with :meth:`add`.
    """

    def __init__(self, step: int | None) -> None:
        self.step = step
        self.samples: dict[SampleKey, Sample] = {}
        self.turn: dict[str, Any] | None = None
        self.applied: dict[str, Any] | None = None
        self.player_changes: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.finished: dict[str, Any] | None = None
        #: The sample that received the latest live event (the one to follow while streaming).
        self.latest: SampleKey | None = None

    @classmethod
    def from_records(cls, step: int | None, records: Iterable[Mapping[str, Any]]) -> StepModel:
        """A step built from its records ``{"type", "step", "seat", "call", "data"}`` in file order."""
        model = cls(step)
        for record in records:
            model.add(record)
        return model

    @classmethod
    def from_session(cls, session: Session, index: int) -> StepModel:
        """Decision ``index`` of ``session`` (0 = the first recorded step, also in a forked session)."""
        records = session.events_for_step(index)
        step = next((r["step"] for r in records if _int(r.get("step")) is not None), None)
        if step is None:
            first = session.events[0].get("step") if session.events else None
            step = (_int(first) or 0) + index
        return cls.from_records(step, records)

    def sample(self, seat: int | None, call: int | None) -> Sample:
        """The sample of ``(seat, call)``, created empty if it has no event yet."""
        key = (seat, call)
        if key not in self.samples:
            self.samples[key] = Sample(seat, call)
        return self.samples[key]

    def add(self, record: Mapping[str, Any]) -> bool:
        """Fold one event in; returns whether the structure changed (not just streamed text)."""
        kind = str(record.get("type", ""))
        raw = record.get("data")
        data: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        seat, call = _int(record.get("seat")), _int(record.get("call"))
        if kind == ev.TURN_STARTED:
            self.turn = dict(data)
            return True
        if kind == ev.ACTION_APPLIED:
            self.applied = dict(data)
            return True
        if kind == ev.PLAYER_CHANGED:
            self.player_changes.append(dict(data))
            return True
        if kind == ev.SESSION_FINISHED:
            self.finished = dict(data)
            return True
        if kind == ev.ERROR and call is None:
            self.errors.append(dict(data))
            return True
        if kind not in _SAMPLE_TYPES:
            return False  # session_started and unknown types have nothing to show per step
        if kind == ev.DECISION:
            call = self._decision_call(seat, call, data)
        sample = self.sample(seat, call)
        self.latest = sample.key
        return sample.fold(kind, data)

    def _decision_call(self, seat: int | None, call: int | None, data: Mapping[str, Any]) -> int | None:
        """The attempt a decision belongs to.

        The match records a reviewed decision under the call it first asked; after a Re-ask the
        decision names the attempt that was accepted (``accepted_call``), and after an Override the
        ``override`` event sits on the attempt that was overridden.
        """
        accepted = _int(data.get("accepted_call"))
        if accepted is not None:
            return accepted
        for sample in self.samples.values():
            if (
                sample.seat == seat
                and sample.override is not None
                and sample.decision is None
                and sample.override.get("action") == data.get("action")
            ):
                return sample.call
        return call

    # -- reading ------------------------------------------------------------------------------

    def ordered(self) -> list[Sample]:
        """Samples in a stable order: by seat, then call."""
        return sorted(
            self.samples.values(), key=lambda s: (s.seat if s.seat is not None else -1, s.call or 0)
        )

    def decided(self) -> Sample | None:
        """The sample whose decision was executed (the last one with a decision)."""
        with_decision = [s for s in self.ordered() if s.decision is not None]
        return with_decision[-1] if with_decision else None

    def default_key(self) -> SampleKey | None:
        """The sample to show first: the one that was played, else the latest attempt."""
        decided = self.decided()
        if decided is not None:
            return decided.key
        samples = self.ordered()
        return samples[-1].key if samples else None

    def legal(self, seat: int | None = None) -> list[str]:
        """The legal actions of ``seat`` at this step (from ``turn_started``); without a seat, those of
        every seat that acts, each listed once (seats moving at once often share them)."""
        legal = (self.turn or {}).get("legal") or {}
        if not isinstance(legal, Mapping):
            return []
        lists = [legal.get(str(seat))] if seat is not None else list(legal.values())
        found = [str(a) for seat_legal in lists if isinstance(seat_legal, list) for a in seat_legal]
        return list(dict.fromkeys(found))

    def executed(self, sample: Sample) -> str | None:
        """The action applied for ``sample``'s seat, if ``sample`` is the attempt that was played."""
        applied = self.applied
        if not applied or sample.seat is None:
            return None
        decided = self.decided()
        if decided is not None and decided is not sample:
            return None  # another sample was played
        actions = applied.get("actions") or {}
        action = actions.get(str(sample.seat), actions.get(sample.seat))
        return None if action is None else str(action)

    def why_differs(self, sample: Sample) -> str:
        """Why the executed action is not the one parsed from ``sample``'s answer."""
        if sample.override:
            return f"overridden by {sample.override.get('by', 'human')}"
        if sample.decision and sample.decision.get("policy") not in (None, "answer"):
            return f"fallback policy {sample.decision['policy']}"
        return "the played action is not the parsed one"


def model_steps(session: Session) -> list[int]:
    """Indices of the decisions of ``session`` in which a model was asked (for jumping between them)."""
    indices = []
    for index in range(session.num_steps):
        if any(r.get("type") == ev.PROMPT_BUILT for r in session.events_for_step(index)):
            indices.append(index)
    return indices
