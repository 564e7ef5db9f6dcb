"""Study files: what they say, how orders are counterbalanced, and mistakes named by their line."""

from __future__ import annotations

import itertools
from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.study import StudyError, check_games, latin_square, parse_study

EXAMPLE = (resources.files("assets") / "studies" / "example.toml").read_text(encoding="utf-8")

SMALL = """
id = "s"
version = 2
consent = "ok?"
order = "latin"

[[game]]
key = "a"
game = "2048"
seeds = [1, 2]
practice = 1
questionnaire = "q"

[[game]]
key = "b"
game = "tictactoe"
opponent = "minimax"

[[questionnaire]]
key = "q"
[[questionnaire.item]]
key = "hard"
kind = "likert"
text = "Hard?"
"""


def test_the_example_study_reads_and_its_games_exist() -> None:
    study = parse_study(EXAMPLE, "example.toml")
    assert [g.key for g in study.games] == ["ttt", "2048", "c4"]
    assert study.order == "latin" and study.final_questionnaire == "end" and not study.undo
    assert check_games(study) == []


def test_a_schedule_has_practice_before_counted_games_and_questionnaires_after_them() -> None:
    study = parse_study(SMALL)
    blocks, condition = study.schedule(0, "P001")
    assert condition == "A"
    kinds = [(b.kind, b.game.key if b.game else None) for b in blocks]
    assert kinds == [("consent", None), ("instructions", None), ("practice", "a"), ("game", "a"),
                     ("questionnaire", "a"), ("game", "a"), ("questionnaire", "a"), ("game", "b"),
                     ("thanks", None)]
    assert [b.index for b in blocks] == list(range(len(blocks)))
    second, condition = study.schedule(1, "P002")
    assert condition == "B" and [b.game.key for b in second if b.kind == "game"] == ["b", "a", "a"]
    tags = blocks[2].tags(study, "P001", "A")
    assert tags["practice"] is True and tags["position"] == 1 and tags["digest"] == study.digest


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_latin_squares_are_balanced(n: int) -> None:
    rows = latin_square(n)
    assert len(rows) == (n if n % 2 == 0 else 2 * n)
    for position in range(n):  # every game in every position equally often
        counts = [sum(1 for r in rows if r[position] == g) for g in range(n)]
        assert len(set(counts)) == 1
    follows = {pair: 0 for pair in itertools.permutations(range(n), 2)}
    for r in rows:
        for a, b in itertools.pairwise(r):
            follows[(a, b)] += 1
    assert len(set(follows.values())) == 1  # every game follows every other equally often


def test_shuffled_orders_are_seeded_by_the_participant() -> None:
    study = parse_study(SMALL.replace('order = "latin"', 'order = "shuffle"'))
    assert study.order_for(0, "P001") == study.order_for(7, "P001")
    orders = {study.order_for(i, f"P{i:03d}")[0] for i in range(20)}
    assert orders == {(0, 1), (1, 0)}


@pytest.mark.parametrize(("change", "line", "words"), [
    (('order = "latin"', 'order = "random"'), 5, "order must be one of"),
    (('seeds = [1, 2]', 'seeds = "1"'), 10, "seeds must be a list"),
    (('opponent = "minimax"', 'opponnent = "minimax"'), 17, "unknown key 'opponnent'"),
    (('questionnaire = "q"\n', 'questionnaire = "after"\n'), 12, "'after' is not defined"),
    (('kind = "likert"', 'kind = "stars"'), 23, "kind must be one of likert, text"),
    (('consent = "ok?"\n', ''), None, "consent is missing"),
    (('version = 2', 'version = 0'), 3, "version must be a whole number of at least 1"),
    (('[[questionnaire]]', '[[questionnaire]'), 19, "not valid TOML"),
])
def test_mistakes_name_their_line(change: tuple[str, str], line: int | None, words: str) -> None:
    text = SMALL.replace(*change)
    assert text != SMALL
    with pytest.raises(StudyError) as info:
        parse_study(text, "s.toml")
    assert words in str(info.value)
    if line is not None:
        assert info.value.line == line, str(info.value)
        assert str(info.value).startswith(f"s.toml:{line}: ")


def test_unknown_games_and_opponents_are_reported_by_key() -> None:
    study = parse_study(SMALL.replace('game = "2048"', 'game = "chesss"').replace('"minimax"', '"nobody"'))
    problems = check_games(study)
    assert len(problems) == 2 and "game 'a'" in problems[0] and "opponent 'nobody'" in problems[1]


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200))
def test_any_text_is_a_study_or_a_study_error(text: str) -> None:
    try:
        parse_study(text)
    except StudyError:
        pass
