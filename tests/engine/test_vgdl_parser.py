"""Reading VGDL: the six GVGAI core games and their levels, errors with file and line, features that
PlayTrace does not run named in the error, and garbage never raising anything but the parse error."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.games.vgdl import VgdlError, VgdlGame, compile_text, parse_game, parse_level
from engine.games.vgdl.ontology import compile_game
from engine.games.vgdl.rules import initial_sprites

GVGAI = Path(__file__).resolve().parents[2] / ".." / "shared" / "gvgai"
CORE = ("aliens", "boulderdash", "escape", "realsokoban", "sokoban", "zelda")

SMALL = """\
BasicGame
    SpriteSet
        floor > Immovable
        wall > Immovable color=DARKGRAY
        avatar > MovingAvatar
    LevelMapping
        . > floor
    InteractionSet
        avatar wall > stepBack
    TerminationSet
        Timeout limit=10 win=True
"""


def core_text(name: str) -> str:
    return (GVGAI / f"{name}.txt").read_text()


@pytest.mark.parametrize("name", CORE)
def test_every_core_game_and_its_five_levels_parse(name: str) -> None:
    game = compile_text(core_text(name), f"{name}.txt")
    assert game.actions[0] == "ACTION_NIL" and len(game.actions) >= 3
    for level in range(5):
        data = parse_level((GVGAI / f"{name}_lvl{level}.txt").read_text(), f"{name}_lvl{level}.txt")
        sprites = initial_sprites(game, data)
        assert data.height >= 5 and data.width >= 5
        assert sum(game.types[s[1]].is_avatar for s in sprites) == 1


def test_the_sprite_tree_follows_indentation() -> None:
    game = compile_text(core_text("zelda"))
    nokey = game.type_of("nokey")
    assert nokey.path == ("movable", "avatar", "nokey") and nokey.cls == "ShootAvatar"
    assert game.by_name["avatar"] in nokey.itypes and game.by_name["movable"] in nokey.itypes
    assert game.type_of("monsterSlow").params["cooldown"] == 8
    # "movable wall > stepBack" applies to every movable sprite, the walls included.
    assert set(game.subtypes[game.by_name["movable"]]) >= {game.by_name["nokey"], game.by_name["wall"]}


def test_implicit_level_characters_and_mapping() -> None:
    game = compile_text(core_text("boulderdash"))
    assert [game.types[i].name for i in game.mapping["w"]] == ["wall"]
    assert [game.types[i].name for i in game.mapping["."]] == ["background", "dirt"]


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        ("SpriteSet\n", 1, "expected the game line"),
        ("BasicGame\n  Sprites\n", 2, "expected a section name"),
        ("BasicGame\n  SpriteSet\n    a > B c\n", 3, "key=value"),
        ("BasicGame\n  SpriteSet\n    a b > Immovable\n", 3, "one sprite name"),
        ("BasicGame\n  SpriteSet\n    a > Immovable\n  LevelMapping\n    ab > a\n", 5, "expected a mapping"),
        ("BasicGame\n  SpriteSet\n    a > Immovable\n  InteractionSet\n    a > stepBack\n", 5, "two or more"),
        ("BasicGame\n  SpriteSet\n    a > Immovable\n  InteractionSet\n    a a >\n", 5, "expected an effect"),
        (
            "BasicGame\n  SpriteSet\n    a > Immovable\n  InteractionSet\n    EOS EOS > killSprite\n",
            5,
            "after EOS",
        ),
    ],
)
def test_parse_errors_name_the_file_the_line_and_what_was_expected(
    text: str, line: int, expected: str
) -> None:
    with pytest.raises(VgdlError) as err:
        parse_game(text, "broken.txt")
    assert err.value.line == line and err.value.source == "broken.txt"
    assert f"broken.txt, line {line}" in str(err.value) and expected in str(err.value)


def test_a_file_without_sprites_or_end_is_refused() -> None:
    with pytest.raises(VgdlError, match="no sprites"):
        parse_game("BasicGame\n  TerminationSet\n    Timeout limit=3\n", "x.txt")
    with pytest.raises(VgdlError, match="no end condition"):
        parse_game("BasicGame\n  SpriteSet\n    a > MovingAvatar\n", "x.txt")


@pytest.mark.parametrize(
    ("change", "named", "line"),
    [
        (("wall > Immovable color=DARKGRAY", "wall > InertialAvatar"), "class 'InertialAvatar'", 4),
        (("avatar wall > stepBack", "avatar wall > wallBounce"), "effect 'wallBounce'", 9),
        (("Timeout limit=10 win=True", "StopCounter stype=wall win=True"), "termination 'StopCounter'", 11),
        (("avatar wall > stepBack", "avatar wall > spawn stype=wall prob=-1"), "probability", 9),
        (("avatar > MovingAvatar", "avatar > MovingAvatar speed=-1"), "speed is between", 5),
        (("avatar > MovingAvatar", "avatar > MovingAvatar cooldown=-1"), "at least 0", 5),
        (("avatar wall > stepBack", "avatar wall > stepBack scoreChange=1e308"), "whole number", 9),
        (("avatar wall > stepBack", "avatar wall > stepBack scoreChange=0.5"), "whole number", 9),
        (("avatar wall > stepBack", "avatar wall > stepBack repeat=0"), "from 1 to", 9),
        (
            ("avatar wall > stepBack", "avatar TIME > stepBack timer=0 repeating=True"),
            "timer of at least 1",
            9,
        ),
        (("avatar wall > stepBack", "avatar ghost > stepBack"), "'ghost', which is not a sprite", 9),
        (("avatar > MovingAvatar", "avatar > MovingAvatar physicstype=CONT"), "physicstype=CONT", 5),
        (("BasicGame", "BasicGame no_players=2"), "several players", 1),
        (("BasicGame", "GridGame"), "game class 'GridGame'", 1),
        (("wall > Immovable color=DARKGRAY", "wall > Immovable color=MAUVE"), "unknown colour", 4),
        (("avatar wall > stepBack", "avatar wall > transformTo"), "needs a parameter stype", 9),
    ],
)
def test_unsupported_features_are_named(change: tuple[str, str], named: str, line: int) -> None:
    text = SMALL.replace(*change)
    with pytest.raises(VgdlError) as err:
        compile_game(parse_game(text, "mygame.txt"))
    assert named in str(err.value) and err.value.line == line


# Small games in the style of other published GVGAI grid games (not in the repository): what the
# reference engine runs, PlayTrace runs too.
PACMAN_LIKE = """\
BasicGame
    SpriteSet
        floor > Immovable
        pellet > Immovable color=WHITE
        ghost > RandomAltChaser stype1=avatar stype2=avatar color=PINK epsilon=0.2
        avatar > MovingAvatar
    LevelMapping
        . > floor
    InteractionSet
        pellet avatar > killSprite scoreChange=1
        avatar ghost > killIfHasLess resource=pellet limit=0
    TerminationSet
        SpriteCounter stype=pellet win=True
"""

FROGS_LIKE = """\
BasicGame
    SpriteSet
        water > Immovable color=BLUE
        log > Missile orientation=LEFT speed=0.25
        avatar > MovingAvatar
    InteractionSet
        avatar log > shieldFrom ftype=killSprite stype=water
        avatar water > killSprite
    TerminationSet
        SpriteCounter stype=avatar win=False
"""


def test_other_published_games_compile() -> None:
    assert compile_text(PACMAN_LIKE, "pacmanlike.txt").type_of("ghost").cls == "RandomAltChaser"
    frogs = compile_text(FROGS_LIKE, "frogslike.txt")
    assert [e.name for _a, _b, es in frogs.pairs for e in es] == ["shieldFrom", "killSprite"]


def test_what_gvgai_ignores_is_a_warning_with_its_line() -> None:
    text = SMALL.replace("wall > Immovable color=DARKGRAY", "wall > Immovable color=DARKGRAY wobble=3")
    text = text.replace("avatar wall > stepBack", "avatar wall > stepBack value=3")
    game = compile_text(text, "warned.txt")
    assert [line for line, _m in game.warnings] == [4, 9]
    assert "'wobble'" in game.warnings[0][1] and "'value'" in game.warnings[1][1]


def test_levels_report_unknown_characters_with_line_and_column(tmp_path: Path) -> None:
    game_file = tmp_path / "small.txt"
    game_file.write_text(SMALL)
    level_file = tmp_path / "small_lvl0.txt"
    level_file.write_text("wwww\nwA.w\nw.Zw\nwwww\n")
    with pytest.raises(VgdlError) as err:
        VgdlGame(game_file=str(game_file))
    assert err.value.line == 3 and "column 3" in str(err.value) and "'Z'" in str(err.value)


def test_nothing_in_a_game_file_is_executed() -> None:
    # A parameter value is text and stays text: no evaluation of expressions or names.
    text = SMALL.replace("color=DARKGRAY", "img=__import__('os').system('false')")
    game = compile_text(text, "evil.txt")
    assert game.type_of("wall").params["img"] == "__import__('os').system('false')"


_GARBAGE = st.text(
    alphabet=st.sampled_from(list("ab>= \t\n#.:,ABSpriteSetLevelMappingInteractionTermination01")),
    max_size=300,
)


@settings(max_examples=150, deadline=None)
@given(_GARBAGE)
def test_garbage_raises_only_the_parse_error(text: str) -> None:
    try:
        compile_text("BasicGame\n" + text, "garbage.txt")
    except VgdlError as exc:
        assert str(exc).startswith("garbage.txt")


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_any_text_raises_only_the_parse_error(text: str) -> None:
    for parse in (parse_game, parse_level):
        try:
            parse(text, "any.txt")
        except VgdlError:
            pass
