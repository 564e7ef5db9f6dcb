"""Reading Candy Crush swaps: every usual way of writing a swap of two neighbours reads back as its
canonical ``((r1,c1),(r2,c2))``, and no text makes the parser fail any other way than with the
game's own errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.core import IllegalActionError, InvalidActionError
from engine.games.candycrush import SWAPS, read_swap
from engine.games.candycrush.answers import extract_move
from engine.games.candycrush.board import format_swap, parse_swap

GAME = engine.make("candycrush")
STATE = GAME.initial_state(seed=7)

FORMS = (
    "(({a},{b}),({c},{d}))",
    "({a},{b}),({c},{d})",
    "({a}, {b}) -> ({c}, {d})",
    "({a},{b})<->({c},{d})",
    "swap ({a},{b}) with ({c},{d})",
    "[[{a},{b}],[{c},{d}]]",
    "row {a} col {b} and row {c} col {d}",
    "{a},{b} {c},{d}",
    "(( {a} , {b} ) , ( {c} , {d} ))",
    "SWAP ({a},{b}) AND ({c},{d}).",
)

swaps = st.sampled_from(SWAPS)


@settings(max_examples=200, deadline=None)
@given(swaps, st.sampled_from(FORMS), st.booleans())
def test_every_form_of_a_swap_reads_back_canonical(swap: tuple, form: str, reverse: bool) -> None:
    (a, b), (c, d) = reversed(swap) if reverse else swap
    text = form.format(a=a, b=b, c=c, d=d)
    assert read_swap(text) == swap
    assert format_swap(read_swap(text)) == format_swap(swap)


@settings(max_examples=200, deadline=None)
@given(swaps, st.sampled_from(["up", "down", "left", "right"]))
def test_a_cell_and_a_direction_name_the_neighbour(swap: tuple, _unused: str) -> None:
    (r1, c1), (r2, c2) = swap
    direction = "down" if r2 > r1 else "right"
    assert read_swap(f"({r1},{c1}) {direction}") == swap
    back = "up" if r2 > r1 else "left"
    assert read_swap(f"({r2},{c2}) {back}") == swap


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_text_parses_or_fails_with_the_games_errors(text: str) -> None:
    try:
        action = GAME.parse_action(text, STATE)
    except (InvalidActionError, IllegalActionError) as exc:
        assert str(exc)
    else:
        assert action in STATE.legal_actions()
    found = extract_move(text, STATE.legal_actions())
    assert found.extracted is not None or found.error


@settings(max_examples=150, deadline=None)
@given(swaps)
def test_legal_swaps_parse_and_the_rest_are_refused_with_the_reason(swap: tuple) -> None:
    action = format_swap(swap)
    if action in STATE.legal_actions():
        assert GAME.parse_action(f"move: {action}", STATE) == action
    else:
        with pytest.raises(IllegalActionError, match="no line|changes nothing"):
            GAME.parse_action(action, STATE)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("((0,0),(0,2))", "not neighbours"),
        ("((0,0),(1,1))", "not neighbours"),
        ("((7,7),(7,8))", "off the board"),
        ("(0,0) up", "off the board"),
        ("nothing here", "names no swap"),
        ("", "names no swap"),
    ],
)
def test_bad_swaps_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(InvalidActionError, match=message):
        read_swap(text)
    assert parse_swap("left") is None
