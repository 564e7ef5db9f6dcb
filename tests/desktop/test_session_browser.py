"""The session browser lists newest first (with a matching arrow) and deletes a session after asking."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QMessageBox, QTableWidget

from desktop import theme
from desktop.session_browser import SessionBrowser
from sessions import SessionWriter

#: The creation time of the newest of the three sessions the tests list.
NEWEST = "2026-03-04T09:00:00"
PLAYERS = [
    {"seat": 0, "spec": "human", "kind": "human", "label": "You"},
    {"seat": 1, "spec": "minimax", "kind": "bot", "label": "Minimax"},
]


def _session(root: Path, created_at: str) -> Path:
    writer = SessionWriter.create(root, game="tictactoe", players=PLAYERS, seed=1, options={})
    writer.update_manifest(created_at=created_at)
    writer.close(status="completed")
    return writer.path


@pytest.fixture
def sessions_root(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    for stamp in ("2026-01-02T09:00:00", NEWEST, "2026-02-03T09:00:00"):
        _session(root, stamp)
    return root


def _browser(qtbot: Any, root: Path, **kw: Any) -> SessionBrowser:
    browser = SessionBrowser(root, **kw)
    qtbot.addWidget(browser)
    browser.load_now()
    browser.show()
    return browser


def _dates(browser: SessionBrowser) -> list[str]:
    return [browser.proxy.index(r, 0).data() for r in range(browser.proxy.rowCount())]


def test_newest_first_with_a_descending_indicator(qtbot: Any, sessions_root: Path) -> None:
    browser = _browser(qtbot, sessions_root)
    assert _dates(browser) == ["2026-03-04 09:00", "2026-02-03 09:00", "2026-01-02 09:00"]
    header = browser.table.horizontalHeader()
    assert header.sortIndicatorSection() == 0
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder


def _arrow_rows(order: Qt.SortOrder) -> list[int]:
    """Widths (in pixels) of the sort arrow's rows, top to bottom, in a header with no text."""
    table = QTableWidget(1, 1)
    table.setHorizontalHeaderLabels([""])
    table.setSortingEnabled(True)
    table.sortByColumn(0, order)
    table.resize(200, 80)
    table.show()
    QApplication.processEvents()
    image = table.horizontalHeader().grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    background = QColor(image.pixel(2, image.height() // 2))
    rows = []
    for y in range(2, image.height() - 3):  # skip the bottom border line
        dark = sum(
            1
            for x in range(image.width())
            if QColor(image.pixel(x, y)).lightness() < background.lightness() - 40
        )
        if dark:
            rows.append(dark)
    table.close()
    return rows


def test_sort_arrow_points_down_for_newest_first(qapp: QApplication) -> None:
    theme.apply(qapp)
    descending = _arrow_rows(Qt.SortOrder.DescendingOrder)
    ascending = _arrow_rows(Qt.SortOrder.AscendingOrder)
    assert len(descending) >= 2 and len(ascending) >= 2
    assert descending[0] > descending[-1], "descending order is drawn as ▼ (wide at the top)"
    assert ascending[0] < ascending[-1], "ascending order is drawn as ▲ (wide at the bottom)"


def test_delete_key_asks_then_removes_the_folder(qtbot: Any, sessions_root: Path) -> None:
    browser = _browser(qtbot, sessions_root)
    browser.table.selectRow(1)
    victim = browser.model.path_at(browser.selected_row() or 0)
    assert "2026-02-03" in browser.model.describe(browser.selected_row() or 0)

    qtbot.keyClick(browser.table, Qt.Key.Key_Delete)
    box = browser.confirm_box
    # The question is open without a nested event loop (we got here), and nothing is deleted yet.
    assert box is not None and box.isVisible()
    assert "Tic-tac-toe session of 2026-02-03 09:00" in box.text()
    assert victim.is_dir()

    # Cancel keeps the session.
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert victim.is_dir() and browser.model.rowCount() == 3

    box = browser.delete_selected()
    assert box is not None
    delete = next(b for b in box.buttons() if b.text() == "Delete")
    with qtbot.waitSignal(browser.sig_deleted) as deleted:
        delete.click()
    assert deleted.args == [victim]
    assert not victim.exists()
    assert browser.model.rowCount() == 2
    assert _dates(browser) == ["2026-03-04 09:00", "2026-01-02 09:00"]


def test_delete_button_refuses_the_session_in_use(qtbot: Any, sessions_root: Path) -> None:
    in_use = next(p for p in sessions_root.iterdir() if f'"{NEWEST}"' in (p / "manifest.json").read_text())
    browser = _browser(qtbot, sessions_root, in_use=lambda: in_use)
    browser.table.selectRow(0)
    assert browser.model.path_at(browser.selected_row() or 0) == in_use
    browser.sig_deleted.connect(lambda path: pytest.fail(f"{path} must not be deleted"))
    assert browser.delete_button.isEnabled()
    qtbot.mouseClick(browser.delete_button, Qt.MouseButton.LeftButton)
    box = browser.confirm_box
    assert box is not None and "open in the main window" in box.text()
    assert all(b.text() != "Delete" for b in box.buttons())
    assert browser.delete_session(in_use) is False
    assert in_use.is_dir() and browser.model.rowCount() == 3


def test_a_failed_export_is_reported_not_swallowed(qtbot: Any, sessions_root: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QFileDialog

    import sessions

    browser = _browser(qtbot, sessions_root)
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(tmp_path / "out.zip"), "")))

    def full_disk(src: Any, dest: Any) -> Path:
        raise OSError("No space left on device")

    monkeypatch.setattr(sessions, "export_zip", full_disk)
    browser.export_selected()
    box = browser.export_error_box
    assert box is not None and box.isVisible()
    assert "No space left on device" in box.text()
