"""Safe reading of session archives (shared by the reader and by import)."""

from __future__ import annotations

import errno
import lzma
import os
import re
import shutil
import stat
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from sessions import schema
from sessions._files import MAX_MANIFEST_BYTES, open_regular
from sessions.errors import SessionError

# Caps on what an archive may unpack to, from what a session can hold: a 10,000-step model session
# has about 170 MB of events; attachments are board images and raw bodies of a few megabytes.
# Both the sizes the archive declares and the bytes actually streamed are checked against them.
#: The whole session, unpacked.
MAX_UNPACKED_BYTES = 4 * 1024**3
#: ``events.jsonl``.
MAX_EVENTS_BYTES = 2 * 1024**3
#: One attachment.
MAX_ATTACHMENT_BYTES = 256 * 1024**2
#: A member larger than :data:`MIN_RATIO_CHECK_BYTES` that is compressed more than this many times is
#: a zip bomb, not a session (session logs compress 5 to 30 times; a gigabyte of zeros 1,000 times).
MAX_RATIO = 200
MIN_RATIO_CHECK_BYTES = 64 * 1024**2

_SESSION_FILES = (schema.MANIFEST_FILE, schema.EVENTS_FILE)


def _check_name(name: str, source: Path) -> None:
    """Refuse absolute paths, parent references, drive letters and backslashes (zip-slip)."""
    parts = PurePosixPath(name).parts
    if (
        name.startswith(("/", "\\"))
        or "\\" in name
        or re.match(r"^[A-Za-z]:", name)
        or any(part == ".." for part in parts)
    ):
        raise SessionError(f"{source} is not a safe session archive: it contains the path {name!r}.")


def session_members(zf: zipfile.ZipFile, source: Path) -> tuple[str, list[tuple[zipfile.ZipInfo, str]]]:
    """Locate the one session inside ``zf``.

    Returns:
        The session's folder name inside the archive (``""`` when its files are at the top) and the
        members to unpack, each with its path relative to the session folder.

    Raises:
        SessionError: the archive is unsafe, holds no session, or holds several.
    """
    infos = zf.infolist()
    for info in infos:
        _check_name(info.filename, source)
        if stat.S_ISLNK(info.external_attr >> 16):
            raise SessionError(
                f"{source} is not a safe session archive: {info.filename!r} is a symbolic link."
            )
    prefixes: set[str] = set()
    for info in infos:
        parts = PurePosixPath(info.filename).parts
        if parts and parts[-1] in _SESSION_FILES and len(parts) <= 2:
            prefixes.add(parts[0] + "/" if len(parts) == 2 else "")
    if not prefixes:
        raise SessionError(
            f"{source} is not a PlayTrace session archive: it holds no manifest.json or events.jsonl."
        )
    if len(prefixes) > 1:
        raise SessionError(f"{source} holds several sessions; PlayTrace opens one session archive at a time.")
    prefix = prefixes.pop()
    members: list[tuple[zipfile.ZipInfo, str]] = []
    for info in infos:
        if info.is_dir() or not info.filename.startswith(prefix):
            continue
        rel = info.filename[len(prefix) :]
        if rel in _SESSION_FILES:
            members.append((info, rel))
        elif rel.startswith(schema.ATTACHMENTS_DIR + "/"):
            name = rel[len(schema.ATTACHMENTS_DIR) + 1 :]
            if schema.ATTACHMENT_NAME_RE.match(name):
                members.append((info, rel))
        elif rel.startswith(schema.ANNOTATIONS_DIR + "/"):
            name = rel[len(schema.ANNOTATIONS_DIR) + 1 :]
            if schema.ANNOTATION_NAME_RE.match(name):
                members.append((info, rel))
        # Anything else (desktop litter such as __MACOSX/ or .DS_Store) is left in the archive.
    return prefix.rstrip("/"), members


def _member_cap(rel: str) -> int:
    if rel == schema.MANIFEST_FILE:
        return MAX_MANIFEST_BYTES
    if rel == schema.EVENTS_FILE:
        return MAX_EVENTS_BYTES
    return MAX_ATTACHMENT_BYTES


def _too_big(source: Path, info: zipfile.ZipInfo, size: int) -> SessionError:
    return SessionError(
        f"{source} is not a session archive: {info.filename!r} unpacks to more than {size:,} bytes "
        "(a zip bomb?); refused."
    )


def check_sizes(members: list[tuple[zipfile.ZipInfo, str]], source: Path) -> None:
    """Refuse an archive whose declared sizes exceed what a session can hold, before unpacking."""
    total = 0
    for info, rel in members:
        cap = _member_cap(rel)
        if info.file_size > cap:
            raise _too_big(source, info, cap)
        if info.file_size > MIN_RATIO_CHECK_BYTES and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise SessionError(
                f"{source} is not a session archive: {info.filename!r} is compressed "
                f"{info.file_size // max(info.compress_size, 1):,} times (a zip bomb?); refused."
            )
        total += info.file_size
    packed = sum(info.compress_size for info, _rel in members)
    if total > MIN_RATIO_CHECK_BYTES and total > MAX_RATIO * max(packed, 1):
        # A bomb spread over many members, each under the per-member threshold (60 x 63 MiB).
        raise SessionError(
            f"{source} is not a session archive: it unpacks to {total:,} bytes from {packed:,}, "
            f"{total // max(packed, 1):,} times its size (a zip bomb?); refused."
        )
    if total > MAX_UNPACKED_BYTES:
        raise SessionError(
            f"{source} unpacks to {total:,} bytes, more than the {MAX_UNPACKED_BYTES:,} "
            "a session may hold; refused."
        )


def _damaged(source: Path, info: zipfile.ZipInfo, exc: BaseException) -> SessionError:
    if isinstance(exc, NotImplementedError):
        why = "uses a compression method PlayTrace cannot read"
    elif isinstance(exc, RuntimeError) and "encrypt" in str(exc).lower():
        why = "is encrypted"
    elif isinstance(exc, zipfile.BadZipFile) and "CRC" in str(exc):
        why = "is damaged (bad CRC)"
    else:
        why = f"cannot be unpacked ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
    return SessionError(f"{source} cannot be imported: {info.filename!r} {why}.")


def extract_members(
    zf: zipfile.ZipFile, members: list[tuple[zipfile.ZipInfo, str]], dest: Path, source: Path
) -> None:
    """Unpack ``members`` into ``dest``, checking every target stays inside it and the total size."""
    check_sizes(members, source)
    base = dest.resolve()
    (base / schema.ATTACHMENTS_DIR).mkdir(parents=True, exist_ok=True)
    total = 0
    packed = max(sum(info.compress_size for info, _rel in members), 1)
    for info, rel in members:
        target = (base / rel).resolve()
        if not target.is_relative_to(base):
            raise SessionError(
                f"{source} is not a safe session archive: {info.filename!r} points outside it."
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        cap, written = _member_cap(rel), 0
        try:
            with zf.open(info) as src, open(target, "wb") as out:
                while chunk := src.read(1 << 20):
                    written += len(chunk)
                    total += len(chunk)
                    # The declared sizes may lie: count what actually comes out.
                    if written > cap:
                        raise _too_big(source, info, cap)
                    if total > MAX_UNPACKED_BYTES:
                        raise SessionError(
                            f"{source} unpacks to more than {MAX_UNPACKED_BYTES:,} bytes; refused."
                        )
                    if total > MIN_RATIO_CHECK_BYTES and total > MAX_RATIO * packed:
                        raise SessionError(
                            f"{source} unpacks to more than {MAX_RATIO} times its size (a zip bomb?); "
                            "refused."
                        )
                    out.write(chunk)
        except SessionError:
            raise
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError,
                EOFError, ValueError, zlib.error, lzma.LZMAError) as exc:
            raise _damaged(source, info, exc) from None
        except OSError as exc:
            local = (FileNotFoundError, PermissionError)
            if isinstance(exc, local) or exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise SessionError(f"{source} cannot be unpacked: {exc.strerror or exc}.") from None
            raise _damaged(source, info, exc) from None


def open_zip(path: Path) -> zipfile.ZipFile:
    """Open ``path`` as a zip archive, or raise :class:`SessionError` (a FIFO or a device is refused
    before zipfile would block on it or read it forever)."""
    if path.is_dir():
        raise SessionError(f"{path} is a folder, not a session archive.")
    try:
        fd, _size = open_regular(path)
    except FileNotFoundError:
        raise SessionError(f"{path} does not exist.") from None
    except SessionError as exc:
        raise SessionError(f"{path} is not a session archive: {exc}.") from None
    fh = os.fdopen(fd, "rb")
    try:
        return zipfile.ZipFile(fh)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError) as exc:
        fh.close()
        raise SessionError(
            f"{path} is not a PlayTrace session archive: it is not a readable zip file."
        ) from exc
    except BaseException:
        fh.close()
        raise


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
