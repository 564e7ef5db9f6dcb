"""PlayTrace's own VGDL games (assets/vgdl) and GVGAI's six core games run on the VGDL engine under
random and search players; the search player wins the easy levels far more often than random play."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from engine import registry
from engine.bots.mcts import MctsBot

ROOT = Path(__file__).parents[2]
ASSETS = ROOT / "assets" / "vgdl"
GVGAI = ROOT / ".." / "shared" / "gvgai"
BUNDLED = ("barrage", "crates", "gems", "keyhunt", "pursuit", "rockfall")
CORE = ("aliens", "boulderdash", "escape", "realsokoban", "sokoban", "zelda")
LEVELS = range(5)


def play(game: object, state: object, choose: object) -> object:
    while not state.is_over:  # type: ignore[attr-defined]
        state = state.apply(choose(state))  # type: ignore[attr-defined, operator]
    return state


def random_chooser(seed: int):  # noqa: ANN201
    rng = random.Random(seed)
    return lambda s: rng.choice(s.legal_actions())


def search_chooser(game: object, seed: int, iterations: int, depth: int = 8):  # noqa: ANN201
    bot = MctsBot(game, seed=seed, iterations=iterations, rollout_depth=depth)  # type: ignore[arg-type]
    return lambda s: bot.search(s).action


def vocabulary(text: str) -> dict[str, set[str]]:
    """The sprite classes, effects and terminations a VGDL file names (a light reading of its sections)."""
    found: dict[str, set[str]] = {"classes": set(), "effects": set(), "terminations": set()}
    section = ""
    for line in text.splitlines():
        stripped = line.split("#", 1)[0].strip()
        if stripped in ("SpriteSet", "InteractionSet", "TerminationSet", "LevelMapping"):
            section = stripped
            continue
        if section == "SpriteSet" and ">" in stripped:
            words = stripped.split(">", 1)[1].split()
            if words and "=" not in words[0]:
                found["classes"].add(words[0])
        elif section == "InteractionSet" and ">" in stripped:
            found["effects"].add(stripped.split(">", 1)[1].split()[0])
        elif section == "TerminationSet" and stripped:
            found["terminations"].add(stripped.split()[0])
    return found


# -- the files ---------------------------------------------------------------------------------------


def test_every_bundled_game_has_its_rules_five_levels_and_a_readme_section():
    readme = (ASSETS / "README.md").read_text(encoding="utf-8")
    for name in BUNDLED:
        assert (ASSETS / f"{name}.txt").is_file()
        for level in LEVELS:
            assert (ASSETS / f"{name}_lvl{level}.txt").is_file()
        assert re.search(rf"^## {name} — ", readme, re.MULTILINE), name


def test_bundled_games_use_only_what_the_core_games_use():
    allowed: dict[str, set[str]] = {"classes": set(), "effects": set(), "terminations": set()}
    for name in CORE:
        for kind, names in vocabulary((GVGAI / f"{name}.txt").read_text(encoding="utf-8")).items():
            allowed[kind] |= names
    for name in BUNDLED:
        used = vocabulary((ASSETS / f"{name}.txt").read_text(encoding="utf-8"))
        for kind, names in used.items():
            assert names, (name, kind)
            assert names <= allowed[kind], (name, kind, names - allowed[kind])


@pytest.mark.parametrize("name", BUNDLED)
def test_levels_grow_from_level_zero_to_level_four(name):
    def things(level: int) -> int:
        text = (ASSETS / f"{name}_lvl{level}.txt").read_text(encoding="utf-8")
        return sum(ch not in ".-w\n" for ch in text)

    def area(level: int) -> int:
        rows = (ASSETS / f"{name}_lvl{level}.txt").read_text(encoding="utf-8").split()
        return len(rows) * max(map(len, rows))

    assert things(4) > things(0)
    assert area(4) > area(0)


# -- play ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", BUNDLED)
def test_every_level_of_a_bundled_game_runs_under_random_and_search_players(name):
    for level in LEVELS:
        game = registry.make(f"vgdl-{name}", level=level, max_steps=40)
        final = play(game, game.initial_state(seed=level), random_chooser(level))
        assert final.tick <= 40 and final.won is not None
        assert final.metrics()["steps"] == final.tick
        game = registry.make(f"vgdl-{name}", level=level, max_steps=6)
        final = play(game, game.initial_state(seed=level), search_chooser(game, level, 3, 3))
        assert final.won is not None and final.tick <= 6


@pytest.mark.parametrize("name", BUNDLED)
def test_search_wins_the_easy_level_far_more_often_than_random_play(name):
    game = registry.make(f"vgdl-{name}", level=0, max_steps=60)
    search_wins = sum(
        play(game, game.initial_state(seed=seed), search_chooser(game, seed, 25)).won is True
        for seed in (1, 2, 3))
    random_wins = sum(
        play(game, game.initial_state(seed=seed), random_chooser(seed)).won is True for seed in range(6))
    assert search_wins >= 2
    assert search_wins / 3 >= random_wins / 6 + 0.3


@pytest.mark.parametrize("name", CORE)
def test_gvgai_core_games_run_every_level_under_random_and_search_players(name):
    for level in LEVELS:
        game = registry.make("vgdl", game_file=str(GVGAI / f"{name}.txt"),
                             level_file=str(GVGAI / f"{name}_lvl{level}.txt"), max_steps=25)
        final = play(game, game.initial_state(seed=level), random_chooser(level))
        assert final.won is not None and final.tick <= 25
    game = registry.make("vgdl", game_file=str(GVGAI / f"{name}.txt"),
                         level_file=str(GVGAI / f"{name}_lvl0.txt"), max_steps=4)
    final = play(game, game.initial_state(seed=0), search_chooser(game, 0, 3, 3))
    assert final.won is not None and final.tick <= 4


def test_search_outscores_random_play_on_a_core_shooter():
    """Aliens' first level over 30 steps: the search player shoots far more aliens than random play."""
    game = registry.make("vgdl", game_file=str(GVGAI / "aliens.txt"),
                         level_file=str(GVGAI / "aliens_lvl0.txt"), max_steps=30)
    searched = play(game, game.initial_state(seed=0), search_chooser(game, 0, 15))
    randoms = [play(game, game.initial_state(seed=s), random_chooser(s)).game_score for s in range(3)]
    assert searched.game_score > max(randoms)
