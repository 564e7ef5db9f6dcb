"""The papers' published tables, as printed, for the reports to put beside ours.

``engine/protocols/papers/<id>.toml`` holds each table's columns and rows with the values as the paper
prints them (``"12.3 ± 2.5"``, ``"0.342"``, ``"8.0 %"``, ``"N/A"``); :func:`load_paper` reads them into
:class:`PaperTable` objects whose cells are numbers (mean and, where printed, the ± value). A row with
``baseline = "random"`` is the paper's row for our baseline player of that name: the report says
whether ours lies within its interval.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from importlib import resources
from typing import Any

__all__ = ["PaperCell", "PaperRow", "PaperTable", "load_paper", "parse_value"]


@dataclasses.dataclass(frozen=True, slots=True)
class PaperCell:
    """One printed value: its mean, its ± (``None`` when none is printed) and the text as printed."""

    mean: float | None
    spread: float | None
    text: str


@dataclasses.dataclass(frozen=True)
class PaperRow:
    label: str
    cells: dict[str, PaperCell]
    baseline: str | None = None
    n: int | None = None
    ablation: str | None = None


@dataclasses.dataclass(frozen=True)
class PaperTable:
    id: str
    title: str
    statistic: str
    n: int
    columns: tuple[str, ...]
    rows: tuple[PaperRow, ...]

    def baseline_row(self, spec: str) -> PaperRow | None:
        """The paper's row for our baseline player ``spec`` (``"random"``), if it has one."""
        return next((r for r in self.rows if r.baseline == spec), None)


_NUMBER = r"[-+−]?\d+(?:\.\d+)?"
_PM = re.compile(rf"^\s*({_NUMBER})\s*%?\s*(?:±\s*({_NUMBER})\s*%?)?\s*[*]*\s*$")


def parse_value(text: str) -> PaperCell:
    """A printed value: ``"12.3 ± 2.5"`` → (12.3, 2.5); ``"0.342"`` → (0.342, None); ``"8.0 %"`` → 8.0;
    anything else (``"N/A"``, ``"–"``) has no number."""
    cleaned = text.replace("−", "-").replace("**", "").strip()
    m = _PM.match(cleaned)
    if not m:
        return PaperCell(None, None, text)
    return PaperCell(float(m.group(1)), float(m.group(2)) if m.group(2) else None, text)


def _row(data: dict[str, Any], columns: tuple[str, ...]) -> PaperRow:
    values = [str(v) for v in data.get("values", [])]
    if len(values) != len(columns):
        raise ValueError(f"paper row {data.get('row')!r}: {len(values)} values for {len(columns)} columns")
    return PaperRow(str(data["row"]), {c: parse_value(v) for c, v in zip(columns, values, strict=True)},
                    data.get("baseline"), data.get("n"), data.get("ablation"))


def load_paper(paper_id: str) -> dict[str, PaperTable]:
    """The published tables of a paper by id (``{}`` when PlayTrace has none for it)."""
    path = resources.files("engine.protocols").joinpath("papers", f"{paper_id}.toml")
    if not path.is_file():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = {}
    for t in data.get("tables", []):
        columns = tuple(str(c) for c in t["columns"])
        out[str(t["id"])] = PaperTable(str(t["id"]), str(t["title"]), str(t.get("statistic", "sd")),
                                       int(t.get("n", 1)), columns, tuple(_row(r,
                                                                               columns) for r in t["rows"]))
    return out
