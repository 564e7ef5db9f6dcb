"""Annotation on a session the engine recorded: two annotators label the same steps (one in the app's
panel with the keyboard, one from the command line), agreement prints, the export holds every standing
annotation, and the session's events are byte-identical afterwards."""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.annotation_panel import AnnotationPanel, toggle_annotations
from desktop.cli import main
from sessions import annotations
from sessions.agreement import agreement
from sessions.errors import SessionError
from sessions.taxonomy import DEFAULT_TAXONOMY, parse_taxonomy
from tests.desktop.conftest import until
from tests.sessions.test_steps import Recording, record_sim_match


@pytest.fixture(scope="module")
def recorded(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Recording:
    return record_sim_match(tmp_path_factory.mktemp("ann"), "tictactoe", ["sim", "minimax"], seed=3,
                            wrong_ir_rate=0.5)


def digest(folder: Path) -> str:
    return hashlib.sha256((folder / "events.jsonl").read_bytes()).hexdigest()


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_two_annotators_label_the_same_steps_and_agreement_prints(
    window: Any, run: Callable[..., Any], recorded: Recording, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = Path(recorded.session.path)
    before = digest(folder)
    run(window.controller.open_session(folder))
    panel = toggle_annotations(window)
    assert isinstance(panel, AnnotationPanel) and window.annotation_dock.isVisible()
    panel.annotator.setText("ana")
    window.controller.scrub(1)
    assert panel.step == 1
    panel.setFocus()
    # Keyboard first: 1 toggles "misread the board", 2 "illegal move"; J goes to the next step.
    from pytestqt.qtbot import QtBot

    QtBot.keyClick(panel, Qt.Key.Key_1)
    QtBot.keyClick(panel, Qt.Key.Key_2)
    QtBot.keyClick(panel, Qt.Key.Key_2)  # and off again
    run(until(lambda: not panel.pending, what="the labels to be written"))
    QtBot.keyClick(panel, Qt.Key.Key_J)
    assert panel.step == 2
    QtBot.keyClick(panel, Qt.Key.Key_6)
    QtBot.keyClick(panel, Qt.Key.Key_N)
    assert panel.note.hasFocus() or QApplication.focusWidget() is panel.note
    panel.note.setPlainText("blocks the wrong diagonal")
    QtBot.keyClick(panel.note, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # as the box says
    assert panel.note.toPlainText() == "blocks the wrong diagonal"  # saved, not given a line break
    run(until(lambda: not panel.pending, what="the note to be written"))
    standing = annotations.label_sets(annotations.load(folder))
    assert standing[("ana", 1, None)] == {"misread_board"}
    assert standing[("ana", 2, None)] == {"lost_goal"}
    assert annotations.notes(annotations.load(folder))[("ana", 2, None)] == "blocks the wrong diagonal"

    # The second annotator works from the command line on the same steps.
    assert cli(capsys, "annotations", "label", str(folder), "--step", "1", "--labels", "misread_board",
               "--annotator", "ben")[0] == 0
    assert cli(capsys, "annotations", "label", str(folder), "--step", "2", "--labels", "",
               "--annotator", "ben")[0] == 0
    code, out, _ = cli(capsys, "annotations", "agreement", str(folder))
    assert code == 0
    assert "Krippendorff" in out and "2 steps labelled by two or more of: ana, ben" in out
    assert "misread_board" in out and "overall" in out
    code, out, _ = cli(capsys, "annotations", "agreement", str(folder), "--json")
    data = json.loads(out)
    by_label = {row["label"]: row for row in data["labels"]}
    assert by_label["misread_board"]["observed"] == 1.0 and by_label["misread_board"]["positives"] == 2
    assert by_label["lost_goal"]["observed"] == 0.5

    # The panel shows what the others said about the step.
    panel.reload()
    window.controller.scrub(1)
    assert "ben: misread_board" in panel.others.text()
    assert digest(folder) == before


def test_export_writes_every_standing_annotation(
    recorded: Recording, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = Path(recorded.session.path)
    before = digest(folder)
    annotations.add(folder, "cara", annotations.LABEL, 3, labels=["illegal_move"])
    annotations.add(folder, "cara", annotations.LABEL, 3, labels=["illegal_move", "lost_goal"])  # supersedes
    annotations.add(folder, "cara", annotations.DISPUTE, 3, seat=0, key=1, question="threats",
                    verdict="FN", comment="the checker missed the fork")
    out_csv = tmp_path / "out" / "annotations.csv"
    code, out, _ = cli(capsys, "annotations", "export", str(folder.parent), "--out", str(out_csv))
    assert code == 0 and "annotations written" in out
    with out_csv.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    cara = [r for r in rows if r["annotator"] == "cara"]
    assert {(r["kind"], r["labels"]) for r in cara} == {("label", "illegal_move;lost_goal"), ("dispute", "")}
    assert all(r["session"] == folder.name and r["game"] == "tictactoe" for r in rows)
    assert digest(folder) == before


def test_agreement_is_krippendorffs_alpha_over_shared_steps() -> None:
    sets = {
        ("a", 1, None): frozenset({"x"}), ("b", 1, None): frozenset({"x"}),
        ("a", 2, None): frozenset(), ("b", 2, None): frozenset({"x"}),
        ("a", 3, None): frozenset({"x"}), ("b", 3, None): frozenset({"x"}),
        ("a", 4, None): frozenset(), ("b", 4, None): frozenset(),
        ("a", 5, None): frozenset({"y"}),  # only one annotator: not a unit
    }
    result = agreement([("s", sets)], ["x", "y"])
    assert result.units == 4 and result.annotators == ("a", "b")
    x = result.labels[0]
    # Nominal alpha for pairs (1,1), (0,1), (1,1), (0,0): 1 - (n-1) * D_o / D_e = 1 - 7 * 2/8 / (2*5*3/8/... )
    assert x.alpha == pytest.approx(0.5333, abs=1e-3)
    assert x.observed == 0.75
    assert result.labels[1].alpha is None  # nobody used "y" on a shared step: nothing to disagree about


def test_taxonomy_files_are_checked() -> None:
    labels = parse_taxonomy('[[label]]\nkey = "missed_threat"\ntitle = "Missed a threat"\n')
    assert labels[0].key == "missed_threat"
    with pytest.raises(SessionError, match="label 2 \\(line 4\\).*used twice"):
        parse_taxonomy('[[label]]\nkey = "a"\ntitle = "A"\n[[label]]\nkey = "a"\ntitle = "B"\n', "t.toml")
    with pytest.raises(SessionError, match="short lowercase word"):
        parse_taxonomy('[[label]]\nkey = "Bad Key"\ntitle = "A"\n')
    with pytest.raises(SessionError, match="not a valid TOML"):
        parse_taxonomy("[[label]\n")
    assert [label.key for label in DEFAULT_TAXONOMY][:3] == ["misread_board", "illegal_move",
                                                              "rule_misunderstanding"]


def test_label_command_refuses_unknown_labels_and_non_sessions(
    recorded: Recording, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(capsys, "annotations", "label", str(recorded.session.path), "--step", "1",
                       "--labels", "nonsense", "--annotator", "ana")
    assert code == 2 and "unknown label(s) nonsense" in err
    code, _, err = cli(capsys, "annotations", "label", str(tmp_path), "--step", "1", "--labels", "",
                       "--annotator", "ana")
    assert code == 2 and "not a session folder" in err
    code, _, err = cli(capsys, "annotations", "agreement", str(tmp_path))
    assert code == 1 and "nothing to compare" in err
