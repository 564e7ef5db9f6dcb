"""What a model reads of a VGDL game: the ASCII map and legend, the grounding options, the rules in
plain words and reading actions; and the Gymnasium environments of the bundled games."""

from __future__ import annotations

from pathlib import Path

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import engine
import engine.gym  # noqa: F401  (registers the environments)
from engine.core import IllegalActionError, InvalidActionError
from engine.games.vgdl import VgdlGame
from engine.games.vgdl.bundled import BUNDLED

GVGAI = Path(__file__).resolve().parents[2] / ".." / "shared" / "gvgai"


def core(name: str, level: int = 0, **options: object) -> VgdlGame:
    return VgdlGame(
        game_file=str(GVGAI / f"{name}.txt"), level_file=str(GVGAI / f"{name}_lvl{level}.txt"), **options
    )


def test_ascii_map_follows_the_spec_rules() -> None:
    state = core("sokoban").initial_state(seed=0)
    assert state.ascii_rows[3] == "w...a.1.w.0ww"  # avatar 'a', floor '.', level characters reused
    assert state.avatar_pos == (3, 4)
    assert state.legend == {
        ".": "empty (floor)",
        "0": "hole",
        "a": "avatar (your avatar)",
        "1": "box",
        "w": "wall",
    }
    aliens = core("aliens").initial_state(seed=0)
    assert aliens.ascii_rows[0][0] == "1" and aliens.legend["1"] == "portalSlow"


def test_legend_is_stable_and_follows_transformations(tmp_path: Path) -> None:
    level = tmp_path / "zelda_custom.txt"
    level.write_text("wwwwww\nwA+g.w\nwwwwww\n")
    game = VgdlGame(game_file=str(GVGAI / "zelda.txt"), level_file=str(level))
    before = game.initial_state(seed=0)
    after = before.apply("ACTION_RIGHT")
    assert before.legend["A"] == "nokey (your avatar)" and "+" in before.legend
    assert "A" not in after.legend and "+" not in after.legend
    (char,) = [c for c, name in after.legend.items() if name.startswith("withkey")]
    assert game.legend_chars()[game.compiled.by_name["withkey"]] == char
    assert after.ascii_rows[1][2] == char


def test_text_view_sections_and_grounding_options() -> None:
    plain = core("zelda").initial_state(seed=0).text()
    for heading in (
        "=== Available Actions ===",
        "=== Important Mechanics Notice ===",
        "=== Sprite Mapping ===",
        "=== Current State ===",
        "=== Current Position ===",
    ):
        assert heading in plain
    assert "0: ACTION_NIL" in plain and "5: ACTION_UP" in plain and "Avatar at (row 1, col 1)" in plain
    assert "row=" not in plain and "Around the avatar" not in plain
    grounded = core("zelda", coordinates=True, adjacent=True).initial_state(seed=0)
    text = grounded.text()
    assert "row=1, col=1 -> A (nokey (your avatar))" in text
    assert "- up (row 0, col 1): wall" in text and "- right (row 1, col 2): empty" in text
    assert (
        grounded.text_table() == ""
        and "row=0, col=0 -> w (wall)" in core("zelda").initial_state(0).text_table()
    )


def test_rules_text_is_generated_from_the_vgdl() -> None:
    rules = core("zelda").rules_text()
    assert rules.startswith("=== Game Rules ===")
    assert "- nokey meets key: nokey turns into withkey and key disappears (+1 points)." in rules
    assert "You win when no goal is left." in rules and "You lose when no avatar is left." in rules
    assert "Avoid touching enemy" in rules and "only turns it" in rules
    sokoban = core("sokoban").rules_text()
    assert "puzzle" in sokoban and "box is pushed one cell in the direction avatar moved" in sokoban


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("2", "ACTION_LEFT"),
        ("ACTION_UP", "ACTION_UP"),
        ("left", "ACTION_LEFT"),
        (" Action_Nil ", "ACTION_NIL"),
        ("noop", "ACTION_NIL"),
    ],
)
def test_actions_are_read_by_number_or_name(text: str, action: str) -> None:
    game = core("zelda")
    assert game.parse_action(text, game.initial_state(seed=0)) == action


def test_unreadable_or_missing_actions_are_errors() -> None:
    game = core("sokoban")
    state = game.initial_state(seed=0)
    with pytest.raises(InvalidActionError, match="0: ACTION_NIL"):
        game.parse_action("jump", state)
    with pytest.raises(InvalidActionError):
        game.parse_action("9", state)
    with pytest.raises(IllegalActionError):
        game.parse_action("use", state)


def test_realtime_option_sets_the_tick_and_keys_cover_space() -> None:
    assert core("aliens").tick_s is None
    game = core("aliens", realtime=True, tick=0.1)
    assert game.tick_s == 0.1 and game.default_action == "ACTION_NIL"
    assert game.keymap["space"] == "ACTION_USE" and game.keymap["left"] == "ACTION_LEFT"


def test_bundled_game_declarations() -> None:
    for cls in BUNDLED:
        game = engine.make(cls.id, level=4)
        assert game.id.startswith("vgdl-") and game.raw_score == "reward"
        assert game.actions[0] == "ACTION_NIL" and game.rules_text().startswith("=== Game Rules ===")
    with pytest.raises(engine.OptionError):
        engine.make("vgdl-crates", level=5)


@pytest.mark.parametrize("cls", BUNDLED[:3], ids=[c.id for c in BUNDLED[:3]])
def test_gymnasium_environments_pass_check_env(cls: type[VgdlGame]) -> None:
    env = gymnasium.make(f"playtrace/{cls.id}-v0", render_mode="rgb_array", render_size=(160, 100)).unwrapped
    check_env(env, skip_render_check=False)
    obs, info = env.reset(seed=3)
    assert info["legal"][0] == "ACTION_NIL" and "=== Current State ===" in obs
    frame = env.render()
    assert frame.shape == (100, 160, 3)
