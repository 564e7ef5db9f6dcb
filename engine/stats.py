"""The papers' statistics, each computed the way its paper reports it (numpy and scipy).

- :func:`describe`: n, mean, sample standard deviation (n − 1) and standard error SD / √n. LMGame-Bench's
  Table 1 and the modular-harness paper give mean ± SD; LMGame-Bench's Table 19 gives mean ± SE.
- :func:`glass_delta`: Glass's δ = (mean of the model − mean of the random runs) / SD of the random runs
  (LMGame-Bench Appx B.1, over 30 random runs; ``None`` when the random runs do not vary).
- :func:`paired_t`: the paired-sample t-test of harness on against harness off (``scipy.stats.ttest_rel``;
  LMGame-Bench Table 6 pairs models, PlayTrace pairs the episodes of one model by seed).
- :func:`cv`: the coefficient of variation SD / mean × 100 % (LMGame-Bench Table 7).
- :func:`paper_interval`: the interval a baseline row of ours should fall in: the paper's mean ± 2 SE,
  SE = SD / √n of the paper's runs (30 random runs), or for a rate p over n items the binomial
  SE √(p (1 − p) / n).
- :func:`fisher_exact`: Fisher's exact test of two win counts (GVGAI-LLM Table 6).

GameBot's S, I and (S + I) / 2 live in :mod:`engine.tournament`, LVLM-Playground's weighted overall
score in :mod:`engine.tasks` and GVGAI-LLM's overall score in the VGDL game's metrics; the reports
call those.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats as _sp

__all__ = [
    "Described",
    "PairedStats",
    "PairedTest",
    "cv",
    "describe",
    "fisher_exact",
    "glass_delta",
    "paired_stats",
    "paired_t",
    "paper_interval",
    "rate_interval",
]


@dataclasses.dataclass(frozen=True, slots=True)
class Described:
    """n values: mean, sample SD (ddof 1; 0 for one value) and SE = SD / √n."""

    n: int
    mean: float
    sd: float
    se: float

    def spread(self, statistic: str) -> float:
        """The ± a paper prints: ``"sd"`` or ``"se"``."""
        if statistic not in ("sd", "se"):
            raise ValueError(f"statistic: expected 'sd' or 'se', got {statistic!r}")
        return self.sd if statistic == "sd" else self.se


def _array(values: Sequence[float]) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("expected at least one value")
    if not np.all(np.isfinite(arr)):
        raise ValueError("expected finite values")
    return arr


def describe(values: Sequence[float]) -> Described:
    """Mean, sample SD and SE of ``values``.

    Raises:
        ValueError: no values, or a value that is not finite.
    """
    arr = _array(values)
    sd = float(np.std(arr, ddof=1)) if arr.size > 1 else 0.0
    return Described(int(arr.size), float(np.mean(arr)), sd, sd / math.sqrt(arr.size))


def glass_delta(model: Sequence[float] | float, random_runs: Sequence[float]) -> float | None:
    """Glass's δ of ``model`` (its runs, or their mean) against the random runs; ``None`` when the random
    runs have no spread (LMGame-Bench leaves Sokoban and Ace Attorney out for that reason)."""
    rand = describe(random_runs)
    mean = float(model) if isinstance(model, (int, float)) else describe(model).mean
    if rand.sd == 0:
        return None
    return (mean - rand.mean) / rand.sd


@dataclasses.dataclass(frozen=True, slots=True)
class PairedTest:
    """A paired-sample t-test: the mean of the differences (a − b), t, degrees of freedom, two-sided p."""

    n: int
    mean_diff: float
    t: float | None
    df: int
    p: float | None

    mean_b: float = 0.0

    @property
    def percent(self) -> float | None:
        """The mean difference as a percentage of the mean of b (``None`` when that mean is 0)."""
        return None if self.mean_b == 0 else 100 * self.mean_diff / abs(self.mean_b)


def paired_t(a: Sequence[float], b: Sequence[float]) -> PairedTest:
    """The paired t-test of ``a`` (e.g. harness on) against ``b`` (off), pair by pair.

    ``t`` and ``p`` are ``None`` when every difference is the same (no spread: the test is undefined).

    Raises:
        ValueError: fewer than two pairs, or lists of different lengths.
    """
    xa, xb = _array(a), _array(b)
    if xa.size != xb.size:
        raise ValueError(f"expected pairs: {xa.size} values against {xb.size}")
    if xa.size < 2:
        raise ValueError("a paired t-test needs at least two pairs")
    diff = xa - xb
    mean_diff = float(np.mean(diff))
    if float(np.std(diff, ddof=1)) == 0.0:
        return PairedTest(int(xa.size), mean_diff, None, int(xa.size) - 1, None, float(np.mean(xb)))
    result = _sp.ttest_rel(xa, xb)
    return PairedTest(int(xa.size), mean_diff, float(result.statistic), int(xa.size) - 1,
                      float(result.pvalue), float(np.mean(xb)))


def cv(values: Sequence[float]) -> float | None:
    """The coefficient of variation in percent, SD (n − 1) / mean × 100; ``None`` when the mean is 0."""
    d = describe(values)
    if d.mean == 0:
        return None
    # scipy.stats.variation divides by the mean's absolute value with the same ddof.
    return float(_sp.variation(_array(values), ddof=1)) * 100 if d.n > 1 else 0.0


def paper_interval(mean: float, spread: float, n: int, *, statistic: str = "sd",
                   k: float = 2.0) -> tuple[float, float]:
    """The paper's mean ± k SE: SE = SD / √n when the paper prints SD, the printed SE otherwise."""
    if n < 1:
        raise ValueError("n must be at least 1")
    se = spread / math.sqrt(n) if statistic == "sd" else spread
    return mean - k * se, mean + k * se


def rate_interval(p: float, n: int, *, n_ours: int | None = None, k: float = 2.0) -> tuple[float, float]:
    """A rate's interval: p ± k √(p (1 − p) / n) (binomial SE of the paper's n items), widened by the
    SE of our own n_ours items when given (both are estimates of the same rate)."""
    if n < 1:
        raise ValueError("n must be at least 1")
    var = p * (1 - p) / n
    if n_ours:
        var += p * (1 - p) / n_ours
    half = k * math.sqrt(var)
    return p - half, p + half


def fisher_exact(wins_a: int, n_a: int, wins_b: int, n_b: int) -> float:
    """The two-sided p of Fisher's exact test on two win counts (GVGAI-LLM's tagger ablation)."""
    if not (0 <= wins_a <= n_a and 0 <= wins_b <= n_b):
        raise ValueError("expected 0 <= wins <= episodes")
    result = _sp.fisher_exact([[wins_a, n_a - wins_a], [wins_b, n_b - wins_b]])
    return float(result.pvalue)


@dataclasses.dataclass(frozen=True)
class PairedStats:
    """A paired comparison of ``b - a`` over ``n`` matched pairs."""

    what: str
    n: int
    mean_a: float
    mean_b: float
    mean_diff: float
    ci_low: float | None
    ci_high: float | None
    t_stat: float | None
    t_p: float | None
    wilcoxon_stat: float | None
    wilcoxon_p: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in dataclasses.asdict(self).items()
        }


def _finite(x: Any) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def paired_stats(what: str, a: Sequence[float], b: Sequence[float], *, seed: int = 0) -> PairedStats:
    """Paired t-test, Wilcoxon signed-rank test and a 95 % BCa bootstrap interval of ``mean(b - a)``.

    Tests that are undefined for the data (fewer than two pairs, or every difference zero) give
    ``None`` rather than a warning.
    """
    xa = np.asarray(a, dtype=float)
    xb = np.asarray(b, dtype=float)
    if xa.shape != xb.shape:
        raise ValueError("paired samples must have the same length")
    n = int(xa.size)
    diff = xb - xa
    t_stat = t_p = w_stat = w_p = lo = hi = None
    if n >= 2 and np.any(diff != diff[0]):
        t = _sp.ttest_rel(xb, xa)
        t_stat, t_p = _finite(t.statistic), _finite(t.pvalue)
        lo_hi = _sp.bootstrap(
            (diff,),
            np.mean,
            confidence_level=0.95,
            n_resamples=2000,
            method="BCa",
            rng=np.random.default_rng(seed),
        ).confidence_interval
        lo, hi = _finite(lo_hi.low), _finite(lo_hi.high)
    elif n >= 1 and np.all(diff == diff[0]):
        lo = hi = float(diff[0])
    if n >= 1 and np.any(diff != 0):
        w = _sp.wilcoxon(diff)
        w_stat, w_p = _finite(w.statistic), _finite(w.pvalue)
    return PairedStats(
        what,
        n,
        float(xa.mean()) if n else math.nan,
        float(xb.mean()) if n else math.nan,
        float(diff.mean()) if n else math.nan,
        lo,
        hi,
        t_stat,
        t_p,
        w_stat,
        w_p,
    )
