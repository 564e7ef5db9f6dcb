"""``playtrace probe``: recorded boards put to several players, resumable, against real SDK clients too."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessions import load_session
from sessions.probe import RESULTS, ProbeError, parse_player, read_results, targets_of
from sessions.search import find_sessions
from tests.commands import own_home, record, run_cli
from tests.loopback import Answer, LoopbackServer


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("probe")
    with own_home(tmp_path_factory):
        record(
            "run",
            "tictactoe",
            "-p",
            "sim",
            "-p",
            "random",
            "-n",
            "2",
            "--sim-error-rate",
            "0.5",
            "--out",
            str(root / "ttt"),
        )
        record("run", "2048", "-p", "random", "-n", "1", "--max-steps", "6", "--out", str(root / "g"))
    yield root


def _ttt(runs: Path) -> Path:
    return next(iter(find_sessions(runs / "ttt")))


def test_parse_player() -> None:
    assert parse_player("sim").options == {}
    p = parse_player("sim[memory=0, reflection=false, prompt_variant=naive]")
    assert p.spec == "sim" and dict(p.options) == {
        "memory": 0,
        "reflection": False,
        "prompt_variant": "naive",
    }
    assert p.label == 'sim[memory=0,prompt_variant="naive",reflection=false]'
    for bad in ("sim[memory]", "minimax[memory=0]", "sim[=1]"):
        with pytest.raises(ProbeError):
            parse_player(bad)


def test_targets_are_the_model_seats_decisions(runs: Path) -> None:
    folder = _ttt(runs)
    targets = targets_of(folder)
    assert targets and all(t.seat == 0 for t in targets)
    # Steps are numbered from 1 as the app numbers them: X (the model) decides at steps 1, 3, 5...
    assert [t.step for t in targets] == list(range(1, load_session(folder).num_steps + 1, 2))
    assert [t.index for t in targets] == [t.step - 1 for t in targets]
    assert targets_of(folder, [2], 1)[0].recorded is not None


def test_probe_asks_every_player_and_resumes(
    runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, out = _ttt(runs), tmp_path / "probe"
    n = len(targets_of(folder))
    code, stdout, err = run_cli(
        capsys,
        "probe",
        str(folder),
        "-p",
        "minimax",
        "-p",
        "sim",
        "-p",
        "sim[memory=0]",
        "--out",
        str(out),
        "--json",
    )
    assert code == 0, err
    answers = json.loads(stdout)["answers"]
    assert len(answers) == 3 * n
    assert {a["player"] for a in answers} == {"minimax", "sim", "sim[memory=0]"}
    assert all(a["action"] is not None and a["error"] is None for a in answers)
    # Played moves are what the session recorded; the simulated model's intermediate answers are checked.
    assert any(a["asked"] > 0 for a in answers if a["player"] == "sim")
    # A probe killed halfway resumes: only what is missing is asked again, nothing twice.
    lines = (out / RESULTS).read_text(encoding="utf-8").splitlines(keepends=True)
    (out / RESULTS).write_text("".join(lines[:4]) + lines[4][:20], encoding="utf-8")
    code, stdout, err = run_cli(
        capsys,
        "probe",
        str(folder),
        "-p",
        "minimax",
        "-p",
        "sim",
        "-p",
        "sim[memory=0]",
        "--out",
        str(out),
        "--json",
    )
    assert code == 0, err
    results = read_results(out)
    assert len(results) == 3 * n and len({(r["key"], r["player"]) for r in results}) == 3 * n


def test_probe_the_rows_of_a_search(runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sql = (
        "SELECT path, step, seat FROM steps "
        "WHERE game = 'tictactoe' AND kind = 'model' AND invalid_answers > 0"
    )
    code, out, err = run_cli(capsys, "search", str(runs), sql, "--format", "json")
    rows = json.loads(out)
    assert code == 0 and rows, err
    code, out, err = run_cli(
        capsys, "probe", "--search", str(runs), sql, "-p", "minimax", "--out", str(tmp_path / "p"), "--json"
    )
    assert code == 0, err
    answers = json.loads(out)["answers"]
    assert sorted((a["path"], a["step"]) for a in answers) == sorted((r["path"], r["step"]) for r in rows)


def test_probe_a_real_model_in_both_wire_formats(
    runs: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    loopback: LoopbackServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-probe-0000")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-probe-0000")
    monkeypatch.setenv("OPENAI_BASE_URL", loopback.openai_base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.anthropic_base_url)
    loopback.default = Answer(content="thought: corner.\nmove: left")
    folder = next(iter(find_sessions(runs / "g")))
    code, out, err = run_cli(
        capsys,
        "probe",
        str(folder),
        "--steps",
        "1:3",
        "-p",
        "openai:gpt-4o-mini[reflection=false]",
        "-p",
        "anthropic:claude-haiku-4-5[reflection=false]",
        "--out",
        str(tmp_path / "p"),
        "--json",
    )
    assert code == 0, err
    answers = json.loads(out)["answers"]
    assert len(answers) == 6 and all(a["action"] == "left" for a in answers if a["policy"] == "answer")
    paths = [r.path for r in loopback.requests if r.method == "POST"]
    assert sum(p.endswith("/chat/completions") for p in paths) == 3
    assert sum(p.endswith("/messages") for p in paths) == 3


@pytest.mark.parametrize("case", ["step", "seat", "bot", "player", "games", "none"])
def test_a_board_a_player_cannot_answer_is_one_line(
    runs: Path, case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ttt = str(_ttt(runs))
    g = str(next(iter(find_sessions(runs / "g"))))
    args = {
        "step": [ttt, "--step", "99", "-p", "sim"],
        "seat": [ttt, "--step", "1", "--seat", "1", "-p", "sim"],
        "bot": [g, "-p", "minimax"],
        "player": [ttt, "-p", "sim[memory"],
        "games": [ttt, g, "-p", "random"],
        "none": ["-p", "sim"],
    }[case]
    code, out, err = run_cli(capsys, "probe", *args, "--out", str(tmp_path / "p"))
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("playtrace: "), err
