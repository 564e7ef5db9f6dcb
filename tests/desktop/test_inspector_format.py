"""The model panel's wording, built by pure functions from steps the engine recorded (no widget)."""

from __future__ import annotations

import html
import subprocess
import sys
from pathlib import Path

import pytest

from desktop import inspector_format as fmt
from engine import events as ev
from sessions.steps import StepModel
from tests.sessions.test_steps import Recording, has_mixed_checks, of_type, record_sim_match


@pytest.fixture(scope="module")
def tictactoe(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    return record_sim_match(
        tmp_path_factory.mktemp("ttt"), "tictactoe", ["sim", "minimax"], seed=3, wrong_ir_rate=0.5,
        perception="both",  # no renderer in this run: the harness sends text and says why
    )


@pytest.fixture(scope="module")
def careless(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    return record_sim_match(tmp_path_factory.mktemp("c"), "tictactoe", ["sim:careless", "minimax"], seed=5,
                  format_error_rate=1.0)


@pytest.fixture(scope="module")
def g2048(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    root = tmp_path_factory.mktemp("2048")
    return record_sim_match(root, "2048", ["sim"], seed=3, max_steps=6, api_error_rate=0.5)


def _players(rec: Recording) -> dict[int, dict[str, object]]:
    game = rec.session.game()
    players = rec.session.manifest["players"]
    return {p["seat"]: {**p, "seat_name": game.seats[p["seat"]].name} for p in players}


def _model_step(rec: Recording, predicate: object = None) -> tuple[StepModel, list[dict[str, object]]]:
    index = rec.find(lambda r: bool(of_type(r, ev.PROMPT_BUILT)) and (predicate is None or predicate(r)),
                     "a model step")
    return StepModel.from_session(rec.session, index), rec.session.events_for_step(index)


def test_the_module_never_imports_qt() -> None:
    code = "import sys, desktop.inspector_format; print(sorted(m for m in sys.modules if 'PySide6' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).parents[2])
    assert out.stdout.strip() == "[]"


def test_colours_and_seat_names_match_the_theme() -> None:
    from desktop import theme

    assert (fmt.ACCENT, fmt.ACCENT_DARK, fmt.TEXT_COLOR, fmt.MUTED_COLOR) == (
        theme.ACCENT, theme.ACCENT_DARK, theme.TEXT, theme.MUTED)
    assert (fmt.OK_COLOR, fmt.BAD_COLOR, fmt.WARNING_FG) == (theme.SUCCESS, theme.ERROR_FG, theme.WARNING_FG)
    assert fmt.KIND_BADGES == theme.KIND_BADGES
    for seat, name in ((0, "X"), (1, "O"), (0, None), (2, "2")):
        assert fmt.seat_title(seat, name) == theme.seat_title(seat, name)


@pytest.mark.parametrize("name", ["tictactoe", "g2048"])
def test_prompt_is_the_recorded_text_and_the_parse_chain_follows_it(
    name: str, request: pytest.FixtureRequest
) -> None:
    rec: Recording = request.getfixturevalue(name)
    model, records = _model_step(rec, lambda r: bool(of_type(r, ev.ACTION_PARSED)))
    sample = model.decided()
    assert sample is not None
    prompt = of_type(records, ev.PROMPT_BUILT)[0]["data"]
    text = fmt.prompt_text(sample)
    assert text.startswith("── SYSTEM ──\n" + prompt["system"].rstrip() + "\n\n── USER ──\n")
    assert prompt["user"].rstrip() in text
    parsed = of_type(records, ev.ACTION_PARSED)[-1]["data"]
    applied = of_type(records, ev.ACTION_APPLIED)[0]["data"]["actions"]["0"]
    chain = fmt.parse_chain_html(model, sample)
    assert f"extracted <b>{html.escape(parsed['extracted'], quote=False)}</b>" in chain
    assert f"matched <b>{parsed['matched']}</b> → executed <b>{applied}</b>" in chain
    assert html.escape(fmt.short(parsed["raw"]), quote=False) in chain
    assert fmt.parse_summary(sample).endswith(f"✓ {parsed['matched']}</span>")


def test_perception_note_explains_a_text_only_prompt(tictactoe: Recording) -> None:
    model, records = _model_step(tictactoe)
    sample = model.decided()
    assert sample is not None and sample.images == []
    perception = of_type(records, ev.PROMPT_BUILT)[0]["data"]["perception"]
    assert perception["requested"] == "both" and perception["used"] == "text"
    assert fmt.prompt_tooltip(sample) == perception["note"] and "headless" in perception["note"]
    assert "image" not in fmt.prompt_summary(sample)


def test_check_rows_carry_the_recorded_verdicts(tictactoe: Recording) -> None:
    model, records = _model_step(tictactoe, has_mixed_checks)
    sample = model.decided()
    assert sample is not None
    checks = [r["data"] for r in of_type(records, ev.VERIFICATION)]
    rows = fmt.check_rows(sample)
    assert [r.correct for r in rows] == [c["correct"] for c in checks]
    for row, check in zip(rows, checks, strict=True):
        assert row.mark == ("✓ " if check["correct"] else "✗ ") + check["detail"]["label"]
        assert row.question == check["question"]
        assert row.answer == (", ".join(check["answer"]) or "(none)")
        assert row.truth == (", ".join(check["truth"]) or "(none)")
        assert row.tooltip.startswith(check["detail"]["label"] + " · precision ")
        assert f"F1 {fmt.fmt_num(check['detail']['f1'])}" in row.tooltip
    good = sum(c["correct"] for c in checks)
    assert f"{good}/{len(checks)} correct" in fmt.checks_summary(sample)
    assert f"checks {good}/{len(checks)}" in fmt.glance_html(sample)


def test_usage_sums_the_recorded_calls(tictactoe: Recording) -> None:
    model, records = _model_step(tictactoe, lambda r: bool(of_type(r, ev.REFLECTION)))
    sample = model.decided()
    assert sample is not None
    finished = [r["data"] for r in of_type(records, ev.MODEL_CALL_FINISHED)]
    assert len(finished) == 2  # the reflection call and the action call
    usage = fmt.usage_html(sample)
    assert f"Tokens in <b>{sum(f['input_tokens'] for f in finished):,}</b>" in usage
    assert f"out <b>{sum(f['output_tokens'] for f in finished):,}</b>" in usage
    assert f"latency <b>{sum(f['latency_ms'] for f in finished) / 1000:.2f} s</b>" in usage
    assert "Call 1 (reflection): <b>sim</b>" in usage and "sim · sim" not in usage
    assert "Cost <b>free (simulated)</b>" in usage
    total = sum(f["input_tokens"] + f["output_tokens"] for f in finished)
    assert fmt.usage_summary(sample).startswith(f"{total:,} tokens · free (simulated)")


def test_memory_rows_are_the_window_the_model_was_given(tictactoe: Recording) -> None:
    model, records = _model_step(tictactoe, lambda r: bool(of_type(r, ev.REFLECTION)))
    sample = model.decided()
    assert sample is not None
    entries = of_type(records, ev.MEMORY)[0]["data"]["entries"]
    rows = fmt.memory_rows(sample)
    assert [(r.step, r.action, r.state) for r in rows] == [
        (str(e["step"] + 1), f"{e['action']}  ({e['by']})", e["state"]) for e in entries
    ]  # numbered as people count steps: the decision recorded at index k is step k + 1
    assert fmt.memory_summary(sample) == f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"


def test_reasks_and_the_fallback_are_spelled_out(careless: Recording) -> None:
    model, records = _model_step(careless)
    sample = model.decided()
    assert sample is not None
    reasks = [r["data"] for r in of_type(records, ev.PROMPT_BUILT)][1:]
    assert reasks
    text = fmt.prompt_text(sample)
    for reask in reasks:
        assert f"── RE-ASK · attempt {reask['attempt']} ──\n{reask['user'].rstrip()}" in text
    assert f"{len(reasks)} re-asks" in fmt.prompt_summary(sample)
    chain = fmt.parse_chain_html(model, sample)
    for failure in of_type(records, ev.ACTION_UNPARSABLE):
        assert f"✗ Attempt {failure['data']['attempt']} — unparsable" in chain
        assert html.escape(failure["data"]["error"], quote=False) in chain
    decision = of_type(records, ev.DECISION)[0]["data"]
    outcome = fmt.outcome_html(model, sample, _players(careless))
    assert "Invalid-answer policy: random" in outcome
    assert html.escape(decision["fallback_reason"], quote=False) in outcome
    assert f"chose <b style='font-size:11pt;'>{decision['action']}</b>" in outcome


def test_a_failed_call_is_named_with_its_attempt_and_status(g2048: Recording) -> None:
    model, records = _model_step(g2048, lambda r: bool(of_type(r, ev.MODEL_CALL_FAILED)))
    sample = model.decided()
    assert sample is not None
    failure = of_type(records, ev.MODEL_CALL_FAILED)[0]["data"]
    errors = fmt.errors_html(model, sample)
    assert f"— server (HTTP {failure['status']})</b>: {html.escape(failure['error'], quote=False)}" in errors
    assert f"attempt {failure['attempt']}" in errors
    assert "✗ Failed (server)" in fmt.usage_html(sample)
    assert f"{len(of_type(records, ev.MODEL_CALL_FAILED))} failed" in fmt.usage_summary(sample)
    reask = [r["data"] for r in of_type(records, ev.PROMPT_BUILT) if r["data"].get("reask")]
    if reask:  # the same prompt is sent again: the re-ask's title says why
        title = f"── RE-ASK · attempt {reask[0]['attempt']} · {reask[0]['reason']} ──"
        assert title in fmt.prompt_text(sample)


def test_bot_values_are_ranked_with_the_choice_marked(tictactoe: Recording) -> None:
    index = tictactoe.find(lambda r: of_type(r, ev.DECISION)[0]["data"]["source"] == "bot", "a bot step")
    model = StepModel.from_session(tictactoe.session, index)
    sample = model.decided()
    assert sample is not None and not sample.is_model
    decision = sample.decision or {}
    rows = fmt.value_rows(sample)
    assert [float(r.value) for r in rows] == sorted(decision["values"].values(), reverse=True)
    assert [r.action for r in rows if r.chosen] == [decision["action"]]
    outcome = fmt.outcome_html(model, sample, _players(tictactoe))
    assert outcome.startswith("Minimax") and html.escape(decision["rationale"], quote=False) in outcome
    assert fmt.pills(model, _players(tictactoe)) == []


def test_header_describes_the_recorded_players(tictactoe: Recording) -> None:
    manifest = tictactoe.session.manifest
    info = {"players": list(_players(tictactoe).values()), "harness": manifest["harness"]}
    text = fmt.players_html(info).replace("&nbsp;", " ")
    assert "<b>Seat 1 (X)</b> · Simulated model (offline)" in text and "<b>Seat 2 (O)</b> · Minimax" in text
    assert "sim · perception both · memory 10 · reflection on" in text and "sim · sim" not in text
    assert fmt.header_simulated(info)
    assert fmt.harness_summary("openai:gpt-4.1-mini", {}).startswith("openai&nbsp;·&nbsp;gpt-4.1-mini")
    local = fmt.harness_summary("local:qwen@http://h:1/v1", {})
    assert local.startswith("local&nbsp;·&nbsp;qwen · perception")
