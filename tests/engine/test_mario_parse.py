"""Reading Super Mario Bros actions out of free text and model replies (no emulator needed)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.games.mario import ACTIONS, read_action
from engine.games.mario.answers import extract_action
from engine.games.mario.rules import decode_runs, encode_runs, read_frames, split_action

_DECORATIONS = st.sampled_from(["{}", "({}, {n})", "{} {n}", "**{}**", "`{}`", "{}.", "[{}]", " {} "])


def _spell(action: str, upper: bool, plus: bool) -> str:
    text = action.replace("_", " + ") if plus and "_" in action else action
    return text.upper() if upper else text


@given(st.sampled_from(ACTIONS), _DECORATIONS, st.integers(1, 60), st.booleans(), st.booleans())
def test_any_spelling_of_an_action_reads_back(
    action: str, decoration: str, n: int, upper: bool, plus: bool
) -> None:
    text = decoration.format(_spell(action, upper, plus), n=n)
    assert read_action(text) == action
    found = extract_action(f"thought: the way is clear\nmove: {text}", list(ACTIONS))
    assert found.extracted == action and found.thought == "the way is clear"
    if "{n}" in decoration:
        assert f"frame count {n} was not used" in found.reason


@given(st.text(alphabet="0123456789 ,.;:!?()[]-*#\n", max_size=40))
def test_text_without_an_action_word_reads_as_nothing(text: str) -> None:
    assert read_action(text) is None
    found = extract_action(text, list(ACTIONS))
    assert found.extracted is None and found.error


@given(st.lists(st.sampled_from(ACTIONS), max_size=60))
def test_run_length_histories_round_trip(actions: list[str]) -> None:
    runs: list[tuple[str, int]] = []
    for action in actions:
        if runs and runs[-1][0] == action:
            runs[-1] = (action, runs[-1][1] + 1)
        else:
            runs.append((action, 1))
    text = encode_runs(tuple(runs))
    assert decode_runs(text) == actions and len(text) <= 12 * len(runs)


def test_a_move_line_naming_no_action_is_a_format_error_not_a_guess() -> None:
    found = extract_action("thought: jump over the pipe with right_a\nmove: leap", list(ACTIONS))
    assert found.extracted == "leap" and not found.error  # the game then says 'leap' is no action
    assert extract_action("thought: hmm\nmove:", list(ACTIONS)).error == "the 'move:' line is empty"
    fallback = extract_action("I would press right_b and then right_a", list(ACTIONS))
    assert fallback.extracted == "right_a" and "no 'move:' line" in fallback.reason
    assert read_action("a") == "a" and read_action("I see a pipe") is None


# -- actions that name their duration (the durations option, LMGame-Bench's (action, frames)) ------

_HELD = [f"{a} {n}" for a in ACTIONS for n in (1, 13, 30)]


@given(st.lists(st.sampled_from([*ACTIONS, *_HELD]), max_size=60))
def test_histories_with_durations_round_trip(actions: list[str]) -> None:
    runs: list[tuple[str, int]] = []
    for action in actions:
        if runs and runs[-1][0] == action:
            runs[-1] = (action, runs[-1][1] + 1)
        else:
            runs.append((action, 1))
    assert decode_runs(encode_runs(tuple(runs))) == actions


_FORMS = st.sampled_from(["({}, {n})", "{} {n}", "({}, {n} frames)"])


@given(st.sampled_from(ACTIONS), st.integers(1, 30), _FORMS)
def test_a_duration_reads_back_with_its_action(action: str, n: int, form: str) -> None:
    text = form.format(action, n=n)
    assert read_action(text) == action and read_frames(text) == n
    found = extract_action(f"thought: go\nmove: {text}", _HELD)
    assert found.extracted == text and not found.error  # the game reads the name and the count
    assert split_action(f"{action} {n}") == (action, n) and split_action(action) == (action, None)


def test_without_a_count_the_reply_says_the_set_frames_are_used() -> None:
    found = extract_action("thought: run\nmove: right_b", _HELD)
    assert found.extracted == "right_b" and "no frame count" in found.reason
    assert read_frames("right_b") is None
