"""Sprite classes, effects and terminations beyond the six core games, each on a small game of our own."""

from __future__ import annotations

from pathlib import Path

from engine.games.vgdl import VgdlGame, VgdlState

HEADER = "BasicGame\n    SpriteSet\n        floor > Immovable\n        wall > Immovable\n"


def make(
    tmp_path: Path, sprites: str, interactions: str, terminations: str, level: str, mapping: str = ""
) -> VgdlGame:
    text = (
        HEADER
        + sprites
        + "    LevelMapping\n        . > floor\n"
        + mapping
        + "    InteractionSet\n        avatar wall > stepBack\n"
        + interactions
        + "    TerminationSet\n"
        + terminations
    )
    (tmp_path / "feature.txt").write_text(text)
    (tmp_path / "feature_lvl0.txt").write_text(level)
    return VgdlGame(game_file=str(tmp_path / "feature.txt"))


def where(state: VgdlState, name: str) -> list[tuple[int, int]]:
    types = state.compiled.types
    return sorted((s[2], s[3]) for s in state.sprites if types[s[1]].name == name)


def test_transform_to_all_and_sprite_counter_more(tmp_path: Path) -> None:
    game = make(
        tmp_path,
        "        avatar > MovingAvatar\n        switch > Immovable\n"
        "        lamp > Immovable\n        lit > Immovable\n",
        "        switch avatar > transformToAll stype=lamp stypeTo=lit scoreChange=5\n",
        "        SpriteCounterMore stype=lit limit=2 win=True\n",
        "wwwwww\nwAsl.w\nwl...w\nwwwwww\n",
        "        s > floor switch\n        l > floor lamp\n",
    )
    state = game.initial_state(seed=0).apply("ACTION_RIGHT")
    assert where(state, "lit") == [(1, 3), (2, 1)] and not where(state, "lamp")
    assert state.won is True and state.game_score == 5


def test_ongoing_avatar_keeps_moving_and_turns_on_actions(tmp_path: Path) -> None:
    game = make(
        tmp_path,
        "        avatar > OngoingAvatar\n",
        "",
        "        Timeout limit=50 win=True\n",
        "wwwwwww\nwA....w\nw.....w\nwwwwwww\n",
    )
    state = game.initial_state(seed=0)
    state = state.apply("ACTION_NIL").apply("ACTION_NIL")  # as in GVGAI, it rests on its first tick
    assert state.avatar_pos == (1, 2)
    state = state.apply("ACTION_DOWN").apply("ACTION_NIL")  # down a row, then the wall stops it
    assert state.avatar_pos == (2, 2)


def test_spreader_fills_its_neighbours(tmp_path: Path) -> None:
    game = make(
        tmp_path,
        "        avatar > MovingAvatar\n        fire > Spreader limit=3 spreadprob=1.0\n",
        "        fire wall > killSprite\n",
        "        Timeout limit=50 win=True\n",
        "wwwwwww\nwA....w\nw..f..w\nw.....w\nwwwwwww\n",
        "        f > floor fire\n",
    )
    state = game.initial_state(seed=0)
    for _ in range(3):
        state = state.apply("ACTION_NIL")
    assert {(1, 3), (2, 2), (2, 4), (3, 3)} <= set(where(state, "fire"))


def test_random_missile_and_spawn_if_has_less(tmp_path: Path) -> None:
    game = make(
        tmp_path,
        "        avatar > MovingAvatar\n        coin > Resource limit=3\n"
        "        bat > RandomMissile cooldown=1\n        egg > Immovable\n",
        "        bat wall > reverseDirection\n"
        "        avatar egg > spawnIfHasLess resource=coin limit=0 stype=bat\n",
        "        Timeout limit=50 win=True\n",
        "wwwwwww\nwAe...w\nw.....w\nwwwwwww\n",
        "        e > floor egg\n",
    )
    state = game.initial_state(seed=4).apply("ACTION_RIGHT")
    assert where(state, "bat") == [(1, 2)]
    moved = state.apply("ACTION_NIL").apply("ACTION_NIL")
    bats = where(moved, "bat")
    # The avatar still stands on the egg (no coin held): a bat a tick; the first has flown off.
    assert len(bats) == 3 and any(b != (1, 2) for b in bats)


def test_health_points_are_lost_and_gained(tmp_path: Path) -> None:
    game = make(
        tmp_path,
        "        avatar > MovingAvatar healthPoints=2 limitHealthPoints=4\n"
        "        spike > Immovable\n        potion > Immovable\n",
        "        avatar spike > subtractHealthPoints value=1 scoreChangeIfKilled=-10\n"
        "        potion avatar > killSprite\n        avatar potion > addHealthPoints value=1\n",
        "        SpriteCounter stype=avatar limit=0 win=False\n",
        "wwwwwww\nwAp^^.w\nwwwwwww\n",
        "        p > floor potion\n        ^ > floor spike\n",
    )
    state = game.initial_state(seed=0).apply("ACTION_RIGHT")
    assert state.avatar[14] == 3 and "Your avatar's health: 3" in state.text()
    state = state.apply("ACTION_RIGHT").apply("ACTION_LEFT").apply("ACTION_RIGHT")
    assert state.avatar[14] == 1 and state.won is None
    state = state.apply("ACTION_LEFT").apply("ACTION_RIGHT")
    assert state.won is False and state.game_score == -10


def test_a_push_after_wrapping_around_goes_the_way_the_pusher_faces(tmp_path: Path) -> None:
    # The avatar steps off the left edge, wraps to the right edge onto a box and pushes it left (the
    # way it faces), not right and off the map (GVGAI's bounceForward reads the pusher's facing).
    game = make(
        tmp_path,
        "        avatar > OrientedAvatar rotateInPlace=False\n        box > Passive\n",
        "        avatar EOS > wrapAround\n        box avatar > bounceForward\n",
        "        SpriteCounter stype=box limit=0 win=True\n        Timeout limit=50 win=False\n",
        "A...b\n",
        "        b > floor box\n",
    )
    state = game.initial_state(seed=0).apply("ACTION_LEFT")
    assert state.avatar_pos == (0, 4) and where(state, "box") == [(0, 3)]


def test_a_sprite_off_the_map_stays_and_counts(tmp_path: Path) -> None:
    game = make(
        tmp_path,
        "        avatar > MovingAvatar\n        rock > Missile orientation=RIGHT\n",
        "",
        "        SpriteCounter stype=rock limit=0 win=True\n        Timeout limit=5 win=False\n",
        "A.r\n",
        "        r > floor rock\n",
    )
    state = game.initial_state(seed=0)
    for _ in range(3):  # a missile first moves on its second tick
        state = state.apply("ACTION_NIL")
    assert where(state, "rock") == [(0, 4)] and state.won is None


def test_multi_sprite_counter_min_ends_the_game_above_its_limit_too(tmp_path: Path) -> None:
    game = make(
        tmp_path,
        "        avatar > MovingAvatar\n        coin > Immovable\n",
        "",
        "        MultiSpriteCounter stype1=coin limit=1 min=True win=True\n"
        "        Timeout limit=5 win=False\n",
        "A.cc\n",
        "        c > floor coin\n",
    )
    assert game.initial_state(seed=0).apply("ACTION_NIL").won is True


def test_a_slow_missile_part_way_to_its_next_cell_already_meets_what_is_there(tmp_path: Path) -> None:
    # In GVGAI's pixels a missile of speed 0.5 is over two cells half of the time.
    game = make(
        tmp_path,
        "        avatar > MovingAvatar\n        coin > Immovable\n"
        "        shot > Missile orientation=RIGHT speed=0.5\n",
        "        coin shot > killSprite scoreChange=1\n",
        "        Timeout limit=9 win=False\n",
        "A..sc\n",
        "        s > floor shot\n        c > floor coin\n",
    )
    state = game.initial_state(seed=0).apply("ACTION_NIL")  # a missile first moves on its second tick
    assert where(state, "coin") == [(0, 4)]
    state = state.apply("ACTION_NIL")
    assert where(state, "shot") == [(0, 3)] and where(state, "coin") == [] and state.game_score == 1


def test_a_bomb_dropped_between_two_cells_is_over_both(tmp_path: Path) -> None:
    # A bomber of speed 0.5 is between two cells every other tick; a bomb it drops then falls over both
    # columns (GVGAI's pixels), so it takes the city diagonally below too.
    game = make(
        tmp_path,
        "        avatar > MovingAvatar\n        city > Immovable\n"
        "        bomb > Missile orientation=DOWN\n"
        "        plane > Bomber orientation=RIGHT stype=bomb speed=0.5 prob=1\n",
        "        city bomb > killSprite scoreChange=-1\n        bomb city > killSprite\n",
        "        Timeout limit=9 win=False\n",
        "Ap...\n.....\nccccc\n",
        "        p > floor plane\n        c > floor city\n",
    )
    state = game.initial_state(seed=0)
    for _ in range(5):
        state = state.apply("ACTION_NIL")
    # The bomb dropped at tick 3 from between columns 1 and 2 has taken the city below column 2 by tick
    # 5; one dropped from column 2 itself would only reach it on tick 6.
    assert where(state, "city") == [(2, 0), (2, 3), (2, 4)] and state.game_score == -2


def test_ticks_are_counted_from_zero_as_in_gvgai(tmp_path: Path) -> None:
    # GVGAI's first tick is tick 0: a spawner spawns on it (then every cooldown ticks), and
    # "Timeout limit=3" ends the game after the tick numbered 3, the fourth.
    game = make(
        tmp_path,
        "        avatar > MovingAvatar\n        egg > Immovable\n"
        "        nest > SpawnPoint stype=egg cooldown=3\n",
        "",
        "        Timeout limit=3 win=True\n",
        "A.n\n",
        "        n > floor nest\n",
    )
    state = game.initial_state(seed=0)
    eggs = []
    while not state.is_over:
        state = state.apply("ACTION_NIL")
        eggs.append(len(where(state, "egg")))
    assert eggs == [1, 1, 1, 2] and state.won is True
