"""How the simulated model plays Reversi, in LVLM-Playground's answer format: ``Observation:`` (what it
sees on the board), ``Strategy:`` (its plan) and ``Movement:`` (the square, e.g. ``D3``).

Its judgement is the default opponent's: the depth-3 disc-difference search (:mod:`.bots`) scores the
moves. What it *believes* about the corners it can take comes from the board, and at the client's
error rate (``wrong_ir_rate``) it overlooks one of them, the way vision models miss a square on a busy
board. The move follows from the belief: a corner it sees is taken, otherwise the search's best move
among the squares it has not overlooked, and its words never mention what it missed.

A slip (``illegal_rate``) is LVLM-Playground's commonest invalid Reversi move: an empty square next to
an opposing disc that sandwiches nothing (or, on a board without one, an occupied square); its words
say the disc beside it will flip. A format slip leaves out the ``Movement:`` line or names no square,
which the paper counts as an invalid move.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.core import Action
from engine.games.othello.bots import flip_count
from engine.games.othello.rules import CORNERS, FULL, PASS, SEAT_NAMES, OthelloState, bits_of
from engine.llm.simstyle import (
    Analysis,
    SimBehaviour,
    SimContext,
    labelled_answer,
    last_position,
    reflect,
    slip_kind,
    value_lines,
)
from engine.questions import format_items

#: Belief key: the corners the model sees it can take.
MY_CORNERS = 1


def _board(ctx: SimContext) -> OthelloState:
    state = ctx.state
    if not isinstance(state, OthelloState):
        raise TypeError(f"not a Reversi state: {type(state).__name__}")
    return state


def _corners(state: OthelloState, seat: int) -> list[Action]:
    names = state.naming.cells
    mask = state.moves_mask(seat)
    return [names[i] for i in CORNERS if mask >> i & 1]


class ReversiSim(SimBehaviour):
    """Reversi's simulated player."""

    # -- beliefs ------------------------------------------------------------------------------------

    def intermediate(self, ctx: SimContext, rng: random.Random, wrong_rate: float) -> dict[int, list[str]]:
        """The corners the model sees it can take: the truth, or at ``wrong_rate`` one overlooked."""
        truth = _corners(_board(ctx), ctx.seat)
        if truth and rng.random() < wrong_rate:
            lost = rng.choice(truth)
            return {MY_CORNERS: [a for a in truth if a != lost]}
        return {MY_CORNERS: truth}

    def _missed(self, ctx: SimContext, answers: Mapping[int, Any]) -> set[str]:
        return set(_corners(_board(ctx), ctx.seat)) - set(answers.get(MY_CORNERS, []))

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, Any]) -> Action:
        """A corner it sees (the best valued one), else the search's best move among those it sees."""
        legal = _board(ctx).legal_actions(ctx.seat)
        if legal == [PASS] or not legal:
            return legal[0] if legal else analysis.best
        values = analysis.values

        def value(a: Action) -> tuple[float, bool]:
            return (values.get(a, float("-inf")), a == analysis.best)

        corners = [a for a in answers.get(MY_CORNERS, []) if a in legal]
        if corners:
            return str(max(corners, key=value))
        missed = self._missed(ctx, answers)
        return max([a for a in legal if a not in missed] or legal, key=value)

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """An empty square beside an opposing disc that sandwiches nothing, else an occupied square."""
        state = _board(ctx)
        names = state.naming.cells
        own, opp = state.discs(ctx.seat), state.discs(1 - ctx.seat)
        empty = ~(own | opp) & FULL & ~state.moves_mask(ctx.seat)
        near = [names[i] for i in bits_of(empty) if _beside(opp, i)]
        if near:
            return rng.choice(near), "illegal"
        taken = [names[i] for i in bits_of(own | opp)]
        return (rng.choice(taken), "illegal") if taken else (analysis.best, "")

    # -- words --------------------------------------------------------------------------------------

    def _observation(self, ctx: SimContext, answers: Mapping[int, Any]) -> str:
        state = _board(ctx)
        me, them = SEAT_NAMES[ctx.seat], SEAT_NAMES[1 - ctx.seat]
        black, white = state.counts()
        parts = [f"Black has {black} discs and White has {white}; I play {me}."]
        if state.last_action is not None and state.last_action != PASS:
            parts.append(f"{them}'s last move was {state.last_action}.")
        corners = answers.get(MY_CORNERS, [])
        if corners:
            parts.append(f"I can take the corner {format_items(corners)}.")
        held = [state.naming.cells[i] for i in CORNERS if state.discs(ctx.seat) >> i & 1]
        if held:
            parts.append(f"I already hold {format_items(held)}.")
        return " ".join(parts)

    def _plan(self, ctx: SimContext, action: Action, slip: str, answers: Mapping[int, Any]) -> str:
        state = _board(ctx)
        them = SEAT_NAMES[1 - ctx.seat]
        if slip:
            again = " I checked again: it is a valid square." if slip.endswith("again") else ""
            return f"{action} sits next to a {them} disc, so placing there should flip it.{again}"
        if action in answers.get(MY_CORNERS, []):
            return f"Take the corner {action}: a corner disc can never be flipped back."
        flipped = flip_count(state, action)
        replies = len(state.apply(action).moves_of(1 - ctx.seat))
        return (f"{action} flips {flipped} {them} disc(s) and leaves {them} {replies} move(s); "
                "I keep my discs together and avoid giving up corners.")

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
        state = _board(ctx)
        observation = self._observation(ctx, answers)
        if state.legal_actions(ctx.seat) == [PASS]:
            them = SEAT_NAMES[1 - ctx.seat]
            strategy = f"No square sandwiches a {them} disc, so I have no valid move and must pass."
            return labelled_answer(observation, strategy, PASS)
        strategy = self._plan(ctx, action, slip, answers)
        if broken:
            # A format slip names no square anywhere after a Movement keyword: the move is lost.
            ending = rng.choice([
                "Movement: the square next to my discs",
                "My move is the one that flips the most, as described above.",
                "Move: top left corner area",
            ])
            return labelled_answer(observation, strategy, ending=ending)
        return labelled_answer(observation, strategy, action)

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, Any]
    ) -> str:
        """The streamed reasoning trace, written from the same beliefs as the answer."""
        state = _board(ctx)
        legal = state.legal_actions(ctx.seat)
        lines = [f"Reading the board: {self._observation(ctx, answers)}"]
        if legal == [PASS]:
            lines.append("No square sandwiches anything: I have to pass.")
            return "\n".join(lines)
        missed = self._missed(ctx, answers)
        seen = [a for a in legal if a not in missed]
        lines.append(f"Squares that sandwich a disc: {format_items(seen)}.")
        lines += value_lines(analysis, "Disc difference three moves ahead", missed)
        lines.append(self._plan(ctx, action, slip, answers))
        return "\n".join(lines)

    def slip_words(self, ctx: SimContext, action: Action, slip: str) -> str:
        again = " I still read it that way." if slip.endswith("again") else ""
        if slip_kind(slip) == "illegal":
            return f"{action} looks like it sandwiches the {SEAT_NAMES[1 - ctx.seat]} disc beside it.{again}"
        return super().slip_words(ctx, action, slip)

    def blind(self, prompt: str, rng: random.Random) -> str:
        return labelled_answer(
            "I cannot make out every disc clearly; the centre holds the four starting discs.",
            "Play next to the centre, where a move usually flips a disc.",
            rng.choice(["C4", "D3", "E6", "F5"]),
        )

    def reflection(self, ctx: SimContext | None) -> str:
        after = last_position(ctx, OthelloState)
        if ctx is None or after is None:
            return super().reflection(ctx)
        them = SEAT_NAMES[1 - ctx.seat]
        mine, theirs = _corners(after, ctx.seat), _corners(after, 1 - ctx.seat)
        return reflect(
            ctx,
            them,
            [
                f"I can take {format_items(mine)} now: do it." if mine else "",
                f"{them} could take {format_items(theirs)}; do not open more corners." if theirs else "",
            ],
            quiet="No corner is in reach; keep flipping without handing over the squares next to the "
            "corners.",
            status=after.status_text(),
        )


def _beside(mask: int, index: int) -> bool:
    """Whether a disc of ``mask`` touches square ``index`` (any of the eight directions)."""
    row, col = divmod(index, 8)
    return any(
        mask >> (r * 8 + c) & 1
        for r in (row - 1, row, row + 1)
        for c in (col - 1, col, col + 1)
        if (r, c) != (row, col) and 0 <= r < 8 and 0 <= c < 8
    )
