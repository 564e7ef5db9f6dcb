"""Helpers the built-in games share (private to :mod:`engine.games`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping

from engine.core import StateFormatError

__all__ = ["reading_state"]


@contextlib.contextmanager
def reading_state(data: object, game_id: str, name: str) -> Iterator[None]:
    """Check a saved state's envelope and report every format problem inside as one error.

    Inside the block, a missing key (``KeyError``) or a ``TypeError``/``ValueError`` raised while
    reading the fields becomes :class:`~engine.core.StateFormatError` ("not a <name> state: ..."), so
    ``Game.state_from_json`` only has to say what is wrong with a field.

    Args:
        data: What ``state_from_json`` was given.
        game_id: The game id a saved state may carry under ``"game"`` (states without one are accepted).
        name: The game's name in messages (``"2048"``, ``"tic-tac-toe"``).

    Raises:
        StateFormatError: ``data`` is not a JSON object of this game, or the block found it malformed.
    """
    try:
        if not isinstance(data, Mapping):
            raise TypeError(f"a {name} state is a JSON object")
        if data.get("game", game_id) != game_id:
            raise ValueError(f"this is a {data.get('game')!r} state, not {name}")
        yield data
    except (KeyError, TypeError, ValueError) as exc:
        detail = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise StateFormatError(f"not a {name} state: {detail}") from None
