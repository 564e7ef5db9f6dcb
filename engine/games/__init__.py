"""The built-in PlayTrace games.

Each module holds one game: its rules, state class, text views and ground-truth helpers. Games are
registered by entry point in :mod:`engine.registry` and imported only when first made, so this
package imports nothing eagerly.
"""

from __future__ import annotations
