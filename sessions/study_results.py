"""A study's results folder: where each participant is, their sessions, and exports for statisticians.

Layout of a results folder (one per study and version)::

    results/
      study.toml                  the study file as it was run (its digest is checked on every run)
      participants/P001.json      each participant's progress: blocks done, sessions, answers
      sessions/<session>/         ordinary PlayTrace sessions, tagged in ``manifest.extra.study``

A participant's progress is rewritten atomically after every block, so a closed or crashed app (or a
killed ``study simulate``) resumes at the first block not done. :func:`export_rows` gives one row per
move and one per game (and one per participant for the final questionnaire), with a codebook;
nothing identifying is exported — no names, user or host names, paths or clock times — unless the
study's ``collect`` asks for it. :func:`merge` combines the folders or zips several machines sent
back, refusing duplicates and different versions of the study.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
import shutil
import tempfile
import zipfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from engine import safeio
from engine.safeio import InputError
from engine.study import Block, Study, StudyError, parse_study
from sessions import schema
from sessions._eventlog import read_event_log
from sessions._files import is_regular
from sessions._lock import FileLock, is_locked
from sessions.errors import SessionError
from sessions.writer import atomic_write_json

__all__ = ["CODEBOOK", "ParticipantBusy", "Progress", "ResultsFolder", "export_rows", "merge", "write_table"]

STUDY_FILE = "study.toml"
#: A study file is a few kilobytes.
STUDY_CAP = 1024 * 1024
#: What a results folder (or zip of one) given to ``study merge`` may hold.
MERGE_MAX_BYTES = 32 * 1024**3
MERGE_LIMITS = safeio.ArchiveLimits(
    max_total=MERGE_MAX_BYTES, max_member=2 * 1024**3, max_members=1_000_000, max_ratio=200,
    ratio_from=64 * 1024**2,
)
PARTICIPANTS = "participants"
SESSIONS = "sessions"
_PID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")


@dataclasses.dataclass
class Progress:
    """Where one participant is in the study (the JSON file in ``participants/``)."""

    participant: str
    index: int
    condition: str
    study: str
    version: int
    digest: str
    next_block: int = 0
    blocks: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    finished: bool = False

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Progress:
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})

    def done(
        self,
        block: Block,
        *,
        session: str | None = None,
        answers: Mapping[str, Any] | None = None,
        status: str | None = None,
    ) -> None:
        """Record ``block`` as done (its session's folder name, questionnaire answers, the game's end)."""
        entry: dict[str, Any] = {"index": block.index, "kind": block.kind}
        if session is not None:
            entry["session"] = session
        if answers is not None:
            entry["answers"] = dict(answers)
        if status is not None:
            entry["status"] = status
        self.blocks = [b for b in self.blocks if b.get("index") != block.index] + [entry]
        self.next_block = max(self.next_block, block.index + 1)

    def answers_after(self, block_index: int) -> dict[str, Any]:
        for b in self.blocks:
            if b.get("index") == block_index:
                return dict(b.get("answers") or {})
        return {}


class ParticipantBusy(SessionError):
    """Another process is running this participant of the study now."""


class ResultsFolder:
    """A study's results folder (created on first use; refuses a folder of another study or version)."""

    def __init__(self, root: Path | str, study: Study, text: str) -> None:
        self.root = Path(root)
        self.study = study
        existing = self.root / STUDY_FILE
        if existing.is_file():
            try:
                other = parse_study(safeio.read_text(existing, cap=STUDY_CAP), str(existing))
            except (OSError, StudyError, InputError) as exc:
                raise SessionError(f"{self.root} holds a study file that cannot be read: {exc}") from exc
            if (other.id, other.version, other.digest) != (study.id, study.version, study.digest):
                raise SessionError(
                    f"{self.root} holds results of study {other.id!r} version {other.version}; this is "
                    f"{study.id!r} version {study.version}"
                    + (
                        " with other contents (bump its version)"
                        if (other.id, other.version) == (study.id, study.version)
                        else ""
                    )
                    + ": use another folder"
                )
        else:
            self.root.mkdir(parents=True, exist_ok=True)
            (self.root / STUDY_FILE).write_text(text, encoding="utf-8")
        (self.root / PARTICIPANTS).mkdir(exist_ok=True)
        (self.root / SESSIONS).mkdir(exist_ok=True)
        #: The participants this process is running (each under a lock no other process can take).
        self._claims: dict[str, FileLock] = {}

    @property
    def sessions(self) -> Path:
        return self.root / SESSIONS

    def participant_ids(self) -> list[str]:
        return sorted(p.stem for p in (self.root / PARTICIPANTS).glob("*.json"))

    def new_participant_id(self) -> str:
        """The next free pseudonym (``P001``, ``P002``, …): not in the folder, not being run elsewhere."""
        taken = set(self.participant_ids())
        n = len(taken) + 1
        while f"P{n:03d}" in taken or is_locked(self._lock_path(f"P{n:03d}")):
            n += 1
        return f"P{n:03d}"

    def claim(self, participant: str) -> None:
        """Run ``participant`` in this process only, until :meth:`release` (or the process ends): two
        ``study run`` or ``study simulate`` on one results folder never run the same participant.

        Raises:
            ParticipantBusy: another process is running this participant now.
        """
        if participant in self._claims:
            return
        if not _PID.match(participant):
            raise SessionError(f"{participant!r} cannot be a participant id: use letters, digits, '_' or '-'")
        lock = FileLock(self._lock_path(participant))
        if not lock.held:
            raise ParticipantBusy(f"{participant} is being run by another PlayTrace on {self.root} right now")
        self._claims[participant] = lock

    def release(self, participant: str | None = None) -> None:
        """Let other processes run ``participant`` (every participant this process claimed: ``None``)."""
        for pid in [participant] if participant is not None else list(self._claims):
            lock = self._claims.pop(pid, None)
            if lock is not None:
                lock.release()

    def _lock_path(self, participant: str) -> Path:
        return self.root / PARTICIPANTS / f".{participant}.lock"

    def progress(self, participant: str) -> Progress:
        """The participant's progress: read back when they started before, else a new one (which
        takes the next row of the study's order)."""
        if not _PID.match(participant):
            raise SessionError(f"{participant!r} cannot be a participant id: use letters, digits, '_' or '-'")
        path = self._path(participant)
        if path.is_file():
            try:
                return Progress.from_json(safeio.read_json(path, cap=STUDY_CAP))
            except (OSError, ValueError, TypeError, InputError) as exc:
                raise SessionError(f"the progress of {participant} ({path}) cannot be read: {exc}") from exc
        # A new participant takes the next row of the order: counted and saved under the folder's lock,
        # so two processes starting participants at once never take the same row.
        with FileLock(self.root / PARTICIPANTS / ".new.lock", wait_s=30.0) as lock:
            if not lock.held:
                raise SessionError(f"{self.root} is busy: another PlayTrace has held it for 30 s")
            if path.is_file():  # started by another process while this one waited
                return self.progress(participant)
            index = len(self.participant_ids())
            _blocks, condition = self.study.schedule(index, participant)
            progress = Progress(
                participant, index, condition, self.study.id, self.study.version, self.study.digest
            )
            self.save(progress)
        return progress

    def blocks(self, progress: Progress) -> list[Block]:
        return self.study.schedule(progress.index, progress.participant)[0]

    def save(self, progress: Progress) -> None:
        atomic_write_json(self._path(progress.participant), progress.to_json())

    def _path(self, participant: str) -> Path:
        return self.root / PARTICIPANTS / f"{participant}.json"


# -- export ------------------------------------------------------------------------------------------

#: Every fixed column of an export: (name, rows it applies to, type, meaning). Questionnaire answers
#: add ``q_<questionnaire>_<item>`` columns (see :func:`codebook`).
CODEBOOK: tuple[tuple[str, str, str, str], ...] = (
    ("row_type", "all", "text", "move, game or participant"),
    ("study", "all", "text", "the study's id"),
    ("version", "all", "integer", "the study file's version"),
    ("participant", "all", "text", "the participant's pseudonym"),
    ("condition", "all", "text", "the order of the games this participant had (Latin square row)"),
    ("game_key", "move, game", "text", "the game's name in the study file"),
    ("game", "move, game", "text", "the PlayTrace game id"),
    ("position", "move, game", "integer", "the game's place in this participant's order (from 1)"),
    ("round", "move, game", "integer", "which round of that game (from 1)"),
    ("practice", "move, game", "boolean", "a practice round (not counted)"),
    ("seed", "move, game", "integer", "the game's seed (the same seed gives the same game)"),
    ("session", "move, game", "text", "the game's id in the study: participant and block (the session "
     "folder is named in the participant's progress file)"),
    ("step", "move", "integer", "the move's index in the game (from 0)"),
    ("seat", "move", "integer", "the seat that moved (0 is the participant's in one-player games)"),
    ("actor", "move", "text", "participant, or the kind of the other player (bot, model)"),
    ("action", "move", "text", "the move as the game names it"),
    ("think_ms", "move", "number", "time from the position being shown to the move, in milliseconds"),
    ("timed_out", "move", "boolean", "the participant's time for the move ran out and the move was played "
     "for them (the game's default action or a random legal move)"),
    ("t_s", "move", "number", "seconds since the game started"),
    ("score_after", "move", "number", "the participant's score after the move"),
    ("undone", "move", "boolean", "the participant took this move back later (a hesitation)"),
    ("status", "game", "text", "how the game ended: completed, max_steps, aborted, forfeit, error"),
    ("steps", "game", "integer", "moves played (undone ones excluded)"),
    ("score", "game", "number", "the participant's final score"),
    ("raw_score", "game", "number", "the benchmark's raw score (LMGame-Bench's definition), if defined"),
    ("progress_score", "game", "number", "the benchmark's progress score, if defined"),
    ("won", "game", "boolean", "the participant won (multi-player games)"),
    ("undos", "game", "integer", "moves taken back"),
    ("think_ms_mean", "game", "number", "mean think time of the participant's moves"),
    ("duration_s", "game", "number", "seconds from the first to the last event"),
    ("started_at", "move, game", "text", "UTC clock time (only when the study collects absolute_times)"),
)


def codebook(study: Study) -> list[tuple[str, str, str, str]]:
    """The export's columns with their meaning, questionnaire items included."""
    rows = list(CODEBOOK)
    for q in study.questionnaires.values():
        applies = "participant" if q.key == study.final_questionnaire else "game"
        for item in q.items:
            kind = f"integer 1–{item.scale}" if item.kind == "likert" else "text"
            anchors = f" ({item.anchors[0]} … {item.anchors[-1]})" if item.anchors else ""
            rows.append((f"q_{q.key}_{item.key}", applies, kind, item.text + anchors))
    return rows


def export_rows(
    folder: ResultsFolder, game_raw: Mapping[str, tuple[str | None, str | None]] | None = None
) -> Iterator[dict[str, Any]]:
    """One row per move, per game and per participant (see :data:`CODEBOOK`).

    ``game_raw`` maps a game id to the metric keys of its raw and progress scores
    (``Game.raw_score``, ``Game.progress_score``), looked up by the caller.
    """
    study = folder.study
    absolute = "absolute_times" in study.collect
    for pid in folder.participant_ids():
        progress = folder.progress(pid)
        base = {
            "study": study.id,
            "version": study.version,
            "participant": pid,
            "condition": progress.condition,
        }
        blocks = {b.index: b for b in folder.blocks(progress)}
        for entry in sorted(progress.blocks, key=lambda e: e.get("index", 0)):
            index = entry.get("index")
            block = blocks.get(index) if isinstance(index, int) else None
            if block is None or not block.plays or not entry.get("session"):
                continue
            if entry.get("kind") == "attempt":
                continue  # a game cut off by a crash and played again: the replay counts
            session_dir = folder.sessions / str(entry["session"])
            answers = _answers_for(progress, blocks, block)
            yield from _game_rows(session_dir, base, block, answers, absolute, game_raw or {})
        final = {}
        for entry in progress.blocks:
            index = entry.get("index")
            block = blocks.get(index) if isinstance(index, int) else None
            if block is not None and block.kind == "questionnaire" and block.game is None:
                final = {f"q_{block.questionnaire}_{k}": v for k, v in (entry.get("answers") or {}).items()}
        yield {"row_type": "participant", **base, **final}


def _answers_for(progress: Progress, blocks: Mapping[int, Block], game_block: Block) -> dict[str, Any]:
    nxt = blocks.get(game_block.index + 1)
    if game_block.kind == "game" and nxt is not None and nxt.kind == "questionnaire" and nxt.game is not None:
        return {f"q_{nxt.questionnaire}_{k}": v for k, v in progress.answers_after(nxt.index).items()}
    return {}


def _time(ts: Any) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(str(ts).replace("Z", "+00:00"))
    except ValueError:
        return None


def _game_rows(
    session_dir: Path,
    base: Mapping[str, Any],
    block: Block,
    answers: Mapping[str, Any],
    absolute: bool,
    game_raw: Mapping[str, tuple[str | None, str | None]],
) -> Iterator[dict[str, Any]]:
    assert block.game is not None
    # The session reader's own log: torn lines skipped, older event versions upgraded.
    events = list(read_event_log(session_dir / schema.EVENTS_FILE))
    game_cols = {
        "game_key": block.game.key,
        "game": block.game.game,
        "position": block.position,
        "round": block.round,
        "practice": block.kind == "practice",
        "seed": block.seed,
        "session": session_dir.name if absolute else f"{base['participant']}-{block.index:02d}",
    }
    started = _time(events[0]["ts"]) if events else None
    players = (
        next((e["data"].get("players") for e in events if e.get("type") == "session_started"), None) or []
    )
    kinds = {
        int(p.get("seat", i)): str(p.get("kind", "")) for i, p in enumerate(players) if isinstance(p, dict)
    }
    human = next((s for s, k in sorted(kinds.items()) if k == "human"), 0)
    moves: list[dict[str, Any]] = []
    think: dict[tuple[int, int], float] = {}
    timed_out: set[tuple[int, int]] = set()
    undos = 0
    for e in events:
        data = e.get("data") or {}
        if e.get("type") == "decision" and data.get("timed_out"):
            timed_out.add((int(e.get("step") or 0), int(e.get("seat") or 0)))
        if e.get("type") == "decision" and isinstance(data.get("latency_ms"), (int, float)):
            think[(int(e.get("step") or 0), int(e.get("seat") or 0))] = float(
                data["latency_ms"]
            )
        elif e.get("type") == "undo":
            undos += 1
            back = int(data.get("steps", 1) or 1)
            for row in [m for m in moves if not m["undone"]][-back:]:
                row["undone"] = True
        elif e.get("type") == "action_applied":
            when = _time(e.get("ts"))
            scores = data.get("scores") or []
            for seat_text, action in (data.get("actions") or {}).items():
                seat = int(seat_text)
                step = int(e.get("step") or 0)
                moves.append(
                    {
                        "row_type": "move",
                        **base,
                        **game_cols,
                        "step": step,
                        "seat": seat,
                        "actor": "participant" if kinds.get(seat) == "human" else kinds.get(seat, ""),
                        "action": action,
                        "think_ms": think.get((step, seat)),
                        "timed_out": (step, seat) in timed_out,
                        "t_s": round((when - started).total_seconds(), 3) if when and started else None,
                        "score_after": scores[human] if human < len(scores) else None,
                        "undone": False,
                        **({"started_at": e.get("ts")} if absolute else {}),
                    }
                )
    yield from moves
    finished = next(
        (e.get("data") or {} for e in reversed(events) if e.get("type") == "session_finished"), {}
    )
    metrics = finished.get("metrics") or {}
    raw_key, progress_key = game_raw.get(block.game.game, (None, None))
    scores = finished.get("scores") or []
    mine = [m["think_ms"] for m in moves if m["actor"] == "participant" and m["think_ms"] is not None]
    ended = _time(events[-1].get("ts")) if events else None
    winner = finished.get("winner")
    yield {
        "row_type": "game",
        **base,
        **game_cols,
        "status": finished.get("status", "unfinished"),
        "steps": sum(1 for m in moves if not m["undone"]),
        "score": scores[human] if human < len(scores) else None,
        "raw_score": metrics.get(raw_key) if raw_key else (scores[human] if human < len(scores) else None),
        "progress_score": metrics.get(progress_key) if progress_key else None,
        "won": (winner == human) if len(kinds) > 1 and winner is not None else None,
        "undos": undos,
        "think_ms_mean": round(sum(mine) / len(mine), 1) if mine else None,
        "duration_s": round((ended - started).total_seconds(), 3) if ended and started else None,
        **({"started_at": events[0].get("ts")} if absolute and events else {}),
        **answers,
    }


def write_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], out: Path) -> None:
    """Write ``rows`` as CSV (``.csv``) or Parquet (``.parquet``, with pyarrow) and the codebook beside.

    Raises:
        SessionError: Parquet was asked for without pyarrow installed.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise SessionError(
                "writing .parquet needs pyarrow: pip install 'playtrace[parquet]' (.csv needs nothing)"
            ) from exc
        table = pa.table({c: _parquet_column([r.get(c) for r in rows]) for c in columns})
        pq.write_table(table, out)
        return
    import csv

    with out.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({c: _cell(row.get(c)) for c in columns})


def _parquet_column(values: list[Any]) -> list[Any]:
    """A column as Parquet takes it: missing values stay null; a column that mixes numbers and text
    (a free-text answer of "3") is written as text throughout."""
    kinds = {type(v) for v in values if v is not None}
    if len(kinds) > 1 and not kinds <= {int, float}:
        return [None if v is None else str(v) for v in values]
    return values


def _cell(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else value


# -- merge -------------------------------------------------------------------------------------------


def merge(sources: Sequence[Path], out: Path) -> tuple[int, int]:
    """Combine results folders (or zips of them) into ``out``; returns (participants, sessions).

    Raises:
        SessionError: different studies or versions, a participant or session in two sources, a
            source that is not a results folder.
    """
    with tempfile.TemporaryDirectory(prefix="playtrace-merge-") as tmp:
        folders = [_unpacked(src, Path(tmp) / f"{i}") for i, src in enumerate(sources)]
        studies = []
        for src, folder in zip(sources, folders, strict=True):
            path = folder / STUDY_FILE
            if not is_regular(path):
                raise SessionError(f"{src} is not a study's results folder (no {STUDY_FILE})")
            try:
                study_text = safeio.read_text(path, cap=STUDY_CAP)
                studies.append((src, parse_study(study_text, str(src)), study_text))
            except (StudyError, InputError) as exc:
                raise SessionError(str(exc)) from exc
            # Every file that will be copied: regular files only, no link that could leave the folder.
            try:
                for _file in safeio.walk_files(folder, what="results folder", max_total=MERGE_MAX_BYTES):
                    pass
            except InputError as exc:
                raise SessionError(str(exc)) from None
        first_src, first, text = studies[0]
        for src, other, _ in studies[1:]:
            if (other.id, other.version, other.digest) != (first.id, first.version, first.digest):
                raise SessionError(
                    f"{src} holds study {other.id!r} version {other.version}, {first_src} holds "
                    f"{first.id!r} version {first.version}"
                    + (" (same version, different file)" if other.version == first.version else "")
                    + ": they cannot be merged"
                )
        seen_p: dict[str, Path] = {}
        seen_s: dict[str, Path] = {}
        for src, folder in zip(sources, folders, strict=True):
            for p in sorted((folder / PARTICIPANTS).glob("*.json")):
                if p.stem in seen_p:
                    raise SessionError(f"participant {p.stem} is in both {seen_p[p.stem]} and {src}")
                seen_p[p.stem] = src
            for s in (
                sorted(d for d in (folder / SESSIONS).iterdir() if d.is_dir())
                if (folder / SESSIONS).is_dir()
                else []
            ):
                if s.name in seen_s:
                    raise SessionError(f"session {s.name} is in both {seen_s[s.name]} and {src}")
                seen_s[s.name] = src
        target = ResultsFolder(out, first, text)
        clash = [pid for pid in seen_p if (out / PARTICIPANTS / f"{pid}.json").exists()]
        if clash:
            raise SessionError(f"{out} already holds participant(s) {', '.join(clash)}")
        for folder in folders:
            for p in (folder / PARTICIPANTS).glob("*.json"):
                shutil.copy2(p, target.root / PARTICIPANTS / p.name, follow_symlinks=False)
            if (folder / SESSIONS).is_dir():
                for s in (folder / SESSIONS).iterdir():
                    if s.is_dir() and not s.is_symlink():
                        shutil.copytree(s, target.sessions / s.name, symlinks=True)
        return len(seen_p), len(seen_s)


def _unpacked(src: Path, tmp: Path) -> Path:
    if src.is_dir():
        if src.is_symlink():
            raise SessionError(f"{src} is a symbolic link to a folder; give the folder itself")
        return src
    try:
        fd, _size = safeio.open_regular(src)
    except FileNotFoundError:
        raise SessionError(f"{src} does not exist") from None
    with os.fdopen(fd, "rb") as fh:
        if not zipfile.is_zipfile(fh):
            raise SessionError(f"{src} is neither a results folder nor a zip of one")
        try:
            zf = zipfile.ZipFile(fh)
        except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError):
            raise SessionError(f"{src} is not a readable zip file") from None
        with zf:
            _extract(zf, src, tmp)
    hits = [p.parent for p in tmp.rglob(STUDY_FILE)]
    if len(hits) != 1:
        raise SessionError(f"{src} holds {len(hits)} study files; expected one results folder")
    return hits[0]


def _extract(zf: zipfile.ZipFile, src: Path, tmp: Path) -> None:
    """Unpack a results zip into ``tmp`` within :data:`MERGE_LIMITS`, over all its members."""
    infos = zf.infolist()
    safeio.check_archive(infos, src, MERGE_LIMITS)
    budget = safeio.UnpackBudget(src, MERGE_LIMITS, sum(i.compress_size for i in infos))
    base = tmp.resolve()
    base.mkdir(parents=True, exist_ok=True)
    for info in infos:
        target = (base / info.filename).resolve()
        if not target.is_relative_to(base):
            raise SessionError(f"{src} holds a file outside its folder ({info.filename}); not unpacked")
        if info.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        written = 0
        try:
            with zf.open(info) as member, open(target, "wb") as out:
                while chunk := member.read(1 << 20):
                    written += len(chunk)
                    budget.take(info.filename, written, len(chunk))
                    out.write(chunk)
        except InputError:
            raise
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, ValueError,
                zlib.error) as exc:
            raise SessionError(f"{src}: {info.filename!r} cannot be unpacked ({exc})") from None
        except OSError as exc:
            raise SessionError(f"{src} cannot be unpacked: {exc.strerror or exc}") from None
