"""What the session list tells beyond the manifest: damage (from the checks `show` makes), demo
sessions, and forks linked to their parent (issue 7)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import engine
from engine.match import Match
from engine.players import RandomPlayer
from sessions import Catalogue, SessionWriter, load_session
from tests.sessions.session_helpers import record_match, write_synthetic


def _cut_half(folder: Path) -> None:
    events = folder / "events.jsonl"
    data = events.read_bytes()
    events.write_bytes(data[: len(data) // 2])


def test_a_cut_copy_is_listed_as_damaged_with_its_real_steps(root: Path) -> None:
    original = write_synthetic(root, 20).path
    cat = Catalogue(root)
    (row,) = cat.list()  # cached in the index from here on
    assert row.id == original.name and row.steps == 20 and not row.damaged and row.damage == ()

    copy = root / (original.name + "-copy")
    shutil.copytree(original, copy)
    _cut_half(copy)
    rows = {r.path: r for r in Catalogue(root).list()}
    shown = load_session(copy)
    assert rows[copy].damaged
    assert list(rows[copy].damage) == shown.damage and shown.damage
    assert rows[copy].steps == shown.num_steps < 20
    assert rows[copy].scores == tuple(shown.summary()["scores"])
    assert not rows[original].damaged and rows[original].steps == 20

    # Cut after it was cached: the index notices the log changed.
    _cut_half(original)
    again = {r.path: r for r in Catalogue(root).list()}
    assert again[original].damaged and again[original].steps < 20


def test_demo_sessions_are_marked(root: Path) -> None:
    game = engine.make("tictactoe")
    match = Match(game, [RandomPlayer(1), RandomPlayer(2)], seed=3)
    writer = SessionWriter.for_match(root, match, title="demo", demo=True)
    asyncio.run(match.run())
    writer.close()
    plain = record_match(root, "tictactoe", [1, 2])
    rows = {r.path: r for r in Catalogue(root).list()}
    assert rows[writer.path].demo is True and rows[plain].demo is False
    assert load_session(writer.path).manifest["demo"] is True
    assert "demo" not in load_session(plain).manifest


def test_a_fork_links_to_its_parent_and_leaves_its_status_alone(root: Path) -> None:
    parent = record_match(root, "tictactoe", [1, 2])
    before = (parent / "manifest.json").read_bytes()
    status = load_session(parent).status
    source = load_session(parent)
    game = source.game()
    match = Match(
        game,
        [RandomPlayer(3), RandomPlayer(4)],
        seed=5,
        state=source.state_at(2),
        forked_from={"session": parent.name, "step": 2},
    )
    writer = SessionWriter.for_match(root, match)
    asyncio.run(match.run())
    writer.close()
    rows = {r.path: r for r in Catalogue(root).list()}
    assert rows[writer.path].parent == parent.name and rows[writer.path].parent_step == 2
    assert rows[parent].parent is None and rows[parent].status == status
    assert (parent / "manifest.json").read_bytes() == before
