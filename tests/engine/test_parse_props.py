"""The parse chain never raises, and finds a move that is really there."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.agent.parse import ILLEGAL, OK, UNPARSABLE, ParseResult, extract_tags, parse_answer
from engine.games.tictactoe import TicTacToeState

G2048 = engine.make("2048")
TTT = engine.make("tictactoe")

#: Text that looks like model output: keywords, markup, coordinates, directions, and anything else.
FRAGMENTS = st.sampled_from([
    "move:", "Move: ", "**move:**", "# move:", "thought:", "Chosen Move:", "chosen move", "(1,1)",
    "( 2 , 0 )", "[1,2]", "up", "LEFT", "down.", "right!", "\n", "[Intermediate Thinking Results 1: ", "]",
    "None", "(9,9)", "`", "*", ":", "-", "0", ",", " ", "\r\n", "\u2028", "：",
])
MODEL_TEXT = st.one_of(
    st.text(), st.lists(st.one_of(FRAGMENTS, st.text(max_size=5)), max_size=30).map("".join)
)
DIRECTIONS = st.sampled_from(["up", "down", "left", "right"])
MOVE_KEYWORDS = st.sampled_from(["move: ", "Move:", "**move:** "])


@st.composite
def ttt_states(draw: st.DrawFn) -> TicTacToeState:
    state = TTT.initial_state()
    for _ in range(draw(st.integers(0, 8))):
        if state.is_over:
            break
        state = state.apply(draw(st.sampled_from(state.legal_actions())))
    return state


def check(result: ParseResult, legal: list[str]) -> None:
    assert result.kind in (OK, UNPARSABLE, ILLEGAL)
    if result.action is not None:
        assert result.kind == OK and result.action in legal and not result.error
    else:
        assert result.kind != OK and isinstance(result.error, str) and result.error


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MODEL_TEXT, st.integers(0, 2**16))
def test_2048_parser_never_raises(text: str, seed: int) -> None:
    state = G2048.initial_state(seed=seed)
    check(parse_answer(G2048, state, 0, text), state.legal_actions(0))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MODEL_TEXT, ttt_states())
def test_tictactoe_parser_never_raises(text: str, state: TicTacToeState) -> None:
    seat = state.to_act[0] if state.to_act else None
    check(parse_answer(TTT, state, seat, text), state.legal_actions(seat))


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.none(), st.integers(), st.binary(max_size=20)))
def test_non_text_answers_are_format_errors(raw: object) -> None:
    state = G2048.initial_state(seed=1)
    result = parse_answer(G2048, state, 0, raw)
    assert result.action is None or result.action in state.legal_actions(0)


@settings(max_examples=200, deadline=None)
@given(MODEL_TEXT, DIRECTIONS, MOVE_KEYWORDS)
def test_2048_move_line_after_any_text_is_found(prefix: str, move: str, keyword: str) -> None:
    state = G2048.initial_state(seed=3)
    result = parse_answer(G2048, state, 0, f"{prefix}\n{keyword}{move.upper()}\n")
    assert result.action == move, (result.error, result.reason)


@settings(max_examples=200, deadline=None)
@given(MODEL_TEXT, ttt_states().filter(lambda s: not s.is_over), st.data())
def test_tictactoe_chosen_move_after_any_text_is_found(
    prefix: str, state: TicTacToeState, data: st.DataObject
) -> None:
    move = data.draw(st.sampled_from(state.legal_actions()))
    r, c = move[1], move[3]
    result = parse_answer(TTT, state, state.to_act[0], f"{prefix}\nChosen Move: ({r}, {c})")
    assert result.action == move, (result.error, result.reason)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.integers(1, 3), st.from_regex(r"[A-Za-z0-9(), ]{0,20}", fullmatch=True), max_size=3),
    st.text(alphabet=st.characters(blacklist_characters="[]\n"), max_size=20),
)
def test_tags_are_extracted_from_any_surrounding_text(tags: dict[int, str], noise: str) -> None:
    text = noise + "".join(f"\n[Intermediate Thinking Results {k}: {v}]" for k, v in tags.items())
    found = extract_tags(text)
    for k, v in tags.items():
        assert found[k] == v.strip()
