"""The tolerant session reader.

A session recorded by a process that was killed, a file copied half-way, or a session written by an
older PlayTrace must still open: the reader skips what it cannot read, says so in
:attr:`Session.warnings`, and keeps everything else. Only a path that is not a PlayTrace session at
all raises :class:`~sessions.errors.SessionError`.
"""

from __future__ import annotations

import gc
import json
import logging
import tempfile
import weakref
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import events as ev
from sessions import _zip, schema
from sessions._lock import is_being_written
from sessions.errors import MigrationError, SessionError
from sessions.migrations import migrate_event, migrate_manifest

if TYPE_CHECKING:
    from engine.core import Game, State

log = logging.getLogger("playtrace.sessions")

_scan_once = json.JSONDecoder().scan_once

#: Bad middle lines are listed one by one up to this many, then counted.
_MAX_LINE_WARNINGS = 10


def _not_a_session(path: Path, why: str) -> SessionError:
    return SessionError(f"{path} is not a PlayTrace session ({why}).")


def _int_or_none(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


class Session:
    """A loaded session: manifest, events (as dicts, in file order) and what went wrong reading them.

    Attributes:
        path: The session folder (a temporary folder when loaded from a ``.zip``).
        source: The path that was given to :func:`load_session`.
        manifest: The manifest, upgraded to the current schema (rebuilt from the events if lost).
        events: Every readable event line, upgraded to the current schema.
        warnings: One sentence per problem met while reading.
    """

    def __init__(
        self,
        path: Path,
        manifest: dict[str, Any],
        events: list[dict[str, Any]],
        warnings: list[str] | None = None,
        source: Path | None = None,
    ) -> None:
        self.path = path
        self.source = source or path
        self.manifest = manifest
        self.events = events
        self.warnings: list[str] = list(warnings or [])
        self._game: Game | None = None
        # Index once, so that seeking to any step of a long session is a list lookup.
        self.steps: list[dict[str, Any]] = []
        self._by_step: dict[int, list[dict[str, Any]]] = {}
        self._started: dict[str, Any] | None = None
        self._finished: dict[str, Any] | None = None
        for e in events:
            t = e["type"]
            if t == ev.ACTION_APPLIED:
                self.steps.append(e)
            elif t == ev.SESSION_STARTED and self._started is None:
                self._started = e
                continue  # it describes the session, not the decision at its step
            elif t == ev.SESSION_FINISHED:
                self._finished = e
            step = e.get("step")
            if isinstance(step, int):
                self._by_step.setdefault(step, []).append(e)
        self._initial_step = _int_or_none(self._started.get("step")) if self._started else None
        if self._initial_step is None:
            self._initial_step = _int_or_none(self.steps[0].get("step")) if self.steps else 0
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
        return list(self._by_step.get(self._initial_step + k, ()))

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


def read_events(path: Path, warnings: list[str]) -> list[dict[str, Any]]:
    """Parse ``events.jsonl``, skipping unreadable lines with warnings and upgrading old lines."""
    # Parsing allocates hundreds of thousands of small dicts and lists, none of them cyclic; the
    # cyclic garbage collector would rescan them over and over (it doubled the time to open a
    # 10,000-step session), so it is paused for the duration.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _read_events(path, warnings)
    finally:
        if was_enabled:
            gc.enable()


def _read_events(path: Path, warnings: list[str]) -> list[dict[str, Any]]:
    try:
        # Invalid UTF-8 (a torn multi-byte character) must not make the whole log unreadable, nor a
        # byte-order mark left by an editor that re-saved the file cost the session_started line.
        text = path.read_bytes().decode("utf-8-sig", errors="replace")
    except OSError as exc:
        warnings.append(f"events.jsonl could not be read ({exc.strerror or exc})")
        return []
    lines = text.split("\n")
    last = len(lines) - 1
    while last >= 0 and not lines[last].strip():
        last -= 1
    events: list[dict[str, Any]] = []
    bad: list[int] = []
    unknown: Counter[str] = Counter()
    migrated_from: set[int] = set()
    newer = False
    current = schema.SCHEMA_VERSION
    for i, line in enumerate(lines[: last + 1]):
        if not line or line[0].isspace() or line[-1].isspace():
            line = line.strip()
            if not line:
                continue
        try:
            # The decoder's scanner without json.loads' wrappers: the log of a long session has
            # tens of thousands of lines, and this is most of the time spent opening it.
            obj, end = _scan_once(line, 0)
            if end != len(line):
                raise ValueError("trailing characters")
        except (ValueError, StopIteration):
            if i == last:
                warnings.append(
                    f"the last line of events.jsonl (line {i + 1}) is incomplete, "
                    "probably cut off by a crash; skipped"
                )
            else:
                bad.append(i + 1)
            continue
        if type(obj) is dict and obj.get("v") == current and len(obj) == len(schema.LINE_KEYS):
            # Fast path: a line written by this version's writer is already in the final shape.
            if type(obj["type"]) is str and type(obj["data"]) is dict:
                if obj["type"] not in schema.KNOWN_EVENT_TYPES:
                    unknown[obj["type"]] += 1
                events.append(obj)
                continue
        if not isinstance(obj, dict) or not isinstance(obj.get("type", obj.get("kind")), str):
            bad.append(i + 1)
            continue
        try:
            obj, version = migrate_event(obj)
        except MigrationError:
            bad.append(i + 1)
            continue
        if version < current:
            migrated_from.add(version)
        elif version > current:
            newer = True
        data = obj.get("data")
        event = {
            "v": current,
            "seq": _int_or_none(obj.get("seq")),
            "ts": obj.get("ts"),
            "type": obj["type"],
            "step": _int_or_none(obj.get("step")),
            "seat": _int_or_none(obj.get("seat")),
            "call": _int_or_none(obj.get("call")),
            "data": data if isinstance(data, dict) else {},
        }
        if event["type"] not in schema.KNOWN_EVENT_TYPES:
            unknown[event["type"]] += 1
        events.append(event)
    for n in bad[:_MAX_LINE_WARNINGS]:
        warnings.append(f"line {n} of events.jsonl is not a readable event; skipped")
    if len(bad) > _MAX_LINE_WARNINGS:
        warnings.append(f"{len(bad) - _MAX_LINE_WARNINGS} more unreadable lines of events.jsonl were skipped")
    for type_, n in sorted(unknown.items()):
        warnings.append(f"{n} event(s) of unknown type {type_!r} kept as they are")
    for v in sorted(migrated_from):
        warnings.append(
            f"events written with schema version {v} were upgraded to version {schema.SCHEMA_VERSION}"
        )
    if newer:
        warnings.append("some events were written by a newer PlayTrace; parts of them may not be shown")
    return events


def _rebuild_manifest(events: list[dict[str, Any]], name: str) -> dict[str, Any]:
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


def load_folder(folder: Path, *, source: Path | None = None, name: str | None = None) -> Session:
    """Load the session stored in ``folder`` (see :func:`load_session`).

    Args:
        folder: The session folder.
        source: The path to name in messages (default: ``folder``).
        name: The session's id if its manifest must be rebuilt (default: the folder name).
    """
    source = source or folder
    mpath, epath = folder / schema.MANIFEST_FILE, folder / schema.EVENTS_FILE
    has_m, has_e = mpath.is_file(), epath.is_file()
    if not has_m and not has_e:
        raise _not_a_session(source, "it has no manifest.json or events.jsonl")
    warnings: list[str] = []
    manifest: dict[str, Any] | None = None
    problem = "missing"
    if has_m:
        try:
            raw = json.loads(mpath.read_bytes())
        except (ValueError, OSError):
            problem = "unreadable"
        else:
            if not isinstance(raw, dict) or raw.get("format") != schema.FORMAT:
                raise _not_a_session(source, "its manifest.json is not a PlayTrace manifest")
            manifest = raw
    events: list[dict[str, Any]] = []
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
    session = Session(folder, manifest, events, warnings, source)
    manifest_steps = manifest.get("steps")
    if isinstance(manifest_steps, int) and manifest_steps > session.num_steps:
        session.warnings.append(
            f"the manifest counts {manifest_steps} steps but events.jsonl holds {session.num_steps}"
        )
    for w in session.warnings:
        log.warning("%s: %s", source, w)
    return session


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
        tmp = Path(tempfile.mkdtemp(prefix="playtrace-zip-"))
        try:
            _zip.extract_members(zf, members, tmp, p)
            name = prefix or p.name.removesuffix(".zip").removesuffix(".session")
            session = load_folder(tmp, source=p, name=name)
        except BaseException:
            _zip.remove_tree(tmp)
            raise
    # The unpacked copy lives as long as the Session (its attachments are read from there).
    weakref.finalize(session, _zip.remove_tree, tmp)
    return session
