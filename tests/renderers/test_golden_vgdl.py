"""The VGDL renderer: golden images of PlayTrace's own VGDL games, the ASCII panel beside wide
drawings, highlights, and the speed of a full-size frame."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest

import engine
import renderers
from engine.games.vgdl import VgdlState
from tests.renderers.render_helpers import changed_mask, pixels
from tests.renderers.test_golden import Case, check_golden


def played(game_id: str, *actions: str, level: int = 0, seed: int = 1) -> VgdlState:
    state = engine.make(game_id, level=level).initial_state(seed=seed)
    for action in actions:
        state = state.apply(action)
    assert isinstance(state, VgdlState)
    return state


#: A small shooter of our own, written by the test (its golden image does not follow asset edits).
SHOOTER = """\
BasicGame
    SpriteSet
        space > Immovable hidden=True color=DARKBLUE
        shield > Immovable color=LIGHTBLUE img=block
        gunner > FlakAvatar stype=laser color=GREEN
        shot > Missile
            laser > orientation=UP color=YELLOW singleton=True
            drop > orientation=DOWN color=RED speed=0.5
        saucer > Bomber stype=drop prob=0.2 cooldown=2 speed=0.5 color=PINK img=alien
    LevelMapping
        . > space
        s > space shield
        u > space saucer
        A > space gunner
    InteractionSet
        gunner EOS > stepBack
        saucer EOS > turnAround
        shot EOS > killSprite
        saucer laser > killSprite scoreChange=2
        shield shot > killBoth
    TerminationSet
        SpriteCounter stype=gunner limit=0 win=False
        SpriteCounter stype=saucer limit=0 win=True
"""
SHOOTER_LEVEL = "u.........\n....u.....\n..........\n.ss....ss.\n....A.....\n"


def shooter() -> VgdlState:
    """The shooter after a shot and a step right: the laser in flight, a saucer's drop falling."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "shooter.txt").write_text(SHOOTER)
        (Path(folder) / "shooter_lvl0.txt").write_text(SHOOTER_LEVEL)
        state = engine.make("vgdl", game_file=str(Path(folder) / "shooter.txt")).initial_state(seed=4)
    for action in ("ACTION_USE", "ACTION_NIL", "ACTION_RIGHT", "ACTION_NIL"):
        state = state.apply(action)
    assert isinstance(state, VgdlState)
    return state


CASES = [
    Case(
        "vgdl-keyhunt-wide",
        "vgdl-keyhunt",
        lambda: played("vgdl-keyhunt", "ACTION_RIGHT", "ACTION_DOWN"),
        (640, 400),
    ),
    Case(
        "vgdl-crates-square",
        "vgdl-crates",
        lambda: played("vgdl-crates", "ACTION_LEFT", level=1),
        (400, 400),
        highlight=("(2,3)",),
    ),
    Case("vgdl-own-shooter", "vgdl", shooter, (480, 300), grid_labels=True),
    Case("vgdl-rockfall-level2", "vgdl-rockfall", lambda: played("vgdl-rockfall", level=2), (640, 400)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_wide_drawings_show_the_ascii_panel_beside_the_picture() -> None:
    r = renderers.get("vgdl-keyhunt")
    state = played("vgdl-keyhunt")
    wide = pixels(r.render(state, 800, 400))
    square = pixels(r.render(state, 400, 400))
    # Dark text pixels in the right third: the panel; none there in the square drawing's margin.
    ink = wide[:, int(800 * 0.72) :].max(axis=2) < 80
    assert ink.mean() > 0.005
    assert (square[:, :6].max(axis=2) < 80).mean() == 0


def test_the_avatar_moving_changes_only_its_neighbourhood() -> None:
    r = renderers.get("vgdl-crates")
    before = played("vgdl-crates")
    after = before.apply("ACTION_RIGHT")
    assert after.avatar_pos != before.avatar_pos
    mask = changed_mask(r.render(before, 400, 400), r.render(after, 400, 400))
    ys, xs = np.nonzero(mask)
    assert ys.size and (ys.max() - ys.min()) < 400 * 0.4
