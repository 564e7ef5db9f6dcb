"""The model panel's "Intermediate answers" section: each verified answer beside its truth, running
scores for the session, board marks for a selected answer, and disputes.

* Each row is one question of the step: the model's answer, the ground truth and a ✓ / ✗ /
  format-error badge (``–`` where the question does not apply).
* Selecting a row asks the board to mark the cells involved (``sig_marks``): the model's set and the
  truth, so a missed threat or a phantom win shows where it is.
* Below the table, the seat's running score per question over the session so far: accuracy, or F1
  for the rarely-positive questions (:func:`engine.questions.tally`), with format errors counted.
* *Dispute verdict…* lets an annotator mark a verdict as disputed with a comment; the window stores
  it as an annotation beside the session (:mod:`sessions.annotations`), never in its events.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop import inspector_format as fmt
from desktop.widgets import BAD_COLOR, MUTED_COLOR, OK_COLOR, AutoHeightTable, link_button, muted_label
from desktop.widgets import table_item as _item
from engine.agent.verify import questions_for
from engine.questions import tally
from sessions import annotations

__all__ = ["ChecksView", "DisputeDialog", "disputes_by_target", "session_scores_html", "session_tallies"]

#: The mark shown beside a verdict someone disputed.
DISPUTED = "⚑"


def _pct(value: Any) -> str:
    return "–" if value is None else f"{float(value):.2f}"


def session_scores_html(tallies: Sequence[Mapping[str, Any]]) -> str:
    """One line per question: its metric and score over the session so far, how often it was asked,
    and its format errors (rich text)."""
    lines = []
    for t in tallies:
        asked = int(t.get("asked") or 0)
        if not asked:
            name = fmt.esc(t.get("question"))
            lines.append(f"<span style='color:{MUTED_COLOR};'>{name}: not asked yet</span>")
            continue
        score = t.get("score")
        if score is None:
            color = MUTED_COLOR
        else:
            color = OK_COLOR if score >= 0.75 else BAD_COLOR if score < 0.5 else ""
        metric = "F1" if t.get("metric") == "f1" else "accuracy"
        value = f"<b style='color:{color};'>{_pct(score)}</b>" if color else f"<b>{_pct(score)}</b>"
        extra = f", {t['format_errors']} format error{'s' * (t['format_errors'] != 1)}" if t.get(
            "format_errors") else ""
        lines.append(f"{fmt.esc(t.get('question'))}: {metric} {value} "
                     f"<span style='color:{MUTED_COLOR};'>({asked} asked{extra})</span>")
    return "<br>".join(lines)


class DisputeDialog(QDialog):
    """Dispute one verdict: who disputes it and why."""

    def __init__(self, question: str, verdict: str, annotator: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Dispute verdict")
        self.setMinimumWidth(420)
        layout = QVBoxLayout(self)
        intro = QLabel(
            f"The verifier marked <b>{fmt.esc(question)}</b> as <b>{fmt.esc(verdict or '–')}</b>. "
            "Say why you disagree; the comment is stored beside the session and never changes its events."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.annotator = QLineEdit(annotator)
        self.annotator.setPlaceholderText("your annotator id, e.g. ana")
        self.comment = QPlainTextEdit()
        self.comment.setPlaceholderText("e.g. (2,0) also completes the column; the oracle missed it")
        self.comment.setMinimumHeight(90)
        form.addRow("Annotator", self.annotator)
        form.addRow("Comment", self.comment)
        layout.addLayout(form)
        choices = QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        self.buttons = QDialogButtonBox(choices)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Dispute")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.annotator.textChanged.connect(self._sync)
        self.comment.textChanged.connect(self._sync)
        self._sync()
        self.comment.setFocus()

    def _sync(self) -> None:
        ok = bool(self.annotator.text().strip()) and bool(self.comment.toPlainText().strip())
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)


class ChecksView(QWidget):
    """The verified intermediate answers of one step, with session scores and disputes.

    Signals:
        sig_marks(tuple, tuple): the selected row's answer items and truth items (both empty when no
            row is selected or the answer is not a set of cells).
        sig_dispute_requested(dict): a dispute to store: ``key``, ``question``, ``verdict``,
            ``comment``, ``annotator``, ``withdrawn``.
    """

    sig_marks = Signal(tuple, tuple)
    sig_dispute_requested = Signal(dict)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.table = AutoHeightTable(["Question", "Model", "Truth", ""], max_rows=32)
        self.table.setObjectName("VerificationTable")
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.table.setToolTip("Select an answer to mark its cells on the board: the model's and the truth")
        self.table.itemSelectionChanged.connect(self._on_select)
        layout.addWidget(self.table)
        self.empty = muted_label("No intermediate questions for this game yet")
        layout.addWidget(self.empty)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        self.legend = muted_label("")
        self.legend.setObjectName("MarksLegend")
        self.dispute_button = link_button(
            "Dispute verdict…", "Mark the selected verdict as disputed, with a comment (Ctrl+D)"
        )
        self.dispute_button.setObjectName("DisputeButton")
        self.dispute_button.clicked.connect(self.dispute_selected)
        row.addWidget(self.legend, 1)
        row.addWidget(self.dispute_button)
        layout.addLayout(row)
        self.session_label = QLabel()
        self.session_label.setObjectName("SessionScores")
        self.session_label.setTextFormat(Qt.TextFormat.RichText)
        self.session_label.setWordWrap(True)
        layout.addWidget(self.session_label)
        QShortcut(QKeySequence("Ctrl+D"), self, activated=self.dispute_selected,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self._rows: list[fmt.CheckRow] = []
        self._disputed: dict[int, Mapping[str, Any]] = {}
        self.can_dispute = False
        self.annotator = ""
        self._sync_buttons()

    # -- content --------------------------------------------------------------------------------

    def set_checks(
        self, rows: Sequence[fmt.CheckRow], disputed: Mapping[int, Mapping[str, Any]] | None = None
    ) -> None:
        """Show ``rows``; ``disputed`` maps question keys to their standing dispute."""
        selected = self.selected_row()
        self._rows = list(rows)
        self._disputed = dict(disputed or {})
        items = []
        for r in self._rows:
            color = MUTED_COLOR if r.correct is None else (OK_COLOR if r.correct else BAD_COLOR)
            dispute = self._disputed.get(r.key)
            mark = f"{r.mark} {DISPUTED}" if dispute else r.mark
            tip = r.tooltip
            if dispute:
                tip += f"\nDisputed by {dispute.get('annotator')}: {dispute.get('comment')}"
            items.append([
                _item(r.question, tip=tip),
                _item(r.answer),
                _item(r.truth),
                _item(mark, align=Qt.AlignmentFlag.AlignCenter, bold=True, color=color, tip=tip),
            ])
        self.table.blockSignals(True)
        self.table.set_rows(items)
        self.table.blockSignals(False)
        self.table.setVisible(bool(items))
        self.empty.setVisible(not items)
        keep = next((i for i, r in enumerate(self._rows) if selected and r.key == selected.key), None)
        if keep is not None:
            self.table.selectRow(keep)
        else:
            self.table.clearSelection()
        self._on_select()

    def set_session(self, tallies: Sequence[Mapping[str, Any]], who: str = "") -> None:
        """The running scores per question over the session up to the shown step."""
        body = session_scores_html(tallies)
        head = f"<b>Session so far{f' ({fmt.esc(who)})' if who else ''}</b><br>" if body else ""
        self.session_label.setText(head + body)
        self.session_label.setVisible(bool(body))

    def selected_row(self) -> fmt.CheckRow | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows or rows[0].row() >= len(self._rows):
            return None
        return self._rows[rows[0].row()]

    # -- interaction ----------------------------------------------------------------------------

    def _on_select(self) -> None:
        row = self.selected_row()
        answer, truth = (row.answer_items, row.truth_items) if row else ((), ())
        if row and (answer or truth):
            self.legend.setText("On the board: green = truth, blue = both, red = only the model")
        else:
            self.legend.setText("Select an answer to mark it on the board" if self._rows else "")
        self._sync_buttons()
        self.sig_marks.emit(tuple(answer), tuple(truth))

    def _sync_buttons(self) -> None:
        row = self.selected_row()
        self.dispute_button.setVisible(bool(self._rows))
        self.dispute_button.setEnabled(self.can_dispute and row is not None and row.correct is not None)
        if row is not None and row.key in self._disputed:
            self.dispute_button.setText("Withdraw dispute")
        else:
            self.dispute_button.setText("Dispute verdict…")

    def set_can_dispute(self, allowed: bool) -> None:
        """Disputes need a saved session (an annotation is stored beside it)."""
        self.can_dispute = allowed
        self._sync_buttons()

    def dispute_selected(self) -> DisputeDialog | None:
        """Open the dispute dialog for the selected row (or withdraw its standing dispute)."""
        row = self.selected_row()
        if row is None or not self.dispute_button.isEnabled():
            return None
        base = {"key": row.key, "question": row.question, "verdict": row.label}
        standing = self._disputed.get(row.key)
        if standing is not None:
            self.sig_dispute_requested.emit(
                {**base, "comment": "", "annotator": standing.get("annotator", self.annotator),
                 "withdrawn": True}
            )
            return None
        dialog = DisputeDialog(row.question, row.label, self.annotator, self)

        def done(result: int) -> None:
            if result == QDialog.DialogCode.Accepted:
                self.annotator = dialog.annotator.text().strip()
                self.sig_dispute_requested.emit({**base, "comment": dialog.comment.toPlainText().strip(),
                                                 "annotator": self.annotator, "withdrawn": False})

        dialog.finished.connect(done)
        dialog.open()
        return dialog


def session_tallies(
    game: Any, records: Sequence[Mapping[str, Any]], step: int, seat: int | None
) -> list[dict[str, Any]]:
    """Per question, ``seat``'s verified answers over the session's steps up to ``step`` (inclusive),
    aggregated under the question's metric (:func:`engine.questions.tally`)."""
    try:
        questions = questions_for(game) if game is not None else ()
    except Exception:  # a broken declaration: tally without the metrics it would give
        questions = ()
    checks = [
        r.get("data") or {}
        for r in records
        if r.get("type") == "verification" and r.get("seat") == seat and int(r.get("step") or 0) <= step
    ]
    if not checks:
        return []
    return [t.to_data() for t in tally(checks, questions).values()]


Disputes = dict[tuple[Any, Any], dict[int, Mapping[str, Any]]]


def disputes_by_target(items: Sequence[Mapping[str, Any]]) -> Disputes:
    """Standing disputes (:func:`sessions.annotations.current`) as ``{(step, seat): {key: dispute}}``."""
    out: Disputes = {}
    for (_who, step, seat, key), item in annotations.current(list(items)).items():
        if isinstance(key, int):
            out.setdefault((step, seat), {})[key] = item
    return out
