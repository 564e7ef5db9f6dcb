"""The toy plug-in games through the real command line, in a separate process that has the toy
distribution installed (on its PYTHONPATH), as a user who ran ``pip install playtrace-toys`` would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.toys import TOY_GAMES, env_with

ROOT = Path(__file__).resolve().parents[1]


def playtrace(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = env_with()
    env["PLAYTRACE_HOME"] = str(home)
    env["QT_QPA_PLATFORM"] = "offscreen"
    code = "import sys; from desktop.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_playtrace_games_lists_the_toys_and_the_unavailable_one(tmp_path: Path) -> None:
    done = playtrace("games", home=tmp_path)
    assert done.returncode == 0, done.stderr
    for game_id in TOY_GAMES:
        assert f"\n{game_id}  " in "\n" + done.stdout
    assert "needsdep  Needs a dependency  UNAVAILABLE" in done.stdout
    assert "pip install 'playtrace-toys[fancy]'" in done.stdout
    listed = json.loads(playtrace("games", "--json", home=tmp_path).stdout)
    kinds = {g["id"]: g for g in listed}
    assert kinds["triple"]["simultaneous"] and len(kinds["triple"]["seats"]) == 3
    assert kinds["highcard"]["perfect_information"] is False and kinds["highcard"]["bots"] == ["cardsense"]
    assert kinds["dodge"]["tick_s"] == 0.5 and kinds["dodge"]["default_action"] == "stay"


@pytest.mark.parametrize(
    ("game_id", "players"),
    [("highcard", ["sim", "random"]), ("triple", ["sim", "random", "random"]), ("dodge", ["sim"])],
)
def test_toys_play_headless_with_random_and_sim_and_replay(
    tmp_path: Path, game_id: str, players: list[str]
) -> None:
    out = tmp_path / "runs"
    args = ["run", game_id, "--episodes", "2", "--seed", "3", "--out", str(out)]
    for spec in players:
        args += ["--player", spec]
    if game_id == "dodge":
        args += ["--option", "length=6"]
    done = playtrace(*args, home=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    sessions = sorted(p for p in out.iterdir() if p.is_dir())
    assert len(sessions) == 2
    shown = json.loads(playtrace("show", str(sessions[0]), "--json", home=tmp_path).stdout)
    assert shown["game"] == game_id and shown["steps"] > 0
    # Replaying rebuilds every recorded state from the session alone.
    from sessions import load_session
    from tests.toys import installed

    with installed():
        session = load_session(sessions[0])
        states = [session.state_at(k) for k in range(session.num_steps + 1)]
    assert states[-1].is_over or game_id == "dodge"


def test_an_invalid_option_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    done = playtrace("run", "dodge", "--option", "length=2", "--out", str(tmp_path), home=tmp_path)
    assert done.returncode == 2 and "'length' must be at least 5" in done.stderr
    assert "Traceback" not in done.stderr
