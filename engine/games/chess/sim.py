"""How the simulated model plays chess, in LVLM-Playground's answer format: ``Observation:``,
``Strategy:`` and ``Movement: <SAN>``.

Its judgement is the built-in search's (``Chess.sim_bot = "search"``): the move it plays is the
search's best, and its strategy line says why in a player's words (a capture and what it wins, a
check, castling, a developing move, a central pawn) with the search's value. Its observation is
what a person sees on the board: the material on each side, the last move, a check.

Its mistakes are the ones the paper reports for vision models in chess (most of their moves are
invalid, Table 5): a slip plays a move that is not legal while believing it is. It prefers a move the
rules forbid because of a check or a pin (a king stepping into an attack, a pinned piece moving: the
model did not see the attacker), else a piece sent to a square it cannot reach (misreading where the
piece stands). The observation and strategy are written from that misreading.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

import chess

from engine.core import Action
from engine.games.chess.rules import CAPTURE_VALUES, PIECE_NAMES, SEAT_NAMES, ChessState, strip_san
from engine.llm.simstyle import (
    Analysis,
    SimBehaviour,
    SimContext,
    labelled_answer,
    position,
    slip_kind,
)

__all__ = ["ChessSim", "illegal_moves"]

_CENTRE = {chess.D4, chess.E4, chess.D5, chess.E5}


def _state(ctx: SimContext | None) -> ChessState | None:
    return position(ctx, ChessState)


def illegal_moves(state: ChessState) -> list[str]:
    """SAN-looking moves the mover cannot play: pseudo-legal moves that leave the king in check
    first, else pieces sent to squares they do not reach (never a legal move's text)."""
    board = state.board
    legal = {strip_san(a) for a in state.legal_actions()}
    found: list[str] = []
    for move in board.generate_pseudo_legal_moves():
        if board.is_legal(move) or board.is_castling(move):
            continue
        kind = board.piece_type_at(move.from_square)
        if kind is None:
            continue
        letter = "" if kind == chess.PAWN else chess.piece_symbol(kind).upper()
        capture = "x" if board.is_capture(move) else ""
        if kind == chess.PAWN and capture:
            letter = chess.FILE_NAMES[chess.square_file(move.from_square)]
        text = f"{letter}{capture}{chess.square_name(move.to_square)}"
        if text not in legal and text not in found:
            found.append(text)
    if found:
        return found
    for sq, piece in board.piece_map().items():
        if piece.color != board.turn or piece.piece_type in (chess.PAWN, chess.KING):
            continue
        letter = piece.symbol().upper()
        for target in chess.SQUARES:
            text = f"{letter}{chess.square_name(target)}"
            occupant = board.piece_at(target)
            if (
                target != sq
                and text not in legal
                and occupant is None
                and chess.square_distance(sq, target) <= 2
                and text not in found
            ):
                found.append(text)
    return found


class ChessSim(SimBehaviour):
    """Chess's simulated player (LVLM-Playground's three-line answers)."""

    def slip(self, ctx: SimContext, analysis: Analysis, rng: random.Random) -> tuple[Action, str]:
        state = _state(ctx)
        if state is None:
            return analysis.best, ""
        candidates = illegal_moves(state)
        if not candidates:
            return analysis.best, ""
        return rng.choice(candidates[:12]), "illegal"

    # -- words ------------------------------------------------------------------------------------

    def observation(self, ctx: SimContext) -> str:
        state = _state(ctx)
        if state is None:
            return self.situation(ctx)
        me = SEAT_NAMES[ctx.seat]
        mine = state.material(chess.WHITE if ctx.seat == 0 else chess.BLACK)
        theirs = state.material(chess.BLACK if ctx.seat == 0 else chess.WHITE)
        balance = (
            "level material"
            if mine == theirs
            else (f"I am {abs(mine - theirs)} point(s) {'up' if mine > theirs else 'down'}")
        )
        parts = [f"I am {me}, move {state.board.fullmove_number}; {balance} ({mine} against {theirs})."]
        if state.last_san:
            parts.append(f"{SEAT_NAMES[1 - ctx.seat]} just played {state.last_san}.")
        if state.board.is_check():
            parts.append("My king is in check.")
        return " ".join(parts)

    def why(self, state: ChessState, action: Action) -> str:
        """A player's reason for the legal ``action``."""
        move = state.legal().get(action)
        if move is None:
            return f"{action} improves my position"
        board = state.board
        piece = board.piece_type_at(move.from_square) or chess.PAWN
        name = PIECE_NAMES[piece]
        if action.endswith("#"):
            return f"{action} is checkmate"
        if board.is_castling(move):
            return "castling tucks my king away and brings a rook towards the centre"
        if board.is_capture(move):
            victim = (
                chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square) or chess.PAWN
            )
            gain = CAPTURE_VALUES[victim]
            return (
                f"my {name} takes the {PIECE_NAMES[victim]} on {chess.square_name(move.to_square)} (+{gain})"
            )
        if move.promotion:
            return f"the pawn promotes to a {PIECE_NAMES[move.promotion]}"
        if action.endswith("+"):
            return f"my {name} gives check and keeps the initiative"
        rank = chess.square_rank(move.from_square)
        home = 0 if board.turn == chess.WHITE else 7
        if piece in (chess.KNIGHT, chess.BISHOP) and rank == home:
            return f"developing my {name} to {chess.square_name(move.to_square)}"
        if piece == chess.PAWN and move.to_square in _CENTRE:
            return f"the pawn takes space in the centre on {chess.square_name(move.to_square)}"
        return f"my {name} goes to a better square, {chess.square_name(move.to_square)}"

    def strategy(self, ctx: SimContext, analysis: Analysis, action: Action, slip: str) -> str:
        state = _state(ctx)
        if state is None:
            return f"{action} looks best."
        if slip:
            again = " I checked the board again." if slip.endswith("again") else ""
            return f"{action} puts my piece on an active square and nothing stops it.{again}"
        value = analysis.values.get(action)
        outlook = ""
        if value is not None:
            outlook = f" (search value {value / 100:+.2f})" if abs(value) < 50_000 else " (a forced mate)"
        return f"{self.why(state, action)[:1].upper()}{self.why(state, action)[1:]}{outlook}."

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
        move = action
        if broken:
            move = rng.choice(["the knight", "castle", "push the pawn", "queen to the side"])
        return labelled_answer(self.observation(ctx), self.strategy(ctx, analysis, action, slip), move)

    def reasoning(
        self, ctx: SimContext, analysis: Analysis, action: Action, slip: str, answers: Mapping[int, list[str]]
    ) -> str:
        state = _state(ctx)
        lines = [self.observation(ctx)]
        ranked = sorted(analysis.values.items(), key=lambda kv: kv[1], reverse=True)
        if state is not None and len(ranked) > 1:
            lines.append("Candidate moves:")
            for a, v in ranked[:5]:
                lines.append(f"- {a}: {self.why(state, a)} ({v / 100:+.2f})")
        if slip_kind(slip) == "illegal":
            lines.append(f"{action} looks available to me and suits the plan. I'll play {action}.")
        else:
            lines.append(f"{action} is the strongest. I'll play {action}.")
        return "\n".join(lines)

    def blind(self, prompt: str, rng: random.Random) -> str:
        return labelled_answer("I cannot make out the whole board.", "open with a central pawn.", "e4")
