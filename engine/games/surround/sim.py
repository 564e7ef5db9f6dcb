"""How the simulated model plays Surround, in GameBot's answer format: current position analysis
(question 1), valid actions (2), a strategic analysis with the flood fill of every valid move (3), a
conclusion and the ``Chosen Action`` section.

Its beliefs come first and its words and move follow from them, with the mistakes models make here:

* a misread neighbour (Up and Down swapped because rows were counted the wrong way, its own last
  cell or a wall read as empty, an empty cell read as a wall), after which its valid moves and its
  flood fills are those of the board it believes in: a cell misread as empty may be ridden into;
* a valid move forgotten, or a flood fill miscounted near the threshold of 10 (Safe read as Unsafe
  or the other way round);
* a slip: turning back into its own trail, or into another wall it misread as empty (a crash), or
  a valid move into less space than it could have kept.

Among the moves it believes valid and safe it plays the one the analysis bot rates best (the
``survivor`` bot's reachable cells), so its conclusion always names the move it plays.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from engine.core import Action
from engine.games.surround.board import (
    EMPTY,
    MOVES,
    OPPONENT_CURRENT,
    OPPONENT_LAST,
    OUTSIDE,
    SAFE_CELLS,
    WALL,
    YOUR_CURRENT,
    YOUR_LAST,
    Cell,
    flood_cells,
    flood_count,
    neighbour,
    neighbour_values,
    value_at,
)
from engine.games.surround.questions import (
    format_neighbours,
    misread,
    move_item,
    parse_neighbours,
)
from engine.games.surround.rules import NAMES, SurroundState
from engine.llm.simstyle import Analysis, SimBehaviour, SimContext, slip_kind

__all__ = ["SurroundSim"]

_WORDS = {
    EMPTY: "Empty Space",
    WALL: "Wall",
    YOUR_LAST: "My last position",
    YOUR_CURRENT: "My current position",
    OPPONENT_LAST: "Opponent's last position",
    OPPONENT_CURRENT: "Opponent's current position",
    OUTSIDE: "Outside the grid",
}


#: How many cells more a move must seem to offer before the model overrules its analysis' best move.
_AGREE = 2.5


def _cell(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]})"


def _state(ctx: SimContext) -> SurroundState:
    if not isinstance(ctx.state, SurroundState):
        raise TypeError(f"not a Surround state: {type(ctx.state).__name__}")
    return ctx.state


def _believed_region(matrix: list[list[int]], target: Cell, limit: int | None = None) -> list[Cell]:
    """The empty region a model finds behind ``target``; a cell it misread as empty counts as empty."""
    if value_at(matrix, target) == EMPTY:
        return flood_cells(matrix, target, limit)
    if value_at(matrix, target) == OUTSIDE:
        return []
    seen = [row[:] for row in matrix]
    seen[target[0]][target[1]] = EMPTY
    return flood_cells(seen, target, limit)


class SurroundSim(SimBehaviour):
    """Surround's simulated player."""

    # -- beliefs ------------------------------------------------------------------------------------

    def intermediate(self, ctx: SimContext, rng: random.Random, wrong_rate: float) -> dict[int, object]:
        """Neighbour values (misread at ``wrong_rate``), the valid moves they imply (one forgotten at
        half that rate), and a Safe/Unsafe verdict per believed valid move from a flood fill of the
        board as believed (the verdict nearest the threshold flipped at ``wrong_rate``)."""
        state = _state(ctx)
        matrix = state.matrix(ctx.seat)
        head = state.head(ctx.seat)
        truth = neighbour_values(matrix, head)
        values = misread(truth, rng) if rng.random() < wrong_rate else dict(truth)
        valid = [m for m in MOVES if values[m] == EMPTY]
        if len(valid) > 1 and rng.random() < wrong_rate / 2:
            valid.remove(rng.choice(valid))
        counts = {m: len(_believed_region(matrix, neighbour(head, m))) for m in valid}
        safe = {m: counts[m] >= SAFE_CELLS for m in valid}
        if valid and rng.random() < wrong_rate:
            closest = min(valid, key=lambda m: (abs(counts[m] - SAFE_CELLS), MOVES.index(m)))
            safe[closest] = not safe[closest]
        return {
            1: format_neighbours(values),
            2: [move_item(m) for m in valid],
            3: [move_item(m, "Safe" if safe[m] else "Unsafe") for m in valid],
        }

    @staticmethod
    def _beliefs(answers: Mapping[int, object]) -> tuple[dict[str, int], list[str], dict[str, bool]]:
        """The neighbour values, valid moves and safety the answers state."""
        read = parse_neighbours(str(answers.get(1, ""))) or ""
        values = {}
        for part in read.split(", "):
            if " " in part:
                move, value = part.split(" ")
                values[move] = int(value)
        items = answers.get(2, [])
        valid = [m for m in MOVES if move_item(m) in (items if isinstance(items, Sequence) else [])]
        verdicts = answers.get(3, [])
        verdicts = verdicts if isinstance(verdicts, Sequence) else []
        safe = {m: move_item(m, "Safe") in verdicts for m in valid}
        return values, valid, safe

    def _believed_values(self, ctx: SimContext, analysis: Analysis, moves: Sequence[str]) -> dict[str, float]:
        """How good the model thinks each move is: the analysis' value where the cell is really free,
        the size of the region it believes in where it misread a wall as empty."""
        state = _state(ctx)
        matrix = state.matrix(ctx.seat)
        head = state.head(ctx.seat)
        out = {}
        for m in moves:
            target = neighbour(head, m)
            if value_at(matrix, target) == EMPTY:
                out[m] = analysis.values.get(m, float(flood_count(matrix, target)))
            else:
                out[m] = float(len(_believed_region(matrix, target)))
        return out

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, object]) -> Action:
        """The best-rated move among those it believes valid and safe (else valid); the analysis'
        best when it believes no move is valid."""
        _, valid, safe = self._beliefs(answers)
        pool = [m for m in valid if safe.get(m)] or valid
        if not pool:
            return analysis.best if analysis.best in MOVES else ctx.state.legal_actions(ctx.seat)[0]
        rated = self._believed_values(ctx, analysis, pool)
        # It goes along with its analysis unless what it believes shows clearly more room elsewhere.
        return max(
            pool, key=lambda m: (rated[m] + (_AGREE if m == analysis.best else 0.0), m == analysis.best)
        )

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """Usually a valid move into less space than the best ("wasted"); otherwise, or when there
        is none, a turn into a non-empty cell misread as empty, most often its own last cell (a crash)."""
        state = _state(ctx)
        matrix = state.matrix(ctx.seat)
        head = state.head(ctx.seat)
        values = neighbour_values(matrix, head)
        blocked = [m for m in MOVES if values[m] not in (EMPTY, OUTSIDE)]
        worse = [m for m in MOVES if values[m] == EMPTY and m != analysis.best]
        if worse and (not blocked or rng.random() < 0.7):
            return rng.choice(worse), "wasted"
        if blocked:
            own = [m for m in blocked if values[m] == YOUR_LAST]
            return rng.choice(own if own and rng.random() < 0.6 else blocked), "crash"
        return analysis.best, ""

    # -- words --------------------------------------------------------------------------------------

    def _seen_values(
        self, ctx: SimContext, action: Action, slip: str, answers: Mapping[int, object]
    ) -> dict[str, int]:
        """The neighbour values as the model read them (a crash slip reads its target as empty)."""
        values, _, _ = self._beliefs(answers)
        if not values:
            state = _state(ctx)
            values = neighbour_values(state.matrix(ctx.seat), state.head(ctx.seat))
        if slip_kind(slip) == "crash" and action in values:
            values = {**values, action: EMPTY}
        return values

    def _position_lines(self, ctx: SimContext, values: Mapping[str, int]) -> list[str]:
        state = _state(ctx)
        head = state.head(ctx.seat)
        parts = [
            f"[{m.capitalize()}] {_cell(neighbour(head, m))}: {values[m]} ({_WORDS.get(values[m], 'Wall')})"
            for m in MOVES
        ]
        return [f"[Current Position]: {_cell(head)}. " + "; ".join(parts) + "."]

    def _flood_lines(self, ctx: SimContext, valid: Sequence[str], safe: Mapping[str, bool]) -> list[str]:
        """One paragraph per believed valid move: where it leads and the empty cells found there."""
        state = _state(ctx)
        matrix = state.matrix(ctx.seat)
        head = state.head(ctx.seat)
        lines = []
        for m in valid:
            target = neighbour(head, m)
            region = _believed_region(matrix, target, SAFE_CELLS)
            name = move_item(m)
            if safe.get(m):
                found = ", ".join(_cell(c) for c in region[:SAFE_CELLS])
                lines.append(
                    f"For {name}, the position would become {_cell(target)}. Found empty: [{found}], "
                    f"at least {SAFE_CELLS} cells, so {name} is Safe."
                )
            else:
                shown = region[: SAFE_CELLS - 1] if len(region) >= SAFE_CELLS else region
                found = ", ".join(_cell(c) for c in shown)
                lines.append(
                    f"For {name}, the position would become {_cell(target)}. Union of the found empty: "
                    f"[{found}], total {len(shown)} cells, less than {SAFE_CELLS}. So {name} is Unsafe."
                )
        return lines

    def _opponent_line(self, ctx: SimContext, action: Action) -> str:
        state = _state(ctx)
        me, them = state.head(ctx.seat), state.head(1 - ctx.seat)
        other = NAMES[1 - ctx.seat]
        rows, cols = them[0] - me[0], them[1] - me[1]
        where = []
        if rows:
            where.append(f"{abs(rows)} rows {'below' if rows > 0 else 'above'}")
        if cols:
            where.append(f"{abs(cols)} columns to the {'right' if cols > 0 else 'left'}")
        gap = " and ".join(where) or "right next to me"
        return (
            f"Trapping the opponent: {other} is at {_cell(them)}, {gap}, moving "
            f"{state.heading(1 - ctx.seat).capitalize()}. I keep my space and cut into theirs where I can."
        )

    def _plan(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, object]
    ) -> str:
        name = move_item(action)
        if slip_kind(slip) == "crash":
            again = " I checked again." if slip.endswith("again") else ""
            return f"{name} leads into empty space and keeps my options open.{again}"
        if slip_kind(slip) == "wasted":
            return f"{name} looks like the more open side to me."
        _, valid, safe = self._beliefs(answers)
        if not valid:
            return f"No neighbour is empty; every move crashes. {name} is all that is left."
        rated = self._believed_values(ctx, analysis, [action]).get(action, 0.0)
        if safe.get(action):
            return f"{name} is safe and keeps the most room (about {max(0, int(rated))} cells reachable)."
        return f"No valid move is safe; {name} keeps the most room I can find."

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, object]
    ) -> str:
        state = _state(ctx)
        values = self._seen_values(ctx, action, slip, answers)
        _, valid, safe = self._beliefs(answers)
        if slip_kind(slip) == "crash" and action not in valid:
            valid, safe = [*valid, action], {**safe, action: True}
        lines = [
            f"I am {NAMES[ctx.seat]} at {_cell(state.head(ctx.seat))}, moving "
            f"{state.heading(ctx.seat).capitalize()}. Opponent at {_cell(state.head(1 - ctx.seat))}.",
            "Neighbours: " + format_neighbours(values) + ".",
            "Valid moves: " + (", ".join(move_item(m) for m in valid) or "none") + ".",
        ]
        for m in valid:
            lines.append(f"Flood fill for {move_item(m)}: {'safe' if safe.get(m) else 'unsafe'}.")
        lines.append(self._plan(ctx, analysis, action, slip, answers))
        lines.append(f"I'll go with {move_item(action)}.")
        return "\n".join(lines)

    def answer(
        self,
        ctx: SimContext,
        analysis: Analysis,
        action: Action,
        slip: str,
        broken: bool,
        answers: Mapping[int, object],
        rng: random.Random,
    ) -> str:
        plan = self._plan(ctx, analysis, action, slip, answers)
        final = move_item(action)
        if broken:
            final = rng.choice(
                ["towards the open side", "away from the opponent", "stay alive", "the safe path"]
            )
        if self.asked is not None and not self.asked:
            # The naive and none prompts ask no intermediate results: a short answer.
            return "\n".join([f"Conclusion: {plan}", f"Chosen Action: {final}"])
        values = self._seen_values(ctx, action, slip, answers)
        _, valid, safe = self._beliefs(answers)
        flood_valid, flood_safe = valid, safe
        if slip_kind(slip) == "crash" and action not in valid:
            flood_valid, flood_safe = [*valid, action], {**safe, action: True}
        return "\n".join(
            [
                "1. **Current Position Analysis**",
                *self._position_lines(ctx, values),
                *self.tags({1: answers[1]} if 1 in answers else {}),
                "2. **Valid Actions**",
                *self.tags({2: answers[2]} if 2 in answers else {}),
                "3. **Strategic Analysis**",
                *self._flood_lines(ctx, flood_valid, flood_safe),
                *self.tags({3: answers[3]} if 3 in answers else {}),
                self._opponent_line(ctx, action),
                "4. **Conclusion**",
                f"Conclusion: {plan}",
                "5. **Chosen Action**",
                final,
            ]
        )

    def blind(self, prompt: str, rng: random.Random) -> str:
        return f"I cannot read the board clearly.\nChosen Action: {move_item(rng.choice(MOVES))}"

    def reflection(self, ctx: SimContext | None) -> str:
        if ctx is None or not ctx.history:
            return super().reflection(ctx)
        after = ctx.history[-1].next_state
        if not isinstance(after, SurroundState) or after.is_over:
            return super().reflection(ctx)
        seat = ctx.seat
        matrix = after.matrix(seat)
        head = after.head(seat)
        room = max((flood_count(matrix, neighbour(head, m)) for m in MOVES), default=0)
        other = NAMES[1 - seat]
        tight = (
            "Space is getting tight: look for the largest region."
            if room < SAFE_CELLS * 3
            else ("Plenty of room; cut towards the opponent to take space from them.")
        )
        return (
            f"I moved {after.heading(seat).capitalize()} to {_cell(head)}; {other} moved "
            f"{after.heading(1 - seat).capitalize()} to {_cell(after.head(1 - seat))}. "
            f"The largest region next to me holds {room} cells. {tight}"
        )
