"""A played chess game, with the reasoning behind each move, as PGN (python-chess writes it).

:func:`to_pgn` is a pure function of the start position, the moves in SAN each with its comment (a
model's observation and strategy, a bot's rationale) and the headers; it replays the moves to check
them, sets ``FEN``/``SetUp`` for a non-standard start and ``Result`` from the final position when the
game is over (``*`` otherwise, unless the headers give one, e.g. a forfeit).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import chess
import chess.pgn

from engine.core import PlayedGame

__all__ = ["played_pgn", "to_pgn"]


def to_pgn(
    start_fen: str,
    moves: Sequence[tuple[str, str]],
    headers: Mapping[str, str] | None = None,
) -> str:
    """PGN text of a game from ``start_fen`` with ``moves`` as ``(san, comment)`` pairs (UCI is
    accepted too; an empty comment writes none).

    Raises:
        ValueError: the FEN is not a position, or a move is not legal where it is played.
    """
    board = chess.Board(start_fen)
    game = chess.pgn.Game()
    if board.fen() != chess.STARTING_FEN:
        game.setup(board)
    node: chess.pgn.GameNode = game
    for i, (text, comment) in enumerate(moves):
        try:
            move = board.parse_san(text)
        except ValueError:
            try:
                move = chess.Move.from_uci(text)
            except ValueError:
                raise ValueError(f"move {i + 1} ({text!r}) is not a move") from None
            if not board.is_legal(move):
                raise ValueError(f"move {i + 1} ({text!r}) is not legal here") from None
        node = node.add_variation(move, comment=" ".join(comment.split()))
        board.push(move)
    for key, value in (headers or {}).items():
        game.headers[key] = str(value)
    if "Result" not in (headers or {}):
        outcome = board.outcome(claim_draw=True)
        game.headers["Result"] = outcome.result() if outcome is not None else "*"
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=True)
    return game.accept(exporter) + "\n"


def played_pgn(played: PlayedGame) -> str:
    """A recorded session as PGN (``playtrace export SESSION game.pgn``): the players as White and
    Black, each move commented with the reasoning behind it, and the result (a forfeit included)."""
    headers = {"Event": played.title or "PlayTrace game"}
    for name, seat in (("White", 0), ("Black", 1)):
        if seat < len(played.players):
            headers[name] = played.players[seat]
    if played.status == "forfeit":
        won = {0: "1-0", 1: "0-1"}
        headers["Result"] = won.get(played.winner, "*") if played.winner is not None else "*"
    elif played.status not in ("completed",):
        headers["Result"] = "*"
    # The position the session started from (a fork starts mid-game).
    start = str(getattr(played.start, "fen", None) or chess.STARTING_FEN)
    return to_pgn(start, [(m.action, m.comment) for m in played.moves], headers)
