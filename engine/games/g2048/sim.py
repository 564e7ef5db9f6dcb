"""How the simulated model plays 2048: it reads the board like a player does (largest tile, corner,
empty cells), reasons from expectimax's values, sometimes wastes a move because it misreads the board
(it sees two equal tiles that the move would merge, or room to slide, where there is none), and
reflects on merges."""

from __future__ import annotations

from collections import Counter

from engine.core import Action
from engine.games.g2048.rules import State2048, empty_cells
from engine.llm.simstyle import Analysis, SimBehaviour, SimContext, fmt_value, slip_kind


class Sim2048(SimBehaviour):
    """2048's simulated player (answers in the 2048 prompt's ``thought:`` / ``move:`` format)."""

    def situation(self, ctx: SimContext) -> str:
        state = ctx.state
        if not isinstance(state, State2048):
            return super().situation(ctx)
        board = state.board
        top = state.max_tile
        where = next((r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v == top)
        last = len(board) - 1
        corner = where in {(0, 0), (0, last), (last, 0), (last, last)}
        spot = "in a corner" if corner else "away from the corners"
        empty = len(empty_cells(board))
        return f"The largest tile is {top} at ({where[0]},{where[1]}), {spot}; {empty} cells are empty."

    def slip_words(self, ctx: SimContext, action: Action, slip: str) -> str:
        """A wasted move is a misread board: the model believes the move merges a pair it sees."""
        state = ctx.state
        if slip_kind(slip) != "wasted" or not isinstance(state, State2048):
            return super().slip_words(ctx, action, slip)
        tiles = Counter(v for row in state.board for v in row if v)
        value = max(tiles, key=lambda v: (tiles[v], v)) if tiles else 2
        again = " It did not work last time, but the pair is right there." if slip.endswith("again") else ""
        return f"I see two {value}s side by side that {action} should merge, which also frees a cell.{again}"

    def thought(self, ctx: SimContext, analysis: Analysis, action: Action, slip: str) -> str:
        if slip:
            return self.slip_words(ctx, action, slip)
        return super().thought(ctx, analysis, action, slip).rstrip(".") + " and keeps the structure."

    def reflection(self, ctx: SimContext | None) -> str:
        if ctx is None or not ctx.history:
            return super().reflection(ctx)
        last = ctx.history[-1]
        before, after = last.state, last.next_state
        if not (isinstance(before, State2048) and isinstance(after, State2048)):
            return super().reflection(ctx)
        action = ", ".join(str(a) for a in last.actions.values())
        if before.board == after.board:
            return (
                f"'{action}' changed nothing: a wasted turn that counts towards the stagnation limit. "
                "Avoid repeating it; pick a direction that moves or merges tiles."
            )
        gain = after.merged_sum - before.merged_sum
        verdict = "effective" if gain > 0 else "safe but without merges"
        return (
            f"After '{action}', empty cells went from {len(empty_cells(before.board))} to "
            f"{len(empty_cells(after.board))} and the merged sum rose by {fmt_value(gain)}. The move was "
            f"{verdict}. Largest tile: {after.max_tile}. Keep it anchored in its corner, keep the edge row "
            "filled in descending order, and avoid moves that pull it into the middle."
        )
