"""Packaging metadata and the documented commands agree with each other.

The README's first lines say how to install, run and test PlayTrace; CI (``.ci/run``) must run exactly
that test command; the console script must exist; the installer recipes must be where the docs say;
every third-party import is a declared dependency; no folder of the repository can be imported in place
of an installed module.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

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
    # The NES ROM's packages stay out of every bundle (tests/test_bundle.py checks a built one).
    assert '"nes_py"' in spec and '"gym_super_mario_bros"' in spec
    build = REPO / "packaging" / "build.sh"
    text = build.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/sh") and build.stat().st_mode & 0o111
    assert "playtrace.spec" in text and "build_deb.sh" in text and "--noconfirm" in text
    dmg = REPO / "packaging" / "macos" / "build_dmg.sh"
    assert dmg.read_text(encoding="utf-8").startswith("#!/bin/sh") and dmg.stat().st_mode & 0o111
    assert "hdiutil create" in dmg.read_text(encoding="utf-8")
    iss = (REPO / "packaging" / "windows" / "playtrace.iss").read_text(encoding="utf-8")
    assert "dist\\playtrace\\*" in iss and "playtrace.exe" in iss
    workflow = (REPO / ".github" / "workflows" / "installers.yml").read_text(encoding="utf-8")
    for recipe in ("packaging/build.sh", "playtrace.iss", "build_dmg.sh", "--self-test"):
        assert recipe in workflow, recipe
    docs = (REPO / "packaging" / "README.md").read_text(encoding="utf-8")
    for name in ("playtrace.spec", "build_deb.sh", "build.sh", "playtrace.iss", "build_dmg.sh", "packaging/"):
        assert name in docs, name


# -- dependencies ---------------------------------------------------------------------------------------

#: The packages the distribution installs (pyproject's [tool.setuptools.packages.find]).
APP_PACKAGES = ("engine", "sessions", "renderers", "desktop")
#: Folders whose code runs only from a checkout, with the [test] extra installed.
DEV_FOLDERS = ("tests", "benchmarks")


def _top_level_imports(path: Path) -> set[str]:
    """The top-level module names ``path`` imports (absolute imports only, lazy ones included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _is_local(name: str, path: Path) -> bool:
    """Whether ``name`` is the repository's own code as seen from ``path`` (a sibling module, a
    top-level folder, or a toy plug-in distribution of the tests)."""
    for folder in path.parents:
        if (folder / name).is_dir() or (folder / f"{name}.py").is_file():
            return True
        if folder == REPO:
            return False
    return False


def _declared(*groups: list[str]) -> set[str]:
    return {canonicalize_name(Requirement(req).name) for group in groups for req in group}


def test_every_third_party_import_is_a_declared_dependency() -> None:
    project = PYPROJECT["project"]
    runtime = _declared(project["dependencies"])
    with_tests = runtime | _declared(project["optional-dependencies"]["test"])
    # A feature that needs an optional extra (``playtrace[ray]``) imports it only when it is used.
    extras = [group for name, group in project["optional-dependencies"].items() if name != "test"]
    with_extras = runtime | _declared(*extras)
    distributions = importlib.metadata.packages_distributions()
    undeclared: list[str] = []
    for folders, allowed, where in (
        (APP_PACKAGES, with_extras, "[project] dependencies or an optional extra"),
        (DEV_FOLDERS, with_tests, "the [test] extra"),
    ):
        for folder in folders:
            for path in sorted((REPO / folder).rglob("*.py")):
                for name in sorted(_top_level_imports(path)):
                    if name in sys.stdlib_module_names or _is_local(name, path):
                        continue
                    dists = {canonicalize_name(d) for d in distributions.get(name, [])}
                    if not dists & allowed:
                        who = ", ".join(sorted(dists)) or "not installed"
                        undeclared.append(f"{path.relative_to(REPO)}: {name} ({who}) is not in {where}")
    assert not undeclared, "\n".join(undeclared)


# -- the repository root on sys.path ------------------------------------------------------------------------

#: The repository's own importable top-level names: the distribution's packages and the test package.
OWN_TOP_LEVEL = {*APP_PACKAGES, "assets", "tests"}


def test_no_top_level_package_is_named_like_an_installed_module() -> None:
    # pytest, ``python -m`` and a script run from the checkout put the repository root on sys.path. A
    # folder there with an ``__init__.py`` is a regular package and would shadow an installed module of
    # the same name; a plain folder (no ``__init__.py``, like ``packaging/``) is at most a namespace
    # portion, which loses to a regular package wherever that stands on sys.path (PEP 420).
    installed = importlib.metadata.packages_distributions()
    clashes = sorted(
        f"{entry.name}/ (installed by {', '.join(installed[entry.name])})"
        for entry in REPO.iterdir()
        if entry.is_dir() and entry.name.isidentifier() and entry.name not in OWN_TOP_LEVEL
        and entry.name in installed and (entry / "__init__.py").exists()
    )
    assert not clashes, f"rename these folders or drop their __init__.py: {clashes}"


def test_installer_recipes_folder_is_a_plain_folder() -> None:
    assert (REPO / "packaging").is_dir()
    assert not (REPO / "packaging" / "__init__.py").exists()


def _python(code: str, *flags: str) -> str:
    proc = subprocess.run(
        [sys.executable, *flags, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_pypa_packaging_wins_with_the_repository_first_or_last_on_sys_path() -> None:
    # What pip, setuptools and pytest plugins import as ``packaging`` is the PyPA distribution, wherever
    # the repository root stands on sys.path.
    real = Path(importlib.metadata.distribution("packaging").locate_file("packaging")).resolve()
    for where in ("sys.path.insert(0, root)", "sys.path.append(root)"):
        code = (
            f"import sys; root = {str(REPO)!r}; sys.path[:] = [p for p in sys.path if p not in ('', root)]; "
            f"{where}; import packaging, packaging.version; print(packaging.__file__)"
        )
        imported = Path(_python(code)).resolve()
        assert imported.parent == real, f"{where}: packaging came from {imported}"


def test_ci_type_checks_the_typed_seams() -> None:
    run = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert ".venv/bin/python -m mypy" in run
    mypy = PYPROJECT["tool"]["mypy"]
    assert mypy["strict"] is True and set(mypy["files"]) == {"engine", "sessions", "renderers"}
