"""The VGDL runtime on the GVGAI core games: random play, determinism, JSON, and the mechanics each
game depends on (pushing boxes, shooting, falling boulders, keys and doors), plus conformance."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, ClassVar

import pytest

import engine
import engine.conformance
from engine.core import IllegalActionError, InvalidActionError
from engine.games.vgdl import VgdlGame, VgdlState
from engine.games.vgdl.bundled import BUNDLED
from engine.options import Option

GVGAI = Path(__file__).resolve().parents[2] / ".." / "shared" / "gvgai"
CORE = ("aliens", "boulderdash", "escape", "realsokoban", "sokoban", "zelda")


def core(name: str, level: int = 0, **options: Any) -> VgdlGame:
    return VgdlGame(
        game_file=str(GVGAI / f"{name}.txt"), level_file=str(GVGAI / f"{name}_lvl{level}.txt"), **options
    )


def custom(tmp_path: Path, name: str, level: str, **options: Any) -> VgdlGame:
    """A core game on a small level of our own."""
    level_file = tmp_path / f"{name}_custom.txt"
    level_file.write_text(level)
    return VgdlGame(game_file=str(GVGAI / f"{name}.txt"), level_file=str(level_file), **options)


def sprites_of(state: VgdlState, name: str) -> list[tuple[int, int]]:
    types = state.compiled.types
    return [(s[2], s[3]) for s in state.sprites if name in types[s[1]].path]


def play(state: VgdlState, *actions: str) -> VgdlState:
    for action in actions:
        state = state.apply(action)
    return state


@pytest.mark.parametrize("name", CORE)
def test_two_hundred_random_steps_on_every_level(name: str) -> None:
    for level in range(5):
        game = core(name, level)
        rng = random.Random(level)
        state = game.initial_state(seed=level)
        for _ in range(200):
            if state.is_over:
                state = game.initial_state(seed=rng.randrange(1000))
            state = state.apply(rng.choice(state.legal_actions()))
        assert len(state.ascii_rows) == state.height and all(len(r) == state.width for r in state.ascii_rows)


@pytest.mark.parametrize("name", CORE)
def test_same_seed_and_actions_replay_exactly_and_json_round_trips(name: str) -> None:
    game = core(name, 1)
    rng = random.Random(7)
    actions = [rng.choice(game.actions) for _ in range(120)]
    runs = []
    for _ in range(2):
        state = game.initial_state(seed=11)
        trail = [state]
        for action in actions:
            if state.is_over:
                break
            state = state.apply(action)
            trail.append(state)
        runs.append(trail)
    assert runs[0] == runs[1]
    for state in runs[0][::10]:
        back = game.state_from_json(json.loads(json.dumps(state.to_json())))
        assert back == state and back.ascii_rows == state.ascii_rows


def test_different_seeds_give_different_random_npcs() -> None:
    game = core("zelda", 0)
    a = play(game.initial_state(seed=1), *["ACTION_NIL"] * 30)
    b = play(game.initial_state(seed=2), *["ACTION_NIL"] * 30)
    assert sprites_of(a, "enemy") != sprites_of(b, "enemy")


def test_sokoban_pushes_a_box_and_a_wall_stops_it() -> None:
    state = core("sokoban", 0).initial_state(seed=0)
    assert state.avatar_pos == (3, 4) and (3, 6) in sprites_of(state, "box")
    state = play(state, "ACTION_RIGHT")
    assert state.avatar_pos == (3, 5)
    state = play(state, "ACTION_RIGHT")
    assert state.avatar_pos == (3, 6) and (3, 7) in sprites_of(state, "box")
    stuck = play(state, "ACTION_RIGHT")  # the box would enter the wall at (3, 8): everything is undone
    assert stuck.avatar_pos == (3, 6) and (3, 7) in sprites_of(stuck, "box")


def test_sokoban_box_into_hole_scores_and_the_last_box_wins(tmp_path: Path) -> None:
    game = custom(tmp_path, "sokoban", "wwwwww\nwA10.w\nwwwwww\n")
    state = play(game.initial_state(seed=0), "ACTION_RIGHT")
    assert state.game_score == 1 and not sprites_of(state, "box") and state.won is True
    assert state.metrics()["win"] == 1 and state.metrics()["reward"] == 1


def test_aliens_shooting_destroys_a_base_and_one_shot_flies_at_a_time() -> None:
    game = core("aliens", 0)
    state = game.initial_state(seed=0)
    column = state.avatar_pos[1]
    state = play(state, "ACTION_USE")
    shots = sprites_of(state, "sam")
    assert shots == [state.avatar_pos]
    state = play(state, "ACTION_USE")  # the sam is a singleton: no second shot while it flies
    assert len(sprites_of(state, "sam")) == 1 and sprites_of(state, "sam")[0][0] < state.avatar_pos[0]
    bases_before = len(sprites_of(state, "base"))
    for _ in range(12):
        state = play(state, "ACTION_NIL")
    assert state.avatar_pos[1] == column
    assert len(sprites_of(state, "base")) == bases_before - 1 and state.game_score >= 1


def test_aliens_avatar_stays_inside_the_screen() -> None:
    state = play(core("aliens", 0).initial_state(seed=0), *["ACTION_LEFT"] * 40)
    assert state.avatar_pos == (10, 0)


def test_boulderdash_boulder_falls_and_crushes_the_avatar(tmp_path: Path) -> None:
    game = custom(tmp_path, "boulderdash", "wwwww\nw-o-w\nw---w\nw-A-w\nwe--w\nwwwww\n")
    state = game.initial_state(seed=0)
    rows = []
    for _ in range(30):
        state = play(state, "ACTION_NIL")
        rows.append(sprites_of(state, "boulder")[0][0])
        if state.is_over:
            break
    assert rows[0] == 1 and 2 in rows and rows[-1] == 3
    assert state.won is False and state.game_score == -1 and state.avatar_pos is None


def test_boulderdash_boulder_rests_on_dirt_and_the_avatar_digs(tmp_path: Path) -> None:
    game = custom(tmp_path, "boulderdash", "wwwww\nw-o-w\nw-.-w\nwA.-w\nwe--w\nwwwww\n")
    state = play(game.initial_state(seed=0), *["ACTION_NIL"] * 12)
    assert sprites_of(state, "boulder") == [(1, 2)] and (2, 2) in sprites_of(state, "dirt")
    state = play(state, "ACTION_UP")  # the avatar faces right: the first UP only turns it
    assert state.avatar_pos == (3, 1)
    state = play(state, "ACTION_RIGHT")  # turns back
    assert state.avatar_pos == (3, 1)
    state = play(state, "ACTION_RIGHT")
    assert state.avatar_pos == (3, 2) and (3, 2) not in sprites_of(state, "dirt")
    assert sprites_of(state, "boulder") == [(1, 2)]


def test_boulderdash_diamonds_are_collected_as_a_resource(tmp_path: Path) -> None:
    game = custom(tmp_path, "boulderdash", "wwwwww\nwAxx-w\nw---ew\nwwwwww\n")
    state = play(game.initial_state(seed=0), "ACTION_RIGHT", "ACTION_RIGHT")
    assert state.won is None and state.game_score == 4 and not sprites_of(state, "diamond")
    avatar = state.avatar
    assert avatar is not None and dict(avatar[13]) == {state.compiled.by_name["diamond"]: 2}


def test_zelda_key_then_door_wins(tmp_path: Path) -> None:
    game = custom(tmp_path, "zelda", "wwwwww\nwA+g.w\nwwwwww\n")
    state = play(game.initial_state(seed=0), "ACTION_RIGHT")
    assert state.avatar_pos == (1, 2) and not sprites_of(state, "key")
    assert state.legend[state.ascii_rows[1][2]] == "withkey (your avatar)" and state.game_score == 1
    state = play(state, "ACTION_RIGHT")
    assert state.won is True and state.game_score == 2 and state.is_over


def test_zelda_door_is_closed_without_the_key_and_the_sword_kills(tmp_path: Path) -> None:
    game = custom(tmp_path, "zelda", "wwwwww\nwAg..w\nwwwwww\n")
    state = play(game.initial_state(seed=0), "ACTION_RIGHT")
    assert state.avatar_pos == (1, 1)
    game = custom(tmp_path, "zelda", "wwwwwwwww\nwA3....gw\nwwwwwwwww\n")
    state = play(game.initial_state(seed=0), "ACTION_USE")
    assert state.game_score == 2 and not sprites_of(state, "enemy") and sprites_of(state, "sword") == [(1, 2)]


def test_escape_box_fills_nothing_but_the_avatar_falls_into_a_hole(tmp_path: Path) -> None:
    game = custom(tmp_path, "escape", "wwwwww\nwAh.xw\nwwwwww\n")
    state = play(game.initial_state(seed=0), "ACTION_RIGHT")
    assert state.won is False and state.game_score == -1


def test_actions_are_checked() -> None:
    state = core("sokoban", 0).initial_state(seed=0)
    with pytest.raises(IllegalActionError):
        state.apply("ACTION_USE")  # sokoban's avatar has no USE
    with pytest.raises(InvalidActionError):
        state.apply("jump")


def test_the_step_cap_ends_the_episode_as_a_loss() -> None:
    state = play(core("sokoban", 0, max_steps=5).initial_state(seed=0), *["ACTION_NIL"] * 5)
    assert state.is_over and state.won is False and state.step == 5
    assert state.legal_actions() == []


def test_meaningful_step_counters() -> None:
    state = core("sokoban", 0).initial_state(seed=0)
    state = play(state, "ACTION_NIL", "ACTION_RIGHT", "ACTION_UP", "ACTION_DOWN")
    m = state.metrics()
    assert m["steps"] == 4 and m["nil_actions"] == 1
    # NIL is not meaningful; RIGHT moves; UP moves; DOWN cancels UP within the window.
    assert m["meaningful_steps"] == 2 and m["meaningful_ratio"] == 0.5


def test_replay_without_the_game_file(tmp_path: Path) -> None:
    game_file = tmp_path / "sokoban.txt"
    game_file.write_text((GVGAI / "sokoban.txt").read_text())
    level_file = tmp_path / "sokoban_lvl0.txt"
    level_file.write_text((GVGAI / "sokoban_lvl0.txt").read_text())
    game = VgdlGame(game_file=str(game_file))
    saved = json.dumps(play(game.initial_state(seed=3), "ACTION_RIGHT").to_json())
    game_file.unlink()
    moved = VgdlGame(game_file=str(game_file))  # what a session's reader does with the recorded options
    state = moved.state_from_json(json.loads(saved))
    assert state.avatar_pos == (3, 5) and "box" in moved.rules_text()
    with pytest.raises(engine.GameError, match="does not exist"):
        VgdlGame(game_file=str(game_file)).initial_state(seed=0)


@pytest.mark.parametrize("cls", BUNDLED, ids=[c.id for c in BUNDLED])
def test_bundled_games_conform(cls: type[VgdlGame]) -> None:
    assert engine.check_game(cls.id, episodes=2, max_steps=120).states > 0


def test_vgdl_conforms_with_a_core_game_file(monkeypatch: pytest.MonkeyPatch) -> None:
    class ZeldaFile(VgdlGame):
        options_schema: ClassVar[tuple[Option, ...]] = (
            Option("game_file", str, str(GVGAI / "zelda.txt"), "The VGDL game file"),
            Option("level_file", str, str(GVGAI / "zelda_lvl2.txt"), "The level file"),
            *VgdlGame.common_options,
        )

    monkeypatch.setattr(engine.conformance, "declaration", lambda game_id: ZeldaFile)
    assert engine.check_game("vgdl", episodes=2, max_steps=150).states > 100


def test_realsokoban_box_on_target_turns_and_back(tmp_path: Path) -> None:
    game = custom(tmp_path, "realsokoban", "wwwwwww\nwA*o..w\nw.*...w\nwwwwwww\n")
    state = play(game.initial_state(seed=0), "ACTION_RIGHT")
    assert sprites_of(state, "boxin") == [(1, 3)] and state.game_score == 1 and state.won is None
    state = play(state, "ACTION_RIGHT")  # pushed off the target onto the ground: a box again
    assert sorted(sprites_of(state, "box")) == [(1, 4), (2, 2)] and state.game_score == 0


def test_escape_reaching_the_exit_wins(tmp_path: Path) -> None:
    game = custom(tmp_path, "escape", "wwwwww\nwA.xhw\nwwwwww\n")
    state = play(game.initial_state(seed=0), "ACTION_RIGHT", "ACTION_RIGHT")
    assert state.won is True and state.game_score == 1
