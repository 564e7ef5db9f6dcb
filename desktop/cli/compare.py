"""``playtrace compare A B [more ...]``: sessions side by side, or folders compared over matched seeds.

* Sessions (two or more of one game): the decisions aligned step by step (each side's action, how it
  was reached and its intermediate answers ✓/total), the first step where they diverge marked, and a
  diff of the prompts at that step (or at ``--step N``).
* Folders of sessions: sessions matched by game, options and seed; paired statistics of the final
  score of one seat (``--seat``; by default the first seat whose player differs) and of each
  intermediate question's accuracy: mean of each side, mean difference with a 95 % bootstrap
  interval, a paired t-test and a Wilcoxon signed-rank test (scipy).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from desktop.cli.common import EXIT_OK, UsageError, compact_table, num, stdout_console

COMMAND = "compare"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        COMMAND,
        parents=[common],
        help="compare sessions step by step, or folders over matched seeds",
        description="Two or more sessions of one game: their decisions aligned step by step, the first "
        "divergence marked, a diff of the prompts there. Two or more folders of sessions: paired statistics "
        "over sessions with the same game, options and seed (paired t-test, Wilcoxon, bootstrap interval).",
    )
    p.add_argument("paths", type=Path, nargs="+", metavar="PATH", help="sessions, or folders of sessions")
    p.add_argument("--step", type=int, default=None, metavar="N", help="diff the prompts at step N")
    p.add_argument(
        "--seat",
        type=int,
        default=None,
        metavar="N",
        help="the seat whose score is compared (folders; default: the first seat whose player differs)",
    )
    p.add_argument("--width", type=int, default=28, metavar="N", help="characters of each action shown")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")


def _is_session(path: Path) -> bool:
    return path.is_file() or (path / "events.jsonl").is_file() or (path / "manifest.json").is_file()


def run(args: argparse.Namespace) -> int:
    if len(args.paths) < 2:
        raise UsageError("compare needs at least two sessions or two folders of sessions")
    for path in args.paths:
        if not path.exists():
            raise UsageError(f"{path} does not exist")
    kinds = {_is_session(p) for p in args.paths}
    if len(kinds) > 1:
        raise UsageError("give either sessions or folders of sessions, not both")
    if kinds == {True}:
        return _sessions(args)
    return _folders(args)


def _load(path: Path) -> Any:
    from sessions import SessionError, load_session

    try:
        return load_session(path)
    except SessionError as exc:
        raise UsageError(f"{path}: {exc}") from None


def _sessions(args: argparse.Namespace) -> int:
    from sessions.compare import align, prompt_diff

    loaded = [_load(p) for p in args.paths]
    try:
        alignment = align(loaded)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    # Steps are numbered from 1 (step N is the decision made on the N-th board), as in the app.
    at = args.step - 1 if args.step is not None else alignment.first_divergence
    if at is not None and not 0 <= at < len(alignment.rows):
        raise UsageError(f"--step {args.step} is outside 1..{len(alignment.rows)}")
    diff: list[str] = []
    if at is not None:
        a, b = alignment.rows[at][0], alignment.rows[at][1]
        if a is not None and b is not None:
            diff = prompt_diff(a.prompt, b.prompt, (loaded[0].id, loaded[1].id))
    if args.json:
        print(
            json.dumps(
                {**alignment.to_json(), "diff_step": None if at is None else at + 1, "prompt_diff": diff},
                indent=1,
                ensure_ascii=False,
            )
        )
        return EXIT_OK
    console = stdout_console()
    console.print(f"{alignment.game}: {len(loaded)} sessions aligned by step", soft_wrap=True)
    table = compact_table()
    table.add_column("step", justify="right")
    for n in range(1, len(loaded) + 1):
        table.add_column(f"session {n}", overflow="ellipsis", no_wrap=True)
    for k, row in enumerate(alignment.rows):
        mark = "▶" if k == alignment.first_divergence else ""
        table.add_row(f"{mark}{k + 1}", *(_cell(side, args.width) for side in row))
    console.print(table)
    for n, s in enumerate(loaded, 1):
        players = ", ".join(
            str(p.get("spec")) for p in s.manifest.get("players") or [] if isinstance(p, dict)
        )
        console.print(f"session {n}: {s.id} ({players}; seed {s.manifest.get('seed')})", soft_wrap=True)
    if not alignment.same_start:
        console.print("note: the sessions start from different boards (another seed or options)")
    if alignment.first_divergence is None:
        console.print("the sessions never diverge")
    else:
        console.print(f"first divergence: step {alignment.first_divergence + 1} (▶)")
    if at is not None:
        if diff:
            console.print(f"prompts at step {at + 1} (session 1 vs 2):", soft_wrap=True)
            for line in diff:
                console.print(line, soft_wrap=True)
        else:
            console.print(f"the prompts at step {at + 1} are the same")
    return EXIT_OK


def _cell(side: Any, width: int) -> str:
    if side is None:
        return "—"
    action = side.action if side.action is not None else "(forfeit)"
    if len(action) > width:
        action = action[: width - 1] + "…"
    how = {None: "", True: "", False: f" [{side.policy}]"}[side.parsed]
    verdicts = f" ✓{side.verdicts}" if side.verdicts else ""
    return f"{action}{how}{verdicts}"


def _folders(args: argparse.Namespace) -> int:
    from sessions.compare import differing_seat, paired
    from sessions.search import find_sessions

    groups = []
    for path in args.paths:
        loaded = [_load(f) for f in find_sessions(path)]
        if not loaded:
            raise UsageError(f"{path} holds no session")
        groups.append(loaded)
    games = {s.game_id for g in groups for s in g}
    if len(games) > 1:
        raise UsageError(f"the folders hold sessions of different games ({', '.join(sorted(games))})")
    seat = args.seat if args.seat is not None else differing_seat(groups)
    try:
        n, results = paired(groups, seat)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(
            json.dumps(
                {"game": games.pop(), "seat": seat, "pairs": n, "results": [r.to_json() for r in results]},
                indent=1,
            )
        )
        return EXIT_OK
    stdout_console().print(
        f"{games.pop()}: {n} matched seeds, folder 2 (B) against folder 1 (A)", soft_wrap=True
    )
    table = compact_table()
    for name in ("measure", "n", "A", "B", "B − A", "95% CI", "t p", "Wilcoxon p"):
        table.add_column(
            name,
            justify="left" if name == "measure" else "right",
            overflow="fold" if name == "measure" else "ellipsis",
        )
    for r in results:
        ci = "" if r.ci_low is None or r.ci_high is None else f"[{_f(r.ci_low)}, {_f(r.ci_high)}]"
        table.add_row(
            r.what, str(r.n), _f(r.mean_a), _f(r.mean_b), _f(r.mean_diff), ci, _p(r.t_p), _p(r.wilcoxon_p)
        )
    stdout_console().print(table)
    return EXIT_OK


def _f(x: float | None) -> str:
    return "" if x is None else num(round(x, 4))


def _p(x: float | None) -> str:
    if x is None:
        return "n/a"
    return "<0.001" if x < 0.001 else f"{x:.3f}"
