"""PlayTrace engine: games, players, the agent harness, model providers and the match loop.

Qt-free by contract (see ``pyproject.toml``'s import-linter section).
"""

from engine.core import (
    Action,
    Game,
    GameError,
    IllegalActionError,
    InvalidActionError,
    Seat,
    State,
    StateFormatError,
    UnknownGameError,
)
from engine.registry import list_games, make, register, spec

__all__ = [
    "Action",
    "Game",
    "GameError",
    "IllegalActionError",
    "InvalidActionError",
    "Seat",
    "State",
    "StateFormatError",
    "UnknownGameError",
    "list_games",
    "make",
    "register",
    "spec",
]
