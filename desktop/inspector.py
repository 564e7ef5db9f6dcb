"""The model panel: every recorded fact of one decision, in one scrolling column.

:class:`InspectorPanel` shows the events of the current step (``engine/events.py``): the prompt as
sent, the streamed reasoning and answer, the parse chain, the checked intermediate answers, the
reflection, the memory window and the cost; live while a model works, with the held-decision controls.
The events are folded into a :class:`~sessions.steps.StepModel` (Qt-free) and worded by the pure
functions of :mod:`desktop.inspector_format`; this module only lays them out. Live events mark the
model dirty and a single-shot timer repaints at most every :data:`REPAINT_INTERVAL_MS`, never per token.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop import inspector_format as fmt
from desktop import theme
from desktop.checks_view import ChecksView
from desktop.widgets import (
    MUTED_COLOR,
    AutoHeightTable,
    ClickableThumbnail,
    CollapsibleSection,
    FoldingTextView,
    TextDialog,
    badge,
    link_button,
    muted_label,
    note_label,
    pill_style,
    rich_label,
)
from desktop.widgets import table_item as _item
from sessions.steps import Sample, SampleKey, StepModel

#: Live text is repainted at most this often (calibre uses the same 50 ms throttle).
REPAINT_INTERVAL_MS = 50

#: How many lines each long block shows before "Show all (N lines)": the column is the only thing that
#: scrolls, so a folded prompt keeps the reasoning below it in view at 1280x800.
PROMPT_FOLD_LINES = 6
REASONING_FOLD_LINES = 14
#: The description beside its image thumbnail: about the thumbnail's height.
PERCEPTION_FOLD_LINES = 4
ANSWER_FOLD_LINES = 8

Resolver = Callable[[str], "bytes | None"]

_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class InspectorPanel(QWidget):
    """The model panel beside the board: who plays, and every recorded fact of the current step.

    Signals are requests to the controller; the panel never changes a match itself.
    """

    sig_ask_requested = Signal()
    sig_reask_requested = Signal()
    sig_accept_requested = Signal()
    sig_override_requested = Signal(str)
    sig_take_over_requested = Signal()
    sig_hand_back_requested = Signal()
    sig_fork_requested = Signal()
    sig_cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("InspectorPanel")
        self.setMinimumWidth(380)
        self._players: dict[int, dict[str, Any]] = {}
        self._model = StepModel(None)
        #: Standing disputes by (step, seat), then question key (set by the window from the annotations).
        self.disputes: dict[tuple[int | None, int | None], dict[int, Mapping[str, Any]]] = {}
        self._resolve: Resolver = lambda ref: None
        self._selected: SampleKey | None = None
        self._follow_live = True
        self._structure_dirty = False
        self._text_dirty = False
        self._pending: dict[str, Any] | None = None
        #: Whether the session shown has ended (a replay): a call with no answer will never get one.
        self._ended = False
        self._image_cache: dict[str, bytes | None] = {}
        self.thumbnails: list[ClickableThumbnail] = []
        self.pills: list[QToolButton] = []
        self._pill_widgets: list[QWidget] = []
        self._pill_keys: list[SampleKey] = []

        self._repaint_timer = QTimer(self)
        self._repaint_timer.setSingleShot(True)
        self._repaint_timer.setInterval(REPAINT_INTERVAL_MS)
        self._repaint_timer.timeout.connect(self._flush)
        #: Set when the reader scrolls the column; live updates then leave the scroll position alone.
        self._user_scrolled = False
        self._scroll_top = False  # set by a new step: the next paint starts at the top of the column
        # Back to the top once a new step's sections are laid out (a child timer: it dies with the panel).
        self._top_timer = QTimer(self)
        self._top_timer.setSingleShot(True)
        self._top_timer.setInterval(0)
        self._top_timer.timeout.connect(self._settle_at_top)
        # Scrolling to the reasoning waits for the layout to place the sections that were just filled.
        self._reveal_timer = QTimer(self)
        self._reveal_timer.setSingleShot(True)
        self._reveal_timer.setInterval(0)
        self._reveal_timer.timeout.connect(self._scroll_to_reasoning)

        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 8, 8, 8)
        outer.setSpacing(6)
        outer.addWidget(self._build_header())
        outer.addWidget(self._build_step_bar())
        outer.addWidget(self._build_scroll(), 1)
        outer.addWidget(self._build_controls())
        self._build_shortcuts()
        self.set_controls(model_to_act=False, busy=False, pending=None, replay=False)
        self._render()

    # ---------------------------------------------------------------- construction

    def _build_header(self) -> QWidget:
        card = QFrame(self)
        card.setObjectName("Card")
        layout = QVBoxLayout(card)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(4)
        top = QHBoxLayout()
        top.setSpacing(8)
        self.game_label = QLabel("No game", card)
        self.game_label.setObjectName("InspectorTitle")
        font = self.game_label.font()
        font.setBold(True)
        font.setPointSizeF(max(font.pointSizeF(), 9.0) + 1.5)
        self.game_label.setFont(font)
        self.sim_badge = badge("SIMULATED MODEL — offline, no API calls", "#6b2fa0", parent=card)
        self.sim_badge.setObjectName("SimBadge")
        self.sim_badge.setToolTip("A seat is played by the simulated model: no network, no key, no cost.")
        self.sim_badge.setVisible(False)
        top.addWidget(self.game_label)
        top.addStretch(1)
        top.addWidget(self.sim_badge)
        layout.addLayout(top)
        self.players_label = QLabel(card)
        self.players_label.setObjectName("PlayersLabel")
        self.players_label.setTextFormat(Qt.TextFormat.RichText)
        self.players_label.setWordWrap(True)
        self.players_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.players_label)
        return card

    def _build_step_bar(self) -> QWidget:
        bar = QWidget(self)
        layout = QVBoxLayout(bar)
        layout.setContentsMargins(2, 0, 2, 0)
        layout.setSpacing(4)
        self.step_label = QLabel("No step selected", bar)
        self.step_label.setObjectName("StepTitle")
        self.step_label.setTextFormat(Qt.TextFormat.RichText)
        self.step_label.setWordWrap(True)
        layout.addWidget(self.step_label)
        self.pill_row = QWidget(bar)
        self.pill_layout = QHBoxLayout(self.pill_row)
        self.pill_layout.setContentsMargins(0, 0, 0, 0)
        self.pill_layout.setSpacing(4)
        self.pill_group = QButtonGroup(self)
        self.pill_group.setExclusive(True)
        self.pill_row.setVisible(False)
        layout.addWidget(self.pill_row)
        self.error_banner = note_label("error", bar)
        self.error_banner.setObjectName("ErrorBanner")
        self.error_banner.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.error_banner)
        self.notice_label = note_label("info", bar)
        self.notice_label.setObjectName("PanelNotice")
        layout.addWidget(self.notice_label)
        return bar

    def set_notice(self, text: str) -> None:
        """Show a note above the step (``""`` hides it): e.g. why another seat's records are hidden."""
        self.notice_label.setText(text)
        self.notice_label.setVisible(bool(text))

    def _build_scroll(self) -> QWidget:
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # The scroll bar's room is kept: a column that narrows when it starts to scroll would rewrap the
        # streamed text below its end, and the text views would stop following the stream.
        self.scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        content = QWidget(self.scroll)
        content.setObjectName("InspectorContent")
        self.content_layout = QVBoxLayout(content)
        self.content_layout.setContentsMargins(2, 0, 6, 0)
        self.content_layout.setSpacing(4)

        self.empty_label = QLabel("No events for this step yet.", content)
        self.empty_label.setStyleSheet(f"color: {MUTED_COLOR}; padding: 12px;")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.content_layout.addWidget(self.empty_label)

        # Outcome: who acted, what they chose and why, reward and score (model, bot and human alike).
        self.sec_outcome = self._section("Decision")
        self.outcome_label = self._rich_label(self.sec_outcome)
        self.values_table = AutoHeightTable(["Action", "Value"], max_rows=10)
        self.values_table.setToolTip("What the search bot computed for each legal action")
        self.sec_outcome.add(self.values_table)

        # The describe perception call: the image it was shown, its description and what it took.
        self.sec_perception = self._section("Perception (the board described by a model)")
        perception_row = QWidget()
        perception_layout = QHBoxLayout(perception_row)
        perception_layout.setContentsMargins(0, 0, 0, 0)
        perception_layout.setSpacing(6)
        self.perception_thumb_box = QWidget(perception_row)
        self.perception_thumb_layout = QVBoxLayout(self.perception_thumb_box)
        self.perception_thumb_layout.setContentsMargins(0, 0, 0, 0)
        self.perception_thumb_layout.addStretch(1)
        self.perception_thumb: ClickableThumbnail | None = None
        self.perception_view = FoldingTextView(
            monospace=True, fold_lines=PERCEPTION_FOLD_LINES, placeholder="Waiting for the description…"
        )
        self.perception_view.setObjectName("PerceptionView")
        perception_layout.addWidget(self.perception_thumb_box, 0, Qt.AlignmentFlag.AlignTop)
        perception_layout.addWidget(self.perception_view, 1, Qt.AlignmentFlag.AlignTop)
        self.sec_perception.add(perception_row)
        self.sec_perception.add(self.perception_view.fold_button)
        self.perception_label = self._rich_label(self.sec_perception)
        self.perception_label.setObjectName("PerceptionCall")

        self.sec_prompt = self._section("Prompt (exactly as sent)")
        # Images sit in a narrow column beside the text so the prompt does not get pushed down.
        prompt_row = QWidget()
        row_layout = QHBoxLayout(prompt_row)
        row_layout.setContentsMargins(0, 0, 0, 0)
        row_layout.setSpacing(6)
        self.thumb_row = QWidget(prompt_row)
        self.thumb_layout = QVBoxLayout(self.thumb_row)
        self.thumb_layout.setContentsMargins(0, 0, 0, 0)
        self.thumb_layout.setSpacing(6)
        self.thumb_layout.addStretch(1)
        self.prompt_view = FoldingTextView(
            monospace=True, fold_lines=PROMPT_FOLD_LINES, placeholder="No prompt recorded"
        )
        self.prompt_view.setObjectName("PromptView")
        self.full_prompt_button = link_button(
            "Open full prompt…", "Show the whole prompt, as sent, in a separate window", left_padding=8
        )
        self.full_prompt_button.setObjectName("FullPromptButton")
        self.full_prompt_button.clicked.connect(self.open_full_prompt)
        self.prompt_dialog: TextDialog | None = None
        row_layout.addWidget(self.thumb_row, 0, Qt.AlignmentFlag.AlignTop)
        row_layout.addWidget(self.prompt_view, 1, Qt.AlignmentFlag.AlignTop)
        self.sec_prompt.add(prompt_row)
        self.sec_prompt.add(self.prompt_view.fold_button)
        self.sec_prompt.add_header_widget(self.full_prompt_button)

        self.sec_reasoning = self._section("Reasoning")
        self.reasoning_view = self._text_view(
            self.sec_reasoning, "ReasoningView", REASONING_FOLD_LINES, "No reasoning yet"
        )
        self.sec_answer = self._section("Answer and parse chain")
        self.answer_view = self._text_view(
            self.sec_answer, "AnswerView", ANSWER_FOLD_LINES, "No answer yet", mono=True
        )
        self.parse_label = self._rich_label(self.sec_answer)
        self.parse_label.setObjectName("ParseChain")

        self.sec_verify = self._section("Intermediate answers")
        self.checks = ChecksView()
        self.verify_table = self.checks.table
        self.sec_verify.add(self.checks)

        self.sec_reflection = self._section("Reflection")
        self.reflection_view = self._text_view(
            self.sec_reflection, "ReflectionView", ANSWER_FOLD_LINES, "No reflection"
        )
        self.reflection_empty = self._muted_label(self.sec_reflection, "No reflection recorded")

        self.sec_memory = self._section("Memory window")
        self.memory_table = AutoHeightTable(["Step", "Action", "Reward"], stretch_column=1, max_rows=64)
        self.memory_table.setObjectName("MemoryTable")
        self.sec_memory.add(self.memory_table)
        self.memory_empty = self._muted_label(self.sec_memory, "Memory is empty (first step, or memory off)")

        self.sec_usage = self._section("Tokens, cost and timing")
        self.usage_label = self._rich_label(self.sec_usage)
        self.usage_label.setObjectName("UsageLabel")

        #: The sections shown only for a model's decision (a bot's or a person's has none of these).
        self._model_sections = [self.sec_perception, self.sec_prompt, self.sec_reasoning, self.sec_answer,
                                self.sec_verify,
                                self.sec_reflection, self.sec_memory, self.sec_usage]
        self._folding = [self.prompt_view, self.reasoning_view, self.answer_view, self.reflection_view,
                         self.perception_view]
        self.content_layout.addStretch(1)
        self.scroll.setWidget(content)
        # actionTriggered fires for the wheel, the keyboard and the scroll bar, never for setValue():
        # exactly the reader's own scrolling.
        self.scroll.verticalScrollBar().actionTriggered.connect(self._on_user_scroll)
        return self.scroll

    def _section(self, title: str) -> CollapsibleSection:
        section = CollapsibleSection(title)
        self.content_layout.addWidget(section)
        return section

    @staticmethod
    def _rich_label(section: CollapsibleSection) -> QLabel:
        return section.add(rich_label())

    @staticmethod
    def _text_view(
        section: CollapsibleSection, name: str, fold_lines: int, placeholder: str, *, mono: bool = False
    ) -> FoldingTextView:
        view = FoldingTextView(monospace=mono, fold_lines=fold_lines, placeholder=placeholder)
        view.setObjectName(name)
        section.add(view)
        section.add(view.fold_button)
        return view

    @staticmethod
    def _muted_label(section: CollapsibleSection, text: str) -> QLabel:
        return section.add(muted_label(text))

    def _build_controls(self) -> QWidget:
        box = QFrame(self)
        box.setObjectName("Card")
        layout = QVBoxLayout(box)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(6)

        row1 = QHBoxLayout()
        row1.setSpacing(6)
        self.ask_button = self._button(
            "Ask", "Ask the model for this step (Ctrl+Enter)", self.sig_ask_requested
        )
        self.ask_button.setObjectName("Primary")
        self.reask_button = self._button(
            "Re-ask", "Ask again at this step; earlier answers are kept as samples", self.sig_reask_requested
        )
        self.take_over_button = QPushButton("Take over", self)
        self.take_over_button.setCheckable(True)
        self.take_over_button.setToolTip("Play this seat yourself; click again to hand it back to the model")
        self.take_over_button.clicked.connect(self._on_take_over_clicked)
        self.fork_button = self._button(
            "Fork", "Start a new session from the state at this step", self.sig_fork_requested
        )
        self.cancel_button = self._button(
            "Cancel", "Stop the running model call (Esc)", self.sig_cancel_requested
        )
        for button in (self.ask_button, self.reask_button, self.take_over_button, self.fork_button):
            row1.addWidget(button)
        row1.addStretch(1)
        row1.addWidget(self.cancel_button)
        layout.addLayout(row1)

        row2 = QHBoxLayout()
        row2.setSpacing(6)
        self.held_label = QLabel("No decision held", self)
        self.held_label.setTextFormat(Qt.TextFormat.RichText)
        self.held_label.setStyleSheet(f"color: {MUTED_COLOR};")
        self.held_label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.override_combo = QComboBox(self)
        self.override_combo.setEditable(True)
        self.override_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.override_combo.setMinimumContentsLength(8)
        self.override_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.override_combo.setToolTip("Pick a legal action, or type one, to play instead of the model's")
        line_edit = self.override_combo.lineEdit()
        if line_edit is not None:
            line_edit.setPlaceholderText("action…")
            line_edit.returnPressed.connect(self._on_override_clicked)
        self.override_button = QPushButton("Override…", self)
        self.override_button.setToolTip("Play the action chosen in the picker instead of the held decision")
        self.override_button.clicked.connect(self._on_override_clicked)
        self.accept_button = self._button(
            "Accept", "Play the held model decision as it is", self.sig_accept_requested
        )
        row2.addWidget(self.held_label, 1)
        for widget in (self.override_combo, self.override_button, self.accept_button):
            row2.addWidget(widget)
        layout.addLayout(row2)
        return box

    def _button(self, text: str, tip: str, signal: Any) -> QPushButton:
        button = QPushButton(text, self)
        button.setToolTip(tip)
        button.clicked.connect(lambda _checked=False: signal.emit())
        return button

    def _build_shortcuts(self) -> None:
        # Window-wide so they work while the board has focus; each fires only when its button is enabled.
        self.ask_shortcuts = []
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(lambda: self.ask_button.isEnabled() and self.ask_button.click())
            self.ask_shortcuts.append(shortcut)
        self.cancel_shortcut = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        self.cancel_shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        self.cancel_shortcut.activated.connect(
            lambda: self.cancel_button.isEnabled() and self.cancel_button.click()
        )

    # ---------------------------------------------------------------- public API

    def set_header(self, info: Mapping[str, Any]) -> None:
        """Show the game, the players and each model seat's settings.

        Args:
            info: ``{"game": title, "players": [{"seat", "label", "kind", "spec"}],
                "harness": {seat: {...}}, "simulated": bool}``.
        """
        self.game_label.setText(str(info.get("game") or "Game"))
        self._players = {
            p["seat"]: dict(p) for p in info.get("players") or [] if isinstance(p.get("seat"), int)
        }
        self.players_label.setText(fmt.players_html(info))
        self.sim_badge.setVisible(fmt.header_simulated(info))
        self._render_step_title()

    def show_step(self, step: int, records: Sequence[Mapping[str, Any]], resolve: Resolver) -> None:
        """Show every event of ``step`` (all calls: re-asks are kept as samples).

        Args:
            step: The step index.
            records: Session-event dicts ``{"type", "step", "seat", "call", "data"}`` of that step.
            resolve: Turns an ``attachment://`` reference into PNG bytes (``None`` if missing).
        """
        self._repaint_timer.stop()
        self._resolve = resolve
        self._image_cache.clear()
        self._model = StepModel.from_records(step, records)
        self._selected = self._model.default_key()
        self._follow_live = True
        self._structure_dirty = self._text_dirty = False
        self._new_step()
        self._render()
        self._scroll_top = False
        self.scroll.verticalScrollBar().setValue(0)  # another step is read from its top
        # Again once the sections have their final heights (the layout runs after this call and could
        # leave the column a few pixels down, cutting its first line).
        self._top_timer.start()
        self._follow_reasoning()

    def _settle_at_top(self) -> None:
        sample = self.current_sample
        if not self._user_scrolled and not (sample is not None and sample.streaming):
            self.scroll.verticalScrollBar().setValue(0)

    def append_live(self, record: Mapping[str, Any]) -> None:
        """Add an event that arrived while the current step is being decided.

        Streamed ``model_delta`` text and new events are folded into the step at once, but painted
        by a single-shot timer at most every 50 ms.
        """
        step = record.get("step")
        if step is not None and step != self._model.step:
            late = self._model.step is not None and step < self._model.step
            if late and record.get("type") == "action_applied":
                return  # a late fact of an earlier step; the timeline shows it
            self._model = StepModel(step)
            self._selected = None
            self._follow_live = True
            self._image_cache.clear()
            self._new_step()
            self._structure_dirty = True
        if self._model.add(record):
            self._structure_dirty = True
        else:
            self._text_dirty = True
        if record.get("type") == "model_call_started" and self._follow_live:
            started = self._model.samples.get(self._model.latest) if self._model.latest else None
            if started is not None and len(started.started) == 1:
                self._user_scrolled = False  # a new attempt: follow it again, even after reading back
        # Follow the attempt that is being produced unless the reader picked another sample.
        latest = self._model.latest
        if self._follow_live and latest is not None and latest != self._selected:
            self._selected = latest
            self._structure_dirty = True
        if not self._repaint_timer.isActive():
            self._repaint_timer.start()

    def _new_step(self) -> None:
        """Another step: long blocks fold again and the column goes back to its top (at the next paint)."""
        self._user_scrolled = False
        self._reveal_timer.stop()
        self._scroll_top = True
        for view in self._folding:
            view.set_expanded(False)

    def set_controls(
        self,
        *,
        model_to_act: bool,
        busy: bool,
        pending: Mapping[str, Any] | None,
        replay: bool,
        can_fork: bool = True,
    ) -> None:
        """Enable the buttons that make sense now.

        Args:
            model_to_act: A model seat acts at this step (Ask and Re-ask are possible).
            busy: A model call is running (only Cancel and Take over stay available).
            pending: The held decision ``{"action", "seat", "call", "legal"}`` awaiting Accept/Override.
            replay: The step is in a finished or loaded session (Fork and Re-ask make new branches).
            can_fork: There is a session step to fork from (not while nothing is open).
        """
        before = self._pending
        self._pending = dict(pending) if pending else None
        ended_before, self._ended = self._ended, replay
        held = self._pending is not None
        self.ask_button.setEnabled(model_to_act and not busy and not held and not replay)
        self.reask_button.setEnabled(not busy and (model_to_act or held))
        self.accept_button.setEnabled(held and not busy)
        self.override_button.setEnabled(held and not busy)
        self.override_combo.setEnabled(held and not busy)
        self.take_over_button.setEnabled(
            not replay and (model_to_act or held or busy or self.take_over_button.isChecked())
        )
        self.fork_button.setEnabled(can_fork and not busy)
        self.cancel_button.setEnabled(busy)
        self._sync_override_choices(before)
        self.held_label.setStyleSheet(f"color: {theme.TEXT if held else MUTED_COLOR};")
        self.held_label.setText(fmt.held_html(self._pending, self._players))
        if before != self._pending or ended_before != self._ended:  # called often: repaint only on change
            self._render_outcome(self.current_sample)

    def _sync_override_choices(self, before: Mapping[str, Any] | None) -> None:
        """The override picker lists the legal actions of the held decision only, and starts empty at
        each new one: a choice typed for an earlier decision (step, session, game) is never played."""
        pending = self._pending
        legal = [str(a) for a in (pending or {}).get("legal") or []]
        same = pending is not None and before is not None and fmt.same_decision(before, pending)
        combo = self.override_combo
        current = combo.currentText() if same else ""
        if same and [combo.itemText(i) for i in range(combo.count())] == legal:
            return  # the window calls this often: the reader's choice stays while the decision is held
        combo.blockSignals(True)
        combo.clear()
        combo.addItems(legal)
        combo.setCurrentIndex(legal.index(current) if current in legal else -1)
        combo.setEditText(current if current in legal else "")
        combo.blockSignals(False)

    def set_taken_over(self, taken_over: bool) -> None:
        """Sync the Take over / Hand back toggle with the controller (no signal is emitted)."""
        self.take_over_button.blockSignals(True)
        self.take_over_button.setChecked(taken_over)
        self.take_over_button.blockSignals(False)
        self._sync_take_over_text()

    @property
    def current_sample(self) -> Sample | None:
        """The sample shown now."""
        return self._model.samples.get(self._selected) if self._selected is not None else None

    @property
    def step_model(self) -> StepModel:
        """The events of the step shown, grouped into samples."""
        return self._model

    # ---------------------------------------------------------------- slots

    def _on_take_over_clicked(self, checked: bool) -> None:
        self._sync_take_over_text()
        if checked:
            self.sig_take_over_requested.emit()
        else:
            self.sig_hand_back_requested.emit()

    def _sync_take_over_text(self) -> None:
        taken = self.take_over_button.isChecked()
        self.take_over_button.setText("Hand back" if taken else "Take over")
        back = "Play this seat yourself; click again to hand it back"
        self.take_over_button.setToolTip("Give this seat back to the model" if taken else back)

    def _on_override_clicked(self) -> None:
        if not self.override_button.isEnabled():
            return
        action = self.override_combo.currentText().strip()
        if not action:
            self.override_combo.setFocus()
            self.override_combo.showPopup()
            return
        self.sig_override_requested.emit(action)

    def _on_pill(self, key: SampleKey) -> None:
        self._selected = key
        samples = self._model.ordered()
        self._follow_live = bool(samples) and samples[-1].key == key
        self._render()

    def _flush(self) -> None:
        """The throttled repaint: rebuild sections if events arrived, else only extend live text."""
        if self._structure_dirty:
            self._structure_dirty = self._text_dirty = False
            self._render()
            if self._scroll_top:
                self._scroll_top = False
                self.scroll.verticalScrollBar().setValue(0)
        elif self._text_dirty:
            self._text_dirty = False
            self._render_live_text()
        else:
            return
        self._follow_reasoning()

    def _on_user_scroll(self, _action: int) -> None:
        self._user_scrolled = True

    def _follow_reasoning(self) -> None:
        """While the followed attempt streams, keep its Reasoning section in view (unless the reader
        scrolled): that is what a person watches, and the prompt above it is long."""
        sample = self.current_sample
        if self._follow_live and not self._user_scrolled and sample is not None and sample.streaming:
            self._reveal_timer.start()

    def _scroll_to_reasoning(self) -> None:
        sample = self.current_sample
        if self._user_scrolled or not self.sec_reasoning.isVisible() or not (sample and sample.streaming):
            return
        # The whole section when it fits, else the end of the text being streamed.
        content = self.scroll.widget()
        top = self.sec_reasoning.mapTo(content, self.sec_reasoning.rect().topLeft()).y()
        view = self.reasoning_view
        bottom = view.mapTo(content, view.rect().bottomLeft()).y()
        height = self.scroll.viewport().height()
        bar = self.scroll.verticalScrollBar()
        if bottom - top + 12 <= height:
            self.scroll.ensureWidgetVisible(self.sec_reasoning, 0, 6)
        else:
            bar.setValue(min(bar.maximum(), bottom + 6 - height))

    def open_full_prompt(self) -> TextDialog | None:
        """Open the shown prompt at full size in its own window (non-modal: the match keeps running)."""
        text = self.prompt_view.text()
        if not text:
            return None
        title = fmt.prompt_window_title(self._model, self.current_sample, self._players)
        dialog = self.prompt_dialog
        if dialog is None:  # one prompt window, showing the latest prompt asked for
            dialog = TextDialog(text, title, self.window())
            dialog.destroyed.connect(self._forget_prompt_dialog)
            self.prompt_dialog = dialog
        else:
            dialog.set_text(text, title)
        dialog.show()
        dialog.raise_()
        return dialog

    def _forget_prompt_dialog(self) -> None:
        self.prompt_dialog = None

    # ---------------------------------------------------------------- rendering

    def _render(self) -> None:
        model = self._model
        samples = model.ordered()
        if self._selected not in model.samples:
            self._selected = self._model.default_key()
        sample = self.current_sample
        self._render_step_title()
        self._render_pills()
        errors = fmt.errors_html(model, sample)
        self.error_banner.setText(errors)
        self.error_banner.setVisible(bool(errors))

        has_anything = bool(samples or model.applied or model.turn)
        is_model = bool(sample and sample.is_model)
        self.empty_label.setVisible(not has_anything)
        self.sec_outcome.setVisible(has_anything)
        for section in self._model_sections:
            section.setVisible(is_model)
        self._render_outcome(sample)
        if is_model and sample is not None:
            if sample.streaming and self._follow_live:
                for view in self._folding[1:]:  # the text being produced is followed to its end
                    view.set_expanded(True)
            self._render_perception(sample)
            self._render_prompt(sample)
            self._render_live_text()
            self.parse_label.setText(fmt.parse_chain_html(model, sample))
            self.sec_answer.set_summary(fmt.parse_summary(sample))
            self._render_checks(sample)
            self._render_reflection_memory(sample)
            self.usage_label.setText(fmt.usage_html(sample))
            self.sec_usage.set_summary(fmt.usage_summary(sample))

    def _render_step_title(self) -> None:
        self.step_label.setText(fmt.step_title_html(self._model, self.current_sample, self._players))

    def _render_pills(self) -> None:
        specs = fmt.pills(self._model, self._players)
        # Rebuild only when the set of samples or their labels changed (live events arrive often).
        # Keys stay on the Python side: a tuple holding None stored as a Qt property is not safe to read back.
        if [(p.key, p.text) for p in specs] != list(
            zip(self._pill_keys, (p.text() for p in self.pills), strict=False)
        ):
            for widget in self._pill_widgets:
                widget.hide()
                widget.deleteLater()
            for pill in self.pills:
                self.pill_group.removeButton(pill)
            self.pills, self._pill_widgets, self._pill_keys = [], [], []
            while self.pill_layout.count():
                self.pill_layout.takeAt(0)
            if specs:
                label = QLabel("Samples:", self.pill_row)
                label.setStyleSheet(f"color: {MUTED_COLOR};")
                self.pill_layout.addWidget(label)
                self._pill_widgets.append(label)
                for spec in specs:
                    pill = QToolButton(self.pill_row)
                    pill.setObjectName("SamplePill")
                    pill.setText(spec.text)
                    pill.setCheckable(True)
                    # No bold when checked: the size hint is for the normal weight, bold text would clip.
                    pill.setStyleSheet(pill_style())
                    pill.clicked.connect(lambda _c=False, key=spec.key: self._on_pill(key))
                    self.pill_group.addButton(pill)
                    self.pill_layout.addWidget(pill)
                    self.pills.append(pill)
                    self._pill_keys.append(spec.key)
                    self._pill_widgets.append(pill)
                self.pill_layout.addStretch(1)
        for pill, spec in zip(self.pills, specs, strict=False):
            pill.setChecked(spec.key == self._selected)
            pill.setToolTip(spec.tooltip)
        self.pill_row.setVisible(bool(specs))

    def _render_outcome(self, sample: Sample | None) -> None:
        html = fmt.outcome_html(self._model, sample, self._players, self._pending, ended=self._ended)
        self.outcome_label.setText(html)
        color = theme.ACCENT_DARK
        rows = [
            [_item(r.action, bold=r.chosen, color=color if r.chosen else ""),
             _item(r.value, align=_RIGHT, bold=r.chosen, color=color if r.chosen else "")]
            for r in fmt.value_rows(sample)
        ]
        self._fill(self.values_table, rows)
        self.sec_outcome.set_summary(fmt.outcome_summary(sample))

    @staticmethod
    def _fill(table: AutoHeightTable, rows: list[list[Any]], empty: QLabel | None = None) -> None:
        table.set_rows(rows)
        table.setVisible(bool(rows))
        if empty is not None:
            empty.setVisible(not rows)

    def _render_prompt(self, sample: Sample) -> None:
        text = fmt.prompt_text(sample)
        self.prompt_view.set_text(text)
        self.full_prompt_button.setEnabled(bool(text))
        for thumb in self.thumbnails:
            self.thumb_layout.removeWidget(thumb)
            thumb.deleteLater()
        self.thumbnails = []
        for index, ref in enumerate(sample.images):
            title = f"Image {index + 1} sent to the model"
            thumb = ClickableThumbnail(self._image_bytes(ref), title, size=88)
            self.thumb_layout.insertWidget(index, thumb)
            self.thumbnails.append(thumb)
        self.thumb_row.setVisible(bool(self.thumbnails))
        self.sec_prompt.setToolTip(fmt.prompt_tooltip(sample))
        self.sec_prompt.set_summary(fmt.prompt_summary(sample))

    def _render_perception(self, sample: Sample) -> None:
        described = sample.perception is not None or any(
            c.get("purpose") == "perception" for c in sample.started)
        self.sec_perception.setVisible(described)
        if not described:
            return
        self.perception_view.set_text(sample.description)
        ref = (sample.perception or {}).get("image")
        if self.perception_thumb is not None:
            self.perception_thumb_layout.removeWidget(self.perception_thumb)
            self.perception_thumb.deleteLater()
            self.perception_thumb = None
        if ref is not None:
            self.perception_thumb = ClickableThumbnail(
                self._image_bytes(ref), "The image the perception model described", size=72)
            self.perception_thumb_layout.insertWidget(0, self.perception_thumb)
        self.perception_thumb_box.setVisible(self.perception_thumb is not None)
        self.perception_label.setText(fmt.perception_html(sample))
        self.sec_perception.set_summary(fmt.perception_summary(sample))

    def _image_bytes(self, ref: Any) -> bytes | None:
        if isinstance(ref, (bytes, bytearray)):
            return bytes(ref)
        data = getattr(ref, "data", None)  # an engine Blob in a live record
        if isinstance(data, (bytes, bytearray)):
            return bytes(data)
        key = str(ref)
        if key not in self._image_cache:
            try:
                self._image_cache[key] = self._resolve(key)
            except Exception:  # a missing or unreadable attachment must not break the panel
                self._image_cache[key] = None
        return self._image_cache[key]

    def _render_live_text(self) -> None:
        sample = self.current_sample
        if sample is None:
            return
        self.reasoning_view.set_text(sample.reasoning)
        self.answer_view.set_text(sample.answer)
        if sample.perception is None and sample.perception_live:
            self.perception_view.set_text(sample.perception_live)
        if sample.reflection is None and sample.reflection_live:
            self.reflection_view.set_text(sample.reflection_live)
            self.reflection_view.setVisible(True)
            self.reflection_empty.setVisible(False)
        self.sec_reasoning.set_summary(fmt.reasoning_summary(sample))
        if not sample.reasoning:
            self.reasoning_view.setPlaceholderText(fmt.reasoning_placeholder(sample))

    def _render_checks(self, sample: Sample) -> None:
        disputed = self.disputes.get((self._model.step, sample.seat), {})
        self.checks.set_checks(fmt.check_rows(sample), disputed)
        self.sec_verify.set_summary(fmt.checks_summary(sample))

    def _render_reflection_memory(self, sample: Sample) -> None:
        reflection = sample.reflection if sample.reflection is not None else sample.reflection_live
        self.reflection_view.set_text(reflection or "")
        self.reflection_view.setVisible(bool(reflection))
        self.reflection_empty.setVisible(not reflection)
        rows = [
            [_item(r.step), _item(r.action, tip=r.state), _item(r.reward, align=_RIGHT)]
            for r in fmt.memory_rows(sample)
        ]
        self._fill(self.memory_table, rows, self.memory_empty)
        self.sec_memory.set_summary(fmt.memory_summary(sample))
