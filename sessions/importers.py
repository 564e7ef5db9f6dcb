"""Games recorded elsewhere, as PlayTrace sessions that replay: the formats, and PGN.

:func:`import_path` imports a file or folder in one of :data:`FORMATS`, told or recognised
(:func:`detect`):

* ``pgn``: chess games (below);
* ``gamingagent``: LMGame-Bench's GamingAgent episode logs (:mod:`sessions.import_gamingagent`);
* ``lvlm``: LVLM-Playground's experiment records, their end-to-end games (:mod:`sessions.import_lvlm`);
* ``gamebot``: GAMEBoT's tic-tac-toe game logs (:mod:`sessions.import_gamebot`).

* PGN (``playtrace import games.pgn``): every game of the file becomes a chess session. Its moves are
  played again by PlayTrace's chess engine (python-chess underneath), so an illegal or garbled move is
  refused with its game and move number; each side is a seat named after the PGN's White and Black,
  and a move's comment becomes that decision's rationale (PlayTrace's own PGN export writes a model's
  reasoning there). A game that ends by resignation ends with the loser's forfeit; a draw agreed before
  the rules end the game ends at its last move.

The session is written by the session writer through an ordinary match whose seats play the recorded
moves, exactly as any other session is recorded.
"""

from __future__ import annotations

import asyncio
import io
import logging
from pathlib import Path
from typing import Any

from engine.core import Action, Game
from engine.safeio import read_text
from sessions._replay import ImportFormatError, RecordedSide, play

__all__ = ["FORMATS", "ImportFormatError", "detect", "import_path", "import_pgn"]


#: A PGN file larger than this is not a file of games to import.
MAX_PGN_BYTES = 32 * 1024 * 1024
#: Games read from one file at most.
MAX_GAMES = 10_000


def _spec(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "._-" else "_" for c in name.strip())[:40].strip("_")
    return f"pgn:{cleaned or 'unknown'}"


def _games(text: str, source: Path) -> list[Any]:
    import chess.pgn

    handle = io.StringIO(text)
    games: list[Any] = []
    quiet = logging.getLogger("chess.pgn")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # python-chess logs each bad move; it is reported once, below
    try:
        while len(games) < MAX_GAMES:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            if game.errors:
                raise ImportFormatError(f"{source}: game {len(games) + 1}: {game.errors[0]}")
            games.append(game)
    finally:
        quiet.setLevel(level)
    if not games:
        raise ImportFormatError(f"{source} holds no PGN game")
    return games


def _moves(pgn_game: Any, game: Game, source: Path, number: int) -> tuple[list[tuple[Action, str]], Any]:
    """The game's moves as PlayTrace chess actions, with their comments; checked legal one by one."""
    state = game.initial_state(seed=None)
    out: list[tuple[Action, str]] = []
    board = pgn_game.board()
    for node in pgn_game.mainline():
        move = node.move
        if move not in board.legal_moves:
            raise ImportFormatError(
                f"{source}: game {number}, move {len(out) + 1}: {move.uci()} is not legal"
            )
        san = board.san(move)
        seat = state.to_act[0]
        action = game.parse_action(san, state, seat)
        out.append((action, (node.comment or "").strip()))
        state = state.apply({seat: action})
        board.push(move)
    return out, state


def import_pgn(path: Path, root: Path) -> list[Path]:
    """Import every game of the PGN file at ``path`` into the sessions folder ``root``; returns the
    session folders written.

    Raises:
        ImportFormatError: the file holds no game, or a game has a move that is not legal there.
        engine.safeio.InputError: the file cannot be read (not a regular file, too large...).
    """
    import engine

    text = read_text(path, cap=MAX_PGN_BYTES, what="PGN file")
    games = _games(text, path)
    # Every game is checked before the first session is written: a file is imported whole or not at all.
    checked = []
    for number, pgn_game in enumerate(games, 1):
        game = engine.make("chess")
        checked.append((number, pgn_game, game, *_moves(pgn_game, game, path, number)))
    root.mkdir(parents=True, exist_ok=True)
    written = []
    for number, pgn_game, game, moves, final in checked:
        headers = pgn_game.headers
        names = [headers.get("White", "White"), headers.get("Black", "Black")]
        result = headers.get("Result", "*")
        # Resignation: the side to move after the last move lost although the rules had not ended it.
        loser = {"1-0": 1, "0-1": 0}.get(result)
        to_move = None if final.is_over else final.to_act[0]
        by_seat: list[dict[int, tuple[Action, str]]] = [{}, {}]
        for step, (action, comment) in enumerate(moves):
            by_seat[step % 2][step] = (action, comment)
        sides = [
            RecordedSide(_spec(names[s]), names[s], by_seat[s], resigns=(to_move == s and loser == s))
            for s in (0, 1)
        ]
        resigned = to_move is not None and loser == to_move
        extra = {
            "imported": {
                "format": "pgn",
                "file": path.name,
                "game": number,
                "headers": {k: str(v) for k, v in headers.items()},
            }
        }
        event = headers.get("Event")
        title = f"{names[0]} – {names[1]}" + (f", {event}" if event not in (None, "", "?") else "")
        max_steps = len(moves) + (1 if resigned else 0)
        written.append(asyncio.run(play(game, sides, root, title, extra, max(1, max_steps))))
    return written


#: The formats :func:`import_path` knows.
FORMATS = ("pgn", "gamingagent", "lvlm", "gamebot")


def detect(path: Path) -> str | None:
    """The format of the file or folder at ``path``, or ``None`` when it is none of :data:`FORMATS`."""
    from engine.safeio import InputError, loads_json, read_bytes
    from sessions.import_gamingagent import LOG_NAME, is_gamingagent_log

    if path.is_dir():
        if any(LOG_NAME.match(p.name) for p in path.iterdir()):
            return "gamingagent"
        return detect(path / "game.log") if (path / "game.log").is_file() else None
    if path.suffix.lower() == ".pgn":
        return "pgn"
    if LOG_NAME.match(path.name):
        return "gamingagent"
    if path.name == "game.log":
        from sessions.import_gamebot import MAX_LOG_BYTES, is_gamebot_log

        try:
            return "gamebot" if is_gamebot_log(read_text(path, cap=MAX_LOG_BYTES)) else None
        except (InputError, OSError, ValueError):
            return None
    if path.suffix.lower() == ".json":
        from sessions.import_lvlm import MAX_RECORD_BYTES, is_lvlm_record

        try:
            data = loads_json(read_bytes(path, cap=MAX_RECORD_BYTES), "record")
            return "lvlm" if is_lvlm_record(data) else None
        except (InputError, OSError, ValueError):
            return None
    if path.suffix.lower() == ".jsonl":
        try:
            head = read_bytes(path, cap=MAX_PGN_BYTES, what="log").split(b"\n", 1)[0]
            return "gamingagent" if is_gamingagent_log(loads_json(head, "first line")) else None
        except (InputError, OSError, ValueError):
            return None
    return None


def import_path(path: Path, root: Path, fmt: str | None = None) -> list[Path]:
    """Import the file or folder at ``path`` in format ``fmt`` (default: :func:`detect`'s) into the
    sessions folder ``root``; returns the session folders written (nothing is written on an error).

    Raises:
        ImportFormatError: an unknown or refused format, or a file the format's importer refuses.
        engine.safeio.InputError: a file that cannot be read.
    """
    chosen = fmt or detect(path)
    if chosen is None:
        raise ImportFormatError(f"{path}: cannot tell its format; give --format ({', '.join(FORMATS)})")
    if chosen == "pgn":
        if path.is_dir():
            raise ImportFormatError(f"{path} is a folder, not a PGN file")
        return import_pgn(path, root)
    if chosen == "gamingagent":
        from sessions.import_gamingagent import import_gamingagent

        return import_gamingagent(path, root)
    if chosen == "gamebot":
        from sessions.import_gamebot import import_gamebot

        return import_gamebot(path, root)
    if chosen == "lvlm":
        from sessions.import_lvlm import import_lvlm

        return import_lvlm(path, root)
    raise ImportFormatError(f"{chosen!r} is not an import format ({', '.join(FORMATS)})")
