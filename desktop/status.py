"""The status line, derived from the session state in one place.

:func:`status_text` is a pure function of a :class:`StatusSnapshot` (a small immutable summary of the
open session that :meth:`~desktop.controller.SessionController.snapshot` takes). Every status message
that describes the state comes from here, so the status line can never contradict what the session
is doing; transient notices (an error, a refused click) are shown separately by the window.

Steps are numbered as people see them: step N is the decision made on the N-th board, so the decision
recorded with event step index ``k`` is step ``k + 1`` (:func:`step_number`).
"""

from __future__ import annotations

import dataclasses

__all__ = ["StatusSnapshot", "position_text", "status_text", "step_number"]


def step_number(index: int) -> int:
    """The step people see for the board with state index ``index`` (the decision made on it)."""
    return int(index) + 1


def position_text(view_step: int, head: int, *, live: bool = False) -> str:
    """The timeline's label for the board at state index ``view_step`` of ``head`` applied steps.

    "Step 4 / 9" while a decision was (or is being) made on that board; the final board of a finished
    game has no decision: "Final position · 9 steps". At the live head the decision being made now is
    step ``head + 1``.
    """
    if view_step < head:
        return f"Step {step_number(view_step)} / {head}"
    if live:
        return f"Step {step_number(head)} (now)"
    return f"Final position · {head} step{'s' if head != 1 else ''}"


@dataclasses.dataclass(frozen=True, slots=True)
class StatusSnapshot:
    """What the status line needs to know about the open session, frozen at one moment.

    ``mode`` is ``"idle"``, ``"live"`` or ``"replay"``; ``view_step`` / ``head`` are state indexes;
    ``finished`` is the session's final status (``None`` while the game goes on); ``cut_off`` is set
    for a replayed session that ended while a model call was in flight; ``waiting_seat`` /
    ``waiting_label`` name the person the game waits for; ``notice`` is the game's own line about the
    state (``State.notice``).
    """

    mode: str = "idle"
    view_step: int = 0
    head: int = 0
    following: bool = True
    finished: str | None = None
    result: str = ""
    error: str | None = None
    running: bool = False
    paused: bool = False
    #: The pacer waits for a go (nothing is being played at the head right now).
    held_up: bool = True
    pending_label: str | None = None
    pending_action: str | None = None
    model_busy: bool = False
    model_to_act: bool = False
    waiting_seat: str | None = None
    waiting_label: str | None = None
    key_hint: str = ""
    call_cancelled: bool = False
    cut_off: bool = False
    notice: str = ""


def _with_notice(text: str, snap: StatusSnapshot) -> str:
    return f"{text} · {snap.notice}" if snap.notice else text


def status_text(snap: StatusSnapshot) -> str:
    """The one sentence the status bar shows for ``snap`` (pure: same snapshot, same text)."""
    if snap.mode not in ("live", "replay"):
        return "Start a new game (Ctrl+N) or open a session (Ctrl+O)"
    where = (
        f"step {step_number(snap.view_step)} of {snap.head}"
        if snap.view_step < snap.head
        else f"final position after {snap.head} step{'s' if snap.head != 1 else ''}"
    )
    if snap.mode == "replay":
        prefix = "Replay"
        if snap.cut_off:
            prefix = "Replay of a session cut off during a model call (no answer was recorded)"
        elif snap.finished and snap.finished not in ("completed",):
            prefix = f"Replay ({snap.finished.replace('_', ' ')})"
        return _with_notice(f"{prefix} — {where}; [ and ] to scrub, Fork to play on from here", snap)
    if snap.error:
        return snap.error
    if snap.finished:
        over = f"Game over ({snap.finished.replace('_', ' ')})"
        text = f"{over} — {snap.result}" if snap.result else over
        if not snap.following:
            text += f" · showing {where}"
        return text
    if not snap.following:
        if snap.paused and not snap.running:
            return f"Reviewing {where} — the game is paused; End returns to it"
        return f"Reviewing {where} while the game goes on — press End to follow it"
    if snap.pending_action is not None:
        return (
            f"{snap.pending_label or 'The model'} proposes {snap.pending_action} — Accept, Override "
            "(click the board) or Re-ask; Step accepts"
        )
    if snap.model_busy:
        return "Model thinking… Esc to cancel"
    if snap.waiting_seat is not None:
        who = f"{snap.waiting_seat} ({(snap.waiting_label or 'you').lower()})"
        return _with_notice(f"Waiting for {who} — {snap.key_hint}", snap)
    if snap.call_cancelled:
        return "Model call cancelled — Ctrl+Enter asks again, or take over the seat"
    if snap.paused and not snap.running and snap.held_up:
        if snap.model_to_act:
            return _with_notice("Paused — Ctrl+Enter asks the model for one decision; Space runs", snap)
        return _with_notice("Paused — Step plays one move; Space runs", snap)
    return _with_notice("Playing…", snap)
