"""Safe reading of session archives (shared by the reader and by import)."""

from __future__ import annotations

import re
import shutil
import stat
import zipfile
from pathlib import Path, PurePosixPath

from sessions import schema
from sessions.errors import SessionError

#: Refuse archives that would unpack to more than this (a zip bomb is not a session).
MAX_UNPACKED_BYTES = 8 * 1024**3

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
        # Anything else (desktop litter such as __MACOSX/ or .DS_Store) is left in the archive.
    return prefix.rstrip("/"), members


def extract_members(
    zf: zipfile.ZipFile, members: list[tuple[zipfile.ZipInfo, str]], dest: Path, source: Path
) -> None:
    """Unpack ``members`` into ``dest``, checking every target stays inside it and the total size."""
    base = dest.resolve()
    (base / schema.ATTACHMENTS_DIR).mkdir(parents=True, exist_ok=True)
    total = 0
    for info, rel in members:
        target = (base / rel).resolve()
        if not target.is_relative_to(base):
            raise SessionError(
                f"{source} is not a safe session archive: {info.filename!r} points outside it."
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        with zf.open(info) as src, open(target, "wb") as out:
            while chunk := src.read(1 << 20):
                total += len(chunk)
                if total > MAX_UNPACKED_BYTES:
                    raise SessionError(
                        f"{source} unpacks to more than {MAX_UNPACKED_BYTES >> 30} GiB; refused."
                    )
                out.write(chunk)


def open_zip(path: Path) -> zipfile.ZipFile:
    """Open ``path`` as a zip archive, or raise :class:`SessionError`."""
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SessionError(
            f"{path} is not a PlayTrace session archive: it is not a readable zip file."
        ) from exc


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
