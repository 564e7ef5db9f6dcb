"""Intermediate answers checked against ground truth (GameBot's verified intermediate results).

A game's prompt may ask sub-questions whose answers the model writes as
``[Intermediate Thinking Results k: ...]``. The game declares the questions and their oracles in its
own package (``Game.questions``, a sequence of :class:`engine.questions.Question`); this module
compares the model's tags with them. Only the questions the prompt asked are checked (a ``naive`` or
``none`` prompt variant asks none), and games without questions produce no checks.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from engine.core import Action, Game, Seat, State
from engine.questions import Check, Question, parse_cell_set, score, score_sets

__all__ = ["Check", "Question", "parse_cell_set", "questions_for", "score_sets", "verify"]


def questions_for(game: Game) -> Sequence[Question]:
    """The intermediate questions ``game`` declares (empty when it has none)."""
    if not game.questions:
        return ()
    return tuple(game.load(game.questions))


def verify(
    game: Game,
    state: State,
    seat: Seat,
    tags: Mapping[int, str],
    asked: Collection[int] | None = None,
    action: Action | None = None,
) -> list[Check]:
    """Check the intermediate questions of ``game`` against the model's tags (never raises).

    ``state`` is the state as ``seat`` sees it: the oracles judge what the seat could know.
    ``asked`` limits the checks to the question keys the prompt asked (``None``: all of them);
    ``action`` is the move the model chose, for questions about it (``Question.about_action``).
    """
    checks = []
    try:
        questions = questions_for(game)
    except Exception as exc:  # a broken declaration is recorded, it must not end the model's turn
        return [Check(0, "questions", None, None, False, {"label": "oracle_error", "error": str(exc)})]
    for q in questions:
        if asked is not None and q.key not in asked:
            continue
        raw = tags.get(q.key)
        try:
            truth = q.expected(state, seat, action)
            correct, answer, detail = score(q, raw, truth)
        except Exception as exc:  # an oracle bug is recorded, it must not end the model's turn
            detail = {"label": "oracle_error", "error": str(exc)}
            checks.append(Check(q.key, q.text, raw, None, False, detail))
            continue
        if raw is None and correct is not None:
            detail["missing"] = True
        checks.append(Check(q.key, q.text, answer, truth, correct, detail))
    return checks
