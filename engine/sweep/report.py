"""What a sweep's results folder says: the grid of raw scores per cell, and the papers' tables.

Each episode's *raw score* is its game's benchmark figure (:attr:`engine.core.Game.raw_score`, a key
of the final state's metrics) or, for a game that names none, the first seat's score; it is kept in
the index when the episode ends. A cell's figure is the mean ± standard error (SE = SD / √n) of its
episodes' raw scores, as LMGame-Bench's Table 19 gives them.

Games in the ``lmgame`` suite also get LMGame-Bench's harness ablation (Tables 2 and 4): for each
game and lineup, the harness settings sorted into ZS (neither module), +Memory (a memory window or
reflection), +Perception (the game's text table: perception ``text`` or ``both``; ``image`` alone is
the raw frame) and +Both; Table 1's "Harness No / Yes" are its ZS and +Both columns.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import engine
from engine.baseline import Summary, figure_names, summarise
from engine.core import UnknownGameError
from engine.sweep.index import SweepIndex
from engine.sweep.spec import HarnessSetting

__all__ = ["ABLATION", "CellRow", "SweepReport", "ablation_class", "load_report"]

#: LMGame-Bench's ablation columns, in the paper's order.
ABLATION = ("ZS", "+Memory", "+Perception", "+Both")


def ablation_class(harness: dict[str, Any]) -> str:
    """The ablation column of a harness setting (its values as in the sweep file)."""
    setting = HarnessSetting("", harness)
    return ABLATION[int(setting.memory_on) + 2 * int(setting.perception_on)]


@dataclasses.dataclass(frozen=True)
class CellRow:
    """One cell of the grid with its episodes' figures."""

    cell: str
    game: str
    game_label: str
    players: tuple[str, ...]
    harness_name: str
    harness: dict[str, Any]
    episodes: int
    summary: Summary | None
    seat0: tuple[int, int, int] | None  # wins, draws, losses of the first seat (two-seat games)
    cost_usd: float

    @property
    def lineup(self) -> str:
        return " vs ".join(self.players)


@dataclasses.dataclass(frozen=True)
class SweepReport:
    """The grid and the ablation tables of one results folder."""

    name: str
    rows: list[CellRow]
    score_names: dict[str, str]
    ablation: dict[str, list[dict[str, Any]]]
    missing: int
    moved: int

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "cells": [
                {"cell": r.cell, "game": r.game_label, "players": list(r.players), "harness": r.harness_name,
                 "episodes": r.episodes, "score": self.score_names.get(r.game, "score"),
                 "summary": r.summary.to_json() if r.summary else None, "cost_usd": round(r.cost_usd, 6),
                 **({"wins": r.seat0[0], "draws": r.seat0[1], "losses": r.seat0[2]} if r.seat0 else {})}
                for r in self.rows
            ],
            "lmgame_ablation": {
                game: [{"players": line["players"],
                        **{col: [{"harness": e["harness"],
                                  "summary": e["summary"].to_json() if e["summary"] else None}
                                 for e in line[col]] for col in ABLATION}}
                       for line in lines]
                for game, lines in self.ablation.items()
            },
            "missing": self.missing,
            "moved_aside": self.moved,
        }


def load_report(folder: Path | str, *, expected: dict[str, int] | None = None) -> SweepReport:
    """Read the report of a results folder (``expected``: episodes per cell key, to count the missing).

    Raises:
        FileNotFoundError: ``folder`` holds no sweep index.
    """
    with SweepIndex(folder, create=False) as index:
        cells = index.cells()
        done = index.rows("done")
        moved = len(index.moved())
        name = index.meta("name") or Path(folder).name
    by_cell: dict[str, list[dict[str, Any]]] = {}
    for row in done:
        by_cell.setdefault(row["cell"], []).append(row)
    if expected is not None:
        cells = [c for c in cells if c["cell"] in expected]
    rows: list[CellRow] = []
    score_names: dict[str, str] = {}
    seats: dict[str, int] = {}
    for c in cells:
        game_id = c["game"]
        if game_id not in seats:
            try:
                cls = engine.declaration(game_id)
                score_names[game_id] = figure_names(cls)[0]  # type: ignore[arg-type]
                seats[game_id] = len(cls.seats) if hasattr(cls, "seats") else 0
            except UnknownGameError:
                score_names[game_id], seats[game_id] = "score", 0
        episodes = by_cell.get(c["cell"], [])
        values = [float(e["raw"]) for e in episodes if e["raw"] is not None]
        seat0 = None
        if episodes and all(len(e["scores"] or []) == 2 for e in episodes):
            wins = sum(1 for e in episodes if e["winner"] == 0)
            losses = sum(1 for e in episodes if e["winner"] is not None and e["winner"] != 0)
            seat0 = (wins, len(episodes) - wins - losses, losses)
        rows.append(CellRow(
            cell=c["cell"], game=game_id, game_label=c["game_label"], players=tuple(c["players"]),
            harness_name=c["harness_name"], harness=c["harness"], episodes=len(episodes),
            summary=summarise(values) if values else None, seat0=seat0,
            cost_usd=sum(float(e["cost_usd"] or 0) for e in episodes),
        ))
    missing = 0
    if expected is not None:
        missing = sum(max(0, n - len(by_cell.get(cell, []))) for cell, n in expected.items())
    return SweepReport(name, rows, score_names, _ablation(rows), missing, moved)


def _suites(game_id: str) -> Sequence[str]:
    try:
        return tuple(engine.declaration(game_id).suites)
    except UnknownGameError:
        return ()


def _ablation(rows: list[CellRow]) -> dict[str, list[dict[str, Any]]]:
    """LMGame-Bench's ablation per game of its suite: one line per lineup with a model, one column
    per ablation class holding each harness setting of that class (usually one)."""
    from engine.roster import is_model_spec

    tables: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if "lmgame" not in _suites(row.game) or not any(is_model_spec(s) for s in row.players):
            continue
        lines = tables.setdefault(row.game_label, [])
        line = next((ln for ln in lines if ln["players"] == row.lineup), None)
        if line is None:
            line = {"players": row.lineup, **{col: [] for col in ABLATION}}
            lines.append(line)
        line[ablation_class(row.harness)].append({"harness": row.harness_name, "summary": row.summary})
    return tables
