"""VGDL games (GVGAI-LLM): any game written in GVGAI's Video Game Description Language, on a grid.

* :mod:`.parser` — reading VGDL game files and ASCII levels (errors name the file and line);
* :mod:`.ontology` — the sprite classes, effects and terminations supported, and compiling a game;
* :mod:`.runtime` — one GVGAI tick on the grid (:mod:`.sprites`: a sprite's fields);
* :mod:`.effects` — the interaction effects;
* :mod:`.view` — the ASCII map, its legend and the rules in plain words;
* :mod:`.rules` — states and the ``vgdl`` game (any game file and level file);
* :mod:`.bundled` — PlayTrace's own VGDL games in ``assets/vgdl`` (``vgdl-<name>``);
* :mod:`.metrics` — GVGAI-LLM's episode metrics (meaningful steps, efficiency, overall score);
* ``prompts/`` — the prompt template (GVGAI-LLM's zero-shot prompt, ``Action: <number>``).

Its drawing is ``renderers/vgdl.py``.
"""

from engine.games.vgdl.ontology import ACTION_NAMES, CompiledGame, compile_text
from engine.games.vgdl.parser import VgdlError, parse_game, parse_level
from engine.games.vgdl.rules import VgdlGame, VgdlState

__all__ = [
    "ACTION_NAMES",
    "CompiledGame",
    "VgdlError",
    "VgdlGame",
    "VgdlState",
    "compile_text",
    "parse_game",
    "parse_level",
]
