"""Agreement between annotators who labelled the same steps.

A *unit* is one step of one session that at least two annotators labelled (a label line, even an empty
one, says the annotator looked at that step). For each label of the taxonomy every annotator's verdict
on a unit is binary — the label is in their set or not — and the agreement is Krippendorff's alpha
(nominal), computed by the maintained ``krippendorff`` package: it takes any number of annotators and
units that not everybody labelled. The overall figure pools every (unit, label) pair. Beside alpha,
the share of units on which all their annotators agree is given, since alpha is undefined when
everybody always says the same (there is then nothing to disagree about).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["Agreement", "LabelAgreement", "agreement"]


@dataclasses.dataclass(frozen=True, slots=True)
class LabelAgreement:
    """Agreement on one label (``label`` is ``"overall"`` for the pooled figure).

    ``alpha`` is ``None`` when it is undefined (every verdict the same); ``observed`` is the share of
    units on which every annotator who labelled the unit gave the same verdict; ``positives`` counts
    the (annotator, unit) verdicts that applied the label.
    """

    label: str
    alpha: float | None
    observed: float
    units: int
    positives: int

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True)
class Agreement:
    """Agreement per label and overall, over ``units`` steps labelled by two or more of ``annotators``."""

    annotators: tuple[str, ...]
    units: int
    labels: tuple[LabelAgreement, ...]
    overall: LabelAgreement | None
    method: str = "Krippendorff's alpha (nominal)"

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "annotators": list(self.annotators),
            "units": self.units,
            "labels": [a.to_json() for a in self.labels],
            "overall": self.overall.to_json() if self.overall else None,
        }


def agreement(
    label_sets: Iterable[tuple[str, Mapping[tuple[str, int, Any], frozenset[str]]]],
    labels: Sequence[str] = (),
) -> Agreement:
    """Agreement over sessions' standing label sets.

    Args:
        label_sets: ``(session_id, sessions.annotations.label_sets(items))`` for each session.
        labels: The taxonomy's keys in order; labels that annotators used beyond them are added.
    """
    verdicts: dict[tuple[str, int, Any], dict[str, frozenset[str]]] = {}
    for session_id, sets in label_sets:
        for (who, step, seat), chosen in sets.items():
            verdicts.setdefault((session_id, step, seat), {})[who] = chosen
    units = {u: v for u, v in verdicts.items() if len(v) >= 2}
    annotators = tuple(sorted({who for v in units.values() for who in v}))
    keys = list(labels)
    for v in units.values():
        for used in v.values():
            keys.extend(sorted(k for k in used if k not in keys))
    ordered_units = sorted(units, key=lambda u: (u[0], u[1], -1 if u[2] is None else u[2]))
    per_label = tuple(_summary(key, [(units[u], key) for u in ordered_units], annotators) for key in keys)
    overall = None
    if ordered_units and keys:
        overall = _summary("overall", [(units[u], key) for u in ordered_units for key in keys], annotators)
    return Agreement(annotators, len(ordered_units), per_label, overall)


def _matrix(rows: Sequence[tuple[Mapping[str, frozenset[str]], str]], annotators: Sequence[str]) -> Any:
    import numpy as np

    data = np.full((len(annotators), len(rows)), np.nan)
    for j, (verdict, key) in enumerate(rows):
        for i, who in enumerate(annotators):
            if who in verdict:
                data[i, j] = 1.0 if key in verdict[who] else 0.0
    return data


def _alpha(data: Any) -> float | None:
    import krippendorff
    import numpy as np

    values = data[~np.isnan(data)]
    if values.size == 0 or np.all(values == values[0]):
        return None  # one value only: nothing to disagree about, alpha is undefined
    value = float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    return value if math.isfinite(value) else None


def _summary(label: str, rows: Sequence[tuple[Mapping[str, frozenset[str]], str]],
             annotators: Sequence[str]) -> LabelAgreement:
    data = _matrix(rows, annotators)
    agreeing = sum(1 for verdict, key in rows if len({key in keys for keys in verdict.values()}) == 1)
    positives = sum(1 for verdict, key in rows for keys in verdict.values() if key in keys)
    observed = agreeing / len(rows) if rows else 1.0
    return LabelAgreement(label, _alpha(data) if rows else None, observed, len(rows), positives)
