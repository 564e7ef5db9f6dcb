"""How the offline simulated model plays one game: its analysis, mistakes, reasoning and answers.

:class:`~engine.llm.sim.SimClient` handles what every simulated call shares (streaming, latency, usage,
error rates, the RNG). What depends on the game is a :class:`SimBehaviour`: a game names its own
subclass in its declaration (``Game.sim_behaviour``, kept in the game's package); games without one
get this generic behaviour, which already reads the game's own bots and intermediate-question oracles:

* the analysis comes from the game's analysis bot (``Game.analysis_bot()``) or, without one, a
  one-move lookahead on the seat's score;
* intermediate answers come from the game's questions (``Game.questions``): the oracle's truth, made
  wrong at the client's ``wrong_ir_rate`` the way models get them wrong (a missed item, an item that
  is not there);
* the move follows what the model believes (:meth:`SimBehaviour.choose`): its reasoning names the move
  it plays, unless the step is a deliberate slip;
* a slip is a mistake real models make (the seeds and the GameBot / lmgame-bench papers describe
  them): a cell or option misread as available (an illegal move), a move expected to change the
  position that does not (a wasted move), and, when re-asked after an illegal move, the same move
  again (:data:`REPEAT_RATE`). The slip's reasoning is written from the misreading, as a model
  would write it;
* the answer is written in the generic ``thought:`` / ``move:`` format the generic prompt asks for.

The behaviour only ever sees the acting seat's view of the state (:class:`SimContext`), as a real
model does through its prompt. The functions after the class write what games' own behaviours share:
a ranked line of search values, the ``Chosen Move`` and LVLM-Playground's labelled answers, and the
reflection's recap of the moves since the seat's last turn.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Collection, Mapping, Sequence
from typing import Any, TypeVar

from engine.core import Action, Game, Seat, State
from engine.players import Observation, StepRecord, since_move
from engine.questions import Question

__all__ = [
    "REPEAT_RATE",
    "Analysis",
    "SimBehaviour",
    "SimContext",
    "blind_choice",
    "fmt_value",
    "labelled_answer",
    "labelled_slip",
    "last_position",
    "misread_board",
    "position",
    "recap",
    "reflect",
    "since_own_move",
    "slip_kind",
    "value_lines",
    "win_block_notes",
]

#: Chance that a model re-asked after an illegal move answers the same move again (real models often
#: do: they keep their misreading of the board).
REPEAT_RATE = 0.5

StateT = TypeVar("StateT", bound=State)


@dataclasses.dataclass(frozen=True, slots=True)
class SimContext:
    """The situation behind the next call, as the acting seat knows it (set by the harness)."""

    game: Game
    state: State
    seat: Seat
    history: Sequence[StepRecord] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Analysis:
    """What the simulated model "thinks" of the position: the best action and a value per action."""

    best: Action
    values: dict[Action, float]
    source: str


class SimBehaviour:
    """The generic behaviour; a game's package may subclass it and override any method.

    Args:
        game: The game being played.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self._bots: dict[str, Any] = {}
        self._questions: Sequence[Question] | None = None
        #: The question keys the current prompt asks (``None``: all); :meth:`tags` writes only those.
        self.asked: set[int] | None = None
        #: The prompt being answered (a game may answer in the format it asks for).
        self.prompt_text = ""

    # -- judgement --------------------------------------------------------------------------------

    async def analyse(self, ctx: SimContext, rng: random.Random, bot: str | None) -> Analysis:
        """Ask ``bot`` (a spec of the game's bots) for values, or look one move ahead."""
        if bot:
            player = self._bot(bot, rng)
            if player is not None:
                legal = tuple(ctx.state.legal_actions(ctx.seat))
                decision = await player.act(Observation(ctx.game, ctx.state, ctx.seat, legal, ctx.history))
                if decision.action is not None:
                    values = decision.values or {decision.action: 0.0}
                    return Analysis(decision.action, {a: float(v) for a, v in values.items()}, bot)
        return self.lookahead(ctx, rng)

    def _bot(self, spec: str, rng: random.Random) -> Any:
        if spec not in self._bots:
            try:
                self._bots[spec] = self.game.make_bot(spec, rng.randrange(2**31))
            except Exception:  # no such bot for this game: the one-move lookahead stands in
                self._bots[spec] = None
        return self._bots[spec]

    def lookahead(self, ctx: SimContext, rng: random.Random) -> Analysis:
        """One-move lookahead on the seat's score, for games without a bot."""
        values: dict[Action, float] = {}
        for action in ctx.state.legal_actions(ctx.seat):
            try:
                move: Action | Mapping[Seat, Action] = (
                    {ctx.seat: action} if self.game.simultaneous else action
                )
                after = ctx.state.apply(move)
                values[action] = float(after.scores[ctx.seat] - ctx.state.scores[ctx.seat])
            except Exception:  # a view that cannot be played forward (hidden information): no preference
                values[action] = 0.0
        best_value = max(values.values())
        best = rng.choice([a for a, v in values.items() if v == best_value])
        return Analysis(best, values, "lookahead")

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, list[str]]) -> Action:
        """The move the model means to play, given what it believes (its intermediate answers).
        Generic: the analysis' best move."""
        return analysis.best

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """A mistaken action and its kind: an ``"illegal"`` move from the game's action list, or a
        ``"wasted"`` one (a legal move the game annotates, e.g. one that changes nothing). Returns the
        best action and ``""`` when the game offers no way to go wrong."""
        legal = ctx.state.legal_actions(ctx.seat)
        vocabulary = list(dict.fromkeys([*self.game.keymap.values(), *self.game.actions]))
        illegal = [a for a in vocabulary if a not in legal]
        if illegal:
            return rng.choice(illegal), "illegal"
        wasted = [a for a in legal if ctx.state.annotate(a, ctx.seat)]
        if wasted:
            return rng.choice(wasted), "wasted"
        return analysis.best, ""

    # -- intermediate answers -----------------------------------------------------------------------

    def questions(self) -> Sequence[Question]:
        if self._questions is None:
            self._questions = tuple(self.game.load(self.game.questions)) if self.game.questions else ()
        return self._questions

    def intermediate(self, ctx: SimContext, rng: random.Random, wrong_rate: float) -> dict[int, Any]:
        """The answer to every intermediate question: the oracle's truth, or at ``wrong_rate`` a
        plausible wrong answer (the question's own ``wrong``, else the kind's generic mistake).
        A question that does not apply to the position is answered with its truth all the same."""
        answers: dict[int, Any] = {}
        candidates = list(ctx.state.legal_actions(ctx.seat))
        for q in self.questions():
            if q.about_action:
                continue  # answered once the move is chosen (see :meth:`about_move`)
            try:
                truth = q.truth(ctx.state, ctx.seat)
            except Exception:
                truth = [] if q.kind == "set" else None
            if truth is None:
                continue
            if q.kind == "set":
                truth = list(truth)
            if rng.random() >= wrong_rate:
                answers[q.key] = truth
            elif q.wrong is not None:
                answers[q.key] = q.wrong(truth, ctx.state, ctx.seat, rng)
            else:
                answers[q.key] = self.mistake(q, truth, candidates, rng)
        return answers

    def about_move(
        self, ctx: SimContext, action: Action, rng: random.Random, wrong_rate: float, answers: dict[int, Any]
    ) -> None:
        """Add the answers to the questions about the chosen ``action`` to ``answers``."""
        for q in self.questions():
            if not q.about_action:
                continue
            try:
                if q.applies is not None and not q.applies(ctx.state, ctx.seat, action):
                    continue
                truth = q.truth(ctx.state, ctx.seat, action)
            except Exception:
                continue
            if rng.random() >= wrong_rate:
                answers[q.key] = truth
            elif q.wrong is not None:
                answers[q.key] = q.wrong(truth, ctx.state, ctx.seat, rng)
            else:
                answers[q.key] = self.mistake(q, truth, [], rng)

    def mistake(self, q: Question, truth: Any, candidates: Sequence[str], rng: random.Random) -> Any:
        """A generic wrong answer of ``q``'s kind: a set with one item missed or one added, the other
        truth value, a number off by a few units; a ``value`` question's truth stands (the generic
        behaviour cannot invent a wrong word)."""
        if q.kind == "set":
            return self.perturb(list(truth), candidates, rng, 1.0)
        if q.kind == "bool":
            return not truth
        if q.kind == "number":
            return float(truth) + rng.choice([-3, -2, -1, 1, 2, 3]) * max(1.0, q.tolerance * 10)
        return truth

    @staticmethod
    def perturb(
        truth: list[str], candidates: Sequence[str], rng: random.Random, wrong_rate: float
    ) -> list[str]:
        """``truth``, or (at ``wrong_rate``) one item missed or one item seen that is not there."""
        if rng.random() >= wrong_rate:
            return list(truth)
        others = [c for c in candidates if c not in truth]
        if truth and (not others or rng.random() < 0.5):
            return truth[:-1]  # missed one
        if others:
            return sorted([*truth, rng.choice(others)])  # saw something that is not there
        return list(truth)

    def tags(self, answers: Mapping[int, Any]) -> list[str]:
        """``[Intermediate Thinking Results k: ...]`` lines, in the question's own answer format."""
        by_key = {q.key: q for q in self.questions()}
        return [
            f"[Intermediate Thinking Results {k}: {by_key[k].written(v) if k in by_key else v}]"
            for k, v in sorted(answers.items())
            if self.asked is None or k in self.asked
        ]

    # -- words ----------------------------------------------------------------------------------------

    def situation(self, ctx: SimContext) -> str:
        """One sentence about the position."""
        legal = len(ctx.state.legal_actions(ctx.seat))
        return f"Position after {ctx.state.step} moves; {legal} legal actions."

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> str:
        """The streamed thinking: the situation, the moves compared, the choice."""
        lines = [self.situation(ctx)]
        ranked = sorted(analysis.values.items(), key=lambda kv: kv[1], reverse=True)
        if len(ranked) > 1:
            lines.append("Let me compare the moves:")
            for a, v in ranked[:8]:
                # A slip is a misreading: the model does not see what is wrong with its own move.
                note = "" if slip and a == action else ctx.state.annotate(a, ctx.seat)
                lines.append(f"- {a}: {fmt_value(v)}" + (f"  ({note})" if note else ""))
        if slip:
            lines.append(f"{self.slip_words(ctx, action, slip)} I'll go with {action}.")
        else:
            lines.append(f"{action} looks strongest. I'll go with {action}.")
        return "\n".join(lines)

    def slip_words(self, ctx: SimContext, action: Action, slip: str) -> str:
        """Why the model thinks its slip is a good move, written from its misreading (it does not know
        it is wrong)."""
        again = " I still read it that way." if slip.endswith("again") else ""
        if slip_kind(slip) == "wasted":
            return f"{action} looks like it changes the position for the better.{again}"
        return f"{action} looks available to me and suits the plan.{again}"

    def thought(self, ctx: SimContext, analysis: Analysis, action: Action, slip: str) -> str:
        """The one-line rationale of the answer."""
        if slip:
            return self.slip_words(ctx, action, slip)
        ranked = sorted(analysis.values, key=lambda a: analysis.values[a], reverse=True)
        others = [a for a in ranked if a != action]
        extra = f" better than {', '.join(others[:2])}" if others else ""
        return f"{self.situation(ctx)} {action} scores{extra}."

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
        """The reply in the generic prompt's format: intermediate tags (if any), ``thought:``, ``move:``."""
        lines = self.tags(answers)
        thought = self.thought(ctx, analysis, action, slip)
        if broken:
            return "\n".join([*lines, self.broken(ctx, rng)])
        return "\n".join([*lines, f"thought: {thought}", f"move: {action}"])

    def broken(self, ctx: SimContext, rng: random.Random) -> str:
        """A realistic format slip. It must name no move anywhere, or the parser's fallback would
        (rightly) find it and it would not be a format error at all."""
        plain = f"{self.situation(ctx)} This needs careful thought before committing."
        variant = rng.randrange(3)
        if variant == 0:
            return f"thought: {plain}"  # the move line is missing: the answer was cut short
        if variant == 1:
            return f"thought: {plain}\nmove: {rng.choice(['diagonal', 'stay put', 'the usual', 'none'])}"
        return f"Analysis: {plain} The best option is obvious from here."

    def blind(self, prompt: str, rng: random.Random) -> str:
        """An answer written without any context (a call the harness did not describe)."""
        return "thought: keeping it simple.\nmove: " + (self.game.actions[0] if self.game.actions else "pass")

    def describe(self, ctx: SimContext | None) -> str:
        """The perception call's description of the board image: what the seat can see of the state,
        written out as the game's text view and coordinate listing (deterministic: no randomness)."""
        if ctx is None:
            return "The image shows the game board; no details can be made out."
        text = ctx.state.text(ctx.seat).rstrip()
        try:
            table = str(ctx.state.text_table(ctx.seat)).rstrip()
        except Exception:  # a game's optional listing must never break the description
            table = ""
        body = f"{text}\n\n{table}" if table else text
        return f"The image shows {self.game.title} at step {ctx.state.step}.\n\n{body}"

    def reflection(self, ctx: SimContext | None) -> str:
        """The reflection call's text on the player's last move."""
        if ctx is None or not ctx.history:
            return "Not enough history yet to judge the last move; keep following the plan."
        last = ctx.history[-1]
        action = ", ".join(str(a) for a in last.actions.values())
        gain = last.rewards[ctx.seat] if ctx.seat < len(last.rewards) else 0.0
        verdict = "gained" if gain > 0 else "lost" if gain < 0 else "did not change"
        return (
            f"The last action was {action}; my score {verdict} ({fmt_value(gain)}). "
            "Check whether it improved the position, and avoid repeating mistakes."
        )


def slip_kind(slip: str) -> str:
    """``"illegal"``, ``"wasted"`` or ``""`` for a slip tag (``"illegal again"`` is a repeated one)."""
    return slip.split(" ", 1)[0] if slip else ""


def since_own_move(ctx: SimContext) -> list[StepRecord]:
    """The steps from the seat's own last move to now; the last step when the seat has not moved."""
    return since_move(ctx.history, ctx.seat) or list(ctx.history[-1:])


def fmt_value(value: float) -> str:
    """A search value for reading: large values keep their differences visible."""
    if abs(value) >= 1000:
        return f"{value:,.1f}"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.3g}"


def value_lines(analysis: Analysis, label: str, skip: Collection[Action] = (), most: int = 5) -> list[str]:
    """``["label: a 3, b 1"]``: the analysis' best ``most`` values as a line of a reasoning trace,
    leaving out the moves in ``skip`` (those the model does not see); no line when fewer than two
    moves are left to compare."""
    ranked = sorted(
        ((a, v) for a, v in analysis.values.items() if a not in skip), key=lambda kv: kv[1], reverse=True
    )
    if len(ranked) < 2:
        return []
    return [f"{label}: " + ", ".join(f"{a} {fmt_value(v)}" for a, v in ranked[:most])]


def misread_board(
    cells: Sequence[str], actions: Sequence[Action], action: Action, slip: str
) -> tuple[str, ...]:
    """The board (``cells``, one per action of ``actions``) as the model reads it: with an illegal
    slip, the cell it plays looks empty to it."""
    seen = list(cells)
    if slip_kind(slip) == "illegal" and action in actions:
        seen[actions.index(action)] = ""
    return tuple(seen)


def blind_choice(candidates: Sequence[str], default: str, rng: random.Random) -> str:
    """A ``Chosen Move`` answer written without seeing the position: one of the ``candidates`` (the
    moves its prompt lists), else ``default``."""
    move = rng.choice(candidates) if candidates else default
    return f"I cannot see the whole position clearly.\nChosen Move: {move}"


# -- LVLM-Playground's answer format ----------------------------------------------------------------


def labelled_answer(
    observation: str, strategy: str | None = None, movement: str | None = None, *, ending: str = ""
) -> str:
    """An answer in LVLM-Playground's labelled lines, ``Observation:``, ``Strategy:`` and ``Movement:``
    (a part given as ``None`` is left out, as in an answer cut short), then the ``ending`` line if any
    (a format slip's stray last line)."""
    parts = [("Observation", observation), ("Strategy", strategy), ("Movement", movement)]
    lines = [f"{label}: {text}" for label, text in parts if text is not None]
    return "\n".join([*lines, ending] if ending else lines)


def labelled_slip(
    observation: str, rng: random.Random, *, cut: str, plan: str, vague: Sequence[str], closing: str
) -> str:
    """A format slip in the labelled format that names no move anywhere (else the extractor would
    rightly find it): the answer cut short after the ``cut`` strategy, a ``Movement:`` line with a
    ``vague`` description, or the observation running on into prose (``closing``) without labels."""
    variant = rng.randrange(3)
    if variant == 0:
        return labelled_answer(observation, cut)
    if variant == 1:
        return labelled_answer(observation, plan, rng.choice(vague))
    return f"{labelled_answer(observation)} {closing}"


# -- reflections ------------------------------------------------------------------------------------


def position(ctx: SimContext | None, kind: type[StateT]) -> StateT | None:
    """The position ``ctx`` is about, when there is one and it is a ``kind``."""
    return ctx.state if ctx is not None and isinstance(ctx.state, kind) else None


def last_position(ctx: SimContext | None, kind: type[StateT]) -> StateT | None:
    """The position the last step of ``ctx``'s history led to, when there is one and it is a ``kind``."""
    if ctx is None or not ctx.history:
        return None
    after = ctx.history[-1].next_state
    return after if isinstance(after, kind) else None


def recap(ctx: SimContext, them: str, empty: str = "No moves yet.") -> str:
    """``"Since my last turn: I played (1,1); O played (0,2)."``: the moves from the seat's own last
    move to now, the other seats' as ``them``; ``empty`` when there are none."""
    moves = [(seat, a) for rec in since_own_move(ctx) for seat, a in sorted(rec.actions.items())]
    said = "; ".join(f"{'I' if seat == ctx.seat else them} played {a}" for seat, a in moves)
    return f"Since my last turn: {said}." if said else empty


def win_block_notes(them: str, chances: Sequence[str], threats: Sequence[str]) -> list[str]:
    """A line game's reflection notes: the winning cells to take, and ``them``'s threats to block."""
    return [
        f"I can win at {', '.join(chances)}: take it." if chances else "",
        f"{them} threatens {', '.join(threats)}; block unless I can win first." if threats else "",
    ]


def reflect(ctx: SimContext, them: str, notes: Sequence[str], quiet: str = "", status: str = "") -> str:
    """A reflection: the :func:`recap`, the ``status`` of the position, then the ``notes`` that are not
    empty (chances to take, threats to answer) or, when all are, the ``quiet`` advice."""
    kept = [note for note in notes if note]
    return " ".join(part for part in [recap(ctx, them), status, *(kept or [quiet])] if part)
