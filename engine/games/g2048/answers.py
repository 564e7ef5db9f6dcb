"""Reading a 2048 move out of a model's reply (the game's answer extractor): the last ``move:``
line (``push up`` and ``move up`` read as ``up``); without one, the last direction word in the
text. Shared with the other direction-move games through :func:`engine.agent.parse.extract_direction`."""

from __future__ import annotations

from engine.agent.parse import extract_direction as extract_move

__all__ = ["extract_move"]
