"""The append-only, crash-safe session writer.

Crash safety comes from three habits: the manifest is only ever replaced whole (temporary file,
``fsync``, ``os.replace``), ``events.jsonl`` only ever grows by whole lines, each handed to the
operating system at once (one ``write`` per event, no buffering in the process), and the file is
``fsync``-ed after every applied action.

What a crash can lose:

* a killed process (Ctrl+C twice, SIGKILL, a crash of Python itself) loses nothing that was
  written: every event is in the operating system's hands when :meth:`SessionWriter.append` returns;
  only the decision in progress (not yet an event) is lost;
* a power cut or an operating-system crash can lose the steps whose ``fsync`` had not finished: the
  syncs run on one shared worker thread (:class:`_GroupSync`, a *group commit*: while one round of
  syncs runs, the requests of every open session pile up and the next round syncs each file once),
  so the durable log trails the game by about one round. :attr:`SessionWriter.durable_seq` says how
  far a session is durable and :meth:`SessionWriter.wait_durable` waits for it. :meth:`SessionWriter.close`
  writes the final manifest (synced) and leaves the last sync of the event log to that thread;
  :func:`wait_for_syncs` waits for all of them, and so does the interpreter on its way out.

The event loop of the app or the command line never waits for the disk during a game.
Everything passes through :class:`~sessions.redact.Redactor` first.

The writer runs on the one asyncio thread of the app or the command line; it is not thread-safe.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import hashlib
import itertools
import json
import os
import re
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Protocol

from engine import events as ev
from engine.events import Event
from sessions import _files, schema
from sessions._lock import FolderGone, WriterLock
from sessions.errors import SessionError
from sessions.redact import Redactor


class MatchLike(Protocol):
    """What :meth:`SessionWriter.for_match` needs of an :class:`engine.match.Match`.

    A protocol rather than an import keeps the session layer from depending on the match loop (and,
    through the players, on the model providers).
    """

    game: Any
    players: list[Any]
    seed: Any

    def player_info(self, seat: int) -> dict[str, Any]: ...

    def subscribe(self, listener: Any) -> None: ...


# Events after which the file is fsynced: a completed step and the end of the session.
_FSYNC_TYPES = frozenset({ev.ACTION_APPLIED, ev.UNDO, ev.SESSION_FINISHED})


# A lone surrogate (half of an emoji from a torn model stream) cannot be encoded as UTF-8 and would
# fail the whole write. It only ever occurs inside a JSON string, where "\\udXXX" is the JSON escape
# of the very same character, so writing it that way keeps the line valid and the text unchanged.
_JSON_ERRORS = "backslashreplace"


# Made once: json.dumps with options builds a new encoder on every call.
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _dumps(obj: Any) -> str:
    return _encode(obj)


#: A text in an event (a model's answer, its reasoning) longer than this is kept as its start and
#: marked as cut: a 50 MB answer would otherwise make a line the reader refuses.
MAX_TEXT_FIELD_CHARS = 1024 * 1024


def _max_event_bytes() -> int:
    """The longest line the writer writes: a quarter of what the reader accepts
    (:data:`sessions._eventlog.MAX_LINE_BYTES`), so the two always agree."""
    from sessions import _eventlog

    return _eventlog.MAX_LINE_BYTES // 4


def _cut_texts(value: Any, cap: int) -> Any:
    """``value`` with every string longer than ``cap`` characters cut and marked."""
    if isinstance(value, str):
        if len(value) <= cap:
            return value
        return value[:cap] + f"… [cut by PlayTrace: {len(value):,} characters in all]"
    if isinstance(value, dict):
        return {k: _cut_texts(v, cap) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_cut_texts(v, cap) for v in value]
    return value


def _within_limits(line: dict[str, Any], encoded: bytes) -> bytes:
    """The line of a large event, its long texts cut so that the reader reads it back; if it is still
    too long (a huge state), its data is replaced by a note saying so."""
    # A character takes at most 6 bytes once written (a JSON escape): a few cut texts still fit.
    cap = min(MAX_TEXT_FIELD_CHARS, _max_event_bytes() // 8)
    line = {**line, "data": _cut_texts(line["data"], cap)}
    encoded = (_dumps(line) + "\n").encode("utf-8", _JSON_ERRORS)
    if len(encoded) <= _max_event_bytes():
        return encoded
    why = f"this event's data was {len(encoded):,} bytes, more than a session line may hold"
    line = {**line, "data": {"cut": why}}
    return (_dumps(line) + "\n").encode("utf-8", _JSON_ERRORS)


def _fsync_dir(path: Path) -> None:
    """Make a rename or a new file in ``path`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # Windows cannot open directories; NTFS journals the rename anyway
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_json(path: Path, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` so that readers see the old file or the new one, never half."""
    _atomic_write_json(path, data, sync_dir=True)


def _atomic_write_json(path: Path, data: Any, *, sync_dir: bool) -> None:
    """:func:`atomic_write_json`; without ``sync_dir`` the caller makes the rename durable itself."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors=_JSON_ERRORS, newline="\n") as fh:
            json.dump(data, fh, ensure_ascii=False, indent=2)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if sync_dir:
        _fsync_dir(path.parent)


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (a write may take only part of it)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _GroupSync:
    """The ``fsync`` calls of every open writer, run on one worker thread in rounds (group commit).

    :meth:`submit` queues a job under a key and returns the round that will run it; a key queued
    again before its round starts runs once (a file synced once covers every line written before).
    The data is always written to the operating system before a sync is asked for, so a killed
    process loses nothing whether or not the sync has run; the sync guards against power loss or a
    system crash. :meth:`wait` blocks until a round has finished.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._pending: dict[Any, Callable[[], None]] = {}
        self._started_round = 0
        self._finished_round = 0
        self._thread: threading.Thread | None = None
        #: Rounds run and jobs run (the difference with the requests made is what grouping saved).
        self.rounds = 0
        self.jobs = 0

    def submit(self, key: Any, job: Callable[[], None]) -> int:
        """Queue ``job`` (replacing a job under the same key not started yet); returns its round."""
        with self._cond:
            self._pending[key] = job
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="playtrace-session-sync", daemon=True)
                self._thread.start()
            self._cond.notify_all()
            return self._started_round + 1

    def finished(self, round_: int) -> bool:
        """Whether round ``round_`` has run."""
        return self._finished_round >= round_

    def drain(self, timeout: float | None = None) -> bool:
        """Block until every job submitted so far has run (or ``timeout`` seconds passed)."""
        with self._cond:
            target = self._started_round + (1 if self._pending else 0)
        return self.wait(target, timeout)

    def wait(self, round_: int, timeout: float | None = None) -> bool:
        """Block until round ``round_`` has run (or ``timeout`` seconds passed); returns whether it ran."""
        with self._cond:
            return self._cond.wait_for(lambda: self._finished_round >= round_, timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._pending))
                jobs, self._pending = self._pending, {}
                self._started_round += 1
                current = self._started_round
            for job in jobs.values():
                with contextlib.suppress(OSError, ValueError):  # a failed sync leaves the data as written
                    job()
            with self._cond:
                self._finished_round = current
                self.rounds += 1
                self.jobs += len(jobs)
                self._cond.notify_all()


#: The one sync thread of the process, shared by every writer.
_group_sync = _GroupSync()
#: Numbers the writers of the process (their jobs' keys).
_writer_ids = itertools.count()
# A daemon thread dies with the interpreter: the syncs (and closings) still queued run first.
atexit.register(_group_sync.drain, 60.0)


def wait_for_syncs(timeout: float | None = None) -> bool:
    """Block until every session written so far in this process is on disk (the last syncs of closed
    writers included); returns whether that happened within ``timeout`` seconds."""
    return _group_sync.drain(timeout)


#: Hidden work folder of a session being created, inside the sessions folder.
CREATING_PREFIX = ".creating-"
_swept_roots: set[Path] = set()


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "game"


class SessionWriter:
    """Records one session into its own folder.

    Make one with :meth:`create` (or :meth:`for_match`), then feed it every event, typically with
    ``match.subscribe(writer.append)``, and :meth:`close` it at the end.

    Attributes:
        path: The session folder.
        id: The session id (the folder name).
        manifest: The manifest as last written (a copy is written; mutate it with :meth:`update_manifest`).
    """

    def __init__(self, path: Path, manifest: dict[str, Any], *, fsync: bool = True) -> None:
        """Use :meth:`create`; this only wires up an already created folder."""
        self.path = path
        self.id: str = manifest["id"]
        self.manifest = manifest
        self.fsync = fsync
        self._seq = 0
        self._steps = 0
        self._scores: list[Any] | None = None
        self._finished: dict[str, Any] | None = None
        self._closed = False
        self._attachments = path / schema.ATTACHMENTS_DIR
        self._known_attachments: set[str] = set()
        self._redact = Redactor(on_bytes=lambda data: self.add_attachment(data, ".bin"))
        self._fh: IO[str] = open(
            path / schema.EVENTS_FILE, "a", encoding="utf-8", errors=_JSON_ERRORS, newline="\n"
        )
        # Lines go straight to the file descriptor (opened for appending): one system call per event
        # and nothing held back in a buffer that a killed process would lose.
        self._fd = self._fh.fileno()
        self._sync = _group_sync if fsync else None
        self._sync_id = next(_writer_ids)  # not id(self): a later writer may get the same id
        self._sync_key = ("events", self._sync_id)
        self._durable_round = 0
        self._durable_seq = -1
        self._requested_seq = -1
        #: ``seq`` when the manifest summary was last written (-1: never): close() rewrites it only when
        #: events came after it or the status differs.
        self._summary_seq = -1
        # Lets readers tell a session still being recorded from one whose process died.
        self._lock = WriterLock(path)

    # -- creation ------------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        root: Path | str,
        *,
        game: str,
        players: list[dict[str, Any]],
        seed: Any,
        options: dict[str, Any],
        title: str | None = None,
        extra: dict[str, Any] | None = None,
        harness: dict[str, Any] | None = None,
        fsync: bool = True,
        demo: bool = False,
    ) -> SessionWriter:
        """Create ``<root>/<YYYYmmdd-HHMMSS>_<game>_<4hex>/`` with its manifest and an empty event log.

        The folder appears whole (manifest, empty event log, attachments folder) or not at all.

        Args:
            root: Folder holding sessions (created if missing), usually :func:`sessions.paths.default_root`.
            game: The game id.
            players: ``{seat, spec, label, kind}`` per seat.
            seed: The match seed (any JSON value, usually an int or ``None``).
            options: The game's options.
            title: A human title shown by the session browser.
            extra: Free-form facts for the manifest (e.g. the command line that ran the session).
            harness: Model-player configuration (perception, memory, reflection...), recorded as is.
            fsync: Whether to fsync per step; turn off only for throw-away sessions.
            demo: Mark the session as a demo (manifest ``"demo": true``); the session browser hides
                demo sessions unless asked to show them.

        Raises:
            SessionError: the folder cannot be created.
        """
        root = Path(root)
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SessionError(f"cannot create the sessions folder {root}: {exc.strerror or exc}") from exc
        # The session is put together in a hidden folder and renamed into place whole, so a process
        # killed at any moment leaves either nothing under its name or a session that opens; the
        # hidden folder of a killed process is removed by the next listing (see Catalogue.list).
        if root not in _swept_roots:  # once per process: a batch creates thousands of sessions
            _swept_roots.add(root)
            _files.sweep_stale(root, CREATING_PREFIX)
        for attempt in range(3):
            try:
                # Not mkdtemp: the session folder keeps the user's usual permissions, not 0700.
                work = root / f"{CREATING_PREFIX}{secrets.token_hex(8)}"
                work.mkdir()
                lock = WriterLock(work, fresh=True)
                break
            except FolderGone as exc:  # another process's sweep removed it the instant before our lock
                if attempt == 2:
                    why = "it keeps being removed by another process"
                    raise SessionError(f"cannot create a session folder in {root}: {why}") from exc
            except OSError as exc:
                why = exc.strerror or str(exc)
                raise SessionError(f"cannot create a session folder in {root}: {why}") from exc
        try:
            stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
            session_id = f"{stamp}_{_slug(game)}_{secrets.token_hex(2)}"
            manifest = schema.new_manifest(
                session_id=session_id,
                game=game,
                players=players,
                seed=seed,
                options=options,
                title=title,
                harness=harness,
                extra=extra,
                demo=demo,
            )
            redact = Redactor()
            (work / schema.ATTACHMENTS_DIR).mkdir()
            (work / schema.EVENTS_FILE).touch()
            for _ in range(100):
                path = root / session_id
                if not path.exists():
                    manifest = redact(manifest)
                    atomic_write_json(work / schema.MANIFEST_FILE, manifest)
                    try:
                        # A folder being created is never empty, so the rename cannot replace a
                        # session that another process just created under the same name.
                        os.rename(work, path)
                        lock.moved(path)
                        break
                    except OSError as exc:
                        if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY) and not path.exists():
                            raise
                # two sessions in the same second drew the same 4 hex digits
                session_id = f"{stamp}_{_slug(game)}_{secrets.token_hex(2)}"
                manifest["id"] = session_id
            else:
                raise SessionError(f"cannot find a free session folder name in {root}")
        except OSError as exc:
            lock.release()
            shutil.rmtree(work, ignore_errors=True)
            raise SessionError(f"cannot create a session folder in {root}: {exc.strerror or exc}") from exc
        except BaseException:
            lock.release()
            shutil.rmtree(work, ignore_errors=True)
            raise
        lock.release()
        writer = cls(path, manifest, fsync=fsync)
        if fsync:
            # The new folder's name becomes durable with the next group commit (before close returns).
            _group_sync.submit(("folder", root), lambda: _fsync_dir(root))
        return writer

    @classmethod
    def for_match(
        cls,
        root: Path | str,
        match: MatchLike,
        *,
        title: str | None = None,
        extra: dict[str, Any] | None = None,
        subscribe: bool = True,
        fsync: bool = True,
        demo: bool = False,
    ) -> SessionWriter:
        """Create a writer describing ``match`` (players, seed, options, model harness configuration)
        and, by default, subscribe it to the match's events. ``demo=True`` marks a demo session."""
        game = match.game
        harness: dict[str, Any] = {}
        for seat, player in enumerate(match.players):
            config = getattr(player, "harness_config", None)
            if callable(config):
                harness[str(seat)] = config()
        writer = cls.create(
            root,
            game=game.id,
            players=[match.player_info(s) for s in range(game.num_seats)],
            seed=match.seed,
            options=dict(game.options),
            title=title,
            extra=extra,
            harness=harness,
            fsync=fsync,
            demo=demo,
        )
        if subscribe:
            match.subscribe(writer.append)
        return writer

    # -- writing -------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def seq(self) -> int:
        """How many event lines have been written."""
        return self._seq

    def add_attachment(self, data: bytes, ext: str = ".png") -> str:
        """Store ``data`` once under ``attachments/sha256-<hex><ext>``; returns its reference string.

        The same bytes with the same extension are stored only once, whatever the number of events
        that refer to them.
        """
        if ext and not ext.startswith("."):
            ext = "." + ext
        if not re.fullmatch(r"(\.[A-Za-z0-9]{1,10})?", ext):
            ext = ".bin"
        name = f"sha256-{hashlib.sha256(data).hexdigest()}{ext}"
        if name not in self._known_attachments:
            target = self._attachments / name
            if not target.exists():
                # Write beside and rename, so a crash never leaves a truncated file under a hash name.
                fd, tmp = tempfile.mkstemp(prefix=".att.", dir=self._attachments)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, target)
                if self._sync is not None:
                    self._sync.submit(("attachment", target), lambda: _fsync_path(target))
            self._known_attachments.add(name)
        return schema.attachment_ref(name)

    def append(self, event: Event) -> int:
        """Write one event as a line of ``events.jsonl``; returns its ``seq``.

        ``model_delta`` events are live-only and are not written (returns ``-1``). Blobs become
        attachments, secrets are removed, the line is flushed, and the file is fsynced after
        ``action_applied`` and ``session_finished``. On ``session_finished`` the manifest summary
        is updated at once, so a crash after the last event still leaves a finished manifest.

        Raises:
            SessionError: the writer is closed.
        """
        if event.type == ev.MODEL_DELTA:
            return -1
        if self._closed:
            raise SessionError(f"session {self.id} is closed; no more events can be written")
        data: dict[str, Any] = dict(event.data)
        for key, blob in event.blobs.items():
            data[key] = self.add_attachment(blob.data, blob.extension)
        line = {
            "v": schema.SCHEMA_VERSION,
            "seq": self._seq,
            "ts": schema.utc_now_iso(),
            "type": event.type,
            "step": event.step,
            "seat": event.seat,
            "call": event.call,
            "data": self._redact(data),
        }
        encoded = (_dumps(line) + "\n").encode("utf-8", _JSON_ERRORS)
        if len(encoded) > min(MAX_TEXT_FIELD_CHARS, _max_event_bytes()):
            encoded = _within_limits(line, encoded)
        _write_all(self._fd, encoded)
        seq = self._seq
        self._seq += 1
        if self._sync is not None and event.type in _FSYNC_TYPES:
            self._request_sync()
        self._observe(event.type, line["data"])
        return seq

    __call__ = append  # a writer is itself an EventSink

    def _request_sync(self) -> None:
        """Ask the group-commit thread to sync the event log up to the last line written."""
        assert self._sync is not None
        fd = self._fd
        self._durable_round = self._sync.submit(self._sync_key, lambda: os.fsync(fd))
        self._requested_seq = self._seq - 1

    @property
    def durable_seq(self) -> int:
        """The last event line known to be synced to disk (``-1``: none yet; every line written so far
        when the writer does not sync). A power cut can lose the lines after it, never those before."""
        if self._sync is None:
            return self._seq - 1
        if self._sync.finished(self._durable_round):
            self._durable_seq = max(self._durable_seq, self._requested_seq)
        return self._durable_seq

    def wait_durable(self, timeout: float | None = None) -> bool:
        """Sync every line written so far and wait for it (blocking; the app and the command line do
        not need it during a game, :meth:`close` does it). Returns whether it finished in time."""
        if self._sync is None:
            return True
        if not self._closed and self._requested_seq < self._seq - 1:
            self._request_sync()
        done = self._sync.wait(self._durable_round, timeout)
        if done:
            self._durable_seq = max(self._durable_seq, self._requested_seq)
        return done

    def _observe(self, type_: str, data: dict[str, Any]) -> None:
        """Keep the summary fields current from the events that carry them."""
        if type_ in (ev.ACTION_APPLIED, ev.UNDO):
            self._steps = self._steps + 1 if type_ == ev.ACTION_APPLIED else max(0, self._steps - 1)
            if isinstance(data.get("scores"), list):
                self._scores = data["scores"]
        elif type_ == ev.SESSION_STARTED:
            # A fork records where it came from; the browser shows it without reading events.
            if data.get("forked_from") is not None:
                self.manifest.setdefault("extra", {})["forked_from"] = data["forked_from"]
                self._write_manifest()
        elif type_ == ev.SESSION_FINISHED:
            self._finished = data
            self._write_summary(str(data.get("status") or schema.COMPLETED))

    def update_manifest(self, **fields: Any) -> None:
        """Set manifest fields (title, extra facts...) and rewrite the manifest atomically.

        ``format``, ``schema_version`` and ``id`` cannot be changed.
        """
        for key in ("format", "schema_version", "id"):
            if key in fields:
                raise ValueError(f"the manifest field {key!r} cannot be changed")
        self.manifest.update(fields)
        self._write_manifest()

    def _write_summary(self, status: str) -> None:
        self._summary_seq = self._seq
        fin = self._finished or {}
        steps = fin.get("steps", self._steps)
        scores = fin.get("scores", self._scores)
        winner = fin.get("winner")
        self.manifest.update(
            status=status,
            steps=steps if isinstance(steps, int) else self._steps,
            scores=scores,
            winner=winner if isinstance(winner, int) else None,
            finished_at=schema.utc_now_iso(),
        )
        try:
            # Lets a listing tell, from one stat, that the log is still the one this summary describes.
            self.manifest["events_bytes"] = os.fstat(self._fd).st_size
        except (OSError, ValueError):
            self.manifest.pop("events_bytes", None)
        self.manifest["result"] = schema.result_text(
            players=self.manifest.get("players") or [],
            status=status,
            scores=scores,
            winner=self.manifest["winner"],
            steps=self.manifest["steps"],
            seat_names=schema.seat_names(str(self.manifest.get("game") or "")),
        )
        self._write_manifest()

    def _write_manifest(self) -> None:
        self.manifest = self._redact(self.manifest)
        if self._sync is None:
            atomic_write_json(self.path / schema.MANIFEST_FILE, self.manifest)
            return
        # The new manifest is complete on disk before it replaces the old one (that is what makes the
        # replacement safe); the rename itself becomes durable with the next group commit.
        _atomic_write_json(self.path / schema.MANIFEST_FILE, self.manifest, sync_dir=False)
        folder = self.path
        self._durable_round = self._sync.submit(("folder", folder), lambda: _fsync_dir(folder))

    def close(self, status: str | None = None) -> None:
        """Finish the session: write the summary (status, steps, scores, winner, finished_at) into the
        manifest and close the event log. Safe to call twice.

        Args:
            status: The final status. Default: the one recorded by ``session_finished``, or
                ``"aborted"`` when the session ended without one.
        """
        if self._closed:
            return
        try:
            final = status or (str(self._finished.get("status")) if self._finished else schema.ABORTED)
            if self.manifest.get("status") != final or self._summary_seq != self._seq:
                self._write_summary(final)
        finally:
            self._release()

    def _release(self) -> None:
        """Drop the writer lock and hand the last sync and the closing of the event log to the sync
        thread (every line is written already; the event loop does not wait for the disk)."""
        self._closed = True
        fh = self._fh
        if self._sync is not None and not fh.closed:
            fd = self._fd

            def last_sync() -> None:
                try:
                    os.fsync(fd)
                finally:
                    fh.close()

            self._durable_round = self._sync.submit(("close", self._sync_id), last_sync)
            self._requested_seq = self._seq - 1
        else:
            fh.close()
        self._lock.release()

    def __enter__(self) -> SessionWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close(schema.ERROR if exc_type is not None and not self._finished else None)
