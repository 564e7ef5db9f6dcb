"""``events.jsonl`` read lazily: one streamed pass builds an index, events are parsed when asked for.

A 10,000-step model session holds about 170 MB of events (prompts, streamed reasoning, answers);
parsed into dicts they took 800 MB. :class:`EventLog` keeps only where each readable line starts,
its length, its type and its step (a few dozen bytes per event) and parses a line again when it is
read, so opening a session costs memory in proportion to its number of events, not their size.
"""

from __future__ import annotations

import gc
import json
import os
import threading
from array import array
from collections import Counter, OrderedDict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

from sessions import _files, schema
from sessions.errors import MigrationError, SessionError
from sessions.migrations import migrate_event

# The C scanner behind json.loads (typeshed does not declare the attribute).
_scan_once = json.JSONDecoder().scan_once  # type: ignore[attr-defined]

#: Bad middle lines are listed one by one up to this many, then counted.
_MAX_LINE_WARNINGS = 10
#: A line longer than this is not an event (blobs are attachments, not inline data).
MAX_LINE_BYTES = 64 * 1024 * 1024
#: Parsed events kept for repeated reads of the same step.
_CACHE_SIZE = 256
_NO_STEP = -(2**62)


def _same(a: Sequence[Any], other: object) -> bool:
    """List equality for the lazy sequences (compared with lists, tuples or each other)."""
    if not isinstance(other, (list, tuple, EventLog, Subset)):
        return NotImplemented  # type: ignore[no-any-return]  # __eq__'s "not mine to compare"
    return len(a) == len(other) and all(x == y for x, y in zip(a, other, strict=True))


def _int_or_none(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _parse(line: str) -> Any:
    """One JSON value filling ``line``; raises ValueError for anything else (even 100,000-deep)."""
    try:
        # The decoder's scanner without json.loads' wrappers: most of the time spent opening a log.
        obj, end = _scan_once(line, 0)
    except StopIteration:
        raise ValueError("no JSON value") from None
    except RecursionError:
        raise ValueError("nested too deeply") from None
    if end != len(line):
        raise ValueError("trailing characters")
    return obj


def _is_id(v: Any) -> bool:
    return v is None or type(v) is int


def normalize(obj: Any) -> tuple[dict[str, Any] | None, int]:
    """An event line in the current schema (or ``None`` if it is not an event) and its version."""
    current = schema.SCHEMA_VERSION
    if (
        type(obj) is dict
        and obj.get("v") == current
        and len(obj) == len(schema.LINE_KEYS)
        and type(obj.get("type")) is str
        and type(obj.get("data")) is dict
        and _is_id(obj.get("step"))
        and _is_id(obj.get("seat"))
        and _is_id(obj.get("call"))
    ):
        # Fast path: a line written by this version's writer is already in the final shape.
        return obj, current
    if not isinstance(obj, dict) or not isinstance(obj.get("type", obj.get("kind")), str):
        return None, current
    try:
        obj, version = migrate_event(obj)
    except MigrationError:
        return None, current
    if not isinstance(obj.get("type"), str):
        return None, version
    data = obj.get("data")
    return {
        "v": current,
        "seq": _int_or_none(obj.get("seq")),
        "ts": obj.get("ts") if isinstance(obj.get("ts"), str) else None,
        "type": obj["type"],
        "step": _int_or_none(obj.get("step")),
        "seat": _int_or_none(obj.get("seat")),
        "call": _int_or_none(obj.get("call")),
        "data": data if isinstance(data, dict) else {},
    }, version


class EventLog(Sequence[dict[str, Any]]):
    """The readable events of one ``events.jsonl``, in file order, parsed on access.

    Behaves as a read-only list of event dicts (``len``, indexing, slicing, iteration). ``types``
    and ``steps`` give each event's type and step without parsing it.

    Attributes:
        warnings: Problems met while indexing (one sentence each).
        damage: The subset of :attr:`warnings` that means the log is damaged (cut, corrupt lines).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offsets = array("q")
        self._lengths = array("q")
        self._steps = array("q")
        self.types: list[str] = []
        self.warnings: list[str] = []
        self.damage: list[str] = []
        self._cache: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._fh: Any = None
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the file kept open for reading (it is opened again when needed)."""
        fh, self._fh = self._fh, None
        if fh is not None:
            fh.close()

    def __del__(self) -> None:
        self.close()

    # -- indexing --------------------------------------------------------------------------------

    def _index(self, fh: Any) -> None:
        bad: list[int] = []
        unknown: Counter[str] = Counter()
        migrated_from: set[int] = set()
        newer = False
        current = schema.SCHEMA_VERSION
        intern: dict[str, str] = {}
        pos, lineno = 0, 0
        torn: int | None = None
        while True:
            raw = fh.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            start, lineno = pos, lineno + 1
            pos += len(raw)
            too_long = len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n")
            if too_long:
                while (more := fh.readline(1 << 20)) and not more.endswith(b"\n"):
                    pos += len(more)
                pos += len(more)
            if too_long:
                if torn is not None:
                    bad.append(torn)
                    torn = None
                bad.append(lineno)
                continue
            text = raw.decode("utf-8", errors="replace")
            if start == 0 and text.startswith("\ufeff"):
                # A byte-order mark left by an editor must not cost the session_started line.
                text = text[1:]
                start += 3
            line = text.strip()
            if not line:
                continue
            if torn is not None:  # an unreadable line followed by more lines was not the torn end
                bad.append(torn)
                torn = None
            try:
                obj = _parse(line)
            except ValueError:
                torn = lineno  # unreadable; the torn end of the log if nothing follows it
                continue
            event, version = normalize(obj)
            if event is None:
                bad.append(lineno)
                continue
            if version < current:
                migrated_from.add(version)
            elif version > current:
                newer = True
            type_ = intern.setdefault(event["type"], event["type"])
            if type_ not in schema.KNOWN_EVENT_TYPES:
                unknown[type_] += 1
            self._offsets.append(start)
            self._lengths.append(
                len(raw.rstrip(b"\r\n")) - (3 if start and raw.startswith(b"\xef\xbb\xbf") else 0)
            )
            step = event["step"]
            self._steps.append(_NO_STEP if step is None else step)
            self.types.append(type_)
        self._finish_warnings(bad, torn, unknown, migrated_from, newer)

    def _finish_warnings(
        self, bad: list[int], torn: int | None, unknown: Counter[str], migrated_from: set[int], newer: bool
    ) -> None:
        damage = self.damage
        for n in bad[:_MAX_LINE_WARNINGS]:
            damage.append(f"line {n} of events.jsonl is not a readable event; skipped")
        if len(bad) > _MAX_LINE_WARNINGS:
            damage.append(
                f"{len(bad) - _MAX_LINE_WARNINGS} more unreadable lines of events.jsonl were skipped"
            )
        if torn is not None:
            # Expected of a session whose process was killed: a warning, not damage on its own (a
            # cut log of a closed session is damage through the manifest's step count instead).
            self.warnings.append(
                f"the last line of events.jsonl (line {torn}) is incomplete, "
                "probably cut off by a crash; skipped"
            )
        self.warnings[:0] = damage
        for type_, n in sorted(unknown.items()):
            self.warnings.append(f"{n} event(s) of unknown type {type_!r} kept as they are")
        for v in sorted(migrated_from):
            self.warnings.append(
                f"events written with schema version {v} were upgraded to version {schema.SCHEMA_VERSION}"
            )
        if newer:
            self.warnings.append(
                "some events were written by a newer PlayTrace; parts of them may not be shown"
            )

    # -- reading ---------------------------------------------------------------------------------

    def step_of(self, i: int) -> int | None:
        s = self._steps[i]
        return None if s == _NO_STEP else s

    def _read(self, fh: Any, i: int) -> dict[str, Any]:
        fh.seek(self._offsets[i])
        text = fh.read(self._lengths[i]).decode("utf-8", errors="replace").strip()
        try:
            event, _ = normalize(_parse(text))
        except ValueError:
            event = None
        if event is None:  # the file changed under us since it was indexed
            raise SessionError(f"{self.path} changed while it was open (event {i} is no longer readable)")
        return event

    def _open(self) -> Any:
        fd, _ = _files.open_regular(self.path)
        return os.fdopen(fd, "rb")

    def __len__(self) -> int:
        return len(self.types)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = len(self.types)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("event index out of range")
        cached = self._cache.get(i)
        if cached is not None:
            return cached
        with self._lock:  # the app reads a session from worker threads and the GUI thread
            if self._fh is None:
                # Kept open for the next seek (closed with the log, or by close()).
                self._fh = self._open()
            event = self._read(self._fh, i)
            self._cache[i] = event
            if len(self._cache) > _CACHE_SIZE:
                self._cache.popitem(last=False)
        return event

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if not self.types:
            return
        with self._open() as fh:
            for i in range(len(self.types)):
                cached = self._cache.get(i)
                yield cached if cached is not None else self._read(fh, i)

    def __eq__(self, other: object) -> bool:
        return _same(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<EventLog {self.path} {len(self)} events>"


class Subset(Sequence[dict[str, Any]]):
    """The events of ``log`` at ``indices`` (a read-only list, parsed on access)."""

    def __init__(self, log: Sequence[dict[str, Any]], indices: Sequence[int]) -> None:
        self._log = log
        self._indices = indices

    def __len__(self) -> int:
        return len(self._indices)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self._log[k] for k in self._indices[i]]
        return self._log[self._indices[i]]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for k in self._indices:
            yield self._log[k]

    def __eq__(self, other: object) -> bool:
        return _same(self, other)

    __hash__ = None  # type: ignore[assignment]


def read_event_log(path: Path) -> EventLog:
    """Index ``path`` (see :class:`EventLog`); problems become :attr:`EventLog.warnings`."""
    log = EventLog(path)
    try:
        fh = log._open()
    except (OSError, SessionError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        log.warnings.append(f"events.jsonl could not be read ({why})")
        log.damage.append(log.warnings[-1])
        return log
    # Parsing allocates many small objects, none of them cyclic; the cyclic collector would rescan
    # them over and over, so it is paused for the pass.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with fh:
            log._index(fh)
    except OSError as exc:
        log.warnings.append(f"events.jsonl could not be read to the end ({exc.strerror or exc})")
        log.damage.append(log.warnings[-1])
    finally:
        if was_enabled:
            gc.enable()
    return log
