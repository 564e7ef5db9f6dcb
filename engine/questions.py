"""Intermediate questions: sub-answers a model writes before its move, checked against ground truth.

GameBot asks models to state intermediate results (``[Intermediate Thinking Results k: ...]``) and
verifies each with a rule-based oracle. A game declares its questions in its own package as a
sequence of :class:`Question` (named by ``Game.questions``); the harness checks the model's tags
against them (:mod:`engine.agent.verify`) and the simulated model answers them from the same oracles.

Set questions (tic-tac-toe's winning cells) are scored GameBot's way: ``TP`` (non-empty and exactly
equal), ``TN`` (both empty), ``FP`` (truth empty, something listed), ``FN`` (truth non-empty, nothing
listed), ``MM`` (both non-empty, different), plus per-step precision / recall / F1, and
``format_error`` when the tag is missing or unreadable (which counts as wrong). ``correct`` is true
for ``TP`` and ``TN`` only.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine.core import Seat, State

__all__ = ["Check", "Question", "format_items", "parse_cell_set", "score_sets"]


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


def format_items(items: Iterable[str]) -> str:
    """How a set answer is written in a tag: ``"(0,1), (2,2)"``, or ``"None"`` when empty."""
    listed = list(items)
    return ", ".join(listed) if listed else "None"


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


@dataclasses.dataclass(frozen=True, slots=True)
class Question:
    """One intermediate question of a game.

    Attributes:
        key: The ``k`` of ``[Intermediate Thinking Results k: ...]``.
        text: The question in a few words (``"my winning moves"``), shown beside the ✓/✗.
        truth: The oracle: ``truth(view, seat)`` gives the true answer's items for ``seat``, from the
            state as that seat sees it.
        parse: Reads the model's answer text into a set of items, or ``None`` for a format error.
        write: Writes a set of items the way the prompt asks for them (used by the simulated model).
    """

    key: int
    text: str
    truth: Callable[[State, Seat], Sequence[str]]
    parse: Callable[[str | None], set[str] | None] = parse_cell_set
    write: Callable[[Iterable[str]], str] = format_items


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
