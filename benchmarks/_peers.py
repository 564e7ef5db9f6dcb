"""Peers in their own virtualenv: the benchmarks time another project's environment side by side with
PlayTrace's without making it a dependency of PlayTrace or of its tests.

:func:`run_peer` makes (once) a virtualenv under the benchmark's scratch folder, installs the peer's
packages there when they are missing, runs a script with that virtualenv's Python and returns the JSON
object the script prints last. Anything that fails (no network for the install, a peer that breaks)
is said in one line and gives ``None``, so the benchmark still prints PlayTrace's own figures.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import venv
from collections.abc import Mapping, Sequence
from typing import Any


def run_peer(
    scratch: pathlib.Path,
    *,
    packages: Sequence[str],
    probe: str,
    script: str,
    name: str,
    env: Mapping[str, str] | None = None,
    install: bool = True,
) -> dict[str, Any] | None:
    """Run ``script`` in the peer virtualenv at ``scratch`` and return what it printed as JSON.

    Args:
        packages: What ``pip install`` puts in the virtualenv when ``probe`` does not import.
        probe: A module that imports once the packages are installed (``"gym_sokoban"``).
        script: Python source; its last line of output is a JSON object.
        name: The peer's name in messages.
        env: Extra environment variables for the script (``SDL_VIDEODRIVER=dummy`` for pygame).
        install: Create and fill the virtualenv if needed; ``False``: use it only if it exists.
    """
    python = scratch / "bin" / "python"
    if not python.exists():
        if not install:
            return None
        venv.create(scratch, with_pip=True)
    check = subprocess.run([str(python), "-c", f"import {probe}"], capture_output=True)
    if check.returncode != 0:
        if not install:
            return None
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", *packages], capture_output=True, text=True
        )
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            print(f"  could not install {' '.join(packages)} in {scratch} (offline?): {last}")
            return None
    run = subprocess.run(
        [str(python), "-c", script], capture_output=True, text=True, env={**os.environ, **(env or {})}
    )
    if run.returncode != 0:
        print(f"  the {name} run failed: {run.stderr.strip()[-300:]}")
        return None
    return json.loads(run.stdout.strip().splitlines()[-1])
