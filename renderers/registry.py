"""Game ids mapped to lazily imported renderer classes, like :mod:`engine.registry` for games.

A renderer module is imported only when its game is first drawn, so opening the app does not pay for
the drawing code of every game. Games without a renderer are still playable as text; callers check
:func:`has` before asking for a board picture.
"""

from __future__ import annotations

import importlib
import threading

from renderers.base import Renderer

__all__ = ["RendererNotFoundError", "get", "has", "list_renderers", "register"]


class RendererNotFoundError(LookupError):
    """No renderer is registered for the requested game id."""


_ENTRY_POINTS: dict[str, str] = {}
_INSTANCES: dict[str, Renderer] = {}
_LOCK = threading.Lock()


def register(game_id: str, entry_point: str) -> None:
    """Register the renderer of ``game_id``; ``entry_point`` is ``"package.module:ClassName"``.

    Raises:
        ValueError: the entry point is malformed, or the id is already registered elsewhere.
    """
    module, sep, attr = entry_point.partition(":")
    if not (module and sep and attr):
        raise ValueError(f"entry points look like 'package.module:ClassName', not {entry_point!r}")
    if _ENTRY_POINTS.get(game_id, entry_point) != entry_point:
        raise ValueError(f"a renderer for {game_id!r} is already registered")
    _ENTRY_POINTS[game_id] = entry_point


def has(game_id: str) -> bool:
    """Whether a renderer is registered for ``game_id``."""
    return game_id in _ENTRY_POINTS


def list_renderers() -> list[str]:
    """Game ids that have a renderer, sorted."""
    return sorted(_ENTRY_POINTS)


def get(game_id: str) -> Renderer:
    """The shared renderer instance for ``game_id`` (renderers are stateless).

    Raises:
        RendererNotFoundError: no renderer is registered for the id; the message lists those that are.
        TypeError: the entry point does not name a :class:`Renderer` subclass.
    """
    with _LOCK:
        instance = _INSTANCES.get(game_id)
        if instance is not None:
            return instance
        try:
            entry_point = _ENTRY_POINTS[game_id]
        except KeyError:
            known = ", ".join(list_renderers()) or "none"
            raise RendererNotFoundError(
                f"no renderer for game {game_id!r}; games with renderers: {known}"
            ) from None
        module_name, _, attr = entry_point.partition(":")
        cls = getattr(importlib.import_module(module_name), attr)
        if not (isinstance(cls, type) and issubclass(cls, Renderer)):
            raise TypeError(f"{entry_point} is not a Renderer subclass")
        instance = _INSTANCES[game_id] = cls()
        return instance


register("2048", "renderers.g2048:G2048Renderer")
register("tictactoe", "renderers.tictactoe:TicTacToeRenderer")
