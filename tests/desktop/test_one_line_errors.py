"""Each fault the fault campaign measured ends in one line and a non-zero exit within seconds (no
traceback, no silent nonsense), and a full disk does so in every command that writes."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop import cli

pytestmark = pytest.mark.timeout(120)

REPO = Path(__file__).resolve().parents[2]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(code: int, err: str) -> str:
    assert code != 0
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines and "Traceback" not in err, err
    return lines[-1]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rec")
    assert cli.main(["run", "tictactoe", "--player", "random", "--out", str(root)]) == 0
    return next(p for p in root.iterdir() if (p / "events.jsonl").exists())


@pytest.fixture(scope="module")
def study_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("study") / "study.toml"
    assert cli.main(["study", "init", str(path)]) == 0
    return path


def _sweep(tmp: Path, head: str) -> Path:
    path = tmp / "sweep.toml"
    path.write_text(f'name = "x"\n{head}\nplayers = ["random"]\n[[games]]\nid = "tictactoe"\n')
    return path


# -- the measured one-liners ----------------------------------------------------------------------------


def test_seconds_per_step_out_of_range(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = run_cli(
        capsys, "export", str(recorded), str(tmp_path / "a.gif"), "--seconds-per-step", "1e9"
    )
    assert "seconds per step" in one_line(code, err)
    assert not (tmp_path / "a.gif").exists()


def test_list_limit_below_one(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run_cli(capsys, "list", "--out", str(recorded.parent), "--limit", "-1")
    assert "--limit" in one_line(code, err)


@pytest.mark.parametrize("verb", ["label", "note"])
def test_annotation_on_a_negative_step(
    verb: str, recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = tmp_path / "s"
    shutil.copytree(recorded, session)
    extra = ["--labels", ""] if verb == "label" else ["--text", "hi"]
    code, _out, err = run_cli(
        capsys, "annotations", verb, str(session), "--step", "-1", "--annotator", "a", *extra
    )
    assert "step -1" in one_line(code, err)
    assert not (session / "annotations").exists() or not any((session / "annotations").iterdir())


def test_deep_json_in_an_annotation_file(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = tmp_path / "s"
    shutil.copytree(recorded, session)
    (session / "annotations").mkdir(exist_ok=True)
    (session / "annotations" / "x.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n")
    code, _out, err = run_cli(capsys, "annotations", "export", str(session), "--out", str(tmp_path / "a.csv"))
    assert code == 0 and "Traceback" not in err


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "1e9"])
def test_move_seconds_that_is_not_a_time(
    value: str, study_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = study_file.read_text().replace("move_seconds = 60", f"move_seconds = {value}")
    assert f"move_seconds = {value}" in text
    bad = tmp_path / "study.toml"
    bad.write_text(text)
    code, _out, err = run_cli(capsys, "study", "check", str(bad))
    assert "move_seconds" in one_line(code, err)


def test_study_opponent_without_a_key(
    study_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = study_file.read_text().replace('opponent = "minimax"', 'opponent = "openai:gpt-4o"', 1)
    assert "openai:gpt-4o" in text
    bad = tmp_path / "study.toml"
    bad.write_text(text)
    for verb in (
        ["check", str(bad)],
        ["simulate", str(bad), "--participants", "1", "--out", str(tmp_path / "r")],
    ):
        code, _out, err = run_cli(capsys, "study", *verb)
        assert "OPENAI_API_KEY" in one_line(code, err)


@pytest.mark.parametrize(
    ("head", "words"),
    [
        ("seeds = [99999999999999999999]", "seed"),
        ("episodes = 1000000000", "episodes"),
        ("seeds = [-1]", "seed"),
    ],
)
def test_sweep_seeds_and_sizes_are_checked_at_once(
    head: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    for extra in (["--dry-run"], []):
        code, _out, err = run_cli(
            capsys, "sweep", str(_sweep(tmp_path, head)), "--out", str(tmp_path / "o"), *extra
        )
        assert words in one_line(code, err)
    assert time.monotonic() - started < 30
    assert not (tmp_path / "o").exists()


def test_a_ray_address_nobody_listens_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    code, _out, err = run_cli(
        capsys,
        "sweep",
        str(_sweep(tmp_path, "seeds = [0]")),
        "--ray",
        "127.0.0.1:1",
        "--out",
        str(tmp_path / "o"),
    )
    one_line(code, err)
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("command", ["show", "show --json", "export gif", "list"])
def test_a_list_as_players_seat(
    command: str, recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = tmp_path / "s"
    shutil.copytree(recorded, session)
    manifest = json.loads((session / "manifest.json").read_text())
    manifest["players"][0]["seat"] = [1, 2]
    (session / "manifest.json").write_text(json.dumps(manifest))
    argv = {
        "show": ["show", str(session)],
        "show --json": ["show", str(session), "--json"],
        "export gif": ["export", str(session), str(tmp_path / "a.gif")],
        "list": ["list", "--out", str(tmp_path)],
    }[command]
    code, _out, err = run_cli(capsys, *argv)
    assert "Traceback" not in err
    assert code == 0  # the session is read, with a warning about the repaired seat


# -- a full disk, in every command that writes ---------------------------------------------------------------

#: Commands that write, as argv (``tmp``: where they write; ``s``: a recorded session; ``study``: a study).
WRITERS: dict[str, Callable[[Path, Path, Path], list[str]]] = {
    "export gif": lambda tmp, s, study: ["export", str(s), str(tmp / "a.gif")],
    "export zip": lambda tmp, s, study: ["export", str(s), str(tmp / "a.zip")],
    "sweep": lambda tmp, s, study: ["sweep", str(_sweep(tmp, "seeds = [0, 1]")), "--out", str(tmp / "sw")],
    "study simulate": lambda tmp, s, study: [
        "study",
        "simulate",
        str(study),
        "--participants",
        "1",
        "--out",
        str(tmp / "st"),
    ],
    "tasks generate": lambda tmp, s, study: [
        "tasks",
        "generate",
        "tictactoe",
        "--task",
        "perceive",
        "--n",
        "5",
        "--out",
        str(tmp / "ts"),
    ],
    "run": lambda tmp, s, study: [
        "run",
        "2048",
        "-p",
        "random",
        "--max-steps",
        "200",
        "--out",
        str(tmp / "r"),
    ],
    "tournament": lambda tmp, s, study: [
        "tournament",
        "2048",
        "--player",
        "random",
        "--player",
        "random",
        "--max-steps",
        "300",
        "--out",
        str(tmp / "t"),
    ],
}

#: Files larger than this cannot be written (RLIMIT_FSIZE: the kernel answers EFBIG, as a full disk ENOSPC).
LIMIT = 16 * 1024


def _disk_full(limit: int) -> Callable[[], None]:
    def setup() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return setup


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_a_full_disk_is_one_line_in_every_command_that_writes(
    command: str, recorded: Path, study_file: Path, tmp_path: Path
) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONDONTWRITEBYTECODE="1")
    argv = WRITERS[command](tmp_path, recorded, study_file)
    limit = 1024 if command == "export zip" else LIMIT  # a tic-tac-toe session zips to a few kilobytes
    proc = subprocess.run(
        [sys.executable, "-m", "desktop.cli", *argv],
        preexec_fn=_disk_full(limit),  # noqa: PLW1509
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert proc.returncode != 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "Exception ignored" not in proc.stderr, proc.stderr
