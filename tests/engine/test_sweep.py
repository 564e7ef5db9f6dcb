"""Sweep files, the results index and the local sweep runner (engine.sweep)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.sweep import (
    EXAMPLE,
    SweepFileError,
    SweepIndex,
    SweepRunner,
    ablation_class,
    load_report,
    load_sweep,
    parse_sweep,
    provider_of,
)
from engine.sweep.index import SweepBusyError
from engine.sweep.spec import HARNESS_KEYS

SMALL = """\
name = "small"
seeds = [0, 1]
max_steps = 6
concurrency = 3
players = ["random", "sim"]

[[games]]
id = "tictactoe"

[[games]]
id = "2048"
max_steps = 4

[harness]
sim_latency = 0.0
memory = [0, 2]
"""


def test_example_parses_into_its_grid() -> None:
    sweep = parse_sweep(EXAMPLE, name="example.toml")
    assert len(sweep.games) == 2 and len(sweep.lineups) == 3 and len(sweep.settings) == 2
    assert len(sweep.cells) == 12 and len(sweep.episodes) == 36
    assert {s.name for s in sweep.settings} == {"no-memory", "memory"}
    assert not any(s.split(":")[0] in ("openai", "anthropic") for c in sweep.cells for s in c.lineup.specs)


def test_grid_is_named_settings_times_axes_with_fixed_values() -> None:
    axes = 'memory = [0, 2]\nreflection = [true, false]\nperception = "text"'
    text = SMALL.replace("memory = [0, 2]", axes)
    sweep = parse_sweep(text)
    assert [s.name for s in sweep.settings] == [
        "memory=0 reflection=true", "memory=0 reflection=false",
        "memory=2 reflection=true", "memory=2 reflection=false",
    ]
    assert all(s.values["perception"] == "text" for s in sweep.settings)
    opts = sweep.settings[0].model_options()
    assert opts == {"latency": 0.0, "memory": 0, "reflection": True, "perception": "text"}


def test_cell_keys_do_not_change_when_the_file_grows() -> None:
    before = {c.label: c.key for c in parse_sweep(SMALL).cells}
    grown = SMALL.replace('players = ["random", "sim"]', 'players = ["random", "sim", "sim:careless"]')
    grown = grown.replace("seeds = [0, 1]", "seeds = [0, 1, 2]") + '\n[budget]\nsession_hard_usd = 1.0\n'
    after = {c.label: c.key for c in parse_sweep(grown).cells}
    assert len(after) == len(before) + 4
    assert all(after[label] == key for label, key in before.items())


def test_episodes_and_first_seed_give_the_seeds() -> None:
    text = SMALL.replace("seeds = [0, 1]", "episodes = 3\nfirst_seed = 10")
    assert parse_sweep(text).seeds == (10, 11, 12)


@pytest.mark.parametrize(
    ("change", "line", "words"),
    [
        (("memory = [0, 2]", "memory = [0, -2]"), 16, "harness.memory[1]: expected a whole number"),
        (("memory = [0, 2]", 'perception = "smell"'), 16, "harness.perception: expected \"text\""),
        (("max_steps = 4", "max_steps = 4\ncolour = 3"), 13, "games[1].colour: unknown key"),
        (('id = "2048"', 'id = "2049"'), 11, "games[1].id"),
        (('id = "2048"', 'id = "2048"\noptions = { size = "big" }'), 12, "games[1].options"),
        (('players = ["random", "sim"]', 'players = ["random", ["sim", "sim", "sim"]]'), 5,
         "players[1]: Tic-tac-toe has 2 seat(s)"),
        (('players = ["random", "sim"]', 'players = ["random", "stockfish"]'), 5,
         "players[1]: unknown player"),
        (("seeds = [0, 1]", "seeds = [0, 0]"), 2, "seeds: expected every seed once"),
        (("concurrency = 3", "concurrency = 0"), 4, "concurrency: expected a whole number, at least 1"),
        (("sim_latency = 0.0", "sim_latency = 0.0\nmemory_size = 3"), 16, "harness.memory_size: unknown key"),
    ],
)
def test_errors_name_the_line_the_key_and_what_was_expected(
    change: tuple[str, str], line: int, words: str
) -> None:
    text = SMALL.replace(*change)
    assert text != SMALL
    with pytest.raises(SweepFileError) as info:
        parse_sweep(text, name="grid.toml")
    message = str(info.value)
    assert message.startswith(f"grid.toml:{line}: "), message
    assert words in message
    assert "\n" not in message


def test_a_toml_syntax_error_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(SMALL.replace("max_steps = 6", "max_steps = = 6"), encoding="utf-8")
    with pytest.raises(SweepFileError, match=r"bad\.toml:3: not valid TOML"):
        load_sweep(path)
    with pytest.raises(SweepFileError, match="cannot read"):
        load_sweep(tmp_path / "missing.toml")


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False, width=32),
                    st.text(max_size=6), st.lists(st.integers(-2, 3), max_size=3))


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        # JSON's string escapes are TOML's; TOML also wants DEL escaped.
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(HARNESS_KEYS)), value=_VALUES)
def test_any_harness_value_is_taken_or_refused_with_a_one_line_error(key: str, value: object) -> None:
    if value is None or (isinstance(value, float) and value in (float("inf"), float("-inf"))):
        value = "inf"
    text = SMALL.replace("sim_latency = 0.0\nmemory = [0, 2]", f"{key} = {_toml(value)}")
    try:
        sweep = parse_sweep(text, name="h.toml")
    except SweepFileError as exc:
        assert str(exc).startswith("h.toml:") and f"harness.{key}" in str(exc)
    else:
        assert all(key in s.values for s in sweep.settings)
        assert len(sweep.cells) == 2 * 2 * len(sweep.settings)
        assert len(sweep.settings) == (len(value) if isinstance(value, list) else 1)


def test_provider_of_names_providers_and_base_urls() -> None:
    assert provider_of("openai:gpt-4o") == "openai"
    assert provider_of("local:qwen2.5:7b@http://gpu:8000/v1/") == "http://gpu:8000/v1"
    assert provider_of("sim:careless") == "sim"
    assert provider_of("minimax") is None


def test_ablation_classes_follow_lmgame_bench() -> None:
    assert ablation_class({"perception": "image", "memory": 0, "reflection": False}) == "ZS"
    assert ablation_class({"perception": "image", "memory": 10}) == "+Memory"
    assert ablation_class({"perception": "both", "memory": 0, "reflection": False}) == "+Perception"
    assert ablation_class({}) == "+Both"


# -- the index and the runner -------------------------------------------------------------------


def _play(sweep_text: str, folder: Path) -> SweepRunner:
    from desktop.episode import session_recorder

    runner = SweepRunner(parse_sweep(sweep_text), folder, record=session_recorder)
    asyncio.run(runner.run())
    return runner


def test_a_sweep_plays_every_episode_once_and_reports_it(tmp_path: Path) -> None:
    runner = _play(SMALL, tmp_path)
    index = runner.open()
    rows = index.rows()
    assert len(rows) == len(runner.sweep.episodes) == 16
    assert len({(r["cell"], r["seed"]) for r in rows}) == 16
    assert sorted(p.name for p in (tmp_path / "sessions").iterdir()) == sorted(
        Path(r["session"]).name for r in rows)
    assert all(r["raw"] is not None for r in rows)
    assert sqlite3.connect(tmp_path / "index.sqlite").execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # While one process plays the folder, another cannot.
    with pytest.raises(SweepBusyError, match="another playtrace sweep"):
        SweepRunner(parse_sweep(SMALL), tmp_path).open()
    runner.close()
    # Played again: nothing is missing, nothing is played twice.
    again = SweepRunner(parse_sweep(SMALL), tmp_path)
    outcome = asyncio.run(again.run())
    assert outcome.played == 0 and outcome.already_done == 16
    report = load_report(tmp_path)
    assert len(report.rows) == 8 and all(r.episodes == 2 for r in report.rows)
    assert [line["players"] for line in report.ablation["2048"]] == ["sim"]
    assert report.score_names["2048"] == "score_2048"


def test_recovery_moves_aside_what_a_kill_left_and_replays_it(tmp_path: Path) -> None:
    runner = _play(SMALL, tmp_path)
    index = runner.open()
    row = index.rows()[0]
    # As a kill would leave it: a row still running, its half-written session, and an orphan folder.
    index.db.execute("UPDATE episodes SET state = 'running' WHERE cell = ? AND seed = ?",
                     (row["cell"], row["seed"]))
    orphan = tmp_path / "sessions" / "20260101-000000_2048_dead"
    orphan.mkdir()
    (orphan / "events.jsonl").write_text('{"type": "session_st', encoding="utf-8")
    runner.close()
    again = SweepRunner(parse_sweep(SMALL), tmp_path, record=runner.record)
    outcome = asyncio.run(again.run())
    assert outcome.played == 1 and outcome.done == 1
    assert sorted(Path(m).name for m in outcome.moved) == sorted([Path(row["session"]).name, orphan.name])
    assert all((tmp_path / m).exists() for m in outcome.moved)
    index = again.open()
    assert len(index.rows()) == 16 and len(index.moved()) == 2
    assert len(list((tmp_path / "sessions").iterdir())) == 16


def test_an_episode_reported_twice_is_counted_once(tmp_path: Path) -> None:
    sweep = parse_sweep(SMALL)
    cell = sweep.cells[0]
    with SweepIndex(tmp_path) as index:
        index.add_cells(sweep.cells)
        index.start(cell.key, 0)
        result = {"counted": True, "status": "completed", "steps": 5, "scores": [1, 0], "raw": 1.0}
        assert index.finish(cell.key, 0, result)
        assert not index.finish(cell.key, 0, {**result, "raw": 0.0})
        assert [r["raw"] for r in index.rows()] == [1.0]
        with pytest.raises(RuntimeError, match="done already"):
            index.start(cell.key, 0)


def test_the_sweep_budget_stops_starting_episodes(tmp_path: Path) -> None:
    text = SMALL + "\n[budget]\nsweep_usd = 0.0\n"
    sweep = parse_sweep(text)
    with SweepIndex(tmp_path) as index:
        index.add_cells(sweep.cells)
        index.start(sweep.cells[0].key, 0)
        index.finish(sweep.cells[0].key, 0, {"counted": True, "status": "completed", "cost_usd": 0.5})
    notices: list[str] = []
    runner = SweepRunner(sweep, tmp_path, on_notice=notices.append)
    outcome = asyncio.run(runner.run())
    assert outcome.budget_stopped and outcome.played == 0
    assert any("budget" in n for n in notices)


def test_errors_in_later_tables_name_their_lines() -> None:
    text = SMALL + ('\n[limits]\nopenai = 2\n"http://gpu-1:8000/v1/" = 0\n'
                    '\n[ray.tags]\nminimax = { cpus = 2 }\n')
    with pytest.raises(SweepFileError, match=r'^g\.toml:20: limits\.http://gpu-1:8000/v1/: expected a whole'):
        parse_sweep(text, name="g.toml")
    text = text.replace('"http://gpu-1:8000/v1/" = 0', '"http://gpu-1:8000/v1/" = 1')
    with pytest.raises(SweepFileError, match=r"^g\.toml:23: ray\.tags\.minimax\.cpus: unknown key"):
        parse_sweep(text, name="g.toml")
    fixed = parse_sweep(text.replace("cpus = 2", "num_cpus = 2"), name="g.toml")
    assert fixed.limits == {"openai": 2, "http://gpu-1:8000/v1": 1}
    assert fixed.ray.tags["minimax"] == (2.0, {})


def test_an_episode_that_cannot_start_fails_alone(tmp_path: Path) -> None:
    text = SMALL.replace('sim_latency = 0.0', 'sim_latency = 0.0\nperception = "image"')
    notices: list[str] = []
    runner = SweepRunner(parse_sweep(text), tmp_path, render=lambda game_id: None, on_notice=notices.append)
    outcome = asyncio.run(runner.run())
    # The sim cells need the board image, which this renderer cannot draw; the others play.
    assert outcome.failed == 8 and outcome.done == 8
    assert all("image perception needs the board renderer" in e for e in outcome.errors)
    assert runner.open().counts() == {"done": 8, "failed": 8}


def test_two_cells_that_play_the_same_episodes_are_refused() -> None:
    twins = '[[harness.settings]]\nname = "a"\n\n[[harness.settings]]\nname = "b"'
    text = SMALL.replace("memory = [0, 2]", twins)
    with pytest.raises(SweepFileError, match="'tictactoe · random · a' and 'tictactoe · random · b'"):
        parse_sweep(text)
    text = SMALL.replace('id = "2048"\nmax_steps = 4', 'id = "tictactoe"\nlabel = "again"')
    with pytest.raises(SweepFileError, match=r"^sweep\.toml:\d+: games: expected different cells"):
        parse_sweep(text)
