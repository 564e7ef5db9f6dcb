"""The tolerant reader: torn and corrupt lines, lost manifests, foreign paths, interrupted sessions."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from engine.events import Event
from sessions import SessionError, SessionWriter, load_session

from session_helpers import record_match, start_event, step_events, write_synthetic


def test_torn_last_line_is_skipped_with_a_warning(root: Path) -> None:
    writer = write_synthetic(root, 5, finish=False)
    events = writer.path / "events.jsonl"
    with open(events, "ab") as fh:  # a crash in the middle of writing the next line
        fh.write(b'{"v":1,"seq":16,"ts":"2026-11-22T10:00:00.000Z","type":"turn_sta')
    session = load_session(writer.path)
    assert session.num_steps == 5
    assert any("last line" in w and "incomplete" in w for w in session.warnings)
    assert session.state_json_at(5) == {"n": 5}


def test_corrupt_middle_line_is_reported_and_reading_goes_on(root: Path) -> None:
    writer = write_synthetic(root, 4)
    path = writer.path / "events.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[3] = b'{"v":1, this is not json'
    lines[5] = b"[1, 2, 3]"  # valid JSON, not an event
    path.write_bytes(b"\n".join(lines))
    session = load_session(writer.path)
    assert "line 4 of events.jsonl is not a readable event; skipped" in session.warnings
    assert "line 6 of events.jsonl is not a readable event; skipped" in session.warnings
    assert len(session.events) == len([line for line in lines if line.strip()]) - 2
    assert session.events[-1]["type"] == "session_finished" and session.status == "completed"


def test_unknown_event_types_are_kept_with_a_warning(root: Path) -> None:
    writer = SessionWriter.create(root, game="fake", players=[], seed=None, options={})
    writer.append(start_event())
    writer.append(Event("annotation", {"text": "nice move"}, step=0))
    writer.append(Event("annotation", {"text": "again"}, step=0))
    writer.close("completed")
    session = load_session(writer.path)
    assert [e["data"]["text"] for e in session.events if e["type"] == "annotation"] == ["nice move", "again"]
    assert "2 event(s) of unknown type 'annotation' kept as they are" in session.warnings


def test_missing_manifest_is_rebuilt_from_events(root: Path) -> None:
    writer = write_synthetic(root, 3)
    (writer.path / "manifest.json").unlink()
    session = load_session(writer.path)
    assert session.warnings[0] == "manifest.json was missing; it was rebuilt from events.jsonl"
    assert session.manifest["game"] == "fake" and session.manifest["id"] == writer.path.name
    assert session.manifest["players"][0]["label"] == "Random"
    summary = session.summary()
    assert summary["status"] == "completed" and summary["steps"] == 3 and summary["scores"] == [3]


def test_corrupt_manifest_is_rebuilt_from_events(root: Path) -> None:
    writer = write_synthetic(root, 2)
    (writer.path / "manifest.json").write_bytes(b'{"format": "playtrace-sess')
    session = load_session(writer.path)
    assert session.warnings[0] == "manifest.json was unreadable; it was rebuilt from events.jsonl"
    assert session.num_steps == 2


def test_running_session_without_finish_is_interrupted(root: Path) -> None:
    writer = write_synthetic(root, 3, finish=False, close=False)
    # While the writer is alive the session is "running" ...
    assert load_session(writer.path).summary()["status"] == "running"
    # ... once it is gone without session_finished (simulate a dead process: lock released, manifest
    # still saying "running"), the reader says "interrupted".
    writer._lock.release()
    session = load_session(writer.path)
    assert json.loads((writer.path / "manifest.json").read_text("utf-8"))["status"] == "running"
    assert session.summary()["status"] == "interrupted"
    assert session.summary()["result"] == "score 3 (interrupted after 3 steps)"
    assert any("interrupted after 3 steps" in w for w in session.warnings)
    writer._fh.close()


def test_finished_event_wins_over_stale_running_manifest(root: Path) -> None:
    writer = write_synthetic(root, 2, finish=True)
    m = json.loads((writer.path / "manifest.json").read_text("utf-8"))
    m["status"] = "running"  # killed between the last event and the manifest update
    (writer.path / "manifest.json").write_text(json.dumps(m), "utf-8")
    assert load_session(writer.path).summary()["status"] == "completed"


def _one_line(exc: pytest.ExceptionInfo[SessionError]) -> str:
    msg = str(exc.value)
    assert "\n" not in msg and msg.endswith(".")
    return msg


def test_foreign_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "cat.jpg").write_bytes(b"\xff\xd8")
    with pytest.raises(SessionError) as exc:
        load_session(tmp_path / "photos")
    assert "is not a PlayTrace session" in _one_line(exc)


def test_random_file_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("hello", "utf-8")
    with pytest.raises(SessionError) as exc:
        load_session(f)
    assert "is not a PlayTrace session" in _one_line(exc)


def test_foreign_json_manifest_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "other-app"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"name": "something else", "version": 3}), "utf-8")
    (folder / "events.jsonl").write_text('{"type": "session_started"}\n', "utf-8")
    for p in (folder, folder / "manifest.json"):
        with pytest.raises(SessionError) as exc:
            load_session(p)
        assert "manifest.json is not a PlayTrace manifest" in _one_line(exc)


def test_foreign_jsonl_without_manifest_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "events.jsonl").write_text('{"level": "info", "msg": "x"}\nnot json\n', "utf-8")
    with pytest.raises(SessionError) as exc:
        load_session(folder)
    assert "does not start with session_started" in _one_line(exc)


def test_missing_path_and_foreign_zip(tmp_path: Path) -> None:
    with pytest.raises(SessionError, match="does not exist"):
        load_session(tmp_path / "nope")
    z = tmp_path / "other.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("readme.txt", "not a session")
    with pytest.raises(SessionError) as exc:
        load_session(z)
    assert "is not a PlayTrace session archive" in _one_line(exc)
    bad = tmp_path / "broken.zip"
    bad.write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(SessionError, match="not a readable zip"):
        load_session(bad)


def test_state_seek_uses_the_index(root: Path) -> None:
    writer = write_synthetic(root, 50)
    session = load_session(writer.path)
    assert [session.state_json_at(k)["n"] for k in (0, 1, 25, 50)] == [0, 1, 25, 50]
    assert session.steps[10] is session.events_for_step(10)[-1]
    assert len(step_events(0)) == 3  # the helper's step layout the index relies on


def test_byte_order_mark_from_an_editor_is_ignored(root: Path) -> None:
    # Re-saving events.jsonl in an editor that writes a UTF-8 BOM must not cost the first line
    # (session_started, and with it the initial state).
    path = record_match(root, "tictactoe", [1, 2])
    events = path / "events.jsonl"
    clean = load_session(path)
    # Events are read lazily: keep what the clean file held before rewriting it.
    clean_events, clean_state = list(clean.events), clean.state_json_at(0)
    events.write_bytes(b"\xef\xbb\xbf" + events.read_bytes())
    session = load_session(path)
    assert session.warnings == clean.warnings
    assert session.events == clean_events
    assert session.state_json_at(0) == clean_state
