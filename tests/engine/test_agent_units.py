"""The harness modules one by one: prompts, perception, memory, parsing, verification, the simulated model."""

from __future__ import annotations

import asyncio
import hashlib
import time
from typing import Any

import pytest

import engine
from engine.agent import prompts
from engine.agent.memory import Memory, format_history
from engine.agent.parse import ILLEGAL, UNPARSABLE, parse_answer
from engine.agent.perception import Perception, state_text
from engine.agent.verify import parse_cell_set, score_sets, verify
from engine.games.tictactoe import TicTacToeState
from engine.llm.base import Delta, ImagePart, LLMClient, Message, Request
from engine.llm.sim import LABEL, SimClient, parse_spec
from engine.llm.simstyle import SimContext
from engine.players import Observation, StepRecord

G2048 = engine.make("2048")
TTT = engine.make("tictactoe")


def ttt(cells: str) -> TicTacToeState:
    """A position from a 9-character string such as ``"XX_OO____"``."""
    return TicTacToeState(cells=tuple("" if ch == "_" else ch for ch in cells))


# -- prompts ------------------------------------------------------------------------------------------


def test_template_syntax_fills_placeholders_and_drops_empty_sections() -> None:
    text = (
        "<!-- doc -->\n# system\nYou play {game}.\n"
        "# user\n## History\n{history}\n\n## State\n{state} {{x}} (r,c)\n"
    )
    tpl = prompts.parse_template(text, path="prompts/t/x.md", variant="x")
    assert tpl.placeholders == {"game", "history", "state"}
    assert tpl.sha256 == hashlib.sha256(text.encode()).hexdigest()
    out = tpl.render({"game": "2048", "history": "", "state": "board"})
    assert out.system == "You play 2048."
    assert out.user == "## State\nboard {x} (r,c)"
    assert "## History" in tpl.render({"game": "g", "history": "step 0", "state": "s"}).user
    with pytest.raises(prompts.TemplateError, match="state"):
        tpl.render({"game": "g", "history": ""})


def test_bundled_templates_load_and_record_their_hash() -> None:
    g2048, ttt = engine.declaration("2048"), engine.declaration("tictactoe")
    assert prompts.variants(g2048)[:1] == ["default"] and "compact" in prompts.variants(g2048)
    # Tic-tac-toe's default variant is GameBot's curated chain-of-thought prompt, "cot".
    assert ttt.default_prompt == "cot"
    assert prompts.variants(ttt) == ["default", "cot", "lvlm", "naive", "none"]
    assert prompts.load_template(ttt).path == "prompts/tictactoe/cot.md"
    bundled = ((g2048, "default"), (g2048, "compact"), (ttt, "cot"), (ttt, "naive"), (ttt, "none"))
    for game, variant in bundled:
        tpl = prompts.load_template(game, variant)
        folder = prompts.prompt_folder(game)
        assert folder is not None and folder.parent.name == game.__module__.split(".")[-2]
        file = folder / f"{variant}.md"
        assert tpl.path == f"prompts/{game.id}/{variant}.md"
        assert tpl.sha256 == hashlib.sha256(file.read_text(encoding="utf-8").encode()).hexdigest()
        assert {"history", "reflection", "state"} <= tpl.placeholders
    assert "move:" in prompts.load_template(g2048).system
    assert "Intermediate Thinking Results 2" in prompts.load_template(ttt).user
    reflection = prompts.load_common("reflection")
    assert "100 words" in reflection.user and reflection.path == "prompts/_common/reflection.md"

    class NoPrompts(type(engine.make("tictactoe"))):  # type: ignore[misc]
        prompts = None
        default_prompt = "default"

    assert prompts.load_template(NoPrompts).path == "prompts/_common/generic.md"
    with pytest.raises(prompts.TemplateError, match="default"):
        prompts.load_template(ttt, "compact")


# -- perception and memory ----------------------------------------------------------------------------


def test_text_perception_adds_the_coordinate_table_for_2048() -> None:
    state = G2048.initial_state(seed=5)
    text = state_text(state, 0)
    assert text.startswith(state.text(0)) and "Tile" in text and "Empty cells" in text
    obs = Observation(G2048, state, 0, tuple(state.legal_actions()))
    percept = Perception("text").perceive(obs)
    assert percept.image is None and percept.used == "text"
    with pytest.raises(ValueError):
        Perception("smell")


def test_image_perception_records_a_failing_renderer() -> None:
    state = G2048.initial_state(seed=5)

    def broken(_: object, **__: object) -> bytes:
        raise RuntimeError("no GPU")

    obs = Observation(G2048, state, 0, tuple(state.legal_actions()), render=broken)
    percept = Perception("image").perceive(obs)
    assert percept.used == "text" and "no GPU" in percept.note and "Tile" in percept.text


def test_memory_window_is_capped_and_seen_from_the_seat() -> None:
    state = TTT.initial_state()
    history = []
    for move in ("(0,0)", "(1,1)", "(0,1)"):
        after = state.apply(move)
        history.append(StepRecord(state.step, state, {state.to_act[0]: move}, after.scores, after))
        state = after
    window = Memory(2).window(TTT, history, 1)
    assert [(e.step, e.action, e.by) for e in window] == [(1, "(1,1)", "O"), (2, "(0,1)", "X")]
    assert "You are playing O" in window[0].state
    assert "Action by X: (0,1)" in format_history(window)
    assert Memory(0).window(TTT, history, 1) == []
    with pytest.raises(ValueError):
        Memory(-1)


# -- parsing ------------------------------------------------------------------------------------------


def test_2048_extraction_handles_markup_and_reports_how() -> None:
    state = G2048.initial_state(seed=1)
    r = parse_answer(G2048, state, 0, "thought: merge the 2s\n# **Move:** `Left`")
    assert r.action == "left" and r.thought == "merge the 2s"
    r = parse_answer(G2048, state, 0, "move: up\nwait, actually\nmove: down")
    assert r.action == "down" and "last of 2" in r.reason
    r = parse_answer(G2048, state, 0, "I would slide everything to the right.")
    assert r.action == "right" and "no 'move:' line" in r.reason


def test_a_bad_move_line_is_not_patched_from_elsewhere() -> None:
    state = G2048.initial_state(seed=1)
    r = parse_answer(G2048, state, 0, "thought: left looks good\nmove: diagonal")
    assert r.action is None and r.kind == UNPARSABLE and r.extracted == "diagonal"
    r = parse_answer(G2048, state, 0, "thought: nothing to say\nmove:")
    assert r.action is None and "empty" in r.error


def test_tictactoe_extraction_ignores_coordinates_in_tags_and_prose() -> None:
    state = ttt("XX_OO____")
    text = ("My pieces: (0,0), (0,1).\n[Intermediate Thinking Results 1: (0,2)]\n"
            "[Intermediate Thinking Results 2: (1,2)]\nConclusion: win now.\nChosen Move: (0, 2)")
    r = parse_answer(TTT, state, 0, text)
    assert r.action == "(0,2)" and r.tags == {1: "(0,2)", 2: "(1,2)"} and r.thought == "win now"
    r = parse_answer(TTT, state, 0, "[Intermediate Thinking Results 1: (0,2)]\nI'll take the corner (2,2).")
    assert r.action == "(2,2)" and "no 'Chosen Move:' line" in r.reason
    r = parse_answer(TTT, state, 0, "Chosen Move: (1,1)")
    assert r.kind == ILLEGAL and "taken" in r.error
    r = parse_answer(TTT, state, 0, "[Intermediate Thinking Results 1: (0,2)]\nChosen Move: the corner")
    assert r.kind == UNPARSABLE and r.extracted == "the corner"


# -- verification -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "truth", "label", "correct"),
    [
        ({"(0,2)"}, {"(0,2)"}, "TP", True),
        (set(), set(), "TN", True),
        ({"(0,2)"}, set(), "FP", False),
        (set(), {"(0,2)"}, "FN", False),
        ({"(1,2)"}, {"(0,2)", "(1,2)"}, "MM", False),
        (None, {"(0,2)"}, "format_error", False),
    ],
)
def test_set_scoring_uses_gamebot_labels(
    answer: set[str] | None, truth: set[str], label: str, correct: bool
) -> None:
    ok, detail = score_sets(answer, truth)
    assert (ok, detail["label"]) == (correct, label)
    if label == "MM":
        assert (detail["precision"], detail["recall"]) == (1.0, 0.5)
        assert detail["f1"] == pytest.approx(0.6667)


def test_cell_sets_follow_the_format_rules() -> None:
    assert parse_cell_set("(0,1), (2, 2)") == {"(0,1)", "(2,2)"}
    assert parse_cell_set("None") == set()
    assert parse_cell_set("the corner") is None
    assert parse_cell_set("") is None and parse_cell_set(None) is None


def test_tictactoe_verification_against_the_oracle() -> None:
    state = ttt("XX_OO____")  # X to move: X wins at (0,2), O threatens (1,2)
    checks = verify(TTT, state, 0, {1: "(0,2)", 2: "None"})
    assert [(c.question, c.answer, c.truth, c.correct) for c in checks] == [
        ("my winning moves", ["(0,2)"], ["(0,2)"], True),
        ("opponent's winning moves", [], ["(1,2)"], False),
    ]
    missing = verify(TTT, state, 0, {})
    assert all(c.detail["label"] == "format_error" and c.detail["missing"] for c in missing)
    assert verify(G2048, G2048.initial_state(seed=1), 0, {1: "x"}) == []


# -- the simulated model ------------------------------------------------------------------------------


def sim_call(
    client: SimClient, state: Any, game: Any, *, purpose: str = "action", prompt: str = "move:"
) -> tuple[str, list[Delta]]:
    deltas: list[Delta] = []
    client.set_context(SimContext(game, state, state.to_act[0]))
    messages = (Message("system", "s"), Message("user", prompt, (ImagePart(b"png"),)))
    request = Request("sim", messages, purpose=purpose)
    completion = asyncio.run(client.complete(request, on_delta=deltas.append))
    assert completion.usage.input_tokens > 765 and completion.usage.output_tokens > 0
    return completion.content, deltas


def test_sim_is_a_labelled_reproducible_llm_client() -> None:
    client = SimClient(seed=7, latency=0)
    assert isinstance(client, LLMClient) and client.simulated and client.provider == "sim"
    assert client.label == LABEL == "Simulated model (offline)"
    state = G2048.initial_state(seed=3)
    answers = [sim_call(SimClient(seed=7, latency=0), state, G2048)[0] for _ in range(2)]
    assert answers[0] == answers[1]
    careful = sim_call(SimClient("perfect", seed=7, latency=0), state, G2048)[0]
    assert careful.startswith("thought:") and "\nmove: " in careful
    content, deltas = sim_call(client, state, G2048)
    kinds = [d.kind for d in deltas]
    assert "reasoning" in kinds and kinds.index("reasoning") < kinds.index("content") and len(deltas) > 5
    assert "".join(d.text for d in deltas if d.kind == "content") == content
    assert parse_spec("sim") == "default" and parse_spec("sim:careless") == "careless"
    with pytest.raises(ValueError):
        SimClient(format_error_rate=2.0)


def test_sim_answers_tictactoe_in_the_gamebot_format() -> None:
    state = ttt("XX_OO____")
    asks = "[Intermediate Thinking Results 1: ...] [Intermediate Thinking Results 2: ...]\nChosen Move: (r,c)"
    content, _ = sim_call(SimClient("perfect", seed=1, latency=0), state, TTT, prompt=asks)
    r = parse_answer(TTT, state, 0, content)
    assert r.action == "(0,2)"  # the perfect simulated model takes the win
    assert [c.correct for c in verify(TTT, state, 0, r.tags)] == [True, True]
    # A prompt that asks no intermediate question (a "naive" variant) gets no tags.
    plain, _ = sim_call(SimClient("perfect", seed=1, latency=0), state, TTT, prompt="Chosen Move: (r,c)")
    assert "Intermediate Thinking Results" not in plain


def test_sim_streams_with_delays_when_latency_is_set() -> None:
    client = SimClient("perfect", seed=1, latency=0.002)
    state = G2048.initial_state(seed=3)
    stamps: list[float] = []

    def on_delta(_: Delta) -> None:
        stamps.append(time.perf_counter())

    client.set_context(SimContext(G2048, state, 0))
    asyncio.run(client.complete(Request("sim", (Message("user", "move:"),)), on_delta=on_delta))
    assert len(stamps) > 5 and stamps[-1] - stamps[0] >= 0.002 * (len(stamps) - 2)


def test_sim_reflects_in_under_100_words() -> None:
    state = G2048.initial_state(seed=3)
    after = state.apply("left")
    client = SimClient(seed=1, latency=0)
    client.set_context(SimContext(G2048, after, 0, (StepRecord(0, state, {0: "left"}, (0.0,), after),)))
    request = Request("sim", (Message("user", "reflect"),), purpose="reflection")
    completion = asyncio.run(client.complete(request))
    assert "left" in completion.content and 5 < len(completion.content.split()) < 100


class _CountingHistory(tuple):  # type: ignore[type-arg]
    """A history that counts how many records are read from it."""

    reads = 0

    def __getitem__(self, index: Any) -> Any:
        item = super().__getitem__(index)
        type(self).reads += len(item) if isinstance(index, slice) else 1
        return item

    def __iter__(self) -> Any:
        for i in range(len(self)):
            yield self[i]


def test_memory_and_reflection_read_only_the_tail_of_a_long_history() -> None:
    # Reading the whole history at every decision makes a 10,000-step episode quadratic.
    from engine.agent.reflection import since_last_move
    from engine.llm.simstyle import since_own_move as _since_own_move

    game = engine.make("tictactoe")
    state = game.initial_state()
    records = [StepRecord(i, state, {i % 2: "(0,0)"}, (0.0, 0.0), state) for i in range(10_000)]
    history = _CountingHistory(records)
    obs = Observation(game, state, 0, ("(0,0)",), history)

    _CountingHistory.reads = 0
    recent = since_last_move(obs)
    assert [r.step for r in recent] == [9998, 9999]
    assert _CountingHistory.reads < 10

    _CountingHistory.reads = 0
    window = Memory(10).window(game, history, 0)
    assert [e.step for e in window] == list(range(9990, 10_000))
    assert _CountingHistory.reads <= 10

    _CountingHistory.reads = 0
    own = _since_own_move(SimContext(game, state, 1, history))
    assert [r.step for r in own] == [9999]
    assert _CountingHistory.reads < 10
    assert since_last_move(Observation(game, state, 0, ("(0,0)",), ())) == []
    assert _since_own_move(SimContext(game, state, 0, ())) == []
