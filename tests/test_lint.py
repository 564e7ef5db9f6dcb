"""The code passes ruff with the rules of pyproject.toml's ``[tool.ruff.lint]``.

ruff is a test dependency (``pip install -e '.[test]'``) and runs as ``python -m ruff`` from this
interpreter's environment, so the checked version is the one the [test] extra pins.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: Every folder with Python code (packaging/ holds the PyInstaller launcher; scripts/ is checked
#: should Python scripts appear there).
CHECKED = ("engine", "sessions", "renderers", "desktop", "tests", "benchmarks", "packaging", "scripts")


def _ruff(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", *args],
        input=stdin, capture_output=True, text=True, timeout=300, cwd=REPO,
    )


def test_ruff_finds_nothing() -> None:
    folders = [name for name in CHECKED if (REPO / name).is_dir()]
    proc = _ruff(*folders)
    assert "No module named ruff" not in proc.stderr, "ruff is a test dependency: pip install -e '.[test]'"
    # 0: no findings; 1: findings (listed on stdout); 2: ruff itself failed (bad configuration, ...).
    assert proc.returncode == 0, f"ruff check {' '.join(folders)}:\n{proc.stdout}{proc.stderr}"


def test_the_configured_rules_are_in_force() -> None:
    # A file with one finding per rule family, checked as if it were part of the engine: a clean result
    # above means clean code, not an exclusion or an empty rule set.
    source = (
        "from __future__ import annotations\n"
        "\n"
        "import sys\n"
        "import os\n"  # I001: unsorted imports
        "from typing import Optional\n"
        "\n"
        "\n"
        "def f(x: Optional[int] = None, items: list = []) -> None:\n"  # UP045 (Optional), B006
        f"    print({' + '.join(['x'] * 40)})  \n"  # E501 (over 110 characters), W291 (trailing blanks)
        "    undefined_name\n"  # F821
    )
    proc = _ruff("--stdin-filename", "engine/_lint_probe.py", "-", stdin=source)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    codes = {line.split(": ", 1)[1].split(" ", 1)[0] for line in proc.stdout.splitlines() if ": " in line}
    for expected in ("I001", "UP045", "B006", "E501", "W291", "F821", "F401"):
        assert expected in codes, f"{expected} not reported; ruff said:\n{proc.stdout}{proc.stderr}"
