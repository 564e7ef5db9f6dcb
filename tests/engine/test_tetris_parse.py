"""Reading Tetris actions out of free text: the game's parser and its answer extractor, with
hypothesis properties (any spelling of an action round-trips; any text either parses to one action or
raises the contract's error)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.core import IllegalActionError, InvalidActionError
from engine.games.tetris import ACTIONS, read_actions
from engine.games.tetris.answers import extract_move

GAME = engine.make("tetris")
STATE = GAME.initial_state(seed=0)

#: Spellings a model writes for each action, beside the canonical names.
SPELLINGS: dict[str, list[str]] = {
    "no_op": ["no_op", "noop", "No-Op", "no op", "do nothing"],
    "left": ["left", "Move Left", "move_left", "LEFT"],
    "right": ["right", "move right", "Move-Right"],
    "rotate_left": ["rotate_left", "rotate counterclockwise", "Rotate Anti-Clockwise", "CCW", "rotate ccw"],
    "rotate_right": ["rotate_right", "rotate clockwise", "Rotate", "cw", "clockwise"],
    "soft_drop": ["soft_drop", "Soft Drop", "move down", "down"],
    "hard_drop": ["hard_drop", "Hard Drop", "drop", "HARD-DROP"],
    "hold": ["hold", "Hold", "swap"],
}


@pytest.mark.parametrize(("action", "spelling"), [(a, s) for a, ss in SPELLINGS.items() for s in ss])
def test_every_spelling_names_its_action(action: str, spelling: str) -> None:
    assert GAME.parse_action(spelling, STATE) == action
    assert GAME.parse_action(f"I will {spelling} now.", STATE) == action


def test_several_different_actions_are_refused() -> None:
    with pytest.raises(InvalidActionError, match="several actions"):
        GAME.parse_action("left then hard_drop", STATE)
    with pytest.raises(InvalidActionError, match="no action"):
        GAME.parse_action("jump over it", STATE)
    assert GAME.parse_action("left, left", STATE) == "left"  # the same action twice is one action


def test_an_action_after_the_end_is_illegal() -> None:
    over = GAME.state_from_json(STATE.to_json() | {"step": STATE.max_steps})
    assert over.is_over
    with pytest.raises(IllegalActionError):
        GAME.parse_action("left", over)


@settings(max_examples=200, deadline=None)
@given(
    action=st.sampled_from(ACTIONS),
    before=st.sampled_from(["", " ", "move: ", "**", "I choose ", "\n", "'", "("]),
    after=st.sampled_from(["", ".", " ", "!", "\n", "'", ")", " now"]),
    upper=st.booleans(),
)
def test_a_canonical_action_in_any_wrapping_round_trips(
    action: str, before: str, after: str, upper: bool
) -> None:
    text = before + (action.upper() if upper else action) + after
    assert GAME.parse_action(text, STATE) == action
    assert extract_move(f"thought: plan it\nmove: {text}", list(ACTIONS)).extracted == action


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_text_parses_to_one_action_or_raises_the_contracts_error(text: str) -> None:
    try:
        action = GAME.parse_action(text, STATE)
    except InvalidActionError:
        assert len(set(read_actions(text))) != 1
        return
    assert action in ACTIONS and set(read_actions(text)) == {action}


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_the_extractor_never_fails_on_any_text(text: str) -> None:
    found = extract_move(text, list(ACTIONS))
    assert found.extracted is None or isinstance(found.extracted, str)
    assert found.extracted is not None or found.error


def test_the_extractor_reads_the_last_move_line_and_falls_back_to_the_text() -> None:
    answer = "thought: left is blocked\nmove: left\nmove: Rotate clockwise"
    found = extract_move(answer, list(ACTIONS))
    assert found.extracted == "rotate_right" and "last of 2" in found.reason
    assert found.thought == "left is blocked"
    assert extract_move("I would hard drop it here.", list(ACTIONS)).extracted == "hard_drop"
    empty = extract_move("thought: hmm\nmove:", list(ACTIONS))
    assert empty.extracted is None and "empty" in (empty.error or "")
    assert extract_move("thought: nothing to say", list(ACTIONS)).extracted is None
