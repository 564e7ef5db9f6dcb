"""Older session layouts open in this PlayTrace (schema v0 → v1)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sessions import SCHEMA_VERSION, Catalogue, MigrationError, load_session
from sessions.migrations import EVENT_MIGRATIONS, migrate_event, migrate_manifest

REPO = Path(__file__).resolve().parents[2]


def _write_v0_session(folder: Path) -> None:
    """The pre-release layout documented in sessions/migrations.py."""
    folder.mkdir(parents=True)
    manifest = {
        "format": "playtrace-session",
        "schema_version": 0,
        "created": "2026-10-01T12:00:00Z",
        "game": "tictactoe",
        "options": {},
        "seed": 4,
        "players": ["random", "openai:gpt-x"],
        "status": "completed",
        "steps": 1,
        "scores": [1, 0],
        "winner": 0,
    }
    (folder / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    empty = {"cells": [""] * 9, "last_action": None, "game": "tictactoe"}
    after = {"cells": ["X"] + [""] * 8, "last_action": "(0,0)", "game": "tictactoe"}
    lines = [
        {
            "schema_version": 0,
            "seq": 0,
            "ts": "2026-10-01T12:00:00Z",
            "kind": "game_started",
            "step": 0,
            "seat": None,
            "data": {"game": "tictactoe", "state": empty},
        },
        {
            "schema_version": 0,
            "seq": 1,
            "ts": "2026-10-01T12:00:01Z",
            "kind": "decision",
            "step": 0,
            "seat": 0,
            "data": {"action": "(0,0)", "source": "bot"},
        },
        {
            "schema_version": 0,
            "seq": 2,
            "ts": "2026-10-01T12:00:01Z",
            "kind": "action_applied",
            "step": 0,
            "seat": None,
            "data": {"actions": {"0": "(0,0)"}, "scores": [1, 0], "state": after},
        },
        {
            "schema_version": 0,
            "seq": 3,
            "ts": "2026-10-01T12:00:02Z",
            "kind": "game_finished",
            "step": 1,
            "seat": None,
            "data": {"status": "completed", "scores": [1, 0], "winner": 0, "steps": 1},
        },
    ]
    (folder / "events.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")


def test_v0_session_is_upgraded_on_load(tmp_path: Path) -> None:
    folder = tmp_path / "old-session"
    _write_v0_session(folder)
    before = (folder / "events.jsonl").read_bytes()
    session = load_session(folder)
    assert [e["type"] for e in session.events] == [
        "session_started",
        "decision",
        "action_applied",
        "session_finished",
    ]
    assert all(e["v"] == SCHEMA_VERSION and "call" in e and e["call"] is None for e in session.events)
    assert session.events[1]["seat"] == 0 and session.events[1]["data"]["action"] == "(0,0)"
    m = session.manifest
    assert m["schema_version"] == 1 and m["created_at"] == "2026-10-01T12:00:00Z" and "created" not in m
    assert m["id"] == "old-session"
    assert m["players"] == [
        {"seat": 0, "spec": "random", "label": "Random", "kind": "bot"},
        {"seat": 1, "spec": "openai:gpt-x", "label": "openai:gpt-x", "kind": "model"},
    ]
    assert "the manifest was written with schema version 0 and was upgraded" in session.warnings
    assert "events written with schema version 0 were upgraded to version 1" in session.warnings
    assert session.state_json_at(1)["cells"][0] == "X"
    summary = session.summary()
    assert summary["winner"] == 0 and summary["status"] == "completed" and summary["result"] == "Random won"
    assert (folder / "events.jsonl").read_bytes() == before  # migration happens in memory only
    (row,) = Catalogue(tmp_path).list()
    assert row.created_at == "2026-10-01T12:00:00Z" and row.players == ("Random", "openai:gpt-x")


def test_migration_functions_directly() -> None:
    line, version = migrate_event({"kind": "game_started", "seq": 0, "data": {"x": 1}})
    assert version == 0 and line["type"] == "session_started" and line["call"] is None and line["v"] == 1
    current, version = migrate_event({"v": 1, "type": "answer", "call": 3, "data": {}})
    assert version == 1 and current["call"] == 3
    manifest, version = migrate_manifest({"format": "playtrace-session", "players": ["human"]}, "f")
    assert version == 0 and manifest["players"][0]["kind"] == "human" and manifest["id"] == "f"


def test_a_missing_migration_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(EVENT_MIGRATIONS, 0)
    with pytest.raises(MigrationError, match="schema version 0"):
        migrate_event({"kind": "answer"})


def test_newer_schema_loads_with_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "future"
    _write_v0_session(folder)
    m = json.loads((folder / "manifest.json").read_text("utf-8"))
    m.update(
        schema_version=7,
        created_at=m.pop("created"),
        id="future",
        players=[{"seat": 0, "spec": "random", "label": "Random", "kind": "bot"}],
    )
    (folder / "manifest.json").write_text(json.dumps(m), "utf-8")
    (folder / "events.jsonl").write_text(
        json.dumps({"v": 7, "seq": 0, "type": "session_started", "step": 0, "data": {"state": {}}}) + "\n",
        "utf-8",
    )
    session = load_session(folder)
    assert any("newer PlayTrace" in w for w in session.warnings)
    assert session.events[0]["type"] == "session_started"


def test_sessions_package_is_qt_free() -> None:
    code = (
        "import sys, sessions\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('PySide6', 'qasync', 'pyqtgraph', 'openai', 'anthropic', 'renderers', 'desktop'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == ""
