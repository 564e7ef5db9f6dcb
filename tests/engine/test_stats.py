"""engine.stats against scipy and numpy on known data, and against the papers' own numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sp

from engine import stats

# LMGame-Bench Table 1 per-model gains behind its paired t-tests (spec: modular-harness §3.2).
CANDY_ON = [106.0, 484.0, 334.7, 416.3, 128.7, 182.0, 147.3, 159.0, 647.0, 487.3]
CANDY_OFF = [17.0, 126.3, 97.7, 177.3, 32.3, 101.0, 59.0, 90.0, 106.0, 110.7]


def test_describe_matches_numpy_sample_sd_and_se() -> None:
    values = [3.0, 7.0, 7.0, 19.0]
    d = stats.describe(values)
    assert d.n == 4
    assert d.mean == pytest.approx(np.mean(values))
    assert d.sd == pytest.approx(np.std(values, ddof=1))
    assert d.se == pytest.approx(sp.sem(values))
    assert d.spread("sd") == d.sd and d.spread("se") == d.se
    assert stats.describe([5.0]).sd == 0.0


def test_describe_refuses_nothing_and_nan() -> None:
    with pytest.raises(ValueError):
        stats.describe([])
    with pytest.raises(ValueError):
        stats.describe([1.0, math.nan])


def test_paired_t_reproduces_lmgame_table_6_candy_crush() -> None:
    test = stats.paired_t(CANDY_ON, CANDY_OFF)
    ref = sp.ttest_rel(CANDY_ON, CANDY_OFF)
    assert test.t == pytest.approx(ref.statistic) and test.p == pytest.approx(ref.pvalue)
    assert test.df == 9
    assert test.mean_diff == pytest.approx(217.5, abs=0.01)  # the paper's Δ mean
    assert test.t == pytest.approx(4.22, abs=0.01)  # the paper's t(9)
    assert test.p == pytest.approx(0.0022, abs=0.0001)


def test_paired_t_without_spread_has_no_t() -> None:
    test = stats.paired_t([2.0, 3.0, 4.0], [1.0, 2.0, 3.0])
    assert test.t is None and test.p is None and test.mean_diff == 1.0
    with pytest.raises(ValueError):
        stats.paired_t([1.0], [2.0])
    with pytest.raises(ValueError):
        stats.paired_t([1.0, 2.0], [2.0])


def test_glass_delta_against_lmgame_random_row() -> None:
    # gpt-4o with harness, 2048: mean 106.7 against the random row 100.4 ± 7.8 -> 0.793 (Table 5).
    rng = np.random.default_rng(0)
    runs = rng.normal(size=30)
    runs = (runs - runs.mean()) / runs.std(ddof=1) * 7.8 + 100.4  # exactly mean 100.4, SD 7.8
    # 0.808 from the rounded means printed in Table 1; the paper computed 0.793 from unrounded ones.
    assert stats.glass_delta(106.7, list(runs)) == pytest.approx(0.808, abs=0.001)
    assert stats.glass_delta([106.0, 107.4], list(runs)) == pytest.approx((106.7 - 100.4) / 7.8)
    assert stats.glass_delta([1.0], [0.0, 0.0, 0.0]) is None  # Sokoban: random never varies


def test_cv_matches_scipy_variation_and_table_7() -> None:
    values = [106.0, 484.0, 334.7]
    assert stats.cv(values) == pytest.approx(100 * sp.variation(values, ddof=1))
    assert stats.cv([0.0, 0.0]) is None
    # LMGame-Bench Table 7's random CV for 2048 is SD / mean of the random row: 7.8 / 100.4.
    assert 100 * 7.8 / 100.4 == pytest.approx(7.769, abs=0.001)


def test_paper_interval_is_mean_plus_minus_two_se() -> None:
    lo, hi = stats.paper_interval(10.2, 1.8, 30)
    assert (lo, hi) == pytest.approx((10.2 - 2 * 1.8 / math.sqrt(30), 10.2 + 2 * 1.8 / math.sqrt(30)))
    assert stats.paper_interval(5.0, 0.5, 3, statistic="se") == pytest.approx((4.0, 6.0))
    lo, hi = stats.rate_interval(0.342, 2000, n_ours=200)
    half = 2 * math.sqrt(0.342 * 0.658 / 2000 + 0.342 * 0.658 / 200)
    assert (lo, hi) == pytest.approx((0.342 - half, 0.342 + half))


def test_fisher_exact_matches_scipy() -> None:
    # GVGAI-LLM Table 6: aliens 0/25 without the tagger, 2/25 with it: not significant.
    p = stats.fisher_exact(2, 25, 0, 25)
    assert p == pytest.approx(sp.fisher_exact([[2, 23], [0, 25]]).pvalue)
    assert p > 0.05
    with pytest.raises(ValueError):
        stats.fisher_exact(3, 2, 0, 1)


@given(st.lists(st.floats(min_value=-1e6, max_value=1e6), min_size=2, max_size=40))
def test_describe_agrees_with_scipy_on_any_data(values: list[float]) -> None:
    d = stats.describe(values)
    assert d.mean == pytest.approx(float(np.mean(values)), rel=1e-9, abs=1e-6)
    assert d.sd == pytest.approx(float(np.std(values, ddof=1)), rel=1e-9, abs=1e-6)
