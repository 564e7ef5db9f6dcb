"""Playing a sweep: its episodes, each a one-episode :class:`engine.batch.BatchPlan`, on this machine
(asyncio, this module) or on a Ray cluster (:mod:`engine.sweep.ray_runner`).

Both play an episode with :func:`play_episode`, so the same sweep gives the same sessions either way:
episode ``seed`` of a cell is seeded exactly as episode ``seed`` of ``playtrace run --seed``.

This module records no session itself (the engine never imports the session layer): the front end
gives a *recorder maker*, ``record(folder) -> RecordFactory`` (``desktop.episode.session_recorder``),
and, for vision perception, a *renderer maker*, ``render(game_id) -> render function | None``. Both
must be importable functions when the sweep runs on Ray, since every worker calls them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from engine import events as ev
from engine.baseline import episode_figures
from engine.batch import FINISHED_STATUSES, BatchPlan, EpisodeStats, RecordFactory, run_batch
from engine.events import Event
from engine.llm.keys import mask_url_password, redact
from engine.llm.pool import ClientPool
from engine.match import Match
from engine.sweep.index import SWEEP_FILE, SweepIndex
from engine.sweep.spec import Cell, Sweep

__all__ = ["EpisodeJob", "RecordMaker", "RenderMaker", "SweepOutcome", "SweepRunner", "failed_result",
           "play_episode"]

log = logging.getLogger("playtrace.sweep")

#: ``record(folder, extra=...)``: a recorder factory writing each episode's session into ``folder``,
#: with ``extra`` (the sweep, the cell and the seed) in its manifest.
RecordMaker = Callable[..., RecordFactory]
#: ``render(game_id)``: the board as PNG bytes for vision models, or ``None`` when it cannot be drawn.
RenderMaker = Callable[[str], Callable[..., bytes] | None]


@dataclasses.dataclass(frozen=True)
class EpisodeJob:
    """One episode to play: plain values only, so it travels to a Ray worker as it is."""

    cell: str
    seed: int
    game_id: str
    options: Mapping[str, Any]
    specs: tuple[str, ...]
    model_options: Mapping[str, Any]
    max_steps: int | None
    needs_image: bool
    providers: tuple[str, ...]
    #: What the session's manifest says of the sweep (``extra["sweep"]``): its name, the cell, the seed.
    about: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def token(self) -> str:
        """The episode's key: its cell and seed."""
        return f"{self.cell}:{self.seed}"

    @classmethod
    def of(cls, sweep: Sweep, cell: Cell, seed: int) -> EpisodeJob:
        model_options = ({**cell.harness.model_options(), **sweep.session_budget()}
                         if cell.lineup.has_model else {})
        return cls(
            cell=cell.key,
            seed=seed,
            game_id=cell.game.id,
            options=dict(cell.game.options),
            specs=cell.lineup.specs,
            model_options=model_options,
            max_steps=cell.max_steps,
            needs_image=cell.lineup.has_model
            and model_options.get("perception") in ("image", "both", "describe"),
            providers=tuple(sorted(cell.providers)),
            about={"name": sweep.name, "cell": cell.key, "label": cell.label, "harness": cell.harness.name,
                   "seed": seed},
        )


async def play_episode(
    job: EpisodeJob,
    *,
    record: RecordFactory | None = None,
    render: Callable[..., bytes] | None = None,
    on_event: Callable[[EpisodeStats, Event], None] | None = None,
    client_pool: ClientPool | None = None,
) -> dict[str, Any]:
    """Play one episode with :func:`engine.batch.run_batch` and return what the index keeps of it.

    ``client_pool``: the model clients the sweep's episodes share (one per provider and server, with
    their rate limits); ``None``: the episode makes its own.

    ``counted`` is true when the episode ended in a way that counts (completed, step cap, a forfeit
    that is the game's and not a server that stopped answering) and its session was written."""
    if job.needs_image and render is None:
        raise RuntimeError(f"{job.game_id}: image perception needs the board renderer, which is missing")
    plan = BatchPlan(job.game_id, specs=list(job.specs), episodes=1, seed=job.seed, options=dict(job.options),
                     model_options=dict(job.model_options), max_steps=job.max_steps, concurrency=1,
                     render=render if job.needs_image else None, client_pool=client_pool)
    finished: dict[str, Any] = {}

    def listen(stats: EpisodeStats, event: Event) -> None:
        if event.type == ev.SESSION_FINISHED:
            finished.update(event.data or {})
        if on_event is not None:
            on_event(stats, event)

    outcome = await run_batch(plan, record=record, on_event=listen)
    stats = outcome.stats[0]
    figures = episode_figures(plan.game, finished, steps=stats.steps, seed=job.seed) if finished else None
    counted = (stats.status in FINISHED_STATUSES and not stats.failed_call_forfeits
               and (record is None or stats.path is not None))
    return {
        "cell": job.cell,
        "seed": job.seed,
        "counted": counted,
        "status": stats.status,
        "steps": stats.steps,
        "scores": list(stats.scores),
        "winner": stats.winner,
        "raw": figures.raw if figures else None,
        "progress": figures.progress if figures else None,
        "cost_usd": stats.cost_usd,
        "error": stats.error or (stats.notes[0] if stats.notes and not counted else None),
        "session": str(stats.path) if stats.path else None,
        # A rejected key or unknown model: not scored, played again once it is fixed.
        "model_unusable": outcome.model_unusable,
    }


def failed_result(job: EpisodeJob, exc: BaseException, where: str = "") -> dict[str, Any]:
    """The index's record of an episode that could not be played (``where`` prefixes the reason)."""
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    text = redact(lines[-1].strip() if lines else type(exc).__name__)
    return {"cell": job.cell, "seed": job.seed, "counted": False, "status": "error",
            "error": f"{where}{text}", "session": None}


@dataclasses.dataclass
class SweepOutcome:
    """What a run of a sweep did (the index holds the results)."""

    total: int
    already_done: int
    played: int = 0
    done: int = 0
    failed: int = 0
    moved: list[str] = dataclasses.field(default_factory=list)
    cost_usd: float = 0.0
    budget_stopped: bool = False
    interrupted: bool = False
    errors: list[str] = dataclasses.field(default_factory=list)
    #: A model could not be used at all (a rejected key, an unknown model): the sweep stopped there,
    #: and the episodes it met stay unplayed for the next run.
    model_unusable: str | None = None

    @property
    def missing(self) -> int:
        return self.total - self.already_done - self.done


class SweepRunner:
    """Plays the episodes of ``sweep`` that its results ``folder`` does not hold yet.

    Callbacks (optional, called on the driver): ``on_done(cell, seed, result)`` after an episode's
    row is written, ``on_notice(text)`` for what a person should read now.
    """

    def __init__(
        self,
        sweep: Sweep,
        folder: Path | str,
        *,
        record: RecordMaker | None = None,
        render: RenderMaker | None = None,
        concurrency: int | None = None,
        on_done: Callable[[Cell, int, Mapping[str, Any]], None] | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        self.sweep = sweep
        self.folder = Path(folder)
        self.record = record
        self.render = render
        self.concurrency = concurrency or sweep.concurrency
        self.on_done = on_done
        self.on_notice = on_notice
        self.cells = {cell.key: cell for cell in sweep.cells}
        self.index: SweepIndex | None = None
        self._renders: dict[str, Callable[..., bytes] | None] = {}
        self._running_cost: dict[str, float] = {}

    # -- preparing ------------------------------------------------------------------------------

    def open(self) -> SweepIndex:
        """Open the index, describe the cells and put back what a kill left half-done."""
        if self.index is None:
            index = SweepIndex(self.folder)
            try:
                index.lock()
            except BaseException:
                index.close()
                raise
            self.index = index
            self.index.set_meta("name", self.sweep.name)
            # The copy kept with the results: a password in a server's URL is masked (as in the index).
            (self.folder / SWEEP_FILE).write_text(mask_url_password(self.sweep.source), encoding="utf-8")
            self.index.add_cells(self.cells.values())
        return self.index

    def close(self) -> None:
        """Close the index and let another process play the folder."""
        if self.index is not None:
            self.index.close()
            self.index = None

    def recover(self) -> list[str]:
        """Move aside what a killed run left (see :meth:`SweepIndex.recover`)."""
        moved = self.open().recover()
        for folder in moved:
            self._notice(f"moved aside an incomplete session: {folder}")
        return moved

    def pending(self) -> list[EpisodeJob]:
        """The episodes still to play, seed by seed (every cell gets its first episodes early)."""
        done = self.open().done_keys()
        jobs = []
        for seed in self.sweep.seeds:
            for cell in self.cells.values():
                if (cell.key, seed) not in done:
                    jobs.append(EpisodeJob.of(self.sweep, cell, seed))
        return jobs

    def outcome(self, moved: Sequence[str]) -> SweepOutcome:
        total = len(self.sweep.episodes)
        done = len(self.open().done_keys() & {(c.key, s) for c, s in self.sweep.episodes})
        return SweepOutcome(total=total, already_done=done, moved=list(moved))

    def render_for(self, game_id: str) -> Callable[..., bytes] | None:
        if game_id not in self._renders:
            self._renders[game_id] = self.render(game_id) if self.render is not None else None
        return self._renders[game_id]

    def _notice(self, text: str) -> None:
        if self.on_notice is not None:
            self.on_notice(text)
        else:
            log.warning("%s", text)

    def over_budget(self) -> bool:
        cap = self.sweep.sweep_usd
        if cap is None:
            return False
        return self.open().total_cost() + sum(self._running_cost.values()) > cap

    def finish(self, job: EpisodeJob, result: Mapping[str, Any], outcome: SweepOutcome) -> None:
        """Write an episode's row and tell the front end."""
        index = self.open()
        if not index.finish(job.cell, job.seed, result):
            return  # reported twice (a retried task): the first report stands
        outcome.played += 1
        outcome.cost_usd += float(result.get("cost_usd") or 0.0)
        if result.get("counted"):
            outcome.done += 1
        else:
            outcome.failed += 1
            why = result.get("error") or result.get("status")
            outcome.errors.append(f"{self.cells[job.cell].label} seed {job.seed}: {why}")
        if self.on_done is not None:
            self.on_done(self.cells[job.cell], job.seed, result)

    # -- playing here ---------------------------------------------------------------------------

    async def run(self) -> SweepOutcome:
        """Play the missing episodes on this machine, ``concurrency`` at a time, each provider at most
        its ``[limits]`` at once. Cancelling this (Ctrl+C) aborts the running episodes; their rows
        stay ``running`` and the next run redoes them."""
        moved = self.recover()
        outcome = self.outcome(moved)
        jobs = self.pending()
        index = self.open()
        slots = asyncio.Semaphore(self.concurrency)
        # The episodes of a sweep share their model clients (and so their connections and limits).
        pool = ClientPool()
        limits = {p: asyncio.Semaphore(n) for p, n in self.sweep.limits.items()}
        stop = asyncio.Event()
        tasks: dict[str, asyncio.Task[None]] = {}

        async def one(job: EpisodeJob) -> None:
            async with contextlib.AsyncExitStack() as stack:
                for provider in job.providers:
                    if provider in limits:
                        await stack.enter_async_context(limits[provider])
                await stack.enter_async_context(slots)
                if stop.is_set():
                    return
                if self.over_budget():
                    if not outcome.budget_stopped:
                        outcome.budget_stopped = True
                        self._notice(f"sweep budget ${self.sweep.sweep_usd:.4f} reached: stopping")
                    stop.set()
                    return
                index.start(job.cell, job.seed)
                inner = (self.record(index.sessions_dir, extra={"sweep": dict(job.about)})
                         if self.record is not None else None)

                def record(match: Match) -> Any:
                    recorder = inner(match)  # type: ignore[misc]
                    if recorder.path is not None:
                        index.attach(job.cell, job.seed, recorder.path)
                    return recorder

                def on_event(stats: EpisodeStats, event: Event) -> None:
                    if event.type == ev.MODEL_CALL_FINISHED:
                        self._running_cost[job.token] = stats.cost_usd
                        if self.over_budget() and not stop.is_set():
                            outcome.budget_stopped = True
                            self._notice(f"sweep budget ${self.sweep.sweep_usd:.4f} exceeded: stopping")
                            stop.set()
                            for token, task in tasks.items():
                                if token != job.token:
                                    task.cancel()

                try:
                    render = self.render_for(job.game_id) if job.needs_image else None
                    result = await play_episode(job, record=record if inner else None, render=render,
                                                on_event=on_event, client_pool=pool)
                except Exception as exc:  # noqa: BLE001  (the episode failed; the sweep goes on)
                    log.debug("episode %s failed", job.token, exc_info=True)
                    result = failed_result(job, exc)
                self._running_cost.pop(job.token, None)
                self.finish(job, result, outcome)
                if result.get("model_unusable") and not stop.is_set():
                    outcome.model_unusable = str(result["model_unusable"])
                    self._notice(f"{outcome.model_unusable}: stopping (fix the key or model name, then "
                                 "run the sweep again to play what is missing)")
                    stop.set()
                    for token, task in tasks.items():
                        if token != job.token:
                            task.cancel()

        for job in jobs:
            tasks[job.token] = asyncio.create_task(one(job), name=f"episode-{job.token}")
        try:
            results = await asyncio.gather(*tasks.values(), return_exceptions=True)
        except asyncio.CancelledError:
            outcome.interrupted = True
            for task in tasks.values():
                task.cancel()
            await asyncio.gather(*tasks.values(), return_exceptions=True)
            raise
        finally:
            await pool.aclose()
        for result in results:
            if isinstance(result, Exception):
                raise result
        return outcome
