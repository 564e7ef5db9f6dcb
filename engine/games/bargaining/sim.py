"""How the simulated model negotiates, in GameBot's answer format: the evaluation of the opponent's
latest proposal (intermediate result 1), a strategic analysis, the validity check of its own proposal
with its value (intermediate result 2), a conclusion and ``Proposal: [...]``.

Its strategy is the one GameBot's prompt teaches: never ask for less than 15, ask for more early
(the fair negotiator's demand, 20 conceding to 15 by round 8), accept a proposal it believes is worth
at least its demand, and after the random stop starts be more cooperative (accept 13 or more rather
than risk 0 for both). Its mistakes are the ones models make here, and its words follow from them:

* a wrong intermediate total is an arithmetic slip the reasoning shows: the opponent's share valued
  instead of its own, one item's term left out, or a sum that is off; the model then accepts or
  rejects on the number it believes;
* a slip proposes a division that miscounts one item (the shares do not add up to the pool), which
  the game rejects as illegal and the harness re-asks; the model's validity check, written from its
  misreading, says the division is valid.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Action
from engine.games.bargaining.bots import fair_proposal, opponent_interest, threshold
from engine.games.bargaining.questions import mistakes
from engine.games.bargaining.rules import (
    AGREE,
    HALF_VALUE,
    ITEMS,
    SEAT_NAMES,
    TOTAL_VALUE,
    BargainingState,
    division_action,
    read_division,
    value_of,
)
from engine.llm.simstyle import (
    Analysis,
    SimBehaviour,
    SimContext,
    position,
    recap,
    slip_kind,
)

#: What the model accepts once every round may be the last.
LATE_ACCEPT = HALF_VALUE - 2


def _state(ctx: SimContext | None) -> BargainingState | None:
    return position(ctx, BargainingState)


def _listed(numbers: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, numbers)) + "]"


def _tuple(numbers: Sequence[int]) -> str:
    return "(" + ", ".join(map(str, numbers)) + ")"


def late(state: BargainingState) -> bool:
    """Whether the random stop already applies to the next round."""
    return state.stop_probability > 0 and state.round > state.rounds_before_stop


def acceptance(state: BargainingState) -> int:
    """The least value the model accepts now: its demand, or :data:`LATE_ACCEPT` once the game may
    stop before any round (more cooperative, as the prompt advises)."""
    demand = threshold(state)
    return min(demand, LATE_ACCEPT) if late(state) else demand


def expression(values: Sequence[int], share: Sequence[int], total: int, drop: int | None = None) -> str:
    """``2*2 + 5*1 + 0*1 = 9``: the sum as written out, optionally without term ``drop``."""
    terms = [f"{v}*{s}" for i, (v, s) in enumerate(zip(values, share, strict=True)) if i != drop]
    return f"{' + '.join(terms)} = {total}"


def shown_sum(values: Sequence[int], share: Sequence[int], other: Sequence[int], believed: int) -> str:
    """The calculation the model writes for the total it believes (its slip made visible): its own
    share, the opponent's share read as its own, or one term left out."""
    truth = value_of(values, share)
    if believed == truth:
        return f"my share is {_tuple(share)}: {expression(values, share, truth)}"
    kinds = mistakes(truth, values, share)
    if kinds.get("side") == believed:
        return f"my share is {_tuple(other)}: {expression(values, other, believed)}"
    if kinds.get("dropped") == believed:
        terms = [v * s for v, s in zip(values, share, strict=True)]
        drop = min((t, i) for i, t in enumerate(terms) if t > 0)[1]
        return f"my share is {_tuple(share)}: {expression(values, share, believed, drop)}"
    return f"my share is {_tuple(share)}: {expression(values, share, believed)}"


class BargainingSim(SimBehaviour):
    """Bargaining's simulated negotiator."""

    # -- beliefs and choice -----------------------------------------------------------------------

    def intermediate(self, ctx: SimContext, rng: random.Random, wrong_rate: float) -> dict[int, Any]:
        """The value of the opponent's latest proposal (or a plausible slip); nothing before one."""
        answers = super().intermediate(ctx, rng, wrong_rate)
        return {k: int(v) for k, v in answers.items() if v is not None}

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, Any]) -> Action:
        """Agree when the proposal is believed worth at least :func:`acceptance`, else propose the
        fair division for the current demand (never under 15)."""
        state = _state(ctx)
        if state is None or state.values[ctx.seat] is None:
            return analysis.best
        believed = answers.get(1)
        if believed is not None and AGREE in state.legal_actions(ctx.seat) and believed >= acceptance(state):
            return AGREE
        return fair_proposal(state, ctx.seat, max(HALF_VALUE, threshold(state)))[0]

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """The intended division with one of the opponent's counts off by one: the shares no longer add
        up to the pool (an illegal action the harness re-asks)."""
        state = _state(ctx)
        if state is None or state.values[ctx.seat] is None:
            return analysis.best, ""
        action = fair_proposal(state, ctx.seat, max(HALF_VALUE, threshold(state)))[0]
        read = read_division(action)
        assert read is not None
        shares = [list(read[0]), list(read[1])]
        # The opponent's side is miscounted: the model's own share, and so its value, stay as meant.
        side = shares[1 - ctx.seat]
        item = rng.randrange(3)
        side[item] = side[item] + 1 if side[item] == 0 or rng.random() < 0.5 else side[item] - 1
        return division_action(shares[0], shares[1]), "illegal"

    # -- words ----------------------------------------------------------------------------------------

    def _evaluation(self, state: BargainingState, seat: int, answers: Mapping[int, Any]) -> list[str]:
        values = state.values[seat]
        assert values is not None
        other = SEAT_NAMES[1 - seat]
        index = state.opponent_offer(seat)
        if index is None:
            return [f"{other} has not made a proposal yet, so there is nothing to evaluate; I open."]
        share, theirs = state.share(index, seat), state.share(index, 1 - seat)
        believed = int(answers.get(1, value_of(values, share)))
        lines = [
            f"{other}'s latest proposal (round {index + 1}) is "
            f"[{division_action(state.share(index, 0), state.share(index, 1))}]. "
            f"I am {SEAT_NAMES[seat]} with values {_listed(values)}; "
            + shown_sum(values, share, theirs, believed)
            + ".",
            *self.tags({1: believed}),
        ]
        earlier = [(i, value_of(values, state.share(i, seat))) for i in range(index - 2, -1, -2)]
        if earlier:
            listed = ", ".join(f"{v} (round {i + 1})" for i, v in earlier[:3])
            best_before = max(v for _, v in earlier)
            trend = (
                "better for me than before"
                if believed > best_before
                else ("no better for me than before" if believed <= best_before else "")
            )
            lines.append(f"Their earlier proposals were worth {listed} to me: this one is {trend}.")
        interest = opponent_interest(state, seat)
        top = max(range(3), key=lambda k: (interest[k], -k))
        lines.append(
            f"{other} keeps asking for the {ITEMS[top]}, so it probably values {ITEMS[top]} the most."
        )
        return lines

    def _strategy(self, state: BargainingState, seat: int, action: Action, answers: Mapping[int, Any]) -> str:
        values = state.values[seat]
        assert values is not None
        demand = max(HALF_VALUE, threshold(state))
        stop = (
            f"From now on every round may be the last ({state.stop_probability:.0%} chance the game ends "
            f"with 0 for both), so I accept {acceptance(state)} or more."
            if late(state)
            else f"It is round {state.round}; the random stop starts after round {state.rounds_before_stop}, "
            f"so I can still ask for {demand}."
        )
        believed = answers.get(1)
        if action == AGREE:
            return f"{stop} The proposal gives me {believed}, which is enough: I accept."
        mine = sorted(range(3), key=lambda k: -values[k])
        keep = f"I value {ITEMS[mine[0]]} the most ({values[mine[0]]} each) and {ITEMS[mine[2]]} the least"
        if believed is not None:
            return f"{stop} {believed} is less than I want, so I make a new proposal. {keep}."
        return f"{stop} {keep}, so I keep the {ITEMS[mine[0]]} and give away what I value least."

    def _validity(
        self, state: BargainingState, seat: int, action: Action, answers: Mapping[int, Any]
    ) -> list[str]:
        if action == AGREE:
            return ["I am agreeing, so there is no new proposal to check."]
        read = read_division(action)
        values = state.values[seat]
        if read is None or values is None:
            return []
        first, second = read
        sums = ", ".join(f"{x}+{y}={n}" for x, y, n in zip(first, second, state.pool, strict=True))
        share = read[seat]
        believed = int(answers.get(2, value_of(values, share)))
        return [
            f"Pool: {_listed(state.pool)}. Proposal: [{action}]: {sums}. Valid.",
            f"Value for me: {expression(values, share, believed)}.",
            *self.tags({2: believed}),
        ]

    def _conclusion(
        self, state: BargainingState, seat: int, action: Action, answers: Mapping[int, Any]
    ) -> str:
        if action == AGREE:
            return f"I agree: the proposal is worth {answers.get(1)} to me and a deal beats the risk of 0."
        read = read_division(action)
        values = state.values[seat]
        worth = answers.get(2)
        if worth is None and read is not None and values is not None:
            worth = value_of(values, read[seat])
        other = SEAT_NAMES[1 - seat]
        return f"I propose a division worth {worth} to me that leaves {other} the items I value least."

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
        if state is None or state.values[ctx.seat] is None:
            return super().answer(ctx, analysis, action, slip, broken, answers, rng)
        seat = ctx.seat
        if slip_kind(slip) == "illegal" and 2 not in answers:
            read = read_division(action)
            values = state.values[seat]
            if read is not None and values is not None:
                answers = {**answers, 2: value_of(values, read[seat])}  # its misreading, valued all the same
        body = [
            "1. **Evaluation of the proposal**",
            *self._evaluation(state, seat, answers),
            "2. **Strategic Analysis**",
            self._strategy(state, seat, action, answers),
            "3. **Check Validity**",
            *self._validity(state, seat, action, answers),
            "4. **Conclusion**",
            self._conclusion(state, seat, action, answers),
            "5. **Proposal**",
        ]
        if broken:
            body[-1:] = [self._broken_line(rng)]
            # A format slip must name no division anywhere, or the extractor's fallback would find it.
            return "\n".join(line for line in body if read_division(line) is None)
        final = "Proposal: [Agree]" if action == AGREE else f"Proposal: [{action}]"
        return "\n".join([*body, final])

    @staticmethod
    def _broken_line(rng: random.Random) -> str:
        return rng.choice(
            [
                "Proposal: I will hold my position and wait for a better offer.",
                "Proposal: the same split as I described above.",
                "I will make my decision in the next round.",
            ]
        )

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, Any]
    ) -> str:
        state = _state(ctx)
        if state is None or state.values[ctx.seat] is None:
            return super().reasoning(ctx, analysis, action, slip, answers)
        values = state.values[ctx.seat]
        assert values is not None  # checked above
        lines = [
            f"I am {SEAT_NAMES[ctx.seat]}. Pool {_listed(state.pool)} of {', '.join(ITEMS)}; "
            f"my values {_listed(values)} (30 in all). Round {state.round}.",
        ]
        if 1 in answers:
            lines.append(f"Their latest proposal gives me {answers[1]}; I accept from {acceptance(state)}.")
        else:
            lines.append("No proposal from them yet: I open.")
        if action == AGREE:
            lines.append("That is enough. I agree.")
        else:
            lines.append(f"I ask for at least {max(HALF_VALUE, threshold(state))}: I propose {action}.")
        return "\n".join(lines)

    def blind(self, prompt: str, rng: random.Random) -> str:
        pool = re.search(r"Pool:\s*\[(\d+),\s*(\d+),\s*(\d+)\]", prompt)
        counts = [int(g) for g in pool.groups()] if pool else [2, 2, 2]
        first = [(n + 1) // 2 for n in counts]
        second = [n - x for n, x in zip(counts, first, strict=True)]
        proposal = division_action(first, second)
        return f"I cannot see the whole negotiation clearly; an even split is safest.\nProposal: [{proposal}]"

    def reflection(self, ctx: SimContext | None) -> str:
        if ctx is None or not ctx.history:
            return super().reflection(ctx)
        after = ctx.history[-1].next_state
        mine = after.values[ctx.seat] if isinstance(after, BargainingState) else None
        if not isinstance(after, BargainingState) or mine is None:
            return super().reflection(ctx)
        index = after.opponent_offer(ctx.seat)
        parts = [recap(ctx, SEAT_NAMES[1 - ctx.seat], empty="No proposals yet.")]
        if index is not None:
            worth = value_of(mine, after.share(index, ctx.seat))
            verdict = "at least half" if worth >= HALF_VALUE else "less than half"
            parts.append(f"Their latest proposal is worth {worth} to me, {verdict} of {TOTAL_VALUE}.")
        if late(after):
            parts.append("Every round may now be the last: a fair deal beats 0 for both.")
        return " ".join(parts)
