"""engine.tasks: LVLM-Playground task sets — generation, parsing, scoring, baselines and weighting.

Runs over every registered game whose declaration sets ``tasks`` (images are drawn by a stand-in
renderer here; the command-line tests in tests/test_tasks_cli.py draw the real ones).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import tasks
from engine.tasks import (
    TASK_NAMES,
    ItemResult,
    TaskError,
    TaskSetError,
    definitions,
    evaluate,
    games_with_tasks,
    generate,
    load_results,
    load_task_set,
    overall,
    parse_letter,
    parse_matrix,
    random_answer,
    score,
    sim_answer,
    write_results,
    write_task_set,
)

GAMES = games_with_tasks()


def _fake_render(state, width, height) -> bytes:
    """A stand-in for a renderer: bytes that depend on the state and the size only."""
    text = json.dumps(state.to_json(), sort_keys=True) + f"{width}x{height}"
    return hashlib.sha256(text.encode()).digest()


def test_sudoku_has_tasks_and_others_may() -> None:
    assert "sudoku" in GAMES
    assert "2048" not in GAMES


# -- generation -----------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("task", TASK_NAMES)
def test_generation_is_reproducible_and_byte_identical(game_id: str, task: str, tmp_path: Path) -> None:
    first = generate(game_id, task, 4, seed=7)
    again = generate(game_id, task, 4, seed=7)
    assert first == again
    other = generate(game_id, task, 4, seed=8)
    assert [i.state for i in other.items] != [i.state for i in first.items]
    a = write_task_set(first, tmp_path / "a", _fake_render)
    b = write_task_set(again, tmp_path / "b", _fake_render)
    assert (a / "manifest.json").read_bytes() == (b / "manifest.json").read_bytes()
    assert (a / "README.md").read_bytes() == (b / "README.md").read_bytes()
    for item in first.items:
        assert (a / item.image).read_bytes() == (b / item.image).read_bytes()
    manifest = (a / "manifest.json").read_text()
    assert json.loads(manifest)["items"][0]["id"] == "0001"
    assert "time" not in json.loads(manifest)  # no timestamps anywhere at the top
    # A larger set starts with the smaller one's items.
    assert generate(game_id, task, 6, seed=7).items[:4] == first.items


@pytest.mark.parametrize("game_id", GAMES)
def test_items_carry_the_right_truth(game_id: str) -> None:
    defs = definitions(game_id)
    perceive = generate(game_id, "perceive", 3, seed=1)
    for item in perceive.items:
        assert len(item.truth) == defs.rows and all(len(r) == defs.cols for r in item.truth)
        assert all(defs.low <= v <= defs.high for r in item.truth for v in r)
        assert item.truth == defs.matrix(perceive.state(item))
        assert "Game State:" in item.prompt and item.question is None
    qa = generate(game_id, "qa", 6, seed=1)
    for item in qa.items:
        assert item.options is not None and 2 <= len(item.options) <= 4
        assert len(set(item.options)) == len(item.options)
        assert item.truth in "ABCD"[: len(item.options)]
        assert item.question and item.question in item.prompt and "{question}" not in item.prompt
        assert f"{item.truth}. {item.options['ABCD'.index(item.truth)]}" in item.question
    rules = generate(game_id, "rules", 3, seed=1)
    for item in rules.items:
        state = rules.state(item)
        assert item.truth and item.truth == list(defs.valid_moves(state, item.seat))
        assert not state.is_over


def test_qa_answer_positions_vary() -> None:
    letters = {item.truth for item in generate("sudoku", "qa", 40, seed=2).items}
    assert len(letters) >= 3


def test_manifest_describes_the_set(tmp_path: Path) -> None:
    ts = generate("sudoku", "qa", 12, seed=5)
    folder = write_task_set(ts, tmp_path / "set", _fake_render)
    data = json.loads((folder / "manifest.json").read_text())
    assert data["format"] == "playtrace-tasks" and data["version"] == 1
    assert (data["game"], data["task"], data["n"], data["seed"]) == ("sudoku", "qa", 12, 5)
    assert data["image"] == {"width": 512, "height": 512}
    assert list(data) == sorted(data)
    readme = (folder / "README.md").read_text()
    assert "playtrace tasks generate sudoku --task qa --n 12 --seed 5 --out DIR" in readme
    assert "| 0001 |" in readme and "2 more" in readme
    back = load_task_set(folder)
    assert back.items == ts.items and back.path == folder


def test_generate_refuses_bad_requests() -> None:
    with pytest.raises(TaskError, match="unknown task"):
        generate("sudoku", "draw", 3, seed=0)
    with pytest.raises(TaskError, match="has no LVLM-Playground tasks"):
        generate("2048", "qa", 3, seed=0)
    with pytest.raises(TaskError, match="unknown game"):
        generate("nosuchgame", "qa", 3, seed=0)
    with pytest.raises(TaskError, match="at least one"):
        generate("sudoku", "qa", 0, seed=0)


@pytest.mark.parametrize("content", [None, "{}", "not json", '{"format": "playtrace-tasks", "version": 1}'])
def test_load_task_set_says_what_is_wrong(tmp_path: Path, content: str | None) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    if content is not None:
        (folder / "manifest.json").write_text(content)
    with pytest.raises(TaskSetError):
        load_task_set(folder)
    with pytest.raises(TaskSetError, match="not a folder"):
        load_task_set(tmp_path / "missing")


# -- parsers --------------------------------------------------------------------------------------


@given(st.text())
@settings(max_examples=300, deadline=None)
def test_parse_matrix_never_crashes(text: str) -> None:
    found, why = parse_matrix(text, (3, 3), (-1, 1))
    assert (found is None) != (why is None)


@given(st.data())
@settings(max_examples=200, deadline=None)
def test_parse_matrix_round_trips(data: st.DataObject) -> None:
    rows = data.draw(st.integers(1, 15))
    cols = data.draw(st.integers(1, 15))
    low = data.draw(st.integers(-6, 0))
    high = data.draw(st.integers(1, 10))
    grid = data.draw(st.lists(st.lists(st.integers(low, high), min_size=cols, max_size=cols),
                              min_size=rows, max_size=rows))
    prose = data.draw(st.text(alphabet="abcdefghij .,\n", max_size=40))
    style = data.draw(st.sampled_from(["plain", "fenced", "spaced"]))
    body = json.dumps(grid) if style != "spaced" else "[\n" + ",\n".join(str(r) for r in grid) + "\n]"
    text = f"{prose}\nGame State: {body}\n" if style != "fenced" else f"{prose}\n```\n{body}\n```\n"
    found, why = parse_matrix(text, (rows, cols), (low, high))
    assert why is None and found == grid


def test_parse_matrix_rejects_wrong_sizes_and_values() -> None:
    assert parse_matrix("Game State: [[1, 0], [0, 1]]", (2, 2), (0, 1))[0] == [[1, 0], [0, 1]]
    found, why = parse_matrix("Game State: [[1, 0], [0]]", (2, 2), (0, 1))
    assert found is None and "found 3" in (why or "")
    found, why = parse_matrix("Game State: [[1, 0], [0, 7]]", (2, 2), (0, 1))
    assert found is None and "7" in (why or "")
    assert parse_matrix("I cannot see the board.", (2, 2), (0, 1))[0] is None
    # The last `Game State:` wins over an example quoted earlier.
    text = "Example Game State: [[0, 0], [0, 0]]\nGame State: [[1, 1], [0, 1]]"
    assert parse_matrix(text, (2, 2), (0, 1))[0] == [[1, 1], [0, 1]]


@given(st.text())
@settings(max_examples=300, deadline=None)
def test_parse_letter_never_crashes(text: str) -> None:
    assert parse_letter(text) in (None, "A", "B", "C", "D")


@given(st.sampled_from("ABCD"), st.text(alphabet="efghijklmnopqrstuvwxyz .,\n", max_size=60),
       st.sampled_from(["Answer: {}", "Final Answer: {}", "Final answer: \\boxed{{{}}}", "[{}]",
                        "Answer: **{}**"]))
def test_parse_letter_round_trips(letter: str, prose: str, form: str) -> None:
    assert parse_letter(prose + "\n" + form.format(letter)) == letter


@pytest.mark.parametrize(("text", "letter"), [
    ("Answer: B", "B"), ("The final answer is C.", "C"), ("\\boxed{D}", "D"), ("I pick [A].", "A"),
    ("It must be B because...", "B"), ("the final answer: a cell", None), ("answer: d", None), ("", None),
    ("Final Answer: C\nAnswer: A", "C"),
])
def test_parse_letter_hand_cases(text: str, letter: str | None) -> None:
    assert parse_letter(text) == letter


# -- scoring --------------------------------------------------------------------------------------


def test_score_perceive_is_cell_accuracy() -> None:
    ts = generate("sudoku", "perceive", 1, seed=3)
    item = ts.items[0]
    truth = [list(r) for r in item.truth]
    exact = score(ts, item, "Game State: " + json.dumps(truth))
    assert exact.score == 1.0 and exact.correct and exact.error is None
    truth[0][0] = (truth[0][0] + 1) % 10
    truth[4][4] = (truth[4][4] + 1) % 10
    two_wrong = score(ts, item, "Game State: " + json.dumps(truth))
    assert two_wrong.score == pytest.approx(79 / 81) and not two_wrong.correct
    short = score(ts, item, "Game State: " + json.dumps(truth[:8]))
    assert short.score == 0.0 and short.parsed is None and "9x9" in short.error


def test_score_qa_is_exact_letter_match() -> None:
    ts = generate("sudoku", "qa", 1, seed=3)
    item = ts.items[0]
    wrong = next(x for x in "ABCD" if x != item.truth)
    assert score(ts, item, f"Answer: {item.truth}").score == 1.0
    assert score(ts, item, f"Answer: {wrong}").score == 0.0
    missing = score(ts, item, "no idea")
    assert missing.score == 0.0 and missing.parsed is None and missing.error


def test_score_rules_is_validity() -> None:
    ts = generate("sudoku", "rules", 1, seed=3)
    item = ts.items[0]
    move = item.truth[0]
    ok = score(ts, item, f"Movement: {move.lower()}")
    assert ok.score == 1.0 and ok.parsed == move
    state = ts.state(item)
    filled = next(i for i, v in enumerate(state.cells) if v)
    bad = f"{'ABCDEFGHI'[filled // 9]}{filled % 9 + 1} 5"
    assert score(ts, item, f"Movement: {bad}").score == 0.0
    none = score(ts, item, "Movement:")
    assert none.score == 0.0 and none.error


# -- baselines ------------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("task", TASK_NAMES)
def test_random_and_sim_answers_parse_and_behave(game_id: str, task: str) -> None:
    ts = generate(game_id, task, 40, seed=11)
    rng = random.Random(0)
    rand = [score(ts, i, random_answer(ts, i, rng)) for i in ts.items]
    assert all(r.error is None for r in rand), [r.error for r in rand if r.error][:2]
    sims = [score(ts, i, sim_answer(ts, i, rng)) for i in ts.items]
    assert sum(r.parsed is None for r in sims) <= 8
    mean = sum(r.score for r in sims) / len(sims)
    assert mean > sum(r.score for r in rand) / len(rand)
    assert 0.2 < mean < 1.0 or (task == "perceive" and mean == 1.0 and game_id == "tictactoe")


def test_sim_errors_grow_with_the_board() -> None:
    def mean(game_id: str) -> float:
        ts = generate(game_id, "perceive", 30, seed=2)
        rng = random.Random(1)
        return sum(score(ts, i, sim_answer(ts, i, rng)).score for i in ts.items) / 30

    big = [g for g in GAMES if definitions(g).rows * definitions(g).cols > 81]
    if not big:
        pytest.skip("no game larger than sudoku is registered yet")
    assert mean("sudoku") > mean(big[0])


def test_random_rules_moves_are_unfiltered() -> None:
    vocab = tasks.move_vocabulary("sudoku")
    assert len(vocab) == 729 and "A1 1" in vocab  # every cell and digit


# -- evaluation -----------------------------------------------------------------------------------


def test_evaluate_offline_players_is_reproducible() -> None:
    ts = generate("sudoku", "qa", 20, seed=4)
    first = asyncio.run(evaluate(ts, "sim"))
    again = asyncio.run(evaluate(ts, "sim"))
    assert [r.answer for r in first] == [r.answer for r in again]
    assert [r.id for r in first] == [i.id for i in ts.items]
    assert len(asyncio.run(evaluate(ts, "random", limit=5))) == 5


def test_evaluate_records_api_faults_per_item(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ts = load_task_set(write_task_set(generate("sudoku", "qa", 6, seed=4), tmp_path / "s", _fake_render))
    seen: list[bytes] = []

    class Fake:
        async def __call__(self, prompt: str, png: bytes) -> str:
            seen.append(png)
            if len(seen) % 2:
                raise RuntimeError("server said 503 for key sk-abcdefghijklmnopqrstuvwxyz123456")
            return "Answer: A"

        async def close(self) -> None:
            pass

    monkeypatch.setattr(tasks, "_model_caller", lambda *a, **k: Fake())
    results = asyncio.run(evaluate(ts, "openai:gpt-test", concurrency=2))
    assert len(results) == 6 and len(seen) == 6
    failed = [r for r in results if r.error and r.error.startswith("api:")]
    assert len(failed) == 3 and all(r.score == 0.0 for r in failed)
    assert all("abcdefghijklmnop" not in (r.error or "") for r in failed)
    record = tasks.results_json(ts, "openai:gpt-test", "GPT test", results)
    assert record["scored"] == 3 and record["api_errors"] == 3


def test_evaluate_rejects_unknown_players() -> None:
    ts = generate("sudoku", "qa", 2, seed=4)
    with pytest.raises(TaskError):
        asyncio.run(evaluate(ts, "nonsense:model"))


def test_results_round_trip(tmp_path: Path) -> None:
    ts = generate("sudoku", "perceive", 3, seed=4)
    results = [ItemResult(i.id, "x", None, 0.5, False, None, 0.1) for i in ts.items]
    path = write_results(tmp_path, ts, "local:qwen@http://u:secret@host/v1", "Qwen", results)
    assert path.name == "local-qwen.json" and "secret" not in path.read_text()
    data = load_results(path)
    assert data["score"] == 0.5 and data["format_errors"] == 3 and data["set"] == {"n": 3, "seed": 4}
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "other"}')
    with pytest.raises(TaskSetError):
        load_results(bad)


# -- weighting ------------------------------------------------------------------------------------


def test_overall_uses_the_reference_weights() -> None:
    # perceive weighs P: tictactoe 0.5, gomoku 5.0.
    assert overall({"tictactoe": 1.0, "gomoku": 0.0}, "perceive") == pytest.approx(0.5 / 5.5)
    # qa weighs P + R: sudoku 5.5, chess 6.5.
    assert overall({"sudoku": 1.0, "chess": 0.5}, "qa") == pytest.approx((5.5 + 3.25) / 12.0)
    # rules weighs P + R + D: reversi 5.5, minesweeper 12.
    assert overall({"reversi": 0.2, "minesweeper": 0.6}, "rules") == pytest.approx((1.1 + 7.2) / 17.5)
    assert tasks.game_weight("plugin-game", "qa") == 1.0
    paper = tasks.PAPER_RANDOM["perceive"]
    assert overall(paper, "perceive") == pytest.approx(3.3345 / 18.0)
    with pytest.raises(TaskError):
        overall({"sudoku": 1.0}, "nope")
