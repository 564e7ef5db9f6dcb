"""Two processes creating sessions in one folder: one's sweep of abandoned work folders must never take
the other's folder, caught between creating its lock file and locking it, for abandoned."""

from __future__ import annotations

from pathlib import Path
from typing import IO

import pytest

from sessions import _lock
from sessions._lock import LOCK_FILE, FolderGone, WriterLock, is_being_written, remove_if_abandoned
from sessions.writer import SessionWriter


def test_a_sweep_leaves_a_locked_folder_and_removes_an_abandoned_one(tmp_path: Path) -> None:
    live, dead = tmp_path / ".creating-live", tmp_path / ".creating-dead"
    live.mkdir()
    dead.mkdir()
    lock = WriterLock(live, fresh=True)
    (dead / LOCK_FILE).touch()  # its process died: nobody holds the lock
    assert not remove_if_abandoned(live) and live.is_dir() and is_being_written(live)
    assert remove_if_abandoned(dead) and not dead.exists()
    lock.release()


def test_a_fresh_lock_waits_out_a_probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = _lock._try_lock
    probed = [3]  # another process holds the lock for the writer's first three tries

    def probing(fh: IO[bytes]) -> bool:
        if probed[0]:
            probed[0] -= 1
            return False
        return real(fh)

    monkeypatch.setattr(_lock, "_try_lock", probing)
    folder = tmp_path / ".creating-x"
    folder.mkdir()
    lock = WriterLock(folder, fresh=True)
    monkeypatch.setattr(_lock, "_try_lock", real)
    assert probed == [0] and is_being_written(folder)  # the writer holds its lock once the probe let go
    lock.release()


def test_a_folder_swept_before_its_lock_is_replaced_by_a_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = _lock._try_lock
    swept: list[Path] = []

    def sweep_first(fh: IO[bytes]) -> bool:
        if len(swept) < 1:  # another process's sweep got the lock first and removed the lock file
            folder = Path(fh.name).parent
            swept.append(folder)
            (folder / LOCK_FILE).unlink()
            return False
        return real(fh)

    monkeypatch.setattr(_lock, "_try_lock", sweep_first)
    folder = tmp_path / ".creating-y"
    folder.mkdir()
    with pytest.raises(FolderGone):
        WriterLock(folder, fresh=True)

    swept.clear()
    writer = SessionWriter.create(tmp_path / "root", game="2048", players=[], seed=1, options={})
    assert len(swept) == 1  # the first work folder was taken away under the writer ...
    assert writer.path.is_dir() and (writer.path / "manifest.json").is_file()  # ... and another made
    writer.close()
