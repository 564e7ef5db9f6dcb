"""Annotations: what people say about a session's steps, kept apart from what happened.

A person may dispute a verifier's verdict (with a comment), tag a step with labels or write a note.
None of it changes the session's events: each annotator's annotations are one append-only JSON-lines
file, ``annotations/<annotator>.jsonl`` in the session folder, carried with the session by
:func:`sessions.export_zip` and :func:`sessions.import_zip`. A later line about the same target
supersedes an earlier one (a dispute withdrawn is a line with ``"withdrawn": true``), so nothing is
ever rewritten.

Line format: ``{"v": 1, "ts": <unix time>, "annotator": str, "kind": "dispute" | "label" | "note",
"step": int, "seat": int | null, "key": int | null, ...}``; a dispute adds ``question``, ``verdict``
(the verifier's label) and ``comment``; a label line holds the step's whole set, ``labels`` (a list of
taxonomy keys, empty when the annotator looked and found nothing to label); a note line holds ``text``.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from engine.safeio import InputError, loads_json, read_text
from sessions import schema
from sessions.errors import SessionError

__all__ = [
    "DISPUTE", "KINDS", "LABEL", "NOTE", "add", "annotator_id", "current", "label_sets", "load", "notes",
]

DISPUTE = "dispute"
LABEL = "label"
NOTE = "note"
KINDS = (DISPUTE, LABEL, NOTE)
#: The longest comment or note kept (a paragraph, not a document).
MAX_TEXT = 4000


#: One annotator's file of one session (a line is at most a few kilobytes).
MAX_FILE_BYTES = 64 * 1024 * 1024


def annotator_id(name: str) -> str:
    """``name`` as a file-safe annotator id (``"Ana María"`` → ``"Ana-Mar-a"``).

    Raises:
        SessionError: nothing usable is left of the name.
    """
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", name.strip()).strip("-.")[:64]
    if not cleaned or not re.match(r"^[A-Za-z0-9]", cleaned):
        raise SessionError(f"{name!r} cannot name an annotator: use letters, digits, '.', '_' or '-'.")
    return cleaned


def _file(session_dir: Path, annotator: str) -> Path:
    return Path(session_dir) / schema.ANNOTATIONS_DIR / f"{annotator_id(annotator)}.jsonl"


def add(session_dir: Path | str, annotator: str, kind: str, step: int, **fields: Any) -> dict[str, Any]:
    """Append one annotation by ``annotator`` about ``step`` and return the line written.

    The line is flushed and synced before this returns: an annotation confirmed to the person is on
    disk. ``fields`` holds ``seat``, ``key``, ``question``, ``verdict``, ``comment``, ``labels``,
    ``withdrawn`` as the kind needs them.

    Raises:
        SessionError: an unknown kind, a folder that is not a session, or the file cannot be written.
    """
    if kind not in KINDS:
        raise SessionError(f"unknown annotation kind {kind!r}; expected one of {', '.join(KINDS)}")
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise SessionError(f"step {step!r} cannot be annotated: steps are numbered from 0")
    folder = Path(session_dir)
    if not (folder / schema.MANIFEST_FILE).is_file() and not (folder / schema.EVENTS_FILE).is_file():
        raise SessionError(f"{folder} is not a PlayTrace session folder")
    line: dict[str, Any] = {"v": 1, "ts": round(time.time(), 6), "annotator": annotator_id(annotator),
                            "kind": kind, "step": int(step)}
    for name, value in fields.items():
        if isinstance(value, str):
            value = value[:MAX_TEXT]
        line[name] = value
    path = _file(folder, annotator)
    try:
        path.parent.mkdir(exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise SessionError(f"cannot write the annotation to {path}: {exc.strerror or exc}") from None
    return line


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    try:
        text = read_text(path, cap=MAX_FILE_BYTES, errors="replace")
    except (OSError, InputError):
        return  # a FIFO, a device or a link to elsewhere in the annotations folder: nothing of ours
    for raw in text.splitlines():
        try:
            item = loads_json(raw, str(path), max_depth=16)
        except InputError:
            continue  # a line cut by a crash (or nested beyond any annotation): the ones before it stand
        if isinstance(item, dict) and item.get("kind") in KINDS and isinstance(item.get("step"), int):
            yield item


def load(session_dir: Path | str) -> list[dict[str, Any]]:
    """Every annotation of the session, all annotators, by time written (each annotator's in the order
    of their file)."""
    folder = Path(session_dir) / schema.ANNOTATIONS_DIR
    if not folder.is_dir() or folder.is_symlink():
        return []
    items: list[dict[str, Any]] = []
    for path in sorted(folder.iterdir()):
        if schema.ANNOTATION_NAME_RE.match(path.name) and path.is_file() and not path.is_symlink():
            items.extend(_lines(path))
    items.sort(key=lambda item: float(item.get("ts") or 0))
    return items


def current(items: list[Mapping[str, Any]], kind: str = DISPUTE) -> dict[tuple[Any, ...], Mapping[str, Any]]:
    """The standing annotations of ``kind``: the latest line per (annotator, step, seat, key), without
    the withdrawn ones."""
    latest: dict[tuple[Any, ...], Mapping[str, Any]] = {}
    for item in items:
        if item.get("kind") == kind:
            latest[(item.get("annotator"), item.get("step"), item.get("seat"), item.get("key"))] = item
    return {k: v for k, v in latest.items() if not v.get("withdrawn")}


def label_sets(items: list[Mapping[str, Any]]) -> dict[tuple[str, int, Any], frozenset[str]]:
    """Each annotator's standing labels per step: ``{(annotator, step, seat): frozenset(keys)}``, from
    the latest label line (an empty set means "looked, nothing to label")."""
    out: dict[tuple[str, int, Any], frozenset[str]] = {}
    for (who, step, seat, _key), item in current(items, LABEL).items():
        keys = item.get("labels")
        if isinstance(keys, list):
            out[(str(who), int(step), seat)] = frozenset(k for k in keys if isinstance(k, str))
    return out


def notes(items: list[Mapping[str, Any]]) -> dict[tuple[str, int, Any], str]:
    """Each annotator's standing note per step (the latest; an empty text removes it)."""
    out: dict[tuple[str, int, Any], str] = {}
    for (who, step, seat, _key), item in current(items, NOTE).items():
        text = item.get("text")
        if isinstance(text, str) and text.strip():
            out[(str(who), int(step), seat)] = text
    return out
