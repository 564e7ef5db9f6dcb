"""The New game dialog: game, its options, seed, and who sits in each seat (with the harness options).

Everything about a game comes from its declaration: the list of games is :func:`engine.entries` (the
ones that cannot be played here are shown disabled, with the command that installs them), the
game's options are one field each from :attr:`~engine.core.Game.options_schema`, and the players
offered are people, the game's bots, the simulated model and real models.

It is opened with ``open()`` (never ``exec()`` inside a coroutine: qasync cannot nest a task in a
modal loop) and reports the choice through ``sig_start_requested(GameSetup)``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QLocale, Qt, Signal
from PySide6.QtGui import QDoubleValidator, QKeyEvent, QShowEvent, QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

import engine
from desktop import theme
from desktop.controller import GameSetup, SeatSetup
from desktop.option_fields import OptionsBox
from engine.agent.prompts import variants
from engine.core import Game
from engine.llm import keys
from engine.options import OptionError
from engine.roster import bots_for

SIM = "sim"
MODEL = "model…"
PROVIDERS: tuple[tuple[str, str], ...] = (
    ("OpenAI", "openai"),
    ("Anthropic", "anthropic"),
    ("Local server (OpenAI-compatible)", "local"),
)
DEFAULT_MODELS = {"openai": "gpt-4.1-mini", "anthropic": "claude-sonnet-4-5", "local": "llama3.1"}
#: Providers that bill per token: only they get a money estimate and budget caps.
PAID_PROVIDERS = ("openai", "anthropic")
PROVIDER_TITLES = {"openai": "OpenAI", "anthropic": "Anthropic"}


def missing_key_text(provider: str, seats: list[str]) -> str:
    """Why a seat cannot start: which key is missing and the two places it can come from."""
    title = PROVIDER_TITLES.get(provider, provider)
    var = keys.ENV_VARS.get(provider)
    where = f"set {var} in the environment, or " if var else ""
    who = ", ".join(seats)
    return (
        f"No {title} API key for {who}: {where}add one under Models & keys "
        f"(the {title} tab; it is kept in PlayTrace's key store)."
    )

# Rough tokens per decision for the pre-run estimate (the same basis as the command line's estimate):
# a text prompt with rules, memory and the board in, a short answer out; the image, the thinking budget
# and the reflection call on top when they are on. The live cost meter then shows the real spend.
EST_INPUT_TOKENS = 1500
EST_OUTPUT_TOKENS = 300
EST_IMAGE_TOKENS = 1000
EST_REFLECTION_TOKENS = (600, 150)
#: Decisions assumed per episode when neither the dialog nor the game bounds its length.
EST_STEPS_PER_EPISODE = 100


def decisions_per_episode(game_id: str, max_steps: int | None, seats: int | None = None) -> int:
    """About how many decisions one seat makes in a game: the step limit (the dialog's, else the
    game's ``max_episode_steps``, else 100), divided among the seats of a turn-based game."""
    try:
        cls = engine.declaration(game_id)
    except Exception:  # noqa: BLE001  (an estimate is advice; an unknown game just uses the default)
        return max_steps or EST_STEPS_PER_EPISODE
    limit = cls.max_episode_steps
    steps = max_steps or (int(limit) if limit else EST_STEPS_PER_EPISODE)
    n = seats if seats is not None else len(cls.seats)
    if cls.simultaneous or n <= 1:
        return steps
    return math.ceil(steps / n)


def tokens_per_decision(options: Mapping[str, Any]) -> tuple[int, int]:
    """Rough (input, output) tokens of one decision with these harness options."""
    tin, tout = EST_INPUT_TOKENS, EST_OUTPUT_TOKENS
    if options.get("perception") in ("image", "both"):
        tin += EST_IMAGE_TOKENS
    elif options.get("perception") == "describe":  # the image to the describing call, its text back in
        tin += 2 * EST_IMAGE_TOKENS
    if options.get("thinking"):
        tout += int(options.get("thinking_budget") or 0)
    if options.get("reflection", True):
        tin += EST_REFLECTION_TOKENS[0]
        tout += EST_REFLECTION_TOKENS[1]
    return tin, tout


def money(usd: float) -> str:
    """Dollars with as many decimals as a small figure needs ("$1.20", "$0.05", "$0.008")."""
    if round(usd, 3) >= 0.01:  # 0.0099 would print as "$0.010": two decimals read better
        return f"${usd:.2f}"
    if usd >= 0.001:
        return f"${usd:.3f}"
    return "< $0.001" if usd > 0 else "$0.00"


def estimate_text(spec: str, options: Mapping[str, Any], decisions: int) -> tuple[str, str]:
    """The one-line pre-run estimate for a seat and its tooltip (the basis of the figure).

    Paid models (``openai:``/``anthropic:``) are priced with :func:`engine.llm.pricing.estimate`; the
    simulated model and local servers are free; people and bots show nothing.
    """
    prefix = spec.partition(":")[0]
    if prefix == "sim":
        return "free (simulated model)", ""
    if prefix == "local":
        return "free (local server)", ""
    if prefix not in PAID_PROVIDERS:
        return "", ""
    tin, tout = tokens_per_decision(options)
    model = spec.partition(":")[2]
    basis = f"{decisions} decisions × ~{tin} tokens in / ~{tout} out"
    try:
        from engine.llm import pricing

        est = pricing.estimate(spec, tin, tout, decisions)
    except Exception:  # noqa: BLE001  (advice only: never block the dialog)
        return f"price unknown for {model}", basis
    if est.cost is None:
        return f"price unknown for {model}", est.note or basis
    return f"≈ {money(est.cost)} per game (rough)", f"{basis}; list prices, no caching discounts"


def _usd_or_none(text: str) -> float | None:
    """A dollar amount typed by the person (comma or point decimals); empty or zero means no cap."""
    cleaned = text.strip().lstrip("$").replace(",", ".")
    if not cleaned:
        return None
    try:
        value = float(cleaned)
    except ValueError:
        return None
    return value if value > 0 and math.isfinite(value) else None


def _usd_field(placeholder: str) -> QLineEdit:
    field = QLineEdit()
    field.setPlaceholderText(placeholder)
    validator = QDoubleValidator(0.0, 1_000_000.0, 4, field)
    validator.setNotation(QDoubleValidator.Notation.StandardNotation)
    validator.setLocale(QLocale.c())
    field.setValidator(validator)
    field.setMaximumWidth(90)
    return field


def prompt_variants(game_id: str) -> list[str]:
    """Prompt template variants shipped for a game (``default`` first)."""
    try:
        return variants(engine.declaration(game_id))
    except Exception:  # noqa: BLE001  (a missing template folder leaves the generic default)
        return ["default"]


class SeatEditor(QGroupBox):
    """One seat: the player choice, and for model players the provider and harness options."""

    def __init__(
        self,
        game_id: str,
        seat: int,
        seat_name: str,
        parent: QWidget | None = None,
        *,
        decisions: Callable[[], int] | None = None,
    ) -> None:
        super().__init__(theme.seat_title(seat, seat_name), parent)
        self.game_id = game_id
        self.seat = seat
        # Decisions this seat makes per game (from the dialog's max steps and the game), for the estimate.
        self._decisions = decisions or (lambda: decisions_per_episode(game_id, None))
        self.player = QComboBox()
        self.player.addItem("Human (you)", "human")
        for bot in bots_for(engine.declaration(game_id)):
            self.player.addItem(f"Bot: {bot}", bot)
        self.player.addItem("sim (simulated model, offline)", SIM)
        self.player.addItem("Model… (OpenAI, Anthropic, local server)", MODEL)
        self.player.setToolTip("Who plays this seat")

        self.provider = QComboBox()
        for title, key in PROVIDERS:
            self.provider.addItem(title, key)
        self.model_name = QLineEdit(DEFAULT_MODELS["openai"])
        self.model_name.setPlaceholderText("model name, e.g. gpt-4.1-mini")
        self.base_url = QLineEdit("http://localhost:11434/v1")
        self.base_url.setPlaceholderText("http://host:port/v1")

        self.perception = QComboBox()
        for mode in ("text", "image", "both", "describe"):
            self.perception.addItem(mode, mode)
        self.image_labels = QCheckBox("Label rows and columns on the image")
        self.image_labels.setChecked(True)
        self.perception.currentIndexChanged.connect(
            lambda _i: self.image_labels.setEnabled(self.perception.currentData() != "text")
        )
        self.image_labels.setEnabled(False)
        self.memory = QSpinBox()
        self.memory.setRange(0, 100)
        self.memory.setValue(10)
        self.memory.setSpecialValueText("off")
        self.memory.setSuffix(" steps")
        self.reflection = QCheckBox("Reflect on the last step before deciding")
        self.reflection.setChecked(True)
        self.thinking = QCheckBox("Extended thinking")
        self.budget = QSpinBox()
        self.budget.setRange(1024, 64000)
        self.budget.setSingleStep(1024)
        self.budget.setValue(4096)
        self.budget.setSuffix(" tokens")
        self.budget.setEnabled(False)
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(-0.1, 2.0)
        self.temperature.setSingleStep(0.1)
        self.temperature.setDecimals(1)
        self.temperature.setValue(-0.1)
        self.temperature.setSpecialValueText("provider default")
        self.variant = QComboBox()
        self.variant.setEditable(False)
        for name in prompt_variants(game_id):
            self.variant.addItem(name, name)
        self.reask = QComboBox()
        for value, text in (("feedback", "with feedback"), ("same", "the same prompt"), ("none", "never")):
            self.reask.addItem(text, value)
        self.reask.setToolTip("Re-ask an unusable answer with the error and the legal moves, with exactly "
                              "the first prompt again (LVLM-Playground), or not at all")
        self.action_format = QComboBox()
        for value, text in (("text", "text (the game's format)"), ("json", "a JSON object"),
                            ("tools", "a tool call")):
            self.action_format.addItem(text, value)
        self.action_format.setToolTip("How the model gives its move: free text in the game's own format, "
                                      "one JSON object, or a native tool call with the legal moves as its "
                                      "schema")
        self.retries = QSpinBox()
        self.retries.setRange(0, 10)
        self.retries.setValue(3)
        self.fallback = QComboBox()
        for fb in ("random", "noop", "forfeit"):
            self.fallback.addItem(fb, fb)
        # Per-session spending caps (empty = none): the harness warns at the first and forfeits at
        # the second; only paid providers spend anything.
        self.budget_soft = _usd_field("none")
        self.budget_soft.setToolTip(
            "Warn when this seat has spent this much in the session (empty = no warning)"
        )
        self.budget_hard = _usd_field("none")
        self.budget_hard.setToolTip(
            "Stop this seat (it forfeits) when it has spent this much (empty = no cap)"
        )
        self.timeout = QSpinBox()
        self.timeout.setRange(5, 900)
        self.timeout.setValue(60)
        self.timeout.setSuffix(" s")
        self.timeout.setToolTip("How long one model call may take before it is given up")
        self.estimate = QLabel("")
        self.estimate.setObjectName("Muted")
        self.estimate.setWordWrap(True)

        top = QFormLayout()
        top.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        top.addRow("Player", self.player)
        self.model_box = QWidget()
        model_form = QFormLayout(self.model_box)
        model_form.setContentsMargins(0, 0, 0, 0)
        model_form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        model_form.addRow("Provider", self.provider)
        model_form.addRow("Model", self.model_name)
        self.base_url_label = QLabel("Base URL")
        model_form.addRow(self.base_url_label, self.base_url)
        self.budget_row = QWidget()
        budget_row = QHBoxLayout(self.budget_row)
        budget_row.setContentsMargins(0, 0, 0, 0)
        budget_row.addWidget(QLabel("warn at $"))
        budget_row.addWidget(self.budget_soft)
        budget_row.addSpacing(6)
        budget_row.addWidget(QLabel("/ stop at $"))
        budget_row.addWidget(self.budget_hard)
        budget_row.addStretch(1)
        self.budget_label = QLabel("Budget")
        model_form.addRow(self.budget_label, self.budget_row)
        timeout_row = QHBoxLayout()
        timeout_row.addWidget(self.timeout)
        timeout_row.addStretch(1)
        model_form.addRow("Timeout", timeout_row)

        self.harness_box = QWidget()
        harness = QFormLayout(self.harness_box)
        harness.setContentsMargins(0, 0, 0, 0)
        harness.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        harness.addRow("Perception", self.perception)
        harness.addRow("", self.image_labels)
        harness.addRow("Memory", self.memory)
        harness.addRow("", self.reflection)
        think_row = QHBoxLayout()
        think_row.addWidget(self.thinking)
        think_row.addWidget(self.budget)
        think_row.addStretch(1)
        harness.addRow("Thinking", think_row)
        harness.addRow("Temperature", self.temperature)
        harness.addRow("Prompt", self.variant)
        harness.addRow("Answer as", self.action_format)
        invalid_row = QHBoxLayout()
        invalid_row.addWidget(QLabel("re-ask"))
        invalid_row.addWidget(self.reask)
        invalid_row.addWidget(QLabel("×"))
        invalid_row.addWidget(self.retries)
        invalid_row.addSpacing(4)
        invalid_row.addWidget(QLabel("then"))
        invalid_row.addWidget(self.fallback)
        invalid_row.addStretch(1)
        harness.addRow("Invalid answer", invalid_row)
        harness.addRow("Estimate", self.estimate)

        layout = QVBoxLayout(self)
        layout.setSpacing(6)
        layout.addLayout(top)
        layout.addWidget(self.model_box)
        layout.addWidget(self.harness_box)

        self.player.currentIndexChanged.connect(self._sync)
        self.provider.currentIndexChanged.connect(self._provider_changed)
        self.thinking.toggled.connect(self.budget.setEnabled)
        # The estimate follows every field it depends on, as the person types.
        for signal in (
            self.player.currentIndexChanged,
            self.provider.currentIndexChanged,
            self.model_name.textChanged,
            self.perception.currentIndexChanged,
            self.reflection.toggled,
            self.thinking.toggled,
            self.budget.valueChanged,
        ):
            signal.connect(self.update_estimate)
        self._sync()

    def _provider_changed(self) -> None:
        key = self.provider.currentData()
        if self.model_name.text().strip() in DEFAULT_MODELS.values() or not self.model_name.text().strip():
            self.model_name.setText(DEFAULT_MODELS.get(key, ""))
        self._sync()

    def _sync(self) -> None:
        choice = self.player.currentData()
        self.model_box.setVisible(choice == MODEL)
        self.harness_box.setVisible(choice in (SIM, MODEL))
        local = self.provider.currentData() == "local"
        self.base_url.setVisible(local)
        self.base_url_label.setVisible(local)
        # A local server costs nothing, so there is nothing to cap.
        self.budget_row.setVisible(not local)
        self.budget_label.setVisible(not local)
        self.update_estimate()

    def update_estimate(self, *_args: Any) -> None:
        """Refresh the one-line cost estimate for the current choice."""
        text, tip = estimate_text(self.spec(), self.options(), self._decisions())
        self.estimate.setText(text)
        self.estimate.setToolTip(tip)

    def set_choice(self, spec: str, options: dict[str, Any] | None = None) -> None:
        """Preselect a player spec (``human``, a bot, ``sim``, ``openai:MODEL``...)."""
        options = options or {}
        prefix, _, rest = spec.partition(":")
        if prefix in ("openai", "anthropic", "local"):
            self.player.setCurrentIndex(self.player.findData(MODEL))
            self.provider.setCurrentIndex(self.provider.findData(prefix))
            if prefix == "local" and "@" in rest:
                rest, _, url = rest.partition("@")
                self.base_url.setText(url)
            self.model_name.setText(rest)
        else:
            index = self.player.findData(SIM if prefix == "sim" else spec)
            if index >= 0:
                self.player.setCurrentIndex(index)
        if "perception" in options:
            self.perception.setCurrentIndex(max(0, self.perception.findData(options["perception"])))
        if "image_labels" in options:
            self.image_labels.setChecked(bool(options["image_labels"]))
        if "action_format" in options:
            self.action_format.setCurrentIndex(max(0, self.action_format.findData(options["action_format"])))
        policy = options.get("invalid_policy")
        if isinstance(policy, Mapping):
            if "reask" in policy:
                self.reask.setCurrentIndex(max(0, self.reask.findData(policy["reask"])))
            if isinstance(policy.get("retries"), int):
                self.retries.setValue(int(policy["retries"]))
            if "fallback" in policy:
                self.fallback.setCurrentIndex(max(0, self.fallback.findData(policy["fallback"])))
        if isinstance(options.get("memory"), int):
            self.memory.setValue(int(options["memory"]))
        if "reflection" in options:
            self.reflection.setChecked(bool(options["reflection"]))
        if "thinking" in options:
            self.thinking.setChecked(bool(options["thinking"]))
        if isinstance(options.get("thinking_budget"), int):
            self.budget.setValue(int(options["thinking_budget"]))
        if isinstance(options.get("temperature"), (int, float)):
            self.temperature.setValue(float(options["temperature"]))
        for field, key in ((self.budget_soft, "budget_soft_usd"), (self.budget_hard, "budget_hard_usd")):
            value = options.get(key)
            field.setText(f"{float(value):g}" if isinstance(value, (int, float)) and value > 0 else "")
        if isinstance(options.get("timeout_s"), (int, float)):
            self.timeout.setValue(round(float(options["timeout_s"])))
        self._sync()

    def spec(self) -> str:
        choice = self.player.currentData()
        if choice != MODEL:
            return str(choice)
        provider = self.provider.currentData()
        name = self.model_name.text().strip() or DEFAULT_MODELS[provider]
        if provider == "local":
            return f"local:{name}@{self.base_url.text().strip()}"
        return f"{provider}:{name}"

    def options(self) -> dict[str, Any]:
        if self.player.currentData() not in (SIM, MODEL):
            return {}
        opts: dict[str, Any] = {
            "perception": self.perception.currentData(),
            "image_labels": self.image_labels.isChecked(),
            "memory": self.memory.value(),
            "reflection": self.reflection.isChecked(),
            "thinking": self.thinking.isChecked(),
            "prompt_variant": self.variant.currentData() or "default",
            "action_format": self.action_format.currentData(),
            "invalid_policy": {"reask": self.reask.currentData(), "retries": self.retries.value(),
                               "fallback": self.fallback.currentData()},
        }
        if self.thinking.isChecked():
            opts["thinking_budget"] = self.budget.value()
        if self.temperature.value() >= 0:
            opts["temperature"] = round(self.temperature.value(), 2)
        if self.player.currentData() == MODEL:
            opts["timeout_s"] = float(self.timeout.value())
            if self.provider.currentData() in PAID_PROVIDERS:
                caps = (("budget_soft_usd", self.budget_soft), ("budget_hard_usd", self.budget_hard))
                for key, field in caps:
                    value = _usd_or_none(field.text())
                    if value is not None:
                        opts[key] = value
        return opts

    def setup(self) -> SeatSetup:
        return SeatSetup(self.spec(), self.options())


class NewGameDialog(QDialog):
    """Choose a game, its options, a seed and the players; emits ``sig_start_requested(GameSetup)``."""

    sig_start_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None, *, previous: GameSetup | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New game")
        self.setMinimumSize(620, 560)
        self.resize(660, 720)
        self.seat_editors: list[SeatEditor] = []

        self.game = QComboBox()
        self._fill_games()
        self.description = QLabel("")
        self.description.setObjectName("Muted")
        self.description.setWordWrap(True)
        self.options_box = OptionsBox()
        self.seed = QSpinBox()
        self.seed.setRange(0, 2_147_483_647)
        self.seed.setValue(random.randrange(1, 1_000_000))
        reroll = QPushButton("New seed")
        reroll.clicked.connect(lambda: self.seed.setValue(random.randrange(1, 1_000_000)))
        self.max_steps = QSpinBox()
        self.max_steps.setRange(0, 100_000)
        self.max_steps.setSpecialValueText("no limit")
        self.max_steps.setValue(0)
        self.paused = QCheckBox("Start paused — step the models by hand (Ask, Accept, Override, Re-ask)")
        # Why Start is refused (an option out of range): red, under the options, hidden when all is well.
        self.error = QLabel("")
        self.error.setObjectName("OptionError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {theme.ERROR_FG}; font-weight: 600;")
        self.error.setVisible(False)
        # A paid model without a key: which key is missing, and a way to add it without losing the setup.
        self.key_notice = QWidget()
        self.key_notice.setObjectName("KeyNotice")
        notice_row = QHBoxLayout(self.key_notice)
        notice_row.setContentsMargins(0, 0, 0, 0)
        self.key_error = QLabel("")
        self.key_error.setWordWrap(True)
        self.key_error.setStyleSheet(f"color: {theme.ERROR_FG}; font-weight: 600;")
        self.keys_button = QPushButton("Models && keys…")
        self.keys_button.setToolTip("Add an API key; this dialog stays open with your choices")
        self.keys_button.clicked.connect(self.open_keys)
        notice_row.addWidget(self.key_error, 1)
        notice_row.addWidget(self.keys_button, 0, Qt.AlignmentFlag.AlignTop)
        self.key_notice.setVisible(False)
        self.keys_dialog: QDialog | None = None

        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        form.addRow("Game", self.game)
        form.addRow("", self.description)
        seed_row = QHBoxLayout()
        seed_row.addWidget(self.seed, 1)
        seed_row.addWidget(reroll)
        form.addRow("Seed", seed_row)
        form.addRow("Max steps", self.max_steps)
        self.form = form
        form.addRow("", self.paused)

        self.seats_host = QWidget()
        self.seats_layout = QVBoxLayout(self.seats_host)
        self.seats_layout.setContentsMargins(0, 0, 4, 0)
        self.seats_layout.setSpacing(10)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(self.seats_host)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.start_button = self.buttons.addButton("Start", QDialogButtonBox.ButtonRole.AcceptRole)
        self.start_button.setObjectName("Primary")
        self.start_button.setDefault(True)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 12)
        layout.setSpacing(10)
        layout.addLayout(form)
        layout.addWidget(self.options_box)
        layout.addWidget(self.error)
        players_title = QLabel("Players")
        players_title.setObjectName("HeaderTitle")
        layout.addWidget(players_title)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.key_notice)
        layout.addWidget(self.buttons)

        self.max_steps.valueChanged.connect(self._update_estimates)
        self.options_box.sig_changed.connect(self._check_options)
        if previous is not None:
            index = self.game.findData(previous.game_id)
            if index >= 0 and self._selectable(index):
                self.game.setCurrentIndex(index)
        self.game.currentIndexChanged.connect(lambda _i: self._game_changed())
        self._game_changed(previous)

    # -- the list of games ------------------------------------------------------------------------

    def _fill_games(self) -> None:
        """Playable games first; then, disabled, those that cannot be played here (with the reason)."""
        found = engine.entries()
        for entry in found:
            if entry.available:
                self.game.addItem(entry.title, entry.id)
                self.game.setItemData(self.game.count() - 1, entry.cls.description if entry.cls else "",
                                      Qt.ItemDataRole.ToolTipRole)
        missing = [e for e in found if not e.available]
        if missing and self.game.count():
            self.game.insertSeparator(self.game.count())
        model = self.game.model()
        for entry in missing:
            self.game.addItem(f"{entry.title} — not installed", entry.id)
            index = self.game.count() - 1
            tip = f"{entry.problem}; install it with: {entry.install}" if entry.install else entry.problem
            self.game.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
            if isinstance(model, QStandardItemModel):
                item = model.item(index)
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled & ~Qt.ItemFlag.ItemIsSelectable)
        first = next((i for i in range(self.game.count()) if self._selectable(i)), -1)
        self.game.setCurrentIndex(first)

    def _selectable(self, index: int) -> bool:
        model = self.game.model()
        if not isinstance(model, QStandardItemModel) or model.item(index) is None:
            return False
        enabled = bool(model.item(index).flags() & Qt.ItemFlag.ItemIsEnabled)
        return enabled and self.game.itemData(index) is not None

    def game_class(self) -> type[Game] | None:
        """The declaration of the selected game (``None`` when no game can be played here)."""
        game_id = self.game.currentData()
        if game_id is None or not self._selectable(self.game.currentIndex()):
            return None
        try:
            return engine.declaration(str(game_id))
        except engine.UnknownGameError:
            return None

    def _game_changed(self, previous: GameSetup | None = None) -> None:
        cls = self.game_class()
        same = previous is not None and cls is not None and previous.game_id == cls.id
        self.description.setText(cls.description if cls is not None else "No game can be played here.")
        self.description.setVisible(bool(self.description.text()))
        self.options_box.set_schema(cls.options_schema if cls is not None else (),
                                    previous.options if same and previous is not None else None)
        # A game with its own step cap (an option) shows that one only, never two "Max steps".
        own_cap = cls is not None and any(o.name == "max_steps" for o in cls.options_schema)
        self.max_steps.setVisible(not own_cap)
        label = self.form.labelForField(self.max_steps)
        if label is not None:
            label.setVisible(not own_cap)
        if own_cap:
            self.max_steps.setValue(0)
        self._rebuild_seats(cls, previous if same else None)
        self._check_options()

    def _rebuild_seats(self, cls: type[Game] | None, previous: GameSetup | None = None) -> None:
        for editor in self.seat_editors:
            editor.setParent(None)
            editor.deleteLater()
        self.seat_editors = []
        while self.seats_layout.count():
            self.seats_layout.takeAt(0)
        if cls is None:
            return
        for seat, info in enumerate(cls.seats):
            editor = SeatEditor(cls.id, seat, info.name, decisions=self.decisions_per_seat)
            if previous is not None and seat < len(previous.seats):
                editor.set_choice(previous.seats[seat].spec, previous.seats[seat].options)
            elif len(cls.seats) == 1:
                editor.set_choice("human")
            else:
                editor.set_choice("human" if seat == 0 else cls.default_opponent)
            self.seats_layout.addWidget(editor)
            self.seat_editors.append(editor)
            for signal in (editor.player.currentIndexChanged, editor.provider.currentIndexChanged):
                signal.connect(self._recheck_keys)
        self.seats_layout.addStretch(1)
        self._recheck_keys()

    def _recheck_keys(self, *_args: Any) -> None:
        # Once shown, the missing-key notice follows the seats (a seat switched to a local model...).
        if not self.key_notice.isHidden():
            self._check_keys()

    # -- values -----------------------------------------------------------------------------------

    def _check_options(self) -> bool:
        """Show why the options cannot be used (if they cannot); Start is enabled only when they can."""
        try:
            self.options_box.values()
        except OptionError as exc:
            self.error.setText(f"Cannot start: {exc}.")
            self.error.setVisible(True)
            self.start_button.setEnabled(False)
            return False
        self.error.setVisible(False)
        self.start_button.setEnabled(self.game_class() is not None)
        return self.game_class() is not None

    def decisions_per_seat(self) -> int:
        """About how many decisions each seat makes in one game (for the cost estimates)."""
        return decisions_per_episode(str(self.game.currentData()), self.max_steps.value() or None)

    def _update_estimates(self) -> None:
        for editor in self.seat_editors:
            editor.update_estimate()

    def setup(self) -> GameSetup:
        """The game described by the dialog's current values.

        Raises:
            OptionError: a game option holds a value the game does not accept (the message names it).
        """
        return GameSetup(
            game_id=str(self.game.currentData()),
            seats=[e.setup() for e in self.seat_editors],
            seed=self.seed.value(),
            max_steps=self.max_steps.value() or None,
            options=self.options_box.values(),
            paused=self.paused.isChecked(),
        )

    def missing_keys(self) -> dict[str, list[str]]:
        """Paid providers chosen for a seat that have no key anywhere: provider -> the seats' titles."""
        missing: dict[str, list[str]] = {}
        for editor in self.seat_editors:
            provider = editor.spec().partition(":")[0]
            if provider in PAID_PROVIDERS and keys.resolve_key(provider) is None:
                missing.setdefault(provider, []).append(editor.title())
        return missing

    def _check_keys(self) -> bool:
        """Show which keys are missing (if any); returns whether every paid seat has its key."""
        missing = self.missing_keys()
        self.key_error.setText("\n".join(missing_key_text(p, seats) for p, seats in missing.items()))
        self.key_notice.setVisible(bool(missing))
        return not missing

    def open_keys(self) -> QDialog:
        """Open *Models & keys* on the first missing provider's tab; the setup here stays as it is."""
        from desktop.keys_dialog import ModelsKeysDialog

        if self.keys_dialog is not None:
            self.keys_dialog.raise_()
            return self.keys_dialog
        dialog = ModelsKeysDialog(self)
        missing = list(self.missing_keys())
        if missing and missing[0] in dialog.pages:
            dialog.tabs.setCurrentWidget(dialog.pages[missing[0]])
        dialog.finished.connect(self._keys_closed)
        self.keys_dialog = dialog
        dialog.open()
        return dialog

    def _keys_closed(self, _result: int) -> None:
        dialog, self.keys_dialog = self.keys_dialog, None
        if dialog is not None:
            dialog.deleteLater()
        if not self.key_notice.isHidden():
            self._check_keys()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        # Only Start is a default button: a focused "New seed" (or any other) button must not take
        # Enter from it.
        for button in self.findChildren(QPushButton):
            if button is not self.start_button:
                button.setAutoDefault(False)
                button.setDefault(False)
        super().showEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        # Enter starts the game from any field (a spin box or a line edit passes Enter on to here).
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.modifiers() & ~(
            Qt.KeyboardModifier.KeypadModifier
        ):
            event.accept()
            if self.start_button.isEnabled():
                self.accept()
            return
        super().keyPressEvent(event)

    def accept(self) -> None:
        """Start the game, unless an option is invalid or a paid model has no key (then the message
        says which, and the dialog stays open with everything chosen)."""
        if not self._check_options() or not self._check_keys():
            return
        self.sig_start_requested.emit(self.setup())
        super().accept()
