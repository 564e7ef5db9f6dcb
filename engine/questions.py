"""Intermediate questions: sub-answers a model writes before its move, checked against ground truth.

GameBot asks models to state intermediate results (``[Intermediate Thinking Results k: ...]``) and
verifies each with a rule-based oracle. A game declares its questions in its own package as a
sequence of :class:`Question` (named by ``Game.questions``); the harness checks the model's tags
against them (:mod:`engine.agent.verify`) and the simulated model answers them from the same oracles.

A question has a *kind*, which fixes how an answer is read and judged:

``set``
    A list of items (tic-tac-toe's winning cells), scored GameBot's way: ``TP`` (non-empty and
    exactly equal), ``TN`` (both empty), ``FP`` (truth empty, something listed), ``FN`` (truth
    non-empty, nothing listed), ``MM`` (both non-empty, different), plus per-step precision / recall /
    F1. ``correct`` is true for ``TP`` and ``TN`` only.
``bool``
    True or false (Othello's "can I take a corner?"), labelled ``TP`` / ``TN`` / ``FP`` / ``FN``.
``value``
    One word or phrase compared exactly after normalising case and spaces (Pong's ball direction).
``number``
    A number, correct when within :attr:`Question.tolerance` of the truth (Pong's intercept,
    hold'em's equity, a bargaining offer's value).

Every kind may be ``format_error`` (the tag is missing or unreadable, which counts as wrong), and a
question whose :attr:`Question.applies` says it does not apply to the position is ``not_applicable``
(its check has no verdict: ``correct`` is ``None``). :func:`tally` aggregates checks into the
accuracy or F1 the paper reports per question (:attr:`Question.metric`).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engine.core import Seat, State

__all__ = [
    "ACCURACY",
    "F1",
    "KINDS",
    "NOT_APPLICABLE",
    "Check",
    "Question",
    "Tally",
    "asked_keys",
    "format_bool",
    "format_items",
    "format_number",
    "parse_bool",
    "parse_cell_set",
    "parse_number",
    "parse_value",
    "score",
    "score_sets",
    "tally",
]

KINDS = ("set", "bool", "value", "number")
#: The two metrics GameBot reports: F1 for rarely-positive answers, accuracy for balanced ones.
F1 = "f1"
ACCURACY = "accuracy"
#: The label of a check whose question does not apply to the position.
NOT_APPLICABLE = "not_applicable"

_CELL = re.compile(r"\(?\s*(\d+)\s*,\s*(\d+)\s*\)?")
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
_ASKED = re.compile(r"intermediate\s+thinking\s+results\s+(\d+)\s*:", re.IGNORECASE)


def asked_keys(prompt: str) -> set[int]:
    """The question keys a prompt asks for (the ``k`` of every ``[Intermediate Thinking Results k:``)."""
    return {int(m.group(1)) for m in _ASKED.finditer(prompt)}


def _clean(answer: str | None) -> str | None:
    if answer is None:
        return None
    text = answer.strip().strip(".*`'\"[]").strip()
    return text or None


def parse_cell_set(answer: str | None) -> set[str] | None:
    """Read ``"(0,1), (2,2)"`` or ``"None"`` as a set of cells; ``None`` when unreadable (format error).

    Following GameBot, any text that is not ``None`` and holds no ``(d,d)`` pair is a format error.
    """
    text = _clean(answer)
    if text is None:
        return None
    cells = {f"({int(m.group(1))},{int(m.group(2))})" for m in _CELL.finditer(text)}
    if cells:
        return cells
    if re.fullmatch(r"(none|no(ne)?\s*(winning\s*)?moves?|empty|nothing|-)", text.lower()):
        return set()
    return None


def parse_bool(answer: str | None) -> bool | None:
    """``True`` / ``False`` (also yes / no); ``None`` for anything else."""
    text = _clean(answer)
    if text is None:
        return None
    word = re.split(r"[\s,.;:]+", text.lower())[0]
    if word in ("true", "yes", "y"):
        return True
    if word in ("false", "no", "n"):
        return False
    return None


def parse_value(answer: str | None) -> str | None:
    """A word or phrase, lower-cased with single spaces (``"Right  Up"`` → ``"right up"``)."""
    text = _clean(answer)
    return " ".join(text.lower().split()) if text is not None else None


def parse_number(answer: str | None) -> float | None:
    """The first number in the answer (``"35.7%"`` → 35.7, ``"y = 78"`` → 78.0); ``None`` if none."""
    text = _clean(answer)
    if text is None:
        return None
    match = _NUMBER.search(text.replace(",", ""))
    return float(match.group(0)) if match else None


def format_items(items: Iterable[str]) -> str:
    """How a set answer is written in a tag: ``"(0,1), (2,2)"``, or ``"None"`` when empty."""
    listed = list(items)
    return ", ".join(listed) if listed else "None"


def format_bool(value: bool) -> str:
    return "True" if value else "False"


def format_number(value: float) -> str:
    """``78`` for whole numbers, else up to two decimals (``35.7``)."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}".rstrip("0").rstrip(".")


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
        truth: The oracle: ``truth(view, seat)`` gives the true answer for ``seat``, from the state as
            that seat sees it: a sequence of items (``set``), a bool, a string (``value``) or a number.
        parse: Reads the model's answer text, or gives ``None`` for a format error (default: the
            kind's parser).
        write: Writes an answer the way the prompt asks for it (used by the simulated model; default:
            the kind's writer).
        kind: ``"set"``, ``"bool"``, ``"value"`` or ``"number"`` (see the module's documentation).
        metric: :data:`F1` or :data:`ACCURACY`, what :func:`tally` reports for this question (default:
            F1 for sets and booleans, accuracy otherwise).
        tolerance: For numbers, the largest difference still counted correct (strictly less than).
        applies: ``applies(view, seat)`` is false where the question is not scored (hold'em's equity
            after the flop, Pong's intercept when the ball moves away); ``None``: always.
        wrong: ``wrong(truth, view, seat, rng)`` gives a plausible wrong answer of the right type, for the
            simulated model; ``None``: the generic mistake of the kind.
        about_action: The question is about the move the model chose (bargaining's "value of my
            proposal"): ``truth`` and ``applies`` then take a third argument, the parsed action
            (``None`` when there was none), and the simulated model is told its intended action.
    """

    key: int
    text: str
    # ``truth`` and ``applies`` take (view, seat), or (view, seat, action) when ``about_action``.
    truth: Callable[..., Any]
    parse: Callable[[str | None], Any] | None = None
    write: Callable[[Any], str] | None = None
    kind: str = "set"
    metric: str = ""
    tolerance: float = 0.1
    applies: Callable[..., bool] | None = None
    wrong: Callable[..., Any] | None = None
    about_action: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            kinds = ", ".join(KINDS)
            raise ValueError(f"question {self.key}: kind must be one of {kinds}, not {self.kind!r}")
        if self.metric and self.metric not in (F1, ACCURACY):
            raise ValueError(f"question {self.key}: metric must be {F1!r} or {ACCURACY!r}")

    @property
    def scored_by(self) -> str:
        """The metric :func:`tally` reports (the declared one, or the kind's default)."""
        return self.metric or (F1 if self.kind in ("set", "bool") else ACCURACY)

    def read(self, answer: str | None) -> Any:
        """The model's answer text read as this question's kind (``None``: a format error)."""
        if self.parse is not None:
            return self.parse(answer)
        return {"set": parse_cell_set, "bool": parse_bool, "value": parse_value, "number": parse_number}[
            self.kind
        ](answer)

    def written(self, value: Any) -> str:
        """``value`` written the way the prompt asks for it."""
        if self.write is not None:
            return self.write(value)
        if self.kind == "set":
            return format_items(value)
        if self.kind == "bool":
            return format_bool(bool(value))
        if self.kind == "number":
            return format_number(float(value))
        return str(value)

    def expected(self, view: State, seat: Seat, action: Any = None) -> Any:
        """The oracle's answer in the kind's type (a sorted list for sets); :data:`NOT_APPLICABLE` when
        the question does not apply. ``action`` is the move chosen, for :attr:`about_action`."""
        extra = (action,) if self.about_action else ()
        if self.applies is not None and not self.applies(view, seat, *extra):
            return NOT_APPLICABLE
        truth = self.truth(view, seat, *extra)
        if self.kind == "set":
            return sorted(set(truth))
        if self.kind == "bool":
            return bool(truth)
        if self.kind == "number":
            return float(truth)
        return parse_value(str(truth)) or ""


def score(question: Question, raw: str | None, truth: Any) -> tuple[bool | None, Any, dict[str, Any]]:
    """Judge the answer text ``raw`` against ``truth`` (from :meth:`Question.expected`).

    Returns ``(correct, answer as read, detail)``; ``correct`` is ``None`` when the question does not
    apply. The detail always has a ``label``.
    """
    if truth == NOT_APPLICABLE:
        return None, raw, {"label": NOT_APPLICABLE}
    answer = question.read(raw)
    if question.kind == "set":
        correct, detail = score_sets(answer, set(truth))
        return correct, sorted(answer) if answer is not None else raw, detail
    if answer is None:
        return False, raw, {"label": "format_error"}
    if question.kind == "bool":
        label = ("TP" if answer else "FN") if truth else ("FP" if answer else "TN")
        return answer == truth, answer, {"label": label}
    if question.kind == "number":
        error = abs(float(answer) - float(truth))
        ok = error < question.tolerance
        return ok, answer, {"label": "correct" if ok else "incorrect", "error": round(error, 4)}
    ok = answer == truth
    return ok, answer, {"label": "correct" if ok else "incorrect"}


@dataclasses.dataclass(frozen=True, slots=True)
class Check:
    """One verified intermediate answer (the data of a ``verification`` event)."""

    key: int
    question: str
    answer: Any
    truth: Any
    correct: bool | None
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


@dataclasses.dataclass(slots=True)
class Tally:
    """The checks of one question, aggregated.

    ``asked`` counts every scored check (format errors included, ``not_applicable`` not);
    precision and recall follow GameBot's recommendation, a mismatch being a wrong positive and a
    miss at once: P = TP / (TP + FP + MM), R = TP / (TP + FN + MM). A format error counts as wrong:
    as a miss when the truth was non-empty (or true), as a false positive otherwise.
    """

    key: int
    question: str
    metric: str = F1
    asked: int = 0
    correct: int = 0
    format_errors: int = 0
    not_applicable: int = 0
    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0
    mm: int = 0

    def add(self, data: Mapping[str, Any]) -> None:
        found = data.get("detail")
        detail: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        label = str(detail.get("label", ""))
        if label == NOT_APPLICABLE or (data.get("correct") is None and label != "format_error"):
            self.not_applicable += 1
            return
        self.asked += 1
        self.correct += 1 if data.get("correct") else 0
        if label == "format_error":
            self.format_errors += 1
            truth = data.get("truth")
            if truth not in (None, [], False, "", 0):
                self.fn += 1
            else:
                self.fp += 1
            return
        attr = {"TP": "tp", "FP": "fp", "TN": "tn", "FN": "fn", "MM": "mm"}.get(label)
        if attr:
            setattr(self, attr, getattr(self, attr) + 1)

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.asked if self.asked else None

    @property
    def precision(self) -> float | None:
        predicted = self.tp + self.fp + self.mm
        return self.tp / predicted if predicted else None

    @property
    def recall(self) -> float | None:
        actual = self.tp + self.fn + self.mm
        return self.tp / actual if actual else None

    @property
    def f1(self) -> float | None:
        """F1 over the positive answers; 1.0 when every check was a true negative, ``None`` when
        nothing was asked."""
        if not self.asked:
            return None
        p, r = self.precision, self.recall
        if p is None and r is None:
            return 1.0 if self.tn == self.asked else 0.0
        p, r = p or 0.0, r or 0.0
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def score(self) -> float | None:
        """The question's score under its metric."""
        return self.f1 if self.metric == F1 else self.accuracy

    def to_data(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key": self.key,
            "question": self.question,
            "metric": self.metric,
            "asked": self.asked,
            "correct": self.correct,
            "format_errors": self.format_errors,
            "not_applicable": self.not_applicable,
            "accuracy": _round(self.accuracy),
            "score": _round(self.score),
        }
        if self.metric == F1:
            out.update(tp=self.tp, fp=self.fp, tn=self.tn, fn=self.fn, mm=self.mm,
                       precision=_round(self.precision), recall=_round(self.recall), f1=_round(self.f1))
        return out


def _round(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else round(x, 4)


def tally(
    records: Iterable[Mapping[str, Any]], questions: Sequence[Question] = ()
) -> dict[int, Tally]:
    """Aggregate ``verification`` records (dicts as :meth:`Check.to_data` writes them) per question key.

    ``questions`` supplies each key's metric; a key without a declaration is scored by F1 when its
    checks carry set labels, else by accuracy.
    """
    declared = {q.key: q for q in questions}
    out: dict[int, Tally] = {}
    for data in records:
        try:
            key = int(data.get("key", 0))
        except (TypeError, ValueError):
            continue
        if key not in out:
            q = declared.get(key)
            found = data.get("detail")
            detail: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
            labelled = detail.get("label") in ("TP", "TN", "FP", "FN", "MM")
            metric = q.scored_by if q else (F1 if labelled else ACCURACY)
            out[key] = Tally(key, q.text if q else str(data.get("question", "")), metric)
        out[key].add(data)
    return dict(sorted(out.items()))
