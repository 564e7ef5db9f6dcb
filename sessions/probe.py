"""Probe recorded states with other players: the same observation, asked of several players or harness
settings, every answer kept with its parse chain and verdicts.

A probe target is a board a session recorded (a session and a step, with the seat that acted there);
each is rebuilt from the session (the seat's own view, its history as the memory window reads it)
and put to every :class:`ProbePlayer`. The answers are appended to ``results.jsonl`` in the probe's
folder, one line per (target, player), flushed as each arrives, so an interrupted probe resumes where
it stopped. Nothing is written into a session folder.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import tomllib
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.core import Game, State
from engine.events import Event
from engine.players import Decision, Observation, Player, SeatHistory, StepRecord
from engine.roster import is_model_spec, make_player
from sessions.reader import Session, load_session

__all__ = ["ProbeError", "ProbePlayer", "Target", "parse_player", "probe", "read_results", "targets_of"]

RESULTS = "results.jsonl"


class ProbeError(ValueError):
    """A probe that cannot run as asked (one line)."""


@dataclasses.dataclass(frozen=True)
class ProbePlayer:
    """A player spec with harness settings: ``sim``, ``minimax``, ``sim[memory=0,reflection=false]``."""

    spec: str
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def label(self) -> str:
        if not self.options:
            return self.spec
        inner = ",".join(
            f"{k}={json.dumps(v) if isinstance(v, str) else str(v).lower()}"
            for k, v in sorted(self.options.items())
        )
        return f"{self.spec}[{inner}]"


_PLAYER = re.compile(r"^(?P<spec>[^\[\]]+?)(?:\[(?P<opts>.*)\])?$")


def parse_player(text: str) -> ProbePlayer:
    """``SPEC`` or ``SPEC[key=value,...]`` (values as in TOML: numbers, true/false, quoted or bare text).

    Raises:
        ProbeError: the text is not of that form.
    """
    m = _PLAYER.match(text.strip())
    if not m:
        raise ProbeError(f"{text!r} is not a player: write SPEC or SPEC[key=value,...]")
    options: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in (m.group("opts") or "").split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ProbeError(f"{item!r} in {text!r} is not key=value")
        try:
            options[key.strip()] = tomllib.loads(f"v = {value.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            options[key.strip()] = value.strip()
    if options and not is_model_spec(m.group("spec").strip()):
        raise ProbeError(
            f"{m.group('spec').strip()} is not a model; harness settings apply to model players only"
        )
    return ProbePlayer(m.group("spec").strip(), options)


@dataclasses.dataclass(frozen=True)
class Target:
    """A recorded board to probe: the board of step ``step`` (numbered from 1, as the app numbers
    steps) of the session at ``path``, as ``seat`` saw it; ``index`` is its place in the session."""

    path: str
    session: str
    index: int
    step: int
    seat: int
    recorded: str | None  #: the action the session played there

    @property
    def key(self) -> str:
        return f"{self.session}@{self.step}#{self.seat}"


def _acting(session: Session, k: int) -> list[tuple[int, str | None]]:
    out = []
    for e in session.events_for_step(k):
        if e["type"] == "decision" and isinstance(e.get("seat"), int):
            out.append((e["seat"], e["data"].get("action")))
    return out


def targets_of(path: Path | str, steps: Sequence[int] | None = None, seat: int | None = None) -> list[Target]:
    """The targets of one session: the given steps (numbered from 1; default: every decision of a model
    seat, or of every seat when no model played), for ``seat`` (default: the seat that acted).

    Raises:
        sessions.SessionError: not a session. ProbeError: a step the session does not have.
    """
    session = load_session(path)
    n = session.num_steps
    first = session.events[0].get("step") if len(session.events) else 0
    first = first if isinstance(first, int) else 0
    model_seats = {
        p.get("seat")
        for p in session.manifest.get("players") or []
        if isinstance(p, dict) and p.get("kind") == "model"
    }
    wanted = range(n) if steps is None else [s - 1 - first for s in steps]
    out: list[Target] = []
    for k in wanted:
        if not 0 <= k < n:
            raise ProbeError(
                f"{session.id} has steps {first + 1}..{first + n}; there is no step {k + first + 1}"
            )
        acted = _acting(session, k)
        for s, action in acted:
            if seat is not None and s != seat:
                continue
            if steps is None and seat is None and model_seats and s not in model_seats:
                continue
            out.append(Target(str(session.path), session.id, k, k + first + 1, s, action))
        if steps is not None and seat is not None and not any(s == seat for s, _ in acted):
            raise ProbeError(f"seat {seat} does not act at step {k + first + 1} of {session.id}")
    return out


class _History(Sequence[StepRecord]):
    """The steps before ``upto`` as the match remembered them, rebuilt from the session on demand."""

    def __init__(self, session: Session, upto: int) -> None:
        self._session = session
        self._n = upto

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._n))]
        if index < 0:
            index += self._n
        if not 0 <= index < self._n:
            raise IndexError("history index out of range")
        s = self._session
        applied: dict[str, Any] = next(
            (e["data"] for e in s.events_for_step(index) if e["type"] == "action_applied"), {}
        )
        actions = {int(k): v for k, v in (applied.get("actions") or {}).items()}
        rewards = tuple(float(r) for r in applied.get("rewards") or ())
        return StepRecord(index, s.state_at(index), actions, rewards, s.state_at(index + 1))


def _result_line(
    target: Target, player: ProbePlayer, decision: Decision | None, events: list[Event], error: str | None
) -> dict[str, Any]:
    verdicts = [e.data for e in events if e.type == "verification"]
    asked = [v for v in verdicts if (v.get("detail") or {}).get("label") != "not_applicable"]
    data = decision.to_data() if decision is not None else {}
    cost = sum(float(e.data.get("cost_usd") or 0) for e in events if e.type == "model_call_finished")
    return {
        "key": target.key,
        "player": player.label,
        "session": target.session,
        "path": target.path,
        "step": target.step,
        "seat": target.seat,
        "recorded": target.recorded,
        "action": data.get("action"),
        "policy": data.get("policy"),
        "source": data.get("source"),
        "forfeit": bool(data.get("forfeit")),
        "rationale": data.get("rationale"),
        "asked": len(asked),
        "correct": sum(v.get("correct") is True for v in asked),
        "cost_usd": round(cost, 6),
        "error": error,
        "events": [{"type": e.type, "call": e.call, "data": e.data} for e in events],
    }


def read_results(folder: Path) -> list[dict[str, Any]]:
    """The answers a probe folder holds (a torn last line, from a killed probe, is skipped)."""
    path = folder / RESULTS
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and "key" in item and "player" in item:
            out.append(item)
    return out


def _done(folder: Path) -> set[tuple[str, str]]:
    return {(r["key"], r["player"]) for r in read_results(folder)}


def _pairs(
    targets: Sequence[Target], players: Sequence[ProbePlayer], done: set[tuple[str, str]]
) -> Iterator[tuple[Target, ProbePlayer]]:
    for t in targets:
        for p in players:
            if (t.key, p.label) not in done:
                yield t, p


async def probe(
    targets: Sequence[Target],
    players: Sequence[ProbePlayer],
    out: Path,
    *,
    render_for: Callable[[Game], Callable[..., bytes] | None] | None = None,
    concurrency: int = 4,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Ask every player at every target, appending each answer to ``out/results.jsonl``; pairs already
    answered there are skipped. Returns the answers of this run."""
    out.mkdir(parents=True, exist_ok=True)
    todo = list(_pairs(targets, players, _done(out)))
    sessions: dict[str, Session] = {}
    renders: dict[str, Callable[..., bytes] | None] = {}
    gate = asyncio.Semaphore(max(1, concurrency))
    results: list[dict[str, Any]] = []
    _drop_torn_tail(out / RESULTS)
    fd = os.open(out / RESULTS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def save(line: dict[str, Any]) -> None:
        os.write(fd, (json.dumps(line, ensure_ascii=False, default=str) + "\n").encode())
        os.fsync(fd)
        results.append(line)
        if on_result is not None:
            on_result(line)

    async def one(target: Target, who: ProbePlayer) -> None:
        async with gate:
            session = sessions.get(target.path) or sessions.setdefault(target.path, load_session(target.path))
            game = session.game()
            if render_for is not None and game.id not in renders:
                renders[game.id] = render_for(game)
            state: State = session.state_at(target.index)
            events: list[Event] = []
            decision: Decision | None = None
            error: str | None = None
            legal = tuple(state.legal_actions(target.seat))
            if not legal:
                error = f"seat {target.seat} has no legal move at step {target.step}"
            else:
                player: Player = make_player(who.spec, game, seed=seed, **dict(who.options))
                obs = Observation(
                    game=game,
                    state=state.observe(target.seat),
                    seat=target.seat,
                    legal_actions=legal,
                    history=SeatHistory(_History(session, target.index), target.seat),
                    emit=events.append,
                    render=renders.get(game.id),
                    call=1,
                )
                try:
                    decision = await player.act(obs)
                except Exception as exc:  # a player's failure is this answer's result, not the probe's end
                    error = f"{type(exc).__name__}: {exc}"
                finally:
                    await _close(player)
            save(_result_line(target, who, decision, events, error))

    try:
        await asyncio.gather(*(one(t, p) for t, p in todo))
    finally:
        os.close(fd)
    return results


def _drop_torn_tail(path: Path) -> None:
    """Cut a last line a killed probe left unfinished, so the next answer starts on a line of its own."""
    try:
        with path.open("rb+") as fh:
            data = fh.read()
            if data and not data.endswith(b"\n"):
                fh.truncate(data.rfind(b"\n") + 1)
    except FileNotFoundError:
        pass


async def _close(player: Any) -> None:
    closer: Callable[[], Awaitable[None] | None] | None = getattr(player, "aclose", None) or getattr(
        player, "close", None
    )
    if closer is None:
        return
    result = closer()
    if asyncio.iscoroutine(result):
        await result
