"""Finding renderers: ``playtrace.renderers`` entry points map game ids to renderer classes.

Like games (:mod:`engine.registry`), renderers register by entry point, so a plug-in distribution
brings its game's drawing without touching PlayTrace. A renderer module is imported only when its
game is first drawn. A game without a renderer (or whose renderer fails to load) is drawn by the
fallback :class:`~renderers.text.TextRenderer`, so every game can be shown and sent to a vision model.
"""

from __future__ import annotations

import logging
import threading
from importlib import metadata

from renderers.base import Renderer

__all__ = ["GROUP", "RendererNotFoundError", "fallback", "get", "has", "list_renderers", "lookup", "refresh"]

#: The entry-point group renderers register under; the entry point's name is the game id.
GROUP = "playtrace.renderers"

log = logging.getLogger(__name__)


class RendererNotFoundError(KeyError):
    """No renderer of its own is registered for the requested game id (see :func:`lookup`)."""


_LOCK = threading.Lock()
_ENTRY_POINTS: dict[str, metadata.EntryPoint] | None = None
_INSTANCES: dict[str, Renderer] = {}
_FALLBACK: Renderer | None = None


def _entry_points() -> dict[str, metadata.EntryPoint]:
    global _ENTRY_POINTS
    if _ENTRY_POINTS is None:
        found: dict[str, metadata.EntryPoint] = {}
        for ep in metadata.entry_points(group=GROUP):
            found.setdefault(ep.name, ep)
        _ENTRY_POINTS = found
    return _ENTRY_POINTS


def refresh() -> None:
    """Forget the entry points and instances found so far (after installing a plug-in, in tests)."""
    global _ENTRY_POINTS
    with _LOCK:
        _ENTRY_POINTS = None
        _INSTANCES.clear()


def has(game_id: str) -> bool:
    """Whether ``game_id`` has a renderer of its own (otherwise the fallback draws it)."""
    with _LOCK:
        return game_id in _entry_points()


def list_renderers() -> list[str]:
    """Game ids that have a renderer of their own, sorted."""
    with _LOCK:
        return sorted(_entry_points())


def fallback() -> Renderer:
    """The renderer that draws any game's text view."""
    global _FALLBACK
    if _FALLBACK is None:
        from renderers.text import TextRenderer

        _FALLBACK = TextRenderer()
    return _FALLBACK


def lookup(game_id: str) -> Renderer:
    """The game's own renderer (shared: renderers are stateless).

    Raises:
        RendererNotFoundError: the game has no renderer of its own; the message lists those that do.
        TypeError: the entry point does not name a :class:`Renderer` subclass.
        ImportError: the renderer's module cannot be imported.
    """
    with _LOCK:
        instance = _INSTANCES.get(game_id)
        if instance is not None:
            return instance
        ep = _entry_points().get(game_id)
        if ep is None:
            known = ", ".join(sorted(_entry_points())) or "none"
            raise RendererNotFoundError(f"no renderer for game {game_id!r}; games with renderers: {known}")
        cls = ep.load()
        if not (isinstance(cls, type) and issubclass(cls, Renderer)):
            raise TypeError(f"{ep.value} is not a Renderer subclass")
        instance = _INSTANCES[game_id] = cls()
        return instance


def get(game_id: str) -> Renderer:
    """The renderer that draws ``game_id``: its own, or the text fallback. Never raises for a game
    without a renderer; a renderer that fails to load is logged and replaced by the fallback."""
    try:
        return lookup(game_id)
    except RendererNotFoundError:
        return fallback()
    except Exception as exc:  # a broken plug-in renderer must not take the app down
        log.warning(
            "the renderer of %s could not be loaded (%s); drawing its text view instead", game_id, exc
        )
        return fallback()
