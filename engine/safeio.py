"""The one way PlayTrace reads a user's file or folder.

Anything can sit where a user points a command: a FIFO that blocks every reader, ``/dev/zero`` that
never ends, a link to a private file, a zip of a few megabytes that unpacks to gigabytes, JSON nested
100,000 deep. Every command that reads a path it was given reads it through these helpers, which

- open **regular files only** (no FIFO, device or socket), without blocking, checked on the open
  descriptor (a file swapped for a device between a check and the open is still refused);
- read at most a **cap** of bytes (never allocating the cap up front);
- keep a path named inside a folder (a task set's image, a results folder's files) **confined** to
  that folder: no absolute path, no ``..``, no symbolic link that leaves it;
- parse JSON and TOML with a **depth limit**;
- check **archives** over all their members (total size, total compression ratio, member count),
  before unpacking and again on the bytes that actually come out;

and turn every problem into :class:`InputError`, one line that names the path.
Only the standard library is used here, so every layer (engine, sessions, desktop) can import it.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

__all__ = [
    "DEFAULT_CAP",
    "MAX_DEPTH",
    "ArchiveLimits",
    "InputError",
    "check_archive",
    "check_depth",
    "inside",
    "loads_json",
    "loads_toml",
    "open_regular",
    "read_bytes",
    "read_inside",
    "read_json",
    "read_text",
    "read_toml",
    "walk_files",
]

MiB = 1024 * 1024
#: The default cap on a file a user gives PlayTrace to read (a game, level, case, study, sweep or
#: task-set manifest is a few kilobytes; 16 MiB leaves room for generated ones).
DEFAULT_CAP = 16 * MiB
#: How deeply JSON and TOML may nest. PlayTrace's own files nest fewer than 12 levels.
MAX_DEPTH = 64

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class InputError(Exception):
    """A user's file or folder cannot be read safely. The message is one line naming the path."""


def _why(exc: OSError) -> str:
    return str(exc.strerror or exc).lower() if exc.strerror else str(exc)


def open_regular(path: Path | str, *, follow: bool = True, what: str = "") -> tuple[int, int]:
    """Open ``path`` for reading if it is a regular file; returns ``(fd, size)``.

    Opened without blocking (a FIFO would hang the caller) and checked with ``fstat`` on the open
    descriptor. With ``follow=False`` a symbolic link is refused.

    Raises:
        FileNotFoundError: ``path`` does not exist (callers name what was missing).
        InputError: not a regular file, a refused link, or unreadable.
    """
    p = Path(path)
    label = f"{what} {p}" if what else str(p)
    try:
        fd = os.open(p, os.O_RDONLY | _NONBLOCK | (0 if follow else _NOFOLLOW))
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise InputError(f"{label} is a folder, not a file") from None
    except OSError as exc:
        if not follow and os.path.islink(p):
            raise InputError(f"{label} is a symbolic link; refused") from None
        raise InputError(f"{label} cannot be read ({_why(exc)})") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{label} is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            kind = (
                "a named pipe (FIFO)" if stat.S_ISFIFO(st.st_mode)
                else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
                else "a socket" if stat.S_ISSOCK(st.st_mode)
                else "not a regular file"
            )
            raise InputError(f"{label} is {kind}, not a regular file; refused")
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, st.st_size


def _size(n: int) -> str:
    return f"{n / MiB:,.1f} MiB" if n >= MiB else f"{n:,} bytes"


def read_bytes(path: Path | str, *, cap: int = DEFAULT_CAP, what: str = "", follow: bool = True) -> bytes:
    """The bytes of the regular file ``path``; a file larger than ``cap`` is refused.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        InputError: not a regular file, unreadable, or larger than ``cap``.
    """
    p = Path(path)
    label = f"{what} {p}" if what else str(p)
    fd, size = open_regular(p, follow=follow, what=what)
    with os.fdopen(fd, "rb") as fh:
        if size > cap:
            raise InputError(f"{label} is {_size(size)}, more than the {_size(cap)} it may be; refused")
        try:
            # Not read(cap + 1): that allocates the whole cap, whatever the file's size.
            data = fh.read(size + 1)
            while len(data) <= cap and (more := fh.read(1 << 16)):  # it grew since fstat
                data += more
        except OSError as exc:
            raise InputError(f"{label} cannot be read ({_why(exc)})") from None
    if len(data) > cap:
        raise InputError(f"{label} is more than the {_size(cap)} it may be; refused")
    return data


def read_text(
    path: Path | str, *, cap: int = DEFAULT_CAP, what: str = "", encoding: str = "utf-8",
    errors: str = "strict",
) -> str:
    """The text of the regular file ``path`` (at most ``cap`` bytes).

    Raises:
        FileNotFoundError: ``path`` does not exist.
        InputError: as :func:`read_bytes`, or not text in ``encoding``.
    """
    data = read_bytes(path, cap=cap, what=what)
    try:
        return data.decode(encoding, errors)
    except UnicodeDecodeError as exc:
        label = f"{what} {path}" if what else str(path)
        raise InputError(f"{label} is not {encoding.upper()} text (byte {exc.start:,})") from None


def check_depth(value: Any, what: str, max_depth: int = MAX_DEPTH) -> None:
    """Refuse a parsed JSON/TOML value nested more than ``max_depth`` levels (checked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > max_depth:
            raise InputError(f"{what} is nested more than {max_depth} levels deep; refused")
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list | tuple))


def loads_json(data: bytes | str, what: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` that turns every malformed input (even 100,000 deep) into :class:`InputError`."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise InputError(f"{what} is nested more than {max_depth} levels deep; refused") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{what}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except (ValueError, TypeError) as exc:
        raise InputError(f"{what} is not valid JSON ({str(exc).splitlines()[0]})") from None
    check_depth(value, what, max_depth)
    return value


def read_json(path: Path | str, *, cap: int = DEFAULT_CAP, what: str = "", max_depth: int = MAX_DEPTH) -> Any:
    """Parse the JSON file ``path`` (a regular file of at most ``cap`` bytes, at most ``max_depth`` deep)."""
    label = f"{what} {path}" if what else str(path)
    return loads_json(read_bytes(path, cap=cap, what=what), label, max_depth=max_depth)


def loads_toml(text: str, what: str, *, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """``tomllib.loads`` with a depth limit; a syntax error is re-raised as ``tomllib.TOMLDecodeError``
    (callers locate its line), anything deeper than ``max_depth`` is an :class:`InputError`."""
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise InputError(f"{what} is nested more than {max_depth} levels deep; refused") from None
    check_depth(value, what, max_depth)
    return value


def read_toml(
    path: Path | str, *, cap: int = DEFAULT_CAP, what: str = "", max_depth: int = MAX_DEPTH
) -> dict[str, Any]:
    """Parse the TOML file ``path`` (see :func:`loads_toml`)."""
    label = f"{what} {path}" if what else str(path)
    return loads_toml(read_text(path, cap=cap, what=what), label, max_depth=max_depth)


def inside(base: Path | str, name: str | Path, *, what: str = "") -> Path:
    """The path ``name`` names inside the folder ``base``, refusing one that would leave it.

    ``name`` must be relative, without ``..``; after following links the result must still lie in
    ``base`` (a link to ``/etc/hostname`` inside the folder is refused).

    Raises:
        InputError: ``name`` leaves ``base``.
    """
    root = Path(base)
    text = str(name)
    label = f"{what} {text!r}" if what else repr(text)
    parts = PurePosixPath(text.replace("\\", "/")).parts
    if (
        not text
        or text.startswith(("/", "\\", "~"))
        or os.path.isabs(text)
        or (len(text) > 1 and text[1] == ":")
        or any(part == ".." for part in parts)
    ):
        raise InputError(f"{label} in {root} points outside that folder; refused")
    target = root / text
    try:
        resolved_root = root.resolve()
        resolved = target.resolve()
    except (OSError, RuntimeError) as exc:  # a link loop
        raise InputError(f"{label} in {root} cannot be resolved ({exc})") from None
    if not resolved.is_relative_to(resolved_root):
        raise InputError(f"{label} in {root} is a link that leaves that folder; refused")
    return target


def read_inside(base: Path | str, name: str | Path, *, cap: int = DEFAULT_CAP, what: str = "") -> bytes:
    """The bytes of the regular file ``name`` inside ``base`` (see :func:`inside`, :func:`read_bytes`)."""
    return read_bytes(inside(base, name, what=what), cap=cap, what=what)


def walk_files(
    root: Path | str, *, max_files: int = 100_000, max_total: int = 8 * 1024 * MiB, what: str = "folder",
) -> Iterator[Path]:
    """Every regular file under ``root``, refusing symbolic links, special files and folders that are
    too large (more than ``max_files`` files or ``max_total`` bytes).

    Raises:
        InputError: a link, a special file, or too much data under ``root``.
    """
    base = Path(root)
    count = 0
    total = 0
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        folder = Path(dirpath)
        for name in sorted(dirnames):
            if os.path.islink(folder / name):
                raise InputError(f"{folder / name} in the {what} {base} is a symbolic link; refused")
        dirnames.sort()
        for name in sorted(filenames):
            path = folder / name
            try:
                st = os.lstat(path)
            except OSError as exc:
                raise InputError(f"{path} cannot be read ({_why(exc)})") from None
            if stat.S_ISLNK(st.st_mode):
                raise InputError(f"{path} in the {what} {base} is a symbolic link; refused")
            if not stat.S_ISREG(st.st_mode):
                raise InputError(f"{path} in the {what} {base} is not a regular file; refused")
            count += 1
            total += st.st_size
            if count > max_files:
                raise InputError(f"the {what} {base} holds more than {max_files:,} files; refused")
            if total > max_total:
                raise InputError(f"the {what} {base} holds more than {_size(max_total)}; refused")
            yield path


class ArchiveLimits:
    """What a zip archive may unpack to, over all its members."""

    def __init__(
        self, *, max_total: int, max_member: int, max_members: int = 100_000, max_ratio: int = 200,
        ratio_from: int = 64 * MiB,
    ) -> None:
        #: All members together, unpacked.
        self.max_total = max_total
        #: One member, unpacked.
        self.max_member = max_member
        self.max_members = max_members
        #: The archive as a whole may not unpack to more than this many times its compressed size,
        #: once it unpacks to more than ``ratio_from`` bytes (data compresses 5 to 30 times; a zip
        #: bomb 1,000 times, whether in one member or spread over sixty).
        self.max_ratio = max_ratio
        self.ratio_from = ratio_from


def check_archive(members: list[zipfile.ZipInfo], source: Path | str, limits: ArchiveLimits) -> None:
    """Refuse an archive whose members, by their declared sizes, exceed ``limits``; also refuses
    absolute or ``..`` names and symbolic links. Callers count the bytes that come out as they
    unpack (see :class:`UnpackBudget`), since declared sizes may lie.

    Raises:
        InputError: the archive is unsafe.
    """
    if len(members) > limits.max_members:
        raise InputError(f"{source} holds more than {limits.max_members:,} files; refused")
    total = 0
    packed = 0
    for info in members:
        name = info.filename
        parts = PurePosixPath(name).parts
        drive = len(name) > 1 and name[1] == ":"
        if name.startswith(("/", "\\")) or "\\" in name or drive or ".." in parts:
            raise InputError(f"{source} is not a safe archive: it holds the path {name!r}; refused")
        if stat.S_ISLNK(info.external_attr >> 16):
            raise InputError(f"{source} is not a safe archive: {name!r} is a symbolic link; refused")
        if info.file_size > limits.max_member:
            raise InputError(
                f"{source}: {name!r} unpacks to {_size(info.file_size)}, more than {_size(limits.max_member)}"
                " (a zip bomb?); refused"
            )
        total += info.file_size
        packed += info.compress_size
    if total > limits.max_total:
        raise InputError(f"{source} unpacks to {_size(total)}, more than {_size(limits.max_total)}; refused")
    if total > limits.ratio_from and total > limits.max_ratio * max(packed, 1):
        raise InputError(
            f"{source} unpacks to {_size(total)} from {_size(packed)}, {total // max(packed, 1):,} times "
            "its size (a zip bomb?); refused"
        )


class UnpackBudget:
    """Counts the bytes that actually come out of an archive against its :class:`ArchiveLimits`."""

    def __init__(self, source: Path | str, limits: ArchiveLimits, packed: int) -> None:
        self.source = source
        self.limits = limits
        self.packed = max(packed, 1)
        self.total = 0

    def take(self, name: str, member_bytes: int, chunk: int) -> None:
        """Account ``chunk`` more bytes of member ``name`` (which has ``member_bytes`` so far)."""
        self.total += chunk
        lim = self.limits
        if member_bytes > lim.max_member:
            raise InputError(
                f"{self.source}: {name!r} unpacks to more than {_size(lim.max_member)} (a zip bomb?); refused"
            )
        if self.total > lim.max_total:
            raise InputError(f"{self.source} unpacks to more than {_size(lim.max_total)}; refused")
        if self.total > lim.ratio_from and self.total > lim.max_ratio * self.packed:
            raise InputError(
                f"{self.source} unpacks to more than {lim.max_ratio} times its size (a zip bomb?); refused"
            )
