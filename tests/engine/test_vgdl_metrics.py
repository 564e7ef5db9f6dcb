"""GVGAI-LLM metrics on tiny hand-made VGDL-like states."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.games.vgdl import metrics as m

LEGEND = {"avatar": "a", "floor": ".", "wall": "w", "key": "k", "box": "b"}


@dataclass(frozen=True)
class S:
    ascii_rows: tuple[str, ...]
    avatar_pos: tuple[int, int] | None
    game_score: float = 0.0
    won: bool | None = None
    tick: int = 0
    legend: dict[str, str] = field(default_factory=lambda: dict(LEGEND))


def grid(*rows: str, score: float = 0.0, won: bool | None = None, tick: int = 0) -> S:
    pos = next(((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "aA"), None)
    return S(tuple(rows), pos, score, won, tick)


def test_nil_is_never_meaningful_even_when_the_world_changes():
    before = grid("wwww", "wa.k", "wwww")
    after = grid("wwww", "wa..", "wwww", score=1)
    f = m.step_flags(before, after, "nil")
    assert f["nil"] and f["reward_triggered"]
    assert not f["meaningful"] and not f["meaningful_1step"]


def test_walking_into_a_wall_is_not_meaningful():
    s = grid("www", "wa.", "www")
    f = m.step_flags(s, replace(s, tick=1), "left")
    assert f["ineffective"] and not f["state_changed"]
    assert not f["meaningful"] and not f["meaningful_1step"]


def test_a_plain_move_is_meaningful_under_both_rules():
    f = m.step_flags(
        grid(
            "a..",
        ),
        grid(
            ".a.",
        ),
        "right",
    )
    assert f["moved"] and f["meaningful"] and f["meaningful_1step"]
    assert not f["entity_changed"]


def test_collecting_a_key_is_an_entity_change():
    f = m.step_flags(
        grid(
            "ak",
        ),
        grid(
            ".A",
        ),
        "right",
    )
    assert f["entity_triggered"] and f["entity_changed"]
    assert f["meaningful"]


def test_a_reward_without_moving_is_meaningful():
    before = grid(
        "a.k",
    )
    f = m.step_flags(before, replace(before, game_score=2.0), "use")
    assert f["reward_triggered"] and not f["moved"]
    assert f["meaningful"] and f["meaningful_1step"]


def test_left_right_after_right_cancels_under_both_rules():
    s0, s1, s2 = (
        grid(
            "a..",
        ),
        grid(
            ".a.",
        ),
        grid(
            "a..",
        ),
    )
    flags = m.episode_flags([s0, s1, s2], ["right", "left"])
    assert flags[0]["meaningful"] and flags[0]["meaningful_1step"]
    assert flags[1]["cancel_1step"] and flags[1]["cancel_window"]
    assert not flags[1]["meaningful"] and not flags[1]["meaningful_1step"]


def test_a_square_walk_cancels_within_four_steps_only_under_the_paper_rule():
    states = [grid("a.", ".."), grid(".a", ".."), grid("..", ".a"), grid("..", "a."), grid("a.", "..")]
    flags = m.episode_flags(states, ["right", "down", "left", "up"])
    assert [f["meaningful"] for f in flags] == [True, True, True, False]
    assert all(f["meaningful_1step"] for f in flags)


def test_returning_after_more_than_four_steps_is_not_a_cancel():
    row = "a....."
    states = [
        grid(
            row[-i:] + row[:-i] if i else row,
        )
        for i in range(6)
    ] + [
        grid(
            "a.....",
        )
    ]
    actions = ["right"] * 5 + ["teleport"]
    flags = m.episode_flags(states, actions)
    assert flags[-1]["meaningful"]


def test_a_cancel_that_also_scores_counts_for_the_paper_only():
    s0, s1, s2 = (
        grid(
            ".a.",
        ),
        grid(
            "..a",
        ),
        grid(".a.", score=1),
    )
    flags = m.episode_flags([s0, s1, s2], ["right", "left"])
    assert flags[1]["cancel_1step"] and not flags[1]["meaningful_1step"]
    assert not flags[1]["cancel_window"] and flags[1]["meaningful"]


def test_the_avatar_dying_is_a_visible_change():
    f = m.step_flags(
        grid(
            "a.b",
        ),
        S((".",), None, won=False),
        "right",
    )
    assert f["moved"] and f["meaningful"]


def test_episode_flags_checks_lengths():
    with pytest.raises(ValueError, match="needs 2 states"):
        m.episode_flags(
            [
                grid(
                    "a",
                )
            ],
            ["nil"],
        )


@pytest.mark.parametrize(
    "action,expected",
    [
        ("nil", True),
        ("ACTION_NIL", True),
        (0, True),
        ("0", True),
        (1, False),
        ("left", False),
        (False, False),
    ],
)
def test_is_nil(action, expected):
    assert m.is_nil(action) is expected


def test_episode_summary_counts_ratio_and_efficiency():
    states = [
        grid(
            "a.k",
        ),
        grid(
            ".ak",
        ),
        grid("..A", score=1, won=True),
    ]
    s = m.summarise_episode(states, ["right", "right"], max_steps=10, game="g", level="0", player="p")
    assert (s.steps, s.meaningful_steps, s.won, s.total_reward) == (2, 2, True, 1.0)
    assert s.meaningful_ratio == 1.0
    assert s.step_efficiency == pytest.approx(0.8)
    again = m.EpisodeSummary.from_dict(s.to_dict())
    assert again == s


def test_summary_from_bad_dict_names_the_problem():
    with pytest.raises(ValueError, match="not a VGDL episode summary"):
        m.EpisodeSummary.from_dict({"steps": 3})


def ep(player, steps, won, reward, level="0", ratio_steps=None, game="g"):
    return m.EpisodeSummary(
        steps=steps,
        meaningful_steps=ratio_steps if ratio_steps is not None else steps,
        meaningful_steps_1step=0,
        won=won,
        total_reward=reward,
        max_steps=100,
        game=game,
        level=level,
        player=player,
    )


def test_step_efficiency_over_wins_and_over_all_episodes():
    eps = [ep("p", 20, True, 1), ep("p", 40, True, 1), ep("p", 90, False, 0)]
    assert m.step_efficiency(eps) == pytest.approx(1 - 30 / 100)
    assert m.step_efficiency(eps, wins_only=False) == pytest.approx(1 - 50 / 100)
    assert m.step_efficiency([ep("p", 5, False, 0)]) == 0.0


def test_normalised_reward_is_per_game_level_across_players():
    eps = [
        ep("a", 10, False, 0),
        ep("b", 10, False, 10),
        ep("a", 10, False, 5, level="1"),
        ep("b", 10, False, 5, level="1"),
    ]
    r = m.normalised_rewards(eps)
    assert r[0] == pytest.approx(0.0)
    assert r[1] == pytest.approx(1.0)
    assert r[2] == r[3] == pytest.approx(0.0)


def test_overall_score_renormalises_every_component_and_records_the_population():
    eps = [
        ep("best", 10, True, 10, ratio_steps=10),
        ep("worst", 110, False, 0, ratio_steps=0),
        ep("mid", 60, True, 5, ratio_steps=30),
    ]
    table = m.overall_scores(eps)
    scores = {r.player: r.score for r in table.rows}
    assert scores["best"] == pytest.approx(1.0, abs=1e-6)
    assert scores["worst"] == pytest.approx(0.0, abs=1e-6)
    # mid: ratio 0.5, steps inverted 0.5, reward 0.5, win 1.0
    assert scores["mid"] == pytest.approx((0.5 + 0.5 + 0.5 + 1.0) / 4, abs=1e-6)
    assert table.population["players"] == ["best", "mid", "worst"]
    assert table.population["levels"] == ["g/0"]
    assert table.population["episodes"] == 3


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=20))
def test_normalise_stays_in_the_unit_interval(values):
    out = m.normalise(values)
    assert all(-1e-9 <= v <= 1.0 for v in out)
    inv = m.normalise(values, invert=True)
    assert all(0.0 <= v <= 1.0 + 1e-9 for v in inv)


@given(st.lists(st.sampled_from(["left", "right", "up", "down", "nil"]), min_size=1, max_size=30))
def test_paper_rule_on_random_walks_counts_at_most_the_non_nil_steps(actions):
    pos = [2, 2]
    states = [S(tuple("....." for _ in range(5)), tuple(pos))]
    moves = {"left": (0, -1), "right": (0, 1), "up": (-1, 0), "down": (1, 0), "nil": (0, 0)}
    for a in actions:
        dr, dc = moves[a]
        pos = [min(4, max(0, pos[0] + dr)), min(4, max(0, pos[1] + dc))]
        states.append(S(tuple("....." for _ in range(5)), tuple(pos)))
    s = m.summarise_episode(states, actions)
    assert s.meaningful_steps <= sum(a != "nil" for a in actions)
    assert s.meaningful_steps_1step <= sum(a != "nil" for a in actions)
    assert 0.0 <= s.meaningful_ratio <= 1.0
