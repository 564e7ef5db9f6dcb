"""Every decision under a folder as rows of SQL tables (``playtrace search DIR SQL``).

The index is a SQLite database (the standard library's, a kept engine) with one row per decision in
``steps``, one row per session in ``sessions`` and one row per checked intermediate answer in
``questions``. :data:`TABLES` documents every column. The index lives beside PlayTrace's user data
(``search/<digest of the folder>.sqlite``), never inside a session folder, and is brought up to date
incrementally: a session is read again only when its event log changed size or time, so a second
query over 10,000 sessions reads nothing but their folder entries.

A user's query runs on a read-only connection whose authorizer allows reading and nothing else (no
``ATTACH``, no ``PRAGMA``, no writes), one statement at a time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
import stat
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from sessions import schema
from sessions._eventlog import MAX_LINE_BYTES, _parse, normalize
from sessions._files import open_regular, read_manifest
from sessions.errors import SessionError
from sessions.paths import user_data_dir

__all__ = [
    "FALLBACK_POLICIES",
    "TABLES",
    "IndexStats",
    "QueryError",
    "SearchIndex",
    "SearchResult",
    "decision_rows",
    "find_sessions",
]

#: Decision policies that played a move the model did not give (see engine.agent.player).
FALLBACK_POLICIES: Final = frozenset({"random", "noop"})
#: Decision policies that gave up the seat.
FORFEIT_POLICIES: Final = frozenset({"forfeit", "strikes", "failed_calls", "budget"})
#: Bump when the rows change: an index of another version is rebuilt.
INDEX_VERSION: Final = 2

#: ``{table: ((column, SQL type, meaning), ...)}``: the documented schema of the index.
TABLES: Final[Mapping[str, tuple[tuple[str, str, str], ...]]] = {
    "steps": (
        ("session", "TEXT", "session id (its folder's name)"),
        ("path", "TEXT", "the session's folder"),
        ("game", "TEXT", "game id"),
        ("seed", "TEXT", "the episode's seed"),
        ("status", "TEXT", "how the session ended (completed, max_steps, forfeit, aborted, error, running)"),
        (
            "step",
            "INTEGER",
            "step N: the decision made on the N-th board, numbered from 1 as the app numbers steps",
        ),
        ("seat", "INTEGER", "the deciding seat (0-based)"),
        ("player", "TEXT", "the seat's player spec (sim, random, openai:gpt-4o, human, ...)"),
        ("kind", "TEXT", "the seat's kind: model, bot or human"),
        ("source", "TEXT", "who decided: model, bot, human (an override or a take-over), ..."),
        ("model", "TEXT", "the model that answered (model seats)"),
        ("action", "TEXT", "the action played (NULL when the seat forfeited)"),
        ("policy", "TEXT", "answer, random, noop, forfeit, strikes, failed_calls, budget (model seats)"),
        ("parsed", "INTEGER", "1 when the answer gave a legal action without a fallback"),
        ("fallback", "INTEGER", "1 when a fallback move (random or no-op) was played for the model"),
        ("forfeit", "INTEGER", "1 when the seat forfeited at this decision"),
        ("attempts", "INTEGER", "answers asked for this decision (1 + re-asks)"),
        ("invalid_answers", "INTEGER", "unparsable or illegal answers during this decision"),
        ("questions_asked", "INTEGER", "intermediate questions checked against ground truth"),
        ("questions_correct", "INTEGER", "of those, answered correctly"),
        ("cost_usd", "REAL", "what the decision's model calls cost"),
        ("latency_s", "REAL", "seconds from the request to the decision"),
        ("input_tokens", "INTEGER", "input tokens of the decision's model calls"),
        ("output_tokens", "INTEGER", "output tokens of the decision's model calls"),
        ("answer", "TEXT", "the last answer text of the decision's action calls"),
        ("reasoning", "TEXT", "the streamed reasoning of that answer"),
        ("rationale", "TEXT", "the short reason the decision gives"),
        ("error", "TEXT", "why the last invalid answer was refused"),
        ("reward", "REAL", "the seat's reward for this step"),
        ("score", "REAL", "the seat's score after this step"),
        ("prompt_variant", "TEXT", "the harness' prompt variant (model seats)"),
    ),
    "sessions": (
        ("session", "TEXT", "session id"),
        ("path", "TEXT", "the session's folder"),
        ("game", "TEXT", "game id"),
        ("seed", "TEXT", "the episode's seed"),
        ("status", "TEXT", "how the session ended"),
        ("steps", "INTEGER", "decisions recorded"),
        ("players", "TEXT", "the seats' player specs, JSON list"),
        ("winner", "INTEGER", "the winning seat, if any"),
        ("scores", "TEXT", "final scores, JSON list"),
        ("created_at", "TEXT", "when the session started (UTC)"),
        ("options", "TEXT", "the game's options, JSON"),
        ("harness", "TEXT", "the model seats' harness settings, JSON"),
        ("metrics", "TEXT", "the game's own figures at the end (raw and progress scores, points...), JSON"),
    ),
    "questions": (
        ("session", "TEXT", "session id"),
        ("game", "TEXT", "game id"),
        ("step", "INTEGER", "the step, numbered as in steps"),
        ("seat", "INTEGER", "the answering seat"),
        ("key", "INTEGER", "the question's number"),
        ("question", "TEXT", "the question"),
        ("answer", "TEXT", "the model's answer, JSON"),
        ("truth", "TEXT", "the ground truth, JSON"),
        ("correct", "INTEGER", "1 correct, 0 wrong, NULL not applicable"),
        ("label", "TEXT", "TP, TN, FP, FN, MM, format_error, not_applicable, ..."),
    ),
}


class QueryError(ValueError):
    """The user's SQL could not run (one line: SQLite's message)."""


@dataclasses.dataclass(frozen=True)
class SearchResult:
    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]


@dataclasses.dataclass
class IndexStats:
    sessions: int = 0
    read: int = 0
    removed: int = 0
    skipped: list[str] = dataclasses.field(default_factory=list)


def find_sessions(root: Path) -> Iterator[Path]:
    """Session folders under ``root`` (a folder with ``manifest.json`` or ``events.jsonl``), sorted;
    links to folders are not followed, so the walk cannot leave ``root``."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        if schema.EVENTS_FILE in filenames or schema.MANIFEST_FILE in filenames:
            if schema.EVENTS_FILE in filenames:
                yield Path(dirpath)
            dirnames[:] = []  # a session holds no sessions (attachments/, annotations/)


def _stat_key(folder: Path) -> tuple[int, int] | None:
    try:
        st = os.lstat(folder / schema.EVENTS_FILE)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return st.st_size, st.st_mtime_ns


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True, default=str)


@dataclasses.dataclass
class _Pending:
    """What is gathered for one (step, seat) decision while its events stream past."""

    answer: str | None = None
    reasoning: str | None = None
    error: str | None = None
    invalid: int = 0
    asked: int = 0
    correct: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    questions: list[tuple[Any, ...]] = dataclasses.field(default_factory=list)


def decision_rows(
    folder: Path,
) -> tuple[dict[str, Any], list[dict[str, Any]], list[tuple[Any, ...]]]:
    """One session read for the index: its ``sessions`` row, its ``steps`` rows and ``questions`` rows.

    Raises:
        SessionError: the folder is not a readable session.
    """
    try:
        manifest = read_manifest(folder / schema.MANIFEST_FILE)
    except FileNotFoundError:
        manifest = {}
    if not isinstance(manifest, dict):
        manifest = {}
    events = _stream_events(folder / schema.EVENTS_FILE)
    try:
        session_id = str(manifest.get("id") or folder.name)
        game = manifest.get("game")
        players_meta: dict[int, dict[str, Any]] = {}
        status = manifest.get("status")
        seed = manifest.get("seed")
        harness = manifest.get("harness") or {}
        steps: list[dict[str, Any]] = []
        questions: list[tuple[Any, ...]] = []
        pending: dict[tuple[int, int], _Pending] = {}
        last_rows: dict[int, list[dict[str, Any]]] = {}
        finished: dict[str, Any] | None = None
        for event in events:
            kind = event["type"]
            data = event["data"]
            step, seat = event.get("step"), event.get("seat")
            if kind == "session_started":
                game = game or data.get("game")
                seed = seed if seed is not None else data.get("seed")
                for p in data.get("players") or ():
                    if isinstance(p, dict) and _int(p.get("seat")) is not None:
                        players_meta[p["seat"]] = p
                continue
            if kind == "session_finished":
                finished = data
                continue
            if step is None or seat is None:
                if kind == "action_applied" and step is not None:
                    rewards, scores = data.get("rewards") or [], data.get("scores") or []
                    for row in last_rows.pop(step, []):
                        s = row["seat"]
                        row["reward"] = _num(rewards[s]) if s < len(rewards) else None
                        row["score"] = _num(scores[s]) if s < len(scores) else None
                continue
            p = pending.setdefault((step, seat), _Pending())
            if kind == "answer" and data.get("purpose", "action") == "action":
                p.answer = data.get("text")
            elif kind == "reasoning" and data.get("purpose", "action") == "action":
                p.reasoning = data.get("text")
            elif kind in ("action_unparsable", "action_illegal"):
                p.invalid += 1
                p.error = data.get("error") or data.get("reason")
            elif kind == "model_call_finished":
                p.input_tokens += _int(data.get("input_tokens")) or 0
                p.output_tokens += _int(data.get("output_tokens")) or 0
                p.cost += _num(data.get("cost_usd")) or 0.0
            elif kind == "verification":
                detail = data.get("detail") or {}
                correct = data.get("correct")
                if detail.get("label") != "not_applicable":
                    p.asked += 1
                    p.correct += correct is True
                questions.append(
                    (
                        session_id,
                        game,
                        step + 1,
                        seat,
                        _int(data.get("key")),
                        data.get("question"),
                        _json(data.get("answer")),
                        _json(data.get("truth")),
                        None if correct is None else int(bool(correct)),
                        detail.get("label"),
                    )
                )
            elif kind == "decision":
                p = pending.pop((step, seat))
                meta = players_meta.get(seat, {})
                policy = data.get("policy")
                latency = _num(data.get("latency_ms"))
                cost = _num(data.get("cost_usd"))
                row = {
                    "session": session_id,
                    "path": str(folder),
                    "game": game,
                    "seed": None if seed is None else str(seed),
                    "status": status,
                    "step": step + 1,
                    "seat": seat,
                    "player": meta.get("spec"),
                    "kind": meta.get("kind"),
                    "source": data.get("source"),
                    "model": data.get("model"),
                    "action": data.get("action"),
                    "policy": policy,
                    "parsed": None if policy is None else int(policy == "answer"),
                    "fallback": int(policy in FALLBACK_POLICIES),
                    "forfeit": int(policy in FORFEIT_POLICIES or bool(data.get("forfeit"))),
                    "attempts": _int(data.get("attempts")),
                    "invalid_answers": p.invalid,
                    "questions_asked": p.asked,
                    "questions_correct": p.correct,
                    "cost_usd": cost if cost is not None else (p.cost or None),
                    "latency_s": None if latency is None else latency / 1000.0,
                    "input_tokens": p.input_tokens or None,
                    "output_tokens": p.output_tokens or None,
                    "answer": p.answer,
                    "reasoning": p.reasoning,
                    "rationale": data.get("rationale"),
                    "error": p.error,
                    "reward": None,
                    "score": None,
                    "prompt_variant": harness.get("prompt_variant") if meta.get("kind") == "model" else None,
                }
                steps.append(row)
                last_rows.setdefault(step, []).append(row)
        if finished is not None:
            status = finished.get("status", status)
            for row in steps:
                row["status"] = status
        specs = [players_meta[k].get("spec") for k in sorted(players_meta)] or [
            p.get("spec") for p in manifest.get("players") or () if isinstance(p, dict)
        ]
        session_row = {
            "session": session_id,
            "path": str(folder),
            "game": game,
            "seed": None if seed is None else str(seed),
            "status": status,
            "steps": len({r["step"] for r in steps}),
            "players": _json(specs),
            "winner": _int((finished or manifest).get("winner")),
            "scores": _json((finished or manifest).get("scores")),
            "created_at": manifest.get("created_at"),
            "options": _json(manifest.get("options")),
            "harness": _json(harness or None),
            "metrics": _json((finished or {}).get("metrics")),
        }
        return session_row, steps, questions
    finally:
        events.close()


def _stream_events(path: Path) -> Generator[dict[str, Any], None, None]:
    """The events of ``path`` in one streamed pass, for indexing: the session reader's checks (a
    regular file, capped lines, older lines upgraded) without keeping an index of the log, since the
    search index reads each line once. Unreadable lines are skipped, as the reader skips them."""
    fd, _ = open_regular(path)
    with os.fdopen(fd, "rb") as fh:
        while True:
            raw = fh.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                fh.readline()  # the rest of an over-long line
                continue
            try:
                event, _ = normalize(_parse(raw.decode("utf-8").strip()))
            except (UnicodeDecodeError, ValueError):
                continue
            if event is not None:
                yield event


def _create(db: sqlite3.Connection) -> None:
    for table, columns in TABLES.items():
        cols = ", ".join(f"{name} {kind}" for name, kind, _ in columns)
        db.execute(f"CREATE TABLE IF NOT EXISTS {table} ({cols})")
    db.execute("CREATE TABLE IF NOT EXISTS _files (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER)")
    db.execute("CREATE INDEX IF NOT EXISTS steps_path ON steps (path)")
    db.execute("CREATE INDEX IF NOT EXISTS questions_session ON questions (session)")
    db.execute("CREATE INDEX IF NOT EXISTS sessions_path ON sessions (path)")
    db.execute(f"PRAGMA user_version = {INDEX_VERSION}")


#: What a user's query may do: read tables and call functions, nothing else.
_ALLOWED = frozenset(
    {
        sqlite3.SQLITE_SELECT,
        sqlite3.SQLITE_READ,
        sqlite3.SQLITE_FUNCTION,
        getattr(sqlite3, "SQLITE_RECURSIVE", 33),
    }
)


def _authorize(action: int, *_: Any) -> int:
    return sqlite3.SQLITE_OK if action in _ALLOWED else sqlite3.SQLITE_DENY


class SearchIndex:
    """The index of one folder of sessions.

    Args:
        root: The folder searched (every session below it, at any depth).
        cache: The SQLite file to keep the index in (``None``: PlayTrace's user data folder, by the
            folder's absolute path; ``":memory:"``: kept nowhere).
    """

    def __init__(self, root: Path, cache: Path | str | None = None) -> None:
        self.root = Path(root).resolve()
        if cache is None:
            digest = hashlib.sha256(str(self.root).encode()).hexdigest()[:16]
            cache = user_data_dir() / "search" / f"{digest}.sqlite"
        self.cache = cache
        if cache != ":memory:":
            Path(cache).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(cache))
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version != INDEX_VERSION:
            for table in (*TABLES, "_files"):
                self._db.execute(f"DROP TABLE IF EXISTS {table}")
        _create(self._db)
        self._db.commit()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, progress: Callable[[int, int], None] | None = None) -> IndexStats:
        """Read the sessions that are new or changed since the last update; drop vanished ones."""
        stats = IndexStats()
        known = {p: (s, m) for p, s, m in self._db.execute("SELECT path, size, mtime_ns FROM _files")}
        found: dict[str, tuple[int, int]] = {}
        for folder in find_sessions(self.root):
            key = _stat_key(folder)
            if key is not None:
                found[str(folder)] = key
        stats.sessions = len(found)
        changed = [p for p, key in found.items() if known.get(p) != key]
        gone = [p for p in known if p not in found]
        db = self._db
        for path in gone:
            self._forget(path)
        stats.removed = len(gone)
        for n, path in enumerate(changed, 1):
            self._forget(path)
            try:
                session, steps, questions = decision_rows(Path(path))
            except (SessionError, OSError, ValueError) as exc:
                stats.skipped.append(f"{path}: {exc}")
            else:
                self._insert("sessions", [session])
                self._insert("steps", steps)
                db.executemany(f"INSERT INTO questions VALUES ({', '.join('?' * 10)})", questions)
                stats.read += 1
            db.execute("INSERT OR REPLACE INTO _files VALUES (?, ?, ?)", (path, *found[path]))
            if n % 500 == 0:
                db.commit()
            if progress is not None:
                progress(n, len(changed))
        db.commit()
        return stats

    def _forget(self, path: str) -> None:
        ids = [r[0] for r in self._db.execute("SELECT session FROM sessions WHERE path = ?", (path,))]
        self._db.execute("DELETE FROM steps WHERE path = ?", (path,))
        self._db.execute("DELETE FROM sessions WHERE path = ?", (path,))
        self._db.executemany("DELETE FROM questions WHERE session = ?", [(i,) for i in ids])
        self._db.execute("DELETE FROM _files WHERE path = ?", (path,))

    def _insert(self, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
        names = [c[0] for c in TABLES[table]]
        sql = f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
        self._db.executemany(sql, [tuple(r.get(n) for n in names) for r in rows])

    def query(self, sql: str, params: Sequence[Any] = ()) -> SearchResult:
        """Run one read-only SQL statement over the index.

        Raises:
            QueryError: the statement is not valid SQL, is more than one statement, or tries to do
                anything but read.
        """
        db = self._db
        db.set_authorizer(_authorize)
        try:
            cursor = db.execute(sql, params)
            rows = cursor.fetchall()
        except (sqlite3.Error, sqlite3.Warning, ValueError, OverflowError) as exc:
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if "not authorized" in message:
                message = "only reading queries are allowed (SELECT ...)"
            raise QueryError(message) from None
        finally:
            db.set_authorizer(None)
        columns = tuple(d[0] for d in cursor.description or ())
        return SearchResult(columns, rows)


def schema_text() -> str:
    """The documented tables, one column a line (``playtrace search --schema``)."""
    lines: list[str] = []
    for table, columns in TABLES.items():
        lines.append(f"{table}:")
        width = max(len(name) for name, _, _ in columns)
        lines += [f"  {name:<{width}}  {kind:<7}  {meaning}" for name, kind, meaning in columns]
    return "\n".join(lines)
