"""Zip export and import: round trip, refusal of foreign and unsafe archives."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from engine import events as ev
from engine.events import Blob, Event
from sessions import SessionError, SessionWriter, export_zip, import_zip, load_session

from session_helpers import record_match, start_event


def _session_with_image(root: Path) -> SessionWriter:
    writer = SessionWriter.create(root, game="fake", players=[], seed=None, options={})
    writer.append(start_event())
    writer.append(
        Event(ev.PROMPT_BUILT, {"system": "s", "user": "u"}, step=0, blobs={"image": Blob(b"PNGDATA")})
    )
    writer.close("completed")
    return writer


def test_zip_round_trip(root: Path, tmp_path: Path) -> None:
    folder = record_match(root, "tictactoe", [1, 2], seed=9)
    original = load_session(folder)
    out = tmp_path / "out"
    out.mkdir()
    archive = export_zip(folder, out)
    assert archive == out / f"{original.id}.session.zip"
    with zipfile.ZipFile(archive) as zf:
        assert sorted(zf.namelist()) == sorted(
            [f"{original.id}/manifest.json", f"{original.id}/events.jsonl"]
        )

    # Opened straight from the archive ...
    from_zip = load_session(archive)
    assert from_zip.events == original.events and from_zip.summary() == original.summary()
    # ... and imported into another catalogue root.
    other_root = tmp_path / "other"
    imported = import_zip(archive, other_root)
    assert imported == other_root / original.id
    again = load_session(imported)
    assert again.events == original.events and again.manifest == original.manifest
    # A second import of the same archive does not overwrite the first.
    second = import_zip(archive, other_root)
    assert second.name == f"{original.id}-2"
    assert json.loads((second / "manifest.json").read_text("utf-8"))["extra"]["imported_from"] == original.id
    assert load_session(imported).id == original.id


def test_attachments_travel_in_the_zip(root: Path, tmp_path: Path) -> None:
    writer = _session_with_image(root)
    archive = export_zip(writer.path, tmp_path / "custom-name.zip")
    assert archive == tmp_path / "custom-name.zip"
    session = load_session(archive)
    ref = session.events[1]["data"]["image"]
    assert session.read_attachment(ref) == b"PNGDATA"
    imported = load_session(import_zip(archive, tmp_path / "lib"))
    assert imported.read_attachment(ref) == b"PNGDATA"


def _evil_zip(path: Path, root_inside: str, evil_name: str) -> Path:
    good = {
        "format": "playtrace-session",
        "schema_version": 1,
        "id": "s1",
        "game": "fake",
        "status": "completed",
    }
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{root_inside}manifest.json", json.dumps(good))
        zf.writestr(
            f"{root_inside}events.jsonl", json.dumps({"v": 1, "type": "session_started", "data": {}}) + "\n"
        )
        zf.writestr(evil_name, "pwned")
    return path


@pytest.mark.parametrize(
    "evil",
    [
        "../../evil.txt",
        "s1/attachments/../../../evil.txt",
        "/tmp/evil.txt",
        "C:/evil.txt",
        "s1\\..\\..\\evil.txt",
    ],
)
def test_zip_slip_is_refused(tmp_path: Path, evil: str) -> None:
    archive = _evil_zip(tmp_path / "evil.zip", "s1/", evil)
    target_root = tmp_path / "deep" / "root"
    with pytest.raises(SessionError, match="not a safe session archive"):
        import_zip(archive, target_root)
    assert not list(tmp_path.rglob("evil.txt"))
    # Nothing half-imported is left in the root either.
    assert [p for p in target_root.iterdir()] == []


def test_symlink_member_is_refused(tmp_path: Path) -> None:
    archive = _evil_zip(tmp_path / "link.zip", "s1/", "s1/readme.txt")
    with zipfile.ZipFile(archive, "a") as zf:
        info = zipfile.ZipInfo("s1/attachments/sha256-" + "a" * 64 + ".png")
        info.external_attr = 0o120777 << 16
        zf.writestr(info, "/etc/passwd")
    with pytest.raises(SessionError, match="symbolic link"):
        import_zip(archive, tmp_path / "root")


def test_foreign_archives_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    plain = tmp_path / "photos.zip"
    with zipfile.ZipFile(plain, "w") as zf:
        zf.writestr("holiday/cat.jpg", b"\xff\xd8")
    with pytest.raises(SessionError, match="holds no manifest.json"):
        import_zip(plain, root)
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as zf:
        zf.writestr("x/manifest.json", '{"app": "something else"}')
        zf.writestr("x/events.jsonl", "{}\n")
    with pytest.raises(SessionError, match="is not a PlayTrace session"):
        import_zip(foreign, root)
    not_zip = tmp_path / "fake.zip"
    not_zip.write_text("definitely not a zip", "utf-8")
    with pytest.raises(SessionError, match="not a readable zip"):
        import_zip(not_zip, root)
    assert list(root.iterdir()) == []


def test_export_refuses_a_non_session(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(SessionError):
        export_zip(tmp_path / "empty", tmp_path)
