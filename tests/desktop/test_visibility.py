"""The hidden-information rule (desktop.model.visibility) on sessions the engine recorded: Qt-free,
and the panel's "hidden while you play" notice only when another seat's records are left out."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import engine
from desktop.episode import start_episode
from desktop.model.visibility import hides_other_seats, shown_records
from sessions import load_session


def _records(tmp_path: Path, game_id: str, specs: list[str]) -> list[dict[str, object]]:
    episode = start_episode(game_id, specs, root=tmp_path, seed=3, max_steps=6, model_options={"latency": 0})
    asyncio.run(episode.run())
    session = load_session(episode.path)
    return [event for k in range(session.num_steps) for event in session.events_for_step(k)]


def test_a_person_alone_at_a_hidden_information_game_is_told_nothing_is_hidden(tmp_path: Path) -> None:
    game = engine.make("minesweeper")
    assert not game.perfect_information
    records = _records(tmp_path, "minesweeper", ["sim"])
    # The full state leaves the applied steps (the person must not see the mines) ...
    shown = shown_records(game, records, [0], live=True)
    assert all("state" not in r["data"] for r in shown if r["type"] == "action_applied")
    # ... but no other seat exists, so there is nothing to say about another seat's view.
    assert not hides_other_seats(game, records, [0], live=True)


def test_another_seats_private_view_is_hidden_and_said_to_be(tmp_path: Path) -> None:
    game = engine.make("holdem")
    records = _records(tmp_path, "holdem", ["random", "sim"])
    assert any(r.get("seat") == 1 and r["type"] != "decision" for r in records)
    shown = shown_records(game, records, [0], live=True)
    assert not any(r.get("seat") == 1 and r["type"] != "decision" for r in shown)
    assert hides_other_seats(game, records, [0], live=True)
    # A replay shows (and hides) nothing.
    assert shown_records(game, records, [0], live=False) == records
    assert not hides_other_seats(game, records, [0], live=False)


def test_the_rule_loads_no_qt() -> None:
    code = (
        "import sys, desktop.model.visibility; "
        "assert not any(m.startswith('PySide6') for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
