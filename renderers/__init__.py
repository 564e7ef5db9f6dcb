"""PlayTrace renderers: game states drawn as images with QtGui only (no widgets).

The same renderer paints the board a person sees and the image a vision model receives::

    import renderers
    png_bytes = renderers.get("2048").png(state, 512, 512, grid_labels=True)

Renderers register through ``playtrace.renderers`` entry points; a game without one is drawn by the
text fallback. A ``QGuiApplication`` is needed to draw text; :func:`ensure_gui_app` creates an
offscreen-capable one when none is running (``render`` and ``png`` call it for you).
"""

from renderers.base import THEME, Renderer, Theme, encode_png, ensure_gui_app
from renderers.registry import RendererNotFoundError, fallback, get, has, list_renderers, lookup, refresh

__all__ = [
    "THEME",
    "Renderer",
    "RendererNotFoundError",
    "Theme",
    "encode_png",
    "ensure_gui_app",
    "fallback",
    "get",
    "has",
    "list_renderers",
    "lookup",
    "refresh",
]
