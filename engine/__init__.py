"""PlayTrace engine: games, players, the agent harness, model providers and the match loop.

Qt-free by contract (see ``pyproject.toml``'s import-linter section).
"""

from typing import Any

from engine.core import (
    Action,
    Game,
    GameError,
    GameUnavailableError,
    IllegalActionError,
    InvalidActionError,
    Seat,
    State,
    StateFormatError,
    UnknownGameError,
)
from engine.options import Option, OptionError
from engine.registry import declaration, entries, list_games, make, refresh, spec

__all__ = [
    "Action",
    "Game",
    "GameError",
    "GameUnavailableError",
    "IllegalActionError",
    "InvalidActionError",
    "Option",
    "OptionError",
    "Seat",
    "State",
    "StateFormatError",
    "UnknownGameError",
    "check_game",
    "declaration",
    "entries",
    "list_games",
    "make",
    "refresh",
    "spec",
]


def __getattr__(name: str) -> Any:
    # check_game pulls in the match loop and the players; load it only when it is asked for.
    if name == "check_game":
        from engine.conformance import check_game

        return check_game
    raise AttributeError(f"module 'engine' has no attribute {name!r}")
