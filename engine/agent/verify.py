"""Intermediate answers checked against ground truth (GameBot's verified intermediate results).

A game's prompt may ask sub-questions whose answers the model writes as
``[Intermediate Thinking Results k: ...]``. The game declares the questions and their oracles in its
own package (``Game.questions``, a sequence of :class:`engine.questions.Question`); this module
compares the model's tags with them. Games without questions produce no checks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Game, Seat, State
from engine.questions import Check, Question, parse_cell_set, score_sets

__all__ = ["Check", "Question", "parse_cell_set", "questions_for", "score_sets", "verify"]


def questions_for(game: Game) -> Sequence[Question]:
    """The intermediate questions ``game`` declares (empty when it has none)."""
    if not game.questions:
        return ()
    return tuple(game.load(game.questions))


def verify(game: Game, state: State, seat: Seat, tags: Mapping[int, str]) -> list[Check]:
    """Check every intermediate question of ``game`` against the model's tags (never raises).

    ``state`` is the state as ``seat`` sees it: the oracles judge what the seat could know.
    """
    checks = []
    try:
        questions = questions_for(game)
    except Exception as exc:  # a broken declaration is recorded, it must not end the model's turn
        return [Check(0, "questions", None, None, False, {"label": "oracle_error", "error": str(exc)})]
    for q in questions:
        raw = tags.get(q.key)
        try:
            truth = set(q.truth(state, seat))
        except Exception as exc:  # an oracle bug is recorded, it must not end the model's turn
            detail = {"label": "oracle_error", "error": str(exc)}
            checks.append(Check(q.key, q.text, raw, None, False, detail))
            continue
        answer = q.parse(raw)
        correct, detail = score_sets(answer, truth)
        if raw is None:
            detail["missing"] = True
        shown: Any = sorted(answer) if answer is not None else raw
        checks.append(Check(q.key, q.text, shown, sorted(truth), correct, detail))
    return checks
