"""Chess's built-in players: an alpha-beta search of our own, and Stockfish when it is installed.

:class:`ChessSearchBot` (``"search"``) is a small negamax with alpha-beta pruning on python-chess
boards (pushing and popping moves on one private copy, far quicker than building PlayTrace states in
the tree). PlayTrace's generic :class:`engine.bots.search.SearchTreeBot` would work through the state
contract, but writing SAN for every node would make it too slow for chess. Its evaluation is material
plus piece-square tables (the widely used "simplified evaluation function" values: pieces 100 / 320 /
330 / 500 / 900, tables that push pawns and bring knights and bishops to the centre, keep the king
sheltered until the endgame). It searches 3 plies with captures first (most valuable victim, least
valuable attacker), then captures only until the position is quiet (so it does not leave a queen
hanging at the horizon). Every root move gets an exact value, so the simulated model can compare them.
A node budget bounds the time (about 20-150 ms a move on this project's development machine); when
the budget runs out the 2-ply values stand. The budget is counted in nodes, so the bot is
deterministic (ties are broken by the seeded RNG).

:class:`StockfishBot` (``"stockfish"``) asks a Stockfish binary for its move through python-chess's
UCI client, for ``engine_time`` seconds (LVLM-Playground's 1 s by default). The binary is the one
named by the environment variable ``PLAYTRACE_STOCKFISH``, else ``stockfish`` on the PATH, else
Debian's ``/usr/games/stockfish``. The engine runs in a worker thread, so the event loop (and the
app's window) never waits on it; its process is closed by :meth:`StockfishBot.close`, when the bot is
garbage-collected, or at exit. When no binary is found (or it dies), the bot plays the built-in
search instead and says so in its label and every rationale: "Built-in search (Stockfish not found)".
"""

from __future__ import annotations

import asyncio
import math
import os
import re
import shutil
import threading
import time
import weakref
from collections.abc import Mapping
from pathlib import Path

import chess
import chess.engine

from engine.bots.base import SearchBot
from engine.core import Action, Game
from engine.games.chess.rules import ChessState
from engine.players import BOT, Decision, Observation

__all__ = [
    "ENV_VAR",
    "ChessSearchBot",
    "StockfishBot",
    "evaluate",
    "find_stockfish",
]

#: The environment variable naming a Stockfish binary.
ENV_VAR = "PLAYTRACE_STOCKFISH"
#: Where Debian and Ubuntu's ``stockfish`` package puts the binary (not always on the PATH).
_DEBIAN_PATH = "/usr/games/stockfish"

VALUES = {
    chess.PAWN: 100,
    chess.KNIGHT: 320,
    chess.BISHOP: 330,
    chess.ROOK: 500,
    chess.QUEEN: 900,
    chess.KING: 0,
}
MATE = 100_000

# Piece-square tables from White's side, rank 8 first (as printed), in centipawns.
_PST_TEXT = {
    chess.PAWN: """
 0  0  0  0  0  0  0  0
50 50 50 50 50 50 50 50
10 10 20 30 30 20 10 10
 5  5 10 25 25 10  5  5
 0  0  0 20 20  0  0  0
 5 -5-10  0  0-10 -5  5
 5 10 10-20-20 10 10  5
 0  0  0  0  0  0  0  0""",
    chess.KNIGHT: """
-50-40-30-30-30-30-40-50
-40-20  0  0  0  0-20-40
-30  0 10 15 15 10  0-30
-30  5 15 20 20 15  5-30
-30  0 15 20 20 15  0-30
-30  5 10 15 15 10  5-30
-40-20  0  5  5  0-20-40
-50-40-30-30-30-30-40-50""",
    chess.BISHOP: """
-20-10-10-10-10-10-10-20
-10  0  0  0  0  0  0-10
-10  0  5 10 10  5  0-10
-10  5  5 10 10  5  5-10
-10  0 10 10 10 10  0-10
-10 10 10 10 10 10 10-10
-10  5  0  0  0  0  5-10
-20-10-10-10-10-10-10-20""",
    chess.ROOK: """
 0  0  0  0  0  0  0  0
 5 10 10 10 10 10 10  5
-5  0  0  0  0  0  0 -5
-5  0  0  0  0  0  0 -5
-5  0  0  0  0  0  0 -5
-5  0  0  0  0  0  0 -5
-5  0  0  0  0  0  0 -5
 0  0  0  5  5  0  0  0""",
    chess.QUEEN: """
-20-10-10 -5 -5-10-10-20
-10  0  0  0  0  0  0-10
-10  0  5  5  5  5  0-10
 -5  0  5  5  5  5  0 -5
  0  0  5  5  5  5  0 -5
-10  5  5  5  5  5  0-10
-10  0  5  0  0  0  0-10
-20-10-10 -5 -5-10-10-20""",
    chess.KING: """
-30-40-40-50-50-40-40-30
-30-40-40-50-50-40-40-30
-30-40-40-50-50-40-40-30
-30-40-40-50-50-40-40-30
-20-30-30-40-40-30-30-20
-10-20-20-20-20-20-20-10
 20 20  0  0  0  0 20 20
 20 30 10  0  0 10 30 20""",
}
_KING_END_TEXT = """
-50-40-30-20-20-30-40-50
-30-20-10  0  0-10-20-30
-30-10 20 30 30 20-10-30
-30-10 30 40 40 30-10-30
-30-10 30 40 40 30-10-30
-30-10 20 30 30 20-10-30
-30-30  0  0  0  0-30-30
-50-30-30-30-30-30-30-50"""


def _table(text: str) -> tuple[int, ...]:
    """A printed table (rank 8 first) as 64 values indexed by python-chess square (a1 = 0)."""
    numbers = [int(n) for n in re.findall(r"-?\d+", text)]
    if len(numbers) != 64:
        raise ValueError("a piece-square table has 64 values")
    return tuple(numbers[(7 - sq // 8) * 8 + sq % 8] for sq in range(64))


_PST = {piece: _table(text) for piece, text in _PST_TEXT.items()}
_KING_END = _table(_KING_END_TEXT)


#: Per colour and piece type: the value of the piece on each square (material included), from White's
#: side for White's pieces and from Black's side (mirrored) for Black's.
_SQUARE_VALUES = {
    (color, ptype, end): tuple(
        VALUES[ptype]
        + (_KING_END if end and ptype == chess.KING else _PST[ptype])[
            sq if color == chess.WHITE else chess.square_mirror(sq)
        ]
        for sq in range(64)
    )
    for color in (chess.WHITE, chess.BLACK)
    for ptype in VALUES
    for end in (False, True)
}
_TYPES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)


def evaluate(board: chess.Board) -> int:
    """Material plus piece-square tables in centipawns, from the side to move's view. The king's
    table changes in the endgame (no queens, or at most three pieces besides pawns on each side)."""
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    end = not board.queens or (
        chess.popcount(white & ~board.pawns) <= 3 and chess.popcount(black & ~board.pawns) <= 3
    )
    total = 0
    for ptype, bb in zip(
        _TYPES,
        (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings),
        strict=True,
    ):
        table = _SQUARE_VALUES[chess.WHITE, ptype, end]
        for sq in chess.scan_forward(bb & white):
            total += table[sq]
        table = _SQUARE_VALUES[chess.BLACK, ptype, end]
        for sq in chess.scan_forward(bb & black):
            total -= table[sq]
    return total if board.turn == chess.WHITE else -total


class _Budget(Exception):
    """The node budget ran out."""


def _ordered(board: chess.Board) -> list[chess.Move]:
    """Legal moves, captures first (most valuable victim, then least valuable attacker), then
    promotions, then the rest in python-chess's order."""
    captures = []
    for move in board.generate_legal_captures():
        victim = board.piece_type_at(move.to_square) or chess.PAWN
        attacker = board.piece_type_at(move.from_square) or chess.PAWN
        captures.append((-(10 * VALUES[victim] - VALUES[attacker]), move))
    captures.sort(key=lambda pair: pair[0])
    quiet = [
        m
        for m in board.generate_legal_moves(to_mask=chess.BB_ALL & ~board.occupied_co[not board.turn])
        if not board.is_en_passant(m)
    ]
    quiet.sort(key=lambda m: -VALUES[m.promotion] if m.promotion else 0)
    return [m for _, m in captures] + quiet


class ChessSearchBot(SearchBot):
    """Iterative deepening alpha-beta (principal variation search) to 3 plies plus a capture search,
    with a material and piece-square evaluation and a node budget."""

    spec = "search"
    label = "Alpha-beta search"
    #: Plies searched before the capture search.
    depth = 3
    #: Nodes one move may visit; the deepest iteration finished within it gives the move.
    budget = 5_000
    #: Captures searched beyond the horizon at most.
    quiet_depth = 4

    def __init__(self, game: Game, seed: int | None = None, *, depth: int | None = None) -> None:
        super().__init__(game, seed)
        if depth is not None:
            self.depth = depth
        if self.depth < 1:
            raise ValueError("depth must be at least 1")
        self.nodes = 0
        self.searched = 0
        self._limit = math.inf
        self._best: Action | None = None

    # -- search -----------------------------------------------------------------------------------

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes > self._limit:
            raise _Budget

    def _quiesce(self, board: chess.Board, alpha: int, beta: int, left: int) -> int:
        self._tick()
        stand = evaluate(board)
        if stand >= beta or left <= 0:
            return stand
        alpha = max(alpha, stand)
        best = stand
        scored = []
        for move in board.generate_legal_captures():
            victim = board.piece_type_at(move.to_square) or chess.PAWN
            if stand + VALUES[victim] + 200 < alpha:
                continue  # even winning the piece outright cannot lift the score to alpha
            attacker = board.piece_type_at(move.from_square) or chess.PAWN
            scored.append((-(10 * VALUES[victim] - VALUES[attacker]), move))
        scored.sort(key=lambda pair: pair[0])
        for _, move in scored:
            board.push(move)
            value = -self._quiesce(board, -beta, -alpha, left - 1)
            board.pop()
            if value > best:
                best = value
            if value >= beta:
                return value
            alpha = max(alpha, value)
        return best

    def _negamax(self, board: chess.Board, depth: int, alpha: int, beta: int, ply: int) -> int:
        self._tick()
        if board.halfmove_clock >= 100 or board.is_insufficient_material():
            return 0
        if depth <= 0 and not board.is_check():  # never stop in check: a mate at the horizon counts
            return self._quiesce(board, alpha, beta, self.quiet_depth)
        moves = _ordered(board)
        if not moves:
            return -(MATE - ply) if board.is_check() else 0
        best = -MATE - 1
        for move in moves:
            board.push(move)
            value = -self._negamax(board, max(depth, 1) - 1, -beta, -alpha, ply + 1)
            board.pop()
            if value > best:
                best = value
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        return best

    def _root(
        self, board: chess.Board, order: list[tuple[Action, chess.Move]], depth: int
    ) -> dict[Action, float]:
        """Values of every root move at ``depth``: the first (the best so far) exactly, the others with
        a null window around the best, which proves them no better (their value is then an upper
        bound) or finds a better one, searched again exactly."""
        values: dict[Action, float] = {}
        best = -MATE - 1
        for i, (action, move) in enumerate(order):
            board.push(move)
            if board.is_checkmate():
                value = MATE - 1
            elif board.is_stalemate() or board.is_repetition(3):
                value = 0
            elif i == 0:
                value = -self._negamax(board, depth - 1, -MATE - 1, MATE + 1, 1)
            else:
                value = -self._negamax(board, depth - 1, -best - 1, -best, 1)
                if value > best:
                    value = -self._negamax(board, depth - 1, -MATE - 1, -best, 1)
            board.pop()
            values[action] = float(value)
            if value > best:
                best = value
                self._best = action
        return values

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        if not isinstance(state, ChessState):
            raise TypeError("the chess search bot plays chess states only")
        self.nodes, self.searched, self._best = 0, 0, None
        board = state.history_board() if len(state.moves) <= 300 else state.board.copy()
        wanted = set(observation.legal_actions)
        by_move = {m: a for a, m in state.legal().items() if a in wanted}
        order = [(by_move[m], m) for m in _ordered(board) if m in by_move]
        values: dict[Action, float] = {}
        for depth in range(1, self.depth + 1):
            self._limit = math.inf if depth == 1 else self.budget
            try:
                found = self._root(board, order, depth)
            except _Budget:
                break
            values, self.searched = found, depth
            order.sort(key=lambda pair: -values[pair[0]])  # the best first: the next depth prunes more
        return values

    def choose(self, values: Mapping[Action, float]) -> Action:
        """The move the deepest search found best (the others' values may be bounds equal to it)."""
        best = max(values.values())
        tied = [a for a, v in values.items() if v == best]
        return tied[0]

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        value = values[action]
        if value >= MATE - 100:
            outlook = f"mates in {int((MATE - value + 1) // 2)}"
        elif value <= -(MATE - 100):
            outlook = "every move is mated; this one resists longest"
        else:
            outlook = f"{value / 100:+.2f} pawns"
        return f"{action}: {outlook} (alpha-beta, {self.searched} plies + captures, {self.nodes} positions)"


def find_stockfish() -> str | None:
    """The Stockfish binary to use: ``$PLAYTRACE_STOCKFISH``, ``stockfish`` on the PATH, or Debian's
    ``/usr/games/stockfish``; ``None`` when there is none."""
    named = os.environ.get(ENV_VAR, "").strip()
    if named:
        found = shutil.which(named) or (named if Path(named).is_file() else None)
        return found
    on_path = shutil.which("stockfish")
    if on_path:
        return on_path
    return _DEBIAN_PATH if os.access(_DEBIAN_PATH, os.X_OK) else None


def _quit(engine: chess.engine.SimpleEngine) -> None:
    try:
        engine.quit()
    except Exception:  # the process is already gone; nothing left to close
        try:
            engine.close()
        except Exception:
            pass


class StockfishBot:
    """Stockfish through python-chess's UCI client, or the built-in search when Stockfish is missing.

    Args:
        game: The chess game (its ``engine_time`` option is the time per move).
        seed: Seeds the fallback search's tie-breaks (Stockfish itself is not seeded).
        path: The binary (default: :func:`find_stockfish`).
    """

    kind = BOT
    spec = "stockfish"

    def __init__(self, game: Game, seed: int | None = None, *, path: str | None = None) -> None:
        self.game = game
        self.path = path or find_stockfish()
        self.time_s = float(game.options.get("engine_time", 1.0))
        self._engine: chess.engine.SimpleEngine | None = None
        self._finalizer: weakref.finalize[[chess.engine.SimpleEngine], StockfishBot] | None = None
        self._lock = threading.Lock()
        self._fallback = ChessSearchBot(game, seed)
        self.failure = "" if self.path else "Stockfish not found"
        self.engine_name = ""

    @property
    def available(self) -> bool:
        """Whether moves come from Stockfish (``False``: from the built-in search)."""
        return not self.failure

    @property
    def label(self) -> str:
        if self.failure:
            return f"Built-in search ({self.failure})"
        return self.engine_name or "Stockfish"

    def _open(self) -> chess.engine.SimpleEngine:
        with self._lock:
            if self._engine is None:
                assert self.path is not None
                engine = chess.engine.SimpleEngine.popen_uci(self.path, timeout=10.0)
                self._engine = engine
                self._finalizer = weakref.finalize(self, _quit, engine)  # closes on collection or exit
                self.engine_name = str(engine.id.get("name", "Stockfish"))
            return self._engine

    def _play(self, board: chess.Board) -> chess.engine.PlayResult:
        engine = self._open()
        return engine.play(board, chess.engine.Limit(time=self.time_s), info=chess.engine.INFO_SCORE)

    async def act(self, observation: Observation) -> Decision:
        state = observation.state
        if not isinstance(state, ChessState):
            raise TypeError("the Stockfish bot plays chess states only")
        if not self.failure:
            started = time.perf_counter()
            try:
                result = await asyncio.to_thread(self._play, state.history_board())
            except Exception as exc:  # noqa: BLE001
                # Whatever stops the engine or its client thread (an engine error, a dead process, a
                # RuntimeError from the thread's event loop) ends Stockfish for this bot: the built-in
                # search plays on and says why, rather than the game dying.
                self.failure = f"Stockfish failed: {type(exc).__name__}: {exc}"[:120]
                self.close()
            else:
                if result.move is not None and result.move in state.board.legal_moves:
                    action = state.san(result.move)
                    score = result.info.get("score")
                    pov = score.pov(state.board.turn) if score is not None else None
                    said = ""
                    values: dict[Action, float] | None = None
                    if pov is not None:
                        if pov.is_mate():
                            said = f", mate in {pov.mate()}"
                        else:
                            said = f", {(pov.score() or 0) / 100:+.2f} pawns"
                        values = {action: float(pov.score(mate_score=MATE) or 0)}
                    latency = (time.perf_counter() - started) * 1000
                    return Decision(
                        action,
                        rationale=f"{action}: {self.label} at {self.time_s:g} s per move{said}",
                        values=values,
                        extra={"latency_ms": round(latency, 2), "engine": self.label},
                    )
                self.failure = "Stockfish gave no legal move"
        decision = await self._fallback.act(observation)
        decision.rationale = f"{self.label}: {decision.rationale}"
        decision.extra["engine"] = self.label
        return decision

    def close(self) -> None:
        """Quit the Stockfish process (if one was started); the bot can start another later."""
        with self._lock:
            finalizer, self._finalizer, self._engine = self._finalizer, None, None
        if finalizer is not None:
            finalizer()

    async def aclose(self) -> None:
        """:meth:`close` without blocking the event loop."""
        await asyncio.to_thread(self.close)

    def __repr__(self) -> str:
        return f"StockfishBot(path={self.path!r}, label={self.label!r})"
