"""Typed facts that the match loop and players record while a game is played.

Every stage of a decision is an :class:`Event`. The match loop hands each event to its listeners:
the session writer appends it to ``events.jsonl`` and the app's panels display it. The session layer
adds the sequence number, timestamp and schema version when it writes an event.

Event types and the keys their ``data`` carries (optional keys in brackets):

=====================  ==========================================================================
``session_started``    game, options, seed, players[{seat, spec, label, kind}], state, [forked_from]
``turn_started``       seats, legal {seat: [actions]}
``prompt_built``       system, user, [images], template, template_hash, [variant]
``model_call_started`` provider, model, [params]
``model_retry``        attempt, reason, [wait_s]
``model_call_finished`` latency_ms, input_tokens, output_tokens, [reasoning_tokens], cost_usd
``model_call_failed``  error, kind, [status]
``reasoning``          text (the model's streamed thinking, assembled)
``answer``             text (the raw answer, assembled)
``action_parsed``      raw, extracted, matched, [reason]
``action_unparsable``  raw, error, attempt
``action_illegal``     raw, extracted, error, attempt
``verification``       question, answer, truth, correct, [detail]
``reflection``         text
``perception``         system, user, image, template, template_hash, provider, model, text | error, [kind]
                       (the ``describe`` perception call: a vision model's description of the board)
``memory``             entries[{step, state, action, reward}]
``decision``           action, source ("human" | "bot" | "model" | "default"), [rationale], [values],
                       [latency_ms], [policy], [timed_out], [proposed], [rejected_call]
``override``           proposed, action, by, [rejected_call] (a person played instead of the model's answer)
``player_changed``     seat, spec, label, kind
``action_applied``     actions {seat: action}, rewards, scores, state, changed, is_over
``undo``               actions {seat: action}, state, scores: a person took back the step it names (the
                       state is the one before it); replays drop that step, the record keeps it
``error``              message, [where]
``session_finished``   status, scores, winner, steps, [forfeited] (the seats that gave up),
                       [metrics] (the final state's named figures, e.g. LVLM-Playground's points)
=====================  ==========================================================================

Binary payloads (images, raw bodies) travel as :class:`Blob` values in ``blobs``; the writer stores
them content-addressed and puts an ``attachment://sha256-…`` reference under the same key in ``data``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

SESSION_STARTED = "session_started"
TURN_STARTED = "turn_started"
PROMPT_BUILT = "prompt_built"
MODEL_CALL_STARTED = "model_call_started"
MODEL_RETRY = "model_retry"
MODEL_CALL_FINISHED = "model_call_finished"
MODEL_CALL_FAILED = "model_call_failed"
REASONING = "reasoning"
ANSWER = "answer"
ACTION_PARSED = "action_parsed"
ACTION_UNPARSABLE = "action_unparsable"
ACTION_ILLEGAL = "action_illegal"
VERIFICATION = "verification"
REFLECTION = "reflection"
PERCEPTION = "perception"
MEMORY = "memory"
DECISION = "decision"
OVERRIDE = "override"
PLAYER_CHANGED = "player_changed"
ACTION_APPLIED = "action_applied"
ERROR = "error"
SESSION_FINISHED = "session_finished"
UNDO = "undo"

#: Live-only event types: shown while they arrive, never written (their text is recorded assembled).
MODEL_DELTA = "model_delta"

EVENT_TYPES: frozenset[str] = frozenset(
    {
        SESSION_STARTED,
        TURN_STARTED,
        PROMPT_BUILT,
        MODEL_CALL_STARTED,
        MODEL_RETRY,
        MODEL_CALL_FINISHED,
        MODEL_CALL_FAILED,
        REASONING,
        ANSWER,
        ACTION_PARSED,
        ACTION_UNPARSABLE,
        ACTION_ILLEGAL,
        VERIFICATION,
        REFLECTION,
        PERCEPTION,
        MEMORY,
        DECISION,
        OVERRIDE,
        PLAYER_CHANGED,
        ACTION_APPLIED,
        ERROR,
        SESSION_FINISHED,
        UNDO,
    }
)


@dataclasses.dataclass(frozen=True, slots=True)
class Blob:
    """Binary content attached to an event (a PNG of the board sent to a vision model)."""

    data: bytes
    media_type: str = "image/png"

    @property
    def extension(self) -> str:
        return {"image/png": ".png", "application/json": ".json", "text/plain": ".txt"}.get(
            self.media_type, ".bin"
        )


@dataclasses.dataclass(frozen=True, slots=True)
class Event:
    """One recorded fact. ``step`` is the index of the decision it belongs to (the action applied at
    step ``k`` turns state ``k`` into state ``k + 1``); ``seat`` is the seat concerned, if any.
    ``call`` groups the events of one decision attempt (a re-ask is a new call at the same step)."""

    type: str
    data: dict[str, Any] = dataclasses.field(default_factory=dict)
    step: int | None = None
    seat: int | None = None
    call: int | None = None
    blobs: dict[str, Blob] = dataclasses.field(default_factory=dict)


EventSink = Callable[[Event], None]


def ignore_event(event: Event) -> None:
    """An :data:`EventSink` that drops everything (default for observations made outside a match)."""
