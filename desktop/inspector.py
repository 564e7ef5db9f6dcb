"""The model panel: every recorded fact of one decision, in one scrolling column.

A model decision is a pipeline of recorded events (``engine/events.py``): the prompt exactly as sent,
the streamed reasoning and answer, the parse chain from raw text to the executed action, the
intermediate answers checked against ground truth, the reflection and memory window, and what the call
cost. :class:`InspectorPanel` shows exactly those events for the current step, live while a model
works, and the held-decision controls (accept, override, re-ask, take over, fork, cancel).

The events of a step are kept in a :class:`StepModel`, separate from the widgets (calibre's LLM panel
does the same): live events only update the model and mark it dirty, and a single-shot timer repaints
at most every :data:`REPAINT_INTERVAL_MS`, never once per token.

Run ``python -m desktop.inspector OUT.png`` to render the panel filled with a realistic tic-tac-toe step.
"""

from __future__ import annotations

import dataclasses
import html
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop import theme
from desktop.widgets import (
    BAD_COLOR,
    MUTED_COLOR,
    OK_COLOR,
    AutoHeightTable,
    AutoHeightTextView,
    ClickableThumbnail,
    CollapsibleSection,
    TextDialog,
)

#: Live text is repainted at most this often (calibre uses the same 50 ms throttle).
REPAINT_INTERVAL_MS = 50

#: The prompt box stays this short (about seven lines) so the streamed reasoning below it is in view at
#: 1280x800; the whole prompt is one click away ("Open full prompt…") and scrolls inside the box.
PROMPT_COMPACT_HEIGHT = 124

Resolver = Callable[[str], "bytes | None"]

#: A sample is identified by the seat that was asked and the call number of the attempt.
SampleKey = tuple["int | None", "int | None"]

_PARSE_TYPES = ("action_parsed", "action_unparsable", "action_illegal")
_MODEL_TYPES = frozenset(
    {
        "prompt_built",
        "model_call_started",
        "model_retry",
        "model_call_finished",
        "model_call_failed",
        "reasoning",
        "answer",
        "model_delta",
        *_PARSE_TYPES,
        "verification",
        "reflection",
        "memory",
    }
)


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=False)


def _short(text: str, limit: int = 90) -> str:
    """The end of a long raw answer (where models put their move), on one line."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else "…" + flat[-(limit - 1) :]


def _fmt_num(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}" if abs(value) >= 1e-3 or value == 0 else f"{value:.2e}"
    return str(value)


def _join_parts(parts: Sequence[str], live: str) -> str:
    texts = [p for p in (*parts, live) if p]
    if len(texts) <= 1:
        return texts[0] if texts else ""
    return "\n\n".join(t if i == 0 else f"── re-prompt {i + 1} ──\n{t}" for i, t in enumerate(texts))


def _colored(text: str, color: str, *, bold: bool = False) -> str:
    weight = "font-weight:600;" if bold else ""
    return f'<span style="color:{color};{weight}">{text}</span>'


# --------------------------------------------------------------------------------------------- model


@dataclasses.dataclass
class Sample:
    """The events of one decision attempt (one ``call`` of one seat) at a step."""

    seat: int | None
    call: int | None
    prompt: dict[str, Any] | None = None
    images: list[Any] = dataclasses.field(default_factory=list)
    #: Provider calls made for this attempt (the invalid-answer policy may re-prompt within one call).
    started: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    retries: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    finished: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    failures: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    #: Assembled texts, one per provider call, and the text still streaming in.
    reasoning_parts: list[str] = dataclasses.field(default_factory=list)
    reasoning_live: str = ""
    answer_parts: list[str] = dataclasses.field(default_factory=list)
    answer_live: str = ""
    attempts: list[tuple[str, dict[str, Any]]] = dataclasses.field(default_factory=list)
    verifications: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    reflection: str | None = None
    #: The reflection call's text while it streams (before the ``reflection`` event arrives).
    reflection_live: str = ""
    #: Re-ask prompts of the invalid-answer policy (the first prompt stays in ``prompt``).
    reasks: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    memory: list[dict[str, Any]] | None = None
    decision: dict[str, Any] | None = None
    override: dict[str, Any] | None = None
    errors: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    @property
    def key(self) -> SampleKey:
        return (self.seat, self.call)

    @property
    def reasoning(self) -> str:
        """All reasoning of this attempt, re-prompts separated, including what is still streaming."""
        return _join_parts(self.reasoning_parts, self.reasoning_live)

    @property
    def answer(self) -> str:
        """All raw answers of this attempt, re-prompts separated, including what is still streaming."""
        return _join_parts(self.answer_parts, self.answer_live)

    @property
    def is_model(self) -> bool:
        return (
            bool(
                self.prompt or self.started or self.reasoning or self.answer or self.attempts or self.failures
            )
            or (self.decision or {}).get("source") == "model"
        )

    @property
    def streaming(self) -> bool:
        return len(self.started) > len(self.finished) + len(self.failures)

    def usage(self) -> dict[str, float]:
        """Tokens, cost and latency summed over this attempt's provider calls."""
        total: dict[str, float] = {}
        for fin in self.finished:
            for key in ("input_tokens", "output_tokens", "reasoning_tokens", "latency_ms"):
                total[key] = total.get(key, 0) + float(fin.get(key) or 0)
            if fin.get("cost_usd") is not None:
                total["cost_usd"] = total.get("cost_usd", 0.0) + float(fin["cost_usd"])
        return total

    def chosen(self) -> str | None:
        """The action this sample settled on: its decision, else its last successfully parsed answer."""
        if self.decision and self.decision.get("action") is not None:
            return str(self.decision["action"])
        for kind, data in reversed(self.attempts):
            if kind == "action_parsed":
                return str(data.get("matched"))
        return None

    def failed(self) -> bool:
        return bool(self.failures) or (
            bool(self.attempts) and self.attempts[-1][0] != "action_parsed" and not self.streaming
        )


class StepModel:
    """All events of one step, grouped into samples (seat, call) plus step-wide facts."""

    def __init__(self, step: int | None) -> None:
        self.step = step
        self.samples: dict[SampleKey, Sample] = {}
        self.turn: dict[str, Any] | None = None
        self.applied: dict[str, Any] | None = None
        self.player_changes: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.finished: dict[str, Any] | None = None
        #: The sample that received the latest live event (the one to follow while streaming).
        self.latest: SampleKey | None = None

    def sample(self, seat: int | None, call: int | None) -> Sample:
        key = (seat, call)
        if key not in self.samples:
            self.samples[key] = Sample(seat, call)
        return self.samples[key]

    def add(self, record: Mapping[str, Any]) -> bool:
        """Fold one event in; returns whether the structure changed (not just streamed text)."""
        kind = str(record.get("type", ""))
        data = record.get("data") or {}
        seat, call = record.get("seat"), record.get("call")
        if kind == "turn_started":
            self.turn = dict(data)
            return True
        if kind == "action_applied":
            self.applied = dict(data)
            return True
        if kind == "player_changed":
            self.player_changes.append(dict(data))
            return True
        if kind == "session_finished":
            self.finished = dict(data)
            return True
        if kind == "error" and call is None:
            self.errors.append(dict(data))
            return True
        if kind not in _MODEL_TYPES and kind not in ("decision", "override", "error"):
            return False  # session_started and unknown types have nothing to show per step
        sample = self.sample(seat, call)
        self.latest = sample.key
        if kind == "model_delta":
            text = str(data.get("text", ""))
            if data.get("purpose") == "reflection":
                if data.get("kind") != "reasoning":
                    sample.reflection_live += text
            elif data.get("kind") == "reasoning":
                sample.reasoning_live += text
            else:
                sample.answer_live += text
            return False
        if kind == "prompt_built":
            if data.get("reask") and sample.prompt is not None:
                sample.reasks.append(dict(data))
                return True
            sample.prompt = dict(data)
            # ``images`` is a count in recorded prompts; a list of refs is accepted too.
            images = data.get("images")
            sample.images = list(images) if isinstance(images, (list, tuple)) else []
            if data.get("image") is not None:
                sample.images.insert(0, data["image"])
        elif kind == "model_call_started":
            sample.started.append(dict(data))
        elif kind == "model_retry":
            sample.retries.append(dict(data))
        elif kind == "model_call_finished":
            sample.finished.append(dict(data))
        elif kind == "model_call_failed":
            sample.failures.append(dict(data))
        elif kind == "reasoning":
            # The assembled text replaces what streamed in for this provider call.
            sample.reasoning_parts.append(str(data.get("text", "")))
            sample.reasoning_live = ""
        elif kind == "answer":
            sample.answer_parts.append(str(data.get("text", "")))
            sample.answer_live = ""
        elif kind in _PARSE_TYPES:
            sample.attempts.append((kind, dict(data)))
        elif kind == "verification":
            sample.verifications.append(dict(data))
        elif kind == "reflection":
            sample.reflection = str(data.get("text", ""))
            sample.reflection_live = ""
        elif kind == "memory":
            sample.memory = list(data.get("entries") or [])
        elif kind == "decision":
            sample.decision = dict(data)
        elif kind == "override":
            sample.override = dict(data)
        elif kind == "error":
            sample.errors.append(dict(data))
        return True

    def ordered(self) -> list[Sample]:
        """Samples in a stable order: by seat, then call."""
        return sorted(
            self.samples.values(), key=lambda s: (s.seat if s.seat is not None else -1, s.call or 0)
        )

    def decided(self) -> Sample | None:
        """The sample whose decision was executed (the last one with a decision)."""
        with_decision = [s for s in self.ordered() if s.decision is not None]
        return with_decision[-1] if with_decision else None


# ---------------------------------------------------------------------------------------------- view


_PILL_STYLE = (
    f"QToolButton {{ border: 1px solid {theme.BORDER}; border-radius: 10px; padding: 2px 10px;"
    f" background: {theme.PANEL}; }}"
    f"QToolButton:checked {{ background: {theme.ACCENT_SOFT}; border-color: {theme.ACCENT};"
    f" color: {theme.ACCENT_DARK}; }}"
)


def _player_line(player: Mapping[str, Any]) -> str:
    seat = player.get("seat", "?")
    label = _esc(player.get("label") or player.get("spec") or "player")
    kind = str(player.get("kind") or "")
    spec = str(player.get("spec") or "")
    if spec.startswith("sim") or player.get("simulated"):
        kind = "sim"
    bg, fg = theme.KIND_BADGES.get(kind, theme.KIND_BADGES["bot"])
    kind_html = (
        f'<span style="background:{bg}; color:{fg}; font-size:8pt; font-weight:600;">'
        f"&nbsp;{_esc(kind or '?')}&nbsp;</span>"
    )
    redundant = spec in ("", kind, player.get("label"))
    spec_html = "" if redundant else f' <span style="color:{MUTED_COLOR};">{_esc(spec)}</span>'

    return f"<b>{_esc(_seat_text(seat, player.get('seat_name')))}</b> · {label} {kind_html}{spec_html}"


def _seat_text(seat: Any, seat_name: Any = None) -> str:
    """``theme.seat_title`` for a recorded seat, which may be missing or not a number in odd sessions."""
    if isinstance(seat, int):
        return theme.seat_title(seat, str(seat_name) if seat_name else None)
    return f"Seat {seat}"


def _split_spec(spec: str) -> tuple[str, str]:
    """Provider and model from a player spec ("openai:gpt-4o", "local:qwen@http://…", "sim")."""
    if ":" not in spec:
        return (spec, "") if spec.startswith("sim") else ("", "")
    provider, rest = spec.split(":", 1)
    return provider, rest.split("@", 1)[0]


def harness_summary(spec: str, harness: Mapping[str, Any]) -> str:
    """A compact one-line description of a model seat's settings (shown under the player)."""
    provider = str(harness.get("provider") or _split_spec(spec)[0] or "?")
    model = str(harness.get("model") or _split_spec(spec)[1] or "")
    if model.startswith(f"{provider}:"):
        model = model[len(provider) + 1 :]
    # The simulated model reports itself as provider "sim", model "sim": say it once.
    parts = [f"{provider} · {model}" if model and model != provider else provider]
    parts.append(f"perception {harness.get('perception', 'text')}")
    memory = harness.get("memory", 10)
    parts.append(f"memory {memory}" if memory else "memory off")
    parts.append("reflection " + ("on" if harness.get("reflection", True) else "off"))
    if harness.get("thinking"):
        extra = harness.get("thinking_budget") or harness.get("effort")
        parts.append(f"thinking on{f' ({extra})' if extra else ''}")
    else:
        parts.append("thinking off")
    if harness.get("temperature") is not None:
        parts.append(f"T {_fmt_num(harness['temperature'])}")
    parts.append(f"prompt {harness.get('prompt_variant', 'default')}")
    policy = harness.get("invalid_policy") or {}
    if isinstance(policy, Mapping):
        parts.append(f"invalid: {policy.get('retries', 3)} retries → {policy.get('fallback', 'random')}")
    # Each setting stays on one line; wrapping happens only between settings.
    return " · ".join(_esc(p).replace(" ", "&nbsp;") for p in parts)


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
        self._header: dict[str, Any] = {}
        self._players: dict[int, dict[str, Any]] = {}
        self._model = StepModel(None)
        self._resolve: Resolver = lambda ref: None
        self._selected: SampleKey | None = None
        self._follow_live = True
        self._structure_dirty = False
        self._text_dirty = False
        self._pending: dict[str, Any] | None = None
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
        self.sim_badge = QLabel("SIMULATED MODEL — offline, no API calls", card)
        self.sim_badge.setObjectName("SimBadge")
        self.sim_badge.setStyleSheet(
            "QLabel { background: #6b2fa0; color: white; border-radius: 4px; padding: 2px 8px;"
            " font-weight: bold; font-size: 8pt; }"
        )
        self.sim_badge.setToolTip(
            "A seat is played by PlayTrace's simulated model: no network, no key, no cost."
        )
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
        self.error_banner = QLabel(bar)
        self.error_banner.setObjectName("ErrorBanner")
        self.error_banner.setWordWrap(True)
        self.error_banner.setTextFormat(Qt.TextFormat.RichText)
        self.error_banner.setStyleSheet(
            f"QLabel {{ background: #fdecea; color: {BAD_COLOR}; border: 1px solid #f5c2bd;"
            " border-radius: 6px; padding: 6px 8px; }"
        )
        self.error_banner.setVisible(False)
        layout.addWidget(self.error_banner)
        return bar

    def _build_scroll(self) -> QWidget:
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
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
        self.prompt_view = AutoHeightTextView(
            monospace=True,
            max_height=PROMPT_COMPACT_HEIGHT,
            placeholder="No prompt recorded",
            follow_tail=False,  # a prompt is read from the system prompt down
        )
        self.prompt_view.setObjectName("PromptView")
        self.full_prompt_button = QToolButton()
        self.full_prompt_button.setObjectName("FullPromptButton")
        self.full_prompt_button.setText("Open full prompt…")
        self.full_prompt_button.setToolTip("Show the whole prompt, as sent, in a separate window")
        self.full_prompt_button.setAutoRaise(True)
        self.full_prompt_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.full_prompt_button.setStyleSheet(
            f"QToolButton {{ color: {theme.ACCENT}; border: none; padding: 0px 0px 0px 8px; }}"
            f"QToolButton:hover {{ text-decoration: underline; }}"
            f"QToolButton:disabled {{ color: {MUTED_COLOR}; }}"
        )
        self.full_prompt_button.clicked.connect(self.open_full_prompt)
        self.prompt_dialog: TextDialog | None = None
        row_layout.addWidget(self.thumb_row, 0, Qt.AlignmentFlag.AlignTop)
        row_layout.addWidget(self.prompt_view, 1, Qt.AlignmentFlag.AlignTop)
        self.sec_prompt.add(prompt_row)
        self.sec_prompt.add_header_widget(self.full_prompt_button)

        self.sec_reasoning = self._section("Reasoning")
        self.reasoning_view = AutoHeightTextView(max_height=200, placeholder="No reasoning recorded")
        self.reasoning_view.setObjectName("ReasoningView")
        self.sec_reasoning.add(self.reasoning_view)

        self.sec_answer = self._section("Answer and parse chain")
        self.answer_view = AutoHeightTextView(monospace=True, max_height=140, placeholder="No answer yet")
        self.answer_view.setObjectName("AnswerView")
        self.sec_answer.add(self.answer_view)
        self.parse_label = self._rich_label(self.sec_answer)
        self.parse_label.setObjectName("ParseChain")

        self.sec_verify = self._section("Intermediate answers")
        self.verify_table = AutoHeightTable(["Question", "Model", "Truth", ""], max_rows=8)
        self.verify_table.setObjectName("VerificationTable")
        self.sec_verify.add(self.verify_table)
        self.verify_empty = QLabel("No intermediate questions for this game yet")
        self.verify_empty.setStyleSheet(f"color: {MUTED_COLOR};")
        self.sec_verify.add(self.verify_empty)

        self.sec_reflection = self._section("Reflection")
        self.reflection_view = AutoHeightTextView(max_height=140, placeholder="No reflection recorded")
        self.reflection_view.setObjectName("ReflectionView")
        self.sec_reflection.add(self.reflection_view)
        self.reflection_empty = QLabel("No reflection recorded")
        self.reflection_empty.setStyleSheet(f"color: {MUTED_COLOR};")
        self.sec_reflection.add(self.reflection_empty)

        self.sec_memory = self._section("Memory window")
        self.memory_table = AutoHeightTable(["Step", "Action", "Reward"], stretch_column=1, max_rows=8)
        self.memory_table.setObjectName("MemoryTable")
        self.sec_memory.add(self.memory_table)
        self.memory_empty = QLabel("Memory is empty (first step, or memory off)")
        self.memory_empty.setStyleSheet(f"color: {MUTED_COLOR};")
        self.sec_memory.add(self.memory_empty)

        self.sec_usage = self._section("Tokens, cost and timing")
        self.usage_label = self._rich_label(self.sec_usage)
        self.usage_label.setObjectName("UsageLabel")

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
        label = QLabel()
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        section.add(label)
        return label

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
        row2.addWidget(self.override_combo)
        row2.addWidget(self.override_button)
        row2.addWidget(self.accept_button)
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
        self._header = dict(info)
        self.game_label.setText(str(info.get("game") or "Game"))
        players = list(info.get("players") or [])
        self._players = {}
        harness: Mapping[Any, Any] = info.get("harness") or {}
        lines = []
        simulated = bool(info.get("simulated"))
        for player in players:
            seat = player.get("seat")
            if isinstance(seat, int):
                self._players[seat] = dict(player)
            spec = str(player.get("spec") or "")
            settings = harness.get(seat, harness.get(str(seat))) if harness else None
            simulated = (
                simulated
                or spec.startswith("sim")
                or bool(player.get("simulated"))
                or bool(isinstance(settings, Mapping) and settings.get("simulated"))
            )
            line = _player_line(player)
            if settings is not None or player.get("kind") == "model":
                line += (
                    f'<br><span style="color:{MUTED_COLOR}; font-size:8.5pt;">&nbsp;&nbsp;&nbsp;'
                    f"{harness_summary(spec, settings or {})}</span>"
                )
            lines.append(line)
        self.players_label.setText(
            "<br>".join(lines) if lines else f'<span style="color:{MUTED_COLOR};">No players</span>'
        )
        self.sim_badge.setVisible(simulated)
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
        self._model = StepModel(step)
        for record in records:
            self._model.add(record)
        self._selected = self._default_selection()
        self._follow_live = True
        self._structure_dirty = self._text_dirty = False
        self._user_scrolled = False
        self._render()
        self.scroll.verticalScrollBar().setValue(0)  # another step is read from its top
        self._follow_reasoning()

    def append_live(self, record: Mapping[str, Any]) -> None:
        """Add an event that arrived while the current step is being decided.

        Streamed ``model_delta`` text and new events are folded into the step at once, but painted
        by a single-shot timer at most every 50 ms.
        """
        step = record.get("step")
        if step is not None and step != self._model.step:
            if (
                self._model.step is not None
                and record.get("type") == "action_applied"
                and step < self._model.step
            ):
                return  # a late fact of an earlier step; the timeline shows it
            self._model = StepModel(step)
            self._selected = None
            self._follow_live = True
            self._user_scrolled = False
            self._image_cache.clear()
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
        if held:
            assert self._pending is not None
            legal = [str(a) for a in self._pending.get("legal") or []]
            current = self.override_combo.currentText()
            self.override_combo.blockSignals(True)
            self.override_combo.clear()
            self.override_combo.addItems(legal)
            keep = current if current in legal else ""
            self.override_combo.setCurrentIndex(legal.index(keep) if keep else -1)
            self.override_combo.setEditText(keep)
            self.override_combo.blockSignals(False)
            seat = self._pending.get("seat")
            who = f" from {self._seat_name(seat)}" if seat is not None else ""
            self.held_label.setText(f"Held{_esc(who)}: <b>{_esc(self._pending.get('action'))}</b>")
            self.held_label.setStyleSheet(f"color: {theme.TEXT};")
        else:
            self.held_label.setText("No decision held")
            self.held_label.setStyleSheet(f"color: {MUTED_COLOR};")
        if before != self._pending:  # the window calls this often; repaint the outcome only on change
            self._render_outcome(self.current_sample)

    def set_taken_over(self, taken_over: bool) -> None:
        """Sync the Take over / Hand back toggle with the controller (no signal is emitted)."""
        self.take_over_button.blockSignals(True)
        self.take_over_button.setChecked(taken_over)
        self.take_over_button.blockSignals(False)
        self._sync_take_over_text()

    def select_sample(self, index: int) -> None:
        """Show the ``index``-th sample (attempt) of the step, as a click on its pill does."""
        samples = self._model.ordered()
        if 0 <= index < len(samples):
            self._selected = samples[index].key
            self._follow_live = index == len(samples) - 1
            self._render()

    @property
    def current_sample(self) -> Sample | None:
        """The sample shown now."""
        return self._model.samples.get(self._selected) if self._selected is not None else None

    @property
    def step_model(self) -> StepModel:
        return self._model

    def _seat_name(self, seat: Any) -> str:
        """The seat as people see it, "Seat 1 (X)" (events carry it 0-based, as a number or a string)."""
        if isinstance(seat, str) and seat.isdigit():
            seat = int(seat)
        player = self._players.get(seat, {}) if isinstance(seat, int) else {}
        return _seat_text(seat, player.get("seat_name"))

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
        self.take_over_button.setToolTip(
            "Give this seat back to the model"
            if taken
            else "Play this seat yourself; click again to hand it back"
        )

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
        if self._user_scrolled or not self.sec_reasoning.isVisible():
            return
        self.scroll.ensureWidgetVisible(self.sec_reasoning, 0, 6)

    def open_full_prompt(self) -> TextDialog | None:
        """Open the shown prompt at full size in its own window (non-modal: the match keeps running)."""
        text = self.prompt_view.text()
        if not text:
            return None
        sample = self.current_sample
        where = f"Step {self._model.step}" if self._model.step is not None else "Prompt"
        if sample is not None and sample.seat is not None:
            where += f" · {self._seat_name(sample.seat)}"
        title = f"Prompt — {where}"
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

    def _default_selection(self) -> SampleKey | None:
        decided = self._model.decided()
        if decided is not None:
            return decided.key
        samples = self._model.ordered()
        return samples[-1].key if samples else None

    def _render(self) -> None:
        model = self._model
        samples = model.ordered()
        if self._selected not in model.samples:
            self._selected = self._default_selection()
        sample = self.current_sample
        self._render_step_title()
        self._render_pills(samples)
        self._render_errors(sample)

        has_anything = bool(samples or model.applied or model.turn)
        is_model = bool(sample and sample.is_model)
        self.empty_label.setVisible(not has_anything)
        self.sec_outcome.setVisible(has_anything)
        for section in (
            self.sec_prompt,
            self.sec_reasoning,
            self.sec_answer,
            self.sec_verify,
            self.sec_reflection,
            self.sec_memory,
            self.sec_usage,
        ):
            section.setVisible(is_model)
        self._render_outcome(sample)
        if is_model and sample is not None:
            self._render_prompt(sample)
            self._render_live_text()
            self._render_parse(sample)
            self._render_verification(sample)
            self._render_reflection_memory(sample)
            self._render_usage(sample)

    def _render_step_title(self) -> None:
        step = self._model.step
        if step is None:
            self.step_label.setText(f'<span style="color:{MUTED_COLOR};">No step selected</span>')
            return
        parts = [f"<b>Step {step}</b>"]
        sample = self.current_sample
        seat = sample.seat if sample is not None else None
        if seat is None and self._model.turn:
            seats = self._model.turn.get("seats") or []
            seat = seats[0] if len(seats) == 1 else None
        if seat is not None:
            player = self._players.get(seat, {})
            label = player.get("label") or player.get("spec") or ""
            parts.append(f"{_esc(self._seat_name(seat))}{' · ' + _esc(label) if label else ''}")
        if sample is not None and sample.streaming:
            parts.append(_colored("model working…", theme.ACCENT, bold=True))
        self.step_label.setText(" · ".join(parts))

    def _render_pills(self, samples: list[Sample]) -> None:
        shown = [s for s in samples if s.is_model] if len(samples) > 1 else []
        seats = {s.seat for s in shown}
        specs: list[tuple[SampleKey, str, str]] = []
        per_seat: dict[int | None, int] = {}
        decided = self._model.decided()
        for sample in shown:
            per_seat[sample.seat] = per_seat.get(sample.seat, 0) + 1
            chosen = sample.chosen()
            name = f"Sample {per_seat[sample.seat]}"
            if len(seats) > 1:
                name = f"{self._seat_name(sample.seat)} · {name}"
            played = decided is sample and self._model.applied is not None
            if chosen:
                text = f"{name} · {chosen}" + (" · played" if played else "")
            else:
                text = f"{name} …" if sample.streaming else f"{name} ✗"
            tip = f"Call {sample.call}" + (" — this answer was played" if played else "")
            specs.append((sample.key, text, tip))
        # Rebuild only when the set of samples or their labels changed (live events arrive often).
        # Keys stay on the Python side: a tuple holding None stored as a Qt property is not safe to read back.
        if [(k, t) for k, t, _ in specs] != list(
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
            if len(specs) > 1:
                label = QLabel("Samples:", self.pill_row)
                label.setStyleSheet(f"color: {MUTED_COLOR};")
                self.pill_layout.addWidget(label)
                self._pill_widgets.append(label)
                for key, text, _tip in specs:
                    pill = QToolButton(self.pill_row)
                    pill.setObjectName("SamplePill")
                    pill.setText(text)
                    pill.setCheckable(True)
                    # No bold when checked: the size hint is for the normal weight, bold text would clip.
                    pill.setStyleSheet(_PILL_STYLE)
                    pill.clicked.connect(lambda _c=False, key=key: self._on_pill(key))
                    self.pill_group.addButton(pill)
                    self.pill_layout.addWidget(pill)
                    self.pills.append(pill)
                    self._pill_keys.append(key)
                    self._pill_widgets.append(pill)
                self.pill_layout.addStretch(1)
        for pill, (key, _text, tip) in zip(self.pills, specs, strict=False):
            pill.setChecked(key == self._selected)
            pill.setToolTip(tip)
        self.pill_row.setVisible(len(specs) > 1)

    def _render_errors(self, sample: Sample | None) -> None:
        lines = []
        for failure in sample.failures if sample else []:
            if failure.get("kind") == "cancelled":
                lines.append("<b>Model call cancelled</b>")
                continue
            status = f" (HTTP {failure['status']})" if failure.get("status") else ""
            lines.append(
                f"<b>Model call failed — {_esc(failure.get('kind', 'error'))}{_esc(status)}</b>: "
                f"{_esc(failure.get('error', ''))}"
            )
        for error in (sample.errors if sample else []) + self._model.errors:
            where = f" in {error['where']}" if error.get("where") else ""
            lines.append(f"<b>Error{_esc(where)}</b>: {_esc(error.get('message', ''))}")
        self.error_banner.setText("<br>".join(lines))
        self.error_banner.setVisible(bool(lines))

    def _render_outcome(self, sample: Sample | None) -> None:
        model = self._model
        lines: list[str] = []
        decision = sample.decision if sample else None
        seat = sample.seat if sample else None
        if decision is not None:
            source = str(decision.get("source", "?"))
            player = self._players.get(seat, {}) if seat is not None else {}
            who = _esc(player.get("label") or source)
            action = decision.get("action")
            verb = "chose" if action is not None else "gave up"
            lines.append(
                f"{who} <span style='color:{MUTED_COLOR};'>({_esc(source)})</span> {verb} "
                + (f"<b style='font-size:11pt;'>{_esc(action)}</b>" if action is not None else "")
            )
            if decision.get("forfeit"):
                lines.append(_colored("Forfeit: the invalid-answer policy gave up for this seat.", BAD_COLOR))
            policy = decision.get("policy")
            if policy and policy != "answer":  # "answer" = the model's own parsed answer was played
                why = decision.get("fallback_reason") or ""
                lines.append(
                    _colored(f"Invalid-answer policy: {_esc(policy)}", theme.WARNING_FG, bold=True)
                    + (f" — {_esc(why)}" if why else "")
                )
            if decision.get("rationale"):
                lines.append(f"<i>Why:</i> {_esc(decision['rationale'])}")
            if decision.get("latency_ms") is not None:
                lines[-1] += (
                    f" <span style='color:{MUTED_COLOR};'>"
                    f"in {float(decision['latency_ms']) / 1000:.2f} s</span>"
                )
        elif sample is not None and sample.streaming:
            lines.append(_colored("Waiting for the model's answer…", theme.ACCENT))
        elif sample is not None and self._is_held(sample):
            lines.append(
                _colored(
                    f"Held for review: {_esc(self._pending.get('action') if self._pending else '')}",
                    theme.ACCENT,
                    bold=True,
                )
                + f" <span style='color:{MUTED_COLOR};'>— accept it or override it below</span>"
            )
        elif sample is not None and sample.chosen():
            lines.append(
                f"Proposed <b>{_esc(sample.chosen())}</b> "
                f"<span style='color:{MUTED_COLOR};'>(not played)</span>"
            )
        elif model.turn and not model.applied:
            lines.append(f"<span style='color:{MUTED_COLOR};'>Waiting for a decision…</span>")
        if sample is not None and sample.override:
            o = sample.override
            lines.append(
                _colored(
                    f"Overridden by {_esc(o.get('by', 'human'))}: proposed {_esc(o.get('proposed'))} → "
                    f"played {_esc(o.get('action'))}",
                    theme.WARNING_FG,
                    bold=True,
                )
            )
        if model.turn and not model.applied:
            legal = [str(a) for seat_legal in (model.turn.get("legal") or {}).values() for a in seat_legal]
            if legal:
                shown = " ".join(legal[:12]) + (" …" if len(legal) > 12 else "")
                lines.append(f"<span style='color:{MUTED_COLOR};'>Legal ({len(legal)}): {_esc(shown)}</span>")
        if model.applied:
            applied = model.applied
            actions = applied.get("actions") or {}
            if len(actions) == 1:
                played = str(next(iter(actions.values())))
            else:
                played = ", ".join(f"{self._seat_name(s)}: {a}" for s, a in actions.items())
            reward_list = list(applied.get("rewards") or [])
            rewards = " / ".join(_fmt_num(r) for r in reward_list)
            scores = " – ".join(_fmt_num(s) for s in applied.get("scores") or [])
            reward_word = "rewards" if len(reward_list) > 1 else "reward"
            lines.append(
                f"Played <b>{_esc(played)}</b> · {reward_word} {_esc(rewards or '0')} · "
                f"score <b>{_esc(scores)}</b>" + (" · <b>game over</b>" if applied.get("is_over") else "")
            )
        if sample is not None and sample.is_model:
            glance = self._glance(sample)
            if glance:
                lines.append(glance)
        for change in model.player_changes:
            lines.append(
                f"<span style='color:{MUTED_COLOR};'>{_esc(self._seat_name(change.get('seat')))} is now "
                f"{_esc(change.get('label') or change.get('spec'))} ({_esc(change.get('kind'))})</span>"
            )
        self.outcome_label.setText(
            "<br>".join(lines) or f"<span style='color:{MUTED_COLOR};'>Nothing decided yet</span>"
        )
        values = (decision or {}).get("values") if decision else None
        if isinstance(values, Mapping) and values:
            chosen = str(decision.get("action")) if decision else None
            rows = []
            for action, value in sorted(values.items(), key=lambda kv: -float(kv[1])):
                a_item, v_item = QTableWidgetItem(str(action)), QTableWidgetItem(_fmt_num(value))
                v_item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if str(action) == chosen:
                    for item in (a_item, v_item):
                        font = item.font()
                        font.setBold(True)
                        item.setFont(font)
                        item.setForeground(QColor(theme.ACCENT_DARK))
                rows.append([a_item, v_item])
            self.values_table.set_rows(rows)
            self.values_table.setVisible(True)
        else:
            self.values_table.set_rows([])
            self.values_table.setVisible(False)
        summary = ""
        if decision and decision.get("action") is not None:
            summary = f"<b>{_esc(decision['action'])}</b>"
        self.sec_outcome.set_summary(summary)

    def _render_prompt(self, sample: Sample) -> None:
        prompt = sample.prompt or {}
        parts = []
        if prompt.get("system"):
            parts.append("── SYSTEM ──\n" + str(prompt["system"]).rstrip())
        if prompt.get("user"):
            parts.append("── USER ──\n" + str(prompt["user"]).rstrip())
        for reask in sample.reasks:
            attempt = reask.get("attempt")
            title = f"── RE-ASK · attempt {attempt} ──" if attempt is not None else "── RE-ASK ──"
            parts.append(f"{title}\n{str(reask.get('user', '')).rstrip()}")
        self.prompt_view.set_text("\n\n".join(parts))
        self.full_prompt_button.setEnabled(bool(parts))
        for thumb in self.thumbnails:
            self.thumb_layout.removeWidget(thumb)
            thumb.deleteLater()
        self.thumbnails = []
        for index, ref in enumerate(sample.images):
            png = self._image_bytes(ref)
            thumb = ClickableThumbnail(png, f"Image {index + 1} sent to the model", size=88)
            self.thumb_layout.insertWidget(index, thumb)
            self.thumbnails.append(thumb)
        self.thumb_row.setVisible(bool(self.thumbnails))
        bits = []
        if prompt.get("variant") or prompt.get("template"):
            bits.append(_esc(prompt.get("variant") or prompt.get("template")))
        perception = prompt.get("perception")
        if isinstance(perception, Mapping) and perception.get("note"):
            self.sec_prompt.setToolTip(str(perception["note"]))
        if sample.reasks:
            n = len(sample.reasks)
            bits.append(_colored(f"{n} re-ask{'s' if n != 1 else ''}", BAD_COLOR))
        if sample.images:
            bits.append(f"{len(sample.images)} image{'s' if len(sample.images) != 1 else ''}")
        if prompt:
            chars = len(str(prompt.get("system", ""))) + len(str(prompt.get("user", "")))
            bits.append(f"{chars:,} chars")
        self.sec_prompt.set_summary(" · ".join(bits))

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
        if sample.reflection is None and sample.reflection_live:
            self.reflection_view.set_text(sample.reflection_live)
            self.reflection_view.setVisible(True)
            self.reflection_empty.setVisible(False)
        live = f" · <span style='color:{theme.ACCENT};'>streaming…</span>"
        reasoning_bits = []
        if sample.reasoning:
            reasoning_bits.append(f"{len(sample.reasoning):,} chars")
        if sample.reasoning_live and sample.streaming:
            reasoning_bits.append(live.lstrip(" ·"))
        self.sec_reasoning.set_summary(" · ".join(reasoning_bits))
        if not sample.reasoning:
            last_call = sample.started[-1] if sample.started else {}
            thinking = (last_call.get("params") or {}).get("thinking")
            self.reasoning_view.setPlaceholderText(
                "Waiting for reasoning…"
                if sample.streaming
                else ("No reasoning returned" if thinking else "No reasoning recorded (thinking off)")
            )

    def _render_parse(self, sample: Sample) -> None:
        indent = "margin:0px 0px 4px 14px;"
        blocks: list[str] = []
        for kind, data in sample.attempts:
            attempt = data.get("attempt")
            number = f"Attempt {attempt}" if attempt is not None else "Answer"
            raw = _esc(_short(str(data.get("raw", ""))))
            if kind == "action_parsed":
                chain = (
                    f"raw “{raw}”<br>→ extracted <b>{_esc(data.get('extracted'))}</b>"
                    f" → matched <b>{_esc(data.get('matched'))}</b>"
                )
                executed = self._executed_for(sample)
                if executed is not None:
                    chain += f" → executed <b>{_esc(executed)}</b>"
                notes = []
                if data.get("reason"):
                    notes.append(f"<i style='color:{MUTED_COLOR};'>{_esc(data['reason'])}</i>")
                if data.get("note"):
                    notes.append(_colored(_esc(data["note"]), theme.WARNING_FG))
                if executed is not None and str(executed) != str(data.get("matched")):
                    notes.append(
                        _colored(f"executed differs: {_esc(self._why_differs(sample))}", theme.WARNING_FG)
                    )
                blocks.append(
                    f"<p style='margin:0px;'>{_colored('✓ ' + number + ' — legal', OK_COLOR, bold=True)}</p>"
                    f"<p style='{indent}'>{chain}{'<br>' + '<br>'.join(notes) if notes else ''}</p>"
                )
            else:
                label = "unparsable" if kind == "action_unparsable" else "illegal"
                detail = f"raw “{raw}”"
                if data.get("extracted") is not None:
                    detail += f"<br>→ extracted <b>{_esc(data.get('extracted'))}</b>"
                blocks.append(
                    f"<p style='margin:0px;'>{_colored(f'✗ {number} — {label}', BAD_COLOR, bold=True)}</p>"
                    f"<p style='{indent} color:{BAD_COLOR};'>{detail}<br>"
                    f"<b>{_esc(data.get('error', ''))}</b></p>"
                )
        if not blocks:
            text = "Waiting for the answer…" if sample.streaming else "No parse recorded"
            blocks.append(f"<span style='color:{MUTED_COLOR};'>{text}</span>")
        self.parse_label.setText("".join(blocks))
        bad = sum(1 for kind, _ in sample.attempts if kind != "action_parsed")
        ok = any(kind == "action_parsed" for kind, _ in sample.attempts)
        bits = []
        if sample.attempts:
            bits.append(f"{len(sample.attempts)} attempt{'s' if len(sample.attempts) != 1 else ''}")
        if bad:
            bits.append(_colored(f"{bad} rejected", BAD_COLOR))
        if ok:
            bits.append(_colored(f"✓ {_esc(sample.chosen())}", OK_COLOR))
        self.sec_answer.set_summary(" · ".join(bits))

    def _glance(self, sample: Sample) -> str:
        """One line with the attempt's parse chain, checks and cost, so they show without scrolling."""
        bits = []
        steps = []
        for kind, data in sample.attempts:
            if kind == "action_parsed":
                steps.append(_colored(f"✓ {_esc(data.get('matched'))}", OK_COLOR))
            else:
                shown = data.get("extracted") or ("unparsable" if kind == "action_unparsable" else "?")
                steps.append(_colored(f"✗ {_esc(shown)}", BAD_COLOR))
        if steps:
            bits.append("parse " + " → ".join(steps))
        if sample.verifications:
            good = sum(1 for v in sample.verifications if v.get("correct"))
            color = OK_COLOR if good == len(sample.verifications) else BAD_COLOR
            bits.append(_colored(f"checks {good}/{len(sample.verifications)}", color))
        if sample.finished:
            total = sample.usage()
            simulated = any(s.get("provider") == "sim" for s in sample.started)
            bits.append(f"{int(total.get('input_tokens', 0) + total.get('output_tokens', 0)):,} tokens")
            bits.append(_cost_text(total.get("cost_usd"), simulated))
        if sample.retries:
            bits.append(
                _colored(
                    f"{len(sample.retries)}&nbsp;retr{'ies' if len(sample.retries) != 1 else 'y'}",
                    theme.WARNING_FG,
                )
            )
        return f"<span style='color:{MUTED_COLOR};'>{' · '.join(bits)}</span>" if bits else ""

    def _is_held(self, sample: Sample) -> bool:
        """Whether ``sample`` is the decision waiting for Accept/Override."""
        pending = self._pending
        if not pending or self._model.applied is not None:
            return False
        seat_ok = pending.get("seat") is None or pending.get("seat") == sample.seat
        call_ok = pending.get("call") is None or pending.get("call") == sample.call
        return seat_ok and call_ok

    def _executed_for(self, sample: Sample) -> str | None:
        applied = self._model.applied
        if not applied or sample.seat is None:
            return None
        decided = self._model.decided()
        if decided is not None and decided is not sample:
            return None  # another sample was played
        actions = applied.get("actions") or {}
        action = actions.get(str(sample.seat), actions.get(sample.seat))  # type: ignore[call-overload]
        return None if action is None else str(action)

    def _why_differs(self, sample: Sample) -> str:
        if sample.override:
            return f"overridden by {sample.override.get('by', 'human')}"
        if sample.decision and sample.decision.get("policy") not in (None, "answer"):
            return f"fallback policy {sample.decision['policy']}"
        return "the played action is not the parsed one"

    def _render_verification(self, sample: Sample) -> None:
        rows = []
        correct = 0
        for v in sample.verifications:
            ok = bool(v.get("correct"))
            correct += ok
            unknown = v.get("correct") is None
            mark = QTableWidgetItem("–" if unknown else ("✓" if ok else "✗"))
            mark.setForeground(QColor(MUTED_COLOR if unknown else (OK_COLOR if ok else BAD_COLOR)))
            font = mark.font()
            font.setBold(True)
            mark.setFont(font)
            mark.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            question = QTableWidgetItem(str(v.get("question", "")))
            detail = v.get("detail")
            if isinstance(detail, Mapping) and detail:
                question.setToolTip(", ".join(f"{k}: {val}" for k, val in detail.items()))
            elif detail:
                question.setToolTip(str(detail))
            rows.append([question, _plain(v.get("answer")), _plain(v.get("truth")), mark])
        self.verify_table.set_rows(rows)
        self.verify_table.setVisible(bool(rows))
        self.verify_empty.setVisible(not rows)
        if rows:
            color = OK_COLOR if correct == len(rows) else BAD_COLOR
            self.sec_verify.set_summary(_colored(f"{correct}/{len(rows)} correct", color))
        else:
            self.sec_verify.set_summary("")

    def _render_reflection_memory(self, sample: Sample) -> None:
        reflection = sample.reflection if sample.reflection is not None else sample.reflection_live
        self.reflection_view.set_text(reflection or "")
        self.reflection_view.setVisible(bool(reflection))
        self.reflection_empty.setVisible(not reflection)
        self.sec_reflection.set_summary("")
        entries = sample.memory or []
        rows = []
        for entry in entries:
            step_item = QTableWidgetItem(str(entry.get("step", "")))
            by = f"  ({entry['by']})" if entry.get("by") else ""
            action_item = QTableWidgetItem(f"{entry.get('action', '')}{by}")
            if entry.get("state"):
                action_item.setToolTip(str(entry["state"]))
            reward_item = QTableWidgetItem(_fmt_num(entry.get("reward", "")))
            reward_item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            rows.append([step_item, action_item, reward_item])
        self.memory_table.set_rows(rows)
        self.memory_table.setVisible(bool(rows))
        self.memory_empty.setVisible(not rows)
        self.sec_memory.set_summary(
            f"{len(rows)} entr{'ies' if len(rows) != 1 else 'y'}" if sample.memory is not None else ""
        )

    def _render_usage(self, sample: Sample) -> None:
        lines = []
        simulated = False
        for index, started in enumerate(sample.started):
            params = started.get("params") or {}
            simulated = simulated or started.get("provider") == "sim"
            extra = ", ".join(
                _param_text(k, v) for k, v in params.items() if k not in ("model", "purpose", "max_tokens")
            )
            purpose = started.get("purpose")
            label = f"Call {index + 1}" + (f" ({purpose})" if purpose and purpose != "action" else "")
            prefix = f"{label}: " if len(sample.started) > 1 else ""
            lines.append(
                f"{prefix}<b>{_esc(started.get('provider', '?'))}</b> · {_esc(started.get('model', ''))}"
                + (f" <span style='color:{MUTED_COLOR};'>({_esc(extra)})</span>" if extra else "")
            )
        total = sample.usage()
        if sample.finished:
            tokens = (
                f"Tokens in <b>{int(total.get('input_tokens', 0)):,}</b> · "
                f"out <b>{int(total.get('output_tokens', 0)):,}</b>"
            )
            if total.get("reasoning_tokens"):
                tokens += f" · reasoning <b>{int(total['reasoning_tokens']):,}</b>"
            lines.append(tokens)
            lines.append(
                f"Cost <b>{_cost_text(total.get('cost_usd'), simulated)}</b> · "
                f"latency <b>{total.get('latency_ms', 0) / 1000:.2f} s</b> · "
                f"retries <b>{len(sample.retries)}</b>"
            )
        if sample.streaming:
            lines.append(_colored("Call in progress…", theme.ACCENT))
        for retry in sample.retries:
            wait = f", waiting {float(retry['wait_s']):.1f} s" if retry.get("wait_s") is not None else ""
            lines.append(
                _colored(
                    f"↻ Retry {_esc(retry.get('attempt', '?'))}: {_esc(retry.get('reason', ''))}{_esc(wait)}",
                    theme.WARNING_FG,
                )
            )
        for failure in sample.failures:
            lines.append(
                _colored(
                    f"✗ Failed ({_esc(failure.get('kind', 'error'))}): {_esc(failure.get('error', ''))}",
                    BAD_COLOR,
                )
            )
        self.usage_label.setText(
            "<br>".join(lines) or f"<span style='color:{MUTED_COLOR};'>No call recorded</span>"
        )
        bits = []
        if sample.finished:
            bits.append(f"{int(total.get('input_tokens', 0) + total.get('output_tokens', 0)):,} tokens")
            bits.append(_cost_text(total.get("cost_usd"), simulated))
            bits.append(f"{total.get('latency_ms', 0) / 1000:.1f} s")
        if sample.retries:
            n = len(sample.retries)
            bits.append(_colored(f"{n} retr{'ies' if n != 1 else 'y'}", theme.WARNING_FG))
        if sample.failures:
            bits.append(_colored("failed", BAD_COLOR))
        self.sec_usage.set_summary(" · ".join(bits))


def _param_text(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return f"{key} {'on' if value else 'off'}"
    return f"{key} {_fmt_num(value)}"


def _cost_text(cost: float | None, simulated: bool) -> str:
    if simulated:
        return "free (simulated)"
    return "price unknown" if cost is None else f"${cost:.4f}"


def _plain(value: Any) -> QTableWidgetItem:
    """A table cell for an answer or a truth: strings as they are, sets of actions comma-separated."""
    if value is None:
        text = "—"
    elif isinstance(value, str):
        text = value
    elif isinstance(value, (list, tuple, set, frozenset)):
        text = ", ".join(str(v) for v in value) if value else "(none)"
    else:
        text = json.dumps(value, ensure_ascii=False)
    return QTableWidgetItem(text)


# ------------------------------------------------------------------------------------------- preview


def demo_records(image_ref: str = "attachment://sha256-demo.png") -> list[dict[str, Any]]:
    """A realistic tic-tac-toe model step (step 4, seat 0 plays X), in the order the harness records it:
    reflection call, memory, prompt with the board image, a streamed answer that is illegal, the re-ask
    and its legal answer, the intermediate answers checked, the decision; then a second sample (a
    re-ask from the panel) that was not played."""
    board = "X | O | .\n. | X | .\nO | . | ."
    system = (
        "You are playing tic-tac-toe as X against an opponent playing O.\n"
        "Cells are written (row,col) with rows and columns numbered 0 to 2 from the top left.\n"
        "Think briefly, then end with a line 'MOVE: (r,c)'."
    )
    user = (
        f"Step 4. Current board (you are X):\n{board}\n\n"
        "Your last moves: (0,0), (1,1). Opponent's last move: (2,0).\n"
        "Reflection on your play so far: O did not block (2,2); check diagonals first.\n"
        "Before moving, answer: Q1: Which cell did the opponent play last? Q2: Can you win this turn?\n"
        "The image shows the same board."
    )

    def rec(type_: str, data: dict[str, Any], call: int | None = 1, seat: int | None = 0) -> dict[str, Any]:
        return {"type": type_, "step": 4, "seat": seat, "call": call, "data": data}

    reasoning = (
        "I hold (0,0) and (1,1), so the diagonal (0,0)-(1,1)-(2,2) needs only (2,2). "
        "The opponent's O on (2,0) threatens nothing yet: (0,2)? No — O has (0,1) and (2,0), no shared "
        "line. (2,2) is empty, so playing it completes the main diagonal and wins immediately."
    )
    answer1 = "Q1: (2,0)\nQ2: no\nThe diagonal is open; I take the corner.\nMOVE: (0,0)"
    answer1b = "Sorry — (0,0) is mine already. The winning cell is the bottom right.\nMOVE: (2,2)"
    params = {"model": "sim-tactician", "max_tokens": 1024, "temperature": 0.7, "thinking": True}
    reask = (
        "Your answer is not a legal move: cell (0,0) is already taken by X\n"
        "Legal moves now: (0,2), (1,0), (1,2), (2,1), (2,2).\n"
        "Answer again, following the output format exactly."
    )
    finished = {"reasoning_tokens": 0, "cost_usd": 0.0, "stop_reason": "end_turn", "retries": 0}
    template = {"template": "tictactoe/default", "template_hash": "9f2c1e", "variant": "default"}
    board_prompt = {"system": system, "user": user, "image": image_ref, "images": 1, **template}

    # The second sample repeats the first one's call records, so they are built by these helpers.
    def call_started(purpose: str, attempt: int, call: int = 1) -> dict[str, Any]:
        data = {
            "provider": "sim",
            "model": "sim-tactician",
            "params": {**params, "purpose": purpose},
            "purpose": purpose,
            "attempt": attempt,
        }
        return rec("model_call_started", data, call=call)

    def call_finished(
        latency_ms: int,
        input_tokens: int,
        output_tokens: int,
        *,
        purpose: str = "action",
        attempt: int = 1,
        call: int = 1,
        reasoning_tokens: int = 0,
    ) -> dict[str, Any]:
        data = {
            **finished,
            "latency_ms": latency_ms,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "reasoning_tokens": reasoning_tokens,
            "purpose": purpose,
            "attempt": attempt,
        }
        return rec("model_call_finished", data, call=call)

    def verifications(call: int = 1) -> list[dict[str, Any]]:
        return [
            rec(
                "verification",
                {
                    "key": 1,
                    "question": "Which cell did the opponent play last?",
                    "answer": ["(2,0)"],
                    "truth": ["(2,0)"],
                    "correct": True,
                    "detail": {},
                },
                call=call,
            ),
            rec(
                "verification",
                {
                    "key": 2,
                    "question": "Can you win this turn? (winning cells)",
                    "answer": [],
                    "truth": ["(2,2)"],
                    "correct": False,
                    "detail": {"outcome": "FN"},
                },
                call=call,
            ),
        ]

    return [
        rec(
            "turn_started",
            {"seats": [0], "legal": {"0": ["(0,2)", "(1,0)", "(1,2)", "(2,1)", "(2,2)"]}},
            call=None,
            seat=None,
        ),
        call_started("reflection", attempt=1),
        call_finished(310, 240, 31, purpose="reflection"),
        rec(
            "reflection",
            {
                "text": "Last turn I set up the diagonal; O did not block (2,2). "
                "Check diagonals first before answering.",
                "words": 18,
                "on_step": 2,
            },
        ),
        rec(
            "memory",
            {
                "entries": [
                    {"step": 0, "state": "empty board", "action": "(0,0)", "reward": 0},
                    {"step": 1, "state": "X(0,0)", "action": "(0,1)", "reward": 0, "by": "O"},
                    {"step": 2, "state": "X(0,0) O(0,1)", "action": "(1,1)", "reward": 0},
                    {"step": 3, "state": "X(0,0) O(0,1) X(1,1)", "action": "(2,0)", "reward": 0, "by": "O"},
                ],
                "size": 10,
            },
        ),
        rec("prompt_built", {**board_prompt, "perception": {"requested": "both", "used": "both"}}),
        call_started("action", attempt=1),
        rec(
            "model_retry",
            {"attempt": 1, "reason": "rate limited (429)", "wait_s": 2.0, "status": 429, "purpose": "action"},
        ),
        rec("reasoning", {"text": reasoning, "purpose": "action"}),
        rec("answer", {"text": answer1, "purpose": "action"}),
        call_finished(2410, 812, 164, reasoning_tokens=96),
        rec(
            "action_illegal",
            {"raw": answer1, "extracted": "(0,0)", "error": "cell (0,0) is already taken by X", "attempt": 1},
        ),
        rec(
            "prompt_built",
            {
                "system": system,
                "user": reask,
                **template,
                "attempt": 2,
                "reask": True,
                "reason": "cell (0,0) is already taken by X",
            },
        ),
        call_started("action", attempt=2),
        rec("answer", {"text": answer1b, "purpose": "action"}),
        call_finished(640, 1010, 38, attempt=2),
        rec("action_parsed", {"raw": answer1b, "extracted": "(2,2)", "matched": "(2,2)", "attempt": 2}),
        *verifications(),
        rec(
            "decision",
            {
                "action": "(2,2)",
                "source": "model",
                "rationale": "the winning cell is the bottom right",
                "policy": "answer",
                "attempts": 2,
                "latency_ms": 3360,
                "cost_usd": 0.0,
            },
        ),
        # A re-ask from the panel at the same step: a second sample, kept beside the first.
        rec("prompt_built", board_prompt, call=2),
        call_started("action", attempt=1, call=2),
        rec(
            "reasoning",
            {
                "text": "Blocking seems safer: O could build on the bottom row. I'll take (2,1).",
                "purpose": "action",
            },
            call=2,
        ),
        rec("answer", {"text": "Q1: (2,0)\nQ2: no\nMOVE: (2,1)", "purpose": "action"}, call=2),
        call_finished(980, 812, 41, call=2),
        rec(
            "action_parsed",
            {"raw": "Q1: (2,0) Q2: no MOVE: (2,1)", "extracted": "(2,1)", "matched": "(2,1)", "attempt": 1},
            call=2,
        ),
        *verifications(call=2),
        rec(
            "action_applied",
            {
                "actions": {"0": "(2,2)"},
                "rewards": [1, 0],
                "scores": [1, 0],
                "state": {},
                "changed": [8],
                "is_over": True,
            },
            call=None,
            seat=None,
        ),
    ]


def demo_header() -> dict[str, Any]:
    """The header of the preview: the simulated model (X) against the minimax bot (O)."""
    return {
        "game": "Tic-tac-toe",
        "players": [
            {"seat": 0, "seat_name": "X", "label": "Simulated model", "kind": "model", "spec": "sim"},
            {"seat": 1, "seat_name": "O", "label": "Minimax bot", "kind": "bot", "spec": "minimax"},
        ],
        "harness": {
            0: {
                "perception": "both",
                "memory": 10,
                "reflection": True,
                "thinking": True,
                "temperature": 0.7,
                "prompt_variant": "default",
                "invalid_policy": {"retries": 3, "fallback": "random"},
            }
        },
        "simulated": True,
    }


def _demo_png() -> bytes:
    """The board image of the preview step (the game's renderer when available)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImage, QPainter, QPen

    try:
        import renderers
        from engine import make

        game = make("tictactoe")
        state = game.initial_state(0)
        for action in ("(0,0)", "(0,1)", "(1,1)", "(2,0)"):
            state = state.apply(action)
        return renderers.get("tictactoe").png(state, 384, 384, grid_labels=True)
    except Exception:  # the renderer is optional for a preview: draw a plain board instead
        image = QImage(384, 384, QImage.Format.Format_ARGB32)
        image.fill(QColor("#fbfaf7"))
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor("#444"), 6))
        for i in (1, 2):
            painter.drawLine(i * 128, 16, i * 128, 368)
            painter.drawLine(16, i * 128, 368, i * 128)
        marks = {0: "X", 1: "O", 4: "X", 6: "O"}
        font = QFont()
        font.setPixelSize(84)
        font.setBold(True)
        painter.setFont(font)
        for cell, mark in marks.items():
            painter.setPen(QColor("#2f6fd6" if mark == "X" else "#d9822b"))
            r, c = divmod(cell, 3)
            painter.drawText(c * 128, r * 128, 128, 128, Qt.AlignmentFlag.AlignCenter, mark)
        painter.end()
        buffer = QBuffer()
        data = QByteArray()
        buffer.setData(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")
        return bytes(buffer.data().data())


def main(argv: Sequence[str] | None = None) -> int:
    """Render the panel with a realistic step to a PNG: ``python -m desktop.inspector OUT.png [W H]``."""
    import os

    from PySide6.QtWidgets import QApplication

    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m desktop.inspector OUT.png [WIDTH HEIGHT] [--sample N]", file=sys.stderr)
        return 2
    sample_index = None
    if "--sample" in args:
        i = args.index("--sample")
        sample_index = int(args[i + 1])
        del args[i : i + 2]
    out = args[0]
    width, height = (int(args[1]), int(args[2])) if len(args) >= 3 else (560, 700)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    existing = QApplication.instance()
    app = existing or QApplication([sys.argv[0]])
    if existing is None:  # never restyle an application someone else owns (tests, the running app)
        theme.apply(app)  # type: ignore[arg-type]
    png = _demo_png()
    panel = InspectorPanel()
    panel.resize(width, height)
    panel.set_header(demo_header())
    panel.show_step(4, demo_records(), lambda ref: png if ref == "attachment://sha256-demo.png" else None)
    panel.set_controls(model_to_act=True, busy=False, pending=None, replay=True)
    if sample_index is not None:
        panel.select_sample(sample_index)
    panel.show()
    for _ in range(5):
        app.processEvents()
    ok = panel.grab().save(out)
    print(out if ok else f"could not write {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
