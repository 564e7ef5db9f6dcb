"""Tetris in words: reading actions out of free text, and the rules as a model is told them."""

from __future__ import annotations

import re

from engine.core import Action

__all__ = ["GRAVITY_WORDS", "RULES", "read_actions"]

#: Names people and models use for the actions, each mapped to the canonical action.
_ALIASES: tuple[tuple[str, Action], ...] = (
    (r"no[\s_-]?op|noop|do nothing", "no_op"),
    (r"hard[\s_-]?drop|drop", "hard_drop"),
    (r"soft[\s_-]?drop|move[\s_-]?down|down", "soft_drop"),
    (
        r"rotate[\s_-]?(?:left|counter[\s_-]?clockwise|anti[\s_-]?clockwise|ccw)|"
        r"counter[\s_-]?clockwise|anti[\s_-]?clockwise|ccw",
        "rotate_left",
    ),
    (r"rotate[\s_-]?(?:right|clockwise|cw)?|clockwise|cw", "rotate_right"),
    (r"move[\s_-]?left|left", "left"),
    (r"move[\s_-]?right|right", "right"),
    (r"hold|swap", "hold"),
)
_ACTION_WORDS = re.compile(
    "|".join(f"(?P<a{i}>(?<![a-z0-9_])(?:{pattern})(?![a-z0-9_]))" for i, (pattern, _) in enumerate(_ALIASES))
)


def read_actions(text: str) -> list[Action]:
    """The actions ``text`` names, in order: canonical names and the usual aliases (``"move left"``,
    ``"rotate clockwise"``, ``"ccw"``, ``"drop"``, ``"swap"``, ``"noop"``)."""
    found = []
    for match in _ACTION_WORDS.finditer(text.lower()):
        index = int((match.lastgroup or "a0")[1:])
        found.append(_ALIASES[index][1])
    return found


RULES = """\
Tetris on a board of 10 columns and 20 rows (row 0 at the top, row 19 the floor; columns 0 to 9 from
the left). Pieces (tetrominoes I, J, L, O, S, T, Z) enter at the top and fall; the pieces come in
shuffled sets of seven, each set holding every piece once. Each turn you choose one action:
- left / right: move the falling piece one column;
- rotate_left / rotate_right: turn it a quarter anticlockwise / clockwise (it is kicked aside when a
  wall or a block is in the way and a nearby spot is free);
- soft_drop: move it down one row; hard_drop: drop it straight down and place it at once;
- hold: put the piece aside and take the held one (the next piece when nothing is held); once per piece;
- no_op: do nothing.
{gravity}
A row that is completely filled disappears and the rows above move down.
Score: +1 for every piece placed and +{line} for every line cleared. The game ends when a new piece has no
room to enter at the top, after {stuck} actions in a row that change nothing, or after {steps} actions.
Answer with exactly one of: no_op, left, right, rotate_left, rotate_right, soft_drop, hard_drop, hold."""

GRAVITY_WORDS = {
    "every": "After every action the piece falls one row; a piece that cannot fall is placed at once.",
    "idle": "The piece falls one row whenever a tick passes without an action; a piece that cannot "
    "fall is then placed.",
    "none": "There is no gravity: the piece moves down only when you drop it.",
}


