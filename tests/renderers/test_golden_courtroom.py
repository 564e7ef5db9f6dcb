"""Courtroom renderer: golden pictures (a testimony, a question, the verdict, a small frame), every line
of every bundled case fits its box unclipped, clicks map to actions, and frames are fast."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF

import engine
import renderers
from engine.games.courtroom import CourtState, key_actions, load_bundled
from renderers import courtroom as drawing
from tests.renderers.render_helpers import changed_mask
from tests.renderers.test_golden import Case, check_golden

GAME = engine.make("courtroom")


def _trial(*actions: str, case: str = "telescope") -> CourtState:
    state = engine.make("courtroom", case=case).initial_state(seed=0)
    for action in actions:
        state = state.apply(action)
    assert isinstance(state, CourtState)
    return state


def _key(case: int, upto: int) -> tuple[str, ...]:
    return tuple(key_actions(load_bundled()[case])[:upto])


CASES = [
    Case(
        "courtroom-statement",
        "courtroom",
        lambda: _trial("press", "next", "present E1", "next", "next"),
        (1280, 800),
        highlight=("present E2",),
    ),
    Case(
        "courtroom-question",
        "courtroom",
        lambda: _trial(*_key(1, 9), case="orchard"),
        (1280, 800),
        highlight=("choose B",),
    ),
    Case("courtroom-not-guilty", "courtroom", lambda: _trial(*_key(4, 99), case="regatta"), (1280, 800)),
    Case("courtroom-small-regatta", "courtroom", lambda: _trial(*_key(4, 15), case="regatta"), (512, 320)),
    # The long case deep in: ten pieces of evidence, each with its description, beside the witness.
    Case(
        "courtroom-long-case",
        "courtroom",
        lambda: _trial(*_key(5, 46), "next", case="lighthouse"),
        (1280, 800),
    ),
]


def test_goldens() -> None:
    for case in CASES:
        check_golden(case.render(), case.name)


def _lines(case_index: int) -> list[tuple[str, str]]:
    """Every line the text box can show in a case, with its kind."""
    case = load_bundled()[case_index]
    out = [(case.summary, "dialogue")]
    out += [(text, "dialogue") for _, text in case.opening + case.verdict]
    for t in case.testimonies:
        out += [(text, "dialogue") for _, text in t.intro + t.answer.solved]
        for s in t.statements:
            out.append((f"\u201c{s.text}\u201d", "statement"))
            out += [(text, "dialogue") for _, text in s.press]
        if t.choice is not None:
            out += [(text, "dialogue") for _, text in (t.choice.question, *t.choice.right, *t.choice.wrong)]
    return out


@pytest.mark.parametrize("size", [(1280, 800), (640, 400)])
def test_no_line_of_any_case_is_cut(size: tuple[int, int]) -> None:
    lay = drawing._Layout.of(QRectF(0, 0, *size))
    u = lay.u
    box = lay.box
    area = QRectF(0, 0, box.width() - 56 * u, lay.cues()[0][2].top() - 6 * u - box.top() - 26 * u)
    for index in range(len(load_bundled())):
        for text, _ in _lines(index):
            shown, _ = drawing._fitted(
                text,
                round(area.width(), 1),
                round(area.height(), 1),
                round(lay.px(32, 12), 1),
                lay.px(13, 9),
                False,
            )
            assert shown == text, f"cut at {size}: {text!r}"
        for t in load_bundled()[index].testimonies:
            if t.choice is None:
                continue
            for i, (option, rect) in enumerate(
                zip(t.choice.options, lay.options(len(t.choice.options)), strict=True)
            ):
                room = rect.adjusted(22 * u, 10 * u, -22 * u, -8 * u)
                text = f"{'ABCD'[i]}. {option}"
                shown, _ = drawing._fitted(
                    text,
                    round(room.width(), 1),
                    round(room.height(), 1),
                    round(lay.px(26, 11), 1),
                    lay.px(12, 8),
                    False,
                )
                assert shown == text, f"answer cut at {size}: {text!r}"
        for e in load_bundled()[index].evidence:
            card = lay.cards(len(load_bundled()[index].evidence))[0]
            side = card.height() - 12 * u
            width = card.width() - side - 16 * u
            height = (card.height() - 8 * u) * 0.58
            shown, _ = drawing._fitted(
                e.name, round(width, 1), round(height, 1), round(lay.px(14.5), 1), lay.px(10.5), False
            )
            assert shown == e.name or lay.compact, f"evidence name cut at {size}: {e.name!r}"


def test_clicks_present_answer_and_move() -> None:
    r = renderers.get("courtroom")
    state = _trial("next")
    lay = drawing._Layout.of(QRectF(0, 0, 1280, 800))
    card = lay.cards(len(state.evidence()))[1]
    assert r.hit_test(state, 1280, 800, card.center().x(), card.center().y()) == "present E2"
    for label, action, rect in lay.cues():
        assert r.hit_test(state, 1280, 800, rect.center().x(), rect.center().y()) == action, label
    assert r.hit_test(state, 1280, 800, 640, 200) is None
    assert r.hit_test(state, 1280, 800, *lay.record_panel.center().toTuple()) is None
    question = _trial(*_key(1, 9), case="orchard")
    option = lay.options(3)[2]
    assert r.hit_test(question, 1280, 800, option.center().x(), option.center().y()) == "choose C"


def test_a_move_redraws_only_what_changed() -> None:
    r = renderers.get("courtroom")
    before = _trial("next")
    after = before.apply("next")
    mask = changed_mask(r.render(before, 640, 400), r.render(after, 640, 400))
    assert mask.any()
    # The witness, the stand and the court record do not change; the statement markers and the text
    # box do.
    assert not mask[100:230, 440:540].any() and not mask[75:225, 15:345].any()
    assert mask[300:400].any() and mask[40:70, :200].any()
