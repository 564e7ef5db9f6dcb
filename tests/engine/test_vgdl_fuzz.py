"""Mutated VGDL game files (seeded): each either runs (with a finite score) or is refused with one clean
error naming the file and, unless the problem is the whole file, the line. Never a traceback, never a
hang, never an infinite score.

The mutations start from PlayTrace's own games in ``assets/vgdl`` and, when it is there, from the
published GVGAI games in ``../shared/gvgai``. ``PLAYTRACE_FUZZ_CASES`` runs more cases than the suite's.
"""

from __future__ import annotations

import math
import os
import random
import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import assets
from engine.games.vgdl import VgdlError, VgdlGame
from engine.games.vgdl.ontology import EFFECTS, SPRITE_CLASSES, TERMINATIONS

GVGAI = Path(__file__).resolve().parents[2] / ".." / "shared" / "gvgai"
CASES = int(os.environ.get("PLAYTRACE_FUZZ_CASES", "120"))
STEPS = 30
#: Errors about a whole file, which no single line can be blamed for.
WHOLE_FILE = (
    "the file is empty",
    "the game defines no sprites",
    "the game has no end condition",
    "the game has no avatar",
    "the level is empty",
    "the level has no avatar",
    "at most 200x200 cells",
)
NASTY_VALUES = (
    "-1", "0", "1e308", "-1e308", "nan", "inf", "99999999999", "0.5", "-0.5", "abc", "1,2", "True",
    "2147483648", "1000000", "UP", "avatar",
)
WORDS = (
    *SPRITE_CLASSES, *EFFECTS, *TERMINATIONS, "EOS", "TIME", "avatar", "wall", "stype", "limit", ">",
    "=", "#", "SpriteSet", "LevelMapping", "InteractionSet", "TerminationSet", "BasicGame",
)


def sources() -> list[tuple[str, str, str]]:
    """(name, game text, level text) of every game mutated."""
    found = []
    folders = [assets.path("vgdl")] + ([GVGAI] if GVGAI.is_dir() else [])
    for folder in folders:
        for game in sorted(folder.glob("*.txt")):
            level = game.with_name(f"{game.stem}_lvl0.txt")
            if "_lvl" in game.stem or not level.is_file():
                continue
            found.append((game.stem, game.read_text(), level.read_text()))
    return found


def mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        kind = rng.randrange(10)
        if kind == 0:  # a value becomes nonsense
            found = list(re.finditer(r"=([^\s]+)", lines[i]))
            if found:
                m = rng.choice(found)
                lines[i] = lines[i][: m.start(1)] + rng.choice(NASTY_VALUES) + lines[i][m.end(1) :]
        elif kind == 1:
            del lines[i]
        elif kind == 2:
            lines.insert(i, lines[i])
        elif kind == 3:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 4:
            lines[i] = rng.choice(("    ", "\t", "", "  ")) + lines[i].lstrip()
        elif kind == 5:  # a word becomes another word of the file or of VGDL
            words = lines[i].split()
            if words:
                pool = text.split() + list(WORDS)
                words[rng.randrange(len(words))] = rng.choice(pool)
                lines[i] = " " * (len(lines[i]) - len(lines[i].lstrip())) + " ".join(words)
        elif kind == 6:
            key = rng.choice(("speed", "prob", "cooldown", "limit", "stype", "repeat", "timer", "scoreChange",
                              "total", "value", "orientation", "singleton", "healthPoints", "timeToLive"))
            lines[i] += f" {key}={rng.choice(NASTY_VALUES)}"
        elif kind == 7:
            lines = lines[: i + 1]
        elif kind == 8:
            lines[i] = lines[i].replace(">", rng.choice(("<", "", "> >", ">=")), 1)
        else:
            lines[i] = lines[i].replace(" ", rng.choice(("", "  ", "=")), 1)
    return "\n".join(lines) + "\n"


def mutate_level(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(0, 4)):
        if chars:
            chars[rng.randrange(len(chars))] = rng.choice("wA.0x1#\n ")
    return "".join(chars)


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Fail instead of hanging (where the platform has SIGALRM)."""
    if not hasattr(signal, "setitimer"):
        yield
        return

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def play_case(folder: Path, name: str, game_text: str, level_text: str, rng: random.Random) -> str:
    """Write one mutated game, load and play it; '' when it ran, else the error."""
    game_file, level_file = folder / f"{name}.txt", folder / f"{name}_lvl0.txt"
    game_file.write_text(mutate(game_text, rng))
    level_file.write_text(mutate_level(level_text, rng) if rng.random() < 0.3 else level_text)
    try:
        game = VgdlGame(game_file=str(game_file), level_file=str(level_file), max_steps=STEPS)
        state = game.initial_state(seed=rng.randrange(1000))
        while not state.is_over:
            state = state.apply(rng.choice(state.legal_actions()))
            assert math.isfinite(state.game_score), f"{name}: the score became {state.game_score}"
        return ""
    except VgdlError as exc:
        return str(exc)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM to stop a hang")
def test_mutated_games_give_only_clean_line_numbered_errors(tmp_path: Path) -> None:
    pool = sources()
    rng = random.Random(2026)
    errors = 0
    for case in range(CASES):
        name, game_text, level_text = pool[case % len(pool)]
        with time_limit(10.0):
            message = play_case(tmp_path, f"fuzz{case}", game_text, level_text, rng)
        if not message:
            continue
        errors += 1
        assert "\n" not in message and "Traceback" not in message, message
        assert message.startswith(f"fuzz{case}"), message
        assert re.match(rf"fuzz{case}(_lvl0)?\.txt, line \d+: ", message) or any(
            w in message for w in WHOLE_FILE
        ), message
    # Both outcomes must occur, or the mutations test nothing.
    assert 0 < errors < CASES
