"""The list of recorded sessions, for the session browser and ``playtrace list``.

Listing reads manifests only (plus the event log of the rare session still marked ``running``), so
thousands of sessions list quickly. A cache of the summaries, ``<root>/.catalogue-index.json``, keyed
by each manifest's modification time and size, makes repeated listings cheaper still; it is only a
cache: delete it, or call :meth:`Catalogue.rebuild_index`, and the next listing rebuilds it.
"""

from __future__ import annotations

import builtins
import dataclasses
import json
import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any

from sessions import schema
from sessions._files import (
    MAX_MANIFEST_BYTES,
    STALE_AFTER_S,
    find_temp_manifest,
    open_regular,
    parse_json,
    read_capped,
    read_manifest,
    short_text,
    sweep_stale,
)
from sessions._lock import is_being_written
from sessions.errors import MigrationError, SessionError
from sessions.migrations import migrate_manifest
from sessions.paths import default_root
from sessions.writer import atomic_write_json

log = logging.getLogger("playtrace.sessions")

INDEX_FILE = ".catalogue-index.json"
_INDEX_VERSION = 2
#: An index larger than this is not ours (a summary is a few hundred bytes): it is rebuilt.
MAX_INDEX_BYTES = 64 * 1024 * 1024


def _int_or_none(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _is_empty_leftover(folder: Path) -> bool:
    """Whether ``folder`` holds no file at all (only empty folders), and has not changed for an hour."""
    try:
        if time.time() - folder.stat().st_mtime < STALE_AFTER_S:
            return False
        for _dirpath, _dirs, files in os.walk(folder):
            if files:
                return False
    except OSError:
        return False
    return True


@dataclasses.dataclass(frozen=True, slots=True)
class SessionSummary:
    """One row of the session browser.

    ``players`` are the players' labels in seat order; ``result`` is a short human text such as
    ``"Minimax (O) won"``, ``"draw"`` or ``"score 1234"``.
    """

    id: str
    path: Path
    game: str
    players: tuple[str, ...]
    created_at: str
    steps: int
    status: str
    result: str
    title: str | None = None
    scores: tuple[float, ...] | None = None
    winner: int | None = None
    finished_at: str | None = None
    #: What is wrong with the session's files, from the same checks ``playtrace show`` makes
    #: (:func:`sessions.reader.damage_of`); empty for a healthy session.
    damage: tuple[str, ...] = ()
    #: Whether the session was recorded as a demo (manifest ``"demo": true``).
    demo: bool = False
    #: The id of the session this one was forked from, if any.
    parent: str | None = None
    #: The step of the parent session the fork started from, if known.
    parent_step: int | None = None

    @property
    def damaged(self) -> bool:
        """Whether the session's files are damaged (see :attr:`damage`)."""
        return bool(self.damage)

    def to_json(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["path"] = str(self.path)
        d["players"] = list(self.players)
        d["scores"] = list(self.scores) if self.scores is not None else None
        d["damage"] = list(self.damage)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any], path: Path) -> SessionSummary:
        scores = d.get("scores")
        return cls(
            id=str(d["id"]),
            path=path,
            game=str(d.get("game") or ""),
            players=tuple(str(p) for p in d.get("players") or ()),
            created_at=str(d.get("created_at") or ""),
            steps=int(d.get("steps") or 0),
            status=str(d.get("status") or ""),
            result=str(d.get("result") or ""),
            title=short_text(d.get("title")),
            scores=tuple(scores) if isinstance(scores, list) else None,
            winner=d.get("winner") if isinstance(d.get("winner"), int) else None,
            finished_at=d.get("finished_at"),
            damage=tuple(str(w) for w in d.get("damage") or ()),
            demo=d.get("demo") is True,
            parent=short_text(d.get("parent")),
            parent_step=d.get("parent_step") if isinstance(d.get("parent_step"), int) else None,
        )


def _first_line(path: Path) -> dict[str, Any] | None:
    try:
        fd, _ = open_regular(path)
        with os.fdopen(fd, "rb") as fh:
            obj = parse_json(fh.readline(MAX_MANIFEST_BYTES), path.name)
    except (OSError, SessionError):
        return None
    return obj if isinstance(obj, dict) else None


def _stat_key(path: Path) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _parent_of(m: dict[str, Any]) -> tuple[str | None, int | None]:
    extra = m.get("extra")
    fork = extra.get("forked_from") if isinstance(extra, dict) else None
    if isinstance(fork, str):
        return short_text(fork), None
    if not isinstance(fork, dict):
        return None, None
    parent = fork.get("session", fork.get("id"))
    step = fork.get("step")
    return short_text(str(parent)) if parent is not None else None, step if isinstance(step, int) else None


class Catalogue:
    """The sessions under ``root`` (default: :func:`sessions.paths.default_root`).

    Attributes:
        root: The sessions folder.
        warnings: One sentence per folder skipped by the last :meth:`list`.
    """

    def __init__(self, root: Path | str | None = None, *, use_index: bool = True) -> None:
        self.root = Path(root) if root is not None else default_root()
        self.use_index = use_index
        self.warnings: list[str] = []

    def list(self) -> list[SessionSummary]:
        """Summaries of every readable session, newest first. Broken folders are skipped with a warning.

        Work folders left by killed processes (half-made sessions, imports, unpacked archives) are
        removed on the way; folders still in use by a live process are left alone.
        """
        self.warnings = []
        try:
            entries = list(os.scandir(self.root))
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as exc:  # a sessions folder that is a symbolic-link loop, unreadable...
            self.warnings.append(f"the sessions folder {self.root} cannot be read ({exc.strerror or exc})")
            return []
        self._sweep()
        cache = self._load_index() if self.use_index else {}
        index: dict[str, Any] = {}
        out: list[SessionSummary] = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                is_dir = entry.is_dir()
            except OSError as exc:  # a symbolic-link loop: skip it, list the others
                self._skip(Path(entry.path), f"it cannot be opened ({exc.strerror or exc})")
                continue
            if not is_dir:
                if entry.is_symlink():
                    self._skip(Path(entry.path), "it is a symbolic link to nothing readable (a loop?)")
                continue
            folder = Path(entry.path)
            m_key = _stat_key(folder / schema.MANIFEST_FILE)
            key = None if m_key is None else m_key + (_stat_key(folder / schema.EVENTS_FILE) or [-1, -1])
            cached = cache.get(entry.name)
            summary: SessionSummary | None = None
            if key is not None and isinstance(cached, dict) and cached.get("key") == key:
                try:
                    summary = SessionSummary.from_json(cached["summary"], folder)
                except (KeyError, TypeError, ValueError):
                    summary = None
            if summary is None:
                try:
                    summary = self._read(folder)
                except Exception as exc:  # a manifest of the wrong shape must not hide every other session
                    self._skip(folder, f"its manifest.json could not be read ({type(exc).__name__}: {exc})")
                    summary = None
            if summary is None:
                continue
            out.append(summary)
            # A session being recorded changes without touching its manifest: it is not cached.
            if key is not None and summary.status != schema.RUNNING:
                key = (_stat_key(folder / schema.MANIFEST_FILE) or [-1, -1]) + (
                    _stat_key(folder / schema.EVENTS_FILE) or [-1, -1]
                )
                index[entry.name] = {"key": key, "summary": summary.to_json()}
        if self.use_index and index != cache:
            self._save_index(index)
        out.sort(key=lambda s: (s.created_at, s.id), reverse=True)
        return out

    def _sweep(self) -> None:
        """Remove work folders of killed processes (stale ones only, see :func:`_files.sweep_stale`)."""
        from sessions.export import IMPORT_PREFIX
        from sessions.reader import sweep_temp_once
        from sessions.writer import CREATING_PREFIX

        for prefix in (IMPORT_PREFIX, CREATING_PREFIX):
            sweep_stale(self.root, prefix)
        sweep_temp_once()

    def get(self, session_id: str) -> Path | None:
        """The folder of the session ``session_id``, if it is in this catalogue."""
        folder = self.root / session_id
        return (
            folder
            if (folder / schema.MANIFEST_FILE).is_file() or (folder / schema.EVENTS_FILE).is_file()
            else None
        )

    def rebuild_index(self) -> builtins.list[SessionSummary]:
        """Drop the cached index and list again from the manifests."""
        try:
            (self.root / INDEX_FILE).unlink()
        except OSError:
            pass
        return self.list()

    # -- reading one folder --------------------------------------------------------------------

    def _skip(self, folder: Path, why: str) -> None:
        msg = f"{folder.name}: {why}; skipped"
        self.warnings.append(msg)
        log.warning("%s", msg)

    def _read(self, folder: Path) -> SessionSummary | None:
        manifest: dict[str, Any] | None = None
        mpath = folder / schema.MANIFEST_FILE
        try:
            raw = read_manifest(mpath)
        except FileNotFoundError:
            raw = self._recover_manifest(folder)
        except SessionError as exc:  # not a file, too big, nested too deep: list from the events
            log.warning("%s: %s", folder.name, exc)
            raw = None
        if raw is not None:
            if not isinstance(raw, dict) or raw.get("format") != schema.FORMAT:
                self._skip(folder, "its manifest.json is not a PlayTrace manifest")
                return None
            try:
                manifest, _ = migrate_manifest(raw, folder.name)
            except MigrationError as exc:
                self._skip(folder, str(exc))
                return None
        else:
            # A lost manifest: a session whose event log starts properly can still be listed.
            first = _first_line(folder / schema.EVENTS_FILE)
            if first is None or first.get("type", first.get("kind")) not in (
                "session_started",
                "game_started",
            ):
                if _is_empty_leftover(folder):
                    # Left by an older PlayTrace killed while creating a session: nothing to keep.
                    shutil.rmtree(folder, ignore_errors=True)
                    return None
                self._skip(folder, "not a PlayTrace session (no readable manifest.json or events.jsonl)")
                return None
            found = first.get("data")
            data: dict[str, Any] = found if isinstance(found, dict) else {}
            manifest = schema.new_manifest(
                session_id=folder.name,
                game=str(data.get("game") or ""),
                players=[p for p in data.get("players") or [] if isinstance(p, dict)],
                seed=data.get("seed"),
                options={},
                created_at=first.get("ts") if isinstance(first.get("ts"), str) else "",
            )
            self.warnings.append(
                f"{folder.name}: manifest.json is missing or unreadable; listed from events.jsonl"
            )
        return self._summarise(folder, manifest)

    def _recover_manifest(self, folder: Path) -> dict[str, Any] | None:
        """A complete manifest left in a temporary file by a process killed before renaming it
        (older PlayTrace versions) is put in place; returns it, or ``None``."""
        found = find_temp_manifest(folder)
        if found is None:
            return None
        tmp, raw = found
        try:
            os.replace(tmp, folder / schema.MANIFEST_FILE)
        except OSError:
            pass  # a read-only folder still lists from the temporary copy
        self.warnings.append(f"{folder.name}: manifest.json was recovered from a temporary copy")
        return raw

    def _summarise(self, folder: Path, m: dict[str, Any]) -> SessionSummary:
        players = [p for p in m.get("players") or [] if isinstance(p, (dict, str))]
        labels = tuple(
            short_text(p if isinstance(p, str) else str(p.get("label") or p.get("spec") or "?")) or "?"
            for p in players
        )
        status = str(m.get("status") or schema.RUNNING)
        found_steps = m.get("steps")
        steps: int = found_steps if isinstance(found_steps, int) else 0
        scores = m.get("scores") if isinstance(m.get("scores"), list) else None
        winner = m.get("winner") if isinstance(m.get("winner"), int) else None
        result = m.get("result") if isinstance(m.get("result"), str) else None
        damage: tuple[str, ...] = ()
        if status == schema.RUNNING and is_being_written(folder):
            # Still being recorded: count what is there, without judging a log that is growing.
            steps, result = self._count_steps(folder), None
        elif status == schema.RUNNING or not self._intact(folder, m):
            # Not closed, or the log is not the one the manifest describes: read it as `show` does.
            checked = self._check(folder)
            if checked is not None:
                status, steps, scores, winner, result, damage = checked
                scores = list(scores) if isinstance(scores, (list, tuple)) else None
            elif status == schema.RUNNING:
                status, steps, result = self._running_status(folder), self._count_steps(folder), None
        if not result:
            result = schema.result_text(
                players=list(labels) if labels else [],
                status=status,
                scores=scores,
                winner=winner,
                steps=steps,
                seat_names=schema.seat_names(str(m.get("game") or "")),
            )
        parent, parent_step = _parent_of(m)
        return SessionSummary(
            id=short_text(str(m.get("id") or folder.name)) or folder.name,
            path=folder,
            game=short_text(str(m.get("game") or "")) or "",
            players=labels,
            created_at=short_text(str(m.get("created_at") or "")) or "",
            steps=steps,
            status=short_text(status) or "",
            result=short_text(result) or "",
            title=short_text(m.get("title")),
            scores=tuple(scores) if scores is not None else None,
            winner=winner,
            finished_at=short_text(m.get("finished_at")),
            damage=damage,
            demo=m.get("demo") is True,
            parent=parent,
            parent_step=parent_step,
        )

    @staticmethod
    def _intact(folder: Path, m: dict[str, Any]) -> bool:
        """Whether the event log is, by its size, the one the closed manifest summarises."""
        recorded = m.get("events_bytes")
        if not isinstance(recorded, int):
            return False
        key = _stat_key(folder / schema.EVENTS_FILE)
        return key is not None and key[1] == recorded

    @staticmethod
    def _check(folder: Path) -> tuple[str, int, Any, int | None, str, tuple[str, ...]] | None:
        """Status, steps, scores, winner, result and damage from reading the session as ``show`` does."""
        from sessions.reader import load_folder

        try:
            session = load_folder(folder, quiet=True)
            summary = session.summary()
        except Exception:  # unreadable: the caller falls back to the manifest
            return None
        damage = tuple(short_text(w, 300) or "" for w in session.damage[:20])
        return (
            str(summary["status"]),
            int(summary["steps"]),
            summary["scores"],
            _int_or_none(summary["winner"]),
            str(summary["result"]),
            damage,
        )

    @staticmethod
    def _running_status(folder: Path) -> str:
        if is_being_written(folder):
            return schema.RUNNING
        try:
            fd, _ = open_regular(folder / schema.EVENTS_FILE)
            with os.fdopen(fd, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                fh.seek(max(0, fh.tell() - 4096))
                tail = fh.read()
        except (OSError, SessionError):
            return schema.INTERRUPTED
        # Killed right after session_finished, before the manifest update: the log has the outcome.
        pos = tail.rfind(b'"type":"session_finished"')
        if pos >= 0:
            line = tail[tail.rfind(b"\n", 0, pos) + 1 :].split(b"\n", 1)[0]
            try:
                return str(json.loads(line)["data"]["status"])
            except (ValueError, KeyError, TypeError):
                pass
        return schema.INTERRUPTED

    @staticmethod
    def _count_steps(folder: Path) -> int:
        needle = b'"type":"action_applied"'
        count, tail = 0, b""
        try:
            fd, _ = open_regular(folder / schema.EVENTS_FILE)
            with os.fdopen(fd, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    buf = tail + chunk
                    count += buf.count(needle)
                    tail = buf[-(len(needle) - 1) :]
        except (OSError, SessionError):
            pass
        return count

    # -- index ---------------------------------------------------------------------------------

    def _load_index(self) -> dict[str, Any]:
        try:
            raw = parse_json(read_capped(self.root / INDEX_FILE, MAX_INDEX_BYTES), INDEX_FILE)
        except (OSError, SessionError):
            return {}
        if (
            not isinstance(raw, dict)
            or raw.get("version") != _INDEX_VERSION
            or not isinstance(raw.get("entries"), dict)
        ):
            return {}
        entries: dict[str, Any] = raw["entries"]
        return entries

    def _save_index(self, entries: dict[str, Any]) -> None:
        try:
            atomic_write_json(self.root / INDEX_FILE, {"version": _INDEX_VERSION, "entries": entries})
        except OSError:  # a read-only sessions folder still lists, just without the cache
            pass
