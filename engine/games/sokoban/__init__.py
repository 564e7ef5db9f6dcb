"""Sokoban, as LMGame-Bench plays it: everything the game knows but its drawing.

* :mod:`.levels` — the standard level format (``.xsb``, ``.sok``, ``.txt``) and :class:`Level`;
* :mod:`.deadlock` — dead squares and frozen boxes;
* :mod:`.solver` — A* over pushes, solutions in LURD notation;
* :mod:`.generator` — solvable rooms from a seed;
* :mod:`.rules` — states, rules, text views and the declaration :class:`Sokoban`;
* :mod:`.bots` — the solver bot;
* :mod:`.answers` — reading a move out of a model's reply;
* :mod:`.sim` — how the simulated model writes its reasoning and answers here;
* :mod:`.gym` — the board as a Gymnasium observation;
* ``prompts/`` — the prompt templates.

PlayTrace's own level sets are in ``assets/sokoban``. The drawing is ``renderers/sokoban.py``.
"""

from engine.games.sokoban.deadlock import dead_box, deadlocked, frozen
from engine.games.sokoban.generator import generate
from engine.games.sokoban.levels import Level, LevelFormatError, parse_levels, read_levels
from engine.games.sokoban.rules import (
    ACTIONS,
    BUNDLED,
    GENERATED,
    STUCK_LIMIT,
    Course,
    Sokoban,
    SokobanState,
    bundled_levels,
)
from engine.games.sokoban.solver import replay, solve

__all__ = [
    "ACTIONS",
    "BUNDLED",
    "GENERATED",
    "STUCK_LIMIT",
    "Course",
    "Level",
    "LevelFormatError",
    "Sokoban",
    "SokobanState",
    "bundled_levels",
    "dead_box",
    "deadlocked",
    "frozen",
    "generate",
    "parse_levels",
    "read_levels",
    "replay",
    "solve",
]
