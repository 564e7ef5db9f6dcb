"""GamingAgent's per-step episode logs (LMGame-Bench's code) as PlayTrace sessions that replay.

GamingAgent (``lmgame-org/GamingAgent``) writes one ``episode_NNN_log.jsonl`` per episode, a line per
step after the environment has stepped: ``{episode_id, step, agent_action, thought, reward,
perf_score, info, agent_observation, terminated, truncated, time_taken_s}``. ``info`` is what the
game's environment returns; ``agent_observation`` is the observation's JSON text (its
``textual_representation`` is the board as the model read it, when it read text).

What is imported
  **2048** (``twenty_forty_eight``): its ``info`` carries the board (``board``, tile powers: 0 empty,
  ``k`` a tile of ``2**k``) and ``total_score`` (the merged sum, LMGame-Bench's raw score). A file is
  one session of PlayTrace's 2048, one decision per logged move: the action is the move, the
  model's ``thought`` the decision's rationale. Every move is checked by PlayTrace's rules: the logged
  board after a move must be the board PlayTrace's rules slide to, plus the one tile the environment
  spawned (or unchanged when the move changed nothing); a log where it is not is refused with its
  step. The spawned tile is the log's, not PlayTrace's (GamingAgent draws it from its own random
  generator), so the session holds exactly the logged boards and scores.

What is not reproduced
  * The board before the first logged step: GamingAgent logs no line at reset, so the session
    starts from the board after the log's first step; that step's action and thought are kept in the
    manifest (``extra.imported.first_step``).
  * Steps whose action is not a move (``None``, ``"skip"``, ``"<AUTO_NO_OP>"``, an unreadable
    answer): GamingAgent does not step its environment then. They are left out of the session and
    listed in ``extra.imported.skipped_steps``; they do not count towards the stagnation rule.
  * ``time_taken_s``, ``reward`` and ``perf_score`` per step are kept in the manifest, not as events.

Other games' logs are refused with one line naming what is missing (their ``info`` holds no board).
Sokoban's log does hold its grid when the model read text (the observation's table of cells), but
GamingAgent moves on to the next level of its own levels file when one is solved, which PlayTrace's
Sokoban courses do not follow; such logs are refused too. Tetris', Candy Crush's and the other games'
logs were not examined for states PlayTrace could rebuild.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.core import Action, Game, GameError, State
from engine.safeio import InputError, loads_json, read_text
from sessions._replay import ImportFormatError, RecordedSide, follow, play

__all__ = ["LOG_NAME", "import_gamingagent", "is_gamingagent_log"]

#: The name GamingAgent gives an episode's log.
LOG_NAME = re.compile(r"^episode_(\d+)_log\.jsonl$")
#: An episode log larger than this is not one to import.
MAX_LOG_BYTES = 64 * 1024 * 1024
#: Episode logs read from one folder at most.
MAX_EPISODES = 1_000
_MOVES = ("up", "down", "left", "right")
_BOARD_TEXT = re.compile(r"['\"]board['\"]\s*:\s*(\[\s*\[[\d\s,\[\]]*\]\s*\])")


def is_gamingagent_log(line: object) -> bool:
    """Whether a parsed first line looks like a GamingAgent step record."""
    return isinstance(line, dict) and {"episode_id", "step", "agent_action", "info"} <= set(line)


def _lines(path: Path) -> list[dict[str, Any]]:
    text = read_text(path, cap=MAX_LOG_BYTES, what="GamingAgent log")
    records: list[dict[str, Any]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            record = loads_json(raw, f"{path.name} line {number}")
        except InputError as exc:
            raise ImportFormatError(f"{path}: line {number} is not JSON ({exc})") from None
        if not is_gamingagent_log(record):
            raise ImportFormatError(
                f"{path}: line {number} is not a GamingAgent step record "
                "(it needs episode_id, step, agent_action and info)"
            )
        records.append(record)
    if not records:
        raise ImportFormatError(f"{path} holds no GamingAgent step")
    return records


def _board(record: dict[str, Any], where: str) -> list[list[int]]:
    """The logged board as tile values (the environment's powers, else the observation's text)."""
    info = record.get("info")
    powers = info.get("board") if isinstance(info, dict) else None
    if isinstance(powers, list) and powers and all(isinstance(r, list) for r in powers):
        if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 32 for r in powers for v in r):
            raise ImportFormatError(f"{where}: info.board holds a value that is not a tile power")
        return [[2**v if v else 0 for v in row] for row in powers]
    text = _observation_text(record)
    found = _BOARD_TEXT.search(text) if text else None
    if found is None:
        raise ImportFormatError(f"{where}: no board in info.board nor in the observation's text")
    values = json.loads(found.group(1))
    return [[int(v) for v in row] for row in values]


def _observation_text(record: dict[str, Any]) -> str:
    raw = record.get("agent_observation")
    if not isinstance(raw, str):
        return ""
    try:
        parsed = json.loads(raw)
    except ValueError:
        return raw
    text = parsed.get("textual_representation") if isinstance(parsed, dict) else None
    return text if isinstance(text, str) else ""


def _game_of(records: Sequence[dict[str, Any]], path: Path) -> str:
    info = records[0].get("info")
    keys = sorted(info) if isinstance(info, dict) else []
    if "board" in keys and "total_score" in keys:
        return "2048"
    shown = ", ".join(keys[:8]) or "nothing"
    raise ImportFormatError(
        f"{path}: this GamingAgent log's info ({shown}) carries no board PlayTrace can rebuild; "
        "only 2048 logs (info.board and info.total_score) import"
    )


def _move(record: dict[str, Any]) -> Action | None:
    action = record.get("agent_action")
    if not isinstance(action, str):
        return None
    word = action.strip().lower()
    return word if word in _MOVES else None


def _score(record: dict[str, Any], where: str) -> int:
    info = record["info"]
    total = info.get("total_score") if isinstance(info, dict) else None
    if not isinstance(total, int | float) or isinstance(total, bool) or total < 0 or total != int(total):
        raise ImportFormatError(f"{where}: info.total_score is not a whole non-negative number")
    return int(total)


def _states(
    game: Game, records: Sequence[dict[str, Any]], path: Path
) -> tuple[list[State], list[tuple[Action, str]], list[int]]:
    """The logged states and the moves between them; each move checked against PlayTrace's rules."""
    first = records[0]
    where = f"{path}: step {first.get('step')}"
    try:
        start = game.state_from_json(
            {
                "board": _board(first, where),
                "merged_sum": _score(first, where),
                "stagnant": 0,
                "step": 0,
                "seed": 0,
                "last_action": None,
                "spawned": None,
            }
        )
    except (GameError, ValueError) as exc:
        raise ImportFormatError(f"{where}: {exc}") from None
    states: list[State] = [start]
    moves: list[tuple[Action, str]] = []
    skipped: list[int] = []
    for record in records[1:]:
        where = f"{path}: step {record.get('step')}"
        action = _move(record)
        board = _board(record, where)
        before = states[-1]
        if action is None:
            if board != before.to_json()["board"]:
                raise ImportFormatError(
                    f"{where}: the action {record.get('agent_action')!r} is not a move but the board changed"
                )
            skipped.append(int(record.get("step") or 0))
            continue
        if before.is_over:
            raise ImportFormatError(f"{where}: PlayTrace's 2048 rules ended the game before this step")
        played = before.apply(action)
        data = played.to_json()
        slid: list[list[int]] = data["board"]
        if data.get("spawned") is not None:
            row, col = data["spawned"]
            slid = [list(r) for r in slid]
            slid[row][col] = 0
        spawned = _spawn(slid, board)
        if spawned is None and board != slid:
            raise ImportFormatError(
                f"{where}: the logged board is not what {action!r} slides to (plus one new tile)"
            )
        data.update(board=board, spawned=list(spawned) if spawned else None, merged_sum=_score(record, where))
        try:
            states.append(game.state_from_json(data))
        except (GameError, ValueError) as exc:
            raise ImportFormatError(f"{where}: {exc}") from None
        thought = record.get("thought")
        moves.append((action, thought.strip() if isinstance(thought, str) else ""))
    return states, moves, skipped


def _spawn(slid: list[list[int]], board: list[list[int]]) -> tuple[int, int] | None:
    """The one cell empty after the slide and holding a 2 or a 4 on the logged board, else ``None``."""
    if len(slid) != len(board) or any(len(a) != len(b) for a, b in zip(slid, board, strict=True)):
        return None
    diff = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v != slid[r][c]]
    if len(diff) != 1:
        return None
    r, c = diff[0]
    return (r, c) if slid[r][c] == 0 and board[r][c] in (2, 4) else None


def _logs(path: Path) -> list[Path]:
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if LOG_NAME.match(p.name) and p.is_file())
        if not found:
            raise ImportFormatError(f"{path} holds no GamingAgent episode log (episode_NNN_log.jsonl)")
        if len(found) > MAX_EPISODES:
            raise ImportFormatError(f"{path} holds more than {MAX_EPISODES} episode logs")
        return found
    return [path]


def import_gamingagent(path: Path, root: Path) -> list[Path]:
    """Import a GamingAgent episode log, or every ``episode_NNN_log.jsonl`` of a folder, into the
    sessions folder ``root``; returns the session folders written. Every log is checked before the
    first session is written.

    Raises:
        ImportFormatError: a log that is not GamingAgent's, of a game whose log carries no state, or
            whose boards do not follow from its moves.
        engine.safeio.InputError: a file that cannot be read.
    """
    import engine

    checked = []
    for log in _logs(path):
        records = _lines(log)
        game_id = _game_of(records, log)
        game = engine.make(game_id)
        states, moves, skipped = _states(game, records, log)
        checked.append((log, records, game, states, moves, skipped))
    root.mkdir(parents=True, exist_ok=True)
    written = []
    for log, records, game, states, moves, skipped in checked:
        first = records[0]
        episode = first.get("episode_id")
        by_step = {step: move for step, move in enumerate(moves)}
        side = RecordedSide("gamingagent:model", "GamingAgent model", by_step)
        extra = {
            "imported": {
                "format": "gamingagent",
                "file": log.name,
                "episode": episode,
                "first_step": {
                    "step": first.get("step"),
                    "action": first.get("agent_action"),
                    "thought": first.get("thought"),
                },
                "skipped_steps": skipped,
                "steps": [
                    {
                        k: r.get(k)
                        for k in (
                            "step",
                            "agent_action",
                            "reward",
                            "perf_score",
                            "time_taken_s",
                            "terminated",
                            "truncated",
                        )
                    }
                    for r in records
                ],
            }
        }
        title = f"GamingAgent {game.title}, episode {episode}"
        written.append(
            asyncio.run(play(game, [side], root, title, extra, max(1, len(moves)), state=follow(states)))
        )
    return written
