"""GAMEBoT's tic-tac-toe game logs as PlayTrace sessions that replay.

GAMEBoT (``Visual-AI/GAMEBoT``) runs ``run_games_and_check/tictactoe.py AGENT1 AGENT2`` and writes a
folder ``running_log/tictactoe/<agent1>_vs_<agent2>_<date><2 letters>/`` holding ``game.log`` (the
game's log) and one log per model agent. ``game.log`` holds the two prompts, then for each turn the
board as three lines of ``X``, ``O`` and ``_`` separated by spaces, a model's chosen cell as
``[row, col]`` (a built-in ``random`` or ``algorithm`` player's cell is not logged), and the end:
``Congratulations! <agent> wins! X wins!``, ``It's a tie!`` or ``Invalid move. Cell already taken.``
Every game of the file (``--cycles``) starts from an empty board.

What is imported
  Every game of a ``game.log`` (or of the ``game.log`` in a folder) becomes a tic-tac-toe session
  with the options of the ``gamebot`` protocol: X (agent 1, named from the folder) is the first seat,
  O the second. A move is the one cell by which a board differs from the one before; the last move
  (the log has no board after it) is the model's logged ``[row, col]``, else the one cell that ends
  the game as the log says (the last empty cell of a tie, the only cell completing the winner's
  line). Every move is played by PlayTrace's rules; a log where boards do not follow one another is
  refused with its game number. A game that ends without a result (a model out of valid answers)
  ends with the forfeit of the player to move.

What is not imported
  * The models' reasoning: it is in the per-agent logs, whose re-asks cannot be matched to moves with
    confidence; the decisions carry no rationale.
  * GAMEBoT's other games (Connect4, Othello, Checkers, Pong, Surround, Texas Hold'em, negotiation):
    their logs are refused with one line.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path

from engine.core import Action, Game, GameError, State
from engine.safeio import read_text
from sessions._replay import ImportFormatError, RecordedSide, play

__all__ = ["LOG_NAME", "import_gamebot", "is_gamebot_log"]

LOG_NAME = "game.log"
#: The game whose logs this reads: GAMEBoT's tic-tac-toe runner is the one whose log carries every move.
GAME = "tictactoe"
#: A game log larger than this is not one to import.
MAX_LOG_BYTES = 64 * 1024 * 1024
_ROW = re.compile(r"^([XO_]) ([XO_]) ([XO_]) ?$")
_CELL = re.compile(r"^\[(\d), (\d)\]$")
_WIN = re.compile(r"^Congratulations! .* wins! ([XO]) wins!")
_FOLDER = re.compile(r"^(.+)_vs_(.+)_\d\d-\d\d-\d\d-\d\d[a-z]{2}$")
#: GAMEBoT's other games (their ``running_log/<game>/`` folders), whose logs are refused.
_OTHER_GAMES = ("connect4", "othello", "checkers", "pong", "surround", "texas", "negotiate", "negotiation")
_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))

Board = tuple[str, ...]


@dataclass
class _Logged:
    boards: list[Board] = field(default_factory=list)
    cells: list[tuple[int, int]] = field(default_factory=list)
    end: str | None = None  # "X", "O", "tie" or "invalid"


def is_gamebot_log(text: str) -> bool:
    """Whether a text looks like GAMEBoT's tic-tac-toe ``game.log``."""
    return text.startswith("Prompt1:") and "Prompt2:" in text


def _parse(text: str) -> list[_Logged]:
    lines = text.splitlines()
    games: list[_Logged] = []
    current: _Logged | None = None
    i = 0
    while i < len(lines):
        rows = [_ROW.match(line) for line in lines[i : i + 3]]
        if len(rows) == 3 and all(rows):
            board: Board = tuple(m.group(k) for m in rows if m for k in (1, 2, 3))
            if set(board) == {"_"}:
                current = _Logged([board])
                games.append(current)
            elif current is not None:
                current.boards.append(board)
            i += 3
            continue
        line = lines[i].strip()
        if current is not None:
            won, cell = _WIN.match(line), _CELL.match(line)
            if won:
                current.end = won.group(1)
            elif line == "It's a tie!":
                current.end = "tie"
            elif line == "Invalid move. Cell already taken.":
                current.end = "invalid"
            elif cell:
                current.cells.append((int(cell.group(1)), int(cell.group(2))))
        i += 1
    # A board in a prompt's text starts no game: a game has a move or a result.
    return [g for g in games if len(g.boards) > 1 or g.end is not None]


def _winner(board: Board) -> str | None:
    for a, b, c in _LINES:
        if board[a] != "_" and board[a] == board[b] == board[c]:
            return board[a]
    return None


def _last_cell(game: _Logged, mark: str, where: str) -> int | None:
    """The cell of the move after the last logged board, or ``None`` when the game ended without one."""
    board = game.boards[-1]
    empty = [i for i, v in enumerate(board) if v == "_"]

    def ends(i: int) -> bool:
        after = board[:i] + (mark,) + board[i + 1 :]
        return _winner(after) == mark if game.end in ("X", "O") else "_" not in after and not _winner(after)

    if game.end not in ("X", "O", "tie"):
        return None
    if game.end in ("X", "O") and game.end != mark:
        raise ImportFormatError(f"{where}: {game.end} wins but {mark} was to move")
    if game.cells:
        r, c = game.cells[-1]
        if 0 <= r < 3 and 0 <= c < 3 and 3 * r + c in empty and ends(3 * r + c):
            return 3 * r + c
    found = [i for i in empty if ends(i)]
    if len(found) != 1:
        raise ImportFormatError(f"{where}: the last move is not in the log ({len(found)} cells end the game)")
    return found[0]


def _moves(game_: Game, logged: _Logged, where: str) -> tuple[list[Action], State]:
    state = game_.initial_state(seed=0)
    cells: list[int] = []
    for k, (before, after) in enumerate(zip(logged.boards, logged.boards[1:], strict=False), 1):
        mark = "X" if len(cells) % 2 == 0 else "O"
        new = [i for i in range(9) if before[i] != after[i]]
        if len(new) != 1 or before[new[0]] != "_" or after[new[0]] != mark:
            raise ImportFormatError(f"{where}: board {k + 1} is not board {k} with one more {mark}")
        cells.append(new[0])
    last = _last_cell(logged, "X" if len(cells) % 2 == 0 else "O", where)
    if last is not None:
        cells.append(last)
    actions: list[Action] = []
    for number, cell in enumerate(cells, 1):
        if state.is_over:
            raise ImportFormatError(f"{where}: move {number} comes after the game is over")
        seat = state.to_act[0]
        try:
            action = game_.parse_action(f"({cell // 3},{cell % 3})", state, seat)
        except GameError as exc:
            raise ImportFormatError(f"{where}: move {number}: {exc}") from None
        actions.append(action)
        state = state.apply({seat: action})
    return actions, state


def _options() -> dict[str, object]:
    """The options the GameBot protocol plays the logged game with."""
    from engine.protocols import load_protocol

    return dict(load_protocol("gamebot").options_for(GAME))


def import_gamebot(path: Path, root: Path) -> list[Path]:
    """Import every game of GAMEBoT's tic-tac-toe ``game.log`` (the file, or the one in the folder
    ``path``) into ``root``; returns the session folders written. Every game is checked first.

    Raises:
        ImportFormatError: not a GAMEBoT tic-tac-toe log, no game in it, or boards that do not follow.
        engine.safeio.InputError: the file cannot be read.
    """
    import engine

    log = path / LOG_NAME if path.is_dir() else path
    text = read_text(log, cap=MAX_LOG_BYTES, what="GAMEBoT game log")
    if not is_gamebot_log(text):
        raise ImportFormatError(f"{log} is not a GAMEBoT game log (it starts with the two prompts, Prompt1:)")
    folder = log.resolve().parent
    if folder.parent.name in _OTHER_GAMES:
        raise ImportFormatError(
            f"{log}: GAMEBoT {folder.parent.name} logs are not imported; only tic-tac-toe logs are read"
        )
    logged = _parse(text)
    if not logged:
        raise ImportFormatError(f"{log} holds no tic-tac-toe game (no empty board followed by moves)")
    names = _FOLDER.match(folder.name)
    labels = [names.group(1), names.group(2)] if names else ["X", "O"]
    checked = []
    for number, game_log in enumerate(logged, 1):
        game = engine.make(GAME, **_options())
        checked.append((number, game, *_moves(game, game_log, f"{log}: game {number}")))
    root.mkdir(parents=True, exist_ok=True)
    written = []
    for number, game, actions, final in checked:
        by_seat: list[dict[int, tuple[Action, str]]] = [{}, {}]
        for step, action in enumerate(actions):
            by_seat[step % 2][step] = (action, "")
        sides = [
            RecordedSide(f"gamebot:{labels[s][:40]}", labels[s], by_seat[s], resigns=True) for s in (0, 1)
        ]
        extra = {"imported": {"format": "gamebot", "file": log.name, "folder": folder.name, "game": number}}
        max_steps = len(actions) + (0 if final.is_over else 1)
        title = f"GAMEBoT tic-tac-toe, {labels[0]} – {labels[1]}, game {number}"
        written.append(asyncio.run(play(game, sides, root, title, extra, max(1, max_steps))))
    return written
