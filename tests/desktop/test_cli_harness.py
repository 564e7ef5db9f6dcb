"""``playtrace run``'s harness flags end to end: the policy and perception that played are in the run
header, the session manifest and ``playtrace show``; mistakes are one-line usage errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import sessions
from desktop import cli
from engine import events as ev
from tests.desktop.test_cli import run_cli, session_dirs


def test_the_policy_that_played_is_in_the_header_the_manifest_and_show(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run_cli(capsys, "run", "tictactoe", "-p", "sim:careless", "-p", "random",
                             "--reask", "same", "--retries", "1", "--fallback", "forfeit", "--strikes", "2",
                             "--out", str(tmp_path))
    assert code == 0, err
    flat = " ".join(out.split())
    assert "harness of sim:careless:" in flat
    assert "invalid answers: re-ask the same prompt ×1 → forfeit; forfeit at 2 strikes" in flat
    (folder,) = session_dirs(tmp_path)
    harness = sessions.load_session(folder).manifest["harness"]["0"]
    assert harness["invalid_policy"] == {"reask": "same", "retries": 1, "fallback": "forfeit", "strikes": 2}
    code, out, err = run_cli(capsys, "show", str(folder))
    assert code == 0, err
    assert "re-ask the same prompt ×1 → forfeit; forfeit at 2 strikes" in " ".join(out.split())
    code, out, _ = run_cli(capsys, "show", str(folder), "--json")
    report = json.loads(out)
    policy = report["model"]["0"]["invalid_policy"]
    assert policy == "re-ask the same prompt ×1 → forfeit; forfeit at 2 strikes"


def test_describe_perception_from_the_command_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run_cli(capsys, "run", "2048", "-p", "sim", "--perception", "describe",
                             "--perception-model", "sim:perfect", "--max-steps", "2", "--out", str(tmp_path))
    assert code == 0, err
    assert "perception describe (by sim:perfect)" in " ".join(out.split())
    (folder,) = session_dirs(tmp_path)
    session = sessions.load_session(folder)
    assert session.manifest["harness"]["0"]["perception_model"] == "sim:perfect"
    described = [e for e in session.events if e["type"] == ev.PERCEPTION]
    assert len(described) == 2 and all(e["data"]["model"] == "sim:perfect" for e in described)
    assert all(str(e["data"]["image"]).startswith("attachment://") for e in described)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--perception-model", "sim"], "--perception-model needs --perception describe"),
        (["--perception", "describe", "--perception-model", "random"], "is not a model"),
    ],
)
def test_harness_mistakes_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, flags: list[str], message: str
) -> None:
    code, out, err = run_cli(capsys, "run", "2048", "-p", "sim", *flags, "--out", str(tmp_path))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())


def test_the_new_game_dialog_offers_and_restores_the_policy_and_the_format(qtbot: Any) -> None:
    from desktop.new_game_dialog import SeatEditor

    editor = SeatEditor("2048", 0, "Player")
    qtbot.addWidget(editor)
    options = {"perception": "describe", "action_format": "tools",
               "invalid_policy": {"reask": "same", "retries": 2, "fallback": "forfeit"}}
    editor.set_choice("sim", options)
    chosen = editor.options()
    assert chosen["perception"] == "describe" and chosen["action_format"] == "tools"
    assert chosen["invalid_policy"] == {"reask": "same", "retries": 2, "fallback": "forfeit"}


def test_a_fork_keeps_the_describing_model_and_the_format(tmp_path: Path) -> None:
    from desktop.session_model import setup_from_manifest

    code = cli.main(["run", "2048", "-p", "sim", "--perception", "describe", "--perception-model",
                     "sim:perfect", "--action-format", "json", "--max-steps", "1", "--out", str(tmp_path)])
    assert code == 0
    (folder,) = session_dirs(tmp_path)
    seat = setup_from_manifest(sessions.load_session(folder).manifest).seats[0]
    assert seat.options["perception_model"] == "sim:perfect" and seat.options["action_format"] == "json"
