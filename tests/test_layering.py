"""The package layering of ARCHITECTURE.md holds: statically (import-linter) and at run time.

desktop -> renderers | sessions -> engine; engine and sessions never import Qt; renderers draw with
QtGui only (no widgets); the provider SDKs stay inside engine.llm.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Imports every module of the given packages in a fresh interpreter and reports which modules of the
# watched prefixes got loaded (directly or through any dependency), and which modules failed to import.
_PROBE = r"""
import importlib, json, pkgutil, sys
packages, watched = sys.argv[1].split(","), tuple(sys.argv[2].split(","))
failed = {}
for name in packages:
    pkg = importlib.import_module(name)
    on_error = lambda n: failed.setdefault(n, "walk")  # noqa: E731
    for info in pkgutil.walk_packages(pkg.__path__, name + ".", onerror=on_error):
        try:
            importlib.import_module(info.name)
        except Exception as exc:
            failed[info.name] = f"{type(exc).__name__}: {exc}"
if "engine" in packages:
    # Making every game and reading the bot registry imports modules loaded by name at run time.
    import engine
    for game_id in engine.list_games():
        game = engine.make(game_id)
        game.initial_state(seed=0).text()
        for bot in game.bots:
            game.make_bot(bot, 0)
loaded = sorted(m for m in sys.modules if m.startswith(watched))
print(json.dumps({"loaded": loaded, "failed": failed}))
"""


def _probe(packages: list[str], watched: list[str]) -> dict[str, object]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, ",".join(packages), ",".join(watched)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_linter_contracts_are_kept() -> None:
    lint_imports = Path(sys.executable).parent / ("lint-imports.exe" if os.name == "nt" else "lint-imports")
    assert lint_imports.exists(), "import-linter is a test dependency (pip install -e '.[test]')"
    proc = subprocess.run(
        [str(lint_imports), "--no-cache"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    match = re.search(r"Contracts: (\d+) kept, (\d+) broken", output)
    assert match, output
    assert (int(match[1]), int(match[2])) == (len(declared), 0), output
    assert len(declared) >= 3  # the layers, Qt-free and SDK contracts are all declared


def test_engine_and_sessions_do_not_load_qt_at_run_time() -> None:
    report = _probe(["engine", "sessions"], ["PySide6", "shiboken6", "qasync", "pyqtgraph"])
    assert report["failed"] == {}, report["failed"]
    assert report["loaded"] == [], f"Qt modules loaded by engine/sessions: {report['loaded']}"


def test_renderers_do_not_load_widgets_at_run_time() -> None:
    report = _probe(["renderers"], ["PySide6.QtWidgets", "qasync", "pyqtgraph", "sessions"])
    assert report["failed"] == {}, report["failed"]
    assert report["loaded"] == [], f"renderers loaded: {report['loaded']}"


def test_probe_detects_qt_when_it_is_loaded() -> None:
    # The probe itself must be able to see Qt, or the two tests above would pass vacuously.
    report = _probe(["renderers"], ["PySide6"])
    assert "PySide6.QtGui" in report["loaded"]


def _inside(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _cycles(graph: object, *packages: str) -> list[list[str]]:
    """Strongly connected groups of more than one module (import cycles), Tarjan's algorithm."""
    modules = sorted(m for m in graph.modules if _inside(m, packages))  # type: ignore[attr-defined]
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.find_modules_directly_imported_by(v):  # type: ignore[attr-defined]
            if not _inside(w, packages):
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in modules:
        if module not in index:
            visit(module)
    return found


def test_the_engine_has_no_import_cycle() -> None:
    """Every import inside the engine, including imports inside functions, forms no cycle."""
    import grimp

    graph = grimp.build_graph("engine", include_external_packages=False)
    assert _cycles(graph, "engine") == []
    # The check can fail: a graph with a cycle is reported.
    graph.add_import(importer="engine.core", imported="engine.match", line_number=1, line_contents="x")
    assert any({"engine.core", "engine.match"} <= set(group) for group in _cycles(graph, "engine"))


PACKAGES = ("engine", "sessions", "renderers", "desktop")


def test_no_package_has_an_import_cycle_nor_do_they_together() -> None:
    """Every import of every package, imports inside functions included, forms no cycle: within the
    desktop (window, menus, study flow, presenter) as in the engine, and across the packages. Imports
    under ``if TYPE_CHECKING:`` are annotations only (never executed) and are not counted."""
    import grimp

    graph = grimp.build_graph(*PACKAGES, include_external_packages=False, exclude_type_checking_imports=True)
    assert _cycles(graph, *PACKAGES) == []
    for package in PACKAGES:
        assert any(m.startswith(package + ".") for m in graph.modules), package
    # A function-level import that closes a loop is found (the study flow once opened the app).
    graph.add_import(importer="desktop.study_flow", imported="desktop.main_window", line_number=1,
                     line_contents="from desktop.main_window import MainWindow")
    assert any({"desktop.study_flow", "desktop.main_window"} <= set(g) for g in _cycles(graph, *PACKAGES))


def test_the_command_line_never_loads_qt_widgets(tmp_path: Path) -> None:
    """``playtrace run`` on a server: the command line plays and records without Qt's widgets."""
    code = (
        "import sys; from desktop.cli import main; "
        f"code = main(['run', '2048', '-p', 'random', '-n', '1', '--out', {str(tmp_path)!r}]); "
        "assert code == 0, code; "
        "loaded = [m for m in sys.modules if m.startswith('PySide6.QtWidgets')]; "
        "assert not loaded, loaded"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert any(tmp_path.iterdir())  # a session was recorded
