"""Sessions side by side: decisions aligned step by step, and paired statistics over matched seeds.

* :func:`align` lines up two or more sessions of one game by decision index: each side's action, who
  chose it and how (parsed, fallback), its intermediate answers (correct / asked), answer and prompt;
  :attr:`Alignment.first_divergence` is the first step whose board or action differs between sides.
* :func:`paired` matches the sessions of two (or more) folders by game, options and seed and compares
  one seat's final scores and each intermediate question's accuracy, pair by pair
  (:func:`engine.stats.paired_stats`: paired t-test, Wilcoxon signed-rank test, bootstrap interval).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from engine.stats import PairedStats, paired_stats
from sessions.reader import Session

__all__ = ["Alignment", "Side", "align", "paired", "prompt_diff"]


@dataclasses.dataclass(frozen=True)
class Side:
    """One session's decision at one step (``None`` fields where the session has no such step)."""

    action: str | None = None
    seat: int | None = None
    source: str | None = None
    policy: str | None = None
    asked: int = 0
    correct: int = 0
    answer: str = ""
    reasoning: str = ""
    prompt: str = ""
    board: str = ""

    @property
    def parsed(self) -> bool | None:
        return None if self.policy is None else self.policy == "answer"

    @property
    def verdicts(self) -> str:
        return f"{self.correct}/{self.asked}" if self.asked else ""


@dataclasses.dataclass(frozen=True)
class Alignment:
    sessions: tuple[str, ...]
    game: str
    rows: tuple[tuple[Side | None, ...], ...]
    #: The index in ``rows`` of the first step where boards or actions differ (step index + 1).
    first_divergence: int | None
    same_start: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions": list(self.sessions),
            "game": self.game,
            # Step numbers as the app shows them (from 1); rows are in step order.
            "first_divergence": None if self.first_divergence is None else self.first_divergence + 1,
            "same_start": self.same_start,
            "steps": [
                [None if s is None else {**dataclasses.asdict(s), "parsed": s.parsed} for s in row]
                for row in self.rows
            ],
        }


def _board_key(session: Session, k: int) -> str:
    try:
        state = session.state_json_at(k)
    except IndexError:
        return ""
    return json.dumps(state, sort_keys=True, default=str)


def _sides(session: Session, k: int) -> Side | None:
    """The decisions at step ``k`` folded into one side (simultaneous seats joined with ``|``)."""
    events = session.events_for_step(k)
    decisions = [e for e in events if e["type"] == "decision"]
    if not decisions:
        return None
    per_seat: dict[int, dict[str, Any]] = {}
    for e in events:
        seat = e.get("seat")
        if not isinstance(seat, int):
            continue
        info = per_seat.setdefault(
            seat, {"asked": 0, "correct": 0, "answer": "", "reasoning": "", "prompt": ""}
        )
        data = e["data"]
        if e["type"] == "verification" and (data.get("detail") or {}).get("label") != "not_applicable":
            info["asked"] += 1
            info["correct"] += data.get("correct") is True
        elif e["type"] == "answer" and data.get("purpose", "action") == "action":
            info["answer"] = data.get("text") or ""
        elif e["type"] == "reasoning" and data.get("purpose", "action") == "action":
            info["reasoning"] = data.get("text") or ""
        elif e["type"] == "prompt_built" and not data.get("reask") and not info["prompt"]:
            info["prompt"] = f"{data.get('system') or ''}\n\n{data.get('user') or ''}".strip()
    seats = [d.get("seat") for d in decisions]
    first = decisions[0]["data"]
    seat = seats[0] if isinstance(seats[0], int) else None
    info = per_seat.get(seat if seat is not None else -1, {})
    action = (
        " | ".join(str(d["data"].get("action")) for d in decisions)
        if len(decisions) > 1
        else first.get("action")
    )
    return Side(
        action=None if action is None else str(action),
        seat=seat,
        source=first.get("source"),
        policy=first.get("policy"),
        asked=sum(i["asked"] for i in per_seat.values()),
        correct=sum(i["correct"] for i in per_seat.values()),
        answer=info.get("answer", ""),
        reasoning=info.get("reasoning", ""),
        prompt=info.get("prompt", ""),
        board=_board_key(session, k),
    )


def align(sessions: Sequence[Session]) -> Alignment:
    """Line up ``sessions`` (two or more, of one game) decision by decision.

    Raises:
        ValueError: fewer than two sessions, or sessions of different games.
    """
    if len(sessions) < 2:
        raise ValueError("compare needs at least two sessions")
    games = {s.game_id for s in sessions}
    if len(games) != 1:
        raise ValueError(
            f"the sessions are of different games ({', '.join(sorted(games))}); compare needs one game"
        )
    longest = max(s.num_steps for s in sessions)
    rows = tuple(tuple(_sides(s, k) if k < s.num_steps else None for s in sessions) for k in range(longest))
    first = None
    for k, row in enumerate(rows):
        boards = {"" if side is None else side.board for side in row}
        actions = {None if side is None else side.action for side in row}
        if len(boards) > 1 or len(actions) > 1:
            first = k
            break
    starts = {_board_key(s, 0) for s in sessions}
    return Alignment(tuple(s.id for s in sessions), sessions[0].game_id, rows, first, len(starts) == 1)


def prompt_diff(a: str, b: str, names: tuple[str, str] = ("a", "b")) -> list[str]:
    """The lines of a unified diff of two prompts (empty when they are the same)."""
    return list(difflib.unified_diff(a.splitlines(), b.splitlines(), names[0], names[1], lineterm="", n=1))


# -- paired statistics over matched seeds ---------------------------------------------------------------


def _match_key(session: Session) -> str:
    m = session.manifest
    return json.dumps([session.game_id, m.get("options") or {}, m.get("seed")], sort_keys=True, default=str)


def _question_accuracy(session: Session, seat: int) -> dict[str, float]:
    asked: dict[str, int] = {}
    correct: dict[str, int] = {}
    for e in session.events:
        if e["type"] != "verification" or e.get("seat") != seat:
            continue
        data = e["data"]
        if (data.get("detail") or {}).get("label") == "not_applicable":
            continue
        name = f"Q{data.get('key')} {data.get('question') or ''}".strip()
        asked[name] = asked.get(name, 0) + 1
        correct[name] = correct.get(name, 0) + (data.get("correct") is True)
    return {k: correct[k] / asked[k] for k in asked}


def _final_score(session: Session, seat: int) -> float | None:
    scores = session.manifest.get("scores")
    if not isinstance(scores, list):
        finished = next(
            (e["data"] for e in reversed(session.events) if e["type"] == "session_finished"), None
        )
        scores = (finished or {}).get("scores")
    if isinstance(scores, list) and seat < len(scores) and isinstance(scores[seat], (int, float)):
        return float(scores[seat])
    return None


def paired(groups: Sequence[Sequence[Session]], seat: int, *, seed: int = 0) -> tuple[int, list[PairedStats]]:
    """Compare the first group with each other one over their matched sessions (same game, options and
    seed): the seat's final score, then each intermediate question's accuracy.

    Returns:
        The number of matched pairs of the first comparison, and the statistics.

    Raises:
        ValueError: the groups share no seed.
    """
    base = {_match_key(s): s for s in groups[0]}
    results: list[PairedStats] = []
    pairs_seen = 0
    for g, other in enumerate(groups[1:], 1):
        pairs = [(base[_match_key(s)], s) for s in other if _match_key(s) in base]
        if not pairs:
            raise ValueError(f"folder {g + 1} shares no game, options and seed with folder 1")
        pairs_seen = pairs_seen or len(pairs)
        label = "" if len(groups) == 2 else f" (1 vs {g + 1})"
        scored = [
            (x, y)
            for x, y in ((_final_score(a, seat), _final_score(b, seat)) for a, b in pairs)
            if x is not None and y is not None
        ]
        if scored:
            results.append(
                paired_stats(
                    f"score of seat {seat}{label}", [x for x, _ in scored], [y for _, y in scored], seed=seed
                )
            )
        accs = [(_question_accuracy(a, seat), _question_accuracy(b, seat)) for a, b in pairs]
        names = sorted({k for x, y in accs for k in x.keys() & y.keys()})
        for name in names:
            both = [(x[name], y[name]) for x, y in accs if name in x and name in y]
            results.append(
                paired_stats(f"accuracy {name}{label}", [x for x, _ in both], [y for _, y in both], seed=seed)
            )
    return pairs_seen, results


def differing_seat(groups: Sequence[Sequence[Session]]) -> int:
    """The first seat whose player differs between the first sessions of the groups (else 0)."""
    firsts: list[Mapping[str, Any]] = [g[0].manifest for g in groups if g]
    specs = [[p.get("spec") for p in m.get("players") or [] if isinstance(p, dict)] for m in firsts]
    width = min((len(s) for s in specs), default=0)
    for seat in range(width):
        if len({s[seat] for s in specs}) > 1:
            return seat
    return 0
