"""The timeline: a scrub slider over every step, the step label, transport buttons and the mode pill.

The timeline holds no game logic: it shows ``position`` of ``count`` steps and emits what the person
asked for; the controller decides what scrubbing, Step, Run and Pause mean.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QWidget,
)

from desktop import theme
from desktop.status import position_text

#: Speed choices: label -> seconds between automatic steps.
SPEEDS: tuple[tuple[str, float], ...] = (
    ("0.25×", 2.0),
    ("0.5×", 1.0),
    ("1×", 0.5),
    ("2×", 0.25),
    ("4×", 0.1),
    ("Max", 0.0),
)
DEFAULT_SPEED = 2


class JumpSlider(QSlider):
    """A slider whose track jumps to the clicked step (not a page of 10 towards it)."""

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            opt = QStyleOptionSlider()
            self.initStyleOption(opt)
            handle = self.style().subControlRect(
                QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderHandle, self
            )
            if not handle.contains(event.position().toPoint()):
                groove = self.style().subControlRect(
                    QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderGroove, self
                )
                span = max(1, groove.width() - handle.width())
                x = round(event.position().x()) - groove.x() - handle.width() // 2
                lo, hi = self.minimum(), self.maximum()
                self.setValue(QStyle.sliderValueFromPosition(lo, hi, x, span, opt.upsideDown))
                # Then let the press grab the handle, so a drag continues from the click.
        super().mousePressEvent(event)


class Timeline(QFrame):
    """Scrub slider + "Step k / N" + Step / Run / Pause + speed + Live/Replay indicator.

    Signals:
        sig_scrubbed(int): the person moved to step ``k`` (0 = the initial state).
        sig_step_requested(): play one step.
        sig_run_requested(): play automatically.
        sig_pause_requested(): stop after the current step.
        sig_speed_changed(float): new delay between automatic steps, in seconds.
        sig_live_requested(): jump back to the live head of the game.
    """

    sig_scrubbed = Signal(int)
    sig_step_requested = Signal()
    sig_run_requested = Signal()
    sig_pause_requested = Signal()
    sig_speed_changed = Signal(float)
    sig_live_requested = Signal()
    sig_play_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Card")
        self._count = 0
        self._base = 0
        self._live = False
        self._updating = False

        self.mode_pill = QLabel("Live")
        self.mode_pill.setObjectName("ModePill")
        self.mode_pill.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.mode_pill.setMinimumWidth(64)

        self.step_btn = QPushButton("Step")
        self.step_btn.setToolTip("Play one step (while paused)")
        self.run_btn = QPushButton("Run")
        self.run_btn.setObjectName("Primary")
        self.run_btn.setToolTip("Play automatically (Space)")
        self.pause_btn = QPushButton("Pause")
        self.pause_btn.setToolTip("Pause after the current step (Space)")
        # A recorded game plays back with one button (Space), at the speed the box beside it shows.
        self.play_btn = QPushButton("▶ Play")
        self.play_btn.setObjectName("Primary")
        self.play_btn.setToolTip("Play the recorded game step by step, or pause it (Space)")
        for btn in (self.step_btn, self.run_btn, self.pause_btn, self.play_btn):
            btn.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            btn.setMinimumWidth(64)
        self.play_btn.setMinimumWidth(self.play_btn.fontMetrics().horizontalAdvance("❚❚ Pause") + 28)
        self._replay = False

        self.slider = JumpSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 0)
        self.slider.setPageStep(10)
        self.slider.setAccessibleName("Timeline")
        self.slider.setToolTip("Scrub through the steps ([ and ], Home, End)")
        self.step_label = QLabel("Step 0 / 0")
        self.step_label.setObjectName("StepLabel")
        self.step_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

        self.live_btn = QPushButton("Go live")
        self.live_btn.setToolTip("Follow the game as it is played (End)")
        # Its space is kept while hidden: showing it must not move the slider under the pointer.
        policy = self.live_btn.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.live_btn.setSizePolicy(policy)
        self.live_btn.setVisible(False)

        self.speed_label = speed_label = QLabel("Speed")
        speed_label.setObjectName("Muted")
        self.speed = QComboBox()
        for label, delay in SPEEDS:
            self.speed.addItem(label, delay)
        self.speed.setCurrentIndex(DEFAULT_SPEED)
        self.speed.setToolTip("Delay between automatic steps")

        row = QHBoxLayout(self)
        row.setContentsMargins(12, 8, 12, 8)
        row.setSpacing(8)
        row.addWidget(self.mode_pill)
        row.addSpacing(4)
        row.addWidget(self.step_btn)
        row.addWidget(self.run_btn)
        row.addWidget(self.pause_btn)
        row.addWidget(self.play_btn)
        row.addSpacing(10)
        row.addWidget(self.slider, 1)
        row.addWidget(self.step_label)
        row.addWidget(self.live_btn)
        row.addSpacing(10)
        row.addWidget(speed_label)
        row.addWidget(self.speed)

        self.slider.valueChanged.connect(self._on_slider)
        self.step_btn.clicked.connect(self.sig_step_requested)
        self.run_btn.clicked.connect(self.sig_run_requested)
        self.pause_btn.clicked.connect(self.sig_pause_requested)
        self.live_btn.clicked.connect(self.sig_live_requested)
        self.play_btn.clicked.connect(self.sig_play_requested)
        self.speed.currentIndexChanged.connect(lambda _i: self.sig_speed_changed.emit(self.delay))
        # The pill is as wide as its widest text, so switching Live / Reviewing never moves the slider.
        widths = []
        for text in ("● Live", "Reviewing", "Replay", "Idle"):
            self.mode_pill.setText(text)
            widths.append(self.mode_pill.sizeHint().width())
        self.set_mode("idle")
        self._pill_width = max(widths)

    # -- state from the controller --------------------------------------------------------------

    @property
    def delay(self) -> float:
        return float(self.speed.currentData())

    @property
    def position(self) -> int:
        return self.slider.value()

    @property
    def count(self) -> int:
        return self._count

    def set_range(self, count: int, position: int, *, base: int = 0, live: bool = False) -> None:
        """Show ``count`` steps with the handle at ``position`` (without emitting ``sig_scrubbed``).

        ``base`` is the state index of the slider's first position (a fork's start); ``live`` says the
        last position is the live head of a game still being played (its decision is being made).
        """
        self._updating = True
        try:
            self._base = max(0, int(base))
            self._live = bool(live)
            self._count = max(0, count)
            self.slider.setRange(0, self._count)
            self.slider.setValue(max(0, min(position, self._count)))
        finally:
            self._updating = False
        self._update_label()

    def set_mode(self, mode: str, *, following: bool = True) -> None:
        """``mode`` is ``"live"``, ``"replay"`` or ``"idle"``; ``following`` = showing the live head."""
        if mode == "live" and following:
            text, bg, fg = "● Live", "#e6f4ea", theme.SUCCESS
        elif mode == "live":
            text, bg, fg = "Reviewing", theme.WARNING_BG, theme.WARNING_FG
        elif mode == "replay":
            text, bg, fg = "Replay", "#eef0f4", "#3d4452"
        else:
            text, bg, fg = "Idle", "#eef0f4", theme.MUTED
        self.mode_pill.setText(text)
        self.mode_pill.setStyleSheet(f"QLabel#ModePill {{ background: {bg}; color: {fg}; }}")
        self.mode_pill.setMinimumWidth(max(64, getattr(self, "_pill_width", 0)))
        self.live_btn.setVisible(mode == "live" and not following and not self._replay)
        self._mode = mode
        self._show_transport()

    def set_replay(self, available: bool, *, playing: bool = False, speed_index: int | None = None) -> None:
        """Whether a recorded game can be played back here (then Play / Pause and the speed box stand
        in for Step / Run / Pause), whether it plays, and the speed it plays at."""
        self._replay = available
        self.play_btn.setText("❚❚ Pause" if playing else "▶ Play")
        self.play_btn.setToolTip(
            ("Pause the playback (Space)" if playing else "Play the recorded game step by step (Space)")
            + (f" at {SPEEDS[speed_index][0]}" if speed_index is not None else "")
        )
        if speed_index is not None and speed_index != self.speed.currentIndex():
            self.speed.blockSignals(True)
            self.speed.setCurrentIndex(speed_index)
            self.speed.blockSignals(False)
        self._show_transport()

    @property
    def replay(self) -> bool:
        """Whether the controls play back a recorded game (else they steer a live one)."""
        return self._replay

    def _show_transport(self) -> None:
        mode = getattr(self, "_mode", "idle")
        live = mode == "live" and not self._replay
        for widget in (self.step_btn, self.run_btn, self.pause_btn):
            widget.setVisible(live)
        self.play_btn.setVisible(self._replay)
        for widget in (self.speed, self.speed_label):
            widget.setVisible(live or self._replay)
        if mode == "idle":
            self.step_label.setText("No game open")
        elif self.step_label.text() == "No game open":
            self._update_label()

    def set_transport(self, *, running: bool, can_step: bool, finished: bool) -> None:
        """Enable the transport buttons that make sense now."""
        self.run_btn.setEnabled(not running and not finished)
        self.pause_btn.setEnabled(running and not finished)
        self.step_btn.setEnabled(can_step and not finished)

    def show_delay(self, delay: float) -> None:
        """Select the speed matching ``delay`` (the game's actual pace) without emitting a change."""
        index = next((i for i, (_label, d) in enumerate(SPEEDS) if abs(d - delay) < 1e-9), -1)
        if index >= 0 and index != self.speed.currentIndex():
            self.speed.blockSignals(True)
            self.speed.setCurrentIndex(index)
            self.speed.blockSignals(False)

    # -- internals ------------------------------------------------------------------------------

    def _update_label(self) -> None:
        if getattr(self, "_mode", "") == "idle":
            self.step_label.setText("No game open")
            return
        # Step N is the decision made on the N-th board (see desktop.status.step_number).
        head = self._base + self._count
        self.step_label.setText(position_text(self._base + self.slider.value(), head, live=self._live))
        # As wide as its widest text for this many steps: the slider never moves as the label changes.
        metrics = self.step_label.fontMetrics()
        texts = (
            position_text(head - 1, head),
            position_text(head, head),
            position_text(head, head, live=True),
        )
        self.step_label.setMinimumWidth(max(metrics.horizontalAdvance(t) for t in texts) + 8)

    def _on_slider(self, value: int) -> None:
        self._update_label()
        if not self._updating:
            self.sig_scrubbed.emit(value)
