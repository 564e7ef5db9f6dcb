"""A protocol made playable: each of its runs as a sweep file, for the model under test.

:func:`plan` fills in the protocol's placeholders (``{player}``, each game's ``{opponent}``, the
``[inputs]`` folders), keeps the games and episodes a user asked for, and writes every run as the text
of a sweep file (:mod:`engine.sweep.spec`), which the sweep machinery plays, resumes and reports as it
does any sweep: a protocol run costs what the same sweep costs. The sweep text is kept in the run's
results folder, so ``playtrace sweep report`` reads it too.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import engine
from engine.core import GameError
from engine.options import OptionError, validate
from engine.protocols.spec import OPPONENT, PLAYER, GameSpec, Protocol, ProtocolFileError, Run, TaskRun
from engine.sweep.spec import Sweep, SweepFileError, parse_sweep

__all__ = ["PlannedRun", "PlannedTasks", "ProtocolPlan", "plan", "toml_value"]


@dataclasses.dataclass(frozen=True)
class PlannedRun:
    """One run of the protocol as a sweep."""

    run: Run
    text: str
    sweep: Sweep


@dataclasses.dataclass(frozen=True)
class PlannedTasks:
    """One offline task set to make and the players that answer it."""

    game: str
    task: str
    n: int
    seed: int
    players: tuple[str, ...]
    image_size: int | None

    @property
    def folder(self) -> str:
        return f"{self.game}-{self.task}"


@dataclasses.dataclass(frozen=True)
class ProtocolPlan:
    """What ``playtrace reproduce`` plays: the protocol's runs and task sets, and what it left out."""

    protocol: Protocol
    player: str | None
    runs: tuple[PlannedRun, ...]
    tasks: tuple[PlannedTasks, ...]
    skipped: tuple[str, ...]

    @property
    def episodes(self) -> int:
        return sum(len(r.sweep.episodes) for r in self.runs)


def toml_value(value: Any) -> str:
    """A value as TOML text: strings, numbers, booleans, lists and inline tables.

    Written here because the standard library reads TOML (tomllib) but cannot write it; a JSON string
    is a valid TOML basic string, and that covers the values a sweep file holds.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }" \
            if value else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _matches(game: GameSpec, wanted: Sequence[str]) -> bool:
    return any(w in (game.label, game.id) or game.label.startswith(w + "-") for w in wanted)


def _fill_inputs(protocol: Protocol, game: GameSpec, inputs: Mapping[str, str]) -> GameSpec:
    needed = {m for v in game.options.values() if isinstance(v, str) for m in re.findall(r"\{([a-z_]+)\}", v)}
    if not needed:
        return game
    missing = sorted(needed - set(inputs))
    if missing:
        name = missing[0]
        raise ProtocolFileError(f"{protocol.id}: game {game.label} needs --input {name}=DIR "
                                f"({protocol.inputs.get(name, 'a folder')})")
    opts = {k: (re.sub(r"\{([a-z_]+)\}", lambda m: inputs[str(m.group(1))], v) if isinstance(v, str) else v)
            for k, v in game.options.items()}
    cls = engine.declaration(game.id)
    try:
        full = validate(cls.options_schema, opts, game=cls.title)
        engine.make(game.id, **full)
    except (OptionError, GameError, TypeError, ValueError, OSError) as exc:
        raise ProtocolFileError(f"{protocol.id}: game {game.label}: {exc}") from None
    return dataclasses.replace(game, options=full)


def _with_options(game: GameSpec, options: Mapping[str, Any]) -> GameSpec:
    """``game`` with the run's options that its schema has (checked by :func:`_fill_inputs`)."""
    names = {o.name for o in engine.declaration(game.id).options_schema}
    mine = {k: v for k, v in options.items() if k in names}
    if not mine:
        return game
    full = {**game.options, **mine}
    try:
        full = validate(engine.declaration(game.id).options_schema, full, game=game.id)
    except OptionError as exc:
        raise ProtocolFileError(f"game {game.label}: {exc}") from None
    return dataclasses.replace(game, options=full)


def _lineups(run: Run, game: GameSpec, player: str) -> list[list[str]]:
    out = []
    for lineup in run.players:
        specs = [s.replace(PLAYER, player).replace(OPPONENT, game.opponent or "") for s in lineup]
        if specs not in out:
            out.append(specs)
    return out


def _sweep_text(protocol: Protocol, run: Run, games: Sequence[GameSpec], player: str, episodes: int,
                max_steps: int | None = None) -> str:
    lines = [
        f"# Run {run.name!r} of protocol {protocol.id} ({protocol.title}), written by playtrace reproduce.",
        f"name = {toml_value(f'{protocol.id}-{run.name}')}",
        f"seeds = {toml_value(list(range(protocol.first_seed, protocol.first_seed + episodes)))}",
        f"concurrency = {protocol.concurrency}",
    ]
    if max_steps is not None or protocol.max_steps is not None:
        lines.append(f"max_steps = {max_steps or protocol.max_steps}")
    for game in games:
        lines += ["", "[[games]]", f"id = {toml_value(game.id)}", f"label = {toml_value(game.label)}",
                  f"options = {toml_value(dict(game.options))}"]
        if game.max_steps is not None and max_steps is None:
            lines.append(f"max_steps = {game.max_steps}")
        lines.append(f"players = {toml_value(_lineups(run, game, player))}")
    lines += ["", "[harness]"]
    harness = {**protocol.harness, **run.harness}
    if player.split(":", 1)[0] == "sim" and "sim_latency" not in harness:
        # The simulated model streams with a delay meant for watching it play; it changes no answer,
        # so a reproduction with sim runs without it unless the protocol sets one.
        harness["sim_latency"] = 0.0
    lines += [f"{k} = {toml_value(v)}" for k, v in harness.items()]
    if run.variants:
        for variant in (v for v in protocol.variants if v.name in run.variants):
            lines += ["", "[[harness.settings]]", f"name = {toml_value(variant.name)}"]
            lines += [f"{k} = {toml_value(v)}" for k, v in variant.values.items()]
    return "\n".join(lines) + "\n"


def plan(
    protocol: Protocol,
    *,
    player: str | None,
    games: Sequence[str] | None = None,
    episodes: int | None = None,
    inputs: Mapping[str, str] | None = None,
    max_steps: int | None = None,
) -> ProtocolPlan:
    """The runs and task sets ``playtrace reproduce`` plays.

    ``player``: the model under test (``{player}``); without it the runs and task answers that need
    it are left out (named in ``skipped``). ``games``: game labels or ids to keep (``None``: all);
    ``episodes``: episodes per cell instead of each run's (a first look); ``max_steps``: a step cap for
    every episode instead of the protocol's (a first look: the scores are then not the paper's).

    Raises:
        ProtocolFileError: an input folder is missing, a game asked for is not in the protocol, or a
            run cannot be made into a sweep (the message says which).
    """
    inputs = dict(inputs or {})
    unknown = sorted(set(inputs) - set(protocol.inputs))
    if unknown:
        raise ProtocolFileError(f"{protocol.id}: --input {unknown[0]}: not an input of this protocol"
                                + (f" (its inputs: {', '.join(protocol.inputs)})" if protocol.inputs else ""))
    wanted = [g.strip() for g in games or () if g.strip()]
    if wanted:
        for w in wanted:
            task_games = {g for t in protocol.tasks for g in t.games}
            if not any(_matches(g, [w]) for g in protocol.games) and w not in task_games:
                labels = ", ".join(dict.fromkeys(g.label.split("-")[0] if "-lvl" in g.label or "-level" in
                                                 g.label else g.label for g in protocol.games))
                raise ProtocolFileError(f"{protocol.id}: --games {w}: not a game of this protocol ({labels})")
    chosen = [g for g in protocol.games if not wanted or _matches(g, wanted)]
    skipped: list[str] = []
    runs: list[PlannedRun] = []
    for run in protocol.runs:
        if run.needs_player and player is None:
            skipped.append(f"run {run.name} (needs --player)")
            continue
        mine = [g for g in chosen if run.games is None or g.label in run.games or g.id in run.games]
        if not mine:
            continue
        mine = [_fill_inputs(protocol, _with_options(g, run.options), inputs) for g in mine]
        text = _sweep_text(protocol, run, mine, player or "", episodes or run.episodes, max_steps)
        try:
            sweep = parse_sweep(text, name=f"{protocol.id}:{run.name}")
        except SweepFileError as exc:
            # The generated sweep's own line means nothing to the user: keep only what was wrong.
            why = re.sub(r"^.*?:\d+: \S+: ", "", str(exc))
            raise ProtocolFileError(f"{protocol.name or protocol.id}: run {run.name}: {why}") from None
        runs.append(PlannedRun(run, text, sweep))
    tasks: list[PlannedTasks] = []
    for task_run in protocol.tasks:
        tasks += _task_sets(task_run, player, wanted, episodes, skipped)
    return ProtocolPlan(protocol, player, tuple(runs), tuple(tasks), tuple(dict.fromkeys(skipped)))


def _task_sets(task_run: TaskRun, player: str | None, wanted: Sequence[str], n: int | None,
               skipped: list[str]) -> list[PlannedTasks]:
    players = []
    for spec in task_run.players:
        if PLAYER in spec:
            if player is None:
                skipped.append("task answers of {player} (needs --player)")
                continue
            spec = spec.replace(PLAYER, player)
        players.append(spec)
    out = []
    for game in task_run.games:
        if wanted and game not in wanted:
            continue
        for task in task_run.tasks:
            out.append(PlannedTasks(game, task, n or task_run.n, task_run.seed, tuple(players),
                                    task_run.image_size))
    return out
