"""The index of a sweep's results folder: which session belongs to which cell and seed.

A results folder holds ``index.sqlite`` (this module), ``sessions/`` (one session folder per episode
played to its end) and ``torn/`` (sessions moved aside: an episode killed half-way, or one that failed
and will be played again). The index is the only truth about what is done:

- ``episodes`` has one row per episode, keyed by (cell, seed), so an episode can never be counted
  twice. Its ``state`` is ``running`` from the moment it starts (with the session folder once it
  exists), ``done`` once its session is closed, or ``failed``. An episode is ``done`` only after its
  session was written to its end, so a process killed at any moment leaves either a ``done`` row with a
  whole session, or a row that :meth:`SweepIndex.recover` turns back into a missing episode.
- ``cells`` describes each cell (game, options, players, harness setting) for reports.
- ``moved`` lists the session folders moved aside and why.

SQLite runs in WAL mode with ``synchronous=NORMAL``: a commit survives the process being killed
(SIGKILL included: the log is in the operating system's hands once written); a power cut may undo the
last commits, which only makes their episodes missing again (their sessions are then moved aside and
replayed, never counted twice). A reader (``playtrace sweep report`` while the sweep runs) never
blocks the writer. Only one process
writes: the one running the sweep (Ray workers report to it; they never open the index).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from engine.sweep.spec import Cell

__all__ = ["INDEX_FILE", "SESSIONS_DIR", "TORN_DIR", "SweepBusyError", "SweepIndex"]

INDEX_FILE = "index.sqlite"
SESSIONS_DIR = "sessions"
TORN_DIR = "torn"
#: Held (an OS file lock) by the process playing the folder's sweep.
LOCK_FILE = ".sweep.lock"
#: The sweep file as last run, kept beside the index so ``report`` needs only the folder.
SWEEP_FILE = "sweep.toml"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cells (
    cell TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    game_label TEXT NOT NULL,
    options TEXT NOT NULL,
    players TEXT NOT NULL,
    harness TEXT NOT NULL,
    harness_name TEXT NOT NULL,
    max_steps INTEGER
);
CREATE TABLE IF NOT EXISTS episodes (
    cell TEXT NOT NULL REFERENCES cells(cell),
    seed INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('running', 'done', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    session TEXT,
    status TEXT,
    steps INTEGER,
    scores TEXT,
    winner INTEGER,
    raw REAL,
    progress REAL,
    cost_usd REAL,
    error TEXT,
    started REAL,
    finished REAL,
    PRIMARY KEY (cell, seed)
);
CREATE TABLE IF NOT EXISTS moved (
    session TEXT NOT NULL,
    moved_to TEXT NOT NULL,
    cell TEXT,
    seed INTEGER,
    reason TEXT NOT NULL,
    at REAL NOT NULL
);
"""


class SweepBusyError(RuntimeError):
    """Another process is playing the sweep of this results folder."""


class SweepIndex:
    """The SQLite index of one results folder (created on first use)."""

    def __init__(self, folder: Path | str, *, create: bool = True) -> None:
        self.folder = Path(folder)
        self._lock: Any = None
        path = self.folder / INDEX_FILE
        if not create and not path.exists():
            raise FileNotFoundError(f"{self.folder} is not a sweep results folder (no {INDEX_FILE})")
        if create:
            self.folder.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: every statement commits at once unless inside `with self._tx()`.
        self.db = sqlite3.connect(path, isolation_level=None, timeout=30.0, check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        if create:
            self.db.executescript(_SCHEMA)

    @property
    def sessions_dir(self) -> Path:
        return self.folder / SESSIONS_DIR

    @property
    def torn_dir(self) -> Path:
        return self.folder / TORN_DIR

    def lock(self) -> None:
        """Claim the folder for this process until :meth:`close` (or the process's death: the
        operating system drops the lock of a killed process).

        Raises:
            SweepBusyError: another process is playing this folder's sweep.
        """
        if self._lock is not None:
            return
        handle = open(self.folder / LOCK_FILE, "a+b")  # noqa: SIM115  (held until close)
        try:
            if os.name == "nt":
                import msvcrt

                handle.seek(0)
                # typeshed declares msvcrt's locking only on Windows, where this branch runs.
                msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined,unused-ignore]
            else:
                import fcntl

                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise SweepBusyError(f"another playtrace sweep is playing into {self.folder}; wait for it to end "
                                 "or stop it first") from None
        self._lock = handle

    def close(self) -> None:
        self.db.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> SweepIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # -- the sweep ------------------------------------------------------------------------------

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE "
                        "SET value = excluded.value", (key, value))

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def add_cells(self, cells: Iterable[Cell]) -> None:
        """Describe the cells (a cell already known keeps its row: its key says the same thing)."""
        with self._tx() as db:
            for cell in cells:
                db.execute(
                    "INSERT INTO cells(cell, game, game_label, options, players, harness, harness_name, "
                    "max_steps) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(cell) DO UPDATE SET "
                    "game_label = excluded.game_label, harness_name = excluded.harness_name",
                    (cell.key, cell.game.id, cell.game.label, _dumps(cell.game.options),
                     _dumps(cell.identity["players"]), _dumps(cell.harness.values), cell.harness.name,
                     cell.max_steps),
                )

    # -- episodes -------------------------------------------------------------------------------

    def done_keys(self) -> set[tuple[str, int]]:
        rows = self.db.execute("SELECT cell, seed FROM episodes WHERE state = 'done'").fetchall()
        return {(r["cell"], int(r["seed"])) for r in rows}

    def start(self, cell: str, seed: int) -> int:
        """Mark an episode as running (its attempt number is returned)."""
        with self._tx() as db:
            db.execute(
                "INSERT INTO episodes(cell, seed, state, attempts, started) VALUES (?, ?, 'running', 1, ?) "
                "ON CONFLICT(cell, seed) DO UPDATE SET state = 'running', attempts = attempts + 1, "
                "session = NULL, status = NULL, error = NULL, started = excluded.started "
                "WHERE episodes.state != 'done'",
                (cell, seed, time.time()),
            )
            row = db.execute("SELECT attempts, state FROM episodes WHERE cell = ? AND seed = ?",
                             (cell, seed)).fetchone()
        if row["state"] == "done":
            raise RuntimeError(f"episode {cell}/{seed} is done already")
        return int(row["attempts"])

    def attach(self, cell: str, seed: int, session: Path) -> None:
        """Record the session folder of a running episode (before its first event is written)."""
        self.db.execute("UPDATE episodes SET session = ? WHERE cell = ? AND seed = ? AND state = 'running'",
                        (self._rel(session), cell, seed))

    def finish(self, cell: str, seed: int, result: Mapping[str, Any]) -> bool:
        """Record an episode's end; ``done`` when its session is whole, else ``failed``.

        Returns whether the row was updated (``False`` when the episode was done already: a second
        report of the same episode, e.g. from a retried task, is ignored)."""
        state = "done" if result.get("counted") else "failed"
        session = result.get("session")
        with self._tx() as db:
            db.execute("INSERT OR IGNORE INTO episodes(cell, seed, state, attempts, started) "
                       "VALUES (?, ?, 'running', 1, ?)", (cell, seed, time.time()))
            cur = db.execute(
                "UPDATE episodes SET state = ?, session = ?, status = ?, steps = ?, scores = ?, winner = ?, "
                "raw = ?, progress = ?, cost_usd = ?, error = ?, finished = ? "
                "WHERE cell = ? AND seed = ? AND state != 'done'",
                (state, self._rel(Path(session)) if session else None, result.get("status"),
                 result.get("steps"), _dumps(list(result.get("scores") or [])), result.get("winner"),
                 result.get("raw"), result.get("progress"), float(result.get("cost_usd") or 0.0),
                 result.get("error"), time.time(), cell, seed),
            )
            return cur.rowcount > 0

    def rows(self, state: str | None = "done") -> list[dict[str, Any]]:
        """Episodes joined with their cells (all of them when ``state`` is ``None``)."""
        sql = ("SELECT e.*, c.game, c.game_label, c.options, c.players, c.harness, c.harness_name, "
               "c.max_steps FROM episodes e JOIN cells c USING (cell)")
        args: tuple[Any, ...] = ()
        if state is not None:
            sql += " WHERE e.state = ?"
            args = (state,)
        out = []
        for row in self.db.execute(sql + " ORDER BY c.rowid, e.seed", args):
            item = dict(row)
            for key in ("options", "players", "harness", "scores"):
                item[key] = json.loads(item[key]) if item[key] else None
            out.append(item)
        return out

    def cells(self) -> list[dict[str, Any]]:
        out = []
        for row in self.db.execute("SELECT * FROM cells ORDER BY rowid"):
            item = dict(row)
            for key in ("options", "players", "harness"):
                item[key] = json.loads(item[key])
            out.append(item)
        return out

    def total_cost(self) -> float:
        row = self.db.execute("SELECT COALESCE(SUM(cost_usd), 0) FROM episodes").fetchone()
        return float(row[0])

    def counts(self) -> dict[str, int]:
        rows = self.db.execute("SELECT state, COUNT(*) FROM episodes GROUP BY state")
        return {r[0]: int(r[1]) for r in rows}

    def moved(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.execute("SELECT * FROM moved ORDER BY rowid")]

    # -- recovery -------------------------------------------------------------------------------

    def recover(self) -> list[str]:
        """After a kill: every episode not ``done`` becomes missing again, and every session folder the
        index does not count (half-written, failed, or made by a worker that was lost) is moved into
        ``torn/`` and listed in ``moved``. Returns the folders moved.

        Call it only while no episode of this folder is being played."""
        moved: list[str] = []
        with self._tx() as db:
            stale = db.execute(
                "SELECT cell, seed, session, state FROM episodes WHERE state != 'done'").fetchall()
            for row in stale:
                if row["session"]:
                    done = self._move_aside(self.folder / row["session"], row["cell"], row["seed"],
                                            f"episode {row['state']} when the sweep stopped")
                    if done:
                        moved.append(done)
            db.execute("DELETE FROM episodes WHERE state != 'done'")
        counted = {r["session"] for r in self.rows("done") if r["session"]}
        if self.sessions_dir.is_dir():
            for folder in sorted(self.sessions_dir.iterdir()):
                # Hidden folders are sessions a killed process was putting together (no episode of
                # this folder is being played now, so none of them is still in the making).
                if folder.is_dir() and self._rel(folder) not in counted:
                    done = self._move_aside(folder, None, None, "not counted by the index")
                    if done:
                        moved.append(done)
        return moved

    def _move_aside(self, folder: Path, cell: str | None, seed: int | None, reason: str) -> str | None:
        if not folder.exists():
            return None
        self.torn_dir.mkdir(parents=True, exist_ok=True)
        target = self.torn_dir / folder.name
        n = 1
        while target.exists():
            n += 1
            target = self.torn_dir / f"{folder.name}.{n}"
        shutil.move(str(folder), str(target))
        _fsync_dir(self.torn_dir)
        self.db.execute(
            "INSERT INTO moved(session, moved_to, cell, seed, reason, at) VALUES (?, ?, ?, ?, ?, ?)",
            (self._rel(folder), self._rel(target), cell, seed, reason, time.time()))
        return self._rel(target)

    def _rel(self, path: Path) -> str:
        try:
            return Path(path).resolve().relative_to(self.folder.resolve()).as_posix()
        except ValueError:
            return str(path)


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
