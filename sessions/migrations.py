"""Upgrades of older session layouts to the current :data:`~sessions.schema.SCHEMA_VERSION`.

Each migration turns version ``n`` into ``n + 1`` and is registered under ``n``; the reader applies
them in a chain, so a session written by any earlier PlayTrace opens in this one. Migrations work on
the parsed JSON, in memory: the files on disk are never rewritten.

Version 0 (the pre-release layout)
----------------------------------
Event lines::

    {"schema_version": 0, "seq": 3, "ts": "...", "kind": "game_started", "step": 0, "seat": null,
     "data": {...}}

* the version key was ``schema_version`` (now ``v``) and the event type key was ``kind`` (now ``type``);
* there was no ``call`` (the grouping of one decision attempt): it becomes ``null``;
* the first and last events were called ``game_started`` / ``game_finished`` (now
  ``session_started`` / ``session_finished``).

Manifest: ``created`` (now ``created_at``); ``players`` was a list of spec strings (now a list of
``{seat, spec, label, kind}``); there was no ``id`` (now the folder name), ``format`` was already
``"playtrace-session"``; no ``title``, ``harness`` or ``extra``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sessions.errors import MigrationError
from sessions.schema import SCHEMA_VERSION

EventMigration = Callable[[dict[str, Any]], dict[str, Any]]
ManifestMigration = Callable[[dict[str, Any], str], dict[str, Any]]

_V0_TYPE_RENAMES = {"game_started": "session_started", "game_finished": "session_finished"}
_MODEL_PREFIXES = ("sim", "openai", "anthropic", "local")


def _event_v0_to_v1(line: dict[str, Any]) -> dict[str, Any]:
    kind = line.get("type", line.get("kind"))
    kind = _V0_TYPE_RENAMES.get(kind, kind) if isinstance(kind, str) else kind
    return {
        "v": 1,
        "seq": line.get("seq"),
        "ts": line.get("ts"),
        "type": kind,
        "step": line.get("step"),
        "seat": line.get("seat"),
        "call": None,
        "data": line.get("data") if isinstance(line.get("data"), dict) else {},
    }


def _player_kind(spec: str) -> str:
    if spec == "human":
        return "human"
    return "model" if spec.split(":", 1)[0] in _MODEL_PREFIXES else "bot"


def _manifest_v0_to_v1(manifest: dict[str, Any], folder_name: str) -> dict[str, Any]:
    m = dict(manifest)
    m["schema_version"] = 1
    m.setdefault("format", "playtrace-session")
    m.setdefault("app_version", "unknown")
    m.setdefault("id", folder_name)
    if "created_at" not in m:
        m["created_at"] = m.pop("created", None)
    players = []
    for seat, p in enumerate(m.get("players") or []):
        if isinstance(p, str):
            label = "Random" if p == "random" else ("Human" if p == "human" else p)
            players.append({"seat": seat, "spec": p, "label": label, "kind": _player_kind(p)})
        elif isinstance(p, dict):
            players.append(p)
    m["players"] = players
    for key, default in (("title", None), ("harness", {}), ("extra", {}), ("options", {}), ("seed", None)):
        m.setdefault(key, default)
    for key in ("steps", "scores", "winner", "result", "finished_at"):
        m.setdefault(key, None)
    return m


#: Event-line migrations keyed by the version they upgrade from.
EVENT_MIGRATIONS: dict[int, EventMigration] = {0: _event_v0_to_v1}
#: Manifest migrations keyed by the version they upgrade from.
MANIFEST_MIGRATIONS: dict[int, ManifestMigration] = {0: _manifest_v0_to_v1}


def line_version(line: dict[str, Any]) -> int:
    """The schema version an event line was written with."""
    v = line.get("v", line.get("schema_version"))
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    # Unversioned lines: "kind" without "type" is the v0 layout; otherwise assume the current one.
    return 0 if "kind" in line and "type" not in line else SCHEMA_VERSION


def manifest_version(manifest: dict[str, Any]) -> int:
    """The schema version a manifest was written with (0 when it does not say)."""
    v = manifest.get("schema_version", 0)
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def migrate_event(line: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """Upgrade one event line; returns it and the version it was written with.

    Lines from a newer schema are returned unchanged (the reader warns about them).

    Raises:
        MigrationError: no migration is registered for some version on the way.
    """
    start = version = line_version(line)
    while version < SCHEMA_VERSION:
        step = EVENT_MIGRATIONS.get(version)
        if step is None:
            raise MigrationError(f"events of schema version {version} cannot be upgraded by this PlayTrace")
        line = step(line)
        version += 1
    return line, start


def migrate_manifest(manifest: dict[str, Any], folder_name: str) -> tuple[dict[str, Any], int]:
    """Upgrade a manifest; returns it and the version it was written with.

    Raises:
        MigrationError: no migration is registered for some version on the way.
    """
    start = version = manifest_version(manifest)
    while version < SCHEMA_VERSION:
        step = MANIFEST_MIGRATIONS.get(version)
        if step is None:
            raise MigrationError(f"manifest of schema version {version} cannot be upgraded by this PlayTrace")
        manifest = step(manifest, folder_name)
        version += 1
    return manifest, start
