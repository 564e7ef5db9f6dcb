"""``playtrace tournament``: the command-line front end of :mod:`engine.tournament`.

``playtrace tournament GAME [GAME ...] --player A --player B [...] --matches 20`` plays a round-robin
(every pair, each side moving first half the time), records every match as a session in the output
folder (:func:`desktop.episode.session_recorder`, tagged with the tournament's id, the pair and the
match), shows a progress bar on a terminal, prints the per-player and per-question tables, and writes
``results.csv`` (one row per player and game, plus a row per player over all games),
``questions.csv`` (one row per player, game and intermediate question) and ``results.md`` (the
paper's Tables 2 and 3 and the (S + I) / 2 ranking, best values in bold).

``playtrace tournament report DIR`` rebuilds the same tables from the sessions saved in ``DIR``.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop.cli.common import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    UsageError,
    compact_table,
    err,
    one_line,
    parse_game_options,
    stdout_console,
    until_sigterm,
)
from engine.llm.factory import public_spec
from engine.safeio import InputError
from engine.tournament import (
    MatchRecord,
    Progress,
    ScoreTable,
    TournamentPlan,
    TournamentResult,
    TournamentRunner,
    build_table,
    record_from_session,
)
from sessions import read_manifest

log = logging.getLogger("playtrace.cli")

#: How a missing value is shown (the paper's "–").
DASH = "–"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add the ``tournament`` subcommand to the ``playtrace`` parser."""
    p = sub.add_parser(
        "tournament", parents=[common], help="play a round-robin and score it the GameBot way",
        usage="playtrace tournament GAME [GAME ...] --player A --player B [...] [options]\n"
              "       playtrace tournament report DIR",
        description="Every pair of players plays M matches of each game, each side moving first in half "
        "of them; every match is saved as a session. Prints and writes (results.csv, questions.csv, "
        "results.md) the outcome score per player (s1 = (W-L)/N, or the scaled s2 of value games), the "
        "intermediate score per question and game, and (S + I) / 2. `playtrace tournament report DIR` "
        "rebuilds the tables from the sessions in DIR.")
    p.add_argument("games", nargs="+", metavar="GAME", help="game id(s), or `report DIR`")
    p.add_argument("--player", "-p", action="append", default=[], metavar="SPEC",
                   help="a player (at least two): random, a bot, default (each game's default opponent), "
                   "sim, sim:NAME, openai:MODEL, anthropic:MODEL, local:MODEL@URL")
    p.add_argument("--matches", "-m", type=int, default=20, metavar="M",
                   help="matches per pair and game (default 20, as in the paper)")
    p.add_argument("--concurrency", "-j", type=int, default=4, metavar="N", help="matches played at once")
    p.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="match k of a game is seeded S+k")
    p.add_argument("--option", action="append", default=[], metavar="[GAME:]KEY=VALUE",
                   help="a game option (name the game when several are played)")
    p.add_argument("--max-steps", type=int, default=None, metavar="N", help="stop a match after N steps")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="where sessions and results go (default: the user-data tournaments/ID folder)")
    p.add_argument("--json", action="store_true", help="print the tables as JSON")
    place = p.add_argument_group("placement (rate a new player in few matches)")
    place.add_argument("--place", default=None, metavar="PLAYER",
                       help="instead of a round-robin, play PLAYER against the opponent whose result is "
                       "least certain (OpenSkill), round after round; the other --player values are the pool")
    place.add_argument("--rounds", type=int, default=6, metavar="N",
                       help="placement rounds, each a pair of matches with the seats swapped (default 6)")
    place.add_argument("--ratings-from", action="append", type=Path, default=[], metavar="DIR",
                       help="sessions whose matches the ratings start from (e.g. earlier round-robins)")
    p.add_argument("--id", dest="tournament_id", default=None, metavar="ID",
                   help="report: only the sessions of this tournament")
    p.add_argument("--all", dest="all_sessions", action="store_true",
                   help="report: also two-player sessions not played in a tournament")
    models = p.add_argument_group("model players (sim, openai, anthropic, local)")
    models.add_argument("--prompt-variant", default=None, metavar="NAME",
                        help="the prompt variant, e.g. cot, naive or none (GameBot's games)")
    models.add_argument("--temperature", type=float, default=None, metavar="T")
    models.add_argument("--timeout", dest="timeout_s", type=float, default=None, metavar="S")
    models.add_argument("--reask", choices=("feedback", "same", "none"), default=None,
                        help="how an unusable answer is asked again (as playtrace run)")
    models.add_argument("--action-format", choices=("text", "json", "tools"), default=None,
                        help="how the model gives its move: text, json or tools (as playtrace run)")
    models.add_argument("--retries", type=int, default=None, metavar="K",
                        help="re-asks after an unparsable or illegal answer")
    models.add_argument("--fallback", choices=("random", "noop", "forfeit"), default=None,
                        help="what happens when the re-asks run out")
    models.add_argument("--no-reflection", dest="reflection", action="store_false", default=None)
    models.add_argument("--memory", type=int, default=None, metavar="N", help="steps remembered (0 = off)")
    models.add_argument("--sim-latency", type=float, default=None, metavar="S",
                        help="seconds between the simulated model's streamed chunks (0: no waiting)")


# -- planning ------------------------------------------------------------------------------------------


def _model_options(args: argparse.Namespace) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    for name in ("temperature", "timeout_s", "reflection", "memory", "action_format"):
        if getattr(args, name) is not None:
            opts[name] = getattr(args, name)
    if args.sim_latency is not None:
        if args.sim_latency < 0:
            raise UsageError("--sim-latency must be at least 0")
        opts["latency"] = args.sim_latency
    policy = {k: v for k, v in (("reask", args.reask), ("retries", args.retries), ("fallback", args.fallback))
              if v is not None}
    if policy:
        opts["invalid_policy"] = policy
    return opts


def _options(games: Sequence[str], values: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``--option`` values per game: ``KEY=VALUE`` for the only game, or ``GAME:KEY=VALUE``."""
    given: dict[str, list[str]] = {g: [] for g in games}
    for value in values:
        head, eq, _ = value.partition("=")
        game, colon, _key = head.partition(":")
        if eq and colon and game in given:
            given[game].append(value.split(":", 1)[1])
        elif len(games) == 1:
            given[games[0]].append(value)
        else:
            raise UsageError(f"--option {value}: name the game it is for, e.g. {games[0]}:{value}")
    return {g: parse_game_options(g, v) for g, v in given.items()}


def plan_from_args(args: argparse.Namespace) -> TournamentPlan:
    """Check the command line and build the plan; every mistake is a :class:`UsageError`."""
    from desktop.cli.run import _validate_specs

    if args.matches < 1:
        raise UsageError("--matches must be at least 1")
    if args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if args.max_steps is not None and args.max_steps < 1:
        raise UsageError("--max-steps must be at least 1")
    specs = [s.strip() for s in args.player]
    if len(specs) < 2:
        raise UsageError("a round-robin needs at least two --player values")
    _validate_specs(specs)
    games = list(dict.fromkeys(args.games))
    options = _options(games, args.option)
    model_options = _model_options(args)
    try:
        plan = TournamentPlan(
            games, specs, matches=args.matches, seed=args.seed, options=options,
            model_options=model_options, prompt_variant=args.prompt_variant,
            concurrency=args.concurrency, max_steps=args.max_steps,
        )
        plan.check()
    except ValueError as exc:
        raise UsageError(one_line(exc)) from None
    _try_players(plan)
    return plan


def _try_players(plan: TournamentPlan) -> None:
    """Seat every player once in every game, so a bad spec fails before any session is written."""
    from engine.batch import close_players
    from engine.roster import is_model_spec, make_player

    built = []
    try:
        for game_id in plan.games:
            game = plan.make_game(game_id)
            for player in plan.players:
                spec = plan.spec_for(game, player)
                opts = dict(plan.model_options) if is_model_spec(spec) else {}
                built.append(make_player(spec, game, seed=0, **opts))
    except Exception as exc:  # noqa: BLE001  (any failure to seat a player is the user's to fix)
        raise UsageError(one_line(exc)) from None
    finally:
        asyncio.run(close_players(built))


def default_folder(tournament_id: str) -> Path:
    """Where a tournament's sessions and results go by default."""
    from sessions.paths import user_data_dir

    return user_data_dir() / "tournaments" / tournament_id


# -- the command ---------------------------------------------------------------------------------------


def cmd_tournament(args: argparse.Namespace) -> int:
    """``playtrace tournament``: play (or, with ``report DIR``, rebuild) and print the tables."""
    if args.games[0] == "report":
        return cmd_report(args)
    if getattr(args, "place", None):
        return cmd_place(args)
    plan = plan_from_args(args)
    out = args.out if args.out is not None else default_folder(plan.id)
    from desktop.cli.run import _check_writable

    problem = _check_writable(out)
    if problem is not None:
        err(problem)
        return EXIT_FAILURE
    from desktop.episode import session_recorder

    def record(match: Any, tags: Any) -> Any:
        lineup = " vs ".join(map(public_spec, tags["players"]))
        title = f"Round-robin {plan.id}: {lineup}, match {tags['match'] + 1}"
        return session_recorder(out, title=title, extra={"tournament": dict(tags)})(match)

    bar = _Bar(len(plan.fixtures()), enabled=sys.stderr.isatty() and not args.json)
    runner = TournamentRunner(plan, record=record, on_progress=bar.update, on_notice=bar.log)
    terminated: list[int] = []
    try:
        with bar:
            asyncio.run(until_sigterm(runner.run(), terminated))
    except (KeyboardInterrupt, asyncio.CancelledError):
        runner.result.interrupted = True
    result = runner.result
    table = result.table()
    paths = write_results(table, out, title=_title(plan))
    if args.json:
        print(json.dumps({"id": plan.id, "out": str(out), "interrupted": result.interrupted,
                          "matches": result.total, "done": result.done, "errors": result.errors,
                          **table.to_data()}, indent=2))
    else:
        console = stdout_console()
        console.print(_title(plan), soft_wrap=True)
        console.print(f"sessions and results in {out}", soft_wrap=True)
        print_tables(table, console)
        console.print("wrote " + ", ".join(p.name for p in paths), soft_wrap=True)
    print(_final_line(result), file=sys.stderr)
    if result.model_unusable:
        err(f"stopped: {result.model_unusable} (a run error: those matches were not ranked; fix the key or "
            "model name and run again)")
    if result.interrupted:
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    return EXIT_FAILURE if result.errors or result.model_unusable else EXIT_OK


def cmd_place(args: argparse.Namespace) -> int:
    """``playtrace tournament GAME --place PLAYER -p A -p B ...``: placement by least certain result.

    Each round rates every match so far (the folder's and ``--ratings-from``'s) and plays PLAYER
    against the pool's player whose result against it is least certain (win chance nearest one half,
    :func:`sessions.ratings.suggest_opponent`), twice with the seats swapped.
    """
    from desktop.cli.run import _check_writable
    from desktop.episode import session_recorder
    from sessions.ratings import load_manifests, matches_from, rate, suggest_opponent

    if len(args.games) != 1:
        raise UsageError("placement plays one game at a time")
    if args.rounds < 1:
        raise UsageError("--rounds must be at least 1")
    newcomer = args.place.strip()
    pool = [s.strip() for s in args.player if s.strip() != newcomer]
    if not pool:
        raise UsageError("placement needs a pool: at least one --player besides --place")
    for folder in args.ratings_from:
        if not folder.is_dir():
            raise UsageError(f"--ratings-from {folder} is not a folder of sessions")
    probe_args = argparse.Namespace(**{**vars(args), "player": [newcomer, *pool], "matches": 2})
    base = plan_from_args(probe_args)
    game = base.games[0]
    out = args.out if args.out is not None else default_folder(base.id)
    problem = _check_writable(out)
    if problem is not None:
        err(problem)
        return EXIT_FAILURE
    out.mkdir(parents=True, exist_ok=True)
    console = stdout_console()
    errors = 0
    for round_ in range(args.rounds):
        history = [m for m in matches_from(load_manifests([out, *args.ratings_from])) if m.game == game]
        opponent, chance = suggest_opponent(newcomer, history, pool)
        plan = TournamentPlan(
            [game], [newcomer, opponent], matches=2, seed=args.seed + 2 * round_, options=base.options,
            model_options=base.model_options, prompt_variant=base.prompt_variant,
            concurrency=min(2, args.concurrency), max_steps=args.max_steps, id=base.id,
        )

        def record(match: Any, tags: Any, plan: TournamentPlan = plan, round_: int = round_) -> Any:
            title = f"Placement {plan.id}: {' vs '.join(tags['players'])}, round {round_ + 1}"
            return session_recorder(out, title=title, extra={"tournament": dict(tags)})(match)

        runner = TournamentRunner(plan, record=record)
        try:
            asyncio.run(runner.run())
        except (KeyboardInterrupt, asyncio.CancelledError):
            err("placement interrupted")
            return EXIT_INTERRUPTED
        errors += runner.result.errors
        console.print(f"round {round_ + 1}: {newcomer} vs {opponent} (predicted win chance {chance:.0%}), "
                      f"{runner.result.done} matches", soft_wrap=True)
    final = {s.player: s for s in rate([m for m in matches_from(load_manifests([out, *args.ratings_from]))
                                        if m.game == game])}
    me = final.get(newcomer)
    if me is not None:
        console.print(f"{newcomer}: rating {me.mu:.1f} (90% interval {me.low:.1f} – {me.high:.1f}) after "
                      f"{me.games} matches; sessions in {out}", soft_wrap=True)
    return EXIT_FAILURE if errors else EXIT_OK


def _title(plan: TournamentPlan) -> str:
    games = ", ".join(plan.games)
    n = len(plan.pairs())
    per_pair = f"{plan.matches} match{'es' if plan.matches != 1 else ''} per pair"
    shown = ", ".join(public_spec(p) for p in plan.players)
    return (f"Round-robin {plan.id} · {games} · {shown} · {per_pair} "
            f"({n} pair{'s' if n != 1 else ''}) · seed {plan.seed}")


def _final_line(result: TournamentResult) -> str:
    state = "interrupted" if result.interrupted else "done"
    return (f"playtrace tournament {state}: {result.done}/{result.total} matches, {result.errors} errors, "
            f"{result.elapsed_s:.1f} s")


def cmd_report(args: argparse.Namespace) -> int:
    """``playtrace tournament report DIR``: rebuild the tables from the sessions saved in DIR."""
    if len(args.games) != 2:
        raise UsageError("usage: playtrace tournament report DIR")
    folder = Path(args.games[1])
    if not folder.is_dir():
        err(f"{folder} is not a folder")
        return EXIT_FAILURE
    records, ids, skipped = load_records(folder, tournament_id=args.tournament_id, every=args.all_sessions)
    if not records:
        err(f"no tournament sessions in {folder}" + (" (try --all)" if not args.all_sessions else ""))
        return EXIT_FAILURE
    tid = args.tournament_id
    table = build_table(records, games=_tagged(folder, "games", tid), players=_tagged(folder, "roster", tid))
    paths = write_results(table, folder, title=f"Round-robin {', '.join(ids) or '(sessions)'}")
    if args.json:
        print(json.dumps({"out": str(folder), "tournaments": ids, "matches": len(records),
                          "skipped": skipped, **table.to_data()}, indent=2))
        return EXIT_OK
    console = stdout_console()
    console.print(f"{len(records)} matches from {folder}"
                  + (f" (tournament{'s' if len(ids) != 1 else ''} {', '.join(ids)})" if ids else ""),
                  soft_wrap=True)
    if len(ids) > 1:
        console.print("note: several tournaments are scored together; --id ID keeps one")
    for line in skipped:
        print(f"skipped {line}", file=sys.stderr)
    print_tables(table, console)
    console.print("wrote " + ", ".join(p.name for p in paths), soft_wrap=True)
    return EXIT_OK


def _tagged(folder: Path, key: str, tournament_id: str | None) -> list[str]:
    """The games or roster (``key``) recorded in the tournament tags of the sessions in ``folder`` (of
    ``tournament_id`` when given), in the order the tournaments listed them (the tables follow it)."""
    out: list[str] = []
    for child in sorted(folder.iterdir()):
        try:
            manifest = read_manifest(child / "manifest.json")
        except (OSError, ValueError, InputError):
            continue
        if not isinstance(manifest, dict):
            continue
        tags = (manifest.get("extra") or {}).get("tournament") or {}
        if tournament_id is not None and tags.get("id") != tournament_id:
            continue
        listed = tags.get(key) or []
        out += [str(x) for x in listed if str(x) not in out]
    return out


def load_records(
    folder: Path, *, tournament_id: str | None = None, every: bool = False
) -> tuple[list[MatchRecord], list[str], list[str]]:
    """The match records of the sessions in ``folder``: those of a tournament (of ``tournament_id``
    when given), or every two-seat session with ``every``. Returns the records, the tournament ids
    met and one line per session that could not be read."""
    import sessions

    records: list[MatchRecord] = []
    ids: list[str] = []
    skipped: list[str] = []
    for child in sorted(folder.iterdir()):
        if child.name.startswith(".") or not (child / "manifest.json").is_file():
            continue
        try:
            manifest = read_manifest(child / "manifest.json")
            if not isinstance(manifest, dict):
                raise ValueError("manifest.json is not a JSON object")
            tags = (manifest.get("extra") or {}).get("tournament") or {}
            if not tags and not every:
                continue
            if tournament_id is not None and tags.get("id") != tournament_id:
                continue
            session = sessions.load_session(child)
            record = record_from_session(session.manifest, session.events, game=session.game())
        except Exception as exc:  # noqa: BLE001  (one unreadable session must not hide the others)
            skipped.append(f"{child.name}: {one_line(exc)}")
            continue
        if record is None:
            continue
        record.session = str(child)
        records.append(record)
        if tags.get("id") and tags["id"] not in ids:
            ids.append(str(tags["id"]))
    return records, ids, skipped


# -- progress ------------------------------------------------------------------------------------------


class _Bar:
    """A rich progress bar on stderr (redrawn four times a second) when it is a terminal."""

    def __init__(self, total: int, *, enabled: bool) -> None:
        self.total, self.enabled = total, enabled
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> _Bar:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                TextColumn("matches"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                TextColumn("{task.fields[last]}"),
                console=Console(stderr=True), refresh_per_second=4, transient=False,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task("tournament", total=self.total, last="")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(None, None, None)

    def update(self, progress: Progress) -> None:
        if self._progress is None or progress.kind != "finished" or progress.record is None:
            return
        last = f"{progress.fixture.game_id}: {progress.record.summary()}"
        self._progress.update(self._task, completed=progress.done, last=last)

    def log(self, message: str) -> None:
        if self._progress is not None:
            self._progress.console.print(message, markup=False, highlight=False)
        else:
            print(message, file=sys.stderr)


# -- tables ----------------------------------------------------------------------------------------------


def fmt(value: float | None, digits: int = 2) -> str:
    """A score as the paper prints it (``0.42``, ``-0.17``), or "–" when there is none."""
    return DASH if value is None else f"{value:.{digits}f}"


def standing_score(table: ScoreTable, game_id: str, player: str) -> str:
    s = table.standing(game_id, player)
    if s is None:
        return ""
    return DASH if s.dash else fmt(s.score)


def print_tables(table: ScoreTable, console: Any) -> None:
    """The per-player table (per game: matches, W/D/L, outcome and intermediate scores), the ranking
    by (S + I) / 2 and the per-question table, laid out for 80 columns."""
    detail = compact_table(title="Per player and game", title_justify="left")
    for head, right in (("player", False), ("game", False), ("N", True), ("W", True), ("D", True),
                        ("L", True), ("forf", True), ("inv", True), ("outcome", True), ("interm", True)):
        detail.add_column(head, justify="right" if right else "left", no_wrap=True)
    for game_id in table.games:
        for player in table.players:
            s = table.standing(game_id, player)
            if s is None:
                continue
            detail.add_row(player, game_id, str(s.played), str(s.wins), str(s.draws), str(s.losses),
                           str(s.forfeits), str(s.invalid), standing_score(table, game_id, player),
                           fmt(s.intermediate))
    console.print(detail)
    console.print("outcome: s1 = (W-L)/N, or s2 scaled to a best of 0.50 in value games", soft_wrap=True)
    if any(s.dash for s in table.standings.values()):
        console.print(f"{DASH}: forfeited most of its matches; counts -0.5 in S", soft_wrap=True)
    ranking = compact_table(title="Ranking", title_justify="left")
    for head in ("#", "player", "S", "I", "(S+I)/2"):
        ranking.add_column(head, justify="left" if head == "player" else "right", no_wrap=True)
    for rank, t in enumerate(table.ranking, 1):
        ranking.add_row(str(rank), f"{t.player}" + (f" ({t.label})" if t.label != t.player else ""),
                        fmt(t.outcome), fmt(t.intermediate), fmt(t.final, 3))
    console.print(ranking)
    rows = [(s, q) for s in table.standings.values() for q in s.questions]
    if not rows:
        console.print("no intermediate questions were checked (no model player, or a prompt without them)")
        return
    questions = compact_table(title="Intermediate questions", title_justify="left")
    for head, right in (("player", False), ("game", False), ("Q", True), ("question", False),
                        ("metric", False), ("asked", True), ("fmt err", True), ("score", True)):
        questions.add_column(head, justify="right" if right else "left", no_wrap=head != "question")
    for s, q in rows:
        questions.add_row(s.player, s.game_id, str(q.key), q.question, q.metric, str(q.asked),
                          str(q.format_errors), fmt(q.score))
    console.print(questions)


def _bold_best(text: str, value: float | None, best: float | None) -> str:
    return f"**{text}**" if value is not None and best is not None and abs(value - best) < 1e-12 else text


def markdown(table: ScoreTable, *, title: str = "Round-robin") -> str:
    """The tables as Markdown: outcome scores (the paper's Table 2), intermediate scores (Table 3),
    the final ranking, the match counts and the per-question scores; the best of each column bold."""
    games = table.games
    lines = [f"# {title}", ""]

    def matrix(what: str, average: str, rows: Sequence[str]) -> None:
        lines.append("| Player | " + " | ".join(games) + " | Average |")
        lines.append("|---|" + "---:|" * (len(games) + 1))
        for player in rows:
            cells = []
            for g in games:
                s = table.standing(g, player)
                if s is None:
                    cells.append("")
                    continue
                value = None if (what == "score" and s.dash) else getattr(s, what)
                text = DASH if value is None else fmt(value)
                cells.append(_bold_best(text, value, table.best(g, what)))
            total = table.totals[player]
            avg = total.outcome if average == "S" else total.intermediate
            cells.append(_bold_best(fmt(avg), avg, table.best(None, average)))
            lines.append(f"| {table.labels.get(player, player)} | " + " | ".join(cells) + " |")
        lines.append("")

    lines += ["## Outcome scores", "",
              "s1 = (W − L) / N; value games: s2 = mean outcome value, scaled so the best is 0.50. "
              f"{DASH}: the player forfeited most of its matches (counts −0.5 in the average).", ""]
    matrix("score", "S", table.players)
    with_i = [p for p in table.players if table.totals[p].intermediate is not None]
    lines += ["## Intermediate scores", "",
              "Mean over each game's questions of F1 or accuracy; players without checked answers are "
              "not listed.", ""]
    if with_i:
        matrix("intermediate", "I", with_i)
    else:
        lines += ["No intermediate answers were checked.", ""]
    lines += ["## Final score", "", "| Rank | Player | S | I | (S + I) / 2 |", "|---:|---|---:|---:|---:|"]
    for rank, t in enumerate(table.ranking, 1):
        cells = [_bold_best(fmt(t.outcome), t.outcome, table.best(None, "S")),
                 _bold_best(fmt(t.intermediate), t.intermediate, table.best(None, "I")),
                 _bold_best(fmt(t.final, 3), t.final, table.best(None, "final"))]
        lines.append(f"| {rank} | {t.label} | " + " | ".join(cells) + " |")
    lines += ["", "## Matches", "", "| Game | Player | N | W | D | L | Forfeits | Invalid answers | Errors |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for s in table.standings.values():
        lines.append(f"| {s.game_id} | {table.labels.get(s.player, s.player)} | {s.played} | {s.wins} | "
                     f"{s.draws} | {s.losses} | {s.forfeits} | {s.invalid} | {s.errors} |")
    lines.append("")
    for g in games:
        rows = [s for (gg, _), s in table.standings.items() if gg == g and s.questions]
        if not rows:
            continue
        keys = sorted({q.key: q for s in rows for q in s.questions}.items())
        lines += [f"## Intermediate questions: {g}", "",
                  "| Player | " + " | ".join(f"IR{k} {q.question} ({q.metric})" for k, q in keys) + " |",
                  "|---|" + "---:|" * len(keys)]
        for s in rows:
            by_key = {q.key: q for q in s.questions}
            cells = [f"{fmt(by_key[k].score)} ({by_key[k].asked})" if k in by_key else "" for k, _ in keys]
            lines.append(f"| {table.labels.get(s.player, s.player)} | " + " | ".join(cells) + " |")
        lines += ["", "Each cell: the score (how many times the question was asked).", ""]
    return "\n".join(lines)


RESULT_COLUMNS = ("player", "label", "game", "matches", "wins", "draws", "losses", "forfeits", "errors",
                  "invalid_answers", "fallback_moves", "s1", "s2", "s2_scaled", "outcome", "intermediate",
                  "final")
QUESTION_COLUMNS = ("player", "label", "game", "key", "question", "metric", "asked", "correct",
                    "format_errors", "not_applicable", "score")


def write_results(table: ScoreTable, folder: Path, *, title: str = "Round-robin") -> list[Path]:
    """Write ``results.csv``, ``questions.csv`` and ``results.md`` into ``folder``; returns their paths.

    ``results.csv`` has a row per player and game (``outcome`` is s1 or the scaled s2, empty for
    "–") and a row per player with game ``all`` (``outcome`` = S, ``intermediate`` = I, ``final``
    = (S + I) / 2)."""
    folder.mkdir(parents=True, exist_ok=True)
    results, questions, md = folder / "results.csv", folder / "questions.csv", folder / "results.md"
    with results.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, RESULT_COLUMNS)
        w.writeheader()
        for s in table.standings.values():
            d = s.to_data()
            w.writerow({
                "player": s.player, "label": table.labels.get(s.player, s.player), "game": s.game_id,
                "matches": s.played, "wins": s.wins, "draws": s.draws, "losses": s.losses,
                "forfeits": s.forfeits, "errors": s.errors, "invalid_answers": s.invalid,
                "fallback_moves": s.fallbacks, "s1": _csv(d["s1"]), "s2": _csv(d["s2"]),
                "s2_scaled": _csv(d["s2_scaled"]), "outcome": "" if s.dash else _csv(d["score"]),
                "intermediate": _csv(d["intermediate"]), "final": "",
            })
        for t in table.ranking:
            w.writerow({"player": t.player, "label": t.label, "game": "all", "outcome": _csv(t.outcome),
                        "intermediate": _csv(t.intermediate), "final": _csv(t.final)})
    with questions.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, QUESTION_COLUMNS)
        w.writeheader()
        for s in table.standings.values():
            for q in s.questions:
                w.writerow({"player": s.player, "label": table.labels.get(s.player, s.player),
                            "game": s.game_id, "key": q.key, "question": q.question, "metric": q.metric,
                            "asked": q.asked, "correct": q.correct, "format_errors": q.format_errors,
                            "not_applicable": q.not_applicable, "score": _csv(q.score)})
    md.write_text(markdown(table, title=title) + "\n", encoding="utf-8")
    return [results, questions, md]


def _csv(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"

