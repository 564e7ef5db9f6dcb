"""Playing a sweep on a Ray cluster: one Ray task per episode.

- **Same episodes as here.** A task runs :func:`engine.sweep.run.play_episode` with the episode's
  seed, so its moves are those of a local run.
- **One writer.** Only the driver (the process running ``playtrace sweep``) writes the index. A task
  returns its result; the driver records it once, keyed by (cell, seed). A task retried after its
  worker was lost (``max_retries``) may have left a half-written session folder: it is not in the
  index, and is moved into ``torn/`` when the run ends (and by the next run's recovery).
- **Sessions.** ``sessions = "shared"``: workers write into the results folder, which every node must
  reach at the same path (a network file system); each attempt records into a hidden folder of its
  own there and renames the finished session into place. ``"stream"``: a worker writes into a temporary
  folder of its own and returns the session's files; the driver writes them into the results folder.
- **Provider limits across the cluster.** Each ``[limits]`` entry is a named Ray actor holding that
  many slots (namespace ``playtrace``; every sweep on the cluster shares it). A task takes a slot of
  each provider its players call before it plays and gives it back after. A slot is held under the
  episode's key, so the retry of a task whose worker died takes over its own slot instead of waiting
  for it; the driver frees the slot of a task that failed for good.
- **Resources.** Each task asks for ``[ray] num_cpus``; ``[ray.tags]`` add CPUs or custom resources
  (``model_server``, ``emulator``...) for the episodes of a game or a player spec, so that CPU-heavy
  players and model servers are placed where the cluster declares them (``ray start --resources``).
- **Keys.** API keys never travel in a task's arguments, its runtime environment (both are kept by
  the cluster and shown in its dashboard) or a file. The driver puts the keys its players need into a
  key holder: a Ray actor of the driver's job (non-detached: it dies with the driver), filled by
  method calls after it is created, so keys are not part of its creation record either. A worker asks
  it for the keys when its episode starts and sets them into its own process's environment, where the
  providers' SDKs read them; replies this small travel inside Ray's RPC, never through the object
  store, so they are not spilled to disk. Enable Ray's TLS (``RAY_USE_TLS``) on untrusted networks.

Ray is imported only here, and only when a sweep runs on Ray.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import tempfile
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.sweep.run import (
    EpisodeJob,
    RecordMaker,
    RenderMaker,
    SweepOutcome,
    SweepRunner,
    failed_result,
    play_episode,
)

__all__ = ["NAMESPACE", "run_on_ray"]

#: The Ray namespace of PlayTrace's named actors (provider limits are shared by every sweep in it).
NAMESPACE = "playtrace"
#: Providers whose keys a worker may need, and the environment variable their SDK reads.
_KEY_PROVIDERS = ("openai", "anthropic")


class _ProviderSlots:
    """A counting semaphore for one provider, held by episode keys (a Ray async actor)."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.holders: set[str] = set()
        self._cond: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._cond is None:  # made on the actor's event loop
            self._cond = asyncio.Condition()
        return self._cond

    async def acquire(self, token: str) -> None:
        cond = self._condition()
        async with cond:
            if token in self.holders:  # the retry of a lost attempt takes over its slot
                return
            await cond.wait_for(lambda: len(self.holders) < self.slots)
            self.holders.add(token)

    async def release(self, token: str) -> None:
        cond = self._condition()
        async with cond:
            self.holders.discard(token)
            cond.notify_all()

    async def held(self) -> list[str]:
        return sorted(self.holders)


class _KeyHolder:
    """The API keys of one sweep run, in the memory of an actor of the driver's job."""

    def __init__(self) -> None:
        self._keys: dict[str, str] = {}

    def put(self, provider: str, key: str) -> None:
        self._keys[provider] = key

    def get(self, providers: list[str]) -> dict[str, str]:
        return {p: self._keys[p] for p in providers if p in self._keys}


def _slots_name(provider: str) -> str:
    return "playtrace-limit-" + hashlib.sha256(provider.encode()).hexdigest()[:16]


def _episode_task(
    job: EpisodeJob,
    keys: Any,
    slots: list[Any],
    mode: str,
    folder: str,
    record: RecordMaker | None,
    render: RenderMaker | None,
) -> dict[str, Any]:
    """One episode on a worker: take the provider slots, set the keys, play, return the result (and,
    in ``stream`` mode, the session's files)."""
    import ray

    if keys is not None:
        _install_keys(keys, job.providers)
    for actor in slots:
        ray.get(actor.acquire.remote(job.token))
    sessions = Path(folder) / "sessions"
    # Each attempt records into a folder of its own: sessions being put together by several processes
    # in one folder could be taken for abandoned ones by another process's writer. In "shared" mode the
    # finished session is then renamed into the results folder (a rename on the same file system).
    if mode == "stream":
        stage = Path(tempfile.mkdtemp(prefix="playtrace-sweep-"))
    else:
        stage = sessions / f".attempt-{job.cell}-{job.seed}-{uuid.uuid4().hex[:8]}"
    try:
        recorder = record(stage, extra={"sweep": dict(job.about)}) if record is not None else None
        draw = render(job.game_id) if (render is not None and job.needs_image) else None
        result = asyncio.run(play_episode(job, record=recorder, render=draw))
        if result.get("session"):
            session = Path(result["session"])
            if mode == "stream":
                result["files"] = {p.relative_to(session).as_posix(): p.read_bytes()
                                   for p in sorted(session.rglob("*")) if p.is_file()}
                result["session_name"] = session.name
            else:
                final = sessions / session.name
                os.rename(session, final)
                result["session"] = str(final)
        return result
    finally:
        for actor in slots:
            ray.get(actor.release.remote(job.token))
        shutil.rmtree(stage, ignore_errors=True)


def _install_keys(keys: Any, providers: Any) -> None:
    """Ask the key holder for the keys of ``providers`` and set them into this worker's environment
    (where the providers' SDKs read them), each registered so that logs mask it."""
    import ray

    wanted = [p for p in providers if p in _KEY_PROVIDERS]
    if not wanted:
        return
    from engine.llm.keys import ENV_VARS, register_secret

    for provider, key in ray.get(keys.get.remote(wanted)).items():
        register_secret(key)
        os.environ[ENV_VARS[provider]] = key


def _write_streamed(runner: SweepRunner, job: EpisodeJob, result: dict[str, Any]) -> None:
    """Put a streamed session into the results folder whole (built aside, then renamed into place)."""
    files: Mapping[str, bytes] = result.pop("files", None) or {}
    name = result.pop("session_name", None)
    if not name:
        result["session"] = None
        return
    sessions = runner.open().sessions_dir
    work = sessions / f".incoming-{job.cell}-{job.seed}"
    shutil.rmtree(work, ignore_errors=True)
    for rel, data in files.items():
        target = work / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    (work / "attachments").mkdir(parents=True, exist_ok=True)
    final = sessions / name
    if final.exists():  # the same session came back twice (a retried task): keep the first
        shutil.rmtree(work)
    else:
        os.replace(work, final)
    result["session"] = str(final)


class RayUnreachable(RuntimeError):
    """No Ray cluster answers at the address given (one line, said before Ray waits minutes for it)."""


#: How long the address of a Ray cluster may take to accept a connection.
RAY_CONNECT_TIMEOUT_S = 5.0


def check_address(address: str, timeout_s: float = RAY_CONNECT_TIMEOUT_S) -> None:
    """Refuse at once a ``HOST:PORT`` (or ``ray://HOST:PORT``) nobody listens on: ``ray.init`` would
    otherwise retry it for minutes. ``local`` and ``auto`` are Ray's own words and are left to it.

    Raises:
        RayUnreachable: nothing accepts a connection there within ``timeout_s``.
    """
    import socket

    if address in ("local", "auto", ""):
        return
    hostport = address.split("://", 1)[-1].rstrip("/")
    host, sep, port_text = hostport.rpartition(":")
    if not sep or not port_text.isdigit():
        raise RayUnreachable(f"--ray {address}: expected local, auto or HOST:PORT of a Ray cluster's head")
    try:
        with socket.create_connection((host.strip("[]"), int(port_text)), timeout=timeout_s):
            pass
    except OSError as exc:
        why = exc.strerror or str(exc) or type(exc).__name__
        raise RayUnreachable(f"cannot reach a Ray cluster at {address}: {why}") from None


def run_on_ray(
    runner: SweepRunner,
    address: str,
    *,
    on_notice: Any = None,
) -> SweepOutcome:
    """Play the missing episodes of ``runner``'s sweep as Ray tasks on the cluster at ``address``
    (``"local"``: a new cluster on this machine; ``"auto"``: the one ``ray start`` runs here), or on
    the cluster this process joined already."""
    import ray

    sweep = runner.sweep
    opts = sweep.ray
    started_here = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"namespace": NAMESPACE, "include_dashboard": False, "log_to_driver": False}
        # "local" is Ray's own word for a new cluster on this machine; anything else is an address.
        check_address(address)
        ray.init(address=address, **kwargs)
        started_here = True
    moved = runner.recover()
    outcome = runner.outcome(moved)
    jobs = runner.pending()
    notice = on_notice or runner._notice
    have = ray.cluster_resources()  # type: ignore[no-untyped-call]  # Ray's own annotations stop here
    wanted = sorted({name for job in jobs for name in opts.resources_for(runner.cells[job.cell])[1]})
    for name in wanted:
        if name not in have:
            notice(f"the Ray cluster has no resource {name!r} yet ([ray.tags]): the episodes that need it "
                   f"wait until a node offers it (ray start --resources='{{\"{name}\": 1}}')")
    keys = _key_holder(ray, jobs)
    slot_actors = {
        provider: ray.remote(_ProviderSlots).options(
            name=_slots_name(provider), namespace=NAMESPACE, get_if_exists=True, num_cpus=0,
            max_concurrency=1000,
        ).remote(limit)
        for provider, limit in sweep.limits.items()
    }
    task = ray.remote(_episode_task)
    folder = str(runner.folder.resolve())
    pending = list(jobs)
    in_flight: dict[Any, EpisodeJob] = {}
    index = runner.open()
    try:
        while pending or in_flight:
            while pending and len(in_flight) < runner.concurrency and not outcome.budget_stopped:
                if runner.over_budget():
                    outcome.budget_stopped = True
                    notice(f"sweep budget ${sweep.sweep_usd:.4f} reached: stopping")
                    break
                job = pending.pop(0)
                cell = runner.cells[job.cell]
                cpus, resources = opts.resources_for(cell)
                slots = [slot_actors[p] for p in job.providers if p in slot_actors]
                index.start(job.cell, job.seed)
                ref = task.options(num_cpus=cpus, resources=resources or None, max_retries=opts.max_retries,
                                   retry_exceptions=False, name=f"playtrace-episode-{job.token}").remote(
                    job, keys, slots, opts.sessions, folder, runner.record, runner.render)
                in_flight[ref] = job
            if outcome.budget_stopped:
                pending.clear()
            if not in_flight:
                break
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                job = in_flight.pop(ref)
                try:
                    result = ray.get(ref)
                except Exception as exc:  # noqa: BLE001  (a task lost for good: the episode stays missing)
                    for provider in job.providers:
                        if provider in slot_actors:
                            # An actor's methods gain .remote() from Ray's decorator, which mypy cannot see.
                            ray.get(slot_actors[provider].release.remote(job.token))  # type: ignore[attr-defined]
                    result = failed_result(job, exc, where=f"the Ray task failed ({type(exc).__name__}): ")
                if opts.sessions == "stream":
                    _write_streamed(runner, job, result)
                runner.finish(job, result, outcome)
    except KeyboardInterrupt:
        outcome.interrupted = True
        for ref in in_flight:
            ray.cancel(ref, force=True)
        raise
    finally:
        if keys is not None:
            ray.kill(keys)
        if started_here:
            ray.shutdown()
    # Sessions of attempts whose workers were lost are not in the index: move them aside now.
    outcome.moved += index.recover()
    return outcome


def _key_holder(ray: Any, jobs: list[EpisodeJob]) -> Any:
    """A key holder with the keys the players of ``jobs`` need (``None`` when none needs one)."""
    needed = sorted({p for job in jobs for p in job.providers if p in _KEY_PROVIDERS})
    if not needed:
        return None
    from engine.llm.keys import resolve_key

    holder = ray.remote(_KeyHolder).options(num_cpus=0).remote()
    for provider in needed:
        key = resolve_key(provider)
        if key:
            ray.get(holder.put.remote(provider, key))
    return holder
