"""The "Models & keys" dialog: per provider an API key, a base URL, a default model and a connection test.

Keys typed here go to PlayTrace's key store only (:class:`engine.llm.keys.KeyStore`, a separate
owner-only ``keys.json``), never to the settings file and never to a log; the dialog shows *where* a
key comes from (environment variable or key store), never the key. Base URLs and default models go
to :class:`~desktop.settings.AppSettings`.

"Test connection" runs :func:`engine.llm.local.health_check` as an asyncio task on the running
(qasync) loop, so the window stays responsive; each page numbers its checks so a slow, stale answer
never overwrites a newer one.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop import theme
from desktop.settings import DEFAULT_BASE_URLS, AppSettings, SecretInSettingsError
from engine.llm import keys

__all__ = ["PROVIDER_INFO", "ModelsKeysDialog", "ProviderPage"]

HealthCheck = Callable[..., Awaitable[Any]]


@dataclasses.dataclass(frozen=True)
class ProviderInfo:
    """How the dialog presents one provider."""

    provider: str
    title: str
    presets: tuple[tuple[str, str], ...]
    model_hint: str
    #: Local servers usually need no key; cloud providers do.
    key_optional: bool = False


def _local_presets() -> tuple[tuple[str, str], ...]:
    try:
        from engine.llm.local import PRESETS
    except ImportError:  # the presets module is optional for the dialog
        return (("Ollama", DEFAULT_BASE_URLS["local"]),)
    return tuple((p.label, p.base_url) for p in PRESETS.values())


PROVIDER_INFO: tuple[ProviderInfo, ...] = (
    ProviderInfo("openai", "OpenAI", (("OpenAI", DEFAULT_BASE_URLS["openai"]),), "e.g. gpt-4o"),
    ProviderInfo(
        "anthropic", "Anthropic", (("Anthropic", DEFAULT_BASE_URLS["anthropic"]),), "e.g. claude-sonnet-4-5"
    ),
    ProviderInfo(
        "local", "Local / OpenAI-compatible", _local_presets(), "e.g. qwen2.5vl:7b", key_optional=True
    ),
)


def _default_health_check() -> HealthCheck:
    from engine.llm.local import health_check

    return health_check


async def _as_coroutine(make: Callable[[], Awaitable[Any]]) -> Any:
    return await make()


class _ResultBridge(QObject):
    """Carries a result from a worker thread back to the GUI thread (fallback without a running loop)."""

    done = Signal(object, object)


class ProviderPage(QWidget):
    """The fields of one provider: key, base URL (with presets), default model and connection test."""

    check_finished = Signal(object)

    def __init__(
        self,
        info: ProviderInfo,
        settings: AppSettings,
        store: keys.KeyStore,
        health_check: HealthCheck | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.info = info
        self.settings = settings
        self.store = store
        self._health_check = health_check
        self._check_number = 0
        self.task: asyncio.Task[Any] | None = None
        self._bridge = _ResultBridge(self)
        self._bridge.done.connect(self._on_result)

        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        form.setContentsMargins(12, 12, 12, 12)
        form.setSpacing(8)

        self.key_edit = QLineEdit(self)
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setObjectName(f"{info.provider}_key")
        # Never offer to remember or complete what is typed in a key field.
        self.key_edit.setAttribute(Qt.WidgetAttribute.WA_InputMethodEnabled, False)
        self.show_key = QAction("Show", self.key_edit)
        self.show_key.setCheckable(True)
        self.show_key.setToolTip("Show or hide the key you are typing")
        self.show_key.toggled.connect(
            lambda on: self.key_edit.setEchoMode(
                QLineEdit.EchoMode.Normal if on else QLineEdit.EchoMode.Password
            )
        )
        self.key_edit.addAction(self.show_key, QLineEdit.ActionPosition.TrailingPosition)
        self.forget_button = QPushButton("Forget stored key", self)
        self.forget_button.clicked.connect(self.forget_key)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.forget_button)
        self.key_status = QLabel(self)
        self.key_status.setWordWrap(True)
        self.key_status.setStyleSheet(f"color: {theme.MUTED};")
        self.key_status.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        key_box = QVBoxLayout()
        key_box.setSpacing(4)
        key_box.addLayout(key_row)
        key_box.addWidget(self.key_status)
        form.addRow("API key", key_box)

        self.preset_combo = QComboBox(self)
        for label, url in info.presets:
            self.preset_combo.addItem(f"{label} — {url}", url)
        self.preset_combo.addItem("Custom URL", "")
        self.preset_combo.activated.connect(self._on_preset)
        self.url_edit = QLineEdit(self)
        self.url_edit.setPlaceholderText(info.presets[0][1] if info.presets else "http://host:port/v1")
        self.url_edit.textEdited.connect(self._sync_preset)
        form.addRow("Server preset", self.preset_combo)
        form.addRow("Base URL", self.url_edit)

        self.model_combo = QComboBox(self)
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        for combo in (self.preset_combo, self.model_combo):
            combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            combo.setMinimumContentsLength(24)
        line_edit = self.model_combo.lineEdit()
        if line_edit is not None:
            line_edit.setPlaceholderText(info.model_hint)
        form.addRow("Default model", self.model_combo)

        self.test_button = QPushButton("Test connection", self)
        self.test_button.setToolTip("Ask the server whether it answers, lists the model and accepts images")
        self.test_button.clicked.connect(self.start_check)
        self.result_label = QLabel(self)
        self.result_label.setObjectName("CheckResult")
        self.result_label.setWordWrap(True)
        self.result_label.setTextFormat(Qt.TextFormat.RichText)
        self.result_label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        # Room for the verdict and a two-line message, so the dialog does not jump when a result arrives.
        self.result_label.setMinimumHeight(3 * self.result_label.fontMetrics().lineSpacing() + 4)
        self.result_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        test_box = QVBoxLayout()
        test_box.setSpacing(6)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addStretch(1)
        test_box.addLayout(test_row)
        test_box.addWidget(self.result_label)
        form.addRow("", test_box)

        self.load()

    # ------------------------------------------------------------------ state

    def load(self) -> None:
        """Fill the fields from the settings and the key store (the key itself is never shown)."""
        self.url_edit.setText(self.settings.base_url(self.info.provider))
        self._sync_preset()
        model = self.settings.default_model(self.info.provider)
        self.model_combo.setEditText(model)
        self.key_edit.clear()
        self.refresh_key_status()

    def refresh_key_status(self) -> None:
        provider = self.info.provider
        source = keys.key_source(provider, store=self.store)
        stored = self.store.get(provider) is not None
        var = keys.ENV_VARS.get(provider)
        if source == "env" and var:
            text = f"Using {var} from the environment (it takes precedence over a stored key)."
        elif stored:
            text = (
                "A key is stored in PlayTrace's key store (keys.json, readable by you only). "
                "Type a new one to replace it."
            )
        elif self.info.key_optional:
            text = "No key (most local servers need none)."
        else:
            hint = f"set {var} or " if var else ""
            text = f"No key: {hint}paste one here to store it in PlayTrace's key store."
        self.key_status.setText(text)
        self.forget_button.setEnabled(stored)
        self.key_edit.setPlaceholderText("•••••••• stored" if stored else "paste a key")

    def base_url(self) -> str:
        return self.url_edit.text().strip() or self.url_edit.placeholderText()

    def model(self) -> str:
        return self.model_combo.currentText().strip()

    def save(self) -> None:
        """Store a typed key in the key store, and the base URL and model in the settings."""
        key = self.key_edit.text().strip()
        if key:
            self.store.set(self.info.provider, key)
            keys.register_secret(key)  # so redact() masks it wherever it could surface
            self.key_edit.clear()
        self.settings.set_base_url(self.info.provider, self.url_edit.text())
        self.settings.set_default_model(self.info.provider, self.model())
        self.refresh_key_status()

    def forget_key(self) -> None:
        self.store.delete(self.info.provider)
        self.refresh_key_status()

    def _on_preset(self, index: int) -> None:
        url = self.preset_combo.itemData(index)
        if url:
            self.url_edit.setText(str(url))

    def _sync_preset(self) -> None:
        url = self.url_edit.text().strip().rstrip("/")
        index = next(
            (
                i
                for i in range(self.preset_combo.count())
                if self.preset_combo.itemData(i) and str(self.preset_combo.itemData(i)).rstrip("/") == url
            ),
            self.preset_combo.count() - 1,
        )
        self.preset_combo.setCurrentIndex(index)

    # ------------------------------------------------------------------ connection test

    def start_check(self) -> None:
        """Start the health check without blocking: an asyncio task on the running loop."""
        self._check_number += 1
        number = self._check_number
        if self.task is not None and not self.task.done():
            self.task.cancel()
        check = self._health_check or _default_health_check()
        typed = self.key_edit.text().strip()
        # A key typed only to test it is still a key: mask it in what the check reports and in logs.
        keys.register_secret(typed)
        api_key = keys.resolve_key(self.info.provider, typed or None, store=self.store)
        base_url, model = self.base_url(), self.model()

        def make_check() -> Awaitable[Any]:
            # Created only when it will be awaited: a task cancelled before it starts leaves no
            # never-awaited coroutine behind.
            return check(
                base_url, model, api_key=api_key, timeout=5, probe_images=self.info.provider == "local"
            )

        self.test_button.setEnabled(False)
        self.result_label.setText(f"<span style='color:{theme.MUTED};'>Checking {self.base_url()}…</span>")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            self.task = loop.create_task(self._await(number, make_check))
        else:
            # No qasync loop (a dialog opened from a plain Qt script): run the check on a thread.
            def work() -> None:
                try:
                    result: Any = asyncio.run(_as_coroutine(make_check))
                except Exception as exc:  # shown in the dialog, never raised into Qt
                    result = exc
                self._bridge.done.emit(number, result)

            threading.Thread(target=work, daemon=True, name="playtrace-health-check").start()

    async def _await(self, number: int, make_check: Callable[[], Awaitable[Any]]) -> None:
        try:
            result: Any = await make_check()
        except asyncio.CancelledError:
            if number == self._check_number:
                self.test_button.setEnabled(True)
            raise
        except Exception as exc:  # shown in the dialog, never raised into the loop
            result = exc
        self._on_result(number, result)

    def _on_result(self, number: object, result: object) -> None:
        if number != self._check_number:
            return  # a newer check is running; this answer is stale
        self.test_button.setEnabled(True)
        self.result_label.setText(self._describe(result))
        models = list(getattr(result, "models", None) or [])
        if models:
            current = self.model()
            self.model_combo.clear()
            self.model_combo.addItems(models)
            self.model_combo.setEditText(current)
        self.check_finished.emit(result)

    @staticmethod
    def _describe(result: object) -> str:
        if isinstance(result, Exception):
            return f"<span style='color:{theme.ERROR_FG};'>✗ Check failed: {keys.redact(str(result))}</span>"

        def mark(value: object, yes: str, no: str, unknown: str) -> str:
            if value is True:
                return f"<span style='color:{theme.SUCCESS};'>✓ {yes}</span>"
            if value is False:
                return f"<span style='color:{theme.ERROR_FG};'>✗ {no}</span>"
            return f"<span style='color:{theme.MUTED};'>? {unknown}</span>"

        reachable = getattr(result, "reachable", None)
        parts = [mark(reachable, "reachable", "not reachable", "reachability unknown")]
        if reachable:
            parts.append(
                mark(
                    getattr(result, "model_listed", None),
                    "model listed",
                    "model not listed",
                    "model list unknown",
                )
            )
            parts.append(
                mark(
                    getattr(result, "accepts_images", None),
                    "accepts images",
                    "refuses images",
                    "images not tested",
                )
            )
        message = keys.redact(str(getattr(result, "message", "") or ""))
        return " · ".join(parts) + (f"<br>{message}" if message else "")


def _answer(box: QMessageBox) -> QMessageBox.StandardButton:
    """The standard button the person chose (Cancel when the box was closed another way)."""
    clicked = box.clickedButton()
    return box.standardButton(clicked) if clicked is not None else QMessageBox.StandardButton.Cancel


class ModelsKeysDialog(QDialog):
    """Models & keys: one tab per provider (OpenAI, Anthropic, local OpenAI-compatible servers).

    Args:
        parent: The owning window.
        settings: Where base URLs and default models go (default: :class:`AppSettings`).
        store: Where keys go (default: the :class:`engine.llm.keys.KeyStore` in the config folder).
        health_check: The connection test coroutine function (default:
            :func:`engine.llm.local.health_check`); tests inject a fake.
    """

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        settings: AppSettings | None = None,
        store: keys.KeyStore | None = None,
        health_check: HealthCheck | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Models & keys")
        self.setMinimumWidth(560)
        self.settings = settings or AppSettings()
        self.store = store or keys.KeyStore()
        self.tabs = QTabWidget(self)
        self.pages: dict[str, ProviderPage] = {}
        for info in PROVIDER_INFO:
            page = ProviderPage(info, self.settings, self.store, health_check, self.tabs)
            self.pages[info.provider] = page
            self.tabs.addTab(page, info.title)
        note = QLabel(
            "Keys are kept apart from the settings, in keys.json in PlayTrace's configuration folder "
            "(owner-only permissions, not encrypted). Environment variables work too and are never copied.",
            self,
        )
        note.setWordWrap(True)
        note.setStyleSheet(f"color: {theme.MUTED};")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close, self
        )
        buttons.accepted.connect(self.save_and_close)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        # The question asked when Close would drop a typed key (open while it is being asked).
        self.unsaved_box: QMessageBox | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(note)
        layout.addWidget(buttons)

    def save(self) -> None:
        """Save every page (keys to the key store, the rest to the settings) and write the settings."""
        for page in self.pages.values():
            page.save()
        self.settings.sync()

    def save_and_close(self) -> None:
        try:
            self.save()
        except SecretInSettingsError as exc:
            # A key pasted into the base URL or model field: say so on its page and keep the dialog open.
            page = next((p for p in self.pages.values() if p.info.provider in str(exc)), None)
            if page is not None:
                self.tabs.setCurrentWidget(page)
                target = page.result_label
            else:
                target = next(iter(self.pages.values())).result_label
            target.setText(
                f"<span style='color:{theme.ERROR_FG};'>✗ That looks like an API key: paste keys into the "
                "API key field only (base URL and model are saved in the plain settings file).</span>"
            )
            return
        self.accept()

    def unsaved_keys(self) -> list[str]:
        """The titles of the providers whose key field holds a key that was typed but not saved."""
        return [p.info.title for p in self.pages.values() if p.key_edit.text().strip()]

    def reject(self) -> None:
        """Close (the button, Escape or the window's close box); asks first if a typed key is unsaved.

        The question is shown with ``open()``, never ``exec()`` (no nested loop inside the asyncio loop):
        Save stores everything and closes, Discard closes without it, Cancel goes back to the dialog.
        """
        unsaved = self.unsaved_keys()
        if not unsaved:
            super().reject()
            return
        if self.unsaved_box is not None:
            self.unsaved_box.raise_()
            return
        names = " and ".join(unsaved)
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Models & keys",
            f"Save the {names} key you typed?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setInformativeText("Discarded, it is kept nowhere: you would have to paste it again.")
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        box.setEscapeButton(QMessageBox.StandardButton.Cancel)
        box.finished.connect(self._unsaved_answered)
        self.unsaved_box = box
        box.open()

    def _unsaved_answered(self, _result: int) -> None:
        box, self.unsaved_box = self.unsaved_box, None
        if box is None:
            return
        answer = _answer(box)
        box.deleteLater()
        if answer == QMessageBox.StandardButton.Save:
            self.save_and_close()
        elif answer == QMessageBox.StandardButton.Discard:
            for page in self.pages.values():
                page.key_edit.clear()
            super().reject()
        # Cancel (or Escape): back to the dialog, the typed key still there.

    def done(self, result: int) -> None:  # noqa: D102 (Qt override)
        # Leave no check running against a closed dialog.
        for page in self.pages.values():
            if page.task is not None and not page.task.done():
                page.task.cancel()
        super().done(result)
