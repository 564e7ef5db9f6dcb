"""A process killed while it creates a session, imports one or opens an archive leaves nothing that
the next start cannot clean up, and nothing that `list` warns about for ever (issue 7)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from sessions import Catalogue, SessionWriter, export_zip, load_session
from sessions import reader as reader_module
from sessions._lock import WriterLock
from tests.sessions.session_helpers import write_synthetic

REPO = Path(__file__).resolve().parents[2]

# Runs ``body`` in a fresh interpreter after making ``os.<func>`` end the process like a kill
# (os._exit runs no cleanup, no finally, no atexit) the ``nth`` time it is called.
_KILLER = """
import os, sys
sys.path.insert(0, {repo!r})
_real = os.{func}
_calls = [0]
def _kill(*a, **k):
    _calls[0] += 1
    if _calls[0] == {nth}:
        os._exit(137)
    return _real(*a, **k)
os.{func} = _kill
{body}
os._exit(0)
"""


def _run_killed(func: str, nth: int, body: str, env: dict[str, str] | None = None) -> int:
    code = _KILLER.format(repo=str(REPO), func=func, nth=nth, body=body)
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env={**os.environ, **(env or {})}, timeout=120
    )
    return proc.returncode


_CREATE = (
    "from sessions import SessionWriter\n"
    "SessionWriter.create({root!r}, game='fake', players=[], seed=1, options={{}})\n"
)


@pytest.mark.parametrize(
    ("func", "nth"), [("fsync", 1), ("replace", 1), ("rename", 1), ("mkdir", 2), ("mkdir", 3)]
)
def test_a_kill_during_creation_leaves_nothing_or_a_session(root: Path, func: str, nth: int) -> None:
    root.mkdir(parents=True)
    code = _run_killed(func, nth, _CREATE.format(root=str(root)))
    assert code in (0, 137)
    cat = Catalogue(root)
    rows = cat.list()
    assert cat.warnings == []
    visible = [p for p in root.iterdir() if not p.name.startswith(".")]
    assert len(visible) == len(rows) <= 1
    for row in rows:
        assert load_session(row.path).num_steps == 0
    # The hidden work folder of the killed process is gone too.
    assert [p.name for p in root.iterdir() if p.name.startswith(".") and p.is_dir()] == []


def test_a_complete_temporary_manifest_is_recovered(root: Path) -> None:
    # What an older PlayTrace left when killed between writing the manifest and renaming it.
    writer = write_synthetic(root, 3)
    folder = writer.path
    manifest = (folder / "manifest.json").read_bytes()
    (folder / "manifest.json").unlink()
    (folder / ".manifest.json.k3x9.tmp").write_bytes(manifest)
    (folder / ".manifest.json.zz00.tmp").write_bytes(manifest[: len(manifest) // 2])  # a torn one
    shown = load_session(folder)  # `show` reads it without changing the folder
    assert shown.manifest["id"] == folder.name and shown.damage == []
    cat = Catalogue(root)
    (row,) = cat.list()
    assert row.steps == 3 and row.status == "completed"
    assert json.loads((folder / "manifest.json").read_bytes())["id"] == folder.name
    assert Catalogue(root).list()[0].steps == 3
    again = Catalogue(root)
    again.list()
    assert again.warnings == []  # recovered once, not warned about for ever


def test_leftovers_of_killed_imports_and_archive_reads_are_cleaned(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    source = write_synthetic(tmp_path / "src", 3).path
    archive = export_zip(source, tmp_path)
    root.mkdir()
    env = {"TMPDIR": str(temp)}
    # Killed just before the unpacked import is moved into place, and while an archive is open.
    body_import = f"from sessions import import_zip\nimport_zip({str(archive)!r}, {str(root)!r})\n"
    body_open = f"from sessions import load_session\nopened = load_session({str(archive)!r})\n"
    assert _run_killed("replace", 1, body_import, env) == 137
    assert _run_killed("stat", 10_000_000, body_open + "os._exit(137)\n", env) == 137
    assert [p.name[:8] for p in root.iterdir()] == [".import-"]
    assert [p.name[:14] for p in temp.iterdir()] == ["playtrace-zip-"]

    # One still in use by a live process is kept.
    live = root / ".import-live"
    live.mkdir()
    lock = WriterLock(live)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(reader_module, "_swept", False)
    try:
        Catalogue(root).list()
        assert [p.name for p in root.iterdir() if p.name.startswith(".import-")] == [".import-live"]
        assert list(temp.iterdir()) == []
    finally:
        lock.release()


def test_the_sessions_folder_never_shows_a_half_made_session(root: Path) -> None:
    writer = SessionWriter.create(root, game="fake", players=[], seed=1, options={})
    try:
        names = [p.name for p in root.iterdir()]
        assert names == [writer.id]
        assert {p.name for p in writer.path.iterdir()} >= {"manifest.json", "events.jsonl", "attachments"}
    finally:
        writer.close()
