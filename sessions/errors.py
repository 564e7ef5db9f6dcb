"""Errors raised by the session layer."""

from __future__ import annotations

from engine.safeio import InputError


class SessionError(InputError):
    """A path is not a readable PlayTrace session, or a session operation cannot be done.

    A kind of :class:`engine.safeio.InputError` (the safe input layer's one-line error).

    The message is one plain sentence that the app and the command line show as is.
    """


class MigrationError(SessionError):
    """A session was written in a schema version this PlayTrace cannot upgrade."""
