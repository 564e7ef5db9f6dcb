"""Cost safety in the app: budget caps and timeout in the New game dialog, a live pre-run estimate,
the session header's spend meter, budget warnings and retry notices."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.new_game_dialog import NewGameDialog, decisions_per_episode, estimate_text, tokens_per_decision
from engine.llm import pricing


def _dialog(qtbot: Any, game: str = "tictactoe") -> NewGameDialog:
    dialog = NewGameDialog()
    qtbot.addWidget(dialog)
    dialog.game.setCurrentIndex(dialog.game.findData(game))
    return dialog


def _choose_model(editor: Any, provider: str, model: str) -> None:
    editor.player.setCurrentIndex(editor.player.findData("model…"))
    editor.provider.setCurrentIndex(editor.provider.findData(provider))
    editor.model_name.setText(model)


def test_budget_and_timeout_become_harness_options(qtbot: Any) -> None:
    dialog = _dialog(qtbot)
    editor = dialog.seat_editors[0]
    _choose_model(editor, "openai", "gpt-4.1-mini")
    editor.budget_soft.setText("0.5")
    editor.budget_hard.setText("2")
    editor.timeout.setValue(30)
    seat = dialog.setup().seats[0]
    assert seat.spec == "openai:gpt-4.1-mini"
    assert seat.options["budget_soft_usd"] == 0.5
    assert seat.options["budget_hard_usd"] == 2.0
    assert seat.options["timeout_s"] == 30.0
    # Empty means no cap.
    editor.budget_soft.setText("")
    editor.budget_hard.setText("")
    opts = dialog.setup().seats[0].options
    assert "budget_soft_usd" not in opts and "budget_hard_usd" not in opts
    assert opts["timeout_s"] == 30.0


def test_default_timeout_is_sixty_seconds_and_set_choice_restores_caps(qtbot: Any) -> None:
    dialog = _dialog(qtbot)
    editor = dialog.seat_editors[0]
    editor.set_choice(
        "anthropic:claude-sonnet-4-5", {"budget_soft_usd": 1.5, "budget_hard_usd": 3, "timeout_s": 90}
    )
    assert editor.budget_soft.text() == "1.5"
    assert editor.budget_hard.text() == "3"
    assert editor.timeout.value() == 90
    editor.set_choice("openai:gpt-4.1-mini", {})
    _choose_model(dialog.seat_editors[1], "openai", "gpt-4.1-mini")
    assert dialog.seat_editors[1].options()["timeout_s"] == 60.0


def test_estimate_arithmetic_matches_the_price_table() -> None:
    opts = {"perception": "both", "reflection": True, "thinking": True, "thinking_budget": 4096}
    assert tokens_per_decision(opts) == (1500 + 1000 + 600, 300 + 4096 + 150)
    assert tokens_per_decision({"perception": "text", "reflection": False}) == (1500, 300)
    # Tic-tac-toe: at most 9 steps shared by 2 seats; 2048: unbounded -> 100, or the max steps given.
    assert decisions_per_episode("tictactoe", None) == 5
    assert decisions_per_episode("2048", None) == 100
    assert decisions_per_episode("2048", 40) == 40
    text, tip = estimate_text("anthropic:claude-sonnet-4-5", {"reflection": False}, 100)
    expected = pricing.estimate("anthropic:claude-sonnet-4-5", 1500, 300, 100).cost
    assert expected is not None
    assert text == f"≈ ${expected:.2f} per game (rough)"
    assert "100 decisions" in tip
    assert estimate_text("openai:no-such-model-x", {}, 10)[0] == "price unknown for no-such-model-x"
    assert estimate_text("sim", {}, 10)[0].startswith("free")
    assert estimate_text("local:llama3@http://localhost:1/v1", {}, 10)[0].startswith("free")
    assert estimate_text("human", {}, 10)[0] == ""


def test_estimate_updates_live_as_fields_change(qtbot: Any) -> None:
    dialog = _dialog(qtbot, "2048")
    editor = dialog.seat_editors[0]
    editor.set_choice("sim")
    assert editor.estimate.text().startswith("free")
    _choose_model(editor, "anthropic", "claude-sonnet-4-5")
    editor.reflection.setChecked(False)
    editor.perception.setCurrentIndex(editor.perception.findData("text"))
    first = editor.estimate.text()
    assert first.startswith("≈ $") and first.endswith("per game (rough)")
    cost = pricing.estimate("anthropic:claude-sonnet-4-5", 1500, 300, 100).cost
    assert first == f"≈ ${cost:.2f} per game (rough)"
    # Fewer steps: a smaller figure.
    dialog.max_steps.setValue(10)
    cost10 = pricing.estimate("anthropic:claude-sonnet-4-5", 1500, 300, 10).cost
    assert editor.estimate.text() == f"≈ ${cost10:.2f} per game (rough)"
    # Image perception adds tokens.
    editor.perception.setCurrentIndex(editor.perception.findData("image"))
    cost_img = pricing.estimate("anthropic:claude-sonnet-4-5", 2500, 300, 10).cost
    assert editor.estimate.text() == f"≈ ${cost_img:.2f} per game (rough)"
    editor.model_name.setText("mystery-model")
    assert editor.estimate.text() == "price unknown for mystery-model"
    editor.provider.setCurrentIndex(editor.provider.findData("local"))
    assert editor.estimate.text().startswith("free")
    assert not editor.budget_row.isVisibleTo(editor)


@pytest.mark.parametrize("text", ["abc", "0", "-1"])
def test_nonsense_or_zero_budget_means_no_cap(qtbot: Any, text: str) -> None:
    dialog = _dialog(qtbot)
    editor = dialog.seat_editors[0]
    _choose_model(editor, "openai", "gpt-4.1-mini")
    editor.budget_hard.setText(text)  # the validator may refuse it; either way no cap is set
    assert "budget_hard_usd" not in editor.options()


# -- live cost meter, budget caps and retry notices in the main window --------------------------------

from desktop.controller import GameSetup, SeatSetup, retry_text  # noqa: E402
from desktop.main_window import spend_text  # noqa: E402
from engine.llm.base import Completion, Delta, Request, RetryNotice, Usage  # noqa: E402
from tests.desktop.conftest import until  # noqa: E402


class PricedClient:
    """An "OpenAI" client that answers "left" with a large, priced usage; the first call retries once."""

    provider = "openai"
    simulated = False

    def __init__(self) -> None:
        self.calls = 0

    async def complete(self, request: Request, *, on_delta: Any = None, on_retry: Any = None) -> Completion:
        self.calls += 1
        if self.calls == 1 and on_retry is not None:
            on_retry(RetryNotice(1, "rate limited (429)", wait_s=2.0, status=429))
        if on_delta is not None:
            on_delta(Delta("content", "move: left"))
        return Completion("move: left", usage=Usage(100_000, 20_000), model="gpt-4.1-mini")

    async def aclose(self) -> None:
        return None


def test_retry_text_is_friendly() -> None:
    assert retry_text({"reason": "rate limited (429)", "wait_s": 2.0}) == "Rate limited — retrying in 2 s…"
    assert retry_text({"reason": "timeout"}) == "Timeout — retrying…"


def test_spend_text_variants() -> None:
    assert spend_text({"models": 0}) == ("", "")
    assert spend_text({"models": 1, "simulated": True, "calls": 3, "tokens": 10})[0] == "free (simulated)"
    text, _ = spend_text({"models": 1, "usd": 0.1234, "tokens": 12_345, "calls": 2, "unknown": 0})
    assert text == "Spent $0.12 · 12k tokens"
    assert spend_text({"models": 1, "usd": 0, "tokens": 5, "calls": 1, "unknown": 1})[0].startswith(
        "Spent price unknown"
    )


def test_cost_meter_budget_caps_and_retry_notice_in_the_window(window: Any, run: Any) -> None:
    price = pricing.cost("openai:gpt-4.1-mini", Usage(100_000, 20_000))
    assert price is not None and price > 0
    messages: list[str] = []
    window.statusBar().messageChanged.connect(lambda m: messages.append(m) if m else None)
    meter_texts: list[str] = []
    window.controller.sig_spend.connect(lambda _s: meter_texts.append(window.header.spend.text()))
    client = PricedClient()
    options = {
        "client": client,
        "reflection": False,
        "memory": 0,
        "budget_soft_usd": price * 1.5,
        "budget_hard_usd": price * 2.5,
    }
    setup = GameSetup("2048", [SeatSetup("openai:gpt-4.1-mini", options)], seed=4, max_steps=10, delay=0)

    async def scenario() -> None:
        await window.start_game(setup)
        await until(lambda: window.controller.finished_status is not None, what="the game to end")
        await until(lambda: window.warning_banner.isVisible(), what="the hard-cap banner")

    run(scenario())
    # Three calls cost 3 x price >= the hard cap at 2.5 x: the fourth decision forfeits.
    assert client.calls == 3
    assert window.controller.finished_status == "forfeit"
    spend = window.controller.spend()
    assert spend["calls"] == 3 and spend["tokens"] == 3 * 120_000
    assert abs(spend["usd"] - 3 * price) < 1e-9
    # The meter updated live, call by call.
    assert meter_texts[0] == f"Spent ${price:.2f} · 120k tokens"
    assert window.header.spend.text() == f"Spent ${3 * price:.2f} · 360k tokens"
    assert window.header.spend.isVisible()
    assert "Rate limited — retrying in 2 s…" in messages
    assert any(m.startswith("Budget warning") and "soft budget" in m for m in messages)
    assert any(m.startswith("Budget cap reached") for m in messages)
    assert "Hard budget cap reached" in window.warning_banner.text.text()
    # Re-opened for replay, the session shows the same spend (summed from its recorded events).
    run(window.open_session(window.controller.folder))
    assert window.controller.mode == "replay"
    assert window.header.spend.text() == f"Spent ${3 * price:.2f} · 360k tokens"


def test_simulated_models_show_free(window: Any, run: Any) -> None:
    setup = GameSetup(
        "2048", [SeatSetup("sim", {"latency": 0, "reflection": False})], seed=2, max_steps=2, delay=0
    )

    async def scenario() -> None:
        await window.start_game(setup)
        await until(lambda: window.controller.finished_status is not None, what="the game to end")

    run(scenario())
    assert window.header.spend.text() == "free (simulated)"
    assert window.controller.spend()["calls"] >= 2


def test_meter_hidden_without_models(window: Any, run: Any) -> None:
    async def scenario() -> None:
        await window.start_game(GameSetup("2048", [SeatSetup("random")], seed=2, max_steps=2, delay=0))
        await until(lambda: window.controller.finished_status is not None, what="the game to end")

    run(scenario())
    assert window.header.spend.text() == "" and not window.header.spend.isVisible()
