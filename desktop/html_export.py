"""A recorded session as one self-contained HTML page (``playtrace export SESSION out.html``).

The page holds every board (drawn by the game's own renderer, as PNG ``data:`` URLs, each distinct
board once), and for each step every decision: who decided, the action, how it was reached (parsed
answer, fallback, bot, person), the intermediate answers against the truth, the parse chain, the
perception description, reflection, reasoning, answer and the prompt exactly as sent with its images.
A slider, buttons and the arrow keys scrub the steps; ``out.html#step=12`` opens step 12 (numbered
as the app numbers steps). It asks for nothing over the network (see :mod:`desktop.html_page`).
Nothing here touches a widget.
"""

from __future__ import annotations

import base64
import hashlib
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from desktop.html_page import page
from sessions.reader import Session
from sessions.steps import Sample, StepModel

__all__ = ["export_html", "session_page"]

#: Board images are drawn this many pixels wide (a page stays a few MB for hundreds of steps).
BOARD_SIZE = 480


class _Images:
    """Distinct images of the page, as data URLs keyed by a short digest."""

    def __init__(self) -> None:
        self.urls: dict[str, str] = {}

    def add(self, png: bytes) -> str:
        key = hashlib.sha256(png).hexdigest()[:16]
        if key not in self.urls:
            self.urls[key] = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        return key


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, (list, tuple, set)):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)


def _checks(sample: Sample) -> list[dict[str, str]]:
    out = []
    for v in sample.verifications:
        label = (v.get("detail") or {}).get("label")
        correct = v.get("correct")
        mark, cls = ("✓", "ok") if correct is True else ("–", "na") if correct is None else ("✗", "bad")
        if label == "format_error":
            mark, cls = "✗ format", "bad"
        out.append(
            {
                "mark": mark,
                "cls": cls,
                "question": str(v.get("question") or f"Q{v.get('key')}"),
                "answer": _fmt(v.get("answer")),
                "truth": _fmt(v.get("truth")),
            }
        )
    return out


def _chain(sample: Sample) -> list[str]:
    lines = []
    for kind, data in sample.attempts:
        attempt = data.get("attempt")
        head = f"answer {attempt}: " if attempt else ""
        if kind == "action_parsed":
            extracted, matched = data.get("extracted"), data.get("matched")
            text = f"{head}read {extracted!r}"
            if matched != extracted:
                text += f" → matched {matched!r}"
            if data.get("reason"):
                text += f" ({data['reason']})"
            lines.append(text)
        elif kind == "action_illegal":
            lines.append(f"{head}illegal: {data.get('error') or data.get('extracted')}")
        else:
            lines.append(f"{head}unreadable: {data.get('error') or 'no move found'}")
    return lines


def _how(sample: Sample, kinds: Mapping[int, str]) -> str:
    d = sample.decision or {}
    source, policy = d.get("source"), d.get("policy")
    if sample.override:
        return "a person overrode the model's move"
    if source == "human":
        return "played by a person"
    if source == "bot" or (not sample.is_model and kinds.get(sample.seat or 0) == "bot"):
        return "built-in bot"
    if policy == "answer":
        attempts = d.get("attempts") or 1
        return "the model's answer" + (
            f" (after {attempts - 1} re-ask{'s' if attempts > 2 else ''})" if attempts > 1 else ""
        )
    if policy in ("random", "noop"):
        return f"fallback: a {'random' if policy == 'random' else 'no-op'} move played for the model"
    if policy:
        return f"the seat forfeited ({policy})"
    return "an attempt (no decision on this call)"


def _usage(sample: Sample) -> str:
    u = sample.usage()
    if not u:
        return ""
    parts = [f"{int(u.get('input_tokens', 0)):,} in / {int(u.get('output_tokens', 0)):,} out tokens"]
    if "cost_usd" in u:
        parts.append(f"${u['cost_usd']:.4f}")
    if u.get("latency_ms"):
        parts.append(f"{u['latency_ms'] / 1000:.2f} s")
    return " · ".join(parts)


def _prompt(sample: Sample) -> str:
    p = sample.prompt or {}
    system, user = p.get("system") or "", p.get("user") or ""
    return f"[system]\n{system}\n\n[user]\n{user}".strip() if (system or user) else ""


def session_page(session: Session, render: Callable[..., bytes] | None) -> str:
    """The HTML document of ``session``; ``render(state, grid_labels=...)`` draws a board as PNG."""
    images = _Images()
    players = {
        int(p.get("seat", i)): p
        for i, p in enumerate(session.manifest.get("players") or [])
        if isinstance(p, dict)
    }
    kinds = {seat: str(p.get("kind") or "") for seat, p in players.items()}

    def who(seat: int | None) -> str:
        p = players.get(seat if seat is not None else 0, {})
        name = p.get("label") or p.get("spec") or "?"
        return f"Seat {seat} · {name}" if len(players) > 1 else str(name)

    n = session.num_steps
    steps: list[dict[str, Any]] = []
    for k in range(n + 1):
        board = ""
        if render is not None:
            try:
                board = images.add(render(session.state_at(k), grid_labels=False))
            except Exception:  # a board that cannot be drawn leaves its step without a picture
                board = ""
        decisions: list[dict[str, Any]] = []
        if k < n:
            for sample in StepModel.from_session(session, k).ordered():
                if sample.decision is None and not sample.is_model:
                    continue
                prompt_images = []
                for ref in sample.images:
                    if isinstance(ref, str):
                        try:
                            prompt_images.append(images.add(session.read_attachment(ref)))
                        except Exception:  # a missing attachment: the prompt text still shows
                            continue
                decision = sample.decision or {}
                decisions.append(
                    {
                        "who": who(sample.seat),
                        "action": decision.get("action"),
                        "how": _how(sample, kinds),
                        "rationale": str(decision.get("rationale") or ""),
                        "checks": _checks(sample),
                        "chain": _chain(sample),
                        "perception": sample.description,
                        "reflection": sample.reflection,
                        "reasoning": sample.reasoning,
                        "answer": sample.answer,
                        "prompt": _prompt(sample),
                        "prompt_images": prompt_images,
                        "usage": _usage(sample),
                    }
                )
        label = f"Step {k + 1} / {n}" if k < n else f"Final position · {n} step{'s' if n != 1 else ''}"
        steps.append(
            {
                "number": k + 1,
                "label": label,
                "board": board,
                "decisions": decisions,
                "final": k == n,
                "result": _result(session) if k == n else "",
            }
        )
    m = session.manifest
    names = ", ".join(str(p.get("label") or p.get("spec")) for _, p in sorted(players.items()))
    meta = " · ".join(
        str(x)
        for x in (
            names,
            f"seed {m.get('seed')}",
            m.get("status"),
            _result(session),
            f"recorded {str(m.get('created_at') or '')[:16].replace('T', ' ')}",
            f"PlayTrace {m.get('app_version')}",
        )
        if x
    )
    title = f"{m.get('title') or session.game_id} — {session.id}"
    return page(title, meta, {"steps": steps, "images": images.urls})


def _result(session: Session) -> str:
    m = session.manifest
    scores = m.get("scores")
    if isinstance(scores, list) and scores:
        text = "scores " + " / ".join(f"{s:g}" if isinstance(s, (int, float)) else str(s) for s in scores)
        if isinstance(m.get("winner"), int):
            text += f" · seat {m['winner']} won"
        return text
    return ""


def export_html(session: Session, dest: Path, render: Callable[..., bytes] | None) -> Path:
    """Write ``session``'s page to ``dest`` atomically (mode from the umask); returns ``dest``."""
    from sessions import publish_file

    text = session_page(session, render)
    dest = Path(dest)
    fd, tmp = tempfile.mkstemp(prefix=".playtrace-", suffix=".html", dir=dest.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        publish_file(tmp)
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return dest
