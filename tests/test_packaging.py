"""Packaging metadata and the documented commands agree with each other.

The README's first lines say how to install, run and test PlayTrace; CI (``.ci/run``) must run exactly
that test command; the console script must exist; the installer recipes must be where the docs say.
"""

from __future__ import annotations

import importlib
import re
import shlex
import tomllib
from pathlib import Path

from packaging.specifiers import SpecifierSet

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
#: How far down the README the install / run / test commands must appear.
README_HEAD_LINES = 15


def _readme_head() -> list[str]:
    return (REPO / "README.md").read_text(encoding="utf-8").splitlines()[:README_HEAD_LINES]


def _strip_comment(line: str) -> str:
    """A shell line without its trailing ``# comment`` (quotes respected)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return " ".join(lexer)


def _ci_test_command() -> str:
    """The command line of ``.ci/run`` that runs pytest."""
    lines = [_strip_comment(line) for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    commands = [line for line in lines if "pytest" in line]
    assert len(commands) == 1, f".ci/run should run pytest exactly once: {commands}"
    return commands[0]


def test_console_script_points_at_the_cli() -> None:
    project = PYPROJECT["project"]
    assert project["name"] == "playtrace"
    target = project["scripts"]["playtrace"]
    module_name, _, attr = target.partition(":")
    assert callable(getattr(importlib.import_module(module_name), attr))
    assert target == "desktop.cli:main"


def test_requires_python_311_or_newer() -> None:
    spec = SpecifierSet(PYPROJECT["project"]["requires-python"])
    assert "3.11" in spec and "3.12" in spec and "3.13" in spec
    assert "3.10" not in spec


def test_dependencies_have_upper_bounds() -> None:
    # An installer must be reproducible: every runtime dependency is pinned to a range.
    for dep in PYPROJECT["project"]["dependencies"]:
        assert "<" in dep, f"{dep} has no upper bound"
    assert any(d.startswith("PySide6-Essentials") for d in PYPROJECT["project"]["dependencies"])


def test_readme_starts_with_install_run_and_test_commands() -> None:
    head = "\n".join(_readme_head())
    assert "scripts/install.sh" in head
    assert re.search(r"(^|\s)(\.venv/bin/)?playtrace(\s|$)", head), "the run command is missing"
    assert "pytest" in head


def test_ci_runs_the_readme_test_command() -> None:
    ci = _ci_test_command()
    readme = [_strip_comment(line) for line in _readme_head()]
    assert ci in readme, f"README's first lines should contain the CI test command {ci!r}"


def test_ci_script_is_executable_shell() -> None:
    run = REPO / ".ci" / "run"
    assert run.read_text(encoding="utf-8").startswith("#!/bin/sh")
    assert run.stat().st_mode & 0o111


def test_installer_recipes_exist_and_are_consistent() -> None:
    spec = (REPO / "packaging" / "pyinstaller" / "playtrace.spec").read_text(encoding="utf-8")
    compile(spec, "playtrace.spec", "exec")  # it is Python run by PyInstaller
    assert "exclude_binaries=True" in spec and "COLLECT(" in spec  # onedir
    assert '"assets"' in spec and "PyQt5" in spec and "PyQt6" in spec
    launcher = REPO / "packaging" / "pyinstaller" / "launch.py"
    assert "desktop.app" in launcher.read_text(encoding="utf-8") and launcher.name in spec
    deb = REPO / "packaging" / "linux" / "build_deb.sh"
    text = deb.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/sh") and deb.stat().st_mode & 0o111
    assert "dpkg-deb --build" in text
    for lib in ("libxcb-cursor0", "libxkbcommon-x11-0", "libegl1", "libxcb-icccm4", "libxcb-keysyms1"):
        assert lib in text
    docs = (REPO / "packaging" / "README.md").read_text(encoding="utf-8")
    assert "playtrace.spec" in docs and "build_deb.sh" in docs
