"""How the simulated model plays Candy Crush: it reads the board like a player does (moves left, the
swaps it can see), picks the swap the greedy bot values most, names the line it makes and the cascade
it expects from the fall, and sometimes misreads the board: it sees three of a kind where a swap only
brings two together (a swap that makes no line, which the game refuses, or with ``wasted_swaps``
plays as a wasted move). Its reflection says what the last swap cleared and whether a cascade
followed."""

from __future__ import annotations

import random
from collections.abc import Mapping

from engine.core import Action
from engine.games.candycrush.board import (
    COLOUR_NAMES,
    COLS,
    ROWS,
    SWAP_NAMES,
    SWAPS,
    effective_indices,
    swap_board,
)
from engine.games.candycrush.bots import sure_clears
from engine.games.candycrush.rules import CandyState, read_swap
from engine.llm.simstyle import Analysis, SimBehaviour, SimContext, last_position, position, slip_kind

__all__ = ["SimCandyCrush", "near_misses"]


def _pairs_next_to(board: str, r: int, c: int, colour: str, other: tuple[int, int]) -> int:
    """How many candies of ``colour`` touch (``r``, ``c``), not counting the cell ``other``."""
    count = 0
    for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < ROWS and 0 <= cc < COLS and (rr, cc) != other and board[rr * COLS + cc] == colour:
            count += 1
    return count


def near_misses(state: CandyState) -> list[Action]:
    """Swaps that make no line but bring a candy next to one of its colour: the swaps a model that
    misreads the board by one cell believes in."""
    lines = {SWAP_NAMES[i] for i in effective_indices(state.board)}
    found = []
    for (a, b), name in zip(SWAPS, SWAP_NAMES, strict=True):
        if name in lines or state.cell(*a) == state.cell(*b):
            continue
        swapped = swap_board(state.board, (a, b))
        if any(_pairs_next_to(swapped, *cell, swapped[cell[0] * COLS + cell[1]], other) for cell, other in
               ((a, b), (b, a))):  # fmt: skip
            found.append(name)
    return found


class SimCandyCrush(SimBehaviour):
    """Candy Crush's simulated player (answers in the prompt's ``thought:`` / ``move:`` format)."""

    def situation(self, ctx: SimContext) -> str:
        state = position(ctx, CandyState)
        if state is None:
            return super().situation(ctx)
        return (
            f"{state.moves_left} of {state.max_moves} moves left and {state.score} candies cleared; "
            f"I can see {len(effective_indices(state.board))} swaps that make a line."
        )

    def expectation(self, state: CandyState, action: Action) -> str:
        """What the model expects of a legal swap: its line, and the cascade the fall should bring."""
        first, cascade = sure_clears(state.board, action)
        colours, _ = state.first_wave(read_swap(action))
        names = " and ".join(COLOUR_NAMES[c] for c in colours) or "matching"
        words = f"{action} lines up {names} candies and clears {first}"
        if cascade:
            return f"{words}; the candies falling into the gap then line up {cascade} more, a cascade"
        return f"{words}; no cascade is certain, but new candies may bring one"

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """A misread board: a swap that brings two of a kind together, taken for three."""
        state = position(ctx, CandyState)
        if state is None:
            return super().slip(ctx, analysis, rng)
        misses = near_misses(state)
        if not misses:
            return super().slip(ctx, analysis, rng)
        return rng.choice(misses), "illegal"

    def slip_words(self, ctx: SimContext, action: Action, slip: str) -> str:
        state = position(ctx, CandyState)
        if slip_kind(slip) != "illegal" or state is None:
            return super().slip_words(ctx, action, slip)
        try:
            a, b = read_swap(action)
        except Exception:
            return super().slip_words(ctx, action, slip)
        colour = COLOUR_NAMES.get(state.cell(*b), "matching")
        again = " It was refused last time, but the line is right there." if slip.endswith("again") else ""
        return (
            f"Moving the {colour} candy from ({b[0]},{b[1]}) to ({a[0]},{a[1]}) puts it beside the other "
            f"{colour} candies there: three in a row.{again}"
        )

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> str:
        state = position(ctx, CandyState)
        if state is None:
            return super().reasoning(ctx, analysis, action, slip, answers)
        lines = [self.situation(ctx), "The swaps I see:"]
        ranked = sorted(analysis.values, key=lambda a: analysis.values[a], reverse=True)
        lines_up = {SWAP_NAMES[i] for i in effective_indices(state.board)}
        for candidate in [a for a in ranked if a in lines_up][:5]:
            lines.append(f"- {self.expectation(state, candidate)}")
        if slip:
            lines.append(f"{self.slip_words(ctx, action, slip)} I'll go with {action}.")
        else:
            lines.append(f"{action} clears the most that I can be sure of. I'll go with {action}.")
        return "\n".join(lines)

    def thought(self, ctx: SimContext, analysis: Analysis, action: Action, slip: str) -> str:
        state = position(ctx, CandyState)
        if slip or state is None:
            return super().thought(ctx, analysis, action, slip)
        return f"{self.situation(ctx)} {self.expectation(state, action)}."

    def reflection(self, ctx: SimContext | None) -> str:
        after = last_position(ctx, CandyState)
        if ctx is None or after is None:
            return super().reflection(ctx)
        if after.last is None:
            return "No swap has been played yet; look for the swap that clears the most."
        if not after.waves:
            return (
                f"{after.last} made no line and used a move for nothing; {after.moves_left} moves left. "
                "Only play a swap that lines up three of a kind."
            )
        first, *cascade = after.waves
        action = after.last or "the last swap"
        words = f"{action} cleared {first} candies"
        if cascade:
            words += f" and set off a cascade of {sum(cascade)} more ({len(cascade)} wave(s))"
        advice = (
            "Swaps near the bottom move more candies, so they set off cascades more often."
            if not cascade
            else "Keep looking for swaps whose fall lines up more candies."
        )
        shuffled = " No swap was left, so the board was reshuffled." if after.shuffled else ""
        return f"{words}; {after.moves_left} moves left.{shuffled} {advice}"
