"""Intermediate answers checked against ground truth (GameBot's verified intermediate results).

A game's prompt may ask sub-questions whose answers the model writes as
``[Intermediate Thinking Results k: ...]``. A *verifier* for the game knows, for each ``k``, the
question and a ground-truth oracle (a pure function of the true state), and compares:

* set questions (tic-tac-toe's winning cells) get GameBot's step label — ``TP`` (non-empty and exactly
  equal), ``TN`` (both empty), ``FP`` (truth empty, something listed), ``FN`` (truth non-empty, nothing
  listed), ``MM`` (both non-empty, different) — plus per-step precision / recall / F1 and a
  ``format_error`` label when the tag is missing or unreadable (which counts as wrong);
* ``correct`` is true for ``TP`` and ``TN`` only.

Games without verifiers simply produce no checks; 2048 has an empty slot ready for questions.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.core import Game, Seat, State


@dataclasses.dataclass(frozen=True, slots=True)
class Check:
    """One verified intermediate answer (the data of a ``verification`` event)."""

    key: int
    question: str
    answer: Any
    truth: Any
    correct: bool
    detail: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_data(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "question": self.question,
            "answer": self.answer,
            "truth": self.truth,
            "correct": self.correct,
            "detail": dict(self.detail),
        }


@dataclasses.dataclass(frozen=True, slots=True)
class Question:
    """An intermediate question: ``truth(state, seat)`` gives the ground-truth set of actions."""

    key: int
    text: str
    truth: Callable[[State, Seat], Sequence[str]]


_VERIFIERS: dict[str, list[Question]] = {}


def register_questions(game_id: str, questions: Sequence[Question]) -> None:
    """Declare the intermediate questions of ``game_id`` (replaces earlier ones)."""
    _VERIFIERS[game_id] = list(questions)


def questions_for(game_id: str) -> list[Question]:
    return list(_VERIFIERS.get(game_id, []))


_CELL = re.compile(r"\(?\s*(\d+)\s*,\s*(\d+)\s*\)?")


def parse_cell_set(answer: str | None) -> set[str] | None:
    """Read ``"(0,1), (2,2)"`` or ``"None"`` as a set of cells; ``None`` when unreadable (format error).

    Following GameBot, any text that is not ``None`` and holds no ``(d,d)`` pair is a format error.
    """
    if answer is None:
        return None
    text = answer.strip().strip(".*`'\"[]")
    if not text:
        return None
    cells = {f"({int(m.group(1))},{int(m.group(2))})" for m in _CELL.finditer(text)}
    if cells:
        return cells
    if re.fullmatch(r"(none|no(ne)?\s*(winning\s*)?moves?|empty|nothing|-)", text.strip().lower()):
        return set()
    return None


def score_sets(answer: set[str] | None, truth: set[str]) -> tuple[bool, dict[str, Any]]:
    """GameBot's step label plus per-step precision, recall and F1 for a set answer."""
    if answer is None:
        return False, {"label": "format_error", "precision": 0.0, "recall": 0.0, "f1": 0.0}
    hit = len(answer & truth)
    if not truth:
        label = "TN" if not answer else "FP"
    elif answer == truth:
        label = "TP"
    elif not answer:
        label = "FN"
    else:
        label = "MM"
    precision = hit / len(answer) if answer else (1.0 if not truth else 0.0)
    recall = hit / len(truth) if truth else (1.0 if not answer else 0.0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    detail: dict[str, Any] = {
        "label": label,
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
    }
    missed = sorted(truth - answer)
    extra = sorted(answer - truth)
    if missed:
        detail["missed"] = missed
    if extra:
        detail["extra"] = extra
    return label in ("TP", "TN"), detail


def verify(game: Game, state: State, seat: Seat, tags: Mapping[int, str]) -> list[Check]:
    """Check every intermediate question of ``game`` against the model's tags (never raises)."""
    checks = []
    for q in questions_for(game.id):
        raw = tags.get(q.key)
        try:
            truth = set(q.truth(state, seat))
        except Exception as exc:  # an oracle bug is recorded, it must not end the model's turn
            detail = {"label": "oracle_error", "error": str(exc)}
            checks.append(Check(q.key, q.text, raw, None, False, detail))
            continue
        answer = parse_cell_set(raw)
        correct, detail = score_sets(answer, truth)
        if raw is None:
            detail["missing"] = True
        shown: Any = sorted(answer) if answer is not None else raw
        checks.append(Check(q.key, q.text, shown, sorted(truth), correct, detail))
    return checks


# -- per-game questions -------------------------------------------------------------------------------


def _tictactoe_questions() -> list[Question]:
    def mine(state: State, seat: Seat) -> list[str]:
        from engine.games.tictactoe import MARKS, winning_moves

        return winning_moves(state, MARKS[seat])  # type: ignore[arg-type]

    def theirs(state: State, seat: Seat) -> list[str]:
        from engine.games.tictactoe import MARKS, winning_moves

        return winning_moves(state, MARKS[1 - seat])  # type: ignore[arg-type]

    return [
        Question(1, "my winning moves", mine),
        Question(2, "opponent's winning moves", theirs),
    ]


register_questions("tictactoe", _tictactoe_questions())
#: 2048 has no intermediate questions yet; the slot exists so adding one is a one-line change.
register_questions("2048", [])
