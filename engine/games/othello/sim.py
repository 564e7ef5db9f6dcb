"""How the simulated model plays Othello, in GameBot's answer format: a strategic analysis of every
factor the prompt names (corners, edges, stability, frontier, wedges, mobility) with the two
intermediate results inline, a conclusion and ``Chosen Move: (X,N)``.

Its mistakes are the ones GameBot reports for real models, and its words follow from them:

* a wrong corner answer either misses a corner it could take (it then never considers that corner)
  or believes one is reachable when none is;
* a wrong wedge answer misses a real wedge (never played) or lists a phantom: an edge move beside a
  single opposing disc, or an empty edge square between opposing discs that flips nothing;
* a slip plays an empty square next to an opposing disc that outflanks nothing (the commonest
  illegal Reversi move in LVLM-Playground's rule-following task), or an occupied square.

Without a slip the analysis names the move played, and the move is legal.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any

from engine.core import Action
from engine.games.othello.bots import features, flip_count
from engine.games.othello.rules import (
    ACTIONS,
    CORNERS,
    EDGE_MASK,
    PASS,
    SEAT_NAMES,
    SYMBOLS,
    OthelloState,
    bits_of,
    parse_cell,
    wedge_moves,
)
from engine.llm.simstyle import (
    Analysis,
    SimBehaviour,
    SimContext,
    blind_choice,
    last_position,
    recap,
    value_lines,
)
from engine.questions import format_items

_CORNER_ACTIONS = tuple(ACTIONS[i] for i in CORNERS)
_LEGAL_LINE = re.compile(r"(?:legal|valid)\s+moves?[^\n]*", re.IGNORECASE)
_CELL = re.compile(r"\([A-H],[1-8]\)")


def _board(ctx: SimContext) -> OthelloState:
    state = ctx.state
    if not isinstance(state, OthelloState):
        raise TypeError(f"not an Othello state: {type(state).__name__}")
    return state


def _is_corner(action: Action) -> bool:
    return action in _CORNER_ACTIONS


def _is_edge(action: Action) -> bool:
    index = parse_cell(action) if action != PASS else None
    return index is not None and bool(EDGE_MASK >> index & 1)


class OthelloSim(SimBehaviour):
    """Othello's simulated player."""

    # -- beliefs ------------------------------------------------------------------------------------

    def choose(self, ctx: SimContext, analysis: Analysis, answers: Mapping[int, Any]) -> Action:
        """A corner it believes it can take, else a wedge it believes in, else the best move among
        those it sees (a corner or wedge it missed stays missed)."""
        state = _board(ctx)
        legal = state.legal_actions(ctx.seat)
        if legal == [PASS] or not legal:
            return legal[0] if legal else analysis.best
        values = analysis.values

        def preference(a: Action) -> tuple[float, bool]:
            return (values.get(a, float("-inf")), a == analysis.best)

        corners = [a for a in legal if _is_corner(a)]
        believed_wedges = [a for a in answers.get(2, []) or [] if a in legal]
        if answers.get(1) and corners:
            return max(corners, key=preference)
        if believed_wedges:
            return str(max(believed_wedges, key=preference))
        true_wedges = wedge_moves(state.discs(ctx.seat), state.discs(1 - ctx.seat), state.wedge)
        missed_wedges = [w for w in true_wedges if w not in believed_wedges]
        unseen = {*(corners if not answers.get(1) else []), *missed_wedges}
        candidates = [a for a in legal if a not in unseen] or legal
        return max(candidates, key=preference)

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        """An empty square beside an opposing disc that outflanks nothing, else an occupied square."""
        state = _board(ctx)
        own, opp = state.discs(ctx.seat), state.discs(1 - ctx.seat)
        legal = state.moves_mask(ctx.seat)
        empty = ~(own | opp) & ((1 << 64) - 1)
        near = []
        for index in bits_of(empty & ~legal):
            row, col = divmod(index, 8)
            around = [
                (r, c)
                for r in (row - 1, row, row + 1)
                for c in (col - 1, col, col + 1)
                if (r, c) != (row, col) and 0 <= r < 8 and 0 <= c < 8
            ]
            if any(opp >> (r * 8 + c) & 1 for r, c in around):
                near.append(ACTIONS[index])
        if near:
            return rng.choice(near), "illegal"
        taken = [ACTIONS[i] for i in bits_of(own | opp)]
        return (rng.choice(taken), "illegal") if taken else (analysis.best, "")

    # -- words --------------------------------------------------------------------------------------

    def _tag(self, key: int, answers: Mapping[int, Any]) -> str:
        if key not in answers or (self.asked is not None and key not in self.asked):
            return ""
        return " " + self.tags({key: answers[key]})[0]

    def _sections(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, Any]
    ) -> list[str]:
        state = _board(ctx)
        seat = ctx.seat
        me, them = SEAT_NAMES[seat], SEAT_NAMES[1 - seat]
        legal = state.legal_actions(seat)
        corners = [a for a in legal if _is_corner(a)]
        believes_corner = bool(answers.get(1))
        if believes_corner and corners:
            corner = (f"I can take the corner {format_items(corners)} directly; a corner disc can never "
                      "be flipped.")
        elif believes_corner:
            empty = [a for a in _CORNER_ACTIONS if not state.at(a)]
            corner = f"A corner ({empty[0] if empty else '(A,1)'}) looks within reach along a diagonal."
        else:
            corner = "None of my legal moves reaches a corner (A,1), (H,1), (A,8) or (H,8)."
        risky = [a for a in legal if a in _near_empty_corner(state) and a != action]
        if risky:
            sits = "it sits" if len(risky) == 1 else "they sit"
            corner += (f" I avoid {format_items(risky)}: {sits} next to an empty corner and would hand "
                       "it over.")
        edges = [a for a in legal if _is_edge(a)]
        edge = f"Edge moves available: {format_items(edges)}." if edges else "I have no edge move right now."
        believed = list(answers.get(2, []) or [])
        if believed:
            wedge = f"{format_items(believed)} would sit between {them} discs on an edge, creating a wedge."
        else:
            wedge = f"No legal move lands in an odd gap between two {them} edge discs."
        if slip:
            frontier = f"{action} looks like it outflanks the {them} disc beside it."
            stability = "Placing next to the opponent's discs there should turn them."
            mobility = f"I have {len(legal)} legal move(s); {action} should keep {them}'s options low."
        else:
            after = state.apply(action)
            now, then = features(state, seat), features(after, seat)
            stability = (
                f"After {action} I hold {then['corners']} corner(s) and {then['edges']} safe edge disc(s); "
                f"{them} holds {then['opp_corners']} corner(s)."
            )
            frontier = (f"{action} flips {flip_count(state, action)} disc(s); my frontier goes from "
                        f"{now['frontier']} to {then['frontier']} disc(s) next to empty squares.")
            mobility = (f"I have {len(legal)} legal move(s); after {action} {them} would have "
                        f"{then['opp_mobility']} and I would have {then['mobility']}.")
        return [
            "1. **Strategic Analysis**",
            f"I am {me} ({SYMBOLS[seat]}). {state.status_text()} Legal moves: {format_items(legal)}.",
            f"(a) Corner Control: {corner}{self._tag(1, answers)}",
            f"(b) Edge Control: {edge}",
            f"(c) Piece Stability: {stability}",
            f"(d) Frontier: {frontier}",
            f"(e) Wedges: {wedge}{self._tag(2, answers)}",
            f"(f) Mobility: {mobility}",
        ]

    def _reason(self, ctx: SimContext, action: Action, slip: str, answers: Mapping[int, Any]) -> str:
        state = _board(ctx)
        them = SEAT_NAMES[1 - ctx.seat]
        if slip:
            again = " I checked again: it is a valid square." if slip.endswith("again") else ""
            return f"{action} outflanks the {them} discs next to it and keeps my position compact.{again}"
        if _is_corner(action):
            return f"{action} takes a corner, which can never be flipped back."
        if action in (answers.get(2) or []):
            return f"{action} drives a wedge between {them}'s edge discs and anchors my way to a corner."
        after = state.apply(action)
        replies = len(after.moves_of(1 - ctx.seat))
        where = "on the edge" if _is_edge(action) else "in the interior"
        return (f"{action} plays {where}, avoids the squares next to empty corners and leaves {them} only "
                f"{replies} move(s).")

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
        if state.legal_actions(ctx.seat) == [PASS]:
            return "\n".join([
                "1. **Strategic Analysis**",
                f"I am {SEAT_NAMES[ctx.seat]}. No square outflanks a {SEAT_NAMES[1 - ctx.seat]} disc, "
                "so I have no legal move." + self._tag(1, answers) + self._tag(2, answers),
                "2. **Conclusion**",
                "I must pass and let my opponent move again.",
                "3. **Chosen Move**",
                "Chosen Move: pass",
            ])
        lines = self._sections(ctx, analysis, action, slip, answers)
        move_line = f"Chosen Move: {action}"
        if broken:
            move_line = "Chosen Move: " + rng.choice(
                ["the corner-side square", "the edge move", "the move flipping most", "top left area"]
            )
        return "\n".join([
            *lines,
            "Note: taking many discs early is not always best; position matters more than count.",
            "2. **Conclusion**",
            self._reason(ctx, action, slip, answers),
            "3. **Chosen Move**",
            move_line,
        ])

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, Any]
    ) -> str:
        """The streamed thinking, written from the same beliefs as the answer."""
        state = _board(ctx)
        seat = ctx.seat
        legal = state.legal_actions(seat)
        lines = [
            f"I am {SEAT_NAMES[seat]} ({SYMBOLS[seat]}). {state.status_text()}",
            f"My legal moves: {format_items(legal)}.",
        ]
        if legal == [PASS]:
            lines.append("Nothing outflanks anything: I have to pass.")
            return "\n".join(lines)
        corners = [a for a in legal if _is_corner(a)]
        seen_corners = corners if answers.get(1) else []
        lines.append(f"Corners I can take: {format_items(seen_corners)}. "
                     f"Wedges: {format_items(answers.get(2) or [])}.")
        true_wedges = wedge_moves(state.discs(seat), state.discs(1 - seat), state.wedge)
        missed = {*(c for c in corners if c not in seen_corners),
                  *(w for w in true_wedges if w not in (answers.get(2) or []))}
        lines += value_lines(analysis, "Weighing corners, edges, frontier and mobility", missed)
        lines.append(self._reason(ctx, action, slip, answers))
        return "\n".join(lines)

    def blind(self, prompt: str, rng: random.Random) -> str:
        listed = _LEGAL_LINE.findall(prompt)
        cells = _CELL.findall(listed[-1]) if listed else []
        return blind_choice(cells, "(D,3)", rng)

    def reflection(self, ctx: SimContext | None) -> str:
        after = last_position(ctx, OthelloState)
        if ctx is None or after is None:
            return super().reflection(ctx)
        seat = ctx.seat
        them = SEAT_NAMES[1 - seat]
        f = features(after, seat)
        threats = [a for a in after.moves_of(1 - seat) if _is_corner(a)]
        mine = [a for a in after.moves_of(seat) if _is_corner(a)]
        parts = [recap(ctx, them), after.status_text()]
        parts.append(f"I hold {f['corners']} corner(s), {them} holds {f['opp_corners']}.")
        if mine:
            parts.append(f"I can take {format_items(mine)} now: do it.")
        if threats:
            parts.append(f"{them} could take {format_items(threats)}; do not give more corner access.")
        parts.append(f"Mobility: {f['mobility']} move(s) for me, {f['opp_mobility']} for {them}; keep my "
                     "frontier small.")
        return " ".join(parts)


def _near_empty_corner(state: OthelloState) -> set[Action]:
    """The X- and C-squares of the corners that are still empty."""
    out: set[Action] = set()
    for corner in CORNERS:
        if state.at(ACTIONS[corner]):
            continue
        row, col = divmod(corner, 8)
        for r in (row - 1, row, row + 1):
            for c in (col - 1, col, col + 1):
                if (r, c) != (row, col) and 0 <= r < 8 and 0 <= c < 8:
                    out.add(ACTIONS[r * 8 + c])
    return out
