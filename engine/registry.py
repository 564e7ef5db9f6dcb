"""The game registry: game ids mapped to lazily imported classes (Gymnasium-style entry points).

Registering by string keeps start-up cheap when PlayTrace knows 26 games: a game's module is
imported only when the game is first made.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from engine.core import Game, UnknownGameError


@dataclasses.dataclass(frozen=True, slots=True)
class GameSpec:
    """How to build a game: ``entry_point`` is ``"package.module:ClassName"``."""

    id: str
    entry_point: str
    title: str
    suites: tuple[str, ...] = ()
    seats: int = 1

    def load(self) -> type[Game]:
        module_name, _, attr = self.entry_point.partition(":")
        cls = getattr(importlib.import_module(module_name), attr)
        if not (isinstance(cls, type) and issubclass(cls, Game)):
            raise TypeError(f"{self.entry_point} is not a Game subclass")
        return cls


_REGISTRY: dict[str, GameSpec] = {}


def register(
    game_id: str, entry_point: str, *, title: str, suites: tuple[str, ...] = (), seats: int = 1
) -> None:
    """Register a game id. Ids are short lowercase words (``"2048"``, ``"tictactoe"``)."""
    if game_id != game_id.lower() or not game_id or " " in game_id:
        raise ValueError(f"game ids are short lowercase words, not {game_id!r}")
    if game_id in _REGISTRY and _REGISTRY[game_id].entry_point != entry_point:
        raise ValueError(f"game id {game_id!r} is already registered")
    _REGISTRY[game_id] = GameSpec(game_id, entry_point, title, suites, seats)


def spec(game_id: str) -> GameSpec:
    """The registration of ``game_id``.

    Raises:
        UnknownGameError: no such game; the message lists the known ids.
    """
    try:
        return _REGISTRY[game_id]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise UnknownGameError(f"unknown game {game_id!r}; known games: {known}") from None


def make(game_id: str, **options: Any) -> Game:
    """Build the game registered as ``game_id`` with the given options."""
    return spec(game_id).load()(**options)


def list_games() -> list[str]:
    """All registered game ids, sorted."""
    return sorted(_REGISTRY)


def all_specs() -> list[GameSpec]:
    return [_REGISTRY[g] for g in list_games()]


register("2048", "engine.games.g2048:Game2048", title="2048", suites=("lmgame",), seats=1)
register(
    "tictactoe",
    "engine.games.tictactoe:TicTacToe",
    title="Tic-tac-toe",
    suites=("gamebot", "lvlm"),
    seats=2,
)
