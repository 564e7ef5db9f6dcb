"""How the simulated model plays checkers, in GameBot's answer format: a strategic analysis whose
sections (a)-(g) follow the cot prompt, the three intermediate results (from the game's own oracles),
a conclusion and ``Chosen Move: (r,c)->(r,c)``.

Its mistakes are the ones GameBot reports for real models, and its words follow from them:

* a wrong intermediate answer is one a model would give (see the questions' ``wrong``): a crowning
  missed or a move one row short taken for one; every move next to an attacker called a worthless
  die, without checking the square behind or the recapture; a plain sacrifice taken for a shot. The
  model then plays what it believes: it trusts a shot it sees, and avoids moves it thinks die for
  nothing;
* a slip is the classic illegal move: a quiet move while a capture is mandatory (the model did not
  see the capture), or a man moved backwards (it forgot that only kings may). Re-asked, it may
  insist (see :data:`engine.llm.simstyle.REPEAT_RATE`).

Without a slip the analysis, the conclusion and the reasoning always name the move played.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from engine.core import Action
from engine.games.checkers.rules import (
    DARK_SQUARES,
    DIAGONAL_STEPS,
    EMPTY,
    KINGS,
    MEN,
    MOVE_RE,
    PROMOTION_ROW,
    SEAT_NAMES,
    CheckersState,
    action_name,
    captures_exist,
    parse_path,
)
from engine.llm.simstyle import (
    Analysis,
    SimBehaviour,
    SimContext,
    blind_choice,
    fmt_value,
    last_position,
    recap,
)
from engine.questions import format_items

#: The two back-row squares each side should keep (GameBot's prompt, section (d)).
KEY_BACK = {0: ((0, 1), (0, 5)), 1: ((7, 2), (7, 6))}
#: A crowning is played when its search value is within this much of the best move's.
KING_MARGIN = 30.0


def _state(ctx: SimContext) -> CheckersState:
    state = ctx.state
    if not isinstance(state, CheckersState):
        raise TypeError(f"not a checkers state: {type(state).__name__}")
    return state


def _central(square: tuple[int, int]) -> bool:
    return 2 <= square[0] <= 5 and 2 <= square[1] <= 5


def _friends(board: str, seat: int, square: tuple[int, int], origin: tuple[int, int]) -> int:
    """Own pieces diagonally next to ``square`` (the moving piece itself not counted)."""
    r, c = square
    count = 0
    for dr in (-1, 1):
        for dc in (-1, 1):
            rr, cc = r + dr, c + dc
            if (
                0 <= rr < 8
                and 0 <= cc < 8
                and (rr, cc) != origin
                and board[rr * 8 + cc] in (MEN[seat], KINGS[seat])
            ):
                count += 1
    return count


class CheckersSim(SimBehaviour):
    """Checkers' simulated player."""

    # -- beliefs ------------------------------------------------------------------------------------

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, list[str]]) -> Action:
        """A shot it believes in first; else a crowning close to the best value; else the search's best
        move unless it believes that move dies for nothing."""
        legal = list(ctx.state.legal_actions(ctx.seat))
        if not legal:
            return analysis.best
        values = analysis.values

        def value(a: Action) -> float:
            return values.get(a, float("-inf"))

        shots = [a for a in answers.get(3, []) if a in legal]
        if shots:
            return max(shots, key=value)
        best_value = value(analysis.best)
        kings = [a for a in answers.get(1, []) if a in legal and value(a) >= best_value - KING_MARGIN]
        if kings:
            return max(kings, key=value)
        bad = set(answers.get(2, []))
        if analysis.best not in bad:
            return analysis.best
        candidates = [a for a in legal if a not in bad] or legal
        return max(candidates, key=value)

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """A quiet move while a capture is mandatory, else a man moved backwards; no slip when the
        board offers neither."""
        state = _state(ctx)
        board, seat = state.board, ctx.seat
        forward, backward = ((0, 1), (2, 3)) if seat == 0 else ((2, 3), (0, 1))
        quiet, back = [], []
        for square in DARK_SQUARES:
            if board[square] != MEN[seat]:
                continue
            for d in forward:
                step = DIAGONAL_STEPS[square][d][0]
                if step >= 0 and board[step] == EMPTY:
                    quiet.append(action_name((square, step)))
            for d in backward:
                step = DIAGONAL_STEPS[square][d][0]
                if step >= 0 and board[step] == EMPTY:
                    back.append(action_name((square, step)))
        if captures_exist(board, seat) and quiet:
            return rng.choice(quiet), "illegal"
        if back:
            return rng.choice(back), "illegal"
        return analysis.best, ""

    def slip_words(self, ctx: SimContext, action: Action, slip: str) -> str:
        again = " I checked again and still read it that way." if slip.endswith("again") else ""
        state = _state(ctx)
        if captures_exist(state.board, ctx.seat):
            return f"No capture is available to me, so I am free to play {action}.{again}"
        return f"{action} regroups my piece and strengthens the formation.{again}"

    # -- words --------------------------------------------------------------------------------------

    def _tag(self, answers: Mapping[int, list[str]], key: int) -> str:
        if key not in answers or (self.asked is not None and key not in self.asked):
            return ""
        return " " + self.tags({key: answers[key]})[0]

    def _sections(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> list[str]:
        state = _state(ctx)
        board, seat = state.board, ctx.seat
        me, them = SEAT_NAMES[seat], SEAT_NAMES[1 - seat]
        path = parse_path(action) or ((0, 0), (0, 0))
        start, end = path[0], path[-1]
        mine = [(i // 8, i % 8) for i in DARK_SQUARES if board[i] in (MEN[seat], KINGS[seat])]
        centre = [f"({r},{c})" for r, c in mine if _central((r, c))]
        if _central(end):
            centre_words = f"{action} brings the piece to the central square ({end[0]},{end[1]})."
        elif _central(start):
            centre_words = f"{action} leaves the centre, which I accept for the other reasons below."
        else:
            centre_words = f"{action} stays on the side of the board."
        kings = answers.get(1, [])
        king_words = (
            f"{format_items(kings)} {'crowns' if len(kings) == 1 else 'crown'} a piece on row "
            f"{PROMOTION_ROW[seat]}."
            if kings
            else f"No move reaches row {PROMOTION_ROW[seat]} this turn."
        )
        dies = answers.get(2, [])
        die_words = (
            f"After {format_items(dies)} the piece can be jumped at once with nothing to jump back."
            if dies
            else "No legal move leaves the moved piece to be taken for nothing."
        )
        home = [f"({r},{c})" for r, c in KEY_BACK[seat] if board[r * 8 + c] == MEN[seat]]
        if start in KEY_BACK[seat]:
            back_words = f"{action} moves one of my two key back-row guards; I need it elsewhere now."
        elif home:
            back_words = f"My key back-row men on {', '.join(home)} stay home."
        else:
            back_words = "My key back-row squares are already empty, so the king row is open."
        friends = _friends(board, seat, end, start)
        formation = (
            f"the destination ({end[0]},{end[1]}) touches {friends} of my pieces, so it stays supported."
            if friends
            else f"the destination ({end[0]},{end[1]}) stands alone, so I must watch it."
        )
        shots = answers.get(3, [])
        shot_words = (
            f"{format_items(shots)} "
            + ("gives up one piece and wins" if len(shots) == 1 else "give up one piece and win")
            + " two back after the forced capture."
            if shots
            else "No sacrifice here wins two pieces in return."
        )
        captures = captures_exist(board, seat) and not slip
        lines = [
            "1. **Strategic Analysis**",
            f"I am {me}, moving towards row {PROMOTION_ROW[seat]}; {them} moves towards row "
            f"{PROMOTION_ROW[1 - seat]}. "
            + ("A capture is available, so I must capture. " if captures else "")
            + f"I have {len(mine)} pieces, {len(centre)} of them in the centre.",
            f"(a) Center Control: {centre_words}",
            f"(b) Get a King: {king_words}{self._tag(answers, 1)}",
            f"(c) No worthless die: {die_words}{self._tag(answers, 2)}",
            f"(d) Protect Your King Row: {back_words}",
            f"(e) Keep a Strong Formation: {formation[0].upper() + formation[1:]}",
            f"(f) The Two-for-One Shot: {shot_words}{self._tag(answers, 3)}",
            "(g) Attacking Triangles and Triplicates: I keep my groups compact so no middle piece can "
            "be pulled out for a double jump.",
        ]
        return lines

    def _conclusion(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> str:
        if slip:
            return self.slip_words(ctx, action, slip)
        if action in answers.get(3, []):
            return f"{action} sets up a two-for-one shot: after the forced capture I jump two pieces."
        if action in answers.get(1, []):
            return f"{action} crowns a new king, which can then move both ways."
        path = parse_path(action) or ()
        if len(path) > 2:
            return f"{action} is a multi-jump capturing {len(path) - 1} pieces; it is the strongest line."
        if action.count("->") == 1 and captures_exist(_state(ctx).board, ctx.seat):
            return f"The capture {action} is mandatory and the best of my captures."
        return f"{action} is the strongest move: it keeps my formation and risks no piece for nothing."

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
        lines = self._sections(ctx, analysis, action, slip, answers)
        lines += ["", "2. **Conclusion**", self._conclusion(ctx, analysis, action, slip, answers), ""]
        lines.append("3. **Chosen Move**")
        if broken:
            # A format slip names no move on the Chosen Move line (the extractor rightly refuses it).
            vague = rng.choice(["advance on the left flank", "the capture", "my best piece forward"])
            lines.append(f"Chosen Move: {vague}")
        else:
            lines.append(f"Chosen Move: {action}")
        return "\n".join(lines)

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> str:
        """The streamed reasoning trace, written from the same beliefs as the answer."""
        state = _state(ctx)
        seat = ctx.seat
        men, kings = state.count(seat)
        omen, okings = state.count(1 - seat)
        lines = [
            f"I am {SEAT_NAMES[seat]}: {men} men and {kings} kings against {omen} men and {okings} kings.",
            f"{len(state.legal_actions(seat))} legal moves; "
            + (
                "a capture is mandatory."
                if captures_exist(state.board, seat) and not slip
                else "no capture is forced."
            ),
            f"Crowning moves: {format_items(answers.get(1, []))}. Worthless dies: "
            f"{format_items(answers.get(2, []))}. Two-for-one shots: {format_items(answers.get(3, []))}.",
        ]
        ranked = sorted(analysis.values.items(), key=lambda kv: kv[1], reverse=True)
        if len(ranked) > 1:
            lines.append("Search values: " + ", ".join(f"{a} {fmt_value(v)}" for a, v in ranked[:5]))
        lines.append(self._conclusion(ctx, analysis, action, slip, answers) + f" I'll play {action}.")
        return "\n".join(lines)

    def blind(self, prompt: str, rng: random.Random) -> str:
        moves = [m.group(0) for m in MOVE_RE.finditer(prompt)]
        return blind_choice(moves, "(2,1)->(3,2)", rng)

    def reflection(self, ctx: SimContext | None) -> str:
        after = last_position(ctx, CheckersState)
        if ctx is None or after is None:
            return super().reflection(ctx)
        me, them = SEAT_NAMES[ctx.seat], SEAT_NAMES[1 - ctx.seat]
        mine = sum(after.count(ctx.seat))
        theirs = sum(after.count(1 - ctx.seat))
        parts = [recap(ctx, them)]
        parts.append(f"Material: {me} {mine} pieces, {them} {theirs}.")
        if captures_exist(after.board, ctx.seat):
            parts.append("I have a capture now and must take it; choose the jump that lands safely.")
        elif captures_exist(after.board, 1 - ctx.seat):
            parts.append(f"{them} threatens a capture: protect the piece or move it away.")
        else:
            parts.append("No captures pending: build the centre and keep the back row guarded.")
        return " ".join(parts)
