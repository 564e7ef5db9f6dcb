"""A lock file that tells "still being recorded" from "interrupted".

The writer holds an exclusive advisory lock on ``<session>/.writer.lock`` while it is open. The
operating system releases the lock when the process dies, however it dies, so a reader that can take
the lock knows nobody is writing the session any more.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import IO

LOCK_FILE = ".writer.lock"

if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fh: IO[bytes]) -> bool:
        try:
            fh.seek(0)
            msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined,unused-ignore]
            return True
        except OSError:
            return False

    def _unlock(fh: IO[bytes]) -> None:
        try:
            fh.seek(0)
            msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined,unused-ignore]
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


#: How long a writer retries to take the lock of a folder it has just created: another process's
#: sweep may hold it for a moment while it checks whether the folder was abandoned.
NEW_FOLDER_RETRY_S = 2.0


class FolderGone(OSError):
    """The folder being created was removed by another process's sweep before its lock was taken."""


class WriterLock:
    """Held by a :class:`~sessions.writer.SessionWriter` for as long as it is open.

    ``fresh=True``: the folder was just created by this process, so nobody else may own it. A failed
    attempt is then another process's sweep probing it, and is retried; if that sweep took the folder
    for abandoned and removed it (it had the lock file before this process could lock it),
    :class:`FolderGone` is raised and the caller creates another folder.
    """

    def __init__(self, folder: Path, *, fresh: bool = False) -> None:
        self._path = folder / LOCK_FILE
        self._fh: IO[bytes] | None = open(self._path, "a+b")
        deadline = time.monotonic() + (NEW_FOLDER_RETRY_S if fresh else 0.0)
        while not _try_lock(self._fh):
            if time.monotonic() >= deadline:  # another writer on the same folder: not ours to record
                self._fh.close()
                self._fh = None
                return
            time.sleep(0.002)
        if fresh and not _same_file(self._fh, self._path):
            _unlock(self._fh)
            self._fh.close()
            self._fh = None
            raise FolderGone(f"{folder} was removed while it was being created")

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


def _same_file(fh: IO[bytes], path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fh.fileno()), os.stat(path))
    except OSError:
        return False


def remove_if_abandoned(folder: Path) -> bool:
    """Remove ``folder`` if nobody holds its lock, holding the lock while removing it (so a writer that
    is just taking it waits, then finds its folder gone); returns whether it was removed."""
    import shutil

    try:
        fh = open(folder / LOCK_FILE, "rb")
    except OSError:
        return False
    with fh:
        if not _try_lock(fh):
            return False
        try:
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            _unlock(fh)
    return not folder.exists()


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


class FileLock:
    """An exclusive advisory lock on ``path`` (created if missing), released by :meth:`release` or by
    the process's death. Used for shared results folders (a study's participants).

    ``wait_s``: how long to keep trying before giving up (0: one try).
    """

    def __init__(self, path: Path, *, wait_s: float = 0.0) -> None:
        self.path = path
        self._fh: IO[bytes] | None = open(path, "a+b")  # noqa: SIM115  (held until release)
        deadline = time.monotonic() + wait_s
        while not _try_lock(self._fh):
            if time.monotonic() >= deadline:
                self._fh.close()
                self._fh = None
                return
            time.sleep(0.01)

    @property
    def held(self) -> bool:
        return self._fh is not None

    def release(self) -> None:
        if self._fh is None:
            return
        _unlock(self._fh)
        self._fh.close()
        self._fh = None

    def __enter__(self) -> FileLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def is_locked(path: Path) -> bool:
    """Whether a live process holds the :class:`FileLock` on ``path``."""
    try:
        fh = open(path, "rb")
    except OSError:
        return False
    with fh:
        if _try_lock(fh):
            _unlock(fh)
            return False
        return True
