"""Sessions, zips and folders abused on purpose: each fault ends in one line, never a traceback,
a hang or gigabytes of memory (issue 7, "Faults that still get through")."""

from __future__ import annotations

import json
import os
import struct
import threading
import time
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from sessions import Catalogue, SessionError, export_zip, import_zip, load_session
from sessions import _zip as zip_module
from tests.sessions.session_helpers import write_synthetic

# -- 1. zip bombs ---------------------------------------------------------------------------------


def _bomb(path: Path, session: Path, zeros: int) -> None:
    """A real session's archive whose events.jsonl is followed by ``zeros`` bytes of zeros."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.write(session / "manifest.json", "s/manifest.json")
        with zf.open("s/events.jsonl", "w", force_zip64=True) as out:
            out.write((session / "events.jsonl").read_bytes())
            block = bytes(1 << 20)
            for _ in range(zeros >> 20):
                out.write(block)


def test_a_zip_bomb_is_refused_before_it_is_unpacked(root: Path, tmp_path: Path) -> None:
    folder = write_synthetic(root, 3).path
    bomb = tmp_path / "bomb.session.zip"
    _bomb(bomb, folder, 200 << 20)  # 200 MB of zeros in about 200 KB
    assert bomb.stat().st_size < 2 << 20
    target = tmp_path / "imported"
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(SessionError) as info:
            import_zip(bomb, target)
        with pytest.raises(SessionError):
            load_session(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    elapsed = time.perf_counter() - t0
    message = str(info.value)
    assert "\n" not in message and "zip bomb" in message
    assert elapsed < 5 and peak < 32 << 20
    assert [p.name for p in target.iterdir()] == []  # nothing unpacked, no hidden leftovers


def test_declared_and_streamed_sizes_are_both_capped(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_synthetic(root, 3).path
    archive = tmp_path / "big.session.zip"
    _bomb(archive, folder, 8 << 20)
    monkeypatch.setattr(zip_module, "MAX_EVENTS_BYTES", 4 << 20)
    with pytest.raises(SessionError, match="more than 4,194,304 bytes"):
        import_zip(archive, tmp_path / "a")
    # An archive that declares small sizes is still stopped by what actually streams out.
    monkeypatch.setattr(zip_module, "check_sizes", lambda members, source: None)
    with pytest.raises(SessionError, match="more than 4,194,304 bytes"):
        import_zip(archive, tmp_path / "b")
    assert list((tmp_path / "b").iterdir()) == []


# -- 2. one line instead of a traceback --------------------------------------------------------


def _patch_members(archive: Path, patch: str) -> None:
    """Corrupt every member of ``archive`` in both its local and its central header."""
    data = bytearray(archive.read_bytes())
    for sig, flag_at, method_at, crc_at in ((b"PK\x03\x04", 6, 8, 14), (b"PK\x01\x02", 8, 10, 16)):
        pos = data.find(sig)
        while pos >= 0:
            if patch == "encrypted":
                (flags,) = struct.unpack_from("<H", data, pos + flag_at)
                struct.pack_into("<H", data, pos + flag_at, flags | 1)
            elif patch == "method":
                struct.pack_into("<H", data, pos + method_at, 99)
            elif patch == "crc":
                (crc,) = struct.unpack_from("<I", data, pos + crc_at)
                struct.pack_into("<I", data, pos + crc_at, crc ^ 0xFFFF)
            pos = data.find(sig, pos + 4)
    archive.write_bytes(bytes(data))


@pytest.mark.parametrize("patch", ["encrypted", "method", "crc"])
def test_a_damaged_zip_is_refused_in_one_line(root: Path, tmp_path: Path, patch: str) -> None:
    folder = write_synthetic(root, 3).path
    archive = export_zip(folder, tmp_path)
    _patch_members(archive, patch)
    for action in (lambda: import_zip(archive, tmp_path / "in"), lambda: load_session(archive)):
        with pytest.raises(SessionError) as info:
            action()
        assert "\n" not in str(info.value)
    assert [p.name for p in (tmp_path / "in").iterdir()] == []


def test_a_symlink_loop_in_the_sessions_folder_hides_nothing(root: Path) -> None:
    good = write_synthetic(root, 2).path
    (root / "loop").symlink_to(root / "loop")
    (root / "a").symlink_to(root / "b")
    (root / "b").symlink_to(root / "a")
    (root / "up").symlink_to(root)
    cat = Catalogue(root)
    rows = cat.list()
    assert [r.path for r in rows] == [good]
    assert any(w.startswith("loop:") for w in cat.warnings)
    # The sessions folder itself being a loop is one warning, not a traceback.
    looped = root.parent / "looped"
    looped.symlink_to(looped)
    cat = Catalogue(looped)
    assert cat.list() == [] and len(cat.warnings) == 1


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_deeply_nested_json_is_one_warning_or_one_error(root: Path) -> None:
    folder = write_synthetic(root, 2).path
    with open(folder / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write(
            '{"v":1,"seq":99,"ts":null,"type":"note","step":1,"seat":null,"call":null,"data":{"x":'
            + _nested(100_000)
            + "}}\n"
        )
        fh.write(
            json.dumps(
                {
                    "v": 1,
                    "seq": 100,
                    "ts": None,
                    "type": "note",
                    "step": 1,
                    "seat": None,
                    "call": None,
                    "data": {},
                }
            )
            + "\n"
        )
    session = load_session(folder)
    assert session.num_steps == 2
    assert any("is not a readable event" in w for w in session.warnings)

    other = write_synthetic(root, 2).path
    (other / "manifest.json").write_text(_nested(100_000), "utf-8")
    session = load_session(other)  # the manifest is unreadable: rebuilt from the events
    assert session.num_steps == 2 and "rebuilt" in session.warnings[0]
    cat = Catalogue(root)
    assert {r.path for r in cat.list()} == {folder, other}


def test_an_event_whose_seat_is_a_list_is_read_as_no_seat(root: Path) -> None:
    folder = write_synthetic(root, 2).path
    line = {
        "v": 1,
        "seq": 50,
        "ts": None,
        "type": "model_call_finished",
        "step": 1,
        "seat": [0],
        "call": {"a": 1},
        "data": {"input_tokens": 3},
    }
    with open(folder / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")
    session = load_session(folder)
    for e in session.events:
        for key in ("step", "seat", "call"):
            assert e[key] is None or type(e[key]) is int
    from desktop.cli.sessions import model_stats

    model_stats(session.events, [0])  # raised TypeError: unhashable type: 'list'


# -- 3. export never destroys its own session, never follows links ---------------------------------


def test_export_into_its_own_session_is_refused(root: Path) -> None:
    folder = write_synthetic(root, 4).path
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    for dest in (
        folder / "events.jsonl",
        folder / "manifest.json",
        folder,
        folder / "attachments",
        folder / "attachments" / "x.zip",
    ):
        with pytest.raises(SessionError, match="inside the session"):
            export_zip(folder, dest)
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before
    assert load_session(folder).num_steps == 4


def test_export_does_not_follow_links(root: Path, tmp_path: Path) -> None:
    folder = write_synthetic(root, 2).path
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n", "utf-8")
    # An attachment that is a link is left out; a linked event log is refused.
    name = "sha256-" + "0" * 64 + ".png"
    (folder / "attachments" / name).symlink_to(secret)
    archive = export_zip(folder, tmp_path / "ok.zip")
    with zipfile.ZipFile(archive) as zf:
        assert not any(n.endswith(name) for n in zf.namelist())
    real = folder / "events.jsonl"
    real.rename(tmp_path / "events.real")
    real.symlink_to(secret)
    with pytest.raises(SessionError, match="not a regular file"):
        export_zip(folder, tmp_path / "leak.zip")
    assert not (tmp_path / "leak.zip").exists()


# -- 4. list opens only regular manifests, with caps, and keeps its index small ---------------------


def test_list_survives_a_fifo_a_device_and_a_huge_title(root: Path) -> None:
    good = write_synthetic(root, 2).path
    fifo = root / "20260101-000000_fifo_0000"
    fifo.mkdir()
    os.mkfifo(fifo / "manifest.json")
    zero = root / "20260101-000000_zero_0000"
    zero.mkdir()
    (zero / "manifest.json").symlink_to("/dev/zero")
    titled = write_synthetic(root, 2).path
    manifest = json.loads((titled / "manifest.json").read_text("utf-8"))
    manifest["title"] = "t" * (2 << 20)
    (titled / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    huge = write_synthetic(root, 2).path
    manifest["title"] = "t" * (17 << 20)
    (huge / "manifest.json").write_text(json.dumps(manifest), "utf-8")

    result: list[object] = []
    cat = Catalogue(root)
    worker = threading.Thread(target=lambda: result.append(cat.list()), daemon=True)
    worker.start()
    worker.join(timeout=30)
    if worker.is_alive():  # unblock the reader stuck on the FIFO before failing
        fd = os.open(fifo / "manifest.json", os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("listing hung on a FIFO")
    (rows,) = result
    # A manifest too big to be one is not read; the session is listed from its event log, as
    # `show` rebuilds it.
    assert {r.path for r in rows} == {good, titled, huge}  # type: ignore[union-attr]
    by_path = {r.path: r for r in rows}  # type: ignore[union-attr]
    assert len(by_path[titled].title or "") <= 200 and by_path[huge].title is None
    skipped = " ".join(cat.warnings)
    assert fifo.name in skipped and zero.name in skipped and huge.name in skipped
    assert (root / ".catalogue-index.json").stat().st_size < 64 * 1024
