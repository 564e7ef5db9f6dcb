"""The JSON and tool-call readers never raise, find a move that is really there, never invent one, and
the tool's schema holds exactly the legal actions; the confidence over moves adds up."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.agent.action_format import ENUM_LIMIT, TOOL_NAME, move_tool, read_json_answer, read_tool_call
from engine.agent.confidence import move_confidence
from engine.agent.parse import Extraction, parse_answer
from engine.llm.base import TokenLogprob, ToolCall

#: Text around an answer: anything, including braces, quotes and fences that are not the answer.
NOISE = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(["{", "}", '"', "move", ":", "```", "json", "\n", " ", "{}", '{"a": 1}', "[",
                              "null", "thought"]), max_size=12).map("".join),
)
MOVES = st.text(min_size=1, max_size=20).filter(lambda m: m.strip() != "")
TTT = engine.make("tictactoe")
TTT_START = TTT.initial_state()
# The machine running the suite may be busy: no per-example deadline (there are no timing claims here).
relaxed = settings(deadline=None)

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@relaxed
@given(st.text())
def test_any_text_is_read_without_raising(text: str) -> None:
    found = read_json_answer(text)
    assert (found.move is None) == bool(found.error)
    if found.move is not None:
        assert found.move == found.move.strip() and found.move


@relaxed
@given(NOISE.filter(lambda t: "{" not in t), MOVES, st.text(max_size=30),
       NOISE.filter(lambda t: "{" not in t))
def test_the_object_s_move_is_found_whatever_surrounds_it(
    before: str, move: str, thought: str, after: str
) -> None:
    obj = json.dumps({"thought": thought, "move": move})
    found = read_json_answer(f"{before}{obj}{after}")
    assert found.move == move.strip() and found.thought == thought.strip() and not found.error


@relaxed
@given(MOVES, MOVES, st.booleans())
def test_the_last_object_that_names_a_move_wins(first: str, last: str, fenced: bool) -> None:
    body = f'{json.dumps({"move": first})}\n{json.dumps({"move": last})}\n{json.dumps({"note": 1})}'
    text = f"```json\n{body}\n```" if fenced else body
    assert read_json_answer(text).move == last.strip()


@relaxed
@given(st.dictionaries(st.text(max_size=8).filter(lambda k: k not in ("move", "action")), JSON_VALUES,
                       max_size=4))
def test_an_object_without_a_move_never_yields_one(obj: dict[str, object]) -> None:
    found = read_json_answer(json.dumps(obj))
    assert found.move is None and found.error


@relaxed
@given(JSON_VALUES)
def test_a_move_that_is_not_text_is_an_error_or_its_number(value: object) -> None:
    found = read_json_answer(json.dumps({"move": value}))
    if isinstance(value, str) and value.strip():
        assert found.move == value.strip()
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        assert found.move == str(value)
    else:
        assert found.move is None and found.error


@relaxed
@given(st.lists(st.tuples(st.sampled_from([TOOL_NAME, "other_tool"]), st.text(max_size=40)), max_size=4))
def test_tool_calls_are_read_without_raising(calls: list[tuple[str, str]]) -> None:
    found = read_tool_call([ToolCall(name, args) for name, args in calls])
    assert (found.move is None) == bool(found.error)
    if not any(name == TOOL_NAME for name, _ in calls):
        assert found.move is None and TOOL_NAME in found.error


@relaxed
@given(MOVES)
def test_a_tool_call_s_move_is_read(move: str) -> None:
    call = ToolCall(TOOL_NAME, json.dumps({"move": move, "thought": "t"}))
    assert read_tool_call([ToolCall("other_tool", "{}"), call]).move == move.strip()


@relaxed
@given(st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=ENUM_LIMIT + 20, unique=True))
def test_the_tool_schema_holds_the_legal_moves(legal: list[str]) -> None:
    move = move_tool(legal).parameters["properties"]["move"]
    assert move["type"] == "string"
    if len(legal) <= ENUM_LIMIT:
        assert move["enum"] == legal
    else:
        assert "enum" not in move  # too many for a schema: a string, checked by the game


@relaxed
@given(MOVES)
def test_an_extracted_move_is_still_matched_by_the_game(move: str) -> None:
    result = parse_answer(TTT, TTT_START, 0, "raw", extraction=Extraction(move))
    legal = TTT_START.legal_actions(0)
    assert result.action is None or result.action in legal
    assert result.extracted == move


@relaxed
@given(st.lists(st.tuples(st.sampled_from([" left", " right", " up", " down", " the", " l", ""]),
                          st.floats(-8, 0)), min_size=1, max_size=6))
def test_the_confidence_never_exceeds_the_alternatives_mass(top: list[tuple[str, float]]) -> None:
    tokens = [TokenLogprob("move:", -0.01), TokenLogprob(" left", -0.2, tuple(top))]
    found = move_confidence(tokens, "left", ["up", "down", "left", "right"])
    assert found is not None
    mass = sum(math.exp(lp) for _, lp in top)
    assert sum(found["candidates"].values()) + found["other"] == pytest.approx(mass, abs=1e-3)
    assert found["chosen"] == pytest.approx(math.exp(-0.2), abs=1e-4)


def test_json_nested_deeper_than_the_decoder_takes_is_an_error_not_a_crash() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert read_json_answer('{"move": ' + deep + "}").move is None
    found = read_tool_call([ToolCall(TOOL_NAME, deep)])
    assert found.move is None and found.error
