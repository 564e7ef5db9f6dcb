"""``playtrace --self-test`` in-process: every registered game is drawn and played, one line per check.

tests/test_bundle.py runs the same checks inside the frozen bundle; here they run fast, in the test's
own Qt application, with a short step cap.
"""

from __future__ import annotations

import dataclasses
import io
import re

import pytest
from PySide6.QtWidgets import QApplication

import engine
from desktop.selftest import _one_line, self_test
from engine.registry import GameEntry

VERDICT = re.compile(r"self-test (PASSED|FAILED): (\d+) passed, (\d+) failed, (\d+) skipped in [\d.]+ s")


def _run(**kwargs: object) -> tuple[int, list[str]]:
    out = io.StringIO()
    code = self_test(out, max_steps=1, **kwargs)  # type: ignore[arg-type]
    return code, out.getvalue().splitlines()


def _verdict(lines: list[str]) -> tuple[str, int, int, int]:
    match = VERDICT.fullmatch(lines[-1])
    assert match, f"no verdict line at the end: {lines[-1]!r}"
    return match[1], int(match[2]), int(match[3]), int(match[4])


def _first_available() -> GameEntry:
    return next(e for e in engine.registry.entries() if e.available)


def test_every_registered_game_is_drawn_and_played_by_sim_and_random(qapp: QApplication) -> None:
    code, lines = _run()
    assert code == 0, "\n".join(lines)
    assert lines[0] == "PlayTrace self-test"
    verdict, passed, failed, skipped = _verdict(lines)
    assert (verdict, failed) == ("PASSED", 0)
    checks = lines[1:-1]
    # One line per check: the verdict counts exactly the lines printed.
    assert passed == sum(line.startswith("ok    ") for line in checks)
    assert skipped == sum(line.startswith("skip  ") for line in checks)
    assert passed + skipped == len(checks)
    for name in ("install", "assets", "qt", "app"):
        assert any(line.startswith(f"ok    {name}: ") for line in checks), name
    entries = engine.registry.entries()
    assert entries, "the registry found no game"
    for entry in entries:
        if entry.available:
            for check in ("draw", "sim", "random"):
                assert any(line.startswith(f"ok    {entry.id} {check}: ") for line in checks), entry.id
        else:
            assert any(line.startswith(f"skip  {entry.id}: unavailable here") for line in checks), entry.id
    played = [line for line in checks if line.endswith(" s)") and "session written and read back" in line]
    games = {e.id: engine.make(e.id) for e in entries if e.available}
    assert len(played) == sum(3 if g.num_seats > 1 else 2 for g in games.values())
    for game_id, game in games.items():
        if game.num_seats > 1:
            # Every game with an opponent is played against its default opponent, named in the report.
            opponent = type(game).default_opponent
            line = next(line for line in checks if line.startswith(f"ok    {game_id} opponent: "))
            assert f"against {opponent} (" in line, line


def test_an_unavailable_game_is_reported_and_skipped_not_failed(qapp: QApplication) -> None:
    missing = GameEntry(
        "toy-missing", "toyplugin:Missing", "toyplugin", None,
        "needs toylib, which is not installed", "pip install toylib",
    )
    real = _first_available()
    code, lines = _run(games=lambda: [missing, real])
    assert code == 0, "\n".join(lines)
    assert (
        "skip  toy-missing: unavailable here: needs toylib, which is not installed "
        "(install with: pip install toylib)"
    ) in lines
    assert any(line.startswith(f"ok    {real.id} random: ") for line in lines)
    checks = 4 if engine.make(real.id).num_seats > 1 else 3  # draw, sim, random (+ opponent)
    assert _verdict(lines)[1:] == (4 + checks, 0, 1)  # install, assets, qt, app + the real game's


def test_a_broken_game_fails_its_checks_and_the_others_still_run(qapp: QApplication) -> None:
    real = _first_available()
    # Registered as available, but no game of that id can be made: every check of it must fail.
    broken = dataclasses.replace(real, id="toy-broken")
    code, lines = _run(games=lambda: [broken, real])
    assert code == 1
    for check in ("draw", "sim", "random", "opponent"):
        line = next(line for line in lines if line.startswith(f"FAIL  toy-broken {check}: "))
        assert "UnknownGameError" in line and "toy-broken" in line
    assert any(line.startswith(f"ok    {real.id} draw: ") for line in lines)
    real_checks = 4 if engine.make(real.id).num_seats > 1 else 3
    assert _verdict(lines) == ("FAILED", 4 + real_checks, 4, 0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("short", "short"),
        ("two\n\n  lines\tand tabs ", "two lines and tabs"),
    ],
)
def test_each_check_prints_on_one_line(text: str, expected: str) -> None:
    assert _one_line(text) == expected


def test_a_long_message_keeps_its_start_and_its_cause() -> None:
    text = "IMPORTANT: PLEASE READ THIS\n" + "advice line\n" * 200 + "Original error was: libfoo.so missing"
    line = _one_line(text, limit=120)
    assert "\n" not in line and len(line) <= 123
    assert line.startswith("IMPORTANT: PLEASE READ THIS")
    assert line.endswith("Original error was: libfoo.so missing")
