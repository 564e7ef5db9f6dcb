"""Careful reading of files found in a sessions folder.

A sessions folder is user data: anything can sit where a manifest is expected (a FIFO that blocks
every reader, a link to ``/dev/zero`` that never ends, a 400 MB title, JSON nested 100,000 deep).
These helpers open regular files only, never read more than a cap, and turn every such problem into
:class:`~sessions.errors.SessionError` with one sentence.
"""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path
from typing import Any

from engine.safeio import InputError, check_depth
from sessions import schema
from sessions._lock import LOCK_FILE, remove_if_abandoned
from sessions.errors import SessionError

#: A manifest is a few kilobytes; anything past this is not one.
MAX_MANIFEST_BYTES = 16 * 1024 * 1024
#: Text fields copied into summaries and the catalogue index are cut to this many characters.
MAX_TEXT_CHARS = 200

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def open_regular(path: Path, *, follow: bool = True) -> tuple[int, int]:
    """Open ``path`` for reading if it is a regular file; returns ``(fd, size)``.

    The file is opened without blocking (a FIFO would otherwise hang the caller) and checked with
    ``fstat`` on the open descriptor, so a file swapped for a device after the check is still refused.
    With ``follow=False`` a symbolic link is refused too.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        SessionError: ``path`` is not a regular file, or cannot be read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | (0 if follow else _NOFOLLOW))
    except FileNotFoundError:
        raise
    except OSError as exc:
        if not follow and os.path.islink(path):
            raise SessionError(f"{path.name} is a symbolic link, not a file of the session") from None
        raise SessionError(f"{path.name} cannot be read ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SessionError(f"{path.name} is not a regular file")
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, st.st_size


def read_capped(path: Path, cap: int) -> bytes:
    """The bytes of the regular file ``path``, refusing files larger than ``cap``.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        SessionError: not a regular file, unreadable, or larger than ``cap``.
    """
    fd, size = open_regular(path)
    with os.fdopen(fd, "rb") as fh:
        if size > cap:
            raise SessionError(
                f"{path.name} is {size:,} bytes, more than the {cap:,} a session file may hold"
            )
        try:
            # Not read(cap + 1): that allocates the whole cap up front, whatever the file's size.
            data = fh.read(size + 1)
            while len(data) <= cap and (more := fh.read(1 << 16)):  # grew since fstat
                data += more
        except OSError as exc:
            raise SessionError(f"{path.name} cannot be read ({exc.strerror or exc})") from None
    if len(data) > cap:
        raise SessionError(f"{path.name} is larger than the {cap:,} bytes a session file may hold")
    return data


def parse_json(data: bytes | str, what: str) -> Any:
    """``json.loads`` that raises :class:`SessionError` for any malformed input (even 100,000-deep)."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise SessionError(f"{what} is nested too deeply to be read") from None
    except (ValueError, TypeError) as exc:
        raise SessionError(f"{what} is not valid JSON ({exc})") from None
    try:
        check_depth(value, what)
    except InputError as exc:
        raise SessionError(str(exc)) from None
    return value


def read_manifest(path: Path) -> Any:
    """Parse the manifest at ``path`` (a regular file of at most :data:`MAX_MANIFEST_BYTES`).

    Raises:
        FileNotFoundError: there is no manifest.
        SessionError: it cannot be read or parsed.
    """
    return parse_json(read_capped(path, MAX_MANIFEST_BYTES), path.name)


def short_text(value: Any, limit: int = MAX_TEXT_CHARS) -> str | None:
    """``value`` if it is a string, cut to ``limit`` characters (with an ellipsis); else ``None``."""
    if not isinstance(value, str):
        return None
    return value if len(value) <= limit else value[: limit - 1] + "…"


def is_regular(path: Path) -> bool:
    """Whether ``path`` itself (not what a link points to) is a regular file."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


#: A work folder without a lock is considered abandoned after this many seconds.
STALE_AFTER_S = 3600.0


def sweep_stale(parent: Path, prefix: str) -> list[Path]:
    """Remove the abandoned work folders ``<parent>/<prefix>*`` left by killed processes.

    A work folder holds a lock (see :mod:`sessions._lock`) while its process lives. A folder whose
    lock nobody holds is abandoned; one without a lock file (left by an older PlayTrace, or created
    a moment ago) is abandoned only when it has not changed for :data:`STALE_AFTER_S` seconds.

    Returns:
        The folders removed.
    """
    import shutil

    removed: list[Path] = []
    try:
        entries = [e for e in os.scandir(parent) if e.name.startswith(prefix)]
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
            folder = Path(entry.path)
            if (folder / LOCK_FILE).exists():
                if remove_if_abandoned(folder):
                    removed.append(folder)
                continue
            stale = now - entry.stat(follow_symlinks=False).st_mtime > STALE_AFTER_S
        except OSError:
            continue
        if stale:
            shutil.rmtree(folder, ignore_errors=True)
            if not folder.exists():
                removed.append(folder)
    return removed


def find_temp_manifest(folder: Path) -> tuple[Path, dict[str, Any]] | None:
    """The newest complete manifest left in ``folder/.manifest.json.*.tmp`` by a process killed
    between writing it and renaming it into place (``None`` if there is none)."""
    best: tuple[int, Path, dict[str, Any]] | None = None
    try:
        candidates = [p for p in folder.glob(".manifest.json.*.tmp") if is_regular(p)]
    except OSError:
        return None
    for tmp in candidates:
        try:
            raw = read_manifest(tmp)
            mtime = tmp.stat().st_mtime_ns
        except (OSError, SessionError):
            continue
        usable = isinstance(raw, dict) and raw.get("format") == schema.FORMAT
        if usable and (best is None or mtime > best[0]):
            best = (mtime, tmp, raw)
    return None if best is None else (best[1], best[2])


def umask_mode(base: int = 0o666) -> int:
    """``base`` less the process's umask: the mode ``open()`` would give a new file. A file made with
    ``tempfile.mkstemp`` (always 0600) and then published for people to share is set to this."""
    mask = os.umask(0)
    os.umask(mask)
    return base & ~mask


def publish(path: Path | str) -> None:
    """Give a file written through ``mkstemp`` the permissions a plain new file would have."""
    os.chmod(path, umask_mode())
