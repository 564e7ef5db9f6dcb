"""A reproduction folder's report: read its results, build the paper's tables, write them and the figures.

``playtrace reproduce`` keeps, in its folder, the protocol as played (``protocol.toml``), one sweep
results folder per run and LVLM-Playground's task sets (``tasks/``). :func:`build_report` reads them
(the sweep indexes, the task results, the recorded sessions for GameBot's intermediate answers and
GVGAI-LLM's step metrics) and hands plain data to :mod:`engine.protocols.report`.
:func:`write_files` writes every table as Markdown, CSV and LaTeX and draws the paper's figures (the
harness ablation bars, score distributions, LVLM-Playground's ability radar) as PNG and SVG with
matplotlib's Agg backend (no window, no Qt).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.protocols.report import OURS, Report, Table

__all__ = ["build_report", "markdown", "print_report", "write_files"]


def _protocol(folder: Path) -> Any:
    from engine.protocols import parse_protocol

    return parse_protocol((folder / "protocol.toml").read_text(encoding="utf-8"),
                          name=str(folder / "protocol.toml"))


def _player(folder: Path) -> str | None:
    try:
        return json.loads((folder / "reproduce.json").read_text(encoding="utf-8")).get("player")
    except (OSError, ValueError):
        return None


def _meta(folder: Path) -> dict[str, Any]:
    try:
        data = json.loads((folder / "reproduce.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _current_cells(folder: Path, protocol: Any) -> dict[str, set[str]] | None:
    """The cell keys of each run of the protocol as it stands, for the player and inputs the folder
    was played with (episodes of cells an earlier version of the protocol played are left out);
    ``None`` when the protocol cannot be planned here (then every episode counts)."""
    from engine.protocols import ProtocolFileError, plan

    meta = _meta(folder)
    try:
        planned = plan(protocol, player=meta.get("player"), inputs=meta.get("inputs") or {},
                       max_steps=meta.get("max_steps"))
    except (ProtocolFileError, ValueError):
        return None
    return {p.run.name: {c.key for c in p.sweep.cells} for p in planned.runs}


def _index_rows(folder: Path, keep: set[str] | None = None) -> list[dict[str, Any]]:
    from engine.sweep.index import INDEX_FILE, SweepIndex

    if not (folder / INDEX_FILE).exists():
        return []
    with SweepIndex(folder, create=False) as index:
        rows = index.rows("done")
    return [r for r in rows if keep is None or r["cell"] in keep]


def _run_rows(folder: Path, protocol: Any) -> dict[str, list[dict[str, Any]]]:
    """Each run's finished episodes of the protocol's current cells."""
    cells = _current_cells(folder, protocol)
    return {run.name: _index_rows(folder / run.name, None if cells is None else cells.get(run.name, set()))
            for run in protocol.runs}


def _final_metrics(folder: Path, protocol: Any, runs: dict[str, list[dict[str, Any]]]
                   ) -> list[tuple[str, str, str, dict[str, Any]]]:
    """The final metrics of the episodes of the games whose further figures the report shows."""
    import sessions

    out = []
    for run in protocol.runs:
        for row in runs[run.name]:
            if row.get("game_label") not in protocol.report_metrics or not row.get("session"):
                continue
            path = Path(row["session"])
            path = path if path.is_absolute() else folder / run.name / path
            try:
                events = sessions.load_session(path).events
            except Exception:  # noqa: BLE001  (an unreadable session leaves its figures out)
                continue
            finished = next((e for e in reversed(events) if e.get("type") == "session_finished"), None)
            metrics = dict(((finished or {}).get("data") or {}).get("metrics") or {})
            metrics["_game"] = row["game_label"]
            out.append((run.name, " vs ".join(row.get("players") or []), str(row.get("harness_name") or ""),
                        metrics))
    return out


def _session_paths(folder: Path, run: str, rows: list[dict[str, Any]]) -> list[Path]:
    out = []
    for row in rows:
        if row.get("session"):
            path = Path(row["session"])
            out.append(path if path.is_absolute() else folder / run / path)
    return [p for p in out if p.is_dir()]


def build_report(folder: Path) -> Report:
    """The report of a reproduction folder."""
    from engine.protocols import report as rp
    from engine.protocols.papers import load_paper

    protocol = _protocol(folder)
    papers = load_paper(protocol.report_paper)
    player = _player(folder)
    if protocol.report_kind == "scores":
        runs = _run_rows(folder, protocol)
        episodes = [e for run in protocol.runs for e in rp.group_episodes(run.name, runs[run.name])]
        return rp.scores_report(protocol, papers, episodes, player, _final_metrics(folder, protocol, runs))
    if protocol.report_kind == "lvlm":
        return _lvlm(folder, protocol, papers, player)
    if protocol.report_kind == "gamebot":
        return _gamebot(folder, protocol, papers, player)
    return _gvgai(folder, protocol, papers, player)


def _lvlm(folder: Path, protocol: Any, papers: Any, player: str | None) -> Report:
    from desktop.cli.tasks import e2e_records
    from engine.protocols.report import lvlm_report
    from engine.tasks import GAME_RATINGS, TaskSetError, load_results, overall

    records: list[dict[str, Any]] = []
    for path in sorted((folder / "tasks").glob("*/results/*.json")):
        try:
            records.append(load_results(path))
        except TaskSetError:
            continue
    runs = _run_rows(folder, protocol)
    sessions = [p for run in protocol.runs for p in _session_paths(folder, run.name, runs[run.name])]
    records += e2e_records(sessions) if sessions else []
    return lvlm_report(protocol, papers, records, player, overall=overall, weights=GAME_RATINGS)


def _gamebot(folder: Path, protocol: Any, papers: Any, player: str | None) -> Report:
    import sessions
    from engine.protocols.report import gamebot_report
    from engine.roster import is_model_spec
    from engine.tournament import build_table, record_from_session

    records = []
    runs = _run_rows(folder, protocol)
    for run in protocol.runs:
        for row in runs[run.name]:
            if not row.get("session"):
                continue
            path = Path(row["session"])
            if not path.is_absolute():
                path = folder / run.name / path
            try:
                session = sessions.load_session(path)
                record = record_from_session(session.manifest, session.events)
            except Exception:  # noqa: BLE001  (an unreadable session leaves its match out, not the report)
                continue
            if record is None:
                continue
            setting = str(row.get("harness_name") or "")
            seats = tuple(f"{s} · {setting}" if is_model_spec(s) and setting not in ("", "default") else s
                          for s in record.seats)
            records.append(dataclasses.replace(record, seats=seats, labels=seats))
    games = [g.id for g in protocol.games]
    return gamebot_report(protocol, papers, build_table(records, games=games), player)


def _gvgai(folder: Path, protocol: Any, papers: Any, player: str | None) -> Report:
    from desktop.cli.vgdl import load_episodes
    from engine.protocols.report import gvgai_report

    episodes: list[Any] = []
    scorer = None
    runs = _run_rows(folder, protocol)
    for run in protocol.runs:
        where = _session_paths(folder, run.name, runs[run.name])
        if not where:
            continue
        found, score_fn, *_ = load_episodes(where)
        scorer = scorer or score_fn
        for e in found:
            label = e.player if run.name == e.player else f"{e.player} · {run.name}"
            episodes.append(dataclasses.replace(e, player=label))
    if scorer is None or not episodes:
        from engine.protocols.report import Report as _Report

        return _Report(protocol.id, protocol.title, player, [], notes=["no finished VGDL sessions yet"])
    return gvgai_report(protocol, papers, episodes, scorer(episodes), player)


# -- text, Markdown, CSV, LaTeX -------------------------------------------------------------------------


def _cells(table: Table) -> list[list[str]]:
    """The table's text: our means ± spread carry their number of episodes where it varies."""
    out = []
    for row in table.rows:
        line = [row.label]
        for c in table.columns:
            cell = row.cells.get(c)
            text = "" if cell is None else cell.show(table.digits)
            if cell is not None and row.source == OURS and cell.spread is not None and cell.n:
                text += f" (n={cell.n})"
            line.append(text)
        out.append(line)
    return out


def _checks(table: Table) -> list[str]:
    lines = []
    for row in table.rows:
        for col, verdict in row.checks.items():
            lines.append(f"{row.label}, {col}: {verdict}")
    return lines


def print_report(report: Report, console: Any) -> None:
    from desktop.cli.common import compact_table

    console.print(f"{report.title} ({report.protocol})" + (f", model under test: {report.player}"
                                                          if report.player else ""), soft_wrap=True)
    for table in report.tables:
        t = compact_table(title=table.title, title_justify="left")
        t.add_column("row", overflow="fold")
        for col in table.columns:
            t.add_column(col, justify="right", overflow="fold")
        for row, cells in zip(table.rows, _cells(table), strict=True):
            t.add_row(*cells, style=None if row.source == OURS else "dim")
        console.print(t)
        for line in _checks(table):
            console.print(f"  {line}", soft_wrap=True)
        for note in table.notes:
            console.print(f"  {note}", soft_wrap=True)
    for note in report.notes:
        console.print(note, soft_wrap=True)


def markdown(report: Report) -> str:
    """Every table of the report as Markdown, the checks under each."""
    parts = [f"# {report.title}: reproduction report", ""]
    if report.player:
        parts += [f"Model under test: `{report.player}`.", ""]
    for table in report.tables:
        parts += [f"## {table.title}", "", "| row | " + " | ".join(table.columns) + " |",
                  "|---|" + "---:|" * len(table.columns)]
        for cells in _cells(table):
            parts.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        parts.append("")
        checks = _checks(table)
        if checks:
            parts += [f"- {c}" for c in checks] + [""]
        parts += [f"_{n}_" for n in table.notes] + ([""] if table.notes else [])
    return "\n".join(parts)


def _latex_escape(text: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"), ("#", r"\#"),
                 ("±", r"$\pm$"), ("δ", r"$\delta$"), ("×", r"$\times$"), ("−", "-"), ("√", r"$\surd$")):
        text = text.replace(a, b)
    return text


def latex(table: Table) -> str:
    cols = "l" + "r" * len(table.columns)
    lines = [r"\begin{table}[h]", r"\centering", rf"\caption{{{_latex_escape(table.title)}}}",
             rf"\begin{{tabular}}{{{cols}}}", r"\hline",
             " & ".join(["row", *(_latex_escape(c) for c in table.columns)]) + r" \\", r"\hline"]
    for row, cells in zip(table.rows, _cells(table), strict=True):
        body = " & ".join(_latex_escape(c) for c in cells) + r" \\"
        lines.append(body if row.source == OURS else r"\textit{" + body.replace(" & ", r"} & \textit{", 1)
                     .replace(r" \\", r" \\", 1))
    lines += [r"\hline", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def csv_text(table: Table) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["row", "source", *(f"{c} mean" for c in table.columns), *(f"{c} ±" for c in table.columns),
                "checks"])
    for row in table.rows:
        means = [row.cells[c].mean if c in row.cells else "" for c in table.columns]
        spreads = [row.cells[c].spread if c in row.cells and row.cells[c].spread is not None else ""
                   for c in table.columns]
        w.writerow([row.label, row.source, *means, *spreads,
                    "; ".join(f"{c}: {v}" for c, v in row.checks.items())])
    return buf.getvalue()


def write_files(report: Report, out: Path) -> list[Path]:
    """Write ``report.md``, ``report.html`` (one self-contained page), one CSV and one LaTeX file per
    table, and the figures (PNG and SVG)."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    path = out / "report.md"
    path.write_text(markdown(report), encoding="utf-8")
    written.append(path)
    (out / "report.json").write_text(json.dumps(report.to_json(), indent=2, default=str), encoding="utf-8")
    written.append(out / "report.json")
    for table in report.tables:
        for suffix, text in ((".csv", csv_text(table)), (".tex", latex(table))):
            p = out / f"{table.id}{suffix}"
            p.write_text(text, encoding="utf-8")
            written.append(p)
    figures = plots(report, out)
    written += figures
    page = out / "report.html"
    page.write_text(html_page(report, [f for f in figures if f.suffix == ".svg"]), encoding="utf-8")
    written.append(page)
    return written


def html_page(report: Report, figures: Sequence[Path] = ()) -> str:
    """The report as one self-contained page: every table (the paper's rows in grey italics), the checks
    of our baseline rows, the notes, and the figures embedded as ``data:`` SVGs. Nothing is fetched (a
    Content-Security-Policy of ``default-src 'none'``)."""
    import base64
    import html

    def esc(text: str) -> str:
        return html.escape(str(text))

    parts = [f"<h1>{esc(report.title)}: reproduction report</h1>"]
    if report.player:
        parts.append(f"<p>Model under test: <code>{esc(report.player)}</code>.</p>")
    for table in report.tables:
        head = "".join(f"<th>{esc(c)}</th>" for c in ["row", *table.columns])
        body = []
        for row, cells in zip(table.rows, _cells(table), strict=True):
            cls = "" if row.source == OURS else ' class="paper"'
            tds = "".join(f"<td>{esc(c)}</td>" for c in cells)
            body.append(f"<tr{cls}>{tds}</tr>")
        parts.append(f"<h2>{esc(table.title)}</h2><table><thead><tr>{head}</tr></thead>"
                     f"<tbody>{''.join(body)}</tbody></table>")
        checks = _checks(table)
        if checks:
            parts.append("<ul>" + "".join(f"<li>{esc(c)}</li>" for c in checks) + "</ul>")
        parts += [f"<p class=\"note\">{esc(n)}</p>" for n in table.notes]
    parts += [f"<p class=\"note\">{esc(n)}</p>" for n in report.notes]
    for figure in figures:
        data = base64.b64encode(figure.read_bytes()).decode("ascii")
        parts.append(f'<figure><img alt="{esc(figure.stem)}" src="data:image/svg+xml;base64,{data}">'
                     f"<figcaption>{esc(figure.stem)}</figcaption></figure>")
    csp = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
    style = ("body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#111827;max-width:1200px}"
             "table{border-collapse:collapse;margin:6px 0 10px}th,td{border-bottom:1px solid #e5e7eb;"
             "padding:3px 9px;text-align:right}th:first-child,td:first-child{text-align:left}"
             "th{background:#f3f4f6}tr.paper td{color:#6b7280;font-style:italic}.note{color:#4b5563}"
             "figure{margin:18px 0}figure img{max-width:100%}")
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
            f"<title>{esc(report.title)}</title><style>{style}</style></head><body>"
            + "".join(parts) + "</body></html>\n")


# -- figures --------------------------------------------------------------------------------------------


def plots(report: Report, out: Path) -> list[Path]:
    """The paper's figures from the report's data, each as PNG and SVG."""
    import matplotlib

    matplotlib.use("Agg")  # draw into files only: no window, no Qt event loop
    import matplotlib.pyplot as plt

    written: list[Path] = []

    def save(fig: Any, name: str) -> None:
        for ext in ("png", "svg"):
            p = out / f"{name}.{ext}"
            fig.savefig(p, dpi=120, bbox_inches="tight")
            written.append(p)
        plt.close(fig)

    ablation = report.figures.get("ablation") or {}
    games = [g for g, cols in ablation.items() if any(v is not None for v in cols.values())]
    if games:
        fig, axes = plt.subplots(1, len(games), figsize=(3.2 * len(games), 3.6), squeeze=False,
                                 layout="constrained")
        for ax, g in zip(axes[0], games, strict=True):
            cols = ablation[g]
            names = list(cols)
            ax.bar(names, [cols[n] or 0.0 for n in names], color=["#999999", "#4c72b0", "#55a868", "#c44e52"])
            ax.set_title(g)
            ax.tick_params(axis="x", labelrotation=45)
        fig.suptitle(f"{report.title}: harness ablation (ours)")
        save(fig, "ablation")
    dists = report.figures.get("distributions") or {}
    games = [g for g, groups in dists.items() if groups]
    if games:
        fig, axes = plt.subplots(1, len(games), figsize=(3.4 * len(games), 4.2), squeeze=False,
                                 layout="constrained")
        for ax, g in zip(axes[0], games, strict=True):
            groups = dists[g]
            ax.boxplot([groups[k] for k in groups], showmeans=True)
            ax.set_xticks(range(1, len(groups) + 1), [k for k in groups], rotation=60, fontsize=7)
            ax.set_title(g)
        fig.suptitle(f"{report.title}: score distributions (ours)")
        save(fig, "distributions")
    radar = {k: v for k, v in (report.figures.get("radar") or {}).items() if len(v) >= 3}
    if radar:
        import numpy as np

        axes_names = ["perceive", "qa", "rules"]
        angles = np.linspace(0, 2 * np.pi, len(axes_names), endpoint=False).tolist()
        fig = plt.figure(figsize=(5, 5))
        ax = fig.add_subplot(projection="polar")
        for name, values in radar.items():
            vals = [float(values.get(a, 0.0)) for a in axes_names]
            ax.plot([*angles, angles[0]], [*vals, vals[0]], label=name,
                    linestyle="-" if "(paper)" not in name else ":")
        ax.set_xticks(angles, ["Perceiving", "Q&A", "Rule following"])
        ax.set_ylim(0, 1)
        ax.legend(loc="upper right", bbox_to_anchor=(1.6, 1.1), fontsize=7)
        ax.set_title("LVLM-Playground: weighted overall score per task")
        save(fig, "radar")
    return written


def table_ids(report: Report) -> Sequence[str]:
    return [t.id for t in report.tables]
