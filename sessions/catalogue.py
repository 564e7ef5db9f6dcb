"""The list of recorded sessions, for the session browser and ``playtrace list``.

Listing reads manifests only (plus the event log of the rare session still marked ``running``), so
thousands of sessions list quickly. A cache of the summaries, ``<root>/.catalogue-index.json``, keyed
by each manifest's modification time and size, makes repeated listings cheaper still; it is only a
cache: delete it, or call :meth:`Catalogue.rebuild_index`, and the next listing rebuilds it.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from pathlib import Path
from typing import Any

from sessions import schema
from sessions._lock import is_being_written
from sessions.errors import MigrationError
from sessions.migrations import migrate_manifest
from sessions.paths import default_root
from sessions.writer import atomic_write_json

log = logging.getLogger("playtrace.sessions")

INDEX_FILE = ".catalogue-index.json"
_INDEX_VERSION = 1


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

    def to_json(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["path"] = str(self.path)
        d["players"] = list(self.players)
        d["scores"] = list(self.scores) if self.scores is not None else None
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
            title=d.get("title"),
            scores=tuple(scores) if isinstance(scores, list) else None,
            winner=d.get("winner") if isinstance(d.get("winner"), int) else None,
            finished_at=d.get("finished_at"),
        )


def _first_line(path: Path) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as fh:
            obj = json.loads(fh.readline())
    except (OSError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


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
        """Summaries of every readable session, newest first. Broken folders are skipped with a warning."""
        self.warnings = []
        try:
            entries = [e for e in os.scandir(self.root) if not e.name.startswith(".") and e.is_dir()]
        except (FileNotFoundError, NotADirectoryError):
            return []
        cache = self._load_index() if self.use_index else {}
        index: dict[str, Any] = {}
        out: list[SessionSummary] = []
        for entry in entries:
            folder = Path(entry.path)
            try:
                st = os.stat(folder / schema.MANIFEST_FILE)
                key: list[int] | None = [st.st_mtime_ns, st.st_size]
            except OSError:
                key = None
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
            # Only settled sessions are cached: a running one changes without touching its manifest.
            if key is not None and summary.status in schema.FINAL_STATUSES:
                index[entry.name] = {"key": key, "summary": summary.to_json()}
        if self.use_index and index != cache:
            self._save_index(index)
        out.sort(key=lambda s: (s.created_at, s.id), reverse=True)
        return out

    def get(self, session_id: str) -> Path | None:
        """The folder of the session ``session_id``, if it is in this catalogue."""
        folder = self.root / session_id
        return (
            folder
            if (folder / schema.MANIFEST_FILE).is_file() or (folder / schema.EVENTS_FILE).is_file()
            else None
        )

    def rebuild_index(self) -> list[SessionSummary]:
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
        try:
            raw = json.loads((folder / schema.MANIFEST_FILE).read_bytes())
        except FileNotFoundError:
            raw = None
        except (OSError, ValueError):
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
                self._skip(folder, "not a PlayTrace session (no readable manifest.json or events.jsonl)")
                return None
            data = first.get("data") if isinstance(first.get("data"), dict) else {}
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

    def _summarise(self, folder: Path, m: dict[str, Any]) -> SessionSummary:
        players = [p for p in m.get("players") or [] if isinstance(p, (dict, str))]
        labels = tuple(
            p if isinstance(p, str) else str(p.get("label") or p.get("spec") or "?") for p in players
        )
        status = str(m.get("status") or schema.RUNNING)
        steps = m.get("steps") if isinstance(m.get("steps"), int) else 0
        scores = m.get("scores") if isinstance(m.get("scores"), list) else None
        winner = m.get("winner") if isinstance(m.get("winner"), int) else None
        result = m.get("result") if isinstance(m.get("result"), str) else None
        if status == schema.RUNNING:
            # Not closed: count steps from the log, and find out whether anybody is still writing it.
            status, steps, result = self._running_status(folder), self._count_steps(folder), None
        if not result:
            result = schema.result_text(
                players=labels and list(labels),
                status=status,
                scores=scores,
                winner=winner,
                steps=steps,
                seat_names=schema.seat_names(str(m.get("game") or "")),
            )
        return SessionSummary(
            id=str(m.get("id") or folder.name),
            path=folder,
            game=str(m.get("game") or ""),
            players=labels,
            created_at=str(m.get("created_at") or ""),
            steps=steps,
            status=status,
            result=result,
            title=m.get("title") if isinstance(m.get("title"), str) else None,
            scores=tuple(scores) if scores is not None else None,
            winner=winner,
            finished_at=m.get("finished_at") if isinstance(m.get("finished_at"), str) else None,
        )

    @staticmethod
    def _running_status(folder: Path) -> str:
        if is_being_written(folder):
            return schema.RUNNING
        try:
            with open(folder / schema.EVENTS_FILE, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                fh.seek(max(0, fh.tell() - 4096))
                tail = fh.read()
        except OSError:
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
        try:
            data = (folder / schema.EVENTS_FILE).read_bytes()
        except OSError:
            return 0
        return data.count(b'"type":"action_applied"')

    # -- index ---------------------------------------------------------------------------------

    def _load_index(self) -> dict[str, Any]:
        try:
            raw = json.loads((self.root / INDEX_FILE).read_bytes())
        except (OSError, ValueError):
            return {}
        if (
            not isinstance(raw, dict)
            or raw.get("version") != _INDEX_VERSION
            or not isinstance(raw.get("entries"), dict)
        ):
            return {}
        return raw["entries"]

    def _save_index(self, entries: dict[str, Any]) -> None:
        try:
            atomic_write_json(self.root / INDEX_FILE, {"version": _INDEX_VERSION, "entries": entries})
        except OSError:  # a read-only sessions folder still lists, just without the cache
            pass
