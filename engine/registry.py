"""Finding games: every ``playtrace.games`` entry point names one :class:`~engine.core.Game` class.

PlayTrace's own games are declared in its ``pyproject.toml``; a separately installed distribution (or
an optional extra) adds a game the same way, without touching PlayTrace::

    [project.entry-points."playtrace.games"]
    mygame = "mypackage.mygame:MyGame"

The entry point's name is the game id and must equal the class's ``id``. A game whose optional
dependencies (``Game.requires``) are missing, or whose module fails to import, is still listed, as
unavailable, with the reason and the one command that installs what it needs.

Discovery runs once and is cached; :func:`refresh` forgets it (after installing a plug-in, in tests).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import shlex
import sys
import threading
from importlib import metadata
from typing import Any

from engine.core import Game, GameUnavailableError, UnknownGameError

__all__ = [
    "GROUP",
    "GameEntry",
    "declaration",
    "entries",
    "list_games",
    "make",
    "refresh",
    "spec",
]

#: The entry-point group games register under.
GROUP = "playtrace.games"
#: Ids are short lowercase words; a hyphen joins a family's name to a member's (``vgdl-aliens``).
_ID = re.compile(r"^[a-z0-9][a-z0-9_]*(-[a-z0-9_]+)*$")


@dataclasses.dataclass(frozen=True, slots=True)
class GameEntry:
    """One registered game, playable or not.

    Attributes:
        id: The game id (the entry point's name).
        value: The entry point's target (``"engine.games.g2048:Game2048"``).
        distribution: The distribution that registered it (``"playtrace"``, a plug-in's name).
        cls: The game class, or ``None`` when it could not be loaded.
        problem: Why the game cannot be played here (empty when it can).
        install: The command that installs what it needs (empty when nothing would help).
    """

    id: str
    value: str
    distribution: str
    cls: type[Game] | None
    problem: str = ""
    install: str = ""

    @property
    def available(self) -> bool:
        return self.cls is not None and not self.problem

    @property
    def title(self) -> str:
        return self.cls.title if self.cls is not None else self.id


_LOCK = threading.Lock()
_ENTRIES: dict[str, GameEntry] | None = None


def _check_declaration(game_id: str, cls: Any) -> list[str]:
    """What is wrong with a game class as a declaration (empty when nothing is)."""
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        return [f"{cls!r} is not a subclass of engine.core.Game"]
    problems = []
    declared = getattr(cls, "id", None)
    if declared != game_id:
        problems.append(f"the class declares id {declared!r} but is registered as {game_id!r}")
    if not getattr(cls, "title", ""):
        problems.append("it has no title")
    seats = getattr(cls, "seats", ())
    if not seats:
        problems.append("it declares no seats")
    if cls.default_opponent not in ("random", *cls.bots):
        problems.append(
            f"its default opponent {cls.default_opponent!r} is neither 'random' nor one of its bots"
        )
    if cls.tick_s is not None and (cls.tick_s <= 0 or cls.default_action is None):
        problems.append("a real-time game needs a positive tick_s and a default_action")
    if cls.__abstractmethods__:
        problems.append("it does not implement " + ", ".join(sorted(cls.__abstractmethods__)))
    return problems


def _install_hint(cls: type[Game], distribution: str) -> str:
    """The command that installs what the game needs, with the pip of the Python PlayTrace runs on
    (``python -m pip``: a bare ``pip`` on the PATH may belong to another Python)."""
    pip = f"{shlex.quote(sys.executable or 'python3')} -m pip install"
    if cls.extra:
        return f"{pip} '{distribution}[{cls.extra}]'"
    return f"{pip} " + " ".join(shlex.quote(r) for r in cls.requires) if cls.requires else ""


def _load_entry(ep: metadata.EntryPoint, distribution: str) -> GameEntry:
    game_id = ep.name
    if not _ID.match(game_id):
        problem = f"game ids are short lowercase words, not {game_id!r}"
        return GameEntry(game_id, ep.value, distribution, None, problem)
    try:
        cls = ep.load()
    except ImportError as exc:
        missing = getattr(exc, "name", None) or str(exc)
        return GameEntry(game_id, ep.value, distribution, None, f"cannot be imported: {missing} is missing")
    except Exception as exc:  # a broken plug-in must not hide the other games
        return GameEntry(
            game_id, ep.value, distribution, None, f"cannot be loaded: {type(exc).__name__}: {exc}"
        )
    problems = _check_declaration(game_id, cls)
    if problems:
        return GameEntry(game_id, ep.value, distribution, None, "; ".join(problems))
    missing = [name for name in cls.requires if importlib.util.find_spec(name) is None]
    if missing:
        problem = f"needs {', '.join(missing)}, which is not installed"
        return GameEntry(game_id, ep.value, distribution, cls, problem, _install_hint(cls, distribution))
    return GameEntry(game_id, ep.value, distribution, cls)


def _discover() -> dict[str, GameEntry]:
    global _ENTRIES
    with _LOCK:
        if _ENTRIES is not None:
            return _ENTRIES
        found: dict[str, GameEntry] = {}
        for ep in metadata.entry_points(group=GROUP):
            dist = ep.dist.name if ep.dist is not None else "unknown"
            if ep.name in found:
                if found[ep.name].value == ep.value:
                    continue  # the same distribution seen twice on sys.path
                first = found[ep.name]
                problem = (
                    f"registered twice: by {first.distribution} ({first.value}) and by {dist} ({ep.value})"
                )
                found[ep.name] = dataclasses.replace(first, cls=None, problem=problem)
                continue
            found[ep.name] = _load_entry(ep, dist)
        _ENTRIES = dict(sorted(found.items()))
        return _ENTRIES


def refresh() -> None:
    """Forget what discovery found, so the next call looks at the installed entry points again."""
    global _ENTRIES
    with _LOCK:
        _ENTRIES = None


def entries(*, include_unavailable: bool = True) -> list[GameEntry]:
    """Every registered game, sorted by id (with the unavailable ones unless told otherwise)."""
    found = _discover().values()
    return [e for e in found if include_unavailable or e.available]


def list_games() -> list[str]:
    """The ids of the games that can be played here, sorted."""
    return [e.id for e in entries(include_unavailable=False)]


def declaration(game_id: str) -> type[Game]:
    """The class (the declaration) of ``game_id``.

    Raises:
        UnknownGameError: no such game; the message lists the known ids.
        GameUnavailableError: the game is registered but cannot be played here; the message says
            why and how to install what it needs.
    """
    entry = _discover().get(game_id)
    if entry is None:
        known = ", ".join(list_games()) or "none"
        raise UnknownGameError(f"unknown game {game_id!r}; known games: {known}")
    if not entry.available or entry.cls is None:
        hint = f"; install it with: {entry.install}" if entry.install else ""
        raise GameUnavailableError(f"{entry.title} cannot be played here: {entry.problem}{hint}")
    return entry.cls


#: The registration of a game is its class.
spec = declaration


def make(game_id: str, **options: Any) -> Game:
    """Build the game registered as ``game_id`` with the given options.

    Raises:
        UnknownGameError: no such game (or it is unavailable here).
        engine.options.OptionError: an unknown option or an invalid value.
    """
    return declaration(game_id)(**options)
