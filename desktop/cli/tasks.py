"""``playtrace tasks``: LVLM-Playground's offline tasks on the command line (:mod:`engine.tasks`).

* ``playtrace tasks generate GAME --task perceive|qa|rules --n 2000 --seed S --out DIR`` writes a task
  set (``manifest.json``, ``images/``, ``README.md``); the same arguments rewrite it byte for byte;
* ``playtrace tasks eval DIR --player SPEC [--player SPEC ...] [--json]`` runs each player on the set
  (``random``: the paper's random baseline; ``sim``: the offline simulated model; ``openai:MODEL``,
  ``anthropic:MODEL``, ``local:MODEL@URL``: a vision model sent each image), scores it as the paper
  does and writes ``DIR/results/<player>.json``;
* ``playtrace tasks report RESULTS...`` (results files, task-set folders or folders holding them)
  prints one table per task, game × player, with the best score of each column marked ``*``, the
  measured random row and the paper's, and the difficulty-weighted overall score (Tables 2-4).

Exit codes: 0 done; 1 a player's every call failed; 2 a usage error (unknown game or task, a game
without tasks, a folder that is not a task set, a bad player spec).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    UsageError,
    check_output,
    compact_table,
    ensure_offscreen_qt,
    err,
    one_line,
    parse_game_options,
    run_interruptible,
    stdout_console,
)

#: How each task is scored and titled, as in the paper's tables.
TITLES = {
    "perceive": "Table 2 - Perceiving (cell accuracy)",
    "qa": "Table 3 - Question answering (accuracy)",
    "rules": "Table 4 - Rule following (valid-move rate)",
    "e2e": "Table 5 - End-to-end play (mean points per game)",
}
#: The paper's column order.
PAPER_ORDER = ("tictactoe", "reversi", "sudoku", "minesweeper", "gomoku", "chess")
RANDOM_LABEL = "Random"
PAPER_RANDOM_LABEL = "Random (paper)"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add the ``tasks`` subcommand (with ``generate``, ``eval`` and ``report``)."""
    p = sub.add_parser(
        "tasks", parents=[common], help="LVLM-Playground's offline tasks: generate, evaluate, report",
        description="Perceiving, question answering and rule following as LVLM-Playground sets them: "
        "generate a task set, run players on it, and print the paper's tables.")
    verbs = p.add_subparsers(dest="tasks_command", metavar="ACTION")
    gen = verbs.add_parser("generate", parents=[common], help="write a task set (images, prompts, truth)",
                           description="Write N items of a task for a game: manifest.json, images/ and "
                           "README.md. The same arguments give byte-identical files.")
    gen.add_argument("game", help="a game with tasks (see `playtrace games`)")
    gen.add_argument("--task", "-t", required=True, metavar="TASK", help="perceive, qa or rules")
    gen.add_argument("--n", "-n", type=int, default=2000, metavar="N", help="items (default 2000)")
    gen.add_argument("--seed", "-s", type=int, default=0, metavar="S")
    gen.add_argument("--out", type=Path, required=True, metavar="DIR")
    gen.add_argument("--size", default=None, metavar="WxH", help="image size (default 512x512)")
    gen.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    gen.add_argument("--json", action="store_true", help="print a JSON summary")

    ev = verbs.add_parser("eval", parents=[common], help="run players on a task set and score them",
                          description="Answer every item with each player and score the replies as the "
                          "paper does (cell accuracy, exact letter match, valid-move rate). Results go "
                          "to DIR/results/<player>.json; API failures are recorded per item.")
    ev.add_argument("folder", type=Path, metavar="DIR", help="a task set from `playtrace tasks generate`")
    ev.add_argument("--player", "-p", action="append", default=[], metavar="SPEC",
                    help="random, sim, openai:MODEL, anthropic:MODEL or local:MODEL@URL (repeatable)")
    ev.add_argument("--concurrency", "-j", type=int, default=4, metavar="N", help="model calls at once")
    ev.add_argument("--limit", type=int, default=None, metavar="K", help="only the first K items")
    ev.add_argument("--timeout", dest="timeout_s", type=float, default=None, metavar="S")
    ev.add_argument("--max-tokens", type=int, default=1024, metavar="N")
    ev.add_argument("--temperature", type=float, default=None, metavar="T")
    ev.add_argument("--json", action="store_true", help="print the scores as JSON")

    rep = verbs.add_parser("report", parents=[common], help="print the per-game tables of results",
                           description="Tables 2-4: per task, a row per player and a column per game, "
                           "the best of each column marked *, a random row and the paper's, and the "
                           "difficulty-weighted overall score.")
    rep.add_argument("paths", nargs="+", type=Path, metavar="RESULTS",
                     help="results files, task-set folders, or folders holding them")
    rep.add_argument("--json", action="store_true", help="print the tables as JSON")
    rep.add_argument("--markdown", type=Path, default=None, metavar="FILE", help="also write Markdown tables")


def cmd_tasks(args: argparse.Namespace) -> int:
    """Dispatch ``playtrace tasks ACTION``."""
    from engine.tasks import TaskError

    handlers = {"generate": cmd_generate, "eval": cmd_eval, "report": cmd_report}
    if getattr(args, "tasks_command", None) not in handlers:
        raise UsageError("say what to do: playtrace tasks generate|eval|report (see --help)")
    try:
        return handlers[args.tasks_command](args)
    except TaskError as exc:
        raise UsageError(one_line(exc)) from None


# -- generate -----------------------------------------------------------------------------------------


def _size(text: str | None) -> tuple[int, int]:
    from engine.tasks import DEFAULT_IMAGE_SIZE

    if text is None:
        return DEFAULT_IMAGE_SIZE
    w, x, h = text.lower().partition("x")
    try:
        size = (int(w), int(h)) if x else (int(w), int(w))
    except ValueError:
        raise UsageError(f"--size {text}: write WIDTHxHEIGHT, e.g. 512x512") from None
    if min(size) < 16 or max(size) > 4096:
        raise UsageError(f"--size {text}: each side must be 16..4096 pixels")
    return size


def _prepare(out: Path) -> None:
    """Refuse a folder holding something else; clear the images of a set being rewritten."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / "manifest.json").is_file():
        raise UsageError(f"--out {out} is not empty and holds no task set; choose a new folder")
    images = out / "images"
    if images.is_dir():
        for old in images.glob("*.png"):
            old.unlink()


def cmd_generate(args: argparse.Namespace) -> int:
    from engine.tasks import definitions, generate, write_task_set

    if args.n < 1:
        raise UsageError("--n must be at least 1")
    definitions(args.game)  # an unknown game or one without tasks fails before anything is drawn
    options = parse_game_options(args.game, args.option)
    ts = generate(args.game, args.task, args.n, args.seed, options=options, image_size=_size(args.size))
    _prepare(args.out)
    ensure_offscreen_qt()
    import renderers

    renderer = renderers.get(args.game)
    with _Bar(ts.n, "images", enabled=sys.stderr.isatty() and not args.json) as bar:
        folder = write_task_set(ts, args.out, renderer.png, on_item=bar.advance)
    summary = {"game": ts.game, "task": ts.task, "n": ts.n, "seed": ts.seed, "folder": str(folder),
               "manifest": str(folder / "manifest.json")}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"wrote {ts.n} {ts.task} items of {ts.game} (seed {ts.seed}) to {folder}")
        print(f"  manifest: {folder / 'manifest.json'}; description: {folder / 'README.md'}")
    return EXIT_OK


# -- eval ---------------------------------------------------------------------------------------------


def _label(spec: str) -> str:
    from engine.llm.factory import public_spec

    if spec == "random":
        return RANDOM_LABEL
    if spec == "sim" or spec.startswith("sim:"):
        return "sim (simulated)" if spec == "sim" else f"{spec} (simulated)"
    return public_spec(spec)


def _check_players(specs: Sequence[str]) -> None:
    from desktop.cli.run import _validate_specs

    if not specs:
        raise UsageError("name at least one --player (random, sim, openai:MODEL, ...)")
    for spec in specs:
        head = spec.split(":", 1)[0]
        if spec not in ("random", "sim") and head not in ("sim", "openai", "anthropic", "local", "ollama",
                                                          "lmstudio", "vllm", "llamacpp"):
            raise UsageError(f"unknown player {spec!r}; use random, sim, openai:MODEL, anthropic:MODEL "
                             "or local:MODEL@URL")
    _validate_specs(specs)


def cmd_eval(args: argparse.Namespace) -> int:
    """``playtrace tasks eval``: every answer is kept as it comes (a killed run resumes where it
    stopped); SIGTERM and Ctrl+C stop it alike, with what was answered saved and summarised."""
    from engine.llm.base import ModelUnusable
    from engine.tasks import AnswerLog, evaluate, load_task_set, results_json, write_results
    from sessions import FileLock

    ts = load_task_set(args.folder)
    specs = [s.strip() for s in args.player]
    _check_players(specs)
    if args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    folder = ts.path or args.folder
    check_output(Path(folder) / "results", "DIR")
    total = min(ts.n, args.limit or ts.n)
    summaries = []
    failed = False
    stopped: int | None = None
    for spec in specs:
        log = AnswerLog(folder, ts, spec)
        log.path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(log.path.with_name(log.path.name + ".lock"))
        if not lock.held:
            err(f"another playtrace is evaluating {_label(spec)} on {folder}; wait for it to end")
            return EXIT_FAILURE
        with lock:
            kept = log.load()
            if kept:
                print(f"{_label(spec)}: resuming, {len(kept)} answers kept from an earlier run",
                      file=sys.stderr)
            log.open(kept)
            answered: dict[str, Any] = dict(kept)
            unusable: str | None = None
            with _Bar(total, _label(spec), enabled=sys.stderr.isatty() and not args.json) as bar:
                def advance(done: int, _n: int, r: Any, bar: Any = bar, log: Any = log,
                            answered: dict[str, Any] = answered, before: int = len(kept)) -> None:
                    log.add(r)  # kept at once: a kill loses nothing answered
                    answered[r.id] = r
                    bar.advance(done + before, f"{r.id}: {r.score:.2f}")

                try:
                    results, stopped = run_interruptible(evaluate(
                        ts, spec, concurrency=args.concurrency, limit=args.limit, timeout_s=args.timeout_s,
                        max_tokens=args.max_tokens, temperature=args.temperature, on_result=advance,
                        done_before=kept))
                except ModelUnusable as exc:
                    results, unusable = None, one_line(exc)
            log.close(finished=results is not None)
        if results is None:
            # Interrupted or refused: what was answered is kept in the log for the next run.
            if unusable is not None:
                err(f"{_label(spec)}: {unusable} (a run error: nothing was scored; fix the key or model "
                    "name and run again)")
            print(f"{_label(spec)}: {len(answered)} of {total} items answered and kept; run the same "
                  "command again to answer the rest", file=sys.stderr)
            return stopped if stopped is not None else EXIT_FAILURE
        path = write_results(folder, ts, spec, _label(spec), results)
        record = results_json(ts, spec, _label(spec), results)
        latencies = [r.latency_s for r in results if r.latency_s is not None]
        record.pop("items")
        record["results"] = str(path)
        record["mean_latency_s"] = round(sum(latencies) / len(latencies), 4) if latencies else None
        failed = failed or (record["api_errors"] == len(results))
        summaries.append(record)
    if args.json:
        print(json.dumps(summaries, indent=2))
    else:
        _print_eval(ts, summaries)
    return EXIT_FAILURE if failed else EXIT_OK


def _print_eval(ts: Any, summaries: Sequence[dict[str, Any]]) -> None:
    console = stdout_console()
    table = compact_table(title=f"{ts.game} - {ts.task} ({ts.n} items, seed {ts.seed})")
    for name in ("player", "score", "scored", "format errors", "API errors", "latency"):
        table.add_column(name, justify="left" if name == "player" else "right")
    for s in summaries:
        lat = s["mean_latency_s"]
        table.add_row(s["label"], f"{s['score']:.3f}", str(s["scored"]), str(s["format_errors"]),
                      str(s["api_errors"]), "-" if lat is None else f"{lat:.3f} s")
    console.print(table)
    for s in summaries:
        console.print(f"results: {s['results']}", soft_wrap=True)


# -- report -------------------------------------------------------------------------------------------


def _result_files(paths: Sequence[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            inside = sorted(path.glob("results/*.json")) or sorted(path.glob("*/results/*.json"))
            inside = inside or sorted(p for p in path.glob("*.json") if p.name != "manifest.json")
            inside = inside or sorted(path.rglob("results/*.json"))
            if not inside:
                raise UsageError(f"{path} holds no task results (run `playtrace tasks eval` first)")
            found.extend(inside)
        else:
            raise UsageError(f"{path} does not exist")
    return list(dict.fromkeys(found))


def build_report(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tables of a report: per task, the games (paper order first), the rows (players, each with
    per-game scores, the overall score and the columns where it is best), the measured random row and
    the paper's. Results of one player on one game's several sets are pooled by item count; a result
    whose every call failed is left out."""
    from engine.tasks import PAPER_RANDOM, TASK_NAMES, overall

    pooled: dict[tuple[str, str, str], list[float]] = {}
    labels: dict[str, str] = {}
    for rec in records:
        if rec.get("scored") == 0:  # every call failed: nothing was measured
            continue
        key = (str(rec["task"]), str(rec["game"]), str(rec["player"]))
        weight = float(rec.get("scored") or 0) or 1.0
        # The items the set holds: a person who answered 1 of 10 has a coverage of 1/10.
        size = (rec.get("set") or {}).get("n") if isinstance(rec.get("set"), dict) else None
        items = float(size) if isinstance(size, int) and size >= weight else weight
        acc = pooled.setdefault(key, [0.0, 0.0, 0.0])
        acc[0] += float(rec["score"]) * weight
        acc[1] += weight
        acc[2] += items
        labels[str(rec["player"])] = str(rec.get("label") or rec["player"])
    tables = []
    for task in [t for t in (*TASK_NAMES, "e2e") if any(k[0] == t for k in pooled)]:
        keys = [k for k in pooled if k[0] == task]
        present = {k[1] for k in keys}
        games = [g for g in PAPER_ORDER if g in present] + sorted(present - set(PAPER_ORDER))
        scores: dict[str, dict[str, float]] = {}
        coverage: dict[str, dict[str, list[int]]] = {}
        for _, game, player in keys:
            total, weight, items = pooled[(task, game, player)]
            scores.setdefault(player, {})[game] = total / weight
            coverage.setdefault(player, {})[game] = [int(weight), int(items)]

        def row(label: str, player: str | None, values: dict[str, float], task: str = task,
                coverage: dict[str, dict[str, list[int]]] = coverage) -> dict[str, Any]:
            covered = coverage.get(player or "", {})
            return {"label": label, "player": player, "scores": values,
                    "overall": overall(values, task) if values else None,
                    "games": len(values), "best": [], "coverage": covered,
                    "complete": all(done >= of for done, of in covered.values())}

        rows = [row(labels[p], p, scores[p]) for p in sorted(scores, key=lambda p: labels[p].lower())
                if p != "random"]
        columns = [*games, "overall"]
        for col in columns:
            # Only a player who answered every item of a column can be its best (a score over 1 of 10
            # items is shown with its coverage, never starred).
            def full(r: dict[str, Any], col: str = col) -> bool:
                if col == "overall":
                    return bool(r["complete"])
                done, of = r["coverage"].get(col, [0, 1])
                return bool(done >= of)

            values = [(r["overall"] if col == "overall" else r["scores"].get(col)) for r in rows]
            known = [v for r, v in zip(rows, values, strict=True)
                     if v is not None and not math.isnan(v) and full(r)]
            if not known:
                continue
            for r, v in zip(rows, values, strict=True):
                if v is not None and v == max(known) and full(r):
                    r["best"].append(col)
        paper = {g: PAPER_RANDOM[task][g] for g in games if g in PAPER_RANDOM.get(task, {})}
        tables.append({
            "task": task, "title": TITLES[task], "games": games, "rows": rows,
            "random": row(RANDOM_LABEL, "random", scores["random"]) if "random" in scores else None,
            "paper_random": row(PAPER_RANDOM_LABEL, None, paper) if paper else None,
        })
    return tables


def e2e_records(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """End-to-end games among ``paths`` (session folders, or folders holding them) as report records:
    one per finished session of a game with LVLM task definitions, scored by its ``lvlm_points`` for the
    seat the paper's model plays (seat 0)."""
    import engine
    import sessions

    folders: list[Path] = []
    for path in paths:
        if path.is_dir():
            folders += [p for p in [path, *sorted(path.iterdir())] if (p / "events.jsonl").is_file()]
    records = []
    for folder in dict.fromkeys(folders):
        try:
            session = sessions.load_session(folder)
            if not engine.declaration(str(session.manifest.get("game"))).tasks:
                continue
        except Exception:  # noqa: BLE001  (not a session of an installed LVLM game: not an e2e game)
            continue
        finished = next((e for e in reversed(session.events) if e.get("type") == "session_finished"), None)
        points = ((finished or {}).get("data") or {}).get("metrics", {}).get("lvlm_points")
        players = session.manifest.get("players") or []
        if points is None or not players:
            continue
        first = players[0]
        records.append({"task": "e2e", "game": session.manifest["game"], "player": str(first.get("spec")),
                        "label": str(first.get("label") or first.get("spec")), "score": float(points),
                        "scored": 1})
    return records


def _cell(value: float | None, best: bool, *, markdown: bool, points: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    text = f"{value:.1f}" if points else f"{value:.3f}"
    if best:
        return f"**{text}**" if markdown else f"{text}*"
    return text


def _coverage(row: dict[str, Any], game: str) -> str:
    """`` (1/10)`` after a score over part of a set's items; nothing for a whole set."""
    done, of = (row.get("coverage") or {}).get(game, [0, 0])
    return f" ({done}/{of} items)" if of and done < of else ""


def _lines(table: dict[str, Any], *, markdown: bool) -> list[list[str]]:
    out = []
    every = len(table["games"])
    for r in [*table["rows"], table["random"], table["paper_random"]]:
        if r is None:
            continue
        pts = table["task"] == "e2e"
        cells = [_cell(r["scores"].get(g), g in r["best"], markdown=markdown, points=pts)
                 + _coverage(r, g) for g in table["games"]]
        total = _cell(r["overall"], "overall" in r["best"], markdown=markdown, points=pts)
        if r["overall"] is not None and r["games"] < every:
            total += f" ({r['games']}/{every})"
        out.append([r["label"], *cells, total])
    return out


def markdown_report(tables: Sequence[dict[str, Any]]) -> str:
    parts = []
    for table in tables:
        head = ["Model", *table["games"], "Overall"]
        parts += [f"### {table['title']}", "", "| " + " | ".join(head) + " |",
                  "|" + "|".join(["---", *["---:"] * (len(head) - 1)]) + "|"]
        parts += ["| " + " | ".join(line) + " |" for line in _lines(table, markdown=True)]
        parts.append("")
    parts.append("Best of each column in bold (only players who answered every item); (a/b items): a of "
                 "the set's b items answered. Overall: difficulty-weighted mean (LVLM-Playground's "
                 "ability ratings); (k/N) marks an overall over k of the N games.")
    return "\n".join(parts) + "\n"


def cmd_report(args: argparse.Namespace) -> int:
    from engine.tasks import TaskSetError, load_results

    records = e2e_records(args.paths)
    files: list[Path] = []
    for path in args.paths:
        try:
            files += _result_files([path])
        except UsageError:
            if not e2e_records([path]):  # neither task results nor end-to-end sessions
                raise
    for path in files:
        try:
            records.append(load_results(path))
        except TaskSetError as exc:
            raise UsageError(one_line(exc)) from None
    tables = build_report(records)
    if args.markdown is not None:
        try:
            args.markdown.parent.mkdir(parents=True, exist_ok=True)
            args.markdown.write_text(markdown_report(tables), encoding="utf-8")
        except OSError as exc:
            err(f"cannot write {args.markdown}: {one_line(exc)}")
            return EXIT_FAILURE
    if args.json:
        print(json.dumps({"tables": tables}, indent=2, allow_nan=False, default=str))
        return EXIT_OK
    console = stdout_console()
    for table in tables:
        grid = compact_table(title=table["title"])
        grid.add_column("model")
        for g in [*table["games"], "overall"]:
            grid.add_column(g, justify="right")
        for line in _lines(table, markdown=False):
            grid.add_row(*line)
        console.print(grid)
        console.print("")
    console.print("* best of the column (random rows and players who answered only part of a set "
                  "excluded; (a/b items): a of the set's b items answered). Overall: difficulty-weighted "
                  "mean (LVLM-Playground's ability ratings); (k/N): over k of the N games.", soft_wrap=True)
    if args.markdown is not None:
        console.print(f"markdown: {args.markdown}", soft_wrap=True)
    return EXIT_OK


# -- progress -----------------------------------------------------------------------------------------


class _Bar:
    """A rich progress bar on stderr when it is a terminal (otherwise silent)."""

    def __init__(self, total: int, what: str, *, enabled: bool) -> None:
        self.total, self.what, self.enabled = total, what, enabled
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> _Bar:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                TextColumn(self.what.replace("[", "(")), BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), TextColumn("{task.fields[last]}"),
                console=Console(stderr=True), refresh_per_second=4, transient=False)
            self._progress.__enter__()
            self._task = self._progress.add_task("tasks", total=self.total, last="")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(None, None, None)

    def advance(self, done: int, last: str = "") -> None:
        if self._progress is not None:
            self._progress.update(self._task, completed=done, last=last)
