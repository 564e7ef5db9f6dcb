"""The sweep file: games × player lineups × harness settings × seeds, read from TOML.

A sweep file names what to play; every combination of a game, a lineup and a harness setting is a
*cell*, and every cell plays one episode per seed. An episode is known by its key, the cell's key and
its seed: the cell's key is a digest of what decides the episode's moves (the game and its options,
the seat specs, the harness setting, the step cap), so editing another part of the file, adding a
game or a seed, never renames the episodes already played.

Mistakes are reported as :class:`SweepFileError`, one line naming the file, the line and the key, and
what was expected. ``tomllib`` reports the line of a syntax error itself; for a wrong value the line
is found by following the file's table headers to the key (:func:`engine.tomllines.locate`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import engine
from engine import safeio
from engine.core import GameError, UnknownGameError
from engine.llm.keys import mask_url_password
from engine.options import OptionError, validate
from engine.players import HUMAN
from engine.roster import is_model_spec
from engine.tomllines import locate

__all__ = [
    "Cell",
    "GameEntry",
    "HarnessSetting",
    "Lineup",
    "RayOptions",
    "Sweep",
    "SweepFileError",
    "load_sweep",
    "parse_sweep",
    "provider_of",
]

#: Harness keys a sweep file takes, as ``playtrace run`` names them: key -> (what is expected, check).
_ANY_NUMBER = (int, float)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, _ANY_NUMBER) and not isinstance(v, bool) and math.isfinite(v)


HARNESS_KEYS: dict[str, tuple[str, Any]] = {
    "perception": ('"text", "image", "both" or "describe"',
                   lambda v: v in ("text", "image", "both", "describe")),
    # The model that describes the image under perception "describe" (a player spec; default: the acting one).
    "perception_model": ("a model player spec", lambda v: isinstance(v, str) and is_model_spec(v)),
    "action_format": ('"text", "json" or "tools"', lambda v: v in ("text", "json", "tools")),
    "logprobs": ("true or false", lambda v: isinstance(v, bool)),
    "image_labels": ("true or false", lambda v: isinstance(v, bool)),
    "memory": ("a whole number of steps, at least 0 (0 = off)", lambda v: _is_int(v) and v >= 0),
    "reflection": ("true or false", lambda v: isinstance(v, bool)),
    "thinking": ("true or false", lambda v: isinstance(v, bool)),
    "thinking_budget": ("a whole number of tokens above 0", lambda v: _is_int(v) and v >= 1),
    "effort": ('"low", "medium" or "high"', lambda v: v in ("low", "medium", "high")),
    "temperature": ("a number from 0 to 2", lambda v: _is_num(v) and 0 <= v <= 2),
    "prompt_variant": ("a prompt variant's name", lambda v: isinstance(v, str) and bool(v.strip())),
    "timeout": ("a number of seconds above 0", lambda v: _is_num(v) and v > 0),
    "reask": ('"feedback", "same" or "none"', lambda v: v in ("feedback", "same", "none")),
    "retries": ("a whole number, at least 0", lambda v: _is_int(v) and v >= 0),
    "fallback": ('"random", "noop" or "forfeit"', lambda v: v in ("random", "noop", "forfeit")),
    "max_tokens": ("a whole number of output tokens, at least 1", lambda v: _is_int(v) and v >= 1),
    "max_failed_calls": ("a whole number, at least 0 (0: never give up)", lambda v: _is_int(v) and v >= 0),
    "strikes": ("a whole number, at least 0", lambda v: _is_int(v) and v >= 0),
    "sim_error_rate": ("a number from 0 to 1", lambda v: _is_num(v) and 0 <= v <= 1),
    "sim_api_error_rate": ("a number from 0 to 1", lambda v: _is_num(v) and 0 <= v <= 1),
    # Seconds between the simulated model's streamed chunks (0: answers at once, for quick sweeps).
    "sim_latency": ("a number of seconds, at least 0", lambda v: _is_num(v) and v >= 0),
}

_TOP_KEYS = ("name", "seeds", "episodes", "first_seed", "max_steps", "concurrency", "players", "games",
             "harness", "budget", "limits", "ray")
_GAME_KEYS = ("id", "options", "label", "players", "max_steps")
_BUDGET_KEYS = ("sweep_usd", "session_soft_usd", "session_hard_usd")
_RAY_KEYS = ("num_cpus", "max_retries", "sessions", "tags")
_TAG_KEYS = ("num_cpus", "resources")


class SweepFileError(ValueError):
    """A mistake in a sweep file, as one line: ``FILE:LINE: KEY: what was expected``."""


# -- the parts of a sweep ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Lineup:
    """The players of a cell: one spec per seat, or one spec for every seat."""

    specs: tuple[str, ...]

    @property
    def label(self) -> str:
        return " vs ".join(mask_url_password(s) for s in self.specs)

    @property
    def has_model(self) -> bool:
        return any(is_model_spec(s) for s in self.specs)


@dataclasses.dataclass(frozen=True)
class GameEntry:
    """A game of the sweep with its options (checked against the game's schema, defaults filled in)."""

    id: str
    options: Mapping[str, Any]
    label: str
    lineups: tuple[Lineup, ...] | None = None
    max_steps: int | None = None


@dataclasses.dataclass(frozen=True)
class HarnessSetting:
    """One harness setting of the grid, in the sweep file's terms (``playtrace run``'s option names)."""

    name: str
    values: Mapping[str, Any]

    def model_options(self) -> dict[str, Any]:
        """The setting as model-player options (``engine.agent.player.make_model_player``)."""
        opts: dict[str, Any] = {}
        policy: dict[str, Any] = {}
        for key, value in self.values.items():
            if key in ("reask", "retries", "fallback"):
                policy[key] = value
            elif key == "timeout":
                opts["timeout_s"] = float(value)
            elif key == "sim_error_rate":
                opts["format_error_rate"] = float(value)
            elif key == "sim_api_error_rate":
                opts["api_error_rate"] = float(value)
            elif key == "sim_latency":
                opts["latency"] = float(value)
            else:
                opts[key] = value
        if policy:
            opts["invalid_policy"] = policy
        return opts

    @property
    def perception_on(self) -> bool:
        """LMGame-Bench's perception module: the game's own text table (``text`` or ``both``); the
        harness default is ``text``. ``image`` alone is the raw frame, the paper's no-perception input."""
        return bool(self.values.get("perception", "text") != "image")

    @property
    def memory_on(self) -> bool:
        """LMGame-Bench's memory module: a trajectory window or reflection (both on by default)."""
        return bool(self.values.get("memory", 1)) or bool(self.values.get("reflection", True))


@dataclasses.dataclass(frozen=True)
class Cell:
    """A game, a lineup and a harness setting: the unit whose episodes differ only by seed."""

    game: GameEntry
    lineup: Lineup
    harness: HarnessSetting
    max_steps: int | None

    @property
    def identity(self) -> dict[str, Any]:
        """What decides the cell's moves (its key is a digest of it)."""
        return {
            "game": self.game.id,
            "options": dict(sorted(self.game.options.items())),
            # As they may be shown: a password in a server's URL never reaches the index or a report.
            "players": [mask_url_password(s) for s in self.lineup.specs],
            "harness": dict(sorted(self.harness.values.items())),
            "max_steps": self.max_steps,
        }

    @property
    def key(self) -> str:
        text = json.dumps(self.identity, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def label(self) -> str:
        return f"{self.game.label} · {self.lineup.label} · {self.harness.name}"

    @property
    def providers(self) -> frozenset[str]:
        """The providers (or base URLs) this cell's model players call, for concurrency limits."""
        return frozenset(p for p in (provider_of(s) for s in self.lineup.specs) if p is not None)


@dataclasses.dataclass(frozen=True)
class RayOptions:
    """How episodes run as Ray tasks (see :mod:`engine.sweep.ray_runner`)."""

    num_cpus: float = 1.0
    max_retries: int = 3
    sessions: str = "shared"
    #: Extra Ray resources for the episodes of a game or with a player spec: name -> (cpus, resources).
    tags: Mapping[str, tuple[float | None, Mapping[str, float]]] = dataclasses.field(default_factory=dict)

    def resources_for(self, cell: Cell) -> tuple[float, dict[str, float]]:
        """The CPUs and custom resources one episode of ``cell`` asks the cluster for."""
        cpus = self.num_cpus
        custom: dict[str, float] = {}
        for name in (cell.game.id, *cell.lineup.specs):
            tag = self.tags.get(name)
            if tag is None:
                continue
            tag_cpus, resources = tag
            if tag_cpus is not None:
                cpus = max(cpus, tag_cpus)
            for res, amount in resources.items():
                custom[res] = max(custom.get(res, 0.0), amount)
        return cpus, custom


@dataclasses.dataclass(frozen=True)
class Sweep:
    """A whole sweep file, read and checked."""

    name: str
    games: tuple[GameEntry, ...]
    lineups: tuple[Lineup, ...]
    settings: tuple[HarnessSetting, ...]
    seeds: tuple[int, ...]
    max_steps: int | None
    concurrency: int
    sweep_usd: float | None = None
    session_soft_usd: float | None = None
    session_hard_usd: float | None = None
    limits: Mapping[str, int] = dataclasses.field(default_factory=dict)
    ray: RayOptions = dataclasses.field(default_factory=RayOptions)
    source: str = ""

    @property
    def cells(self) -> list[Cell]:
        """Every cell, games outermost, then lineups, then harness settings."""
        out = []
        for game in self.games:
            steps = game.max_steps if game.max_steps is not None else self.max_steps
            for lineup in game.lineups or self.lineups:
                for setting in self.settings:
                    out.append(Cell(game, lineup, setting, steps))
        return out

    @property
    def episodes(self) -> list[tuple[Cell, int]]:
        """Every episode the sweep describes: each cell once per seed."""
        return [(cell, seed) for cell in self.cells for seed in self.seeds]

    @property
    def has_model(self) -> bool:
        return any(cell.lineup.has_model for cell in self.cells)

    def session_budget(self) -> dict[str, float]:
        """The per-session spending caps as model-player options."""
        caps = {"budget_soft_usd": self.session_soft_usd, "budget_hard_usd": self.session_hard_usd}
        return {k: v for k, v in caps.items() if v is not None}


def provider_of(spec: str) -> str | None:
    """The provider a model spec calls, as concurrency limits name it: ``openai``, ``anthropic``,
    ``sim``, a local preset (``ollama``), or the base URL of ``local:MODEL@URL``; ``None`` for bots."""
    spec = spec.strip()
    if not is_model_spec(spec):
        return None
    head, _, rest = spec.partition(":")
    if head == "local" and "@" in rest:
        return rest.rsplit("@", 1)[1].strip().rstrip("/")
    return head


# -- reading -------------------------------------------------------------------------------------------


class _Reader:
    """Reads the parsed TOML with the file's text at hand, so every error names its line."""

    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name

    def fail(self, path: Sequence[str | int], expected: str) -> SweepFileError:
        line = locate(self.text, path)
        where = f"{self.name}:{line}" if line else self.name
        key = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p))
                      for i, p in enumerate(path))
        return SweepFileError(f"{where}: {key}: {expected}")

    def table(self, value: Any, path: Sequence[str | int], keys: Sequence[str]) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(path, f"expected a table, got {_show(value)}")
        unknown = [k for k in value if k not in keys]
        if unknown:
            raise self.fail([*path, unknown[0]], f"unknown key; expected one of {', '.join(keys)}")
        return value

    def int_(self, value: Any, path: Sequence[str | int], low: int, what: str) -> int:
        if not _is_int(value) or value < low:
            raise self.fail(path, f"expected {what}, got {_show(value)}")
        return int(value)

    def usd(self, value: Any, path: Sequence[str | int]) -> float | None:
        if value is None:
            return None
        if not _is_num(value) or value < 0:
            raise self.fail(path, f"expected a number of US dollars, at least 0, got {_show(value)}")
        return float(value)


def _show(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def load_sweep(path: Path | str) -> Sweep:
    """Read and check a sweep file.

    Raises:
        SweepFileError: the file cannot be read, is not TOML, or says something PlayTrace cannot play.
    """
    path = Path(path)
    try:
        text = safeio.read_text(path, cap=1024 * 1024, what="sweep file")
    except FileNotFoundError:
        raise SweepFileError(f"{path}: cannot read the sweep file: no such file") from None
    except safeio.InputError as exc:
        raise SweepFileError(str(exc)) from None
    return parse_sweep(text, name=str(path))


def parse_sweep(text: str, *, name: str = "sweep.toml") -> Sweep:
    """Read and check the text of a sweep file (see :func:`load_sweep`)."""
    try:
        data = safeio.loads_toml(text, name)
    except safeio.InputError as exc:
        raise SweepFileError(str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        why = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        where = f"{name}:{found.group(1)}" if found else name
        raise SweepFileError(f"{where}: not valid TOML: {why}") from None
    r = _Reader(text, name)
    r.table(data, [], _TOP_KEYS)
    seeds = _seeds(r, data)
    max_steps = None if data.get("max_steps") is None else r.int_(
        data["max_steps"], ["max_steps"], 1, "a whole number of steps, at least 1")
    concurrency = r.int_(data.get("concurrency", 4), ["concurrency"], 1, "a whole number, at least 1")
    lineups = _lineups(r, data.get("players"), ["players"]) if "players" in data else None
    games = _games(r, data.get("games"), lineups)
    settings = _settings(r, data.get("harness", {}))
    budget = r.table(data.get("budget", {}), ["budget"], _BUDGET_KEYS)
    limits = _limits(r, data.get("limits", {}))
    ray = _ray(r, data.get("ray", {}))
    sweep = Sweep(
        name=str(data.get("name") or Path(name).stem),
        games=games,
        lineups=lineups or (),
        settings=settings,
        seeds=seeds,
        max_steps=max_steps,
        concurrency=concurrency,
        sweep_usd=r.usd(budget.get("sweep_usd"), ["budget", "sweep_usd"]),
        session_soft_usd=r.usd(budget.get("session_soft_usd"), ["budget", "session_soft_usd"]),
        session_hard_usd=r.usd(budget.get("session_hard_usd"), ["budget", "session_hard_usd"]),
        limits=limits,
        ray=ray,
        source=text,
    )
    _check_cells(r, sweep)
    return sweep


#: Seeds are stored as 64-bit integers (the index) and seed numpy's generators.
MAX_SEED = 2**63 - 1
#: Episodes per cell (more is a mistake: the five papers play hundreds).
MAX_EPISODES = 100_000
#: Episodes in all, over every cell.
MAX_TOTAL_EPISODES = 1_000_000


def _seeds(r: _Reader, data: Mapping[str, Any]) -> tuple[int, ...]:
    if "seeds" in data:
        if "episodes" in data or "first_seed" in data:
            raise r.fail(["seeds"], "expected either seeds or episodes (with first_seed), not both")
        seeds = data["seeds"]
        if not isinstance(seeds, list) or not seeds or not all(_is_int(s) for s in seeds):
            raise r.fail(["seeds"], f"expected a list of whole numbers such as [0, 1, 2], got {_show(seeds)}")
        if len(set(seeds)) != len(seeds):
            raise r.fail(["seeds"], "expected every seed once; a seed is an episode of each cell")
        if len(seeds) > MAX_EPISODES:
            raise r.fail(["seeds"], f"expected at most {MAX_EPISODES:,} seeds")
        for i, seed in enumerate(seeds):
            if not 0 <= seed <= MAX_SEED:
                raise r.fail(["seeds", i], f"expected a seed from 0 to {MAX_SEED:,}, got {seed}")
        return tuple(int(s) for s in seeds)
    episodes = r.int_(data.get("episodes", 1), ["episodes"], 1, "a whole number of episodes, at least 1")
    if episodes > MAX_EPISODES:
        raise r.fail(["episodes"], f"expected at most {MAX_EPISODES:,} episodes per cell, got {episodes:,}")
    first = data.get("first_seed", 0)
    if not _is_int(first) or not 0 <= first <= MAX_SEED - episodes:
        raise r.fail(["first_seed"], f"expected a whole number from 0 to {MAX_SEED - episodes:,}, "
                     f"got {_show(first)}")
    return tuple(range(first, first + episodes))


def _lineups(r: _Reader, value: Any, path: list[str | int]) -> tuple[Lineup, ...]:
    expected = 'a list of player specs: "random" fills every seat, ["minimax", "sim"] is one spec per seat'
    if not isinstance(value, list) or not value:
        raise r.fail(path, f"expected {expected}, got {_show(value)}")
    out = []
    for i, item in enumerate(value):
        specs = [item] if isinstance(item, str) else item
        if not (isinstance(specs, list) and specs and all(isinstance(s, str) and s.strip() for s in specs)):
            raise r.fail([*path, i], f"expected {expected}, got {_show(item)}")
        if any(s.strip() == HUMAN for s in specs):
            raise r.fail([*path, i], "a human player needs the app; a sweep plays bots and models")
        out.append(Lineup(tuple(s.strip() for s in specs)))
    if len(set(out)) != len(out):
        raise r.fail(path, "expected every lineup once")
    return tuple(out)


def _games(r: _Reader, value: Any, lineups: tuple[Lineup, ...] | None) -> tuple[GameEntry, ...]:
    if not isinstance(value, list) or not value:
        raise r.fail(["games"], 'expected at least one [[games]] table with an id, such as id = "2048"')
    out = []
    for i, item in enumerate(value):
        path: list[str | int] = ["games", i]
        item = r.table(item, path, _GAME_KEYS)
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
        try:
            full = validate(cls.options_schema, dict(options), game=cls.title)
        except OptionError as exc:
            bad = next((k for k in options if k not in {o.name for o in cls.options_schema}), None)
            raise r.fail([*path, "options", *([bad] if bad else [])], str(exc)) from None
        try:
            engine.make(game_id, **full)
        except (GameError, TypeError, ValueError) as exc:
            raise r.fail([*path, "options"], f"cannot make {game_id} with these options: {exc}") from None
        own = _lineups(r, item["players"], [*path, "players"]) if "players" in item else None
        if own is None and lineups is None:
            raise r.fail([*path, "players"], "expected players: set players at the top of the file or here")
        steps = None if item.get("max_steps") is None else r.int_(
            item["max_steps"], [*path, "max_steps"], 1, "a whole number of steps, at least 1")
        label = item.get("label", game_id)
        if not isinstance(label, str) or not label.strip():
            raise r.fail([*path, "label"], f"expected a short name, got {_show(label)}")
        out.append(GameEntry(game_id, full, label.strip(), own, steps))
    if len({g.label for g in out}) != len(out):
        raise r.fail(["games"], "expected each game once (give repeated games a different label)")
    return tuple(out)


def _settings(r: _Reader, value: Any) -> tuple[HarnessSetting, ...]:
    """The harness grid: scalars hold for every setting, lists are axes, ``[[harness.settings]]`` are
    named settings; the grid is every named setting (or one empty one) times every combination of axes."""
    r.table(value, ["harness"], (*HARNESS_KEYS, "settings"))
    fixed: dict[str, Any] = {}
    axes: list[tuple[str, list[Any]]] = []
    for key, item in value.items():
        if key == "settings":
            continue
        if isinstance(item, list):
            if not item:
                raise r.fail(["harness", key], f"expected at least one value: {HARNESS_KEYS[key][0]}")
            for j, v in enumerate(item):
                _check_harness(r, ["harness", key, j], key, v)
            if len(set(map(repr, item))) != len(item):
                raise r.fail(["harness", key], "expected every value once")
            axes.append((key, list(item)))
        else:
            _check_harness(r, ["harness", key], key, item)
            fixed[key] = item
    named: list[HarnessSetting] = []
    raw = value.get("settings", [])
    if not isinstance(raw, list):
        raise r.fail(["harness", "settings"], "expected [[harness.settings]] tables, each with a name")
    for i, item in enumerate(raw):
        path: list[str | int] = ["harness", "settings", i]
        item = r.table(item, path, ("name", *HARNESS_KEYS))
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            raise r.fail([*path, "name"], f"expected a short name for this setting, got {_show(name)}")
        for key, v in item.items():
            if key != "name":
                _check_harness(r, [*path, key], key, v)
        named.append(HarnessSetting(name.strip(), {k: v for k, v in item.items() if k != "name"}))
    out = []
    for base in named or [HarnessSetting("", {})]:
        for combo in itertools.product(*(values for _, values in axes)):
            values = {**fixed, **base.values, **dict(zip((k for k, _ in axes), combo, strict=True))}
            parts = [base.name] if base.name else []
            parts += [f"{k}={_short(v)}" for (k, _), v in zip(axes, combo, strict=True)]
            out.append(HarnessSetting(" ".join(parts) or "default", values))
    if len({s.name for s in out}) != len(out):
        raise r.fail(["harness", "settings"], "expected a different name for every setting")
    return tuple(out)


def _short(value: Any) -> str:
    return json.dumps(value) if isinstance(value, bool) else str(value)


def _check_harness(r: _Reader, path: list[str | int], key: str, value: Any) -> None:
    expected, check = HARNESS_KEYS[key]
    if not check(value):
        raise r.fail(path, f"expected {expected}, got {_show(value)}")


def _limits(r: _Reader, value: Any) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise r.fail(["limits"], "expected a table: provider or base URL = episodes at once")
    out = {}
    for key, n in value.items():
        out[str(key).rstrip("/")] = r.int_(n, ["limits", key], 1,
                                           "a whole number of episodes at once, at least 1")
    return out


def _ray(r: _Reader, value: Any) -> RayOptions:
    value = r.table(value, ["ray"], _RAY_KEYS)
    cpus = value.get("num_cpus", 1)
    if not _is_num(cpus) or cpus < 0:
        raise r.fail(["ray", "num_cpus"], f"expected a number of CPUs, at least 0, got {_show(cpus)}")
    retries = r.int_(value.get("max_retries", 3), ["ray", "max_retries"], 0, "a whole number, at least 0")
    sessions = value.get("sessions", "shared")
    if sessions not in ("shared", "stream"):
        raise r.fail(["ray", "sessions"], f'expected "shared" (a folder every worker reaches) or "stream" '
                                          f"(sent back to this machine), got {_show(sessions)}")
    tags: dict[str, tuple[float | None, dict[str, float]]] = {}
    raw_tags = value.get("tags", {})
    if not isinstance(raw_tags, Mapping):
        raise r.fail(["ray", "tags"], "expected a table: game id or player spec = { num_cpus, resources }")
    for name, tag in raw_tags.items():
        path: list[str | int] = ["ray", "tags", name]
        tag = r.table(tag, path, _TAG_KEYS)
        tag_cpus = tag.get("num_cpus")
        if tag_cpus is not None and (not _is_num(tag_cpus) or tag_cpus < 0):
            raise r.fail([*path, "num_cpus"], f"expected a number of CPUs, got {_show(tag_cpus)}")
        resources = tag.get("resources", {})
        if not isinstance(resources, Mapping) or not all(_is_num(v) and v > 0 for v in resources.values()):
            raise r.fail([*path, "resources"], "expected a table of custom resources, such as "
                                               "{ model_server = 0.25 }")
        tags[str(name)] = (None if tag_cpus is None else float(tag_cpus),
                           {str(k): float(v) for k, v in resources.items()})
    return RayOptions(float(cpus), retries, str(sessions), tags)


def _check_cells(r: _Reader, sweep: Sweep) -> None:
    """Every lineup fits its game's seats and names players the game knows; no two cells are alike."""
    from engine.roster import make_player

    total = len(sweep.cells) * len(sweep.seeds)
    if total > MAX_TOTAL_EPISODES:
        raise r.fail(["seeds"], f"expected at most {MAX_TOTAL_EPISODES:,} episodes in all; "
                                f"{len(sweep.cells):,} cells x {len(sweep.seeds):,} seeds make {total:,}")
    seen: dict[str, Cell] = {}
    for cell in sweep.cells:
        twin = seen.setdefault(cell.key, cell)
        if twin is not cell:
            place = ["harness"] if twin.game == cell.game else ["games"]
            raise r.fail(place, f"expected different cells, but {twin.label!r} and {cell.label!r} play the "
                                "same episodes (same game, options, players and harness values)")

    for gi, game in enumerate(sweep.games):
        made = engine.make(game.id, **dict(game.options))
        where: list[str | int] = ["games", gi, "players"] if game.lineups else ["players"]
        for li, lineup in enumerate(game.lineups or sweep.lineups):
            if len(lineup.specs) not in (1, made.num_seats):
                raise r.fail([*where, li], f"{made.title} has {made.num_seats} seat(s); expected 1 spec "
                                           f"or {made.num_seats}, got {len(lineup.specs)}")
            for spec in lineup.specs:
                if is_model_spec(spec):
                    prefix, _, rest = spec.partition(":")
                    if prefix in ("openai", "anthropic", "local") and not rest.strip():
                        raise r.fail([*where, li], f"player {spec!r} needs a model name, e.g. {prefix}:MODEL")
                    if prefix == "sim":
                        from engine.llm.sim import parse_spec

                        try:
                            parse_spec(spec)
                        except ValueError as exc:
                            raise r.fail([*where, li], str(exc)) from None
                    continue
                try:
                    make_player(spec, made, seed=0)
                except ValueError as exc:
                    raise r.fail([*where, li], str(exc)) from None
