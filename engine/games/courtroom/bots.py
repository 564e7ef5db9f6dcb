"""The attorney: a bot that plays by the case's answer key (the courtroom's ground-truth oracle).

It walks to each statement whose press reveals something, presses it, walks to the contradiction and
presents the evidence the key names, and answers questions rightly. It is what the simulated model
reasons from, and what shows a case can be solved.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.bots.base import SearchBot
from engine.core import Action
from engine.games.courtroom.rules import BACK, LETTERS, NEXT, PRESS, CourtState
from engine.players import Observation


def key_target(state: CourtState) -> tuple[int, bool]:
    """Where the answer key works next in a cross-examination: the index of the statement among
    those shown, and whether it is to be pressed (``True``) or is the contradiction (``False``)."""
    t = state.current_testimony
    shown = [s.id for s in state.statements]
    waiting = [p for p in t.answer.press if p not in state.pressed and p in shown]
    return shown.index(waiting[0] if waiting else t.answer.statement), bool(waiting)


def key_move(state: CourtState) -> tuple[Action, str]:
    """The answer key's next action in ``state`` and why, in words."""
    t = state.current_testimony
    if state.phase == "choice":
        assert t.choice is not None
        answer = t.choice.answer
        return f"choose {LETTERS[answer - 1]}", f"the answer is {t.choice.options[answer - 1]}"
    goal, pressing = key_target(state)
    if goal != state.position:
        return (NEXT if goal > state.position else BACK), f"statement {goal + 1} is the one to work on"
    if pressing:
        return PRESS, "pressing this statement reveals more"
    evidence = next(state.current_case.item(e) for e in t.answer.evidence if e in state.held)
    return f"present {evidence.label}", t.answer.reason


class AttorneyBot(SearchBot):
    """Plays the answer key: every action it takes is the key's."""

    spec = "attorney"
    label = "Attorney (answer key)"

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, CourtState)
        best, _ = key_move(state)
        return {a: 1.0 if a == best else 0.0 for a in observation.legal_actions}

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        state = observation.state
        assert isinstance(state, CourtState)
        return key_move(state)[1]
