"""Errors raised by the session layer."""

from __future__ import annotations


class SessionError(Exception):
    """A path is not a readable PlayTrace session, or a session operation cannot be done.

    The message is one plain sentence that the app and the command line show as is.
    """


class MigrationError(SessionError):
    """A session was written in a schema version this PlayTrace cannot upgrade."""
