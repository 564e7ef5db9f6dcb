"""A protocol file: one paper's games, harness, variants, runs and deviations, read from TOML.

A protocol says what a paper did, as PlayTrace can play it:

- ``[[games]]``: the games with the paper's options (``each = { level = [0, 1, 2] }`` repeats an entry
  once per value, with ``{level}`` put into its options' text and label);
- ``[harness]``: the harness every model seat plays with (the sweep file's keys, so ``playtrace run``'s
  option names) and ``[[variants]]``: the paper's harness variants, each a named setting on top of it;
- ``[[runs]]``: who plays and how often: a run's ``players`` are lineups as a sweep file takes them, where
  ``{player}`` is the model ``playtrace reproduce --player`` names and ``{opponent}`` a game's
  ``opponent``; a run with ``variants = true`` plays every variant, ``variants = ["zs", "both"]`` those;
- ``[[tasks]]``: LVLM-Playground's offline task sets (games × tasks × items, and who answers them);
- ``[inputs]``: folders the protocol needs and PlayTrace cannot ship (``{gvgai}``: GVGAI's games);
- ``[report]``: which paper's tables the report puts beside ours, and ``[[deviations]]``: where
  PlayTrace's protocol differs from the paper's, and why.

Mistakes are :class:`ProtocolFileError`, one line naming the file, the line and the key
(:func:`engine.tomllines.locate`), as sweep files report theirs.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import engine
from engine.core import GameError, UnknownGameError
from engine.options import OptionError, validate
from engine.sweep.spec import HARNESS_KEYS
from engine.tomllines import locate

__all__ = [
    "PLAYER",
    "REPORT_KINDS",
    "Deviation",
    "GameSpec",
    "Protocol",
    "ProtocolFileError",
    "Run",
    "TaskRun",
    "Variant",
    "parse_protocol",
]

#: The placeholder for the model under test in a run's players.
PLAYER = "{player}"
OPPONENT = "{opponent}"
#: The reports a protocol can ask for (:mod:`engine.protocols.report`).
REPORT_KINDS = ("scores", "gvgai", "lvlm", "gamebot")
TASKS = ("perceive", "qa", "rules")

_TOP = ("id", "title", "paper", "summary", "concurrency", "first_seed", "max_steps", "inputs", "harness",
        "variants", "games", "runs", "tasks", "report", "deviations")
_GAME = ("id", "label", "options", "max_steps", "opponent", "each")
_VARIANT = ("name", "label", "ablation", *HARNESS_KEYS)
_RUN = ("name", "label", "players", "episodes", "variants", "games", "baseline", "harness", "options")
_TASK = ("games", "tasks", "n", "seed", "players", "image_size")
_REPORT = ("kind", "paper", "statistic", "metrics")
_DEVIATION = ("topic", "paper", "ours", "why")
ABLATIONS = ("ZS", "+Memory", "+Perception", "+Both")


class ProtocolFileError(ValueError):
    """A mistake in a protocol file, as one line: ``FILE:LINE: KEY: what was expected``."""


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """A game of the protocol with the paper's options (checked against the game's schema)."""

    id: str
    label: str
    options: Mapping[str, Any]
    max_steps: int | None = None
    opponent: str | None = None


@dataclasses.dataclass(frozen=True)
class Variant:
    """A harness variant of the paper (a named setting over the protocol's ``[harness]``)."""

    name: str
    label: str
    values: Mapping[str, Any]
    ablation: str | None = None


@dataclasses.dataclass(frozen=True)
class Run:
    """Who plays which games how often: lineups (with ``{player}`` / ``{opponent}``), episodes each."""

    name: str
    label: str
    players: tuple[tuple[str, ...], ...]
    episodes: int
    #: The names of the variants this run plays (empty: the protocol's ``[harness]`` alone).
    variants: tuple[str, ...]
    games: tuple[str, ...] | None
    baseline: bool
    #: Harness values over the protocol's ``[harness]`` for this run only.
    harness: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    #: Game options set for this run's games that have them (e.g. GVGAI's coordinate tagging).
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def needs_player(self) -> bool:
        return any(PLAYER in spec for lineup in self.players for spec in lineup)


@dataclasses.dataclass(frozen=True)
class TaskRun:
    """LVLM-Playground's offline tasks: each game × task, ``n`` items drawn from ``seed``."""

    games: tuple[str, ...]
    tasks: tuple[str, ...]
    n: int
    seed: int
    players: tuple[str, ...]
    image_size: int | None = None


@dataclasses.dataclass(frozen=True)
class Deviation:
    """Where PlayTrace's protocol differs from the paper's (or the paper is silent), and why."""

    topic: str
    paper: str
    ours: str
    why: str


@dataclasses.dataclass(frozen=True)
class Protocol:
    """A protocol file, read and checked."""

    id: str
    title: str
    paper: str
    summary: str
    games: tuple[GameSpec, ...]
    harness: Mapping[str, Any]
    variants: tuple[Variant, ...]
    runs: tuple[Run, ...]
    tasks: tuple[TaskRun, ...]
    inputs: Mapping[str, str]
    report_kind: str
    report_paper: str
    statistic: str
    deviations: tuple[Deviation, ...]
    concurrency: int = 4
    first_seed: int = 0
    max_steps: int | None = None
    source: str = ""
    name: str = ""
    #: Final-state metrics the report tabulates per game label (mean ± spread), beyond the raw score.
    report_metrics: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)

    def game(self, label: str) -> GameSpec:
        for g in self.games:
            if g.label == label:
                return g
        raise KeyError(label)

    def options_for(self, game_id: str) -> Mapping[str, Any]:
        """The options this protocol plays the game ``game_id`` with (its first entry; none if absent)."""
        return next((g.options for g in self.games if g.id == game_id), {})

    @property
    def needs_player(self) -> bool:
        return any(r.needs_player for r in self.runs) or any(PLAYER in p for t in self.tasks
                                                             for p in t.players)


# -- reading -------------------------------------------------------------------------------------------


def _show(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class _Reader:
    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name

    def fail(self, path: Sequence[str | int], expected: str) -> ProtocolFileError:
        line = locate(self.text, path)
        where = f"{self.name}:{line}" if line else self.name
        key = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p))
                      for i, p in enumerate(path))
        return ProtocolFileError(f"{where}: {key}: {expected}" if key else f"{where}: {expected}")

    def table(self, value: Any, path: Sequence[str | int], keys: Sequence[str]) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(path, f"expected a table, got {_show(value)}")
        unknown = [k for k in value if k not in keys]
        if unknown:
            raise self.fail([*path, unknown[0]], f"unknown key; expected one of {', '.join(keys)}")
        return value

    def array(self, value: Any, path: Sequence[str | int], what: str) -> list[Any]:
        if not isinstance(value, list) or not value:
            raise self.fail(path, f"expected {what}, got {_show(value)}")
        return value

    def text_(self, value: Any, path: Sequence[str | int], what: str = "a short text") -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(path, f"expected {what}, got {_show(value)}")
        return value.strip()

    def int_(self, value: Any, path: Sequence[str | int], low: int, what: str) -> int:
        if not _is_int(value) or value < low:
            raise self.fail(path, f"expected {what}, got {_show(value)}")
        return int(value)


def parse_protocol(text: str, *, name: str = "protocol.toml") -> Protocol:
    """Read and check the text of a protocol file.

    Raises:
        ProtocolFileError: not TOML, or something PlayTrace cannot play; the message names the line.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        why = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        where = f"{name}:{found.group(1)}" if found else name
        raise ProtocolFileError(f"{where}: not valid TOML: {why}") from None
    r = _Reader(text, name)
    r.table(data, [], _TOP)
    pid = r.text_(data.get("id"), ["id"], "the protocol's id, such as \"lmgame-bench\"")
    inputs = data.get("inputs", {})
    if not isinstance(inputs, Mapping) or not all(isinstance(v, str) for v in inputs.values()):
        raise r.fail(["inputs"], "expected a table: name = \"what the folder holds\"")
    harness = r.table(data.get("harness", {}), ["harness"], tuple(HARNESS_KEYS))
    for key, value in harness.items():
        _check_harness(r, ["harness", key], key, value)
    variants = _variants(r, data.get("variants", []))
    games = _games(r, data.get("games"), inputs)
    runs = _runs(r, data.get("runs"), games, variants)
    tasks = _tasks(r, data.get("tasks", []))
    report = r.table(data.get("report", {}), ["report"], _REPORT)
    kind = report.get("kind", "scores")
    if kind not in REPORT_KINDS:
        raise r.fail(["report", "kind"], f"expected one of {', '.join(REPORT_KINDS)}, got {_show(kind)}")
    statistic = report.get("statistic", "sd")
    if statistic not in ("sd", "se"):
        raise r.fail(["report", "statistic"], f'expected "sd" or "se" (what ± means), got {_show(statistic)}')
    paper_id = report.get("paper", pid)
    if not isinstance(paper_id, str):
        raise r.fail(["report", "paper"], f"expected a paper's id, got {_show(paper_id)}")
    metrics = report.get("metrics", {})
    labels = {g.label for g in games}
    if not isinstance(metrics, Mapping):
        raise r.fail(["report", "metrics"], 'expected a table: game label = ["metric", ...]')
    for game_label, names in metrics.items():
        if game_label not in labels:
            raise r.fail(["report", "metrics", game_label], "expected a game label of this protocol")
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            raise r.fail(["report", "metrics", game_label], "expected a list of metric names")
    deviations = []
    for i, item in enumerate(data.get("deviations", [])):
        item = r.table(item, ["deviations", i], _DEVIATION)
        deviations.append(Deviation(*(r.text_(item.get(k), ["deviations", i, k]) for k in _DEVIATION)))
    max_steps = data.get("max_steps")
    if max_steps is not None:
        max_steps = r.int_(max_steps, ["max_steps"], 1, "a whole number of steps, at least 1")
    return Protocol(
        id=pid,
        title=r.text_(data.get("title", pid), ["title"]),
        paper=str(data.get("paper", "")),
        summary=str(data.get("summary", "")),
        games=games,
        harness=dict(harness),
        variants=variants,
        runs=runs,
        tasks=tasks,
        inputs={str(k): str(v) for k, v in inputs.items()},
        report_kind=str(kind),
        report_paper=paper_id,
        statistic=str(statistic),
        deviations=tuple(deviations),
        concurrency=r.int_(data.get("concurrency", 4), ["concurrency"], 1, "a whole number, at least 1"),
        first_seed=r.int_(data.get("first_seed", 0), ["first_seed"], 0, "a whole number, at least 0"),
        max_steps=max_steps,
        source=text,
        name=name,
        report_metrics={str(k): tuple(v) for k, v in metrics.items()},
    )


def _check_harness(r: _Reader, path: list[str | int], key: str, value: Any) -> None:
    expected, check = HARNESS_KEYS[key]
    if not check(value):
        raise r.fail(path, f"expected {expected}, got {_show(value)}")


def _variants(r: _Reader, value: Any) -> tuple[Variant, ...]:
    if not isinstance(value, list):
        raise r.fail(["variants"], "expected [[variants]] tables, each with a name")
    out = []
    for i, item in enumerate(value):
        path: list[str | int] = ["variants", i]
        item = r.table(item, path, _VARIANT)
        name = r.text_(item.get("name"), [*path, "name"], "a short name for this variant")
        ablation = item.get("ablation")
        if ablation is not None and ablation not in ABLATIONS:
            raise r.fail([*path, "ablation"],
                         f"expected one of {', '.join(ABLATIONS)}, got {_show(ablation)}")
        values = {k: v for k, v in item.items() if k in HARNESS_KEYS}
        for key, v in values.items():
            _check_harness(r, [*path, key], key, v)
        out.append(Variant(name, str(item.get("label", name)), values, ablation))
    if len({v.name for v in out}) != len(out):
        raise r.fail(["variants"], "expected a different name for every variant")
    return tuple(out)


_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


def _games(r: _Reader, value: Any, inputs: Mapping[str, Any]) -> tuple[GameSpec, ...]:
    items = r.array(value, ["games"], 'at least one [[games]] table with an id, such as id = "2048"')
    out: list[GameSpec] = []
    for i, item in enumerate(items):
        path: list[str | int] = ["games", i]
        item = r.table(item, path, _GAME)
        game_id = item.get("id")
        if not isinstance(game_id, str):
            raise r.fail([*path, "id"], f"expected a game id (see `playtrace games`), got {_show(game_id)}")
        try:
            cls = engine.declaration(game_id)
        except UnknownGameError as exc:
            raise r.fail([*path, "id"], str(exc)) from None
        options = item.get("options", {})
        if not isinstance(options, Mapping):
            raise r.fail([*path, "options"],
                         f"expected a table of {cls.title}'s options, got {_show(options)}")
        each = item.get("each", {})
        if not isinstance(each, Mapping) or len(each) > 1 or not all(
                isinstance(v, list) and v for v in each.values()):
            raise r.fail([*path, "each"], "expected one name and a list of values, such as "
                                          "each = { level = [0, 1, 2, 3, 4] }")
        label = r.text_(item.get("label", game_id), [*path, "label"], "a short name")
        steps = None if item.get("max_steps") is None else r.int_(
            item["max_steps"], [*path, "max_steps"], 1, "a whole number of steps, at least 1")
        opponent = item.get("opponent")
        if opponent is not None and (not isinstance(opponent, str) or not opponent.strip()):
            raise r.fail([*path, "opponent"], f"expected a player spec, got {_show(opponent)}")
        expansions: list[tuple[dict[str, Any], str]] = []
        if each:
            (var, values), = each.items()
            for v in values:
                subst = {var: v}
                expansions.append(({k: _fill(o, subst) for k, o in options.items()},
                                   label.replace("{" + var + "}", str(v)) if "{" + var + "}" in label
                                   else f"{label}-{var}{v}"))
        else:
            expansions.append((dict(options), label))
        for opts, lab in expansions:
            if any(isinstance(o, str) and _PLACEHOLDER.search(o) for o in opts.values()):
                missing = {m for o in opts.values() if isinstance(o, str) for m in _PLACEHOLDER.findall(o)}
                unknown = missing - set(inputs)
                if unknown:
                    raise r.fail([*path, "options"], f"{{{sorted(unknown)[0]}}} is not an input of this "
                                                     "protocol (declare it under [inputs])")
                full = {o.name: o.default for o in cls.options_schema}
                full.update(opts)  # checked when the inputs are filled in (compile time)
            else:
                try:
                    full = validate(cls.options_schema, opts, game=cls.title)
                except OptionError as exc:
                    bad = next((k for k in opts if k not in {o.name for o in cls.options_schema}), None)
                    raise r.fail([*path, "options", *([bad] if bad else [])], str(exc)) from None
                try:
                    engine.make(game_id, **full)
                except (GameError, TypeError, ValueError) as exc:
                    raise r.fail([*path, "options"],
                                 f"cannot make {game_id} with these options: {exc}") from None
            out.append(GameSpec(game_id, lab, full, steps, opponent.strip() if opponent else None))
    if len({g.label for g in out}) != len(out):
        raise r.fail(["games"], "expected each game once (give repeated games a different label)")
    return tuple(out)


def _fill(value: Any, subst: Mapping[str, Any]) -> Any:
    """``value`` with ``{name}`` replaced from ``subst`` (texts only; a text that is just ``{name}``
    takes the value itself, so ``level = "{level}"`` becomes a number)."""
    if not isinstance(value, str):
        return value
    whole = _PLACEHOLDER.fullmatch(value)
    if whole and whole.group(1) in subst:
        return subst[whole.group(1)]
    return _PLACEHOLDER.sub(lambda m: str(subst.get(m.group(1), m.group(0))), value)


def _runs(r: _Reader, value: Any, games: Sequence[GameSpec], variants: Sequence[Variant]) -> tuple[Run, ...]:
    items = r.array(value, ["runs"], "at least one [[runs]] table: name, players and episodes")
    labels = {g.label for g in games} | {g.id for g in games}
    out = []
    for i, item in enumerate(items):
        path: list[str | int] = ["runs", i]
        item = r.table(item, path, _RUN)
        name = r.text_(item.get("name"), [*path, "name"], "a short name for this run")
        if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name):
            raise r.fail([*path, "name"], "expected lowercase letters, digits, - and _ (it names a folder)")
        raw = r.array(item.get("players"), [*path, "players"],
                      'player lineups: "random", or ["{player}", "{opponent}"] (one spec per seat)')
        lineups = []
        for j, lineup in enumerate(raw):
            specs = [lineup] if isinstance(lineup, str) else lineup
            if not (isinstance(specs, list) and specs and all(isinstance(s,
                                                                         str) and s.strip() for s in specs)):
                raise r.fail([*path, "players", j],
                             f"expected a player spec or a list of them, got {_show(lineup)}")
            lineups.append(tuple(s.strip() for s in specs))
        episodes = r.int_(item.get("episodes", 1), [*path, "episodes"], 1, "a whole number, at least 1")
        use_variants = item.get("variants", False)
        names = [v.name for v in variants]
        if use_variants is True:
            if not variants:
                raise r.fail([*path, "variants"], "this protocol has no [[variants]]")
            chosen_variants = tuple(names)
        elif use_variants is False:
            chosen_variants = ()
        elif isinstance(use_variants, list) and use_variants and all(v in names for v in use_variants):
            chosen_variants = tuple(str(v) for v in use_variants)
        else:
            raise r.fail([*path, "variants"], "expected true (every [[variants]]), false, or a list of "
                                              f"variant names ({', '.join(names) or 'none declared'})")
        subset = item.get("games")
        if subset is not None:
            subset = r.array(subset, [*path, "games"], "a list of game labels")
            for j, g in enumerate(subset):
                if g not in labels:
                    raise r.fail([*path, "games", j], f"expected one of the protocol's games, got {_show(g)}")
            chosen = tuple(str(g) for g in subset)
        else:
            chosen = None
        needs_opponent = any(OPPONENT in s for lineup in lineups for s in lineup)
        for g in games:
            in_run = chosen is None or g.label in chosen or g.id in chosen
            if needs_opponent and g.opponent is None and in_run:
                raise r.fail([*path, "players"], f"{{opponent}} needs an opponent for game {g.label!r}")
        baseline = item.get("baseline", not any(PLAYER in s for lineup in lineups for s in lineup))
        if not isinstance(baseline, bool):
            raise r.fail([*path, "baseline"], "expected true or false")
        harness = r.table(item.get("harness", {}), [*path, "harness"], tuple(HARNESS_KEYS))
        for key, v in harness.items():
            _check_harness(r, [*path, "harness", key], key, v)
        options = item.get("options", {})
        if not isinstance(options, Mapping):
            raise r.fail([*path, "options"], f"expected a table of game options, got {_show(options)}")
        for key in options:
            if not any(key in {o.name for o in engine.declaration(g.id).options_schema} for g in games):
                raise r.fail([*path, "options", key], "no game of this protocol has this option")
        out.append(Run(name, str(item.get("label", name)), tuple(lineups), episodes, chosen_variants, chosen,
                       baseline, dict(harness), dict(options)))
    if len({x.name for x in out}) != len(out):
        raise r.fail(["runs"], "expected a different name for every run")
    return tuple(out)


def _tasks(r: _Reader, value: Any) -> tuple[TaskRun, ...]:
    if not isinstance(value, list):
        raise r.fail(["tasks"], "expected [[tasks]] tables")
    from engine.tasks import games_with_tasks

    known = set(games_with_tasks())
    out = []
    for i, item in enumerate(value):
        path: list[str | int] = ["tasks", i]
        item = r.table(item, path, _TASK)
        games = r.array(item.get("games"), [*path, "games"], "a list of games with LVLM tasks")
        for j, g in enumerate(games):
            if g not in known:
                raise r.fail([*path, "games", j],
                             f"expected one of {', '.join(sorted(known))}, got {_show(g)}")
        tasks = r.array(item.get("tasks", list(TASKS)), [*path, "tasks"], "a list of tasks")
        for j, t in enumerate(tasks):
            if t not in TASKS:
                raise r.fail([*path, "tasks", j], f"expected one of {', '.join(TASKS)}, got {_show(t)}")
        players = r.array(item.get("players", ["random"]), [*path, "players"], "a list of player specs")
        if not all(isinstance(p, str) and p.strip() for p in players):
            raise r.fail([*path, "players"], "expected player specs such as \"random\" or \"{player}\"")
        size = item.get("image_size")
        if size is not None:
            size = r.int_(size, [*path, "image_size"], 64, "a whole number of pixels, at least 64")
        out.append(TaskRun(tuple(games), tuple(tasks), r.int_(item.get("n", 2000), [*path, "n"], 1,
                                                             "a whole number of items, at least 1"),
                           r.int_(item.get("seed", 0), [*path, "seed"], 0, "a whole number, at least 0"),
                           tuple(p.strip() for p in players), size))
    return tuple(out)


def load_text(path: Path) -> str:
    """The text of a protocol file (:class:`ProtocolFileError` when it cannot be read)."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProtocolFileError(f"{path}: cannot read the protocol file: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ProtocolFileError(f"{path}: expected a UTF-8 text file (TOML)") from None


def is_finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
