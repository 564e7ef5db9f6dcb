"""The tolerant session reader.

A session recorded by a process that was killed, a file copied half-way, or a session written by an
older PlayTrace must still open: the reader skips what it cannot read, says so in
:attr:`Session.warnings`, and keeps everything else. Only a path that is not a PlayTrace session at
all raises :class:`~sessions.errors.SessionError`.
"""

from __future__ import annotations

import logging
import tempfile
import weakref
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import events as ev
from sessions import _files, _zip, schema
from sessions._eventlog import EventLog, Subset, read_event_log
from sessions._lock import WriterLock, is_being_written
from sessions.errors import MigrationError, SessionError
from sessions.migrations import migrate_manifest

if TYPE_CHECKING:
    from engine.core import Game, State

log = logging.getLogger("playtrace.sessions")


def _not_a_session(path: Path, why: str) -> SessionError:
    return SessionError(f"{path} is not a PlayTrace session ({why}).")


def _int_or_none(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


class Session:
    """A loaded session: manifest, events (as dicts, in file order) and what went wrong reading them.

    ``events`` (and ``steps``) read from a folder are read-only lists parsed on access (see
    :class:`sessions._eventlog.EventLog`), so a session of any length opens in little memory;
    ``list(session.events)`` gives a plain list.

    Attributes:
        path: The session folder (a temporary folder when loaded from a ``.zip``).
        source: The path that was given to :func:`load_session`.
        manifest: The manifest, upgraded to the current schema (rebuilt from the events if lost).
        events: Every readable event line, upgraded to the current schema.
        warnings: One sentence per problem met while reading.
        damage: The warnings that mean the session is damaged (cut, corrupt or lost files).
    """

    def __init__(
        self,
        path: Path,
        manifest: dict[str, Any],
        events: Sequence[dict[str, Any]],
        warnings: list[str] | None = None,
        source: Path | None = None,
    ) -> None:
        self.path = path
        self.source = source or path
        self.manifest = manifest
        self.events = events
        self.warnings: list[str] = list(warnings or [])
        self._game: Game | None = None
        #: The problems among :attr:`warnings` that mean the session is damaged (see :func:`damage_of`).
        self.damage: list[str] = []
        # Index once, so that seeking to any step of a long session is a lookup. A lazily read
        # EventLog gives each event's type and step without parsing it.
        if isinstance(events, EventLog):
            types: Sequence[str] = events.types
            step_of = events.step_of
        else:
            types = [e["type"] for e in events]

            def step_of(i: int) -> int | None:
                return _int_or_none(events[i].get("step"))

        applied: list[int] = []
        self._by_step: dict[int, list[int]] = {}
        started: int | None = None
        finished: int | None = None
        for i, t in enumerate(types):
            if t == ev.ACTION_APPLIED:
                applied.append(i)
            elif t == ev.UNDO and applied:
                applied.pop()  # a person took the step back: replays leave it out, the log keeps it
            elif t == ev.SESSION_STARTED and started is None:
                started = i
                continue  # it describes the session, not the decision at its step
            elif t == ev.SESSION_FINISHED:
                finished = i
            step = step_of(i)
            if step is not None:
                self._by_step.setdefault(step, []).append(i)
        #: The ``action_applied`` events, one per step (a read-only list, read on access).
        self.steps: Sequence[dict[str, Any]] = Subset(events, array("q", applied))
        self._started: dict[str, Any] | None = events[started] if started is not None else None
        self._finished: dict[str, Any] | None = events[finished] if finished is not None else None
        self._initial_step = _int_or_none(self._started.get("step")) if self._started else None
        if self._initial_step is None:
            self._initial_step = step_of(applied[0]) if applied else 0
            self._initial_step = self._initial_step or 0
        self.status = self._reconcile_status()

    # -- identity ------------------------------------------------------------------------------

    @property
    def id(self) -> str:
        return str(self.manifest.get("id") or self.path.name)

    @property
    def game_id(self) -> str:
        return str(self.manifest.get("game") or "")

    @property
    def num_steps(self) -> int:
        """How many actions (joint actions) were applied."""
        return len(self.steps)

    @property
    def finished(self) -> bool:
        """Whether the recording ended with ``session_finished``."""
        return self._finished is not None

    def _reconcile_status(self) -> str:
        status = self.manifest.get("status")
        if status not in (None, schema.RUNNING):
            return str(status)
        if self._finished is not None:
            # Killed between the last event and the manifest update: the events know the outcome.
            return str(self._finished["data"].get("status") or schema.COMPLETED)
        if is_being_written(self.path):
            return schema.RUNNING
        self.warnings.append(
            f"the session was interrupted after {len(self.steps)} steps (it has no session_finished event)"
        )
        return schema.INTERRUPTED

    # -- states --------------------------------------------------------------------------------

    @property
    def initial_state_json(self) -> dict[str, Any] | None:
        """The state the session started from (from ``session_started``)."""
        if self._started is None:
            return None
        state = self._started["data"].get("state")
        return state if isinstance(state, dict) else None

    def state_json_at(self, step_index: int) -> dict[str, Any]:
        """The state after ``step_index`` applied actions (0 = the initial state), in O(1).

        Raises:
            IndexError: no such step in this session (or its state was not recorded).
        """
        if not 0 <= step_index <= len(self.steps):
            raise IndexError(f"step {step_index} is outside 0..{len(self.steps)}")
        state = (
            self.initial_state_json if step_index == 0 else self.steps[step_index - 1]["data"].get("state")
        )
        if not isinstance(state, dict):
            raise IndexError(f"the state at step {step_index} was not recorded")
        return state

    def events_for_step(self, k: int) -> list[dict[str, Any]]:
        """Events of decision ``k`` (the one that turns state ``k`` into ``k + 1``), in file order:
        turn start, prompts, model calls, parsing, the decision and the applied action."""
        return [self.events[i] for i in self._by_step.get((self._initial_step or 0) + k, ())]

    def game(self) -> Game:
        """The engine game this session was played with (built once, with the recorded options)."""
        if self._game is None:
            import engine

            self._game = engine.make(self.game_id, **(self.manifest.get("options") or {}))
        return self._game

    def state_at(self, step_index: int) -> State:
        """The engine state after ``step_index`` applied actions (see :meth:`state_json_at`)."""
        return self.game().state_from_json(self.state_json_at(step_index))

    # -- summary -------------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """What the session browser and ``playtrace show`` display.

        Keys: id, game, players (``{seat, spec, label, kind}``), steps, scores, winner, status,
        created_at, title, result (a short human text) and finished_at.
        """
        fin = self._finished["data"] if self._finished else None
        if fin is not None and isinstance(fin.get("scores"), list):
            scores = fin["scores"]
        elif self.steps and isinstance(self.steps[-1]["data"].get("scores"), list):
            scores = self.steps[-1]["data"]["scores"]
        else:
            scores = self.manifest.get("scores")
        winner = (
            _int_or_none(fin.get("winner")) if fin is not None else _int_or_none(self.manifest.get("winner"))
        )
        listed = self.manifest.get("players")
        players = [p for p in listed if isinstance(p, dict)] if isinstance(listed, list) else []
        summary = {
            "id": self.id,
            "game": self.game_id,
            "players": [
                {
                    "seat": p.get("seat", i),
                    "spec": p.get("spec"),
                    "label": p.get("label"),
                    "kind": p.get("kind"),
                }
                for i, p in enumerate(players)
            ],
            "steps": len(self.steps),
            "scores": scores,
            "winner": winner,
            "status": self.status,
            "created_at": self.manifest.get("created_at"),
            "title": self.manifest.get("title"),
            "finished_at": self.manifest.get("finished_at"),
        }
        summary["result"] = schema.result_text(
            players=players,
            status=self.status,
            scores=scores,
            winner=winner,
            steps=len(self.steps),
            seat_names=schema.seat_names(self.game_id),
        )
        return summary

    # -- attachments ---------------------------------------------------------------------------

    def attachment_path(self, ref: str) -> Path:
        """The file behind an ``attachment://`` reference (see :func:`attachment_path`)."""
        return attachment_path(self, ref)

    def read_attachment(self, ref: str) -> bytes:
        """The bytes behind an ``attachment://`` reference.

        Raises:
            SessionError: the reference is malformed or its file is missing.
        """
        p = attachment_path(self, ref)
        try:
            return p.read_bytes()
        except OSError as exc:
            raise SessionError(f"attachment {ref} of session {self.id} is missing") from exc

    def __repr__(self) -> str:
        return f"<Session {self.id} {self.game_id} {len(self.steps)} steps {self.status}>"


def attachment_path(session: Session, ref: str) -> Path:
    """The file behind ``attachment://sha256-<hex><ext>`` in ``session``.

    Raises:
        SessionError: the reference is not a PlayTrace attachment reference.
    """
    name = ref[len(schema.ATTACHMENT_SCHEME) :] if ref.startswith(schema.ATTACHMENT_SCHEME) else ""
    if not schema.ATTACHMENT_NAME_RE.match(name):
        raise SessionError(f"{ref!r} is not a PlayTrace attachment reference")
    return session.path / schema.ATTACHMENTS_DIR / name


# -- loading -----------------------------------------------------------------------------------


def read_events(path: Path, warnings: list[str]) -> EventLog:
    """Index ``events.jsonl`` (read lazily, see :class:`~sessions._eventlog.EventLog`), adding the
    problems met (unreadable lines skipped, old lines upgraded) to ``warnings``."""
    log = read_event_log(path)
    warnings.extend(log.warnings)
    return log


#: Warnings that are not damage: the session is whole, only older, newer or unfinished.
_NOT_DAMAGE = (
    "kept as they are",
    "were upgraded",
    "newer PlayTrace",
    "was interrupted",
    "schema version",
    "probably cut off by a crash",
)


def damage_of(warnings: Sequence[str]) -> list[str]:
    """The warnings of a session that mean it is damaged: a lost or unreadable manifest, a missing,
    cut or corrupt event log, fewer steps than its manifest counts. The session browser's damage
    badge and ``playtrace show`` use this same list."""
    return [w for w in warnings if not any(marker in w for marker in _NOT_DAMAGE)]


def _rebuild_manifest(events: Sequence[dict[str, Any]], name: str) -> dict[str, Any]:
    start = events[0]
    data = start["data"]
    players = data.get("players")
    manifest = schema.new_manifest(
        session_id=name,
        game=str(data.get("game") or ""),
        players=[p for p in players if isinstance(p, dict)] if isinstance(players, list) else [],
        seed=data.get("seed"),
        options=data.get("options") if isinstance(data.get("options"), dict) else {},
        created_at=start.get("ts") if isinstance(start.get("ts"), str) else None,
    )
    manifest["app_version"] = "unknown"
    manifest["extra"] = {"manifest_rebuilt": True}
    if data.get("forked_from") is not None:
        manifest["extra"]["forked_from"] = data["forked_from"]
    return manifest


def load_folder(
    folder: Path, *, source: Path | None = None, name: str | None = None, quiet: bool = False
) -> Session:
    """Load the session stored in ``folder`` (see :func:`load_session`).

    Args:
        folder: The session folder.
        source: The path to name in messages (default: ``folder``).
        name: The session's id if its manifest must be rebuilt (default: the folder name).
        quiet: Do not log the warnings (the catalogue reports them as damage instead).
    """
    source = source or folder
    mpath, epath = folder / schema.MANIFEST_FILE, folder / schema.EVENTS_FILE
    has_m, has_e = mpath.is_file(), epath.is_file()
    recovered = None if has_m else _files.find_temp_manifest(folder)
    if recovered is not None:  # killed before renaming a complete manifest into place
        mpath, has_m = recovered[0], True
    if not has_m and not has_e:
        raise _not_a_session(source, "it has no manifest.json or events.jsonl")
    warnings: list[str] = []
    manifest: dict[str, Any] | None = None
    problem = "missing"
    if has_m:
        try:
            raw = _files.read_manifest(mpath)
        except (SessionError, OSError):
            problem = "unreadable"
        else:
            if not isinstance(raw, dict) or raw.get("format") != schema.FORMAT:
                raise _not_a_session(source, "its manifest.json is not a PlayTrace manifest")
            manifest = raw
    events: Sequence[dict[str, Any]] = []
    if has_e:
        events = read_events(epath, warnings)
    elif manifest is not None:
        warnings.append("events.jsonl is missing; only the manifest could be read")
    if manifest is None:
        if not events or events[0]["type"] != ev.SESSION_STARTED:
            raise _not_a_session(
                source, f"manifest.json is {problem} and events.jsonl does not start with session_started"
            )
        manifest = _rebuild_manifest(events, name or folder.name)
        warnings.insert(0, f"manifest.json was {problem}; it was rebuilt from events.jsonl")
    else:
        try:
            manifest, version = migrate_manifest(manifest, name or folder.name)
        except MigrationError as exc:
            raise SessionError(f"{source} cannot be opened: {exc}.") from exc
        if version < schema.SCHEMA_VERSION:
            warnings.insert(0, f"the manifest was written with schema version {version} and was upgraded")
        elif version > schema.SCHEMA_VERSION:
            warnings.insert(
                0, f"the session was written by a newer PlayTrace (schema {version}); parts may be missing"
            )
        if events and events[0]["type"] != ev.SESSION_STARTED:
            warnings.append("events.jsonl does not start with session_started; the initial state is unknown")
        _check_players(manifest, warnings)
    session = Session(folder, manifest, events, warnings, source)
    manifest_steps = manifest.get("steps")
    if isinstance(manifest_steps, int) and manifest_steps > session.num_steps:
        session.warnings.append(
            f"the manifest counts {manifest_steps} steps but events.jsonl holds {session.num_steps}"
        )
    session.damage = damage_of(session.warnings)
    for w in () if quiet else session.warnings:
        log.warning("%s: %s", source, w)
    return session


def _check_players(manifest: dict[str, Any], warnings: list[str]) -> None:
    """Make the manifest's ``players`` a list of objects whose ``seat`` is a seat number (an edited or
    damaged manifest may hold anything there); each repair is a warning."""
    players = manifest.get("players")
    if players is None:
        return
    if not isinstance(players, list):
        manifest["players"] = []
        warnings.append("the manifest's players is not a list; it was ignored")
        return
    kept: list[dict[str, Any]] = []
    for i, player in enumerate(players):
        if not isinstance(player, dict):
            warnings.append(f"the manifest's players[{i}] is not an object; it was ignored")
            continue
        seat = player.get("seat", i)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 1024:
            warnings.append(f"the manifest's players[{i}].seat is not a seat number; seat {i} is assumed")
            player = {**player, "seat": i}
        kept.append(player)
    manifest["players"] = kept


def _folder_of(path: Path) -> Path:
    """The session folder that ``path`` (a folder, its manifest or its event log) designates."""
    if path.is_dir():
        return path
    if path.name in (schema.MANIFEST_FILE, schema.EVENTS_FILE):
        return path.parent
    raise _not_a_session(
        path, "expected a session folder, its manifest.json or events.jsonl, or an exported .zip"
    )


def load_session(path: Path | str) -> Session:
    """Open a session from its folder, its ``manifest.json``, its ``events.jsonl`` or an exported ``.zip``.

    Problems that leave the session readable (a torn last line, a corrupt line in the middle,
    unknown event types, an older schema, a lost manifest) become :attr:`Session.warnings`.

    Raises:
        SessionError: ``path`` does not exist or is not a PlayTrace session; the message is one sentence.
    """
    p = Path(path)
    if not p.exists():
        raise SessionError(f"{p} does not exist.")
    if p.is_file() and (p.suffix.lower() == ".zip" or _is_zip(p)):
        return _load_zip(p)
    return load_folder(_folder_of(p), source=p)


def _is_zip(p: Path) -> bool:
    import zipfile

    if p.name in (schema.MANIFEST_FILE, schema.EVENTS_FILE):
        return False
    try:
        return zipfile.is_zipfile(p)
    except OSError:
        return False


def _load_zip(p: Path) -> Session:
    with _zip.open_zip(p) as zf:
        prefix, members = _zip.session_members(zf, p)
        _zip.check_sizes(members, p)
        sweep_temp_once()
        tmp = Path(tempfile.mkdtemp(prefix=ZIP_TEMP_PREFIX))
        # Held as long as the copy is in use: a copy whose lock nobody holds was left by a killed
        # process, and the next PlayTrace removes it (see sweep_temp_once).
        lock = WriterLock(tmp, fresh=True)
        try:
            _zip.extract_members(zf, members, tmp, p)
            name = prefix or p.name.removesuffix(".zip").removesuffix(".session")
            session = load_folder(tmp, source=p, name=name)
        except BaseException:
            lock.release()
            _zip.remove_tree(tmp)
            raise
    # The unpacked copy lives as long as the Session (its events and attachments are read from there).
    weakref.finalize(session, _release_copy, lock, tmp)
    return session


#: Prefix of the folder (in the system's temporary folder) a zipped session is unpacked to.
ZIP_TEMP_PREFIX = "playtrace-zip-"
_swept = False


def _release_copy(lock: WriterLock, tmp: Path) -> None:
    lock.release()
    _zip.remove_tree(tmp)


def sweep_temp_once() -> None:
    """Remove unpacked session copies left in the temporary folder by killed processes (once per
    process; copies still in use by a live process hold a lock and are kept)."""
    global _swept
    if not _swept:
        _swept = True
        _files.sweep_stale(Path(tempfile.gettempdir()), ZIP_TEMP_PREFIX)
