"""The ``playtrace`` command run in-process, as the tests of the commands run it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from desktop import cli


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``playtrace ARGV``: its exit code and what it printed on stdout and stderr."""
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def record(*argv: str) -> None:
    """Run a command that records sessions (``run``, ``tournament``), which must succeed."""
    code = cli.main(list(argv))
    assert code == 0, f"playtrace {' '.join(argv)} exited with {code}"


@contextlib.contextmanager
def own_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A PlayTrace user-data folder of its own, for a module-scoped fixture that records sessions
    (the autouse home of tests/conftest.py is per test)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PLAYTRACE_HOME", str(tmp_path_factory.mktemp("home")))
        yield
