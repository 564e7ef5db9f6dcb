"""``playtrace vgdl``: VGDL games: check a game file, print the GVGAI-LLM tables.

* ``playtrace vgdl check GAME_FILE [LEVEL_FILE ...]`` reads a VGDL game file and its levels (by default
  ``<game>_lvl0.txt`` beside it) and prints what it found: the avatar's actions, each level's size,
  avatar and legend. A file that does not parse is reported with its line, exit code 2.
* ``playtrace vgdl coverage DIR`` runs every game of a folder of GVGAI games (``<game>.txt`` beside
  ``<game>_lvl0.txt``) for 100 random steps on level 0 and prints which run; a game that does not says
  why, with its file and line. Exit code 1 when any does not run.
* ``playtrace vgdl report DIR ...`` reads recorded VGDL sessions (folders of session folders, or
  session folders) and prints GVGAI-LLM's tables: per game and level and player the win rate,
  normalised reward, meaningful-step ratio, step efficiency and overall score; per player the same
  over all its episodes; and the win rate per player and game (the paper's Table 3). Rewards and
  scores are normalised over the sessions read; the population is printed under the tables.

The metrics are the game's own (``.metrics`` of the game's package, reached through the registry);
a session of a game without them is skipped with a note.
"""

from __future__ import annotations

import argparse
import json
import statistics
import textwrap
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from desktop.cli.common import EXIT_OK, EXIT_USAGE, UsageError, compact_table, err, one_line, stdout_console

COMMAND = "vgdl"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(COMMAND, parents=[common],
                       help="VGDL games: check a game file, print the GVGAI-LLM tables",
                       description="Check VGDL game and level files, or print GVGAI-LLM's result tables "
                       "(win rate, normalised reward, meaningful-step ratio, step efficiency, overall "
                       "score) from recorded sessions.")
    verbs = p.add_subparsers(dest="vgdl_command", metavar="ACTION")
    check = verbs.add_parser("check", parents=[common], help="parse a game file and its levels",
                             description="Parse a VGDL game file and level files and print a summary, "
                             "or the first error with its file and line (exit code 2).")
    check.add_argument("game_file", type=Path, metavar="GAME_FILE")
    check.add_argument("level_files", type=Path, nargs="*", metavar="LEVEL_FILE",
                       help="levels to check (default: GAME_lvl0.txt beside the game file)")
    coverage = verbs.add_parser("coverage", parents=[common], help="which games of a folder run",
                                description="Run every VGDL game of a folder (GAME.txt beside GAME_lvl0.txt) "
                                "with random actions and print which run; those that do not say why, with "
                                "their file and line (exit code 1 when any does not run).")
    coverage.add_argument("folder", type=Path, metavar="DIR")
    coverage.add_argument("--steps", type=int, default=100, help="random steps per game (default 100)")
    coverage.add_argument("--level", type=int, default=0, help="which level (default 0)")
    coverage.add_argument("--seed", type=int, default=0, help="the random seed (default 0)")
    report = verbs.add_parser("report", parents=[common], help="GVGAI-LLM tables from recorded sessions",
                              description="Read VGDL sessions and print the paper's tables, normalised "
                              "over every session read.")
    report.add_argument("folders", type=Path, nargs="+", metavar="DIR",
                        help="a folder of sessions (e.g. playtrace run --out DIR) or one session")
    report.add_argument("--one-step", action="store_true",
                        help="count meaningful steps with the reference code's one-step look-back "
                        "instead of the paper's four-step window")
    report.add_argument("--efficiency", choices=("wins", "all"), default="wins",
                        help="step efficiency over winning episodes (the paper's formula, default) or "
                        "over all episodes (as the published columns seem to be)")
    report.add_argument("--json", action="store_true", help="print the tables as JSON")


def run(args: argparse.Namespace) -> int:
    command = getattr(args, "vgdl_command", None)
    if command == "check":
        return check(args.game_file, args.level_files)
    if command == "coverage":
        return coverage(args.folder, steps=args.steps, level=args.level, seed=args.seed)
    if command == "report":
        return report(args.folders, one_step=args.one_step, wins_only=args.efficiency == "wins",
                      as_json=args.json)
    raise UsageError("say what to do: playtrace vgdl check GAME_FILE [LEVEL_FILE...] | "
                     "playtrace vgdl coverage DIR | playtrace vgdl report DIR...")


# -- check -------------------------------------------------------------------------------------------


def check(game_file: Path, level_files: Sequence[Path]) -> int:
    """Parse ``game_file`` with each level (its ``_lvl0`` level by default) and print a summary."""
    from engine import registry

    if not game_file.is_file():
        err(f"{game_file}: the game file does not exist")
        return EXIT_USAGE
    levels = list(level_files) or [game_file.with_name(f"{game_file.stem}_lvl0.txt")]
    console = stdout_console()
    for i, level in enumerate(levels):
        try:
            game = registry.make("vgdl", game_file=str(game_file), level_file=str(level))
            state = game.initial_state(seed=0)
        except Exception as exc:  # noqa: BLE001  (a parse error is the answer, never a traceback)
            err(one_line(exc))
            return EXIT_USAGE
        if i == 0:
            console.print(f"{game_file.name}: a VGDL game", soft_wrap=True)
            _wrapped(console, "  actions: ", [f"{k}: {a}" for k, a in enumerate(state.legal_actions())])
            rules = [line for line in game.rules_text().splitlines() if line.strip() and line[0] not in "=#"]
            if rules:
                console.print(f"  rules in words: {len(rules)} lines", soft_wrap=True)
        rows = getattr(state, "ascii_rows", ())
        legend = getattr(state, "legend", {})
        pos = getattr(state, "avatar_pos", None)
        width = max((len(r) for r in rows), default=0)
        where = f"avatar at (row {pos[0]}, col {pos[1]})" if pos is not None else "no avatar"
        console.print(f"  level {level.name}: {len(rows)} rows x {width} columns, {where}", soft_wrap=True)
        if legend:
            _wrapped(console, "    legend: ", [f"{ch} {name}" for ch, name in legend.items()])
    warnings = registry.declaration("vgdl").load(".coverage:file_warnings")(game_file)
    for line in warnings:
        console.print(f"  note: {line}", soft_wrap=True)
    console.print(f"OK: {len(levels)} level(s) parsed" + (f", {len(warnings)} note(s)" if warnings else ""))
    return EXIT_OK


# -- coverage ----------------------------------------------------------------------------------------


def coverage(folder: Path, *, steps: int, level: int, seed: int) -> int:
    """Run every game of ``folder`` and print which run (see the module docstring)."""
    import sys

    from engine import registry

    if not folder.is_dir():
        err(f"{folder}: no such folder")
        return EXIT_USAGE
    if steps < 1 or level < 0:
        raise UsageError("--steps must be at least 1 and --level at least 0")
    declaration = registry.declaration("vgdl")
    run_folder = declaration.load(".coverage:run_folder")
    console = stdout_console()

    def progress(done: int, total: int, name: str) -> None:
        if sys.stderr.isatty():
            sys.stderr.write(f"\r[{done + 1}/{total}] {name:<24}")
            sys.stderr.flush()

    runs = list(run_folder(folder, level=level, steps=steps, seed=seed, progress=progress))
    if sys.stderr.isatty():
        sys.stderr.write("\r" + " " * 40 + "\r")
    if not runs:
        err(f"{folder}: no game files (GAME.txt beside GAME_lvl0.txt)")
        return EXIT_USAGE
    for r in runs:
        if r.ok:
            end = "" if r.won is None else (" (won)" if r.won else " (lost)")
            notes = f", {r.warnings} note(s)" if r.warnings else ""
            console.print(f"runs   {r.name:<22} {r.steps:>4} steps, score {r.score:g}{end}{notes}",
                          soft_wrap=True)
        else:
            console.print(f"FAILS  {r.name:<22} {r.error}", soft_wrap=True)
    ok = sum(r.ok for r in runs)
    console.print(f"{ok} of {len(runs)} games run {steps} random steps on level {level}")
    return EXIT_OK if ok == len(runs) else 1


def _wrapped(console: Any, head: str, items: Sequence[str]) -> None:
    """``head`` and the ``items`` (joined by commas, never split) wrapped at 80 columns."""
    line, indent = head, " " * len(head)
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if line.strip() and line != head and len(line) + 1 + len(piece) > 80:
            console.print(line.rstrip(), soft_wrap=True)
            line = indent
        line += ("" if line in (head, indent) else " ") + piece
    console.print(line.rstrip(), soft_wrap=True)


# -- report ------------------------------------------------------------------------------------------


def _session_dirs(folders: Sequence[Path]) -> list[Path]:
    found: list[Path] = []
    for folder in folders:
        if not folder.exists():
            raise UsageError(f"{folder}: no such folder")
        if (folder / "manifest.json").is_file() or (folder / "events.jsonl").is_file():
            found.append(folder)
            continue
        found += sorted(c for c in folder.iterdir()
                        if not c.name.startswith(".") and (c / "manifest.json").is_file())
    return found


def _level_label(options: dict[str, Any]) -> str:
    if "level" in options:
        return str(options["level"])
    level_file = str(options.get("level_file") or "")
    return Path(level_file).stem.rpartition("_lvl")[2] if level_file else "0"


def _game_label(game_id: str, options: dict[str, Any]) -> str:
    game_file = str(options.get("game_file") or "")
    return Path(game_file).stem if game_file else game_id


def load_episodes(folders: Sequence[Path]) -> tuple[list[Any], Any, list[str], Any]:
    """The episode summaries of the finished VGDL sessions in ``folders``, the metrics module's
    ``overall_scores``, one note per session skipped, and the game package's published results
    (its ``published`` module, or ``None``)."""
    import sessions
    from engine import registry

    episodes: list[Any] = []
    scorer: Any = None
    published: Any = None
    skipped: list[str] = []
    for folder in _session_dirs(folders):
        try:
            session = sessions.load_session(folder)
            cls = registry.declaration(session.game_id)
        except Exception as exc:  # noqa: BLE001  (one unreadable session must not hide the others)
            skipped.append(f"{folder.name}: {one_line(exc)}")
            continue
        try:
            summary_cls = cls.load(".metrics:EpisodeSummary")
            if scorer is None:
                scorer = cls.load(".metrics:overall_scores")
                try:
                    published = cls.load(".published:TABLE3")
                except (ImportError, AttributeError):
                    published = None
        except (ImportError, AttributeError):
            skipped.append(f"{folder.name}: not a VGDL session ({session.game_id} has no GVGAI-LLM metrics)")
            continue
        except Exception as exc:  # noqa: BLE001  (one unreadable session must not hide the others)
            skipped.append(f"{folder.name}: {one_line(exc)}")
            continue
        fin = _finished_data(session)
        figures = (fin or {}).get("metrics") or {}
        if fin is None or "meaningful_steps" not in figures:
            skipped.append(f"{folder.name}: not a finished session with VGDL metrics")
            continue
        options = dict(session.manifest.get("options") or {})
        players = session.manifest.get("players") or [{}]
        player = str(players[0].get("spec") or players[0].get("label") or "?")
        try:
            episodes.append(summary_cls.from_dict({
                **figures, "won": bool(figures.get("win")), "total_reward": figures.get("reward", 0.0),
                "max_steps": options.get("max_steps"), "game": _game_label(session.game_id, options),
                "level": _level_label(options), "player": player}))
        except ValueError as exc:
            skipped.append(f"{folder.name}: {one_line(exc)}")
    return episodes, scorer, skipped, published


def _finished_data(session: Any) -> dict[str, Any] | None:
    """The data of the session's ``session_finished`` event (normally its last), or ``None``."""
    if not session.finished:
        return None
    events = session.events
    for i in range(len(events) - 1, -1, -1):
        event = events[i]
        if event.get("type") == "session_finished":
            return dict(event.get("data") or {})
    return None


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _f3(x: float) -> str:
    return f"{x:.3f}"


def report(folders: Sequence[Path], *, one_step: bool = False, wins_only: bool = True,
           as_json: bool = False) -> int:
    episodes, scorer, skipped, published = load_episodes(folders)
    for note in skipped:
        err(f"skipped {note}")
    if not episodes:
        raise UsageError("no finished VGDL sessions found in " + ", ".join(str(f) for f in folders))
    table = scorer(episodes, one_step_rule=one_step, wins_only_efficiency=wins_only)
    players = _per_player(table.rows, episodes, one_step)
    if as_json:
        print(json.dumps({"rows": [asdict(r) for r in table.rows], "players": players,
                          "population": table.population,
                          "published": _published_rows(episodes, published)}, indent=2))
        return EXIT_OK
    console = stdout_console()
    detail = compact_table(title="Per game, level and player", title_justify="left")
    for head, right in (("game", False), ("lvl", True), ("player", False), ("N", True), ("win%", True),
                        ("normR", True), ("M.ratio%", True), ("eff", True), ("score", True)):
        detail.add_column(head, justify="right" if right else "left", no_wrap=head != "player",
                          max_width=20 if head == "player" else None)
    for r in sorted(table.rows, key=lambda r: (r.game, r.level, r.player)):
        detail.add_row(r.game, r.level, r.player, str(r.episodes), _pct(r.win_rate), _f3(r.normalised_reward),
                       _pct(r.meaningful_ratio), _f3(r.step_efficiency), _f3(r.score))
    console.print(detail)
    per = compact_table(title="Per player (means over its game levels)", title_justify="left")
    for head, right in (("player", False), ("episodes", True), ("win%", True), ("reward", True),
                        ("normR", True), ("M.ratio%", True), ("eff", True), ("score", True)):
        per.add_column(head, justify="right" if right else "left", no_wrap=head != "player",
                       max_width=24 if head == "player" else None)
    for p in players:
        per.add_row(p["player"], str(p["episodes"]), _pct(p["win_rate"]), f"{p['mean_reward']:.2f}",
                    _f3(p["normalised_reward"]), _pct(p["meaningful_ratio"]), _f3(p["step_efficiency"]),
                    _f3(p["score"]))
    console.print(per)
    games = sorted({r.game for r in table.rows})
    console.print("Win rate (%) per player and game")
    wins = compact_table()
    wins.add_column("player", no_wrap=False, max_width=18)
    for g in games:
        wins.add_column(g.removeprefix("vgdl-")[:10], justify="right", no_wrap=True)
    for p in players:
        cells = []
        for g in games:
            eps = [e for e in episodes if e.game == g and e.player == p["player"]]
            cells.append(_pct(statistics.fmean(float(e.won) for e in eps)) if eps else "-")
        wins.add_row(p["player"], *cells)
    console.print(wins)
    beside = _published_rows(episodes, published)
    if beside:
        console.print(f"Win rate (%) on the paper's core games: ours beside {published.SOURCE}")
        paper = compact_table()
        paper.add_column("agent", no_wrap=False, max_width=28)
        paper.add_column("N", justify="right", no_wrap=True)
        for g in published.GAMES:
            paper.add_column(g[:7], justify="right", no_wrap=True)
        for row in beside:
            paper.add_row(row["agent"], str(row["episodes"]) if row["episodes"] is not None else "",
                          *("-" if v is None else f"{v:.1f}" for v in row["win_rates"]))
        console.print(paper)
        mapping = "Our bots for the paper's planners: " + ", ".join(
            f"{bot} for {agent}" for agent, bot in published.PLANNER_BOTS.items()) + "."
        for line in textwrap.wrap(mapping, width=80, break_on_hyphens=False, break_long_words=False):
            console.print(line, soft_wrap=True)
    pop = table.population
    notes = [f"Normalised over {pop['episodes']} episodes in {pop['rows']} (player, level) rows: players "
             f"{', '.join(pop['players'])}; levels {', '.join(pop['levels'])}.",
             f"Meaningful steps: {pop['meaningful_rule']} rule; step efficiency over {pop['efficiency']}; "
             "score = mean of the min-max normalised meaningful ratio, steps (inverted), reward and win "
             "rate. A level played by one episode only has a normalised reward of 0."]
    for note in notes:
        for line in textwrap.wrap(note, width=80, break_on_hyphens=False, break_long_words=False):
            console.print(line, soft_wrap=True)
    return EXIT_OK


def _published_rows(episodes: Sequence[Any], published: Any) -> list[dict[str, Any]]:
    """The paper's table of win rates with our measured rows first (``[]`` when no episode is of one
    of its games): per agent its label, our episode count (``None`` for the paper's rows) and a win
    rate in percent per game (``None`` where we have no episode), and for our bots the paper's planner
    it plays (``stands_for``)."""
    if published is None or not any(e.game in published.GAMES for e in episodes):
        return []
    stands_for = {bot: agent for agent, bot in published.PLANNER_BOTS.items()}
    rows: list[dict[str, Any]] = []
    for player in sorted({e.player for e in episodes if e.game in published.GAMES}):
        mine = [e for e in episodes if e.player == player and e.game in published.GAMES]
        cells: list[float | None] = []
        for g in published.GAMES:
            eps = [e for e in mine if e.game == g]
            cells.append(100 * statistics.fmean(float(e.won) for e in eps) if eps else None)
        rows.append({"agent": f"ours: {player}", "episodes": len(mine), "win_rates": cells,
                     "stands_for": stands_for.get(player)})
    for agent, values in published.WIN_RATES.items():
        rows.append({"agent": f"paper: {agent}", "episodes": None, "win_rates": list(values),
                     "stands_for": None})
    return rows


def _per_player(rows: Sequence[Any], episodes: Sequence[Any], one_step: bool) -> list[dict[str, Any]]:
    out = []
    for player in sorted({r.player for r in rows}):
        mine = [r for r in rows if r.player == player]
        eps = [e for e in episodes if e.player == player]
        out.append({
            "player": player, "episodes": len(eps),
            "win_rate": statistics.fmean(r.win_rate for r in mine),
            "mean_reward": statistics.fmean(r.mean_reward for r in mine),
            "normalised_reward": statistics.fmean(r.normalised_reward for r in mine),
            "meaningful_ratio": statistics.fmean(r.meaningful_ratio for r in mine),
            "step_efficiency": statistics.fmean(r.step_efficiency for r in mine),
            "score": statistics.fmean(r.score for r in mine),
        })
    return out
