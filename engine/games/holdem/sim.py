"""How the simulated model plays hold'em, in GameBot's answer format: a strategic analysis in the
paper's style (the table lookup before the flop, the best hand and its rank after it, the pot odds),
a conclusion and ``Chosen Action: <action>``.

Its mistakes are the ones models make with this prompt, and its play follows from them:

* a wrong win probability is a lookup slip: the generic entry for a hand that has a suited / offsuit
  one, or the row of a neighbouring kicker; a wrong rank is a misread hand (a flush or straight seen
  that is not there, a pair missed). The model then applies the prompt's thresholds to what it
  believes: above 57% or two pair and better it raises, below 43% or a weak high card it folds
  (checking when nothing is owed), otherwise it checks or calls;
* a slip names an action that is not available (a fold with nothing to call, a raise when raising is
  closed), misreading the list of actions.

Which raise it makes is the one the equity bot values most among the legal ones.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any

from engine.core import Action
from engine.games.holdem.cards import HAND_NAMES, RANKS, best_five, card_name, preflop_keys
from engine.games.holdem.preflop import PREFLOP_WIN
from engine.games.holdem.rules import ACTIONS, ALL_IN, CALL, FOLD, HALF_POT, POT, HoldemState
from engine.llm.simstyle import (
    Analysis,
    SimBehaviour,
    SimContext,
    fmt_value,
    recap,
    slip_kind,
)

__all__ = ["HoldemSim"]

_RAISES = (HALF_POT, POT, ALL_IN)


def _state(ctx: SimContext) -> HoldemState:
    if not isinstance(ctx.state, HoldemState):
        raise TypeError(f"not a hold'em state: {type(ctx.state).__name__}")
    return ctx.state


def _cards(codes: Any) -> str:
    return ", ".join(card_name(c) for c in codes)


class HoldemSim(SimBehaviour):
    """Hold'em's simulated player."""

    # -- beliefs ------------------------------------------------------------------------------------

    def intermediate(self, ctx: SimContext, rng: random.Random, wrong_rate: float) -> dict[int, Any]:
        """The applicable question's answer only: the win probability before the flop, the hand rank
        after it (right, or at ``wrong_rate`` a plausible slip)."""
        state = _state(ctx)
        answers: dict[int, Any] = {}
        for q in self.questions():
            if q.applies is not None and not q.applies(state, ctx.seat):
                continue
            truth = q.truth(state, ctx.seat)
            wrong = rng.random() < wrong_rate
            answers[q.key] = q.wrong(truth, state, ctx.seat, rng) if wrong and q.wrong is not None else truth
        return answers

    def stance(self, ctx: SimContext, answers: Mapping[int, Any]) -> str:
        """What the prompt's guidance says for the believed answers: ``raise``, ``call`` or ``fold``."""
        state = _state(ctx)
        if 1 in answers:
            p = float(answers[1])
            return "raise" if p > 57 else "fold" if p < 43 else "call"
        if 2 in answers:
            rank = int(answers[2])
            hole = state.hole(ctx.seat) or ()
            high = max((RANKS.index(c[0]) for c in hole), default=0)
            if rank <= 8:
                return "raise"
            if rank == 10 and high < RANKS.index("J"):
                return "fold"
        return "call"

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, Any]) -> Action:
        legal = _state(ctx).legal_actions(ctx.seat)
        stance = self.stance(ctx, answers)
        if stance == "raise":
            raises = [a for a in _RAISES if a in legal]
            if raises:
                return max(raises, key=lambda a: analysis.values.get(a, float("-inf")))
        if stance == "fold" and FOLD in legal:
            return FOLD
        return CALL

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """An action that is not available now (the list of actions misread)."""
        legal = _state(ctx).legal_actions(ctx.seat)
        missing = [a for a in ACTIONS if a not in legal]
        if not missing:
            return analysis.best, ""
        return rng.choice(missing), "illegal"

    # -- words --------------------------------------------------------------------------------------

    def _lookup(self, state: HoldemState, seat: int, believed: float) -> str:
        hole = state.hole(seat) or ()
        specific, generic = preflop_keys(hole)
        key = specific if specific in PREFLOP_WIN else generic
        if PREFLOP_WIN.get(key) != believed:
            key = next((k for k, v in PREFLOP_WIN.items() if v == believed), key)
        note = "" if key == specific or specific == generic else f" (the table has no {specific} entry)"
        return f"My hand is [{_cards(hole)}], so the key is {key}{note}: {believed:.1f}%."

    def _hand(self, state: HoldemState, seat: int, believed: int) -> str:
        hole = state.hole(seat) or ()
        rank, five = best_five(hole, state.board)
        name = HAND_NAMES.get(believed, "a hand")
        if rank == believed:
            return f"With [{_cards(hole)}] and the board [{_cards(state.board)}], my best five cards are " \
                   f"{_cards(five)}: {name}, rank {believed}."
        return f"With [{_cards(hole)}] and the board [{_cards(state.board)}], I read my best hand as " \
               f"{name}, rank {believed}."

    def _odds(self, state: HoldemState) -> str:
        call = state.chips_for(CALL)
        if not call:
            return "Nothing to call: I can check for free."
        need = call / (state.pot + call)
        return f"Calling {call} into a pot of {state.pot} needs {need:.0%} equity (pot odds)."

    def _plan(self, stance: str, action: Action, slip: str, state: HoldemState) -> str:
        if slip:
            again = " I checked the list again." if slip.endswith("again") else ""
            return f"{action} is among my options and fits my read.{again}"
        if action == FOLD:
            return "My hand is too weak to continue against a bet: I fold."
        if action == CALL:
            if stance == "fold":
                return "My hand is weak, but nothing is owed, so I check rather than fold."
            if stance == "raise":
                return "My hand is strong, but raising is closed: I call."
            return "A middling hand: I keep the pot under control and check or call."
        chips = state.chips_for(action)
        return f"My hand is strong enough to build the pot: {action}, putting in {chips} chips."

    def answer(
        self,
        ctx: SimContext,
        analysis: Analysis,
        action: Action,
        slip: str,
        broken: bool,
        answers: Mapping[int, Any],
        rng: random.Random,
    ) -> str:
        state = _state(ctx)
        stance = self.stance(ctx, answers)
        lines = ["1. Strategic Analysis"]
        if 1 in answers:
            lookup = self._lookup(state, ctx.seat, float(answers[1]))
            lines += ["(a) Pre-flop: " + lookup, *self.tags(answers)]
            lines.append("Above 57% I raise, below 43% I fold (or check), in between I check or call.")
        elif 2 in answers:
            lines += ["(b) " + self._hand(state, ctx.seat, int(answers[2])), *self.tags(answers)]
            lines.append("Two pair or better: raise; a weak high card: fold (or check); otherwise call.")
        lines.append("(c) " + self._odds(state))
        lines += ["2. Conclusion", self._plan(stance, action, slip, state), "3. Chosen Action"]
        if broken:
            lines.append(rng.choice(["Chosen Action: play it safe", "I will see how it goes.",
                                     "Chosen Action: the usual"]))
        else:
            lines.append(f"Chosen Action: {action}")
        return "\n".join(lines)

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, Any]
    ) -> str:
        state = _state(ctx)
        lines = [f"{state.street_name}. Pot {state.pot}; I have {state.stacks[ctx.seat]} chips behind."]
        if 1 in answers:
            lines.append(self._lookup(state, ctx.seat, float(answers[1])))
        if 2 in answers:
            lines.append(self._hand(state, ctx.seat, int(answers[2])))
        lines.append(self._odds(state))
        ranked = sorted(analysis.values.items(), key=lambda kv: kv[1], reverse=True)
        if len(ranked) > 1:
            lines.append("Rough chip values: " + ", ".join(f"{a} {fmt_value(v)}" for a, v in ranked))
        lines.append(self._plan(self.stance(ctx, answers), action, slip, state))
        return "\n".join(lines)

    def slip_words(self, ctx: SimContext, action: Action, slip: str) -> str:
        again = " I still read it that way." if slip.endswith("again") else ""
        if slip_kind(slip) == "illegal":
            return f"{action} looks available to me.{again}"
        return super().slip_words(ctx, action, slip)

    def blind(self, prompt: str, rng: random.Random) -> str:
        found = re.findall(r"(Fold|Check and Call|Raise Half Pot|Raise Full Pot|All in)", prompt)
        return f"I cannot read the table clearly.\nChosen Action: {found[-1] if found else CALL}"

    def reflection(self, ctx: SimContext | None) -> str:
        if ctx is None or not ctx.history:
            return super().reflection(ctx)
        after = ctx.history[-1].next_state
        pot = f" The pot is now {after.pot}." if isinstance(after, HoldemState) else ""
        return (f"{recap(ctx, 'my opponent')}{pot} A raise from my opponent usually means strength; "
                "weigh the pot odds before calling.")
