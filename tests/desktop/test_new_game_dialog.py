"""The New game dialog reads everything from the games' declarations: the list, options and players."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLabel, QLineEdit, QPushButton, QSpinBox

import engine
from desktop.controller import GameSetup, SeatSetup
from desktop.new_game_dialog import NewGameDialog
from desktop.option_fields import OptionsBox, option_field, option_value
from engine.options import Option, OptionError
from engine.registry import GameEntry


def _dialog(qtbot: Any, game_id: str, **kwargs: Any) -> NewGameDialog:
    dialog = NewGameDialog(**kwargs)
    qtbot.addWidget(dialog)
    dialog.game.setCurrentIndex(dialog.game.findData(game_id))
    return dialog


def _started(dialog: NewGameDialog) -> list[GameSetup]:
    received: list[GameSetup] = []
    dialog.sig_start_requested.connect(received.append)
    return received


def _retype(qtbot: Any, spin: QSpinBox, text: str) -> None:
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), text)


def test_2048_size_option_reaches_the_setup(qtbot: Any) -> None:
    dialog = _dialog(qtbot, "2048")
    assert not dialog.options_box.isHidden()
    size = dialog.options_box.field("size")
    assert isinstance(size, QSpinBox)
    option = next(o for o in engine.declaration("2048").options_schema if o.name == "size")
    # Bounded by the declaration, the default preselected, the help as tooltip.
    assert (size.minimum(), size.maximum(), size.value()) == (option.minimum, option.maximum, option.default)
    assert option.help in size.toolTip()
    _retype(qtbot, size, "5")
    received = _started(dialog)
    dialog.accept()
    assert len(received) == 1
    setup = received[0]
    assert setup.game_id == "2048" and setup.options["size"] == 5
    assert [s.spec for s in setup.seats] == ["human"]
    assert engine.make(setup.game_id, **setup.options).options["size"] == 5


def test_an_out_of_range_option_is_refused_with_its_name(qtbot: Any) -> None:
    dialog = _dialog(qtbot, "2048")
    size = dialog.options_box.field("size")
    assert isinstance(size, QSpinBox)
    _retype(qtbot, size, "1")  # below the minimum: the spin box holds it until it loses focus
    assert size.cleanText() == "1"
    assert not dialog.error.isHidden() and "'size'" in dialog.error.text()
    assert "at least 2" in dialog.error.text()
    assert not dialog.start_button.isEnabled()
    received = _started(dialog)
    dialog.accept()
    assert received == [] and dialog.result() != dialog.DialogCode.Accepted
    with pytest.raises(OptionError, match="size"):
        dialog.setup()
    # A valid value again clears the message and enables Start.
    _retype(qtbot, size, "3")
    assert dialog.error.isHidden() and dialog.start_button.isEnabled()


def test_a_game_without_options_shows_no_options_box(qtbot: Any) -> None:
    dialog = _dialog(qtbot, "connect4")
    assert engine.declaration("connect4").options_schema == ()
    assert dialog.options_box.isHidden() and dialog.options_box.fields == {}
    received = _started(dialog)
    dialog.accept()
    assert received[0].options == {}
    # Back to 2048: its box comes back with its field.
    dialog.game.setCurrentIndex(dialog.game.findData("2048"))
    assert not dialog.options_box.isHidden() and list(dialog.options_box.fields) == [
        o.name for o in engine.declaration("2048").options_schema
    ]


def test_previous_options_are_preselected(qtbot: Any) -> None:
    previous = GameSetup("2048", [SeatSetup("expectimax")], options={"size": 6})
    dialog = NewGameDialog(previous=previous)
    qtbot.addWidget(dialog)
    assert dialog.game.currentData() == "2048"
    assert dialog.options_box.field("size").value() == 6  # type: ignore[attr-defined]
    assert dialog.seat_editors[0].spec() == "expectimax"


def test_seat_players_come_from_the_declaration(qtbot: Any) -> None:
    dialog = _dialog(qtbot, "tictactoe")
    cls = engine.declaration("tictactoe")
    seat1 = dialog.seat_editors[1]
    offered = [seat1.player.itemData(i) for i in range(seat1.player.count())]
    assert offered[0] == "human" and offered[-2:] == ["sim", "model…"]
    assert set(cls.bots) | {"random"} <= set(offered)
    assert dialog.seat_editors[0].spec() == "human" and seat1.spec() == cls.default_opponent
    # The prompt variants are the game's own templates.
    dialog.game.setCurrentIndex(dialog.game.findData("2048"))
    editor = dialog.seat_editors[0]
    variants = [editor.variant.itemData(i) for i in range(editor.variant.count())]
    assert variants[0] == "default" and "compact" in variants


def test_unavailable_games_are_listed_disabled_with_their_install_command(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = GameEntry("mario", "engine.games.mario:Mario", "playtrace", None,
                        "needs nes_py, which is not installed", "pip install 'playtrace[mario]'")
    real = [e for e in engine.entries() if e.id != "mario"]  # stands in for the installed one
    monkeypatch.setattr(engine, "entries", lambda **_kw: [missing, *real])
    dialog = NewGameDialog()
    qtbot.addWidget(dialog)
    index = dialog.game.findData("mario")
    assert index > dialog.game.findData("2048")  # the playable games come first
    model = dialog.game.model()
    assert isinstance(model, QStandardItemModel)
    assert not model.item(index).flags() & Qt.ItemFlag.ItemIsEnabled
    tip = dialog.game.itemData(index, Qt.ItemDataRole.ToolTipRole)
    assert "pip install 'playtrace[mario]'" in tip and "nes_py" in tip
    assert dialog.game.currentData() in engine.list_games()


def test_every_option_type_gets_its_field() -> None:
    schema = (
        Option("rate", float, 0.5, "How often", minimum=0.0, maximum=1.0),
        Option("hard", bool, True, "Harder rules"),
        Option("start", str, "standard", "Start position", choices=("standard", "lvlm")),
        Option("name", str, "", "A label"),
    )
    fields = {o.name: option_field(o) for o in schema}
    assert isinstance(fields["rate"], QDoubleSpinBox) and fields["rate"].maximum() == 1.0
    assert isinstance(fields["hard"], QCheckBox) and fields["hard"].isChecked()
    assert isinstance(fields["start"], QComboBox) and fields["start"].currentData() == "standard"
    assert isinstance(fields["name"], QLineEdit)
    for option in schema:
        assert option.help in fields[option.name].toolTip()
        assert option_value(option, fields[option.name]) == option.default
    fields["rate"].lineEdit().setText("1.5")  # type: ignore[union-attr]
    with pytest.raises(OptionError, match="'rate'"):
        option_value(schema[0], fields["rate"])
    box = OptionsBox()
    box.set_schema(schema, {"start": "lvlm", "hard": False})
    assert box.values() == {"rate": 0.5, "hard": False, "start": "lvlm", "name": ""}


def _choose_model(editor: Any, provider: str, model: str) -> None:
    editor.player.setCurrentIndex(editor.player.findData("model…"))
    editor.provider.setCurrentIndex(editor.provider.findData(provider))
    editor.model_name.setText(model)


def test_a_paid_model_without_a_key_keeps_the_dialog_open_and_offers_models_and_keys(qtbot: Any) -> None:
    dialog = _dialog(qtbot, "tictactoe")
    dialog.show()
    started = _started(dialog)
    editor = dialog.seat_editors[0]
    _choose_model(editor, "anthropic", "claude-sonnet-4-5")
    editor.memory.setValue(3)
    dialog.seat_editors[1].set_choice("minimax")

    dialog.start_button.click()
    # Nothing started, nothing lost: the dialog is still open and says which key is missing, where.
    assert started == []
    assert dialog.isVisible() and dialog.result() != dialog.DialogCode.Accepted
    notice = dialog.key_error.text()
    assert not dialog.key_notice.isHidden()
    assert "ANTHROPIC_API_KEY" in notice and "Models & keys" in notice and "Seat 1 (X)" in notice
    assert "OPENAI_API_KEY" not in notice

    qtbot.mouseClick(dialog.keys_button, Qt.MouseButton.LeftButton)
    keys_dialog = dialog.keys_dialog
    assert keys_dialog is not None and keys_dialog.isVisible()
    assert keys_dialog.tabs.currentWidget() is keys_dialog.pages["anthropic"]
    keys_dialog.pages["anthropic"].key_edit.setText("sk-ant-TESTKEY0123456789")
    keys_dialog.save_and_close()
    assert dialog.key_notice.isHidden()

    dialog.start_button.click()
    assert len(started) == 1
    seat = started[0].seats[0]
    assert seat.spec == "anthropic:claude-sonnet-4-5" and seat.options["memory"] == 3
    assert started[0].seats[1].spec == "minimax"


def test_the_missing_key_notice_follows_the_seats(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    dialog = _dialog(qtbot, "tictactoe")
    started = _started(dialog)
    _choose_model(dialog.seat_editors[0], "openai", "gpt-4.1-mini")
    dialog.accept()
    assert started == [] and "OPENAI_API_KEY" in dialog.key_error.text()
    # A key in the environment counts as well as a stored one; a local server needs none.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-ENVKEY0123456789abcdef")
    _choose_model(dialog.seat_editors[0], "local", "llama3.1")
    assert dialog.key_notice.isHidden()
    _choose_model(dialog.seat_editors[0], "openai", "gpt-4.1-mini")
    dialog.accept()
    assert [s.spec for s in started[0].seats][0] == "openai:gpt-4.1-mini"


def test_in_the_window_a_missing_key_stays_in_the_dialog_not_the_status_bar(window: Any) -> None:
    window.new_game()
    dialog = next(d for d in window._dialogs if isinstance(d, NewGameDialog))
    dialog.game.setCurrentIndex(dialog.game.findData("tictactoe"))
    _choose_model(dialog.seat_editors[0], "openai", "gpt-4.1-mini")
    dialog.start_button.click()
    assert dialog.isVisible() and dialog in window._dialogs
    assert window.controller.game is None and not window.tasks
    assert window.last_error is None and window.statusBar().currentMessage() == ""
    assert "OPENAI_API_KEY" in dialog.key_error.text()
    dialog.reject()


@pytest.mark.parametrize("where", ["seed", "reroll"])
def test_enter_starts_the_game_and_keeps_the_seed(qtbot: Any, where: str) -> None:
    dialog = _dialog(qtbot, "tictactoe")
    dialog.show()
    qtbot.waitExposed(dialog)
    seed = dialog.seed.value()
    reroll = next(b for b in dialog.findChildren(QPushButton) if b.text() == "New seed")
    target = dialog.seed.lineEdit() if where == "seed" else reroll
    target.setFocus()
    received = _started(dialog)
    qtbot.keyClick(target, Qt.Key.Key_Return)
    assert len(received) == 1 and received[0].seed == seed


def test_a_game_with_its_own_step_cap_shows_one_max_steps_and_every_check_box_says_what_it_does(
    qtbot: Any,
) -> None:
    dialog = _dialog(qtbot, "vgdl")
    cls = engine.declaration("vgdl")
    assert any(o.name == "max_steps" for o in cls.options_schema)
    assert dialog.max_steps.isHidden()  # the game's own "Max steps" option is the only one
    texts = {label.text() for label in dialog.options_box.findChildren(QLabel)}
    for option in cls.options_schema:
        if option.type is bool and option.help:
            assert option.help in texts, option.name
    dialog.game.setCurrentIndex(dialog.game.findData("tictactoe"))
    assert not dialog.max_steps.isHidden()
