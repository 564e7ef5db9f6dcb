"""Courtroom: scores on hand-worked cases, penalties and the idle limit end the trial, every bundled case
is solved by its own answer key, states round-trip through JSON, the panel, the Gymnasium environment
and the conformance check."""

from __future__ import annotations

import json
import random

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import engine
import engine.gym  # noqa: F401  (registers the environments)
from engine.core import IllegalActionError, InvalidActionError
from engine.games.courtroom import PENALTY_LIMIT, Case, CourtState, key_actions, load_bundled
from engine.games.courtroom.bots import key_move
from engine.options import OptionError

GAME = engine.make("courtroom")


def play(actions: list[str], state: CourtState | None = None, **options: object) -> CourtState:
    game = engine.make("courtroom", **options) if options else GAME
    state = state or game.initial_state(seed=0)
    for action in actions:
        state = state.apply(action)
    assert isinstance(state, CourtState)
    return state


# -- scores on hand-worked cases -------------------------------------------------------------------


def test_the_first_testimony_by_hand() -> None:
    # "The full moon was so bright..." is statement 4; E2 (the almanac) shows a new moon.
    state = play(["next", "next", "next"])
    assert state.statement.id == "moon" and state.score == 0 and state.idle == 3
    wrong = state.apply("present E1")
    assert (wrong.score, wrong.penalties, wrong.testimony) == (0, 1, 0)
    right = wrong.apply("present E2")
    assert (right.score, right.penalties, right.testimony, right.position) == (1, 1, 1, 0)
    assert right.idle == 0 and right.metrics()["correct_actions"] == 1


def test_a_telling_press_reveals_its_statement_and_scores_only_with_score_presses() -> None:
    state = play(["next", "next", "next", "present E2"])  # testimony 2: "gone" reveals "smashed"
    assert [s.id for s in state.statements] == ["gone", "alone", "closed"]
    pressed = state.apply("press")
    assert pressed.score == 1 and [s.id for s in pressed.statements] == ["gone", "smashed", "alone", "closed"]
    assert pressed.idle == 0  # a telling press is progress: the idle count starts again
    again = pressed.apply("press")
    assert again.score == 1 and again.idle == 1  # pressed before: nothing new
    assert again.annotate("press") != ""
    solved = pressed.apply("next").apply("present E3")
    assert solved.score == 2 and solved.case == 1 and solved.solved == 1 and solved.level_steps == 0
    counted = play(["next", "next", "next", "present E2", "press"], score_presses=True)
    assert counted.score == 2 and counted.apply("press").score == 2  # the first press only
    plain = counted.apply("next").apply("next")  # "alone" reveals nothing
    assert plain.apply("press").score == 2


def test_pressing_can_add_evidence_and_a_question_follows_a_broken_testimony() -> None:
    case2 = play(key_actions(load_bundled()[1])[:4], engine.make("courtroom", case="orchard").initial_state())
    assert case2.testimony == 1 and "receipt" not in case2.held
    state = play(["next", "next", "press"], case2)
    assert "receipt" in state.held and state.score == 1 and "present E5" in state.legal_actions()
    state = play(["back", "present E3"], state)
    assert state.phase == "choice" and state.legal_actions() == ["choose A", "choose B", "choose C"]
    wrong = state.apply("choose A")
    assert wrong.phase == "choice" and wrong.penalties == 1 and wrong.score == 2
    right = wrong.apply("choose B")
    assert right.phase == "cross" and right.testimony == 2 and right.score == 3


def test_five_penalties_lose_the_trial_and_nothing_is_legal_after() -> None:
    state = play(["present E1"] * 3 + ["next"] + ["present E1"] * 2)
    assert state.phase == "lost" and state.penalties == PENALTY_LIMIT and state.is_over
    assert state.legal_actions() == [] and state.scores == (0.0,)
    assert "guilty" in state.log[-1][1].lower()
    with pytest.raises(IllegalActionError):
        state.apply("next")


def test_the_idle_limit_ends_a_trial_without_decisions() -> None:
    state = play(["next"] * 10, idle_limit=10)
    assert state.phase == "stalled" and state.is_over and state.idle == 10
    assert not play(["next"] * 9, idle_limit=10).is_over
    reset = play(["next"] * 9 + ["present E1"] + ["next"] * 9, idle_limit=10)
    assert not reset.is_over  # a penalty is a decision: the count starts again


def test_solving_every_case_wins_with_the_whole_score() -> None:
    state = GAME.initial_state(seed=0)
    for case in load_bundled():
        state = play(key_actions(case), state)
    assert state.phase == "won" and state.is_over
    assert state.score == sum(c.key_steps for c in load_bundled()) == 33
    m = state.metrics()
    assert (m["level"], m["cases_solved"], m["progress"]) == (6.0, 6.0, 6.0)


def test_scoring_presses_adds_the_keys_presses_to_the_whole_score() -> None:
    game = engine.make("courtroom", score_presses=True)
    state = game.initial_state(seed=0)
    for case in load_bundled():
        state = play(key_actions(case), state)
    assert state.phase == "won" and state.score == sum(c.key_steps + c.key_presses for c in load_bundled())
    assert "first press" in game.rules_text() and "first press" not in GAME.rules_text()


def test_progress_is_level_and_share_of_the_case() -> None:
    state = play(key_actions(load_bundled()[0]) + ["next", "next", "next", "present E2"])
    assert state.level == 2 and state.level_steps == 1
    assert state.metrics()["progress"] == pytest.approx(1 + 1 / 4)
    assert state.notice().startswith("L2 - 1 Step")
    assert GAME.raw_score == "correct_actions" and GAME.progress_score == "progress"


def test_the_case_option_starts_later_and_the_score_counts_from_there() -> None:
    game = engine.make("courtroom", case="regatta")
    state = game.initial_state(seed=5)
    assert state.level == 5 and state.current_case.id == "regatta"
    state = play(key_actions(load_bundled()[4]), state)
    assert state.level == 6 and state.phase == "cross" and state.score == 5
    assert state.current_case.id == "lighthouse"


# -- answer keys -----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", load_bundled(), ids=lambda c: c.id)
def test_every_case_is_solved_by_its_key_without_a_penalty(case: Case) -> None:
    state = engine.make("courtroom", case=case.id).initial_state(seed=0)
    for action in key_actions(case):
        assert action in state.legal_actions(), (action, state.legal_actions())
        before = state.score
        state = state.apply(action)
        assert state.penalties == 0
        assert state.score - before in (0, 1)
    assert state.solved == 1 and state.score == case.key_steps and state.penalties == 0
    last = case is load_bundled()[-1]
    assert state.phase == ("won" if last else "cross") and (last or state.level_steps == 0)


def test_the_attorney_bot_follows_the_key_from_any_point() -> None:
    rng = random.Random(3)
    for _ in range(20):
        state = GAME.initial_state(seed=0)
        for _ in range(rng.randrange(0, 12)):  # wander first, without losing
            moves = [a for a in state.legal_actions() if not a.startswith("present")]
            state = state.apply(rng.choice(moves))
        for _ in range(200):
            if state.is_over:
                break
            state = state.apply(key_move(state)[0])
        assert state.phase == "won" and state.penalties == 0


def test_key_steps_are_rising_with_the_case() -> None:
    steps = [c.key_steps for c in load_bundled()]
    statements = [sum(len(t.statements) for t in c.testimonies) for c in load_bundled()]
    assert steps == sorted(steps) and steps[0] < steps[-1]
    assert statements[-1] == max(statements) and statements[0] < statements[-1]


def test_six_cases_and_the_long_one_has_over_a_hundred_statements() -> None:
    book = load_bundled()
    assert len(book) >= 6 and book[-1].id == "lighthouse"
    assert book[-1].statement_count > 100
    # Solved by its key, the long case's dialogue runs to hundreds of lines: a long context.
    state = play(key_actions(book[-1])[:-1], engine.make("courtroom", case="lighthouse").initial_state(0))
    assert state.phase == "choice" and len(state.log) > 200 and len(state.text()) > 20_000


def test_the_recent_context_leaves_out_dialogue_before_the_current_testimony() -> None:
    actions = key_actions(load_bundled()[-1])[:30]
    long = play(actions, engine.make("courtroom", case="lighthouse").initial_state(0))
    recent = play(actions, engine.make("courtroom", case="lighthouse", context="recent").initial_state(0))
    assert long.testimony == recent.testimony > 0 and long.score == recent.score
    first = "Silas Tregear: I've kept the Gull Point light for twenty-two years without a single dark night."
    assert first in long.text() and first not in recent.text()
    header = f"Testimony {long.testimony + 1} of {len(long.current_case.testimonies)}"
    assert header in recent.text() and "earlier lines of dialogue left out" in recent.text()
    assert "## Evidence" in recent.text() and len(recent.text()) < len(long.text()) / 2
    game = engine.make("courtroom", context="recent")
    assert game.state_from_json(recent.to_json()).context == "recent"


# -- views, JSON, controls -----------------------------------------------------------------------------


def test_the_text_view_holds_history_testimony_and_evidence() -> None:
    state = play(["next", "press"])
    text = state.text()
    assert "## Dialogue history (older -> newer)" in text and "Hold it!" in text
    assert (
        "> 2. \u201cJust before ten, I saw the defendant slip out of the east door.\u201d  (pressed)" in text
    )
    assert "E2 Harbour almanac: Saltmere's almanac for March." in text
    assert "Penalties: 0 of 5 used (5 left)" in text
    assert text.index("## Dialogue history") < text.index("## Cross-examination") < text.index("## Evidence")
    limit = len(text) - 300
    short = state.text_within(limit)
    assert len(short) <= limit and "## Evidence" in short and "earlier dialogue left out" in short
    assert short.endswith(text[-200:]) and "Hold it!" in short  # the newest lines stay


def test_unheld_evidence_and_a_back_at_the_start_are_illegal_with_reasons() -> None:
    state = GAME.initial_state(seed=0)
    with pytest.raises(IllegalActionError, match="first statement"):
        state.apply("back")
    with pytest.raises(IllegalActionError, match="no evidence E9"):
        state.apply("present E9")
    with pytest.raises(IllegalActionError, match="no question"):
        state.apply("choose A")
    with pytest.raises(InvalidActionError):
        state.apply("objection")


def test_states_survive_json_and_bad_json_is_refused() -> None:
    state = play(key_actions(load_bundled()[0])[:5])
    back = GAME.state_from_json(json.loads(json.dumps(state.to_json())))
    assert back == state and back.text() == state.text()
    bad = dict(state.to_json(), case_id="orchard")  # another case's id: its testimony has none of these
    with pytest.raises(engine.core.StateFormatError, match="current testimony"):
        GAME.state_from_json(bad)
    with pytest.raises(engine.core.StateFormatError, match="phase"):
        GAME.state_from_json(dict(state.to_json(), phase="recess"))


def test_the_panel_presses_moves_and_presents() -> None:
    state = play(["next"])
    panel = state.panel(0)
    assert [b.label for b in panel.buttons] == ["Press", "Back", "Next"]
    assert panel.submit == "Present" and panel.amounts[0].labels[1] == "E2 Harbour almanac"
    assert panel.action_for({"evidence": 1}) == "present E2"
    assert panel.summary({"evidence": 0}).startswith("Present E1 Visitor pass at the current statement.")
    # A person choosing what to present reads the description the model reads.
    assert state.evidence()[1].description in panel.summary({"evidence": 1})
    first = GAME.initial_state(seed=0).panel(0)
    assert not next(b for b in first.buttons if b.action == "back").enabled
    choice = play(
        key_actions(load_bundled()[1])[:9], engine.make("courtroom", case="orchard").initial_state()
    )
    assert [b.action for b in choice.panel(0).buttons] == ["choose A", "choose B", "choose C"]
    assert play(["present E1"] * 5).panel(0) is None


def test_keys_name_actions_of_the_game() -> None:
    assert set(GAME.keymap.values()) <= set(GAME.actions)
    assert GAME.keymap["p"] == "press" and GAME.keymap["right"] == "next" and GAME.keymap["2"] == "present E2"


# -- the whole game through the common checks -------------------------------------------------------------


def test_conformance() -> None:
    report = engine.check_game("courtroom", episodes=2, max_steps=60)
    assert report.states > 10


def test_random_play_scores_as_lmgame_benchs_random_row() -> None:
    # LMGame-Bench's random row for Ace Attorney is 0.0 +- 0.0 over 30 runs. Uniform random play over
    # the legal actions spends its five penalties long before it finds a contradiction: it scores in
    # fewer than one run in a hundred, and in none of the 30 seeds `playtrace baseline` plays.
    def score(seed: int) -> int:
        rng = random.Random(seed)
        state = GAME.initial_state(seed=seed)
        while not state.is_over:
            state = GAME.play_random(state, rng)
        return state.score

    assert [score(seed) for seed in range(30)] == [0] * 30
    assert sum(score(seed) > 0 for seed in range(1000, 2000)) < 15


def test_gymnasium_environment_passes_check_env() -> None:
    env = gymnasium.make("playtrace/courtroom-v0", render_mode="rgb_array", render_size=(160, 100))
    check_env(env.unwrapped)
    obs, info = env.reset(seed=2)
    assert "## Evidence" in obs and info["legal"][0] == "next"
    assert env.render().shape == (100, 160, 3)
    index = env.unwrapped.actions.index("present E2")
    for action in ("next", "next", "next"):
        env.step(env.unwrapped.actions.index(action))
    _, reward, terminated, _, info = env.step(index)
    assert reward == 1.0 and not terminated and info["correct_actions"] == 1.0
    _, reward, _, _, info = env.step(env.unwrapped.actions.index("choose A"))
    assert reward == 0.0 and info["illegal"]


def test_the_perception_table_has_lmgame_benchs_fields_in_order() -> None:
    table = play(["next"]).text_table()
    fields = [line.split(":", 1)[0] for line in table.splitlines()]
    assert fields == ["Game State", "Dialog", "Dialogue Continuation", "Options", "Evidence", "Scene"]
    assert "Dialog: Osric Pell: Just before ten" in table and "Game State: Cross-Examination" in table
    question = play(
        key_actions(load_bundled()[1])[:9], engine.make("courtroom", case="orchard").initial_state()
    )
    assert "Options: A. A lightning strike during the storm, not selected; B." in question.text_table()


def test_a_checkpoint_starts_later_in_the_case_with_the_older_dialogue_kept() -> None:
    case = load_bundled()[-1]
    game = engine.make("courtroom", case="lighthouse", checkpoint=4)
    state = game.initial_state(seed=0)
    assert (state.testimony, state.score, state.penalties, state.step, state.checkpoint) == (3, 0, 0, 0, 3)
    assert not state.checkpoint_broken and state.metrics()["checkpoint_broken"] == 0.0
    older = "Silas Tregear: I've kept the Gull Point light for twenty-two years without a single dark night."
    assert older in state.text()
    recent = engine.make("courtroom", case="lighthouse", checkpoint=4, context="recent").initial_state(seed=0)
    assert older not in recent.text() and recent.statements == state.statements
    # The key's actions for the fourth testimony break it: the checkpoint is passed, one correct action.
    ahead = key_actions(case, 4)[len(key_actions(case, 3)) :]
    broken = play(ahead[:-1], state)  # up to the presentation; the question follows
    assert broken.checkpoint_broken and broken.score == 1 and broken.phase == "choice"
    assert game.state_from_json(broken.to_json()) == broken
    with pytest.raises(OptionError, match="'telescope' has 2 testimonies, not 3"):
        engine.make("courtroom", case="telescope", checkpoint=3)


def test_a_state_recorded_under_the_old_casebook_order_finds_its_case_by_id() -> None:
    # Before the six-case casebook, regatta was case 3 (index 2); a session from then still loads.
    state = engine.make("courtroom", case="regatta").initial_state(seed=0).apply("next")
    old = dict(state.to_json(), case=2)
    old.pop("score_presses")
    back = GAME.state_from_json(old)
    assert back.current_case.id == "regatta" and back.case == state.case and back.score_presses
    with pytest.raises(engine.core.StateFormatError, match="not one of this game's cases"):
        GAME.state_from_json(dict(old, case_id="lost-case"))
