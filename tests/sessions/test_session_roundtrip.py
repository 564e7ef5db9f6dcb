"""Writer → reader round trips with real engine matches, and the writer's line format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import engine
from engine import events as ev
from engine.events import Blob, Event
from sessions import SCHEMA_VERSION, SessionError, SessionWriter, load_session
from sessions.schema import FORMAT, LINE_KEYS

from session_helpers import record_match, start_event, step_events, write_synthetic


def _replay(game_id: str, seed: int, actions: list[str]) -> list[engine.State]:
    game = engine.make(game_id)
    states = [game.initial_state(seed=seed)]
    for a in actions:
        states.append(states[-1].apply(a))
    return states


@pytest.mark.parametrize(("game_id", "seeds"), [("tictactoe", [1, 2]), ("2048", [3])])
def test_match_round_trip_reproduces_every_state(root: Path, game_id: str, seeds: list[int]) -> None:
    folder = record_match(root, game_id, seeds, seed=11)
    session = load_session(folder)
    assert session.warnings == []
    assert session.num_steps > 0
    # Every recorded state equals the state obtained by replaying the recorded actions.
    actions = [next(iter(s["data"]["actions"].values())) for s in session.steps]
    replayed = _replay(game_id, 11, actions)
    game = session.game()
    for k in range(session.num_steps + 1):
        assert game.state_from_json(session.state_json_at(k)) == replayed[k]
    assert session.state_at(session.num_steps).is_over

    summary = session.summary()
    assert set(summary) >= {
        "id",
        "game",
        "players",
        "steps",
        "scores",
        "winner",
        "status",
        "created_at",
        "title",
    }
    assert summary["game"] == game_id and summary["status"] == "completed"
    assert summary["steps"] == session.num_steps == len(replayed) - 1
    assert summary["scores"] == list(replayed[-1].scores)
    assert summary["winner"] == replayed[-1].winner
    assert summary["title"] == f"test {game_id}"
    assert [p["seat"] for p in summary["players"]] == list(range(len(seeds)))
    assert all(p["spec"] == "random" and p["kind"] == "bot" for p in summary["players"])


def test_manifest_fields_after_close(root: Path) -> None:
    folder = record_match(root, "tictactoe", [5, 6], seed=2)
    m = json.loads((folder / "manifest.json").read_text("utf-8"))
    assert m["format"] == FORMAT and m["schema_version"] == SCHEMA_VERSION
    assert m["id"] == folder.name and m["game"] == "tictactoe" and m["seed"] == 2
    assert m["created_at"].endswith("Z") and m["finished_at"].endswith("Z")
    assert m["status"] == "completed" and m["steps"] >= 5
    assert isinstance(m["result"], str) and m["result"]
    assert (folder / "attachments").is_dir()
    # Folder name: <YYYYmmdd-HHMMSS>_<game>_<4hex>
    stamp, game, tag = folder.name.split("_")
    assert len(stamp) == 15 and stamp[8] == "-" and game == "tictactoe" and len(tag) == 4
    int(tag, 16)


def test_tictactoe_winner_result_names_the_seat(root: Path) -> None:
    # Find a seed where somebody wins, then check the human result text.
    for seed in range(40):
        session = load_session(record_match(root, "tictactoe", [seed, seed + 100], seed=seed))
        summary = session.summary()
        if summary["winner"] is not None:
            mark = "X" if summary["winner"] == 0 else "O"
            assert summary["result"] == f"Random ({mark}) won"
            assert session.manifest["result"] == summary["result"]
            return
    pytest.fail("no decisive tic-tac-toe game in 40 seeds")


def test_2048_result_is_the_score(root: Path) -> None:
    summary = load_session(record_match(root, "2048", [4], seed=4)).summary()
    assert summary["winner"] is None and len(summary["scores"]) == 1
    assert summary["result"] == f"score {int(summary['scores'][0])}"


def test_line_format_and_sequence(root: Path) -> None:
    writer = write_synthetic(root, 5)
    lines = (writer.path / "events.jsonl").read_text("utf-8").splitlines()
    parsed = [json.loads(line) for line in lines]
    assert [tuple(p) for p in parsed] == [LINE_KEYS] * len(parsed)
    assert [p["seq"] for p in parsed] == list(range(len(parsed)))
    assert all(p["v"] == 1 and p["ts"].endswith("Z") for p in parsed)
    assert parsed[2]["type"] == "decision" and parsed[2]["seat"] == 0 and parsed[2]["call"] == 1


def test_model_delta_is_not_written(root: Path) -> None:
    writer = SessionWriter.create(root, game="fake", players=[], seed=None, options={})
    writer.append(start_event())
    assert writer.append(Event(ev.MODEL_DELTA, {"text": "partial"}, step=0)) == -1
    assert writer.append(Event(ev.ANSWER, {"text": "up"}, step=0)) == 1
    writer.close("aborted")
    text = (writer.path / "events.jsonl").read_text("utf-8")
    assert "model_delta" not in text and "partial" not in text


def test_events_for_step_groups_a_decision(root: Path) -> None:
    session = load_session(write_synthetic(root, 4).path)
    assert [e["type"] for e in session.events_for_step(2)] == ["turn_started", "decision", "action_applied"]
    assert [e["type"] for e in session.events_for_step(4)] == ["session_finished"]
    assert session.events_for_step(99) == []
    assert session.state_json_at(0) == {"n": 0} and session.state_json_at(4) == {"n": 4}
    with pytest.raises(IndexError):
        session.state_json_at(5)
    with pytest.raises(IndexError):
        session.state_json_at(-1)


def test_session_finished_updates_manifest_before_close(root: Path) -> None:
    writer = write_synthetic(root, 3, finish=True, close=False)
    m = json.loads((writer.path / "manifest.json").read_text("utf-8"))
    assert m["status"] == "completed" and m["steps"] == 3 and m["scores"] == [3]
    writer.close()


def test_close_without_session_finished_is_aborted(root: Path) -> None:
    writer = write_synthetic(root, 2, finish=False, close=False)
    writer.close()
    writer.close()  # idempotent
    m = json.loads((writer.path / "manifest.json").read_text("utf-8"))
    assert m["status"] == "aborted" and m["steps"] == 2 and m["scores"] == [2]
    with pytest.raises(SessionError, match="closed"):
        writer.append(start_event())


def test_context_manager_marks_errors(root: Path) -> None:
    with pytest.raises(RuntimeError):
        with SessionWriter.create(root, game="fake", players=[], seed=None, options={}) as writer:
            writer.append(start_event())
            raise RuntimeError("boom")
    assert json.loads((writer.path / "manifest.json").read_text("utf-8"))["status"] == "error"


def test_update_manifest_is_atomic_and_guarded(root: Path) -> None:
    writer = SessionWriter.create(root, game="fake", players=[], seed=None, options={}, extra={"cli": "run"})
    writer.update_manifest(title="renamed")
    with pytest.raises(ValueError):
        writer.update_manifest(id="other")
    m = json.loads((writer.path / "manifest.json").read_text("utf-8"))
    assert m["title"] == "renamed" and m["extra"] == {"cli": "run"}
    # No temporary files are left behind by the atomic replace.
    assert sorted(p.name for p in writer.path.iterdir() if not p.name.startswith(".writer")) == [
        "attachments",
        "events.jsonl",
        "manifest.json",
    ]
    writer.close()


def test_loading_from_manifest_or_events_path(root: Path) -> None:
    writer = write_synthetic(root, 2)
    for p in (writer.path, writer.path / "manifest.json", writer.path / "events.jsonl", str(writer.path)):
        assert load_session(p).id == writer.id


def test_blob_becomes_attachment_reference(root: Path) -> None:
    writer = SessionWriter.create(root, game="fake", players=[], seed=None, options={})
    writer.append(start_event())
    writer.append(
        Event(
            ev.PROMPT_BUILT,
            {"system": "s", "user": "u"},
            step=0,
            seat=0,
            call=1,
            blobs={"image": Blob(b"\x89PNG fake")},
        )
    )
    writer.close()
    session = load_session(writer.path)
    ref = session.events[1]["data"]["image"]
    assert ref.startswith("attachment://sha256-") and ref.endswith(".png")
    assert session.read_attachment(ref) == b"\x89PNG fake"


def test_default_root_follows_playtrace_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sessions import Catalogue, default_root

    monkeypatch.setenv("PLAYTRACE_HOME", str(tmp_path / "home"))
    assert default_root() == tmp_path / "home" / "sessions"
    writer = write_synthetic(default_root(), 1)
    assert [s.id for s in Catalogue().list()] == [writer.id]
    monkeypatch.delenv("PLAYTRACE_HOME")
    assert default_root().name == "sessions" and "PlayTrace" in str(default_root())


def test_fork_origin_is_recorded_in_the_manifest(root: Path) -> None:
    writer = SessionWriter.create(root, game="fake", players=[], seed=None, options={})
    start = start_event()
    writer.append(Event(start.type, {**start.data, "forked_from": {"session": "abc", "step": 4}}, step=4))
    for e in step_events(4):
        writer.append(e)
    writer.close("completed")
    session = load_session(writer.path)
    assert session.manifest["extra"]["forked_from"] == {"session": "abc", "step": 4}
    # Step indices count from the fork point: decision 0 of this session is engine step 4.
    assert [e["type"] for e in session.events_for_step(0)] == ["turn_started", "decision", "action_applied"]
    assert session.state_json_at(1) == {"n": 5}


def test_a_recorded_fork_counts_its_own_steps(root: Path) -> None:
    # A fork is played with the original's history; its manifest, catalogue row and reader must all
    # agree on the steps the fork itself recorded (no "manifest counts N steps" warning).
    import asyncio

    from engine.match import Match
    from engine.players import RandomPlayer
    from sessions import Catalogue

    game = engine.make("2048")
    original = Match(game, [RandomPlayer(1)], seed=3, max_steps=5)
    asyncio.run(original.run())
    fork = Match(
        game,
        [RandomPlayer(2)],
        seed=3,
        state=original.state,
        history=original.history,
        max_steps=8,
        forked_from={"session": "x", "step": 5},
    )
    writer = SessionWriter.for_match(root, fork)
    asyncio.run(fork.run())
    writer.close()
    session = load_session(writer.path)
    assert session.num_steps == 3
    assert session.manifest["steps"] == 3 == session.summary()["steps"]
    assert not [w for w in session.warnings if "manifest counts" in w]
    assert [row.steps for row in Catalogue(root).list()] == [3]
    assert session.state_json_at(0) == original.state.to_json()


def test_lone_surrogates_in_model_text_are_written_not_fatal(root: Path) -> None:
    # A torn stream can leave half of a surrogate pair in a model's text; it cannot be encoded as
    # UTF-8, and must not fail the write (which would end the match). It is kept as its JSON escape.
    writer = SessionWriter.create(root, game="fake", players=[], seed=None, options={}, title="t \udc80")
    writer.append(start_event())
    writer.append(Event(ev.ANSWER, {"text": "half \ud83d, pair \ud83d\ude00, é"}, step=0, seat=0, call=1))
    writer.close("completed")
    session = load_session(writer.path)
    assert not session.warnings
    assert session.events[-1]["data"]["text"] == "half \ud83d, pair \U0001f600, é"
    assert session.manifest["title"] == "t \udc80"
