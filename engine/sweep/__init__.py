"""Sweeps: a grid of games, players, harness settings and seeds, run as one resumable thing.

A sweep file (:mod:`engine.sweep.spec`) describes the grid; :class:`SweepRunner` plays the episodes
its results folder does not hold yet, on this machine or, through :mod:`engine.sweep.ray_runner`, on
a Ray cluster; the folder's index (:mod:`engine.sweep.index`, SQLite) says which session belongs to
which cell and seed; :mod:`engine.sweep.report` turns it into the grid of means ± SE and LMGame-Bench's
harness ablation.

Example::

    sweep = load_sweep("grid.toml")
    runner = SweepRunner(sweep, "results", record=session_recorder)
    outcome = asyncio.run(runner.run())
    report = load_report("results")
"""

from engine.sweep.example import EXAMPLE
from engine.sweep.index import SweepIndex
from engine.sweep.report import ABLATION, CellRow, SweepReport, ablation_class, load_report
from engine.sweep.run import EpisodeJob, SweepOutcome, SweepRunner, play_episode
from engine.sweep.spec import (
    Cell,
    GameEntry,
    HarnessSetting,
    Lineup,
    RayOptions,
    Sweep,
    SweepFileError,
    load_sweep,
    parse_sweep,
    provider_of,
)

__all__ = [
    "ABLATION",
    "EXAMPLE",
    "Cell",
    "CellRow",
    "EpisodeJob",
    "GameEntry",
    "HarnessSetting",
    "Lineup",
    "RayOptions",
    "Sweep",
    "SweepFileError",
    "SweepIndex",
    "SweepOutcome",
    "SweepReport",
    "SweepRunner",
    "ablation_class",
    "load_report",
    "load_sweep",
    "parse_sweep",
    "play_episode",
    "provider_of",
]
