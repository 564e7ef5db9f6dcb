"""How the simulated model plays Gomoku, in LVLM-Playground's answer format: ``Observation:`` (what it
sees on the board), ``Strategy:`` (its plan) and ``Movement:`` (the intersection, e.g. ``H8``).

Its judgement is the default opponent's: the two-ply pattern search (:mod:`.bots`) scores the
candidate moves. What it *believes* about the urgent cells — where it completes five, where the
opponent completes five, where the opponent would make an open four — comes from the board, and at the
client's error rate (``wrong_ir_rate``) one of those cells is overlooked, the way vision models miss a
stone on a dense 15x15 board. The move follows from the belief: a believed five is played, otherwise
the search's best move among the cells it has not overlooked, so a missed threat stays unblocked and
its words never mention it.

A slip (``illegal_rate``) is an occupied intersection read as empty, next to the move it meant to play
(a row or column misread by one); its observation leaves that stone out. A format slip leaves out the
``Movement:`` line, which LVLM-Playground counts as an invalid move.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from engine.core import Action
from engine.games.gomoku.rules import (
    ACTIONS,
    CELLS,
    DIRECTIONS,
    NAMES,
    SIZE,
    STONES,
    GomokuState,
    five_moves,
    near,
    run_through,
)
from engine.llm.simstyle import (
    Analysis,
    SimBehaviour,
    SimContext,
    labelled_answer,
    last_position,
    misread_board,
    reflect,
    value_lines,
)

#: Belief keys: cells completing five for me, for the opponent, and the opponent's open-four cells.
MY_FIVES, THEIR_FIVES, THEIR_FOURS = 1, 2, 3


def _cells(ctx: SimContext) -> tuple[str, ...]:
    return ctx.state.cells if isinstance(ctx.state, GomokuState) else ("",) * CELLS


def open_four_moves(cells: Sequence[str], stone: str) -> list[Action]:
    """Empty intersections where ``stone`` would make an open four (four in a row, both ends empty)."""
    found = []
    stones = [i for i in range(CELLS) if cells[i] == stone]
    for i in sorted({j for s in stones for j in near(s, 1) if not cells[j]}):
        for dr, dc in DIRECTIONS:
            run = run_through(cells, i, stone, dr, dc)
            if len(run) != 4:
                continue
            ends = []
            for end, step in ((run[0], -1), (run[-1], 1)):
                r, c = divmod(end, SIZE)
                r, c = r + step * dr, c + step * dc
                ends.append(0 <= r < SIZE and 0 <= c < SIZE and not cells[r * SIZE + c])
            if all(ends):
                found.append(ACTIONS[i])
                break
    return found


def longest_run(cells: Sequence[str], stone: str) -> tuple[int, ...]:
    """The cells of ``stone``'s longest unbroken line on the board (first found in reading order)."""
    best: tuple[int, ...] = ()
    for i in range(CELLS):
        if cells[i] != stone:
            continue
        for dr, dc in DIRECTIONS:
            run = run_through(cells, i, stone, dr, dc)
            if len(run) > len(best):
                best = run
    return best


def _span(run: Sequence[int]) -> str:
    return f"{ACTIONS[run[0]]}-{ACTIONS[run[-1]]}" if len(run) > 1 else ACTIONS[run[0]]


class GomokuSim(SimBehaviour):
    """Gomoku's simulated player."""

    # -- beliefs ------------------------------------------------------------------------------------

    def intermediate(self, ctx: SimContext, rng: random.Random, wrong_rate: float) -> dict[int, list[str]]:
        """The urgent cells as the model sees them: each list is the truth, or (at ``wrong_rate``,
        when it has any) the truth with one cell overlooked."""
        cells = _cells(ctx)
        me, them = STONES[ctx.seat], STONES[1 - ctx.seat]
        truths = {
            MY_FIVES: five_moves(cells, me),
            THEIR_FIVES: five_moves(cells, them),
            THEIR_FOURS: open_four_moves(cells, them),
        }
        beliefs: dict[int, list[str]] = {}
        for key, truth in truths.items():
            if truth and rng.random() < wrong_rate:
                lost = rng.choice(truth)
                beliefs[key] = [a for a in truth if a != lost]
            else:
                beliefs[key] = list(truth)
        return beliefs

    def _missed(self, ctx: SimContext, answers: Mapping[int, list[str]]) -> set[str]:
        cells = _cells(ctx)
        me, them = STONES[ctx.seat], STONES[1 - ctx.seat]
        truth = {*five_moves(cells, me), *five_moves(cells, them), *open_four_moves(cells, them)}
        believed = {a for key in (MY_FIVES, THEIR_FIVES, THEIR_FOURS) for a in answers.get(key, [])}
        return truth - believed

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, list[str]]) -> Action:
        """A believed five; otherwise the search's best move among the cells not overlooked."""
        legal = set(ctx.state.legal_actions(ctx.seat))
        wins = [a for a in answers.get(MY_FIVES, []) if a in legal]
        if wins:
            return analysis.best if analysis.best in wins else wins[0]
        missed = self._missed(ctx, answers)
        if analysis.best not in missed:
            return analysis.best
        seen = [a for a in analysis.values if a in legal and a not in missed]
        if not seen:
            seen = [a for a in ACTIONS if a in legal and a not in missed] or [analysis.best]
            return seen[0]
        return max(seen, key=lambda a: (analysis.values[a], -ACTIONS.index(a)))

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """An occupied intersection next to the intended move, read as empty; none on an empty board."""
        cells = _cells(ctx)
        target = ACTIONS.index(analysis.best)
        taken = [ACTIONS[j] for j in near(target, 1) if cells[j]]
        if not taken:
            taken = [ACTIONS[i] for i in range(CELLS) if cells[i]]
        if not taken:
            return analysis.best, ""
        return rng.choice(taken), "illegal"

    # -- words --------------------------------------------------------------------------------------

    def _seen(self, ctx: SimContext, action: Action, slip: str) -> tuple[str, ...]:
        return misread_board(_cells(ctx), ACTIONS, action, slip)

    def _observation(self, ctx: SimContext, seen: Sequence[str], answers: Mapping[int, list[str]]) -> str:
        me, them = STONES[ctx.seat], STONES[1 - ctx.seat]
        my_name, their_name = NAMES[ctx.seat], NAMES[1 - ctx.seat]
        parts = [f"Black has {seen.count('B')} stones and White has {seen.count('W')}."]
        last = getattr(ctx.state, "last_action", None)
        if last and seen[ACTIONS.index(last)]:
            parts.append(f"The last stone was {NAMES[STONES.index(seen[ACTIONS.index(last)])]} at {last}.")
        for stone, name in ((me, my_name), (them, their_name)):
            run = longest_run(seen, stone)
            if len(run) >= 2:
                parts.append(f"{name}'s longest line is {len(run)} in a row at {_span(run)}.")
        if answers.get(THEIR_FIVES):
            parts.append(f"{their_name} threatens five at {', '.join(answers[THEIR_FIVES])}.")
        elif answers.get(THEIR_FOURS):
            fours = ", ".join(answers[THEIR_FOURS])
            parts.append(f"{their_name} has an open three (an open four at {fours}).")
        if not any(seen):
            parts = ["The board is empty."]
        return " ".join(parts)

    def _plan(self, ctx: SimContext, action: Action, slip: str, answers: Mapping[int, list[str]]) -> str:
        cells = _cells(ctx)
        their_name = NAMES[1 - ctx.seat]
        if slip:
            again = " I checked again: it is empty." if slip.endswith("again") else ""
            return f"{action} is an open point that joins my stones.{again}"
        if action in answers.get(MY_FIVES, []):
            return f"I can complete five in a row at {action} and win."
        if action in answers.get(THEIR_FIVES, []):
            return f"{their_name} would make five at {action}, so I must block it there."
        if action in answers.get(THEIR_FOURS, []):
            return f"{their_name}'s open three would become an open four at {action}; I block it."
        if not any(cells):
            return f"Open in the centre at {action}, which leaves the most room in every direction."
        me = STONES[ctx.seat]
        index = ACTIONS.index(action)
        best = max((run_through(cells, index, me, dr, dc) for dr, dc in DIRECTIONS), key=len)
        if len(best) >= 3:
            return f"{action} extends my line to {len(best)} in a row ({_span(best)}) and keeps the lead."
        if len(best) == 2:
            return f"{action} joins my stone next to it and builds toward five near {their_name}'s stones."
        return f"No immediate threats; {action} develops a new point near the fight."

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
        seen = self._seen(ctx, action, slip)
        observation = self._observation(ctx, seen, answers)
        strategy = self._plan(ctx, action, slip, answers)
        if broken:
            # A format slip names no intersection anywhere after a Movement keyword: the move is lost.
            ending = rng.choice([
                "Movement: the open point next to my stones",
                "My move would extend the line, as described above.",
                "Move: the centre",
            ])
            return labelled_answer(observation, strategy, ending=ending)
        return labelled_answer(observation, strategy, action)

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> str:
        """The streamed reasoning trace, written from the same beliefs as the answer."""
        seen = self._seen(ctx, action, slip)
        my_name, their_name = NAMES[ctx.seat], NAMES[1 - ctx.seat]
        missed = self._missed(ctx, answers)
        lines = [
            f"I play {my_name}. Reading the board: {self._observation(ctx, seen, answers)}",
            "Checking each line through the points near the stones for fives and open fours.",
            f"My winning points: {', '.join(answers.get(MY_FIVES, [])) or 'none'}. "
            f"{their_name}'s winning points: {', '.join(answers.get(THEIR_FIVES, [])) or 'none'}.",
        ]
        lines += value_lines(analysis, "Candidate values", missed)
        lines.append(self._plan(ctx, action, slip, answers))
        return "\n".join(lines)

    def blind(self, prompt: str, rng: random.Random) -> str:
        return labelled_answer(
            "I cannot make out the stones clearly.",
            "Take the centre point, which is usually free early on.",
            "H8",
        )

    def reflection(self, ctx: SimContext | None) -> str:
        after = last_position(ctx, GomokuState)
        if ctx is None or after is None:
            return super().reflection(ctx)
        me, them = STONES[ctx.seat], STONES[1 - ctx.seat]
        their_name = NAMES[1 - ctx.seat]
        wins, threats = five_moves(after.cells, me), five_moves(after.cells, them)
        return reflect(
            ctx,
            their_name,
            [
                f"I can make five at {', '.join(wins)}: take it." if wins else "",
                f"{their_name} threatens five at {', '.join(threats)}; block unless I can win first."
                if threats
                else "",
            ],
            quiet="No five is threatened. Watch for open threes and build two lines at once.",
        )
