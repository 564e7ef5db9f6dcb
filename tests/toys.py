"""Installing the toy plug-in distributions of ``tests/plugins*`` for a test, as pip would.

A folder holding ``<name>.dist-info/entry_points.txt`` and the package is an installed distribution
once it is on ``sys.path``: ``importlib.metadata`` finds its entry points, so PlayTrace discovers its
games without a file of PlayTrace being touched.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOYS = HERE / "plugins"
BROKEN = HERE / "plugins_broken"
#: The games the toy distribution registers that can be played.
TOY_GAMES = ("dodge", "highcard", "triple")


def _forget() -> None:
    import engine

    engine.refresh()
    if "renderers" in sys.modules:
        sys.modules["renderers"].refresh()


@contextlib.contextmanager
def installed(folder: Path = TOYS) -> Iterator[None]:
    """Put the distribution in ``folder`` on ``sys.path`` for the duration of the block."""
    sys.path.insert(0, str(folder))
    _forget()
    try:
        if "engine.gym" in sys.modules:
            sys.modules["engine.gym"].register_envs()
        yield
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m.split(".")[0] in ("playtrace_toys", "broken_toy")]:
            del sys.modules[name]
        _forget()


def env_with(folder: Path = TOYS) -> dict[str, str]:
    """The environment of a subprocess that has the distribution in ``folder`` installed."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder), env.get("PYTHONPATH", "")]))
    return env
