"""Courtroom: cross-examination in the style of LMGame-Bench's Ace Attorney, on PlayTrace's own cases.

The defense attorney (the player) hears witnesses testify. During a cross-examination the player moves
through the statements (``next``, ``back``), ``press``-es the current statement for more detail (some
presses reveal a new statement or a new piece of evidence), and ``present E<n>``-s a piece of evidence at
the statement it contradicts. Breaking a testimony may lead to a question for the defense (``choose A``
to ``choose D``). Cases are read from ``assets/courtroom`` (:mod:`.cases`).

Scoring follows LMGame-Bench (Appx A.1): the raw score is the **total count of correct actions across all
case levels, until five incorrect decisions have been used** — "evidence submissions, dialogue choices":
a correct presentation and a correct answer to a question each count one; presenting evidence that
contradicts nothing, or a wrong answer, costs one of the five penalties. A press that reveals a statement
or evidence is a step the key needs but, as in the paper, not a scored decision (option
``score_presses=true`` counts its first press too, PlayTrace's earlier rule). Solving a case goes on to
the next one, so the score spans levels. The procedural progress score is "highest level reached, plus
courtroom actions completed within that level" ("L2 - 3 Step"): the metrics ``level`` and ``level_steps``
hold the two, and ``progress`` joins them in one figure, the cases solved plus the share of the current
case's key completed.

The option ``context`` is LMGame-Bench's long-context ablation (Table 10): ``long`` (the default) gives
the whole dialogue of the case so far, older to newer, as Fig. 9's prompt does; ``recent`` keeps only the
dialogue of the current testimony. The long case (``lighthouse``) has over a hundred statements, so its
whole dialogue is a long context.

The option ``checkpoint`` starts the trial at a later testimony of the first case, as LMGame-Bench's
save states start a level at a checkpoint (Table 10's L1-C3, L2-C2, L2-C4): the testimonies before it
are played by the answer key, so their dialogue is the older context (with ``context="long"``), and the
score, the penalties and the step count start from zero there. The metric ``checkpoint_broken`` says
whether the testimony started at was broken.

The game also ends after :data:`IDLE_LIMIT` actions in a row that are neither correct nor penalised
(option ``idle_limit``): PlayTrace's form of LMGame-Bench's stuck rule (50 for Ace Attorney), since
moving between statements always changes what is shown."""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from engine.core import Action, Game, IllegalActionError, InvalidActionError, JsonDict, Seat, State, seats_of
from engine.games._common import reading_state
from engine.games.courtroom.cases import (
    MAX_STATEMENTS,
    Case,
    bundled_ids,
    key_actions,
    load_bundled,
    load_case,
)
from engine.games.courtroom.state import (
    ACTIONS,
    BACK,
    CONTEXTS,
    IDLE_LIMIT,
    LETTERS,
    NEXT,
    PENALTY_LIMIT,
    PHASES,
    PRESS,
    CourtState,
    opening_log,
)
from engine.options import Option, OptionError

__all__ = [
    "ACTIONS",
    "BACK",
    "IDLE_LIMIT",
    "LETTERS",
    "NEXT",
    "PENALTY_LIMIT",
    "PRESS",
    "CourtState",
    "Courtroom",
]

# -- game ---------------------------------------------------------------------------------------------

_RULES = """\
You are the defense attorney in a courtroom. Witnesses testify against your client; each testimony is a
list of numbered statements, and one statement in each testimony contradicts the evidence you hold.
During a cross-examination you may:
- next: move to the next statement (after the last one, back to the first);
- back: move to the previous statement;
- press: ask the witness about the current statement; some presses reveal a new statement or new evidence;
- present E<n>: present evidence E<n> at the current statement, to show it contradicts that statement.
When a question is put to you, answer with choose A, choose B, ... (one of the options listed).
Score: one point for each correct action: evidence presented at the statement it contradicts, and a
right answer to a question{presses}. Presenting evidence that does not
contradict the current statement, or a wrong answer, costs a penalty; after {limit} penalties the
trial is lost. Solving a case leads to the next one. After {idle} actions in a row without a decision
(a correct action or a penalty) the trial ends.
Answer with one action, e.g. "next", "press", "present E2" or "choose B"."""

_PRESENT = re.compile(r"\b(?:present(?:s|ed|ing)?|show|objection|evidence)\b")
_EVIDENCE_NUMBER = re.compile(r"\be\s*-?\s*(\d{1,2})\b")
_CHOOSE = re.compile(r"\b(?:choose|choice|option|answer|select)\s*[:=]?\s*\(?([a-d1-4])\b\)?")
_NUMBER = re.compile(r"\b(\d{1,2})\b")
_NEXT = re.compile(r"\b(?:next|continue|forward|skip)\b")
_BACK = re.compile(r"\b(?:back|previous|prev|backward)\b")
_PRESS = re.compile(r"\b(?:press|hold it)\b")


class Courtroom(Game):
    """Courtroom cross-examination (LMGame-Bench's Ace Attorney, on PlayTrace's own cases).

    Options: ``case`` (the bundled case to start from; later ones follow), ``case_file`` (a case file
    of one's own, played instead of the bundled ones), ``idle_limit``, ``context`` (the long-context
    ablation) and ``score_presses``.
    """

    id: ClassVar[str] = "courtroom"
    title: ClassVar[str] = "Courtroom"
    suites: ClassVar[tuple[str, ...]] = ("lmgame",)
    description: ClassVar[str] = (
        "Cross-examine witnesses: press statements and present the evidence that contradicts one."
    )
    seats = seats_of(["Defense"])
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option(
            "case",
            str,
            bundled_ids()[0],
            "The case to start from (the cases after it follow)",
            choices=bundled_ids(),
        ),
        Option(
            "case_file",
            str,
            "",
            "A case file (TOML or JSON) to play instead of the bundled cases",
            label="Case file",
        ),
        Option(
            "idle_limit",
            int,
            IDLE_LIMIT,
            "Actions in a row without a decision that end the trial",
            minimum=10,
            maximum=1000,
        ),
        Option(
            "context",
            str,
            "long",
            "Dialogue in the prompt: the whole case so far (long) or the current testimony's (recent)",
            choices=CONTEXTS,
        ),
        Option(
            "checkpoint",
            int,
            1,
            "The testimony of the first case to start at (earlier ones are played by the answer key)",
            minimum=1,
            maximum=MAX_STATEMENTS,
        ),
        Option(
            "score_presses",
            bool,
            False,
            "Also count a first press that reveals a statement or evidence as a correct action",
        ),
    )
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    keymap: ClassVar[Mapping[str, Action]] = {
        "right": NEXT,
        "n": NEXT,
        "left": BACK,
        "p": PRESS,
        **{str(n): f"present E{n}" for n in range(1, 10)},
        **{letter.lower(): f"choose {letter}" for letter in LETTERS},
    }
    controls: ClassVar[str] = (
        "Buttons under the picture, or Right/N next, Left back, P press, 1-9 present E1-E9, A-D answer"
    )
    bots: ClassVar[Mapping[str, str]] = {"attorney": ".bots:AttorneyBot"}
    default_opponent: ClassVar[str] = "attorney"
    sim_behaviour: ClassVar[str | None] = ".sim:CourtroomSim"
    extractor: ClassVar[str | None] = ".answers:extract_action"
    observation: ClassVar[str | None] = ".gym:TrimmedText"
    raw_score: ClassVar[str | None] = "correct_actions"
    progress_score: ClassVar[str | None] = "progress"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        file = self.options["case_file"]
        if file:
            self.book: tuple[Case, ...] = (load_case(Path(file)),)
            self.start = 0
        else:
            self.book = load_bundled()
            ids = [c.id for c in self.book]
            if self.options["case"] not in ids:
                raise OptionError(f"option 'case': {self.options['case']!r} is not one of {', '.join(ids)}")
            self.start = ids.index(self.options["case"])
        first = self.book[self.start]
        if self.options["checkpoint"] > len(first.testimonies):
            raise OptionError(
                f"option 'checkpoint': {first.id!r} has {len(first.testimonies)} testimonies, not "
                f"{self.options['checkpoint']}"
            )

    def initial_state(self, seed: int | None = None) -> CourtState:
        # The trial has no chance: the seed changes nothing (it is accepted for the common contract).
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        case = self.book[self.start]
        state = CourtState(
            case=self.start,
            testimony=0,
            position=0,
            revealed=frozenset(),
            pressed=frozenset(),
            held=frozenset(e.id for e in case.evidence if e.held),
            phase="cross",
            penalties=0,
            score=0,
            level_steps=0,
            solved=0,
            idle=0,
            showing="line",
            log=opening_log(case),
            idle_limit=self.options["idle_limit"],
            score_presses=self.options["score_presses"],
            context=self.options["context"],
            book=self.book,
        )
        checkpoint = self.options["checkpoint"] - 1
        if checkpoint:
            for action in key_actions(case, checkpoint):
                state = state.apply(action)
            state = dataclasses.replace(
                state, score=0, level_steps=0, penalties=0, idle=0, step=0, checkpoint=checkpoint
            )
        return state

    def rules_text(self) -> str:
        presses = (
            ", and the first press that reveals a new statement or evidence"
            if self.options["score_presses"]
            else ""
        )
        return _RULES.format(limit=PENALTY_LIMIT, idle=self.options["idle_limit"], presses=presses)

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read an action from free text: ``"Next"``, ``"press statement 3"``, ``"Present E2"``,
        ``"present 2"``, ``"present the weather log"``, ``"choose B"``, ``"option 2"``.

        Raises:
            InvalidActionError: the text names no action, or evidence that cannot be told apart.
            IllegalActionError: it names an action that is not legal now.
        """
        assert isinstance(state, CourtState)
        action = _read(" ".join(text.strip().lower().replace("*", " ").replace("_", " ").split()), state)
        if state.is_over:
            raise IllegalActionError(f"the trial is over; {action!r} cannot be played")
        if action not in state.legal_actions(seat):
            raise IllegalActionError(
                state._why_illegal(action) if action in ACTIONS else f"{action!r} is not legal"
            )
        return action

    def state_from_json(self, data: JsonDict) -> CourtState:
        with reading_state(data, self.id, "courtroom"):
            ints = {
                k: data[k]
                for k in (
                    "case",
                    "testimony",
                    "position",
                    "penalties",
                    "score",
                    "level_steps",
                    "solved",
                    "idle",
                    "idle_limit",
                    "step",
                )
            }
            if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in ints.values()):
                raise ValueError("counters must be non-negative integers")
            if ints["case"] >= len(self.book) or self.book[ints["case"]].id != data["case_id"]:
                # The case is named by its id: a session recorded when the casebook had another order
                # (before the six-case book, regatta was case 3) finds its case where it is now.
                ids = [c.id for c in self.book]
                if data["case_id"] not in ids:
                    raise ValueError(f"case {data['case_id']!r} is not one of this game's cases")
                ints["case"] = ids.index(data["case_id"])
            case = self.book[ints["case"]]
            if ints["testimony"] >= len(case.testimonies):
                raise ValueError(f"testimony {ints['testimony']} does not exist in {case.id!r}")
            t = case.testimonies[ints["testimony"]]
            statements = frozenset(s.id for s in t.statements)
            revealed, pressed, held = (frozenset(data[k]) for k in ("revealed", "pressed", "held"))
            if not revealed <= statements or not pressed <= statements:
                raise ValueError("revealed and pressed name statements of the current testimony")
            if not held <= {e.id for e in case.evidence}:
                raise ValueError("held names evidence the case does not have")
            flag = data.get("score_presses", True)  # sessions before the option counted presses
            context = data.get("context", "long")
            checkpoint = data.get("checkpoint", 0)
            if not isinstance(checkpoint, int) or isinstance(checkpoint, bool) or checkpoint < 0:
                raise ValueError("checkpoint is a non-negative integer")
            if not isinstance(flag, bool) or context not in CONTEXTS:
                raise ValueError("score_presses is true or false, and context is long or recent")
            if data["phase"] not in PHASES or data["showing"] not in ("statement", "line"):
                raise ValueError("phase or showing has an unknown value")
            if data["phase"] == "choice" and t.choice is None:
                raise ValueError("no question is put in this testimony")
            if ints["position"] >= len(t.visible(revealed)):
                raise ValueError("position is past the last statement")
            log = data["log"]
            if not isinstance(log, list) or not all(
                isinstance(x, list) and len(x) == 2 and all(isinstance(y, str) for y in x) for x in log
            ):
                raise ValueError("log is a list of [speaker, text] pairs")
            return CourtState(
                case=ints["case"],
                testimony=ints["testimony"],
                position=ints["position"],
                revealed=revealed,
                pressed=pressed,
                held=held,
                phase=data["phase"],
                penalties=ints["penalties"],
                score=ints["score"],
                level_steps=ints["level_steps"],
                solved=ints["solved"],
                idle=ints["idle"],
                showing=data["showing"],
                log=tuple((a, b) for a, b in log),
                step=ints["step"],
                idle_limit=ints["idle_limit"],
                score_presses=flag,
                context=context,
                checkpoint=checkpoint,
                book=self.book,
            )


def _read(cleaned: str, state: CourtState) -> Action:
    """The action ``cleaned`` (lowercase, single spaces) names, legal or not."""
    answer = _answer(cleaned)
    if state.phase == "choice":
        if answer is None:
            raise InvalidActionError(f"{cleaned!r} names no answer; answer with choose A-D")
        return answer
    if _PRESENT.search(cleaned):
        return f"present E{_evidence_number(cleaned, state)}"
    found = [name for name, rx in ((PRESS, _PRESS), (NEXT, _NEXT), (BACK, _BACK)) if rx.search(cleaned)]
    named = _named_evidence(cleaned, state)
    if named is not None and not found:
        return f"present E{named}"
    if len(found) == 1:
        if found[0] == PRESS:
            number = _NUMBER.search(cleaned)
            if number is not None and int(number.group(1)) != state.position + 1:
                raise IllegalActionError(
                    f"only the current statement ({state.position + 1}) can be pressed; move to statement "
                    f"{number.group(1)} with next or back first"
                )
        return found[0]
    if found:
        raise InvalidActionError(f"{cleaned!r} names several actions ({', '.join(found)}); give one")
    if answer is not None:
        return answer
    raise InvalidActionError(
        f"{cleaned!r} is not a courtroom action; answer next, back, press, present E<n> or choose A-D"
    )


def _answer(cleaned: str) -> Action | None:
    """``choose X`` when ``cleaned`` names an answer (``choose b``, ``option 2``, a lone ``b``)."""
    found = _CHOOSE.search(cleaned) or re.match(r"\W*([a-d1-4])\W*$", cleaned)
    if found is None:
        return None
    key = found.group(1)
    return f"choose {LETTERS[int(key) - 1] if key.isdigit() else key.upper()}"


def _evidence_number(cleaned: str, state: CourtState) -> int:
    found = _EVIDENCE_NUMBER.search(cleaned)
    if found is not None:
        return int(found.group(1))
    named = _named_evidence(cleaned, state)
    if named is not None:
        return named
    verb = _PRESENT.search(cleaned)
    after = cleaned[verb.end() :] if verb is not None else cleaned
    number = _NUMBER.search(after)
    if number is not None:
        return int(number.group(1))
    raise InvalidActionError(
        f"{cleaned!r} names no evidence; present E<n> with a number from the evidence list"
    )


def _named_evidence(cleaned: str, state: CourtState) -> int | None:
    """The number of the one piece of evidence whose name appears in ``cleaned``."""
    hits = {e.number for e in state.current_case.evidence if e.name.lower() in cleaned}
    if len(hits) > 1:
        raise InvalidActionError(f"{cleaned!r} names several pieces of evidence; present one E<n>")
    return hits.pop() if hits else None
