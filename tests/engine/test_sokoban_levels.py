"""Sokoban's level format, deadlock tests, solver, generator and bundled level sets."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.core import GameError
from engine.games.sokoban import (
    BUNDLED,
    Level,
    LevelFormatError,
    bundled_levels,
    dead_box,
    deadlocked,
    frozen,
    generate,
    parse_levels,
    read_levels,
    replay,
    solve,
)
from engine.games.sokoban.levels import level_from_rows

COLLECTION = """\
; A collection written for these tests
; with comments and titles

Level one
  #####
###   #
#.@$  #
#######

####
#.@###
#-$--#
#____#
######
Title: Dashes
Author: PlayTrace

5#|#@$.#|5#
Title: Run length
"""


def level(text: str) -> Level:
    (only,) = parse_levels(text)
    return only


# -- the format -------------------------------------------------------------------------------------


def test_a_collection_with_comments_titles_dashes_and_run_length_rows() -> None:
    one, two, three = parse_levels(COLLECTION, "tests.xsb")
    assert one.title == "Level one" and two.title == "Dashes" and three.title == "Run length"
    assert (one.width, one.height) == (7, 4)
    assert one.coords(one.player) == (2, 2) and [one.coords(b) for b in one.boxes] == [(2, 3)]
    assert [one.coords(g) for g in one.goals] == [(2, 1)]
    assert two.coords(two.player) == (1, 2) and {two.coords(b) for b in two.boxes} == {(2, 2)}
    assert two.inside == frozenset(
        two.cell(r, c)
        for r, c in [(1, 1), (1, 2), (2, 1), (2, 2), (2, 3), (2, 4), (3, 1), (3, 2), (3, 3), (3, 4)]
    )
    assert three.rows() == ["#####", "#@$.#", "#####"]
    # The outside of the first level (top-left corner) is neither wall nor inside.
    assert one.cell(0, 0) not in one.walls | one.inside


def test_a_title_before_its_board_and_crlf_line_ends() -> None:
    first, second = parse_levels(
        "Title: Before\r\n#####\r\n#@$.#\r\n#####\r\n\r\n; 2\r\n#####\r\n#.$@#\r\n#####\r\n"
    )
    assert (first.title, second.title) == ("Before", "2")
    assert first.rows() == ["#####", "#@$.#", "#####"]


def test_player_and_boxes_on_goals() -> None:
    lv = level("#######\n#+$*$.#\n#######")
    assert lv.player in lv.goals and lv.cell(1, 3) in lv.goals & lv.boxes
    assert len(lv.goals) == len(lv.boxes) == 3
    assert lv.rows() == ["#######", "#+$*$.#", "#######"]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("#####\n#$ .#\n#####", ["level 1", "no player"]),
        ("######\n#@$.@#\n######", ["level 1", "2 players", "lines 2, 2"]),
        ("#####\n#@$ #\n#####", ["level 1", "1 boxes but 0 goals"]),
        ("#####\n#@ .#\n#####", ["level 1", "no box"]),
        ("#####\n#@$. \n#####", ["level 1", "line 2", "not closed"]),
        ("; two\n#####\n#@$.#\n#####\n\n#####\n#@x.#\n#####", ["level 2", "line 7", "column 3", "'x'"]),
        ("just some text\nand more", ["no level found"]),
    ],
)
def test_bad_levels_are_named_by_file_level_and_line(text: str, words: list[str]) -> None:
    with pytest.raises(LevelFormatError) as info:
        parse_levels(text, "bad.xsb")
    message = str(info.value)
    assert message.startswith("bad.xsb")
    for word in words:
        assert word in message


def test_a_bad_file_is_a_clear_error_when_the_game_is_made(tmp_path: Path) -> None:
    path = tmp_path / "mine.sok"
    path.write_text("Title: fine\n#####\n#@$.#\n#####\n\n#####\n#@$$.#\n######\n", encoding="utf-8")
    with pytest.raises(GameError, match=r"mine\.sok: level 2 \(lines 6-8\): 2 boxes but 1 goals"):
        engine.make("sokoban", levels=str(path))
    with pytest.raises(GameError, match="no level file"):
        engine.make("sokoban", levels=str(tmp_path / "missing.xsb"))
    good = tmp_path / "good.txt"
    good.write_text("#####\n#@$.#\n#####\n", encoding="utf-8")
    assert len(read_levels(good)) == 1
    with pytest.raises(GameError, match="1 level"):
        engine.make("sokoban", levels=str(good), level=2)


_BOARD_CELL = st.sampled_from(["#", " ", " ", " ", "$", "."])


@st.composite
def rooms(draw: st.DrawFn) -> list[str]:
    """Rooms inside a wall border with random walls, boxes and goals, as many boxes as goals, and the
    player on a free cell (some rooms are still unplayable: a box walled off from the player)."""
    width, height = draw(st.integers(3, 8)), draw(st.integers(3, 7))
    cells = [[draw(_BOARD_CELL) for _ in range(width)] for _ in range(height)]
    boxes = sum(row.count("$") for row in cells)
    goals = sum(row.count(".") for row in cells)
    for row in cells:  # even the counts out on free floor
        for c, ch in enumerate(row):
            if ch == " " and boxes > goals:
                row[c], goals = ".", goals + 1
            elif ch == " " and goals > boxes:
                row[c], boxes = "$", boxes + 1
    free = [(r, c) for r, row in enumerate(cells) for c, ch in enumerate(row) if ch in " ."]
    if free:
        r, c = draw(st.sampled_from(free))
        cells[r][c] = "+" if cells[r][c] == "." else "@"
    return ["#" * (width + 2)] + ["#" + "".join(row) + "#" for row in cells] + ["#" * (width + 2)]


@settings(max_examples=150, deadline=None)
@given(rooms())
def test_any_room_reads_back_from_its_own_text_or_fails_with_a_named_error(rows: list[str]) -> None:
    try:
        lv = level_from_rows(rows, "Room", "room.xsb: level 1")
    except LevelFormatError as exc:
        assert str(exc).startswith("room.xsb: level 1")
        return
    (again,) = parse_levels(lv.text())
    assert again == lv
    assert again.dead <= again.inside and not (again.goals & again.dead)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("#@+$*. -_\n;Title:x0123456789|")), max_size=120))
def test_arbitrary_text_parses_or_raises_only_level_format_errors(text: str) -> None:
    try:
        levels = parse_levels(text, "fuzz.txt")
    except LevelFormatError as exc:
        assert "fuzz.txt" in str(exc)
        return
    for lv in levels:
        assert len(lv.boxes) == len(lv.goals) >= 1 and lv.player in lv.inside


# -- deadlocks --------------------------------------------------------------------------------------


def test_known_dead_positions_are_detected_as_dead() -> None:
    corner = level("#####\n#$ @#\n#  .#\n#####")
    assert corner.cell(1, 1) in corner.dead
    assert dead_box(corner, corner.boxes, corner.cell(1, 1))
    # Along a wall with no goal on it: every cell of the top row but the goal's column is dead.
    wall = level("#######\n#  $ @#\n#     #\n#    .#\n#######")
    assert {wall.cell(1, c) for c in range(1, 6)} <= wall.dead
    # Two boxes side by side against a wall with goals along it: neither square is dead, but the
    # boxes freeze each other.
    pair = level("#######\n#. $$.#\n#     #\n#  @  #\n#######")
    assert not (pair.boxes & pair.dead)
    assert frozen(pair, pair.boxes, pair.cell(1, 3)) and dead_box(pair, pair.boxes, pair.cell(1, 4))
    square = level("########\n#      #\n# $$   #\n# $$ @ #\n# .... #\n#      #\n########")
    assert frozen(square, square.boxes, square.cell(2, 2))
    assert dead_box(square, square.boxes, square.cell(3, 3)) and deadlocked(square, square.boxes)
    # A box frozen on its goal is fine; its frozen neighbour off a goal is not.
    alone = level("######\n#*  @#\n#    #\n######")
    assert frozen(alone, alone.boxes, alone.cell(1, 1)) and not deadlocked(alone, alone.boxes)
    home = level("######\n#*$ @#\n#  . #\n######")
    assert dead_box(home, home.boxes, home.cell(1, 2)) and dead_box(home, home.boxes, home.cell(1, 1))


def test_live_positions_are_not_called_dead() -> None:
    # A box against a wall that has a goal along it can still get there.
    lv = level("#######\n# $ .@#\n#     #\n#######")
    assert not deadlocked(lv, lv.boxes)
    # Two boxes side by side in the open can still be separated.
    lv = level("#######\n#     #\n# $$  #\n#  .. #\n#   @ #\n#######")
    assert not deadlocked(lv, lv.boxes)
    # Every generated room starts alive.
    for seed in range(20):
        room = generate(seed)
        assert not deadlocked(room, room.boxes), seed


# -- the solver -------------------------------------------------------------------------------------

#: Levels written for these tests, each with a solution written by hand in LURD notation.
KNOWN = [
    ("#######\n#@ $ .#\n#######", "rRR"),
    ("#####\n#.  #\n#$  #\n#@  #\n#####", "U"),
    ("#######\n#.   .#\n#  $  #\n# $@  #\n#     #\n#######", "UluRRdddllUUruL"),
]


@pytest.mark.parametrize(("text", "solution"), KNOWN)
def test_known_solutions_solve_their_levels(text: str, solution: str) -> None:
    lv = level(text)
    boxes, _ = replay(lv, solution)
    assert boxes <= lv.goals
    state = engine.make("sokoban", levels=text).initial_state(seed=0)
    for letter in solution:
        before = state.boxes
        state = state.apply({"u": "up", "d": "down", "l": "left", "r": "right"}[letter.lower()])
        assert (state.boxes != before) == letter.isupper() or state.end == "complete"
    assert state.end == "complete" and state.scores == (len(lv.boxes),)
    found = solve(lv)
    assert found is not None
    assert sum(ch.isupper() for ch in found) <= sum(ch.isupper() for ch in solution)


def test_the_solver_answers_with_a_working_solution_or_none() -> None:
    for text, _ in KNOWN:
        lv = level(text)
        found = solve(lv)
        assert found is not None
        boxes, _ = replay(lv, found)
        assert boxes <= lv.goals
    impossible = level("#######\n#$ @  #\n#    .#\n#######")  # the box starts in a corner
    assert solve(impossible) is None
    done = level("#####\n#@* #\n#####")
    assert solve(done) == ""
    with pytest.raises(ValueError, match="move 2"):
        replay(level("#####\n#@$.#\n#####"), "RR")
    # A large room: the search gives up when told to, rather than running for minutes.
    huge = generate(1, width=30, height=30, boxes=12)
    started = time.perf_counter()
    assert solve(huge, time_limit=0.3) is None
    assert time.perf_counter() - started < 3.0


# -- the generator ----------------------------------------------------------------------------------


def test_generated_rooms_are_seeded_sized_and_always_solvable() -> None:
    # How fast a room is made (about 10 ms) is measured by benchmarks/bench_sokoban.py.
    for seed in range(25):
        room = generate(seed)
        assert (room.width, room.height, len(room.boxes)) == (10, 10, 3)
        assert not room.boxes <= room.goals
        solution = solve(room)
        assert solution is not None, seed
        boxes, _ = replay(room, solution)
        assert boxes <= room.goals
    assert generate(7) == generate(7) and generate(7) != generate(8)
    big = generate(3, width=12, height=9, boxes=4)
    assert (big.width, big.height, len(big.boxes)) == (12, 9, 4) and solve(big) is not None
    with pytest.raises(ValueError, match="holds 1 to"):
        generate(0, width=5, height=5, boxes=5)


# -- PlayTrace's own levels -------------------------------------------------------------------------


def test_every_bundled_level_is_solvable_and_the_sets_get_harder() -> None:
    pushes = {}
    for name in BUNDLED:
        counts = []
        for n, lv in enumerate(bundled_levels(name), start=1):
            solution = solve(lv)
            assert solution is not None, f"{name} level {n} ({lv.title}) has no solution"
            boxes, _ = replay(lv, solution)
            assert boxes <= lv.goals and lv.title
            counts.append(sum(ch.isupper() for ch in solution))
        pushes[name] = statistics.mean(counts)
    assert pushes["starter"] < pushes["intermediate"] < pushes["advanced"]


def test_the_lmgame_set_is_six_solvable_ten_by_ten_rooms_chosen_by_name_only() -> None:
    levels = bundled_levels("lmgame")
    assert len(levels) == 6
    for n, lv in enumerate(levels, start=1):
        assert len(lv.boxes) == 3 and lv.width == 10 and 8 <= lv.height <= 11 and lv.title
        solution = solve(lv)
        assert solution is not None, f"lmgame level {n} ({lv.title}) has no solution"
        assert replay(lv, solution)[0] <= lv.goals
    game = engine.make("sokoban", levels="lmgame", max_steps=200)
    first = game.initial_state(seed=0)
    assert first.metrics()["level"] == 1 and "lmgame" not in BUNDLED  # not part of the default course
    default = engine.make("sokoban").initial_state(seed=0)
    assert default.to_json() != first.to_json()
