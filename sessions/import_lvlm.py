"""LVLM-Playground's experiment records: its end-to-end games as PlayTrace sessions that replay.

LVLM-Playground (``xinke-wang/LVLM-Playground``) keeps one JSON record per model and recipe:
``{task: {game: [round, ...]}}`` with ``task`` one of ``e2e``, ``perceive``, ``qa``, ``rule`` and a
round ``null`` until it has run. An end-to-end round is ``{score, steps, history}``; each history entry
is one model turn: ``{step, screenshot_path, llm_raw_output, parsed_move, move_result, ai_move}``
(``parsed_move`` is ``"invalid"`` when no move could be read; ``ai_move`` is the built-in opponent's
reply, or ``null``).

What is imported
  Every finished end-to-end round of a two-player game (tic-tac-toe, reversi, chess) becomes
  a session of PlayTrace's game, with the game options of the ``lvlm-playground`` protocol: the model
  is the first seat (the reference's ``player_first``), the opponent the second; each of the model's
  moves has its raw answer as the decision's rationale. Every move is played by PlayTrace's rules and
  must be legal there: a record where it is not is refused with its round and step. A turn whose move
  was unreadable or refused by the reference (``parsed_move`` ``"invalid"``, or an invalid
  ``move_result``) changed nothing there and is left out of the session; the turns left out are listed
  in ``extra.imported.invalid_turns``. A round that stops before the game is over (the reference ends
  a game at its third invalid move) ends with the model's forfeit, a loss as in the paper.

What is not imported
  * Sudoku and Minesweeper rounds: the record holds their moves but not the puzzle (the start is
    drawn at random and kept only as screenshots), so the file is refused when it holds one.
  * Gomoku rounds: the reference reads the model's ``"H8"`` as row H and the 0-based column 8 but
    writes its own replies with 1-based columns, so the file is refused when it holds one.
  * A Reversi pass: the reference's record has none; where the player to move has no move but the
    pass, the pass is played (its rationale says so).
  * The model's mark: the reference draws X or O at random for the model and does not record it;
    the session's first seat plays first, as the model did.
  * The ``perceive``, ``qa`` and ``rule`` results: their items are the reference's own generated
    screenshots, which PlayTrace's task sets (``playtrace tasks``) do not hold, so they cannot be
    scored against PlayTrace items; they are skipped and the import says how many.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.core import Action, Game, GameError, State
from engine.safeio import InputError, read_json
from sessions._replay import ImportFormatError, RecordedSide, play

__all__ = ["import_lvlm", "is_lvlm_record"]

#: An experiment record larger than this is not one to import.
MAX_RECORD_BYTES = 256 * 1024 * 1024
TASKS = ("e2e", "perceive", "qa", "rule")
#: Games of the reference whose rounds cannot be rebuilt, and why.
_REFUSED = {
    "sudoku": "rounds do not record the puzzle they started from (only screenshots)",
    "minesweeper": "rounds do not record the minefield they started from (only screenshots)",
    "gomoku": "rounds name the model's moves with 0-based columns and the opponent's with 1-based ones "
    "(the reference's input_move and ai_move differ), so a record's moves cannot be placed with confidence",
}
_INVALID = ("invalid", "invalid_move", "INVALID_MOVE")


def is_lvlm_record(data: object) -> bool:
    """Whether parsed JSON looks like an LVLM-Playground experiment record."""
    return (
        isinstance(data, dict)
        and bool(data)
        and set(data) <= set(TASKS)
        and all(isinstance(v, dict) and all(isinstance(r, list) for r in v.values()) for v in data.values())
    )


def _options(game_id: str) -> Mapping[str, Any]:
    from engine.protocols import load_protocol

    return load_protocol("lvlm-playground").options_for(game_id)


def _action(game: Game, state: State, name: str, where: str) -> Action:
    """The legal action of the player to move that LVLM-Playground's move ``name`` names."""
    from engine.tasks import TaskError, definitions

    if state.is_over or not state.to_act:
        raise ImportFormatError(f"{where}: the game is already over in PlayTrace's rules at {name!r}")
    seat = state.to_act[0]
    try:
        defs = definitions(game.id)
    except TaskError as exc:
        raise ImportFormatError(f"{where}: {exc}") from None
    read = defs.read_move(f"Movement: {name}")
    legal = state.legal_actions(seat)
    if read is not None:
        if read in legal:
            return read
        names = defs.valid_moves(state, seat)
        if len(names) == len(legal) and read in names:
            return legal[names.index(read)]
    try:  # the game's own reader (chess: a move the reference took as SAN or as coordinates)
        action = game.parse_action(name, state, seat)
    except GameError:
        action = None
    if action is not None and action in legal:
        return action
    raise ImportFormatError(f"{where}: {name!r} is not a legal move there in PlayTrace's rules")


def _forced(game: Game, state: State) -> Action | None:
    """The one action the player to move must play when it has no move the reference can name (a
    Reversi pass, which the reference's record does not write), else ``None``."""
    from engine.tasks import definitions

    if state.is_over or not state.to_act:
        return None
    seat = state.to_act[0]
    legal = state.legal_actions(seat)
    return legal[0] if len(legal) == 1 and not definitions(game.id).valid_moves(state, seat) else None


def _invalid(entry: Mapping[str, Any]) -> bool:
    move, result = entry.get("parsed_move"), entry.get("move_result")
    return not isinstance(move, str) or move in _INVALID or str(result) in _INVALID or result == -1


def _round(
    game: Game, round_: object, where: str
) -> tuple[list[tuple[int, Action, str]], list[int], State, Mapping[str, Any]]:
    if not isinstance(round_, dict) or not isinstance(round_.get("history"), list):
        raise ImportFormatError(f"{where}: an e2e round is {{score, steps, history}}")
    state = game.initial_state(seed=0)
    moves: list[tuple[int, Action, str]] = []

    def play_one(action: Action, comment: str) -> None:
        nonlocal state
        seat = state.to_act[0]
        moves.append((seat, action, comment))
        state = state.apply({seat: action})
        forced = _forced(game, state)
        while forced is not None:
            seat = state.to_act[0]
            moves.append((seat, forced, "forced (not in the record)"))
            state = state.apply({seat: forced})
            forced = _forced(game, state)

    invalid: list[int] = []
    for number, entry in enumerate(round_["history"], 1):
        at = f"{where}, step {number}"
        if not isinstance(entry, dict) or "parsed_move" not in entry:
            raise ImportFormatError(f"{at}: a history entry needs parsed_move (and llm_raw_output, ai_move)")
        if _invalid(entry):
            invalid.append(number)
            continue
        raw = entry.get("llm_raw_output")
        play_one(
            _action(game, state, str(entry["parsed_move"]), at), raw.strip() if isinstance(raw, str) else ""
        )
        reply = entry.get("ai_move")
        if reply is not None:
            play_one(_action(game, state, str(reply), f"{at} (the opponent's reply)"), "")
    score = round_.get("score")
    return moves, invalid, state, {"score": score, "steps": round_.get("steps")}


def import_lvlm(path: Path, root: Path) -> list[Path]:
    """Import the end-to-end rounds of an LVLM-Playground experiment record into ``root``; returns
    the session folders written. Every round is checked before the first session is written.

    Raises:
        ImportFormatError: not a record, no end-to-end round to import, a solo game's round, or a move
            that is not legal in PlayTrace's rules.
        engine.safeio.InputError: the file cannot be read.
    """
    import engine

    try:
        data = read_json(path, cap=MAX_RECORD_BYTES, what="LVLM-Playground record")
    except InputError:
        raise
    except ValueError as exc:
        raise ImportFormatError(f"{path}: {exc}") from None
    if not is_lvlm_record(data):
        raise ImportFormatError(f"{path} is not an LVLM-Playground record ({{task: {{game: [rounds]}}}})")
    e2e: Mapping[str, Sequence[object]] = data.get("e2e", {})
    checked = []
    for name, rounds in e2e.items():
        done = [(i, r) for i, r in enumerate(rounds, 1) if r is not None]
        if not done:
            continue
        if name in _REFUSED:
            raise ImportFormatError(f"{path}: e2e {name} {_REFUSED[name]}")
        try:
            game = engine.make(name, **_options(name))
        except (GameError, ValueError) as exc:
            raise ImportFormatError(f"{path}: e2e game {name!r}: {exc}") from None
        if game.num_seats != 2:
            raise ImportFormatError(f"{path}: e2e game {name!r} is not a two-player game")
        for number, round_ in done:
            checked.append((name, number, game, *_round(game, round_, f"{path}: e2e {name} round {number}")))
    skipped = sum(1 for task in TASKS[1:] for rounds in data.get(task, {}).values() for r in rounds if r)
    if not checked:
        raise ImportFormatError(
            f"{path} holds no finished end-to-end round of a two-player game"
            + (f" ({skipped} perceive/qa/rule results are not imported)" if skipped else "")
        )
    root.mkdir(parents=True, exist_ok=True)
    written = []
    for name, number, game, moves, invalid, final, facts in checked:
        by_seat: list[dict[int, tuple[Action, str]]] = [{}, {}]
        for step, (seat, action, comment) in enumerate(moves):
            by_seat[seat][step] = (action, comment)
        sides = [
            RecordedSide("lvlm:model", "LVLM-Playground model", by_seat[0], resigns=True),
            RecordedSide("lvlm:opponent", "LVLM-Playground opponent", by_seat[1], resigns=True),
        ]
        extra = {
            "imported": {
                "format": "lvlm",
                "file": path.name,
                "game": name,
                "round": number,
                "invalid_turns": invalid,
                "reference": facts,
                "not_imported_results": skipped,
            }
        }
        max_steps = len(moves) + (0 if final.is_over else 1)
        title = f"LVLM-Playground {game.title}, round {number}"
        written.append(asyncio.run(play(game, sides, root, title, extra, max(1, max_steps))))
    return written
