"""The session catalogue: fast listing from manifests, tolerant of broken folders, with a cache."""

from __future__ import annotations

import json
from pathlib import Path

from sessions import Catalogue
from sessions.catalogue import INDEX_FILE

from session_helpers import record_match, write_synthetic


def _make_broken_folders(root: Path) -> None:
    (root / "empty").mkdir()
    (root / "photos").mkdir()
    (root / "photos" / "cat.jpg").write_bytes(b"\xff\xd8")
    (root / "foreign").mkdir()
    (root / "foreign" / "manifest.json").write_text('{"name": "other app"}', "utf-8")
    (root / "garbage").mkdir()
    (root / "garbage" / "manifest.json").write_bytes(b"\x00\x01 not json")
    (root / "stray-file.txt").write_text("ignored: not a folder", "utf-8")


def test_catalogue_lists_sessions_and_skips_broken_folders(root: Path) -> None:
    ttt = record_match(root, "tictactoe", [1, 2], seed=3)
    g2048 = record_match(root, "2048", [5], seed=5)
    lost = write_synthetic(root, 4)
    (lost.path / "manifest.json").unlink()  # still listed, from its event log
    _make_broken_folders(root)

    cat = Catalogue(root)
    rows = {s.id: s for s in cat.list()}
    assert set(rows) == {ttt.name, g2048.name, lost.path.name}
    assert sorted(w.split(":")[0] for w in cat.warnings if "skipped" in w) == [
        "empty",
        "foreign",
        "garbage",
        "photos",
    ]
    assert any(lost.path.name in w and "listed from events.jsonl" in w for w in cat.warnings)

    t = rows[ttt.name]
    assert t.game == "tictactoe" and t.players == ("Random", "Random") and t.status == "completed"
    assert t.result == "draw" or t.result.endswith(("(X) won", "(O) won"))
    assert t.path == ttt and t.steps >= 5 and t.title == "test tictactoe"
    g = rows[g2048.name]
    assert g.result == f"score {int(g.scores[0])}" and g.winner is None and g.steps > 10
    # Its manifest is gone, but the log ends with session_finished: the outcome is known.
    assert rows[lost.path.name].status == "completed" and rows[lost.path.name].steps == 4


def test_catalogue_is_newest_first(root: Path) -> None:
    writers = [write_synthetic(root, 1, close=False) for _ in range(3)]
    for i, w in enumerate(writers):
        w.update_manifest(created_at=f"2026-01-0{i + 1}T00:00:00.000Z")
        w.close()
    assert [s.id for s in Catalogue(root).list()] == [w.id for w in reversed(writers)]


def test_live_and_interrupted_sessions(root: Path) -> None:
    live = write_synthetic(root, 2, finish=False, close=False)
    dead = write_synthetic(root, 3, finish=False, close=False)
    dead._lock.release()  # as if its process had been killed
    rows = {s.id: s for s in Catalogue(root).list()}
    assert rows[live.id].status == "running" and rows[live.id].steps == 2
    assert rows[live.id].result == "in progress (2 steps)"
    assert rows[dead.id].status == "interrupted" and rows[dead.id].steps == 3
    live.close()
    dead._fh.close()
    assert {s.id: s.status for s in Catalogue(root).list()}[live.id] == "aborted"


def test_index_is_a_rebuildable_cache(root: Path) -> None:
    w = write_synthetic(root, 2)
    cat = Catalogue(root)
    assert cat.list()[0].result == "score 2"
    index_path = root / INDEX_FILE
    index = json.loads(index_path.read_text("utf-8"))
    # Tamper with the cached row: an unchanged manifest means the cache is trusted ...
    index["entries"][w.id]["summary"]["result"] = "from the cache"
    index_path.write_text(json.dumps(index), "utf-8")
    assert cat.list()[0].result == "from the cache"
    # ... a rebuild, or a corrupt index, goes back to the manifests.
    assert cat.rebuild_index()[0].result == "score 2"
    index_path.write_bytes(b"{broken")
    assert Catalogue(root).list()[0].result == "score 2"
    assert Catalogue(root, use_index=False).list()[0].result == "score 2"


def test_thousands_of_sessions_list_in_order(root: Path) -> None:
    # How long listing takes is measured by benchmarks/bench_sessions.py.
    template = write_synthetic(root, 1)
    manifest = json.loads((template.path / "manifest.json").read_text("utf-8"))
    for i in range(2000):
        folder = root / f"20260101-000000_fake_{i:04x}"
        folder.mkdir()
        manifest.update(id=folder.name, created_at=f"2026-01-01T00:00:{i % 60:02d}.{i % 1000:03d}Z")
        (folder / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    cat = Catalogue(root)
    rows = cat.list()
    assert len(cat.list()) == len(rows) == 2001
    assert rows == sorted(rows, key=lambda s: (s.created_at, s.id), reverse=True)


def test_missing_root_is_empty(tmp_path: Path) -> None:
    cat = Catalogue(tmp_path / "nothing-here")
    assert cat.list() == [] and cat.warnings == []


def test_a_manifest_of_the_wrong_shape_does_not_hide_the_others(root: Path) -> None:
    # One hand-edited or corrupted manifest (players is not a list) must be skipped with a warning,
    # not make the whole listing fail; opening it directly still works.
    from sessions import load_session

    good = record_match(root, "2048", [5], seed=5)
    bad = root / "20260101-000000_2048_beef"
    bad.mkdir()
    (bad / "manifest.json").write_text(
        json.dumps(
            {
                "format": "playtrace-session",
                "schema_version": 1,
                "id": bad.name,
                "game": "2048",
                "status": "completed",
                "players": 5,
            }
        ),
        "utf-8",
    )
    catalogue = Catalogue(root, use_index=False)
    assert [s.path for s in catalogue.list()] == [good]
    assert any(bad.name in w for w in catalogue.warnings)
    assert load_session(bad).summary()["players"] == []
