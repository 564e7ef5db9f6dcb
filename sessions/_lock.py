"""A lock file that tells "still being recorded" from "interrupted".

The writer holds an exclusive advisory lock on ``<session>/.writer.lock`` while it is open. The
operating system releases the lock when the process dies, however it dies, so a reader that can take
the lock knows nobody is writing the session any more.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

LOCK_FILE = ".writer.lock"

if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fh: IO[bytes]) -> bool:
        try:
            fh.seek(0)
            msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(fh: IO[bytes]) -> None:
        try:
            fh.seek(0)
            msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)
        except OSError:
            pass

else:
    import fcntl

    def _try_lock(fh: IO[bytes]) -> bool:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            return False

    def _unlock(fh: IO[bytes]) -> None:
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


class WriterLock:
    """Held by a :class:`~sessions.writer.SessionWriter` for as long as it is open."""

    def __init__(self, folder: Path) -> None:
        self._path = folder / LOCK_FILE
        self._fh: IO[bytes] | None = open(self._path, "a+b")
        if not _try_lock(self._fh):  # another writer on the same folder: not ours to record
            self._fh.close()
            self._fh = None

    def moved(self, folder: Path) -> None:
        """The locked folder was renamed to ``folder`` (the lock itself is unaffected)."""
        self._path = folder / LOCK_FILE

    def release(self) -> None:
        if self._fh is None:
            return
        _unlock(self._fh)
        self._fh.close()
        self._fh = None
        try:
            self._path.unlink()
        except OSError:
            pass


def is_being_written(folder: Path) -> bool:
    """Whether a live writer (in any process) holds the session in ``folder``."""
    path = folder / LOCK_FILE
    try:
        fh = open(path, "rb")
    except OSError:
        return False
    with fh:
        if _try_lock(fh):
            _unlock(fh)
            return False
        return True
