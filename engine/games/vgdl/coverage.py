"""Which VGDL games of a folder run: each game file with its level, a random player, a number of steps.

A folder of GVGAI games holds ``<game>.txt`` with its levels ``<game>_lvl0.txt`` … beside it (the layout
of GVGAI's ``examples/gridphysics``). :func:`run_folder` loads every game on one level and plays random
actions; a game that does not load or run is reported with the error, which names the file, the line and
the feature. ``playtrace vgdl coverage DIR`` prints the result.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Iterator
from pathlib import Path

from engine.games.vgdl.parser import VgdlError
from engine.games.vgdl.rules import VgdlGame

__all__ = ["GameRun", "file_warnings", "game_files", "run_folder", "run_game"]


@dataclasses.dataclass(frozen=True, slots=True)
class GameRun:
    """One game's result.

    Attributes:
        name: The game (its file's stem).
        steps: Steps played (fewer than asked when the game ended first).
        ok: Whether it loaded and ran.
        error: The error when it did not (one line: file, line, what is not supported).
        score: The score after the steps.
        won: ``True``/``False`` once the game ended, ``None`` while it still ran.
        warnings: How many things the file says that GVGAI ignores too.
    """

    name: str
    steps: int
    ok: bool
    error: str = ""
    score: float = 0.0
    won: bool | None = None
    warnings: int = 0


def game_files(folder: Path) -> list[Path]:
    """The game files of a folder (every ``*.txt`` that is not a level), sorted by name."""
    return sorted(p for p in folder.glob("*.txt") if "_lvl" not in p.stem and p.name.lower() != "readme.txt")


def run_game(game_file: Path, *, level: int = 0, steps: int = 100, seed: int = 0) -> GameRun:
    """Load ``game_file`` on its level ``level`` and play ``steps`` random actions (fewer if it ends)."""
    name = game_file.stem
    try:
        game = VgdlGame(
            game_file=str(game_file),
            level_file=str(game_file.with_name(f"{name}_lvl{level}.txt")),
            max_steps=max(steps, 1),
        )
        state = game.initial_state(seed=seed)
        rng = random.Random(seed)
        played = 0
        while played < steps and not state.is_over:
            state = state.apply(rng.choice(state.legal_actions()))
            played += 1
    except VgdlError as exc:
        return GameRun(name, 0, False, str(exc))
    if not math.isfinite(state.game_score):
        return GameRun(name, played, False, f"{game_file.name}: the score became {state.game_score}")
    won = state.won if state.tick < state.max_steps or state.won else None
    return GameRun(name, played, True, score=state.game_score, won=won, warnings=len(game.compiled.warnings))


def run_folder(
    folder: Path,
    *,
    level: int = 0,
    steps: int = 100,
    seed: int = 0,
    progress: Callable[[int, int, str], None] | None = None,
) -> Iterator[GameRun]:
    """:func:`run_game` for every game file of ``folder``, in name order; ``progress(done, total,
    name)`` is called before each game."""
    files = game_files(folder)
    for i, path in enumerate(files):
        if progress is not None:
            progress(i, len(files), path.stem)
        yield run_game(path, level=level, steps=steps, seed=seed)


def file_warnings(game_file: Path) -> list[str]:
    """What a game file says that GVGAI ignores or overrides too, one line each (``file, line N: ...``).

    Raises:
        VgdlError: the file does not load.
    """
    from engine.games.vgdl.ontology import compile_text
    from engine.games.vgdl.rules import read_text

    game = compile_text(read_text(game_file, "game"), game_file.name)
    return [f"{game_file.name}, line {line}: {message}" for line, message in game.warnings]
