"""benchmarks/bench_app.py's summary: the verdict is the largest stall, and the summary line names that
figure (the p99 stays, labelled as information)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_app.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_app_under_test", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _results(*loads: tuple[float, float]) -> list[tuple[str, float, float, int, dict[str, object]]]:
    return [(f"load {i}", worst, p99, 100, {}) for i, (worst, p99) in enumerate(loads)]


def test_the_summary_names_the_figure_the_verdict_uses(bench: ModuleType) -> None:
    # The run: a 31.7 ms stall with low p99s must read as above target, naming 31.7.
    lines, ok = bench.report(_results((19.0, 9.0), (31.7, 12.0)))
    assert not ok
    summary = lines[-1]
    assert "largest stall 31.7 ms" in summary and "ABOVE TARGET" in summary
    assert summary.index("31.7") < summary.index("p99")  # the verdict's figure first, p99 as extra
    assert "mean p99 10.5 ms" in summary


def test_a_stall_of_exactly_the_target_passes(bench: ModuleType) -> None:
    lines, ok = bench.report(_results((30.0, 20.0), (12.0, 5.0)))
    assert ok and "largest stall 30.0 ms" in lines[-1] and "OK" in lines[-1]
    assert "<= 30 ms" in lines[0]
