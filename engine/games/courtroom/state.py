"""The courtroom's states: a moment of a trial, what each action does to it, its scores, its text view,
the picture's scene and a person's panel (the rules in words are in :mod:`.rules`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.controls import Amount, Button, Panel
from engine.core import Action, IllegalActionError, InvalidActionError, JsonDict, Seat, State
from engine.games.courtroom.cases import (
    MAX_EVIDENCE,
    MAX_OPTIONS,
    Case,
    Character,
    Evidence,
    Line,
    Statement,
    Testimony,
)

__all__ = [
    "ACTIONS",
    "BACK",
    "CONTEXTS",
    "IDLE_LIMIT",
    "LETTERS",
    "NEXT",
    "PENALTY_LIMIT",
    "PHASES",
    "PRESS",
    "CourtState",
    "opening_log",
]

#: Incorrect decisions the defense may make (LMGame-Bench's five lives).
PENALTY_LIMIT = 5
#: Actions in a row without a correct or penalised decision that end the game (the stuck rule).
IDLE_LIMIT = 50
NEXT, BACK, PRESS = "next", "back", "press"
LETTERS = "ABCD"[:MAX_OPTIONS]
#: Every action in a fixed order (the Gymnasium adapter's discrete actions).
ACTIONS: tuple[Action, ...] = (
    NEXT,
    BACK,
    PRESS,
    *(f"present E{n}" for n in range(1, MAX_EVIDENCE + 1)),
    *(f"choose {letter}" for letter in LETTERS),
)
PHASES = ("cross", "choice", "won", "lost", "stalled")
#: What the text view keeps of the dialogue: ``long`` the whole case so far (LMGame-Bench Fig. 9, "with
#: long context"), ``recent`` only the current testimony's (Table 10, "without long context").
CONTEXTS = ("long", "recent")
#: The judge's words when evidence contradicts nothing (a penalty).
_OVERRULED = (
    "Objection overruled. That evidence does not contradict this statement. The court penalises the defense."
)
_GUILTY = "The defense has run out of the court's patience. The court finds the defendant guilty."
_STALLED = "The defense has nothing more to put to the witness. The court will now deliberate."


@dataclasses.dataclass(frozen=True, slots=True)
class CourtState(State):
    """A moment of a trial.

    Attributes:
        case: Index of the case being tried in :attr:`book`.
        testimony: Index of the testimony in the case.
        position: Index of the current statement among those shown.
        revealed: Hidden statements of this testimony that presses have revealed.
        pressed: Statements of this testimony pressed at least once.
        held: The evidence the defense holds (ids).
        phase: ``cross`` (cross-examining), ``choice`` (a question is put), or the end: ``won``
            (every case solved), ``lost`` (five penalties) or ``stalled`` (the idle limit).
        penalties: Incorrect decisions so far.
        score: Correct actions so far, over every case (the raw score).
        level_steps: Correct actions in the current case.
        solved: Cases solved so far.
        idle: Actions in a row that were neither correct nor penalised.
        showing: What the text box shows: ``statement`` (the current one) or ``line`` (the last line
            of dialogue).
        log: The dialogue of the current case so far, ``(speaker's name, text)``; the speaker is
            empty for narration.
        idle_limit: The idle actions that end the trial (option ``idle_limit``).
        score_presses: Whether a first press that reveals something counts as a correct action
            (option ``score_presses``; LMGame-Bench counts presentations and answers only).
        context: How much dialogue the text view keeps (option ``context``, :data:`CONTEXTS`).
        checkpoint: The testimony of the first case the trial started at (from 0; option
            ``checkpoint``), for the metric ``checkpoint_broken``.
        book: The cases in playing order (not part of equality or JSON; the game supplies it).
    """

    game_id: ClassVar[str] = "courtroom"

    case: int
    testimony: int
    position: int
    revealed: frozenset[str]
    pressed: frozenset[str]
    held: frozenset[str]
    phase: str
    penalties: int
    score: int
    level_steps: int
    solved: int
    idle: int
    showing: str
    log: tuple[tuple[str, str], ...]
    step: int = 0
    idle_limit: int = IDLE_LIMIT
    score_presses: bool = False
    context: str = "long"
    checkpoint: int = 0
    book: tuple[Case, ...] = dataclasses.field(default=(), compare=False, repr=False)

    # -- where we are --------------------------------------------------------------------------

    @property
    def current_case(self) -> Case:
        return self.book[min(self.case, len(self.book) - 1)]

    @property
    def current_testimony(self) -> Testimony:
        testimonies = self.current_case.testimonies
        return testimonies[min(self.testimony, len(testimonies) - 1)]

    @property
    def statements(self) -> tuple[Statement, ...]:
        """The statements shown in the current testimony."""
        return self.current_testimony.visible(self.revealed)

    @property
    def statement(self) -> Statement:
        shown = self.statements
        return shown[min(self.position, len(shown) - 1)]

    @property
    def witness(self) -> Character:
        return self.current_case.characters[self.current_testimony.witness]

    def evidence(self) -> list[Evidence]:
        """The evidence the defense holds, by number."""
        return [e for e in self.current_case.evidence if e.id in self.held]

    # -- the contract ----------------------------------------------------------------------------

    @property
    def to_act(self) -> tuple[Seat, ...]:
        return (0,) if self.phase in ("cross", "choice") else ()

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        if seat not in (None, 0) or self.is_over:
            return []
        if self.phase == "choice":
            choice = self.current_testimony.choice
            assert choice is not None
            return [f"choose {LETTERS[i]}" for i in range(len(choice.options))]
        actions = [NEXT, BACK] if self.position > 0 else [NEXT]
        actions.append(PRESS)
        actions += [f"present {e.label}" for e in self.evidence()]
        return actions

    def apply(self, action: Action | Mapping[Seat, Action]) -> CourtState:
        if isinstance(action, Mapping):
            if set(action) != {0}:
                raise IllegalActionError("the courtroom has one seat (0)")
            action = action[0]
        if not isinstance(action, str) or action not in ACTIONS:
            raise InvalidActionError(
                f"{action!r} is not a courtroom action; actions are next, back, press, "
                "present E<n> and choose A-D"
            )
        if self.is_over:
            raise IllegalActionError(f"the trial is over; {action!r} cannot be played")
        if action not in self.legal_actions():
            raise IllegalActionError(self._why_illegal(action))
        if self.phase == "choice":
            return self._choose(LETTERS.index(action.split()[1]))
        if action == NEXT:
            return self._moved((self.position + 1) % len(self.statements))
        if action == BACK:
            return self._moved(self.position - 1)
        if action == PRESS:
            return self._press()
        return self._present(int(action.split()[1][1:]))

    def _why_illegal(self, action: Action) -> str:
        if self.phase == "choice":
            last = LETTERS[self._options - 1]
            return f"a question is put to the defense; answer with choose {LETTERS[0]}-{last}"
        if action.startswith("choose"):
            return "no question is put to the defense now"
        if action == BACK:
            return "this is the first statement; there is none before it"
        number = int(action.split()[1][1:])
        item = self.current_case.numbered(number)
        if item is None:
            return f"this case has no evidence E{number} (it has E1-E{len(self.current_case.evidence)})"
        return f"the defense does not hold E{number} yet"

    @property
    def _options(self) -> int:
        choice = self.current_testimony.choice
        return len(choice.options) if choice is not None else 0

    # -- what actions do -------------------------------------------------------------------------

    def _say(self, lines: tuple[Line, ...] | list[Line]) -> tuple[tuple[str, str], ...]:
        case = self.current_case
        return tuple((case.name(who), text) for who, text in lines)

    def _moved(self, position: int) -> CourtState:
        idle = self.idle + 1
        state = dataclasses.replace(
            self, position=position, showing="statement", step=self.step + 1, idle=idle
        )
        return state._check_idle()

    def _check_idle(self) -> CourtState:
        if self.idle >= self.idle_limit and self.phase in ("cross", "choice"):
            return dataclasses.replace(
                self, phase="stalled", showing="line", log=self.log + self._say([("judge", _STALLED)])
            )
        return self

    def _press(self) -> CourtState:
        st = self.statement
        defense = self.current_case.name("defense")
        log = self.log + (
            (defense, f"Hold it! (presses statement {self.position + 1}: \u201c{st.text}\u201d)"),
        )
        log += self._say(st.press)
        telling = st.telling and st.id not in self.pressed
        changes: dict[str, Any] = {
            "pressed": self.pressed | {st.id},
            "log": log,
            "showing": "line",
            "step": self.step + 1,
        }
        if telling:
            changes |= {
                "revealed": self.revealed | ({st.reveals} if st.reveals else set()),
                "held": self.held | set(st.adds),
                "score": self.score + int(self.score_presses),
                "level_steps": self.level_steps + int(self.score_presses),
                "idle": 0,
            }
            extra = []
            if st.reveals:
                extra.append(("", "A new statement is added to the testimony."))
            for e in st.adds:
                item = self.current_case.item(e)
                extra.append(("", f"{item.label} {item.name} is added to the court record."))
            changes["log"] = log + tuple(extra)
            return dataclasses.replace(self, **changes)
        return dataclasses.replace(self, idle=self.idle + 1, **changes)._check_idle()

    def _present(self, number: int) -> CourtState:
        case = self.current_case
        item = case.numbered(number)
        assert item is not None
        t = self.current_testimony
        st = self.statement
        defense = case.name("defense")
        log = self.log + (
            (
                defense,
                f"Objection! (presents {item.label} {item.name} at statement "
                f"{self.position + 1}: \u201c{st.text}\u201d)",
            ),
        )
        if st.id == t.answer.statement and item.id in t.answer.evidence:
            log += self._say(t.answer.solved)
            log += tuple(
                ("", f"{case.item(e).label} {case.item(e).name} is added to the court record.")
                for e in t.answer.adds
            )
            state = dataclasses.replace(
                self,
                log=log,
                held=self.held | set(t.answer.adds),
                score=self.score + 1,
                level_steps=self.level_steps + 1,
                idle=0,
                showing="line",
                step=self.step + 1,
            )
            if t.choice is not None:
                return dataclasses.replace(
                    state, phase="choice", log=state.log + state._say([t.choice.question])
                )
            return state._next_testimony()
        return self._penalised(log + self._say([("judge", _OVERRULED)]))

    def _penalised(self, log: tuple[tuple[str, str], ...]) -> CourtState:
        penalties = self.penalties + 1
        log += (("", f"Penalty {penalties} of {PENALTY_LIMIT}."),)
        phase = self.phase
        if penalties >= PENALTY_LIMIT:
            log += self._say([("judge", _GUILTY)])
            phase = "lost"
        return dataclasses.replace(
            self, log=log, penalties=penalties, phase=phase, idle=0, showing="line", step=self.step + 1
        )

    def _choose(self, index: int) -> CourtState:
        choice = self.current_testimony.choice
        assert choice is not None
        defense = self.current_case.name("defense")
        log = self.log + ((defense, f"({LETTERS[index]}) {choice.options[index]}"),)
        if index + 1 != choice.answer:
            return self._penalised(log + self._say(choice.wrong))
        log += self._say(choice.right)
        log += tuple(
            (
                "",
                f"{self.current_case.item(e).label} {self.current_case.item(e).name} is added to "
                "the court record.",
            )
            for e in choice.adds
        )
        state = dataclasses.replace(
            self,
            log=log,
            held=self.held | set(choice.adds),
            score=self.score + 1,
            level_steps=self.level_steps + 1,
            idle=0,
            showing="line",
            step=self.step + 1,
            phase="cross",
        )
        return state._next_testimony()

    def _next_testimony(self) -> CourtState:
        case = self.current_case
        if self.testimony + 1 < len(case.testimonies):
            t = case.testimonies[self.testimony + 1]
            log = self.log + self._testimony_header(case, t)
            return dataclasses.replace(
                self,
                testimony=self.testimony + 1,
                position=0,
                revealed=frozenset(),
                pressed=frozenset(),
                log=log,
                phase="cross",
            )
        log = self.log + self._say(case.verdict)
        solved = self.solved + 1
        if self.case + 1 >= len(self.book):
            return dataclasses.replace(
                self,
                log=self.log + (("", f"Case solved: {case.title}."),) + self._say(case.verdict),
                solved=solved,
                phase="won",
            )
        nxt = self.book[self.case + 1]
        return dataclasses.replace(
            self,
            case=self.case + 1,
            testimony=0,
            position=0,
            revealed=frozenset(),
            pressed=frozenset(),
            held=frozenset(e.id for e in nxt.evidence if e.held),
            solved=solved,
            level_steps=0,
            phase="cross",
            log=opening_log(nxt, f"Case solved: {case.title}. Next case."),
        )

    @staticmethod
    def _testimony_header(case: Case, t: Testimony) -> tuple[tuple[str, str], ...]:
        """The lines that open a testimony: its title, the intro, then the witness gives every shown
        statement once (as the cross-examination then takes them one by one)."""
        witness = case.characters[t.witness]
        head = (
            (
                "",
                f"Testimony {case.testimonies.index(t) + 1} of {len(case.testimonies)}: "
                f"\u201c{t.title}\u201d, by {witness.name} ({witness.role}).",
            ),
        )
        said = tuple((witness.name, s.text) for s in t.statements if not s.hidden)
        return head + tuple((case.name(who), text) for who, text in t.intro) + said

    # -- scores -----------------------------------------------------------------------------------

    @property
    def scores(self) -> tuple[float, ...]:
        return (float(self.score),)

    @property
    def level(self) -> int:
        """The level reached: the current case's place in the case list (from 1)."""
        return self.case + 1

    @property
    def progress(self) -> float:
        """Cases solved plus the share of the current case's key completed (3.0: three solved)."""
        if self.phase == "won":
            return float(self.solved)
        case = self.current_case
        steps = case.key_steps + (case.key_presses if self.score_presses else 0)
        return self.solved + (self.level_steps / steps if steps else 0.0)

    @property
    def checkpoint_broken(self) -> bool:
        """Whether the testimony the trial started at has been broken (its evidence presented), as
        Table 10 of LMGame-Bench asks at each checkpoint."""
        return self.solved > 0 or self.testimony > self.checkpoint or self.phase == "choice"

    def metrics(self) -> dict[str, float]:
        return {
            "checkpoint_broken": float(self.checkpoint_broken),
            "correct_actions": float(self.score),
            "penalties": float(self.penalties),
            "level": float(self.level),
            "level_steps": float(self.level_steps),
            "cases_solved": float(self.solved),
            "progress": round(self.progress, 6),
        }

    def notice(self, seat: Seat | None = None) -> str:
        left = PENALTY_LIMIT - self.penalties
        head = f"L{self.level} - {self.level_steps} Step · penalties left: {left} of {PENALTY_LIMIT}"
        if self.phase == "won":
            return f"Every case solved: {self.score} correct actions"
        if self.phase == "lost":
            return f"Guilty: five penalties used ({self.score} correct actions)"
        if self.phase == "stalled":
            return f"The trial stalled: {self.idle_limit} actions without a decision"
        if self.idle >= self.idle_limit - 10:
            return f"{head} · {self.idle_limit - self.idle} actions without a decision left"
        return head

    def annotate(self, action: Action, seat: Seat | None = None) -> str:
        if action == PRESS and self.phase == "cross" and self.statement.id in self.pressed:
            return "this statement was pressed already (the witness repeats the same answer)"
        return ""

    # -- text views ------------------------------------------------------------------------------

    def text(self, seat: Seat | None = None) -> str:
        return self.text_within(None)

    def dialogue(self) -> tuple[tuple[str, str], ...]:
        """The dialogue the text view shows: the whole case so far (``context="long"``), or from the
        start of the current testimony on (``context="recent"``)."""
        if self.context == "long":
            return self.log
        header = f"Testimony {self.testimony + 1} of {len(self.current_case.testimonies)}: "
        for i in range(len(self.log) - 1, -1, -1):
            who, text = self.log[i]
            if not who and text.startswith(header):
                return self.log[i:]
        return self.log

    def text_within(self, limit: int | None) -> str:
        """The text view; with ``limit`` (characters), the oldest dialogue lines are left out until it
        fits (the current testimony and the evidence are always kept). With ``context="recent"`` the
        dialogue before the current testimony is left out (the long-context ablation)."""
        case = self.current_case
        head = [
            f"Case {self.level} of {len(self.book)}: {case.title}",
            f"Correct actions: {self.score}   Penalties: {self.penalties} of {PENALTY_LIMIT} used "
            f"({PENALTY_LIMIT - self.penalties} left)",
            "",
            "## Dialogue history (older -> newer)",
        ]
        shown = self.dialogue()
        history = [f"{who}: {text}" if who else f"[{text}]" for who, text in shown]
        if len(shown) < len(self.log):
            history.insert(0, f"[... {len(self.log) - len(shown)} earlier lines of dialogue left out ...]")
        tail = ["", *(self._situation() if self.phase != "won" else []), "", "## Evidence"]
        tail += [f"{e.label} {e.name}: {e.description}" for e in self.evidence()]
        if self.is_over:
            tail += ["", f"The trial is over: {self.notice()}."]
        if limit is not None:
            budget = limit - len("\n".join(head + tail)) - 40
            kept: list[str] = []
            for line in reversed(history):
                budget -= len(line) + 1
                if budget < 0:
                    kept.append("[... earlier dialogue left out ...]")
                    break
                kept.append(line)
            history = kept[::-1]
        return "\n".join(head + history + tail)

    def _situation(self) -> list[str]:
        t = self.current_testimony
        witness = self.witness
        if self.phase == "choice":
            assert t.choice is not None
            speaker, question = t.choice.question
            lines = ["## Question to the defense", f"{self.current_case.name(speaker)}: {question}"]
            lines += [f"{LETTERS[i]}. {option}" for i, option in enumerate(t.choice.options)]
            lines.append(f"Answer with choose {LETTERS[0]}-{LETTERS[len(t.choice.options) - 1]}.")
            return lines
        lines = [
            f"## Cross-examination: \u201c{t.title}\u201d, testimony {self.testimony + 1} of "
            f"{len(self.current_case.testimonies)}",
            f"Witness: {witness.name} ({witness.role})",
        ]
        for i, st in enumerate(self.statements):
            mark = ">" if i == self.position else " "
            pressed = "  (pressed)" if st.id in self.pressed else ""
            lines.append(f"{mark} {i + 1}. \u201c{st.text}\u201d{pressed}")
        lines.append(f"Current statement: {self.position + 1} of {len(self.statements)}")
        return lines

    def text_table(self, seat: Seat | None = None) -> str:
        """What LMGame-Bench's perception module reports for an Ace Attorney screen (§6.3), in its
        fields and order: ``Game State``, ``Dialog``, ``Dialogue Continuation``, ``Options``,
        ``Evidence`` and ``Scene``, read from the state instead of a screenshot."""
        scene = self.scene()
        mode = "Cross-Examination" if self.phase in ("cross", "choice") else "Conversation"
        speaker = scene["speaker"] or "Court"
        # No cursor marks an answer (it is chosen by its letter), so none is "selected".
        options = "; ".join(f"{o}, not selected" for o in scene["options"])
        evidence = "; ".join(f"{e.label} {e.name}: {e.description}" for e in self.evidence())
        where = (
            f"statement {scene['position']} of {scene['statements']} of testimony {scene['testimony']}"
            if self.phase == "cross"
            else "a question to the defense"
            if self.phase == "choice"
            else "the trial is over"
        )
        return "\n".join(
            [
                f"Game State: {mode}",
                f"Dialog: {speaker}: {scene['line']}",
                "Dialogue Continuation: No",
                f"Options: {options or 'None'}",
                f"Evidence: {evidence or 'None'}",
                f"Scene: {scene['witness']} ({scene['witness_role']}) at the witness stand; {where}; "
                f"penalties left {PENALTY_LIMIT - self.penalties} of {PENALTY_LIMIT}.",
            ]
        )

    def scene(self) -> dict[str, Any]:
        """What the picture shows, as plain values (the renderer reads only this)."""
        case = self.current_case
        t = self.current_testimony
        witness = self.witness
        if self.showing == "statement" and self.phase == "cross":
            speaker, line, kind = witness.name, self.statement.text, "statement"
        elif self.log:
            speaker, line = self.log[-1]
            kind = "dialogue"
        else:
            speaker, line, kind = "", case.summary, "dialogue"
        options: tuple[str, ...] = ()
        if self.phase == "choice" and t.choice is not None:
            options = tuple(f"{LETTERS[i]}. {o}" for i, o in enumerate(t.choice.options))
        return {
            "case_title": case.title,
            "level": self.level,
            "cases": len(self.book),
            "testimony_title": t.title,
            "testimony": self.testimony + 1,
            "testimonies": len(case.testimonies),
            "witness": witness.name,
            "witness_role": witness.role,
            "look": dataclasses.asdict(witness.look),
            "speaker": speaker,
            "line": line,
            "kind": kind,
            "position": self.position + 1,
            "statements": len(self.statements),
            "pressed": tuple(st.id in self.pressed for st in self.statements),
            "evidence": tuple((e.label, e.name, e.icon) for e in self.evidence()),
            "record": tuple((e.label, e.name, e.description) for e in self.evidence()),
            "penalties": self.penalties,
            "penalty_limit": PENALTY_LIMIT,
            "score": self.score,
            "phase": self.phase,
            "options": options,
            "moves": tuple(a for a in (BACK, PRESS, NEXT) if a in self.legal_actions()),
        }

    # -- people ----------------------------------------------------------------------------------

    def panel(self, seat: Seat) -> Panel | None:
        """Press, Next and Back, and Present with a choice of evidence; the answers to a question."""
        legal = self.legal_actions(seat)
        if not legal:
            return None
        if self.phase == "choice":
            choice = self.current_testimony.choice
            assert choice is not None
            buttons = tuple(
                Button(f"{LETTERS[i]}. {o}", f"choose {LETTERS[i]}", hint="Answer the question")
                for i, o in enumerate(choice.options)
            )
            return Panel("Answer the question", buttons)
        buttons = (
            Button("Press", PRESS, hint="Ask the witness about this statement"),
            Button("Back", BACK, enabled=BACK in legal, hint="The statement before"),
            Button("Next", NEXT, hint="The next statement (after the last, the first)"),
        )
        items = self.evidence()
        if not items:  # nothing in the court record yet: nothing to present
            return Panel("Cross-examination", buttons)
        labels = tuple(f"{e.label} {e.name}" for e in items)
        amount = Amount("evidence", "Evidence", 0, len(items) - 1, 0, labels)

        def compose(values: Mapping[str, int]) -> Action:
            return f"present {items[max(0, min(len(items) - 1, int(values.get('evidence', 0))))].label}"

        def summary(values: Mapping[str, int]) -> str:
            # The description too: a person choosing what to present reads what the model reads.
            index = max(0, min(len(items) - 1, int(values.get("evidence", 0))))
            # (No statement number: the app keeps a panel whose buttons are unchanged from move to move.)
            return f"Present {labels[index]} at the current statement. {items[index].description}"

        return Panel("Cross-examination", buttons, (amount,), "Present", compose, summary)

    # -- JSON --------------------------------------------------------------------------------------

    def to_json(self) -> JsonDict:
        return {
            "game": self.game_id,
            "case_id": self.current_case.id,
            "case": self.case,
            "testimony": self.testimony,
            "position": self.position,
            "revealed": sorted(self.revealed),
            "pressed": sorted(self.pressed),
            "held": sorted(self.held),
            "phase": self.phase,
            "penalties": self.penalties,
            "score": self.score,
            "level_steps": self.level_steps,
            "solved": self.solved,
            "idle": self.idle,
            "idle_limit": self.idle_limit,
            "score_presses": self.score_presses,
            "context": self.context,
            "checkpoint": self.checkpoint,
            "showing": self.showing,
            "log": [list(line) for line in self.log],
            "step": self.step,
        }


def opening_log(case: Case, first: str = "") -> tuple[tuple[str, str], ...]:
    """The dialogue that opens ``case``: the background, the opening lines, the first testimony."""
    log: tuple[tuple[str, str], ...] = ((("", first),) if first else ()) + (("", case.summary),)
    log += tuple((case.name(who), text) for who, text in case.opening)
    return log + CourtState._testimony_header(case, case.testimonies[0])
