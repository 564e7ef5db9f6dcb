"""A password in a model server's URL (``http://user:password@host``) is a secret as a key is: it never
reaches a file PlayTrace writes (sessions, tournament tables, the sweep's index and its copy of the sweep
file, task results) nor a line it prints."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from desktop import cli
from tests.loopback import Answer, LoopbackServer

pytestmark = pytest.mark.timeout(90)

PASSWORD = "s3cret-pw-42"


def _spec(server: LoopbackServer) -> str:
    return f"local:loop-model@http://alice:{PASSWORD}@127.0.0.1:{server.port}/v1"


def _sweep(tmp: Path, spec: str) -> Path:
    path = tmp / "sweep.toml"
    path.write_text(f'name = "s"\nseeds = [0]\nmax_steps = 2\nplayers = [["{spec}", "random"]]\n'
                    '[[games]]\nid = "tictactoe"\n[harness]\nreflection = false\n')
    return path


COMMANDS: dict[str, Callable[[str, Path], list[str]]] = {
    "run": lambda spec, tmp: ["run", "tictactoe", "-p", spec, "-p", "random", "--max-steps", "2",
                              "--out", str(tmp / "out")],
    "run --json": lambda spec, tmp: ["run", "tictactoe", "-p", spec, "-p", "random", "--max-steps", "2",
                                     "--json", "--out", str(tmp / "out")],
    "run --dry-run": lambda spec, tmp: ["run", "tictactoe", "-p", spec, "-p", "random", "--dry-run",
                                        "--out", str(tmp / "out")],
    "tournament": lambda spec, tmp: ["tournament", "tictactoe", "--player", spec, "--player", "random",
                                     "--matches", "1", "--max-steps", "2", "--out", str(tmp / "out")],
    "tournament --json": lambda spec, tmp: ["tournament", "tictactoe", "--player", spec, "--player",
                                            "random", "--matches", "1", "--max-steps", "2", "--json",
                                            "--out", str(tmp / "out")],
    "sweep": lambda spec, tmp: ["sweep", str(_sweep(tmp, spec)), "--out", str(tmp / "out")],
    "check-model": lambda spec, tmp: ["check-model", spec],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_url_passwords_never_reach_a_file_or_the_screen(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], loopback: LoopbackServer
) -> None:
    loopback.default = Answer(content="Chosen Move: (1,1)\nmove: b2")
    cli.main(COMMANDS[command](_spec(loopback), tmp_path))
    out, err = capsys.readouterr()
    assert PASSWORD not in out + err
    assert "alice" in out + err or command == "sweep"  # the account is still named
    written = tmp_path / "out"
    for path in written.rglob("*") if written.exists() else []:
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path  # index.sqlite included
