"""Annotations live beside a session's events, never in them, and travel with it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from sessions import SessionError, annotations, export_zip, import_zip, load_session

from session_helpers import record_match


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_disputes_by_two_annotators_leave_the_events_byte_identical(tmp_path: Path) -> None:
    folder = record_match(tmp_path / "sessions", "tictactoe", [1, 2])
    before = _digest(folder / "events.jsonl")
    annotations.add(folder, "ana", annotations.DISPUTE, 2, seat=0, key=1, question="my winning moves",
                    verdict="FN", comment="(0,2) is blocked; the oracle is right, though")
    annotations.add(folder, "Ben K", annotations.NOTE, 3, comment="slow start")
    annotations.add(folder, "ana", annotations.DISPUTE, 2, seat=0, key=1, withdrawn=True)
    assert _digest(folder / "events.jsonl") == before
    items = annotations.load(folder)
    assert sorted(i["annotator"] for i in items) == ["Ben-K", "ana", "ana"]
    assert [i.get("withdrawn", False) for i in items if i["annotator"] == "ana"] == [False, True]
    assert annotations.current(items) == {}  # the dispute was withdrawn
    assert len(annotations.current(items, annotations.NOTE)) == 1
    assert sorted(p.name for p in (folder / "annotations").iterdir()) == ["Ben-K.jsonl", "ana.jsonl"]


def test_annotations_are_exported_and_imported_with_the_session(tmp_path: Path) -> None:
    folder = record_match(tmp_path / "sessions", "tictactoe", [3, 30])
    annotations.add(folder, "ana", annotations.DISPUTE, 1, seat=0, key=2, verdict="TP", comment="looks off")
    archive = export_zip(folder, tmp_path)
    copy = import_zip(archive, tmp_path / "elsewhere")
    assert [i["comment"] for i in annotations.load(copy)] == ["looks off"]
    assert load_session(copy).id


def test_a_torn_last_line_keeps_the_earlier_annotations(tmp_path: Path) -> None:
    folder = record_match(tmp_path / "sessions", "tictactoe", [4, 40])
    annotations.add(folder, "ana", annotations.NOTE, 1, comment="first")
    with (folder / "annotations" / "ana.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"v": 1, "kind": "note", "st')  # a crash in the middle of a write
    assert [i["comment"] for i in annotations.load(folder)] == ["first"]


def test_bad_annotators_kinds_and_folders_get_clear_errors(tmp_path: Path) -> None:
    folder = record_match(tmp_path / "sessions", "tictactoe", [5, 50])
    with pytest.raises(SessionError, match="cannot name an annotator"):
        annotations.add(folder, "../..", annotations.NOTE, 1)
    with pytest.raises(SessionError, match="unknown annotation kind"):
        annotations.add(folder, "ana", "vote", 1)
    with pytest.raises(SessionError, match="not a PlayTrace session"):
        annotations.add(tmp_path, "ana", annotations.NOTE, 1)
