"""Settings persist in an ini file under PLAYTRACE_HOME and never hold a key; the Models & keys dialog
stores keys only in the key store and tests connections without blocking the Qt loop."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtWidgets import QApplication

from desktop.keys_dialog import ModelsKeysDialog
from desktop.settings import AppSettings, SecretInSettingsError, settings_path
from engine.llm import keys
from engine.llm.local import HealthReport

SECRET = "sk-proj-TESTKEY0123456789abcdefXYZ"


@pytest.fixture
def loop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    event_loop = qasync.QEventLoop(qapp)
    yield event_loop
    event_loop.close()


def _config_files_text(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8", errors="replace") for p in folder.rglob("*") if p.is_file()}


def test_settings_live_under_playtrace_home_and_round_trip() -> None:
    path = settings_path()
    assert path == Path(os.environ["PLAYTRACE_HOME"]) / "config" / "playtrace.ini"
    settings = AppSettings()
    settings.demo_done = True
    settings.set_base_url("local", "http://localhost:1234/v1")
    settings.set_default_model("openai", "gpt-4o")
    settings.sync()
    assert path.is_file()

    again = AppSettings()
    assert again.demo_done is True
    assert again.base_url("local") == "http://localhost:1234/v1"
    assert again.base_url("openai") == "https://api.openai.com/v1"  # default when unset
    assert again.default_model("openai") == "gpt-4o" and again.default_model("anthropic") == ""
    # Clearing a value brings the default back.
    again.set_base_url("local", "  ")
    again.set_default_model("openai", "")
    again.sync()
    third = AppSettings()
    assert third.base_url("local") == "http://localhost:11434/v1" and third.default_model("openai") == ""


def test_settings_refuse_secrets() -> None:
    settings = AppSettings()
    with pytest.raises(SecretInSettingsError):
        settings.set_value("providers/openai_api_key", "anything")
    with pytest.raises(SecretInSettingsError):
        settings.set_default_model("openai", SECRET)
    with pytest.raises(SecretInSettingsError):
        settings.set_value("harness/options", {"memory": 3, "api_key": "x"})  # a key name, nested
    with pytest.raises(SecretInSettingsError):
        settings.set_value("players/tictactoe", ["human", SECRET])  # a key value, in a list
    with pytest.raises(SecretInSettingsError) as info:
        settings.set_base_url("local", f"http://localhost:8000/v1?key={SECRET}")
    assert SECRET not in str(info.value)
    settings.set_value("harness/max_tokens", 512)  # "tokens" is not a secret
    settings.sync()
    assert SECRET not in settings.path.read_text(encoding="utf-8")


def test_dialog_saves_key_to_key_store_only(qtbot: Any) -> None:
    settings = AppSettings()
    dialog = ModelsKeysDialog(settings=settings)
    qtbot.addWidget(dialog)
    page = dialog.pages["openai"]
    assert page.key_edit.echoMode() == page.key_edit.EchoMode.Password
    page.key_edit.setText(SECRET)
    page.model_combo.setEditText("gpt-4o-mini")
    local = dialog.pages["local"]
    local.url_edit.setText("http://localhost:8000/v1")
    dialog.save()

    store = keys.KeyStore()
    assert store.get("openai") == SECRET
    ini = settings.path.read_text(encoding="utf-8")
    assert SECRET not in ini and "sk-" not in ini
    assert "gpt-4o-mini" in ini and "http://localhost:8000/v1" in ini
    # The key is only in keys.json, owner-only; no other configuration file holds it.
    files = _config_files_text(settings.path.parent)
    holders = sorted(name for name, text in files.items() if SECRET in text)
    assert holders == ["keys.json"]
    if sys.platform != "win32":
        assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    # The field is cleared and the status says where the key lives, never the key.
    assert page.key_edit.text() == ""
    assert "key store" in page.key_status.text() and SECRET not in page.key_status.text()
    assert page.forget_button.isEnabled()

    page.forget_key()
    assert keys.KeyStore().get("openai") is None
    assert not page.forget_button.isEnabled()


def test_dialog_shows_environment_key_source(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-ENVKEY0123456789")
    dialog = ModelsKeysDialog(settings=AppSettings())
    qtbot.addWidget(dialog)
    status = dialog.pages["anthropic"].key_status.text()
    assert "ANTHROPIC_API_KEY" in status and "environment" in status
    assert "ENVKEY" not in status
    assert "No key" in dialog.pages["openai"].key_status.text()
    dialog.save()
    assert "ENVKEY" not in settings_path().read_text(encoding="utf-8")
    assert keys.KeyStore().get("anthropic") is None  # an environment key is never copied


def test_local_presets_fill_base_url(qtbot: Any) -> None:
    dialog = ModelsKeysDialog(settings=AppSettings())
    qtbot.addWidget(dialog)
    page = dialog.pages["local"]
    labels = [page.preset_combo.itemText(i) for i in range(page.preset_combo.count())]
    assert any(label.startswith("LM Studio") for label in labels) and any(
        "llama.cpp" in label for label in labels
    )
    index = next(i for i, label in enumerate(labels) if label.startswith("LM Studio"))
    page.preset_combo.setCurrentIndex(index)
    page.preset_combo.activated.emit(index)
    assert page.url_edit.text() == "http://localhost:1234/v1"
    page.url_edit.setText("http://gpu-box:9000/v1")
    page.url_edit.textEdited.emit("http://gpu-box:9000/v1")
    assert page.preset_combo.currentText() == "Custom URL"


def test_connection_check_runs_as_task_without_blocking(qtbot: Any, loop: qasync.QEventLoop) -> None:
    release = asyncio.Event()
    calls: list[tuple[str, str, dict[str, Any]]] = []

    async def fake_check(base_url: str, model: str, **kw: Any) -> HealthReport:
        calls.append((base_url, model, kw))
        await release.wait()
        return HealthReport(True, ["llava:7b", "qwen2.5vl:7b"], True, True, "The server has qwen2.5vl:7b.")

    dialog = ModelsKeysDialog(settings=AppSettings(), health_check=fake_check)
    qtbot.addWidget(dialog)
    page = dialog.pages["local"]
    page.url_edit.setText("http://localhost:11434/v1")
    page.model_combo.setEditText("qwen2.5vl:7b")

    async def scenario() -> None:
        page.test_button.click()
        # The click returned at once; the check is a task awaiting on the same loop.
        assert page.task is not None and not page.task.done()
        assert not page.test_button.isEnabled()
        assert "Checking" in page.result_label.text()
        await asyncio.sleep(0.05)
        assert not page.task.done()
        release.set()
        await asyncio.wait_for(page.task, 2)

    loop.run_until_complete(scenario())
    assert calls == [
        ("http://localhost:11434/v1", "qwen2.5vl:7b", {"api_key": None, "timeout": 5, "probe_images": True})
    ]
    text = page.result_label.text()
    assert "reachable" in text and "model listed" in text and "accepts images" in text
    assert "The server has qwen2.5vl:7b." in text
    assert page.test_button.isEnabled()
    assert [page.model_combo.itemText(i) for i in range(page.model_combo.count())] == [
        "llava:7b",
        "qwen2.5vl:7b",
    ]
    assert page.model() == "qwen2.5vl:7b"


def test_stale_check_result_is_ignored(qtbot: Any, loop: qasync.QEventLoop) -> None:
    async def fake_check(base_url: str, model: str, **kw: Any) -> HealthReport:
        if base_url.endswith(":1/v1"):
            await asyncio.sleep(0.2)
            return HealthReport(False, [], False, None, "old answer")
        return HealthReport(True, [], False, None, "new answer")

    dialog = ModelsKeysDialog(settings=AppSettings(), health_check=fake_check)
    qtbot.addWidget(dialog)
    page = dialog.pages["local"]

    async def scenario() -> None:
        page.url_edit.setText("http://localhost:1/v1")
        page.start_check()
        first = page.task
        page.url_edit.setText("http://localhost:2/v1")
        page.start_check()
        assert page.task is not None
        await asyncio.wait_for(page.task, 2)
        # The first check was cancelled when the second started, not merely finished or ignored.
        assert first is not None and first is not page.task
        assert first.cancelled()

    loop.run_until_complete(scenario())
    assert "new answer" in page.result_label.text() and "old answer" not in page.result_label.text()
    assert "not reachable" not in page.result_label.text()


def test_check_failure_is_shown_redacted(qtbot: Any, loop: qasync.QEventLoop) -> None:
    async def failing(base_url: str, model: str, **kw: Any) -> HealthReport:
        raise RuntimeError(f"bad header Authorization: Bearer {SECRET}")

    dialog = ModelsKeysDialog(settings=AppSettings(), health_check=failing)
    qtbot.addWidget(dialog)
    page = dialog.pages["openai"]
    page.key_edit.setText(SECRET)

    async def scenario() -> None:
        page.start_check()
        assert page.task is not None
        await asyncio.wait_for(page.task, 2)

    loop.run_until_complete(scenario())
    text = page.result_label.text()
    assert "Check failed" in text and SECRET not in text
    assert page.test_button.isEnabled()


def test_connection_check_without_running_loop_uses_a_thread(qtbot: Any) -> None:
    async def fake_check(base_url: str, model: str, **kw: Any) -> HealthReport:
        await asyncio.sleep(0.01)
        return HealthReport(True, [], False, False, "no vision")

    dialog = ModelsKeysDialog(settings=AppSettings(), health_check=fake_check)
    qtbot.addWidget(dialog)
    page = dialog.pages["local"]
    with qtbot.waitSignal(page.check_finished, timeout=2000):
        page.start_check()
    assert "refuses images" in page.result_label.text() and "model not listed" in page.result_label.text()


def test_a_typed_key_that_does_not_look_like_one_is_masked_in_a_check_failure(
    qtbot: Any, loop: qasync.QEventLoop
) -> None:
    token = "llama-box-token-7f3a9c21e4"  # a local server's own key: no "sk-" shape to recognise

    async def failing(base_url: str, model: str, *, api_key: str | None = None, **kw: Any) -> HealthReport:
        raise RuntimeError(f"401 from {base_url}: unknown key {api_key}")

    dialog = ModelsKeysDialog(settings=AppSettings(), health_check=failing)
    qtbot.addWidget(dialog)
    page = dialog.pages["local"]
    page.key_edit.setText(token)  # typed, tested, never saved

    async def scenario() -> None:
        page.start_check()
        assert page.task is not None
        await asyncio.wait_for(page.task, 2)

    try:
        loop.run_until_complete(scenario())
        text = page.result_label.text()
        assert "Check failed" in text and "unknown key" in text
        assert token not in text
        assert token not in keys.redact(f"log line with {token}")  # and so in logs and crash reports
    finally:
        keys.forget_secret(token)


def test_a_key_pasted_into_the_model_field_is_refused_with_a_message(qtbot: Any, tmp_path: Path) -> None:
    settings = AppSettings()
    dialog = ModelsKeysDialog(settings=settings, store=keys.KeyStore(tmp_path / "keys.json"))
    qtbot.addWidget(dialog)
    dialog.show()
    page = dialog.pages["anthropic"]
    page.model_combo.setEditText(SECRET)  # pasted into the wrong field
    dialog.buttons.button(dialog.buttons.StandardButton.Save).click()
    assert dialog.isVisible()  # not closed as if saved
    assert dialog.tabs.currentWidget() is page
    assert "looks like an API key" in page.result_label.text()
    assert SECRET not in page.result_label.text()
    assert SECRET not in "".join(_config_files_text(settings.path.parent).values())


def _close_with_a_typed_key(qtbot: Any) -> tuple[ModelsKeysDialog, Any]:
    dialog = ModelsKeysDialog(settings=AppSettings())
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.pages["anthropic"].key_edit.setText(SECRET)
    from PySide6.QtWidgets import QDialogButtonBox

    dialog.buttons.button(QDialogButtonBox.StandardButton.Close).click()
    box = dialog.unsaved_box
    # Asked, without a nested event loop (we got here), naming the provider; the key is not shown.
    assert box is not None and box.isVisible() and dialog.isVisible()
    assert "Anthropic" in box.text() and SECRET not in box.text() + box.informativeText()
    return dialog, box


def test_close_asks_before_dropping_a_typed_key(qtbot: Any) -> None:
    from PySide6.QtWidgets import QMessageBox

    dialog, box = _close_with_a_typed_key(qtbot)
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert dialog.isVisible() and dialog.pages["anthropic"].key_edit.text() == SECRET
    assert keys.KeyStore().get("anthropic") is None

    dialog.reject()  # Escape or the close box ask the same question
    dialog.unsaved_box.button(QMessageBox.StandardButton.Save).click()
    assert not dialog.isVisible() and dialog.result() == dialog.DialogCode.Accepted
    assert keys.KeyStore().get("anthropic") == SECRET


def test_discard_closes_without_keeping_the_typed_key(qtbot: Any) -> None:
    from PySide6.QtWidgets import QMessageBox

    dialog, box = _close_with_a_typed_key(qtbot)
    box.button(QMessageBox.StandardButton.Discard).click()
    assert not dialog.isVisible() and dialog.result() == dialog.DialogCode.Rejected
    assert keys.KeyStore().get("anthropic") is None
    assert dialog.pages["anthropic"].key_edit.text() == ""


def test_close_without_a_typed_key_asks_nothing(qtbot: Any) -> None:
    dialog = ModelsKeysDialog(settings=AppSettings())
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.reject()
    assert dialog.unsaved_box is None and not dialog.isVisible()
