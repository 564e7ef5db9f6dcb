"""A reproduction's tables: the paper's published rows beside ours, with the paper's statistics.

Every table is a :class:`Table` of :class:`Row` objects, each labelled ``ours`` or ``paper``. Each of our
baseline rows (random, built-in bots) is checked against the paper's row for that player: a value lies
*within* the paper's interval when it is inside the paper's mean ± 2 SE (SE = SD / √n of the paper's
runs, 30 random runs for LMGame-Bench; a rate's binomial SE for LVLM-Playground's accuracies), and the
check says so per column (:attr:`Row.checks`).

The builders take plain data (the sweep index's episode rows, task results, match records, VGDL episode
summaries), so they name no game and read no session themselves:

- :func:`scores_report`: LMGame-Bench and the modular-harness paper: the raw-score table (mean ± SD or
  SE as the paper prints it), the harness ablation (ZS / +Memory / +Perception / +Both), Glass's δ of
  the model against our 30 random runs and the paper's, paired t-tests of +Both against ZS (episodes
  paired by seed), coefficients of variation;
- :func:`lvlm_report`: LVLM-Playground's Tables 2-5 and the difficulty-weighted overall scores;
- :func:`gamebot_report`: GameBot's outcome scores S, intermediate scores I and (S + I) / 2;
- :func:`gvgai_report`: GVGAI-LLM's win rates per game and the overall score per player.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engine import stats
from engine.protocols.papers import PaperCell, PaperRow, PaperTable
from engine.protocols.spec import ABLATIONS, Protocol
from engine.roster import is_model_spec

__all__ = ["Cell", "Report", "Row", "Table", "gamebot_report", "gvgai_report", "lvlm_report", "scores_report"]

OURS = "ours"
PAPER = "paper"


@dataclasses.dataclass(frozen=True, slots=True)
class Cell:
    """A value of a table: a mean with its ± (SD or SE, as the table says) over ``n``, or a text."""

    mean: float | None
    spread: float | None = None
    n: int | None = None
    text: str | None = None

    def show(self, digits: int = 1) -> str:
        if self.text is not None and self.mean is None:
            return self.text
        if self.mean is None:
            return "-"
        body = f"{self.mean:.{digits}f}"
        if self.spread is not None:
            body += f" ± {self.spread:.{digits}f}"
        return body

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean, "spread": self.spread, "n": self.n, "text": self.text}


@dataclasses.dataclass
class Row:
    label: str
    source: str
    cells: dict[str, Cell]
    #: Column -> ``"within"`` / ``"outside"`` the paper's interval, with the interval.
    checks: dict[str, str] = dataclasses.field(default_factory=dict)
    group: str = ""
    #: A baseline row: ours of random or a built-in bot, or the paper's row for one.
    baseline: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "source": self.source, "group": self.group, "baseline": self.baseline,
                "cells": {k: v.to_json() for k, v in self.cells.items()}, "checks": dict(self.checks)}


@dataclasses.dataclass
class Table:
    id: str
    title: str
    columns: list[str]
    rows: list[Row]
    notes: list[str] = dataclasses.field(default_factory=list)
    digits: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "columns": list(self.columns),
                "rows": [r.to_json() for r in self.rows], "notes": list(self.notes)}


@dataclasses.dataclass
class Report:
    """A reproduction's report: its tables, and the data its figures are drawn from."""

    protocol: str
    title: str
    player: str | None
    tables: list[Table]
    figures: dict[str, Any] = dataclasses.field(default_factory=dict)
    notes: list[str] = dataclasses.field(default_factory=list)

    @property
    def checks(self) -> list[tuple[str, str, str, str]]:
        """Every baseline check: (table, row, column, verdict)."""
        return [(t.id, r.label, col, verdict) for t in self.tables for r in t.rows
                for col, verdict in r.checks.items()]

    def to_json(self) -> dict[str, Any]:
        return {"protocol": self.protocol, "title": self.title, "player": self.player,
                "tables": [t.to_json() for t in self.tables], "notes": list(self.notes),
                "checks": [{"table": t, "row": r, "column": c, "verdict": v} for t, r, c, v in self.checks]}


def _paper_rows(table: PaperTable, columns: Sequence[str], *, group: str = "") -> list[Row]:
    """The paper's rows, its baseline rows (random, human, planners) first."""
    rows = []
    for prow in sorted(table.rows, key=lambda r: r.baseline is None):
        cells = {c: _paper_cell(prow.cells[c]) for c in columns if c in prow.cells}
        rows.append(Row(f"{prow.label} (paper)", PAPER, cells, group=group,
                        baseline=prow.baseline is not None))
    return rows


def _paper_cell(cell: PaperCell) -> Cell:
    return Cell(cell.mean, cell.spread, None, cell.text)


def check(value: float, cell: PaperCell, n: int, statistic: str, *, rate_n_ours: int | None = None,
          digits: int = 1) -> str:
    """Whether ``value`` lies within the paper's interval for ``cell``: mean ± 2 SE of the paper's
    ``n`` runs (SE from the printed SD or SE), or a rate's binomial interval when no ± is printed."""
    if cell.mean is None:
        return "no paper value"
    if cell.spread is not None:
        lo, hi = stats.paper_interval(cell.mean, cell.spread, n, statistic=statistic)
        how = f"paper mean ± 2 SE of {n} runs"
    elif rate_n_ours is not None and 0 <= cell.mean <= 1:
        lo, hi = stats.rate_interval(cell.mean, n, n_ours=rate_n_ours)
        how = f"paper rate ± 2 binomial SE ({n} paper items, {rate_n_ours} of ours)"
    else:
        return "no interval (the paper prints no spread)"
    verdict = "within" if lo - 1e-9 <= value <= hi + 1e-9 else "outside"
    return f"{verdict} [{lo:.{digits + 1}f}, {hi:.{digits + 1}f}] ({how})"


# -- LMGame-Bench and the modular-harness paper ----------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Episodes:
    """The raw scores of one group of cells (a run's lineup and harness setting, per game), by seed."""

    run: str
    lineup: str
    setting: str
    values: dict[str, dict[int, float]]  # game label -> seed -> raw


def group_episodes(run: str, rows: Iterable[Mapping[str, Any]]) -> list[Episodes]:
    """The sweep index's done rows of a run, grouped by lineup and harness setting."""
    groups: dict[tuple[str, str], dict[str, dict[int, float]]] = {}
    for row in rows:
        if row.get("raw") is None:
            continue
        lineup = " vs ".join(row.get("players") or [])
        key = (lineup, str(row.get("harness_name") or "default"))
        groups.setdefault(key, {}).setdefault(str(row["game_label"]),
                                              {})[int(row["seed"])] = float(row["raw"])
    return [Episodes(run, lineup, setting, values) for (lineup, setting), values in groups.items()]


def _describe(values: Mapping[int, float], statistic: str) -> Cell:
    d = stats.describe(list(values.values()))
    return Cell(d.mean, d.spread(statistic), d.n)


def metrics_table(protocol: Protocol, metrics: Sequence[tuple[str, str, str, Mapping[str, Any]]]) -> Table:
    """The protocol's extra metrics (``[report] metrics``): one row per run, lineup and setting, one
    column per game and metric, mean ± the protocol's spread. ``metrics``: (run, lineup, setting, the
    final metrics of one episode, with its ``game`` label under ``"_game"``)."""
    columns = [f"{g}: {m}" for g, names in protocol.report_metrics.items() for m in names]
    groups: dict[tuple[str, str, str], dict[str, list[float]]] = {}
    for run, lineup, setting, values in metrics:
        game = str(values.get("_game"))
        for m in protocol.report_metrics.get(game, ()):
            v = values.get(m)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
                groups.setdefault((run, lineup, setting), {}).setdefault(f"{game}: {m}", []).append(float(v))
    table = Table("metrics", "Further figures of the paper, per episode (mean ± "
                  f"{'SD' if protocol.statistic == 'sd' else 'SE'})", columns, [], digits=2)
    for (run, lineup, setting), cols in groups.items():
        label = _variant_label(protocol, setting) if setting not in ("", "default") else run
        cells = {}
        for c, vals in cols.items():
            d = stats.describe(vals)
            cells[c] = Cell(d.mean, d.spread(protocol.statistic), d.n)
        table.rows.append(Row(f"{lineup} · {label} (ours)", OURS, cells))
    return table


def scores_report(protocol: Protocol, papers: Mapping[str, PaperTable], episodes: Sequence[Episodes],
                  player: str | None,
                  metrics: Sequence[tuple[str, str, str, Mapping[str, Any]]] = ()) -> Report:
    """LMGame-Bench's (and the modular-harness paper's) tables from a reproduction's episodes."""
    statistic = protocol.statistic
    runs = {r.name: r for r in protocol.runs}
    variants = {v.name: v for v in protocol.variants}
    main = next(iter(papers.values()), None)
    game_labels = [g.label for g in protocol.games]
    columns = [c for c in (main.columns if main else ()) if c in game_labels]
    columns += [g for g in game_labels if g not in columns]
    played = {g for e in episodes for g in e.values}
    columns = [c for c in columns if c in played] or columns
    word = "SD" if statistic == "sd" else "SE"

    table = Table("scores", f"{main.title if main else 'Raw scores'} — ours beside the paper's "
                  f"(mean ± {word}, n episodes)", list(columns), [])
    random_values: dict[str, dict[int, float]] = {}
    for e in episodes:
        run = runs.get(e.run)
        if run is None:
            continue
        variant = variants.get(e.setting)
        name = f"{e.lineup} · {variant.label}" if variant else (
            e.lineup if run.baseline else f"{e.lineup} · {run.label}")
        row = Row(f"{name} (ours)", OURS, {g: _describe(v, statistic) for g, v in e.values.items() if v},
                  group=run.label, baseline=run.baseline)
        if run.baseline:
            prow = main.baseline_row(e.lineup) if main else None
            if e.lineup == "random":
                random_values = e.values
            if prow is not None:
                for g, cell in row.cells.items():
                    if g in prow.cells and cell.mean is not None:
                        row.checks[g] = check(cell.mean, prow.cells[g], prow.n or main.n if main else 30,
                                              main.statistic if main else "sd")
        table.rows.append(row)
    if main is not None:
        table.rows += _paper_rows(main, columns)
    table.notes.append(f"Our rows: mean ± {word} of the raw score over n episodes (n printed per cell in "
                       "the JSON report); paper rows as printed. A baseline row is within the paper's "
                       "interval when its mean lies in the paper's mean ± 2 SE (SE = SD / √30 for the "
                       "30 random runs).")
    tables = [table]
    model = [e for e in episodes if e.run in runs and runs[e.run].variants]
    tables.append(_ablation(protocol, papers, model, columns, statistic))
    tables.append(_glass(protocol, main, model, random_values, columns))
    tables.append(_paired(protocol, papers, model, columns))
    tables.append(_cv(episodes, runs, variants, columns, random_values))
    if protocol.report_metrics:
        tables.append(metrics_table(protocol, metrics))
    figures = {
        "ablation": {g: {a: next((r.cells[a].mean for r in tables[1].rows
                                  if r.source == OURS and r.label.startswith(g + " ·")
                                  and a in r.cells and r.cells[a].mean is not None), None)
                         for a in ABLATIONS} for g in columns},
        "distributions": {g: {f"{e.lineup} · {e.setting if e.setting != 'default' else e.run}":
                              list(e.values.get(g, {}).values())
                              for e in episodes if e.values.get(g)} for g in columns},
    }
    return Report(protocol.id, protocol.title, player, [t for t in tables if t.rows], figures)


def _ablation_of(protocol: Protocol, setting: str) -> str | None:
    for v in protocol.variants:
        if v.name == setting:
            return v.ablation
    return None


def _ablation(protocol: Protocol, papers: Mapping[str, PaperTable], model: Sequence[Episodes],
              columns: Sequence[str], statistic: str) -> Table:
    word = "SD" if statistic == "sd" else "SE"
    table = Table("ablation", f"Harness ablation (mean ± {word})", list(ABLATIONS), [])
    for game in columns:
        by_lineup: dict[str, dict[str, Cell]] = {}
        for e in model:
            col = _ablation_of(protocol, e.setting)
            if col is None or not e.values.get(game):
                continue
            by_lineup.setdefault(e.lineup, {})[col] = _describe(e.values[game], statistic)
        for lineup, cells in by_lineup.items():
            table.rows.append(Row(f"{game} · {lineup} (ours)", OURS, cells, group=game))
    paper = next((t for t in papers.values() if t.columns == ABLATIONS), None)
    if paper is not None:
        for prow in paper.rows:
            game = prow.label.rsplit(" · ", 1)[-1]
            if game in columns:
                table.rows.append(Row(f"{prow.label} (paper)", PAPER,
                                      {c: _paper_cell(prow.cells[c]) for c in ABLATIONS}, group=game))
        table.title = f"{paper.title} — ours beside the paper's"
    return table


def _glass(protocol: Protocol, main: PaperTable | None, model: Sequence[Episodes],
           random_values: Mapping[str, Mapping[int, float]], columns: Sequence[str]) -> Table:
    table = Table("glass", "Glass's δ = (model mean − random mean) / random SD", list(columns), [], digits=3)
    prandom = main.baseline_row("random") if main else None
    for e in model:
        label = _variant_label(protocol, e.setting)
        ours: dict[str, Cell] = {}
        theirs: dict[str, Cell] = {}
        for g in columns:
            vals = list(e.values.get(g, {}).values())
            if not vals:
                continue
            rand = list(random_values.get(g, {}).values())
            if len(rand) > 1:
                d = stats.glass_delta(vals, rand)
                ours[g] = Cell(d, None, len(vals), None if d is not None else "n/a (random has no spread)")
            if prandom is not None and g in prandom.cells:
                pc = prandom.cells[g]
                if pc.mean is not None and pc.spread:
                    theirs[g] = Cell((stats.describe(vals).mean - pc.mean) / pc.spread, None, len(vals))
        if ours:
            table.rows.append(Row(f"{e.lineup} · {label} vs our random runs (ours)", OURS, ours))
        if theirs:
            table.rows.append(Row(f"{e.lineup} · {label} vs the paper's random row (ours)", OURS, theirs))
    table.notes.append("Glass's δ is undefined where the random runs do not vary (Sokoban, the courtroom).")
    return table


def _variant_label(protocol: Protocol, setting: str) -> str:
    return next((v.label for v in protocol.variants if v.name == setting), setting)


def _paired(protocol: Protocol, papers: Mapping[str, PaperTable], model: Sequence[Episodes],
            columns: Sequence[str]) -> Table:
    table = Table("paired", "Paired t-test, harness (+Both) against none (ZS): ours pair episodes by seed",
                  ["n", "mean gain", "% gain", "t", "p"], [], digits=3)
    by_class: dict[tuple[str, str], Episodes] = {}
    for e in model:
        col = _ablation_of(protocol, e.setting)
        if col is not None:
            by_class[(e.lineup, col)] = e
    for lineup in dict.fromkeys(lineup for lineup, _ in by_class):
        on, off = by_class.get((lineup, "+Both")), by_class.get((lineup, "ZS"))
        if on is None or off is None:
            continue
        for g in columns:
            a, b = on.values.get(g, {}), off.values.get(g, {})
            seeds = sorted(set(a) & set(b))
            if len(seeds) < 2:
                continue
            test = stats.paired_t([a[s] for s in seeds], [b[s] for s in seeds])
            table.rows.append(Row(f"{g} · {lineup} (ours)", OURS, {
                "n": Cell(float(test.n), text=str(test.n)), "mean gain": Cell(test.mean_diff),
                "% gain": Cell(test.percent, text="-" if test.percent is None else None),
                "t": Cell(test.t, text="n/a (no spread)" if test.t is None else None),
                "p": Cell(test.p, text="n/a" if test.p is None else None)}, group=g))
    paper = papers.get(table.id)  # a paper's paired t-tests are filed under the id of this table
    if paper is not None:
        for prow in paper.rows:
            cells: dict[str, Cell] = {}
            for c, pc in prow.cells.items():
                key = {"t (df = 9)": "t", "mean gain": "mean gain"}.get(c, c)
                cells[key] = _paper_cell(pc)
            table.rows.append(Row(f"{prow.label} (paper, across ten models)", PAPER, cells))
    return table


def _cv(episodes: Sequence[Episodes], runs: Mapping[str, Any], variants: Mapping[str, Any],
        columns: Sequence[str], random_values: Mapping[str, Mapping[int, float]]) -> Table:
    table = Table("cv", "Coefficient of variation (%) = SD / mean × 100", list(columns), [], digits=3)
    for e in episodes:
        if e.run not in runs:
            continue
        variant = variants.get(e.setting)
        cells = {}
        for g in columns:
            vals = list(e.values.get(g, {}).values())
            if len(vals) > 1:
                value = stats.cv(vals)
                cells[g] = Cell(value, None, len(vals), None if value is not None else "n/a (mean 0)")
        if cells:
            name = f"{e.lineup} · {variant.label}" if variant else e.lineup
            table.rows.append(Row(f"{name} (ours)", OURS, cells))
    return table


# -- LVLM-Playground ------------------------------------------------------------------------------------


def lvlm_report(protocol: Protocol, papers: Mapping[str, PaperTable], records: Sequence[Mapping[str, Any]],
                player: str | None, *, overall: Callable[[Mapping[str, float], str], float],
                weights: Mapping[str, Mapping[str, float]]) -> Report:
    """Tables 2-5 from task results and end-to-end games (records: task, game, player, label, score,
    scored) and the overall score per task (``overall``: :func:`engine.tasks.overall`)."""
    tables = []
    radar: dict[str, dict[str, float]] = {}
    for task in ("perceive", "qa", "rules", "e2e"):
        paper = papers.get(task)
        mine = [r for r in records if r["task"] == task]
        if not mine and paper is None:
            continue
        columns = list(paper.columns) if paper else sorted({str(r["game"]) for r in mine})
        digits = 1 if task == "e2e" else 3
        table = Table(task, f"{paper.title if paper else task} — ours beside the paper's",
                      [*columns, "overall"], [], digits=digits)
        pooled: dict[str, dict[str, list[float]]] = {}
        labels: dict[str, str] = {}
        for r in mine:
            acc = pooled.setdefault(str(r["player"]), {}).setdefault(str(r["game"]), [0.0, 0.0])
            weight = float(r.get("scored") or 1)
            acc[0] += float(r["score"]) * weight
            acc[1] += weight
            labels[str(r["player"])] = str(r.get("label") or r["player"])
        for spec, games in pooled.items():
            scores = {g: s / w for g, (s, w) in games.items() if w}
            cells = {g: Cell(v, None, int(games[g][1])) for g, v in scores.items()}
            cells["overall"] = Cell(overall(scores, task))
            row = Row(f"{labels[spec]} (ours)", OURS, cells, baseline=not is_model_spec(spec))
            prow = paper.baseline_row(spec) if paper else None
            if prow is not None and paper is not None:
                for g, v in scores.items():
                    if g in prow.cells:
                        row.checks[g] = check(v, prow.cells[g], prow.n or paper.n, "se",
                                              rate_n_ours=int(games[g][1]), digits=3)
            table.rows.append(row)
            if task != "e2e":
                radar.setdefault(f"{labels[spec]} (ours)", {})[task] = cells["overall"].mean or 0.0
        if paper is not None:
            for prow in paper.rows:
                cells = {c: _paper_cell(prow.cells[c]) for c in paper.columns}
                known = {c: v.mean for c, v in cells.items() if v.mean is not None}
                if known:
                    cells["overall"] = Cell(overall(known, task))
                table.rows.append(Row(f"{prow.label} (paper)", PAPER, cells,
                                      baseline=prow.baseline is not None))
        table.notes.append("overall: the difficulty-weighted mean over the games (weights: the reference "
                           "code's ability ratings summed over the task's abilities).")
        tables.append(table)
    if "overall" in papers:
        for prow in papers["overall"].rows:
            radar.setdefault(f"{prow.label} (paper)", {}).update(
                {t: c.mean for t, c in prow.cells.items() if c.mean is not None and t != "e2e"})
    return Report(protocol.id, protocol.title, player, tables, {"radar": radar, "weights": dict(weights)})


# -- GameBot --------------------------------------------------------------------------------------------


def gamebot_report(protocol: Protocol, papers: Mapping[str, PaperTable], table: Any,
                   player: str | None) -> Report:
    """GameBot's Tables 2 and 3 and the final score from an :class:`engine.tournament.ScoreTable`."""
    games = [g.id for g in protocol.games if g.id in table.games]
    out = []
    for tid, what in (("table2", "S"), ("table3", "I")):
        paper = papers.get(tid)
        columns = [*games, "average"]
        t = Table(tid, f"{paper.title if paper else what} — ours beside the paper's", columns, [], digits=2)
        for p in table.players:
            cells = {}
            for g in games:
                st = table.standing(g, p)
                if st is None:
                    continue
                value = (st.counted if what == "S" else st.intermediate)
                cells[g] = Cell(value, None, st.played, "-" if value is None else None)
            total = table.totals[p]
            avg = total.outcome if what == "S" else total.intermediate
            cells["average"] = Cell(avg, None, None, "-" if avg is None else None)
            row = Row(f"{table.labels.get(p, p)} (ours)", OURS, cells,
                      baseline=not is_model_spec(p.split(" · ")[0]))
            if what == "S" and paper is not None and paper.baseline_row(p) is not None:
                row.checks = {g: "not comparable: the paper's Random met 17 models, ours meets the built-in "
                                 "bots and the model under test" for g in cells if g != "average"}
            t.rows.append(row)
        if paper is not None:
            t.rows += _paper_rows(paper, columns)
        out.append(t)
    final = Table("final", "Final score (S + I) / 2", ["S", "I", "final"], [], digits=3)
    for total in table.ranking:
        final.rows.append(Row(f"{total.label} (ours)", OURS, {
            "S": Cell(total.outcome), "I": Cell(total.intermediate, text="-" if total.intermediate is None
                                                  else None),
            "final": Cell(total.final, text="-" if total.final is None else None)}))
    if "final" in papers:
        final.rows += _paper_rows(papers["final"], ["S", "I", "final"])
    out.append(final)
    return Report(protocol.id, protocol.title, player, out)


# -- GVGAI-LLM ------------------------------------------------------------------------------------------


def gvgai_report(protocol: Protocol, papers: Mapping[str, PaperTable], episodes: Sequence[Any],
                 scored: Any, player: str | None) -> Report:
    """GVGAI-LLM's Table 3 (win rate per game) and the overall score per player from VGDL episode
    summaries (``.game``, ``.player``, ``.won``) and their :func:`overall_scores` table."""
    games = list(dict.fromkeys(g.label.rsplit("-", 1)[0] if "-level" in g.label else g.label
                               for g in protocol.games))
    paper = papers.get("table3")
    win = Table("table3", f"{paper.title if paper else 'Win rates (%)'} — ours beside the paper's",
                games, [], digits=1)
    players = list(dict.fromkeys(e.player for e in episodes))
    for p in players:
        cells = {}
        for g in games:
            eps = [e for e in episodes if e.player == p and e.game == g]
            if eps:
                cells[g] = Cell(100 * sum(bool(e.won) for e in eps) / len(eps), None, len(eps))
        win.rows.append(Row(f"{p} (ours)", OURS, cells, baseline=not is_model_spec(p.split(" · ")[0])))
    if paper is not None:
        win.rows += _paper_rows(paper, games)
    overall = Table("overall", "Per player: win rate, meaningful-step ratio, step efficiency, normalised "
                    "reward and overall score (means over its game levels)",
                    ["episodes", "win %", "meaningful %", "efficiency", "norm. reward",
                     "score"], [], digits=3)
    for p in players:
        mine = [r for r in scored.rows if r.player == p]
        if not mine:
            continue

        def mean(attr: str, rows: Sequence[Any] = mine) -> float:
            return sum(float(getattr(r, attr)) for r in rows) / len(rows)

        overall.rows.append(Row(f"{p} (ours)", OURS, {
            "episodes": Cell(float(sum(r.episodes for r in mine)), text=str(sum(r.episodes for r in mine))),
            "win %": Cell(100 * mean("win_rate")), "meaningful %": Cell(100 * mean("meaningful_ratio")),
            "efficiency": Cell(mean("step_efficiency")), "norm. reward": Cell(mean("normalised_reward")),
            "score": Cell(mean("score"))}))
    pop = getattr(scored, "population", {}) or {}
    overall.notes.append(f"Normalised over {pop.get('episodes', '?')} episodes of this reproduction "
                         f"(players: {', '.join(pop.get('players', []))}).")
    tables = [win, overall]
    grounding = _grounding(papers, episodes, games, players)
    if grounding.rows:
        tables.append(grounding)
    if "table4" in papers:
        t4 = papers["table4"]
        tables.append(Table("table4", t4.title, list(t4.columns), _paper_rows(t4, t4.columns), digits=3))
    return Report(protocol.id, protocol.title, player, tables)


def _grounding(papers: Mapping[str, PaperTable], episodes: Sequence[Any], games: Sequence[str],
               players: Sequence[str]) -> Table:
    """Table 6: each grounding run's wins against the zero-shot run's, game by game, with Fisher's
    exact test (two-sided p) over the episodes of each, as the paper tests its coordinate tagger."""
    table = Table("table6", "Table 6: win rate (%) with grounding against zero-shot, Fisher's exact p",
                  list(games), [], digits=3)
    base = next((p for p in players if p.endswith(" · zero-shot")), None)
    if base is None:
        return table
    model = base.rsplit(" · ", 1)[0]

    def wins(player: str, game: str) -> tuple[int, int]:
        eps = [e for e in episodes if e.player == player and e.game == game]
        return sum(bool(e.won) for e in eps), len(eps)

    for p in players:
        if not p.startswith(model + " · ") or p == base:
            continue
        rates: dict[str, Cell] = {}
        tests: dict[str, Cell] = {}
        for g in games:
            (wa, na), (wb, nb) = wins(p, g), wins(base, g)
            if na and nb:
                rates[g] = Cell(100 * wa / na, None, na)
                tests[g] = Cell(stats.fisher_exact(wa, na, wb, nb), None, na + nb)
        if rates:
            table.rows.append(Row(f"{p}: win % (ours)", OURS, rates))
            table.rows.append(Row(f"{p} against zero-shot: Fisher's p (ours)", OURS, tests))
    base_rates = {g: Cell(100 * w / n, None, n) for g in games for w, n in [wins(base, g)] if n}
    if base_rates:
        table.rows.insert(0, Row(f"{base}: win % (ours)", OURS, base_rates))
    paper = papers.get("table6")
    if paper is not None:
        for prow in paper.rows:
            table.rows.append(Row(f"{prow.label}: win rate (paper)", PAPER,
                                  {g: Cell(100 * c.mean, None, None) if c.mean is not None else _paper_cell(c)
                                   for g, c in prow.cells.items() if g in games}))
    table.notes.append("The paper finds no improvement significant (Fisher's exact test, 25 episodes "
                       "a game).")
    return table


def finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


def baseline_rows(report: Report) -> list[Row]:
    """Our rows that carry a check against the paper."""
    return [r for t in report.tables for r in t.rows if r.checks]


def paper_row(table: PaperTable, label: str) -> PaperRow | None:
    return next((r for r in table.rows if r.label == label), None)
