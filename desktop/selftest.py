"""``playtrace --self-test``: checks an installation (a bundle on an annotator's machine) offscreen.

Every game the registry finds is drawn, then played once by the simulated model (``sim``), once by
``random`` and, when it has more than one seat, once by ``sim`` against the game's default opponent
(the report names it: Stockfish in chess where it is installed) for at most :data:`MAX_STEPS` steps,
each on the app's own event loop (:func:`desktop.qt_app.run`); each game is recorded as a session in
a temporary folder, read back, and its last state rebuilt from the record. Games the registry lists
as unavailable here (an optional extra that is not installed) are reported and skipped, not failed. One line
is printed per check, then a verdict; the exit code is 0 when nothing failed.

Nothing is drawn on screen: Qt's ``offscreen`` platform is used unless a Qt application already runs
(or ``QT_QPA_PLATFORM`` says otherwise). Nothing is written outside the temporary folder.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from PySide6.QtGui import QImage

    from engine.registry import GameEntry

#: Steps played per game and player: enough to cross the match loop, the players and the recorder
#: for every game, while the whole self-test stays within a minute.
MAX_STEPS = 12
#: The players each game is played with (one spec fills every seat).
PLAYERS = ("sim", "random")
#: The size boards are drawn at (the app's default window size).
DRAW_SIZE = (1280, 800)


class CheckFailed(Exception):
    """A check found something wrong; the message says what."""


class _Report:
    """Counts the checks and prints one line per check."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.passed = 0
        self.failed = 0
        self.skipped = 0

    def line(self, verdict: str, name: str, detail: str) -> None:
        print(f"{verdict:<5} {name}: {_one_line(detail)}", file=self.out, flush=True)

    @contextmanager
    def check(self, name: str) -> Iterator[list[str]]:
        """Runs the body as one check; the body appends its detail to the list it is given."""
        detail: list[str] = []
        started = time.perf_counter()
        try:
            yield detail
        except Exception as exc:  # noqa: BLE001  (every failure is reported, then the next check runs)
            self.failed += 1
            if isinstance(exc, CheckFailed):
                reason = str(exc)
            else:
                where = traceback.extract_tb(exc.__traceback__)[-1]
                reason = f"{type(exc).__name__}: {exc} (at {Path(where.filename).name}:{where.lineno})"
            self.line("FAIL", name, reason)
            return
        self.passed += 1
        elapsed = time.perf_counter() - started
        self.line("ok", name, f"{'; '.join(detail) or 'ok'} ({elapsed:.2f} s)")

    def skip(self, name: str, reason: str) -> None:
        self.skipped += 1
        self.line("skip", name, reason)


def _one_line(text: str, limit: int = 400) -> str:
    """``text`` on one line; a long one keeps its start and its end (where an import error's cause is)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return f"{flat[: limit // 3]} … {flat[-(limit - limit // 3):]}"


def _ensure_gui() -> str:
    """A Qt GUI application to draw with (offscreen unless one runs already); returns the platform."""
    from PySide6.QtGui import QGuiApplication

    if QGuiApplication.instance() is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from desktop.qt_app import create_app

        create_app()  # the app's own QApplication: games are played on its event loop
    return QGuiApplication.platformName()


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("playtrace")
    except metadata.PackageNotFoundError:
        return "unknown (no package metadata)"


def _check_install(report: _Report) -> None:
    import assets
    import engine

    with report.check("install") as detail:
        frozen = getattr(sys, "frozen", False)
        detail.append(f"playtrace {_version()}, Python {sys.version.split()[0]}"
                      f"{', frozen bundle' if frozen else ''}")
        if _version().startswith("unknown"):
            raise CheckFailed("the playtrace package metadata (its entry points) is missing")
        entries = engine.registry.entries()
        if not entries:
            raise CheckFailed("no game is registered (the playtrace.games entry points are missing)")
        detail.append(f"{len(entries)} games registered")
    with report.check("assets") as detail:
        fonts = sorted(p.name for p in assets.path("fonts").glob("*.ttf"))
        if not fonts:
            raise CheckFailed(f"no font in {assets.path('fonts')}")
        if not assets.path("prices.json").is_file():
            raise CheckFailed(f"{assets.path('prices.json')} is missing")
        detail.append(f"{len(fonts)} fonts, price table")
    with report.check("qt") as detail:
        detail.append(f"platform {_ensure_gui()}")
        from PySide6 import QtCore

        detail.append(f"Qt {QtCore.qVersion()}")
    with report.check("app") as detail:
        # The window's modules (widgets, plots, the event-loop bridge) load: what opening the app needs.
        import desktop.main_window  # noqa: F401

        detail.append("window modules load")


def _distinct_colours(image: QImage, samples: int = 24) -> int:
    """How many colours a grid of ``samples``² points of ``image`` shows (1: a blank image)."""
    width, height = image.width(), image.height()
    return len({
        image.pixel((2 * i + 1) * width // (2 * samples), (2 * j + 1) * height // (2 * samples))
        for i in range(samples)
        for j in range(samples)
    })


def _check_draw(report: _Report, game_id: str) -> None:
    import engine
    import renderers

    with report.check(f"{game_id} draw") as detail:
        game = engine.make(game_id)
        state = game.initial_state(seed=0)
        renderer = renderers.get(game_id)
        image = renderer.render(state, *DRAW_SIZE)
        if image.isNull() or (image.width(), image.height()) != DRAW_SIZE:
            want = "×".join(map(str, DRAW_SIZE))
            raise CheckFailed(f"the image is {image.width()}×{image.height()}, not {want}")
        if _distinct_colours(image) < 2:
            raise CheckFailed("the board is drawn in a single colour")
        kind = type(renderer).__name__ if renderers.has(game_id) else "the text fallback"
        detail.append(f"{DRAW_SIZE[0]}×{DRAW_SIZE[1]} by {kind}")


def _play(
    report: _Report, name: str, game_id: str, specs: list[str], root: Path, max_steps: int,
    *, opponent: bool = False,
) -> None:
    """Play ``game_id`` with ``specs`` on the app's event loop (:func:`desktop.qt_app.run`, the loop
    the window runs on, so a bot's worker thread meets what it meets in the app), record it, read the
    session back and rebuild its last state. With ``opponent``, the second seat's player is named in
    the report, and a player whose label changed into another while playing (a bot that fell back from
    an engine that failed) fails the check; a label that only grows (an engine naming its version) is
    the same player."""
    from desktop import qt_app
    from desktop.episode import png_renderer, start_episode
    from sessions import load_session

    with report.check(name) as detail:
        episode = start_episode(
            game_id, specs, root=root, seed=0, max_steps=max_steps, render=png_renderer(game_id, 256),
            model_options={"latency": 0}, title=f"self-test {game_id} {' '.join(specs)}",
        )
        players = episode.match.players
        before = [p.label for p in players]
        result = qt_app.run(episode.run())
        if result.status not in ("completed", "max_steps"):
            raise CheckFailed(f"the game ended as {result.status!r} after {result.steps} steps")
        if opponent:
            label = players[1].label
            if not label.startswith(before[1]):  # "Stockfish" may become "Stockfish 16", not another
                raise CheckFailed(f"the default opponent {specs[1]!r} ({before[1]}) became {label!r}")
            detail.append(f"against {specs[1]} ({label})")
        session = load_session(episode.path)
        if session.game_id != game_id or len(session.steps) != result.steps:
            raise CheckFailed(
                f"the session read back holds {session.game_id} with {len(session.steps)} steps, "
                f"not {game_id} with {result.steps}"
            )
        rebuilt = session.state_at(len(session.steps))
        if rebuilt.to_json() != result.final_state.to_json():
            raise CheckFailed("the last state rebuilt from the session differs from the state played")
        detail.append(f"{result.steps} steps, {result.status}, session written and read back")


def _check_play(report: _Report, game_id: str, spec: str, root: Path, max_steps: int) -> None:
    _play(report, f"{game_id} {spec}", game_id, [spec], root, max_steps)


def _check_opponent(report: _Report, game_id: str, root: Path, max_steps: int) -> None:
    """The simulated model against the game's default opponent in every other seat (the opponent a
    new game offers: Stockfish in chess where it is installed), long enough for the opponent to act."""
    import engine

    try:
        game = engine.make(game_id)
    except Exception:  # noqa: BLE001  (the check below reports it)
        seats, opponent = 2, "random"
    else:
        seats, opponent = game.num_seats, type(game).default_opponent
        if seats < 2:
            return  # a one-seat game has no opponent
    steps = max(max_steps, 2 * seats)
    _play(report, f"{game_id} opponent", game_id, ["sim"] + [opponent] * (seats - 1), root, steps,
          opponent=True)


def self_test(
    out: TextIO | None = None,
    *,
    games: Callable[[], Iterable[GameEntry]] | None = None,
    max_steps: int = MAX_STEPS,
) -> int:
    """Run every check, print one line each and a verdict; returns 0 when none failed, else 1.

    Args:
        out: Where the lines go (standard output by default).
        games: The registry entries to check (default: every game the registry finds).
        max_steps: Steps played per game and player.
    """
    out = out if out is not None else sys.stdout
    report = _Report(out)
    started = time.perf_counter()
    print("PlayTrace self-test", file=out, flush=True)
    _check_install(report)
    if games is None:
        import engine

        games = engine.registry.entries
    with tempfile.TemporaryDirectory(prefix="playtrace-self-test-") as tmp:
        for entry in games():
            if not entry.available:
                hint = f" (install with: {entry.install})" if entry.install else ""
                report.skip(entry.id, f"unavailable here: {entry.problem}{hint}")
                continue
            _check_draw(report, entry.id)
            for spec in PLAYERS:
                _check_play(report, entry.id, spec, Path(tmp), max_steps)
            _check_opponent(report, entry.id, Path(tmp), max_steps)
    elapsed = time.perf_counter() - started
    verdict = "PASSED" if report.failed == 0 else "FAILED"
    print(
        f"self-test {verdict}: {report.passed} passed, {report.failed} failed, {report.skipped} skipped "
        f"in {elapsed:.1f} s",
        file=out,
        flush=True,
    )
    return 0 if report.failed == 0 else 1
