"""How the simulated model plays the courtroom: it reads the testimony against the evidence list, and
writes its thought as LMGame-Bench's Fig. 9 does, cause (what the statement claims), evidence (which
item says otherwise) and effect (what to do now).

Its judgement comes from the attorney bot (the answer key), so when it presents evidence its reasoning
names the real contradiction. It errs as models do:

* now and then it presses a statement before moving on, to hear the witness out (no mistake: it costs
  only a step);
* a wrong belief (at the client's ``wrong_ir_rate``): at the contradiction it picks an item that shares
  words with the statement but proves nothing (a penalty); now and then it objects too early, at a
  statement that merely sounds suspicious; asked a question, it picks a plausible wrong answer;
* a slip (an illegal action, at ``illegal_rate``): it presents an item past the end of the court record
  (a miscount), goes back from the first statement, or answers a question nobody asked;
* a format slip: the ``action:`` line missing or naming no action.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping

from engine.core import Action
from engine.games.courtroom.bots import key_move, key_target
from engine.games.courtroom.cases import Evidence
from engine.games.courtroom.rules import BACK, LETTERS, NEXT, PENALTY_LIMIT, PRESS, CourtState
from engine.llm.simstyle import Analysis, SimBehaviour, SimContext, last_position, position, slip_kind

#: The key under which :meth:`CourtroomSim.intermediate` keeps a belief (no question has it).
_BELIEF = -1
#: Chance that the model presses a statement it has not pressed before moving past it.
CURIOSITY = 0.25
_STOP = frozenset(
    "that this with from were was have had been there their they them what when where which while about "
    "after before into only just your some then than also very said says the and for but not all any".split()
)


def _state(ctx: SimContext | None) -> CourtState | None:
    return position(ctx, CourtState)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 3 and w not in _STOP}


def _shared(statement: str, item: Evidence) -> list[str]:
    """Words of ``statement`` that ``item``'s name or description also uses, longest first."""
    return sorted(_words(statement) & _words(f"{item.name} {item.description}"), key=lambda w: (-len(w), w))


def _quote(text: str, most: int = 90) -> str:
    short = text if len(text) <= most else text[: most - 1].rstrip() + "\u2026"
    return f"\u201c{short}\u201d"


class CourtroomSim(SimBehaviour):
    """The courtroom's simulated defense attorney (answers ``thought:`` / ``action:``)."""

    # -- beliefs and choices ----------------------------------------------------------------------

    def intermediate(self, ctx: SimContext, rng: random.Random, wrong_rate: float) -> dict[int, list[str]]:
        state = _state(ctx)
        if state is None or state.is_over:
            return {}
        best, _ = key_move(state)
        if state.phase == "choice":
            if rng.random() >= wrong_rate:
                return {}
            wrong = [a for a in state.legal_actions() if a != best]
            return {_BELIEF: [rng.choice(wrong)]} if wrong else {}
        at_contradiction = best.startswith("present")
        if rng.random() >= (wrong_rate if at_contradiction else wrong_rate / 3):
            moving = best in (NEXT, BACK) and state.statement.id not in state.pressed
            if moving and rng.random() < CURIOSITY:
                return {_BELIEF: [PRESS]}  # not a mistake: it hears the witness out before moving on
            return {}
        items = [e for e in state.evidence() if f"present {e.label}" != best]
        if not items:
            return {}
        statement = state.statement.text
        pick = max(items, key=lambda e: (len(_shared(statement, e)), -e.number))
        return {_BELIEF: [f"present {pick.label}"]}

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, list[str]]) -> Action:
        believed = answers.get(_BELIEF)
        if believed and believed[0] in ctx.state.legal_actions(ctx.seat):
            return believed[0]
        return analysis.best

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """Evidence past the last item of the court record (a miscount), back from the first statement,
        an answer when no question is put, or evidence presented when a question is."""
        state = _state(ctx)
        if state is None:
            return super().slip(ctx, analysis, rng)
        if state.phase == "choice":
            items = state.evidence()
            return (f"present {rng.choice(items).label}" if items else NEXT), "illegal"
        if rng.random() < 0.7:  # it miscounts the court record: one item past the last it holds
            return f"present E{max((e.number for e in state.evidence()), default=0) + 1}", "illegal"
        if state.position == 0 and rng.random() < 0.7:
            return BACK, "illegal"
        return "choose A", "illegal"

    # -- words ------------------------------------------------------------------------------------------

    def situation(self, ctx: SimContext) -> str:
        state = _state(ctx)
        if state is None:
            return super().situation(ctx)
        if state.phase == "choice":
            return "A question is put to the defense."
        return (
            f"Cross-examining {state.witness.name}, statement {state.position + 1} of "
            f"{len(state.statements)}: "
            f"{_quote(state.statement.text)}. Penalties used: {state.penalties} of {PENALTY_LIMIT}."
        )

    def _why(self, state: CourtState, action: Action, slip: str) -> list[str]:
        """The cause / evidence / effect lines behind ``action``."""
        case = state.current_case
        if slip_kind(slip) == "illegal":
            return self._misread(state, action)
        if state.phase == "choice":
            t = state.current_testimony
            assert t.choice is not None
            index = LETTERS.index(action.split()[1])
            return [
                f"Cause: the question is {_quote(t.choice.question[1], 120)}.",
                f"Evidence: the court record points to {_quote(t.choice.options[index])}.",
                f"Effect: answer {LETTERS[index]}.",
            ]
        st = state.statement
        if action.startswith("present"):
            item = case.numbered(int(action.split()[1][1:]))
            assert item is not None
            best, reason = key_move(state)
            if action == best:
                return [
                    f"Cause: the witness claims {_quote(st.text)}.",
                    f"Evidence: {item.label} {item.name} says {_quote(item.description, 140)}.",
                    f"{reason} Effect: present {item.label} at statement {state.position + 1}.",
                ]
            shared = _shared(st.text, item)
            link = (
                f"both speak of {', '.join(shared[:2])}" if shared else "it is the item I have not used yet"
            )
            return [
                f"Cause: the witness claims {_quote(st.text)}.",
                f"Evidence: {item.label} {item.name} ({link}) seems to tell a different story.",
                f"Effect: present {item.label} at statement {state.position + 1}.",
            ]
        if action == PRESS:
            if key_move(state)[0] == PRESS:
                return [
                    f"Cause: statement {state.position + 1} leaves something out: {_quote(st.text)}.",
                    "Evidence: nothing in the court record answers it yet.",
                    "Effect: press the witness for details; it may bring more to light.",
                ]
            return [
                f"Cause: statement {state.position + 1} says {_quote(st.text)}.",
                "Evidence: no item contradicts it outright, but the witness may say more under pressure.",
                "Effect: press before moving on.",
            ]
        goal, pressing = key_target(state)
        step = "next" if action == NEXT else "previous"
        toward = goal > state.position if action == NEXT else goal < state.position
        if toward:
            answer = state.current_testimony.answer
            item = next((case.item(e) for e in answer.evidence if e in state.held), None)
            if pressing:
                why = f"statement {goal + 1} leaves something out; pressing it may bring more to light."
            elif item is not None:
                why = f"statement {goal + 1} is the one that clashes with {item.label} {item.name}."
            else:
                why = f"statement {goal + 1} is the weak point of this testimony."
            return [
                f"Cause: reading the whole testimony against the court record, {why}",
                f"Evidence: nothing contradicts statement {state.position + 1} itself.",
                f"Effect: move to the {step} statement.",
            ]
        return [
            f"Cause: statement {state.position + 1} fits the evidence as far as I can see.",
            "Evidence: no item in the court record contradicts it.",
            f"Effect: move to the {step} statement and keep reading.",
        ]

    @staticmethod
    def _misread(state: CourtState, action: Action) -> list[str]:
        """The reasoning behind an illegal slip, written from the misreading behind it."""
        if action == BACK:
            return [
                "Cause: the statement before this one may matter.",
                "Evidence: none yet.",
                "Effect: go back one statement.",
            ]
        if action == NEXT:
            return [
                "Cause: I take it the cross-examination goes on.",
                "Evidence: none needed to move on.",
                "Effect: next statement.",
            ]
        if action.startswith("choose"):
            return [
                "Cause: I take it the judge has asked the defense a question.",
                "Evidence: the first answer fits what I know.",
                f"Effect: {action}.",
            ]
        number = action.split()[1]
        return [
            f"Cause: the testimony {_quote(state.statement.text)} does not fit what I know.",
            f"Evidence: I count {number} in the court record; it should settle this.",
            f"Effect: present {number}.",
        ]

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> str:
        state = _state(ctx)
        if state is None:
            return super().reasoning(ctx, analysis, action, slip, answers)
        lines = [self.situation(ctx)]
        if state.phase == "cross":
            lines.append(
                "Evidence in the court record: "
                + "; ".join(f"{e.label} {e.name}" for e in state.evidence())
                + "."
            )
        lines += self._why(state, action, slip)
        lines.append(f"I'll go with {action}.")
        return "\n".join(lines)

    def thought(self, ctx: SimContext, analysis: Analysis, action: Action, slip: str) -> str:
        state = _state(ctx)
        if state is None:
            return super().thought(ctx, analysis, action, slip)
        return " ".join(self._why(state, action, slip))

    def answer(
        self,
        ctx: SimContext,
        analysis: Analysis,
        action: Action,
        slip: str,
        broken: bool,
        answers: Mapping[int, list[str]],
        rng: random.Random,
    ) -> str:
        thought = self.thought(ctx, analysis, action, slip)
        if broken:
            return self.broken(ctx, rng)
        return f"thought: {thought}\naction: {action}"

    def broken(self, ctx: SimContext, rng: random.Random) -> str:
        """A format slip that names no action anywhere."""
        plain = "The testimony has a weak point; I need to weigh the court record carefully."
        variant = rng.randrange(3)
        if variant == 0:
            return f"thought: {plain}"
        if variant == 1:
            return f"thought: {plain}\naction: {rng.choice(['wait', 'think it over', 'the usual', 'none'])}"
        return f"Analysis: {plain} The answer is obvious from here."

    def blind(self, prompt: str, rng: random.Random) -> str:
        return "thought: nothing to compare yet; I read on.\naction: next"

    def describe(self, ctx: SimContext | None) -> str:
        """The perception call's description of the courtroom picture: what the screen shows, in the
        fields of the courtroom's perception prompt (LMGame-Bench's Ace Attorney fields), so the acting
        model gets the current line, the options and the court record, but no older dialogue."""
        state = _state(ctx)
        if state is None:
            return super().describe(ctx)
        return state.text_table()

    def reflection(self, ctx: SimContext | None) -> str:
        before = ctx.history[-1].state if ctx is not None and ctx.history else None
        after = last_position(ctx, CourtState)
        if not isinstance(before, CourtState) or after is None or ctx is None:
            return super().reflection(ctx)
        action = ", ".join(str(a) for a in ctx.history[-1].actions.values())
        if after.penalties > before.penalties:
            left = PENALTY_LIMIT - after.penalties
            if action.startswith("choose"):
                return (
                    f"'{action}' was the wrong answer: a penalty, {left} left. Reread the question "
                    "against the evidence before answering again."
                )
            return (
                f"'{action}' at statement {before.position + 1} was overruled: a penalty, {left} left. "
                "That item does not contradict that statement. Compare the other statements with the "
                "evidence, or press vague statements, before objecting again."
            )
        if after.score > before.score:
            if after.case != before.case or after.testimony != before.testimony:
                return (
                    f"'{action}' broke the testimony (+1). A new testimony starts: read all of it "
                    "before presenting anything."
                )
            if action == PRESS:
                return (
                    f"Pressing statement {before.position + 1} revealed something new (+1). Check the "
                    "new statement or evidence against the rest."
                )
            return f"'{action}' was right (+1). Keep going."
        if action == PRESS:
            return (
                f"Pressing statement {before.position + 1} added detail but nothing new. Move on rather "
                "than press it again."
            )
        plural = "action" if after.idle == 1 else "actions"
        return (
            f"Moved to statement {after.position + 1} of {len(after.statements)}; no decision yet "
            f"({after.idle} {plural} without one). Look for the statement the evidence disproves."
        )
