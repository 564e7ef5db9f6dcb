"""Each paper's protocol as data: which games with which options, the harness, the invalid-answer
policy, the runs (episodes, seeds, opponents), the paper's variants and its tables.

PlayTrace ships one protocol per paper (``engine/protocols/data/<id>.toml``) and the paper's published
tables beside it (``engine/protocols/papers/<id>.toml``). A user copies a protocol
(``playtrace protocols show ID > mine.toml``), edits it and runs the copy; :func:`load_protocol` takes
a shipped id or a path.

- :mod:`engine.protocols.spec` reads and checks a protocol file (errors name their line);
- :mod:`engine.protocols.plan` makes its runs into sweep files for the model under test;
- :mod:`engine.protocols.papers` reads the published tables;
- :mod:`engine.protocols.report` builds the paper's tables from a reproduction's results, with the
  published rows beside ours and the paper's statistics (:mod:`engine.stats`).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from engine.protocols.plan import PlannedRun, PlannedTasks, ProtocolPlan, plan
from engine.protocols.spec import (
    PLAYER,
    Deviation,
    GameSpec,
    Protocol,
    ProtocolFileError,
    Run,
    TaskRun,
    Variant,
    load_text,
    parse_protocol,
)

__all__ = [
    "PLAYER",
    "Deviation",
    "GameSpec",
    "PlannedRun",
    "PlannedTasks",
    "Protocol",
    "ProtocolFileError",
    "ProtocolPlan",
    "Run",
    "TaskRun",
    "Variant",
    "load_protocol",
    "parse_protocol",
    "plan",
    "shipped",
    "shipped_text",
]


def _data() -> resources.abc.Traversable:
    return resources.files("engine.protocols").joinpath("data")


def shipped() -> list[str]:
    """The ids of the protocols PlayTrace ships, sorted."""
    return sorted(p.name.removesuffix(".toml") for p in _data().iterdir() if p.name.endswith(".toml"))


def shipped_text(protocol_id: str) -> str:
    """The text of a shipped protocol.

    Raises:
        ProtocolFileError: no protocol has that id.
    """
    if protocol_id not in shipped():
        raise ProtocolFileError(f"no protocol {protocol_id!r}; PlayTrace ships: {', '.join(shipped())} "
                                "(or give the path of a protocol file)")
    return _data().joinpath(f"{protocol_id}.toml").read_text(encoding="utf-8")


def load_protocol(what: str | Path) -> Protocol:
    """A shipped protocol by id, or a protocol file by path (a path is an existing file, or anything
    ending in ``.toml``; a folder named like a protocol, such as its results, is not).

    Raises:
        ProtocolFileError: unknown id, unreadable file, or a mistake in it (with its line).
    """
    text_id = str(what)
    if isinstance(what, Path) or text_id.endswith(".toml") or Path(text_id).is_file():
        path = Path(what)
        return parse_protocol(load_text(path), name=str(path))
    return parse_protocol(shipped_text(text_id), name=f"{text_id}.toml")
