"""The session list on sessions the engine recorded: an id column the filter matches, demo sessions
hidden by default, a damage badge for a session cut short, and importing a zip from the browser."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

import sessions
from desktop.episode import start_episode
from desktop.session_browser import COLUMNS, SessionBrowser
from tests.desktop.conftest import until

#: The badge a damaged session's Status cell carries.
DAMAGE_BADGE = "⚠ damaged"
STATUS_COLUMN = COLUMNS.index("Status")
ID_COLUMN = COLUMNS.index("ID") if "ID" in COLUMNS else -1


def record(root: Path, seed: int) -> Path:
    """A real tic-tac-toe game (random against minimax) recorded by the engine; returns its folder."""
    episode = start_episode("tictactoe", ["random", "minimax"], root=root, seed=seed)
    asyncio.run(episode.run())
    return episode.path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    for seed in (1, 2):
        record(root, seed)
    return root


def _folders(root: Path) -> set[str]:
    return {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")}


def _browser(qtbot: Any, root: Path) -> SessionBrowser:
    browser = SessionBrowser(root)
    qtbot.addWidget(browser)
    browser.load_now()
    browser.show()
    return browser


def _shown_ids(browser: SessionBrowser) -> list[str]:
    return [browser.proxy.index(r, ID_COLUMN).data() for r in range(browser.proxy.rowCount())]


def test_the_list_has_an_id_column_and_the_filter_matches_ids(qtbot: Any, root: Path) -> None:
    browser = _browser(qtbot, root)
    ids = sorted(p.name for p in root.iterdir() if p.is_dir())
    assert browser.model.headerData(ID_COLUMN, Qt.Orientation.Horizontal) == "ID"
    assert sorted(_shown_ids(browser)) == ids
    # The tail of an id, as `playtrace list` prints it, finds that session alone.
    wanted = ids[1]
    qtbot.keyClicks(browser.filter, wanted[-4:])
    assert _shown_ids(browser) == [wanted]
    assert browser.count_label.text() == "1 of 2 sessions"
    browser.filter.clear()
    assert len(_shown_ids(browser)) == 2


def test_import_a_zip_from_the_browser_off_the_ui_thread(
    qtbot: Any, root: Path, tmp_path: Path, run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "elsewhere"
    exported = sessions.export_zip(record(other, 5), tmp_path / "game.zip")
    before = _folders(root)
    browser = _browser(qtbot, root)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(exported), "")))
    threads: list[str] = []
    real_import = sessions.import_zip

    def watched(source: Any, dest: Any) -> Path:
        import threading

        threads.append(threading.current_thread().name)
        return real_import(source, dest)

    monkeypatch.setattr(sessions, "import_zip", watched)

    async def scenario() -> None:
        qtbot.mouseClick(browser.import_button, Qt.MouseButton.LeftButton)
        assert browser.import_button.isEnabled() is False  # running, and the window is free meanwhile
        await until(lambda: browser.model.rowCount() == 3, what="the imported session listed")

    run(scenario())
    assert threads and threads[0] != "MainThread"
    (imported,) = _folders(root) - before
    assert browser.model.path_at(browser.selected_row() or 0).name == imported  # listed and selected
    assert browser.message.text() == f"Imported game.zip as {imported}"
    assert browser.import_button.isEnabled()


@pytest.mark.parametrize("content", [None, b"this is not a zip archive\n" * 10])
def test_a_failed_import_is_one_line_under_the_table(
    qtbot: Any, root: Path, tmp_path: Path, content: bytes | None
) -> None:
    source = tmp_path / "broken.zip"
    if content is not None:
        source.write_bytes(content)
    browser = _browser(qtbot, root)
    browser.import_zip(source)  # no event loop here: it runs at once
    text = browser.message.text()
    assert text.startswith("Could not import broken.zip: ") and "\n" not in text
    assert "Traceback" not in text and browser.message.isVisible()
    assert browser.model.rowCount() == 2 and browser.import_button.isEnabled()


# -- demo sessions ----------------------------------------------------------------------------------


def test_demo_sessions_are_marked_and_hidden_until_asked_for(window: Any, run: Any, qtbot: Any) -> None:
    from sessions import Catalogue

    c = window.controller
    own = record(c.root, 7)  # a game of the person's own, in the same folder

    async def scenario() -> Path:
        await window.start_demo(latency=0, delay=0)
        return c.folder

    demo = run(scenario())
    listed = {s.path.name: s for s in Catalogue(c.root).list()}
    assert listed[demo.name].demo is True and listed[own.name].demo is False

    window.open_browser()
    browser = next(d for d in window._dialogs if isinstance(d, SessionBrowser))
    browser.load_now()
    assert _shown_ids(browser) == [own.name]
    assert "1 demo hidden" in browser.count_label.text()
    browser.show_demo.setChecked(True)
    assert sorted(_shown_ids(browser)) == sorted([own.name, demo.name])
    status = browser.proxy.index(_shown_ids(browser).index(demo.name), STATUS_COLUMN).data()
    assert "demo" in status
    browser.reject()


# -- damage -----------------------------------------------------------------------------------------


def test_a_session_cut_short_lists_with_a_damage_badge(qtbot: Any, root: Path) -> None:
    original = next(p for p in sorted(root.iterdir()) if p.is_dir())
    copy = root / f"{original.name}-cut"
    shutil.copytree(original, copy)
    events = (copy / "events.jsonl").read_bytes().splitlines(keepends=True)
    (copy / "events.jsonl").write_bytes(b"".join(events[: len(events) // 2]))

    browser = _browser(qtbot, root)
    rows = {browser.proxy.index(r, ID_COLUMN).data(): r for r in range(browser.proxy.rowCount())}
    damaged = browser.proxy.index(rows[copy.name], STATUS_COLUMN)
    healthy = browser.proxy.index(rows[original.name], STATUS_COLUMN)
    assert DAMAGE_BADGE in damaged.data() and DAMAGE_BADGE not in healthy.data()
    tip = damaged.data(Qt.ItemDataRole.ToolTipRole)
    assert "damaged" in tip and str(copy) in tip
    # The filter finds the damaged ones too.
    browser.filter.setText("damaged")
    assert [browser.proxy.index(r, ID_COLUMN).data() for r in range(browser.proxy.rowCount())] == [copy.name]
