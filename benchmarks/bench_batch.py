"""Batch throughput against a model server that answers every call after a fixed latency.

A model step of a batch run is mostly waiting for the model. With ``N`` episodes at once and a server
answering every call after ``L`` seconds, the ideal is ``N / L`` steps per second; what PlayTrace
spends per step on the CPU (SDK, harness, session writing, progress display) is what keeps a run
from it. This benchmark starts a loopback server (in its own process, so its CPU time is not counted
as PlayTrace's) that streams valid 2048 answers after exactly ``L`` seconds in both wire formats
(OpenAI chat completions and Anthropic messages, as server-sent events, the way the providers' SDKs
ask for them), runs ``playtrace run 2048 --no-reflection`` as a subprocess whose stderr is a terminal
(so the progress display runs, as for a person at a terminal), and prints, per wire format and ``N``,
the achieved steps per second over the ideal.

The rate is measured at the server: model calls answered (one per step without reflection) over the
time from the first call's arrival to the last answer, so interpreter start-up is not counted. The
server reads the board from each prompt and answers a move that changes it, so no episode ends early.
The last column is the CPU time the ``playtrace`` process spent per model call, less what a one-step
run costs (start-up): the figure that caps a batch on one event loop, about ``1000 / (CPU ms/step)``
steps per second on an idle core. The machine's other load shows in the ratio, not in this column.

Usage::

    python benchmarks/bench_batch.py [--latency 0.5] [--steps 20] [--n 1 8 32 64 128]
                                     [--wire openai anthropic] [--no-tty] [--tree CHECKOUT]

``--tree`` runs ``playtrace`` from another checkout (e.g. an unpacked ``git archive`` of an older
commit) to compare two versions on the same server.

Everything stays on 127.0.0.1. Each run is bounded by ``--run-timeout`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import multiprocessing
import os
import pathlib
import pty
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

# Allow running the script directly from a checkout (the wire formats are the loopback test server's).
ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.loopback import Answer, _anthropic_events, _openai_events  # noqa: E402

_MOVES = ("left", "down", "right", "up")
_MODELS = {"openai": "gpt-4.1-mini", "anthropic": "claude-sonnet-4-5"}
#: Fake, key-shaped credentials (the loopback server accepts anything).
_KEYS = {"openai": "sk-bench-" + "0" * 40, "anthropic": "sk-ant-bench-" + "0" * 40}


# -- the fixed-latency server ------------------------------------------------------------------------


def _bodies(wire: str) -> dict[str, bytes]:
    """The chunked SSE bodies of the four canned answers (one move each), built once."""
    out = {}
    for move in _MOVES:
        answer = Answer(f"thought: keep the largest tile in its corner.\nmove: {move}", pieces=3,
                        input_tokens=800, output_tokens=30)
        if wire == "openai":
            events = _openai_events(answer, _MODELS[wire], include_usage=True)
        else:
            events = _anthropic_events(answer, _MODELS[wire])
        body = b"".join(f"{len(e):x}\r\n".encode() + e + b"\r\n" for e in events) + b"0\r\n\r\n"
        out[move] = body
    return out


def _changes(rows: list[list[int]], move: str) -> bool:
    """Whether ``move`` changes a 2048 board (a tile slides into a gap or merges with its neighbour)."""
    lines = rows if move in ("left", "right") else [list(col) for col in zip(*rows, strict=True)]
    for line in lines:
        cells = line if move in ("left", "up") else line[::-1]
        for a, b in zip(cells, cells[1:], strict=False):
            if (a == 0 and b != 0) or (a != 0 and a == b):
                return True
    return False


def _pick_move(body: bytes, fallback: str) -> str:
    """A move that changes the board shown under "## Current state" in the prompt, so no episode ends
    early on wasted turns (the board is read from the request as the model would read it)."""
    text = body.decode("utf-8", "replace").replace("\\n", "\n")
    at = text.rfind("## Current state")
    if at < 0:
        return fallback
    rows = []
    for line in text[at:].split("\n")[1:6]:
        cells = line.split()
        if len(cells) == 4:
            rows.append([int(c) if c.isdigit() else 0 for c in cells])
    if len(rows) != 4:
        return fallback
    return next((m for m in _MOVES if _changes(rows, m)), fallback)


_HEAD = (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
         b"transfer-encoding: chunked\r\n\r\n")


async def _serve(latency: float, port_out: Any, stats: Any) -> None:
    bodies = {"openai": _bodies("openai"), "anthropic": _bodies("anthropic")}
    fallback = itertools.cycle(_MOVES)
    times: list[tuple[float, float]] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                arrived = time.monotonic()
                lines = head.decode("latin-1").split("\r\n")
                path = lines[0].split(" ")[1] if len(lines[0].split(" ")) > 1 else "/"
                length = 0
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                body = await reader.readexactly(length) if length else b""
                wire = "anthropic" if path.endswith("/messages") else "openai"
                await asyncio.sleep(latency)
                writer.write(_HEAD + bodies[wire][_pick_move(body, next(fallback))])
                await writer.drain()
                times.append((arrived, time.monotonic()))
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
    port_out.send(server.sockets[0].getsockname()[1])
    loop = asyncio.get_running_loop()
    while True:
        # The parent asks for the figures of the run that just ended ("stats") or stops the server.
        command = await loop.run_in_executor(None, stats.recv)
        if command == "stop":
            break
        stats.send(list(times))
        times.clear()
    server.close()


def _server_main(latency: float, port_out: Any, stats: Any) -> None:
    asyncio.run(_serve(latency, port_out, stats))


# -- one run ---------------------------------------------------------------------------------------


def _drain(fd: int) -> None:
    while True:
        try:
            if not os.read(fd, 65536):
                return
        except OSError:
            return


def run_once(
    wire: str, n: int, *, port: int, steps: int, timeout: float, tty: bool, tree: pathlib.Path = ROOT
) -> tuple[int, float]:
    """Play ``n`` episodes of ``steps`` steps, ``n`` at a time, through ``playtrace run`` (of the
    checkout ``tree``); returns its exit code and the CPU seconds it used."""
    env = dict(os.environ)
    env.update({
        "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "OPENAI_API_KEY": _KEYS["openai"],
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ANTHROPIC_API_KEY": _KEYS["anthropic"],
        "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1",
        "COLUMNS": "100",
    })
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        env.pop(name, None)
    out = tempfile.mkdtemp(prefix="playtrace-bench-batch-")
    cmd = [sys.executable, "-m", "desktop.cli", "run", "2048", "--player", f"{wire}:{_MODELS[wire]}",
           "--no-reflection", "--max-steps", str(steps), "--episodes", str(n), "--concurrency", str(n),
           "--out", out, "--max-failed-calls", "0"]
    master = slave = None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        if tty:
            master, slave = pty.openpty()
            reader = threading.Thread(target=_drain, args=(master,), daemon=True)
            reader.start()
        proc = subprocess.run(cmd, env=env, cwd=tree, stdout=subprocess.DEVNULL,
                              stderr=slave if tty else subprocess.DEVNULL, timeout=timeout, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return proc.returncode, cpu
    finally:
        for fd in (slave, master):
            if fd is not None:
                os.close(fd)
        shutil.rmtree(out, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.5, help="seconds the server waits per call")
    parser.add_argument("--steps", type=int, default=20, help="steps per episode (--max-steps)")
    parser.add_argument("--n", type=int, nargs="+", default=[1, 8, 32, 64, 128], help="episodes at once")
    parser.add_argument("--wire", nargs="+", default=["openai", "anthropic"], choices=("openai", "anthropic"))
    parser.add_argument("--run-timeout", type=float, default=120.0, help="seconds allowed per run")
    parser.add_argument("--no-tty", action="store_true", help="run without a terminal (no progress display)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    parser.add_argument("--tree", type=pathlib.Path, default=ROOT,
                        help="run playtrace from this checkout (to compare two versions)")
    args = parser.parse_args(argv)

    ctx = multiprocessing.get_context("spawn")
    port_recv, port_send = ctx.Pipe(duplex=False)
    stats_parent, stats_child = ctx.Pipe()
    server = ctx.Process(target=_server_main, args=(args.latency, port_send, stats_child), daemon=True)
    server.start()
    results: list[dict[str, Any]] = []
    try:
        port = port_recv.recv()
        print(f"playtrace run 2048 --no-reflection --max-steps {args.steps}, latency {args.latency} s, "
              f"{os.cpu_count()} CPU(s); ratio = steps/s over N/latency")
        print("CPU ms/step: the playtrace process's CPU time per model call, without its start-up (the CPU "
              "of a one-step run)")
        print(f"{'wire':<10} {'N':>4} {'calls':>6} {'window s':>9} {'steps/s':>8} {'ideal':>7} {'ratio':>6} "
              f"{'CPU ms/step':>12}")
        for wire in args.wire:
            # What start-up costs (imports, the first session, the first client): subtracted below so the
            # last column is the CPU a step costs while the batch runs.
            _, startup = run_once(wire, 1, port=port, steps=1, timeout=args.run_timeout, tty=not args.no_tty,
                                  tree=args.tree.resolve())
            stats_parent.send("stats")
            stats_parent.recv()
            for n in args.n:
                code, cpu = run_once(wire, n, port=port, steps=args.steps, timeout=args.run_timeout,
                                     tty=not args.no_tty, tree=args.tree.resolve())
                stats_parent.send("stats")
                times = stats_parent.recv()
                if not times:
                    print(f"{wire:<10} {n:>4} no calls answered (exit code {code})")
                    continue
                window = max(t[1] for t in times) - min(t[0] for t in times)
                rate = len(times) / window
                ideal = n / args.latency
                row = {"wire": wire, "n": n, "calls": len(times), "window_s": round(window, 3),
                       "steps_per_s": round(rate, 2), "ideal": ideal, "ratio": round(rate / ideal, 3),
                       "cpu_ms_per_step": round((cpu - startup) * 1000 / len(times), 2), "exit_code": code}
                results.append(row)
                print(f"{wire:<10} {n:>4} {len(times):>6} {window:>9.2f} {rate:>8.1f} {ideal:>7.1f} "
                      f"{rate / ideal:>6.2f} {(cpu - startup) * 1000 / len(times):>12.2f}"
                      + ("" if code == 0 else f"  (exit code {code})"), flush=True)
    finally:
        stats_parent.send("stop")
        server.join(timeout=5)
        if server.is_alive():
            server.terminate()
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
