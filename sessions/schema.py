"""The on-disk session format, version 1.

A session is one folder::

    <YYYYmmdd-HHMMSS>_<game>_<4hex>/
      manifest.json        # written atomically (temp file + os.replace); see MANIFEST_FIELDS
      events.jsonl         # one event per line, appended, flushed per event, fsynced per step
      attachments/         # content-addressed blobs: sha256-<hex><ext>

Every line of ``events.jsonl`` is a JSON object with exactly the keys of :data:`LINE_KEYS`::

    {"v": 1, "seq": 17, "ts": "2026-11-22T10:41:07.123Z", "type": "action_applied",
     "step": 4, "seat": null, "call": null, "data": {...}}

``seq`` counts written lines from 0; ``step``, ``seat`` and ``call`` are those of the
:class:`engine.events.Event`; ``data`` holds the event's data with blobs replaced by
``attachment://sha256-<hex><ext>`` references. Known types are :data:`engine.events.EVENT_TYPES`;
readers keep unknown types (with a warning) so that newer writers do not lose information.

Older layouts are upgraded by :mod:`sessions.migrations`.
"""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import re
from typing import Any, Final

from engine.events import EVENT_TYPES

#: Version of the line and manifest layout written by this PlayTrace.
SCHEMA_VERSION: Final = 1
#: Value of the manifest's ``format`` field; anything else is not a PlayTrace session.
FORMAT: Final = "playtrace-session"

MANIFEST_FILE: Final = "manifest.json"
EVENTS_FILE: Final = "events.jsonl"
ATTACHMENTS_DIR: Final = "attachments"
#: Annotations (labels, disputed verdicts, notes), one append-only file per annotator; never events.
ANNOTATIONS_DIR: Final = "annotations"
#: File name of one annotator's annotations: ``<annotator>.jsonl``.
ANNOTATION_NAME_RE: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\.jsonl$")
ATTACHMENT_SCHEME: Final = "attachment://"
#: File name of an attachment: ``sha256-<64 hex>`` plus an optional short extension.
ATTACHMENT_NAME_RE: Final = re.compile(r"^sha256-[0-9a-f]{64}(\.[A-Za-z0-9]{1,10})?$")

#: Keys of every event line, in the order they are written.
LINE_KEYS: Final = ("v", "seq", "ts", "type", "step", "seat", "call", "data")
KNOWN_EVENT_TYPES: Final[frozenset[str]] = EVENT_TYPES

# Session statuses. "running" is written while the session is being recorded; "interrupted" is never
# written: readers report it for a "running" session that has no session_finished event.
RUNNING: Final = "running"
COMPLETED: Final = "completed"
ABORTED: Final = "aborted"
MAX_STEPS: Final = "max_steps"
FORFEIT: Final = "forfeit"
ERROR: Final = "error"
INTERRUPTED: Final = "interrupted"
FINAL_STATUSES: Final = frozenset({COMPLETED, ABORTED, MAX_STEPS, FORFEIT, ERROR})

#: Manifest fields. The summary fields (steps .. result) are filled in when the session closes;
#: ``harness`` (model-player configuration) and ``extra`` are free-form dicts.
MANIFEST_FIELDS: Final = (
    "format",
    "schema_version",
    "app_version",
    "id",
    "created_at",
    "game",
    "options",
    "seed",
    "players",
    "title",
    "status",
    "steps",
    "scores",
    "winner",
    "result",
    "finished_at",
    "harness",
    "extra",
)
#: Optional manifest fields: ``demo`` (true for a demo session, absent otherwise) and
#: ``events_bytes`` (the size of ``events.jsonl`` when the summary was written; a listing compares
#: it with the file to notice a cut or altered log without reading it).
OPTIONAL_MANIFEST_FIELDS: Final = ("demo", "events_bytes")


def utc_now_iso() -> str:
    """The current UTC time as ISO 8601 with milliseconds and a ``Z`` suffix."""
    now = _dt.datetime.now(_dt.UTC)
    return now.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def app_version() -> str:
    """The installed PlayTrace version (``"0+unknown"`` when running from an uninstalled tree)."""
    try:
        return importlib.metadata.version("playtrace")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


def new_manifest(
    *,
    session_id: str,
    game: str,
    players: list[dict[str, Any]],
    seed: Any,
    options: dict[str, Any],
    title: str | None = None,
    harness: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    created_at: str | None = None,
    demo: bool = False,
) -> dict[str, Any]:
    """A fresh manifest with status ``running`` and empty summary fields (``demo: true`` if asked)."""
    manifest = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "app_version": app_version(),
        "id": session_id,
        "created_at": created_at or utc_now_iso(),
        "game": game,
        "options": dict(options),
        "seed": seed,
        "players": [dict(p) for p in players],
        "title": title,
        "status": RUNNING,
        "steps": 0,
        "scores": None,
        "winner": None,
        "result": None,
        "finished_at": None,
        "harness": dict(harness or {}),
        "extra": dict(extra or {}),
    }
    if demo:
        manifest["demo"] = True
    return manifest


def attachment_ref(name: str) -> str:
    """The reference string stored in event data for the attachment file ``name``."""
    return ATTACHMENT_SCHEME + name


def seat_names(game_id: str) -> tuple[str, ...]:
    """The game's seat names (``("X", "O")``), or ``()`` when the game is not known here."""
    if not game_id:
        return ()
    return _seat_names_cache(game_id)


_SEAT_NAMES: dict[str, tuple[str, ...]] = {}


def _seat_names_cache(game_id: str) -> tuple[str, ...]:
    _cache = _SEAT_NAMES
    if game_id not in _cache:
        try:
            from engine.registry import spec

            _cache[game_id] = tuple(s.name for s in spec(game_id).seats)
        except Exception:  # an unknown or broken game must not stop a summary
            _cache[game_id] = ()
    return _cache[game_id]


def _fmt_number(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    if isinstance(x, float):
        return f"{x:g}"
    return str(x)


def result_text(
    *,
    players: list[dict[str, Any]] | list[str],
    status: str,
    scores: list[Any] | tuple[Any, ...] | None,
    winner: int | None,
    steps: int | None = None,
    seat_names: tuple[str, ...] = (),
) -> str:
    """A short human result: ``"Random (O) won"``, ``"draw"``, ``"score 1234"``, ``"interrupted"``.

    Args:
        players: The manifest's player dicts (or plain labels), in seat order.
        status: The session status (``completed``, ``forfeit``, ``interrupted``...).
        scores: Final scores per seat, if known.
        winner: The winning seat, if any.
        steps: Number of applied steps, mentioned for sessions that did not finish.
        seat_names: The game's seat names (``"X"``, ``"O"``), used to tell identical labels apart.
    """
    labels = [p if isinstance(p, str) else str(p.get("label") or p.get("spec") or "?") for p in players]
    if status == RUNNING:
        return "in progress" if steps is None else f"in progress ({steps} steps)"
    if winner is not None and 0 <= winner < max(len(labels), 1):
        who = labels[winner] if winner < len(labels) else f"seat {winner}"
        # Two "Random" players: say which one won by its seat name.
        if labels.count(who) > 1:
            name = seat_names[winner] if winner < len(seat_names) else f"seat {winner}"
            who = f"{who} ({name})"
        return f"{who} won" + (" (forfeit)" if status == FORFEIT else "")
    tail = {
        ABORTED: "aborted",
        ERROR: "error",
        MAX_STEPS: "step limit reached",
        INTERRUPTED: "interrupted",
        FORFEIT: "forfeit",
    }.get(status, "" if status == COMPLETED else status)
    if steps is not None and status in (ABORTED, ERROR, INTERRUPTED):
        tail = f"{tail} after {steps} steps"
    if scores and len(scores) == 1:
        text = f"score {_fmt_number(scores[0])}"
        return f"{text} ({tail})" if tail else text
    if status == COMPLETED and scores:
        if len(set(scores)) == 1:
            return "draw"
        return "scores " + " : ".join(_fmt_number(s) for s in scores)
    return tail or "no result"
