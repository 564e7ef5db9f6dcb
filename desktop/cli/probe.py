"""``playtrace probe``: ask several players (or harness settings) at recorded boards, side by side.

Targets are boards that sessions recorded: ``SESSION --step N`` (or ``--steps A:B``; default every
decision of a model seat), or every row a search returns (``--search DIR SQL``, a query over the
``steps`` table that selects ``path`` and ``step``, and ``seat`` if it likes). Each target is put to
every ``--player`` (``SPEC`` or ``SPEC[key=value,...]`` with harness settings, e.g.
``sim[memory=0,reflection=false]``). Answers are saved as they arrive in ``--out`` and a probe run
again with the same ``--out`` asks only what is still unanswered. Before anything is spent, a cost
estimate is printed for paid models; ``--dry-run`` stops there and ``--max-cost`` refuses a probe
estimated above it.

Example: would the search bot, or the simulated model without memory, have made the mistakes of a run?

    playtrace probe --player minimax --player "sim[memory=0]" --search runs/ \\
        "SELECT path, step, seat FROM steps WHERE questions_correct < questions_asked"
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from desktop.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    UsageError,
    compact_table,
    ensure_offscreen_qt,
    money,
    one_line,
    stdout_console,
)

COMMAND = "probe"
#: Rough tokens of one probe answer, for the estimate (a prompt, an answer, a reflection).
_EST_IN, _EST_OUT = 2100, 450


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        COMMAND,
        parents=[common],
        help="ask several players at recorded boards and compare their answers",
        description="Put recorded boards (a session's steps, or the rows of a search) to several players "
        "or harness settings, and print every answer with its verdicts side by side.",
    )
    p.add_argument("sessions", type=Path, nargs="*", metavar="SESSION", help="sessions whose boards to probe")
    p.add_argument(
        "--step", type=int, action="append", default=None, metavar="N", help="a decision step (repeatable)"
    )
    p.add_argument("--steps", default=None, metavar="A:B", help="decision steps A to B, inclusive")
    p.add_argument(
        "--seat", type=int, default=None, metavar="S", help="probe this seat's view (default: who acted)"
    )
    p.add_argument(
        "--search",
        nargs=2,
        default=None,
        metavar=("DIR", "SQL"),
        help="probe every board a search returns (its rows must give path and step)",
    )
    p.add_argument(
        "--player",
        "-p",
        action="append",
        default=[],
        metavar="SPEC",
        help="a player to ask: SPEC or SPEC[key=value,...] (repeat for each)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="where answers are saved; an existing probe folder resumes (default: a new one)",
    )
    p.add_argument("--concurrency", "-j", type=int, default=4, metavar="N", help="answers asked at once")
    p.add_argument("--dry-run", action="store_true", help="print the targets and the cost estimate only")
    p.add_argument(
        "--max-cost",
        type=float,
        default=None,
        metavar="USD",
        help="refuse to start when the estimate is above this",
    )
    p.add_argument("--json", action="store_true", help="print the answers as JSON")


def _steps(args: argparse.Namespace) -> list[int] | None:
    steps = list(args.step or [])
    if args.steps:
        a, sep, b = args.steps.partition(":")
        try:
            lo, hi = int(a), int(b if sep else a)
        except ValueError:
            raise UsageError(f"--steps {args.steps}: write A:B with whole numbers") from None
        if lo < 1 or hi < lo:
            raise UsageError(f"--steps {args.steps}: steps are numbered from 1, and B must be at least A")
        steps += range(lo, hi + 1)
    return steps or None


def _targets(args: argparse.Namespace) -> list[Any]:
    from sessions.errors import SessionError
    from sessions.probe import ProbeError, targets_of

    targets = []
    if args.search:
        from sessions.search import QueryError, SearchIndex

        folder, sql = Path(args.search[0]), args.search[1]
        if not folder.is_dir():
            raise UsageError(f"{folder} is not a folder of sessions")
        with SearchIndex(folder) as index:
            index.update()
            try:
                result = index.query(sql)
            except QueryError as exc:
                raise UsageError(f"the search failed: {exc}") from None
        if "path" not in result.columns or "step" not in result.columns:
            raise UsageError("the search must select the columns path and step (and seat, if it likes)")
        col = {name: i for i, name in enumerate(result.columns)}
        for row in result.rows:
            seat = row[col["seat"]] if "seat" in col else args.seat
            try:
                targets += targets_of(row[col["path"]], [int(row[col["step"]])], seat)
            except (SessionError, ProbeError) as exc:
                raise UsageError(f"{row[col['path']]}: {exc}") from None
    steps = _steps(args)
    for path in args.sessions:
        try:
            targets += targets_of(path, steps, args.seat)
        except (SessionError, ProbeError) as exc:
            raise UsageError(f"{path}: {exc}") from None
        except FileNotFoundError:
            raise UsageError(f"{path} does not exist") from None
    if not args.sessions and not args.search:
        raise UsageError("probe needs boards: SESSION [--step N] or --search DIR SQL")
    if not targets:
        raise UsageError("no board to probe: the sessions have no such decisions")
    return targets


def run(args: argparse.Namespace) -> int:
    from sessions import load_session
    from sessions.probe import ProbeError, parse_player, probe

    if not args.player:
        raise UsageError("probe needs at least one --player")
    try:
        players = [parse_player(p) for p in args.player]
    except ProbeError as exc:
        raise UsageError(str(exc)) from None
    if len({p.label for p in players}) != len(players):
        raise UsageError("the same player is given twice")
    targets = _targets(args)
    games = {load_session(t.path).game_id for t in targets}
    if len(games) > 1:
        raise UsageError(
            f"the boards are of different games ({', '.join(sorted(games))}); probe one game at a time"
        )
    game = load_session(targets[0].path).game()
    _check_players(players, game)
    _estimate(players, len(targets), args.max_cost)
    out = args.out or _default_out()
    if args.out is not None:
        _check_out(args.out, targets)
    if args.dry_run:
        print(f"{len(targets)} boards x {len(players)} players; answers would go to {out}")
        return EXIT_OK
    render_for = None
    if any(p.options.get("perception") in ("image", "both", "describe") for p in players):
        ensure_offscreen_qt()
        from desktop.episode import png_renderer

        def render_for(g: Any) -> Any:
            return png_renderer(g.id)

    total = len(targets) * len(players)
    shown = [0]

    def progress(_: dict[str, Any]) -> None:
        shown[0] += 1
        if sys.stderr.isatty():
            print(f"\rprobing: {shown[0]} / {total}", end="", file=sys.stderr, flush=True)

    try:
        asyncio.run(
            probe(
                targets, players, out, render_for=render_for, concurrency=args.concurrency, on_result=progress
            )
        )
    except KeyboardInterrupt:
        print(
            f"\nprobe interrupted; what was answered is in {out} (run again with --out to resume)",
            file=sys.stderr,
        )
        return 130
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr)
    return _report(out, targets, players, args.json)


def _check_players(players: list[Any], game: Any) -> None:
    from engine.roster import player_choices

    for p in players:
        if p.spec == "human":
            raise UsageError("a person cannot be probed from the command line")
        if p.spec.split(":", 1)[0] not in (
            "sim",
            "openai",
            "anthropic",
            "local",
        ) and p.spec not in player_choices(game):
            raise UsageError(
                f"unknown player {p.spec!r} for {game.id}; choose from: {', '.join(player_choices(game))}"
            )


def _estimate(players: list[Any], n: int, cap: float | None) -> None:
    from engine.llm import pricing

    total = 0.0
    for p in players:
        if p.spec.split(":", 1)[0] not in ("openai", "anthropic"):
            continue
        est = pricing.estimate(p.spec, _EST_IN, _EST_OUT, n)
        if est.cost is None:
            print(f"cost estimate for {p.label}: unknown ({est.note or 'no price'})", file=sys.stderr)
            continue
        total += est.cost
        print(f"cost estimate for {p.label}: about {money(est.cost)} for {n} answers", file=sys.stderr)
    if cap is not None and total > cap:
        raise UsageError(f"the probe is estimated at {money(total)}, above --max-cost {money(cap)}")


def _default_out() -> Path:
    from sessions.paths import user_data_dir

    return user_data_dir() / "probes" / time.strftime("%Y%m%d-%H%M%S")


def _check_out(out: Path, targets: list[Any]) -> None:
    target = out.resolve()
    for t in targets:
        if target.is_relative_to(Path(t.path).resolve()):
            raise UsageError(
                f"--out {out} is inside the session {t.session}; only PlayTrace's session writer writes there"
            )
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file; name a folder")


def _report(out: Path, targets: list[Any], players: list[Any], as_json: bool) -> int:
    from sessions.probe import read_results

    wanted = {t.key for t in targets}
    labels = [p.label for p in players]
    answers = {(r["key"], r["player"]): r for r in read_results(out) if r["key"] in wanted}
    failed = [r for r in answers.values() if r.get("error")]
    if as_json:
        print(
            json.dumps(
                {
                    "folder": str(out),
                    "answers": [{k: v for k, v in r.items() if k != "events"} for r in answers.values()],
                },
                indent=1,
                ensure_ascii=False,
            )
        )
    else:
        table = compact_table()
        table.add_column("board", no_wrap=True)
        table.add_column("played")
        for label in labels:
            table.add_column(label, overflow="fold")
        for t in targets:
            cells = []
            for label in labels:
                r = answers.get((t.key, label))
                cells.append("—" if r is None else _cell(r))
            table.add_row(f"{t.session.rsplit('_', 1)[-1]} @{t.step} s{t.seat}", str(t.recorded), *cells)
        console = stdout_console()
        console.print(table)
        for label in labels:
            mine = [answers[(t.key, label)] for t in targets if (t.key, label) in answers]
            same = sum(r.get("action") == r.get("recorded") for r in mine)
            console.print(
                f"{label}: {same}/{len(mine)} same move as played; "
                f"{sum(r['correct'] for r in mine)}/{sum(r['asked'] for r in mine)} intermediate answers "
                f"correct; cost {money(sum(r['cost_usd'] for r in mine))}",
                soft_wrap=True,
            )
        console.print(f"answers saved in {out}", soft_wrap=True)
    for r in failed:
        print(
            f"playtrace: {r['player']} at {r['key']}: {one_line(RuntimeError(r['error']))}", file=sys.stderr
        )
    return EXIT_FAILURE if failed else EXIT_OK


def _cell(r: dict[str, Any]) -> str:
    if r.get("error"):
        return "error"
    action = "(forfeit)" if r.get("action") is None else str(r["action"])
    mark = "=" if r.get("action") == r.get("recorded") else "≠"
    how = "" if r.get("policy") in (None, "answer") else f" [{r['policy']}]"
    verdicts = f" ✓{r['correct']}/{r['asked']}" if r.get("asked") else ""
    return f"{mark} {action}{how}{verdicts}"
