"""What the window shows of one session, live or replayed, and the set-up a game is started from.

:class:`SessionModel` keeps the states by step (decoded lazily from the session's JSON), the records
each step's panel shows, the score series, the attachments of a live session, and the spend meter.
The controller fills it from the live match's events or from a saved session. Qt-free; steering
rules live in :mod:`engine.steering`.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine import events as ev
from engine.core import Game, State
from engine.events import Event
from engine.players import HUMAN, MODEL, StepRecord
from engine.steering import SpendMeter

#: Harness options a model player accepts (a fork or a re-opened session reuses them).
MODEL_OPTION_KEYS = (
    "perception",
    "perception_model",
    "action_format",
    "logprobs",
    "image_labels",
    "memory",
    "reflection",
    "thinking",
    "thinking_budget",
    "effort",
    "temperature",
    "max_tokens",
    "prompt_variant",
    "invalid_policy",
    "budget_soft_usd",
    "budget_hard_usd",
    "timeout_s",
    "latency",
    "format_error_rate",
    "illegal_rate",
    "wrong_ir_rate",
    "api_error_rate",
)

_ATTACHMENT_NAME = re.compile(r"sha256-[0-9a-f]{16,128}(\.[A-Za-z0-9]{1,10})?")

#: How many recent attachments a live session keeps in memory (older ones are read from disk).
BLOB_CACHE = 16

#: Event types that do not start a new step in the model panel while following a live game.
PASSIVE_TYPES = frozenset(
    {ev.TURN_STARTED, ev.SESSION_FINISHED, ev.ACTION_APPLIED, ev.PLAYER_CHANGED, ev.UNDO}
)


@dataclasses.dataclass
class SeatSetup:
    """Who sits in one seat: a player spec and, for model players, the harness options."""

    spec: str
    options: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class GameSetup:
    """Everything needed to start a live game (what the New game dialog produces)."""

    game_id: str
    seats: list[SeatSetup]
    seed: int | None = None
    max_steps: int | None = None
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    title: str | None = None
    #: Start paused (step by hand) instead of playing automatically.
    paused: bool = False
    #: A person playing a single-player game may take back moves (recorded as undo events); study
    #: sessions turn it off so baselines stay comparable.
    undo: bool = True
    #: The session is the demo's (hidden from the session list unless asked for).
    demo: bool = False
    #: Seconds between automatic steps.
    delay: float = 0.5
    #: Free-form facts for the session's manifest (``extra``): a study's tags, for instance.
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    @staticmethod
    def random_seed() -> int:
        return random.randrange(1, 1_000_000)


def setup_from_manifest(manifest: Mapping[str, Any]) -> GameSetup:
    """The set-up a saved session was played with (a fork of a replay starts from it)."""
    harness = manifest.get("harness") or {}
    seats: list[SeatSetup] = []
    for p in manifest.get("players") or []:
        seat = str(p.get("seat", len(seats)))
        config = harness.get(seat) or {}
        options = {k: v for k, v in config.items() if k in MODEL_OPTION_KEYS}
        seats.append(SeatSetup(str(p.get("spec", "random")), options))
    seed = manifest.get("seed")
    return GameSetup(
        game_id=str(manifest["game"]),
        seats=seats,
        seed=seed if isinstance(seed, int) else None,
        options=dict(manifest.get("options") or {}),
    )


def record_of(event: Event, data: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An event as a record for the panels: ``{"type", "step", "seat", "call", "data"}``."""
    return {
        "type": event.type,
        "step": event.step,
        "seat": event.seat,
        "call": event.call,
        "data": dict(event.data if data is None else data),
    }


def retry_text(data: Mapping[str, Any]) -> str:
    """The status-bar line for a transport retry: "Rate limited — retrying in 2 s…"."""
    reason = str(data.get("reason") or "connection problem").strip()
    # "rate limited (429)" -> "Rate limited": the status code helps in the session, not in the bar.
    reason = re.sub(r"\s*\(\d{3}\)$", "", reason) or "Connection problem"
    reason = reason[:1].upper() + reason[1:]
    wait = data.get("wait_s")
    if isinstance(wait, (int, float)) and not isinstance(wait, bool) and wait > 0:
        seconds = f"{wait:.0f}" if wait >= 1 else f"{wait:.1f}"
        return f"{reason} — retrying in {seconds} s…"
    return f"{reason} — retrying…"


def is_simulated(player: Any) -> bool:
    """Whether a player is the offline simulated model."""
    client = getattr(player, "client", None)
    if client is not None and getattr(client, "simulated", False):
        return True
    return str(getattr(player, "spec", "")).split(":", 1)[0] == "sim"


def kind_key(kind: str, spec: str) -> str:
    """The badge key of a player: ``human``, ``bot``, ``model`` or ``sim``."""
    if kind == MODEL and spec.split(":", 1)[0] == "sim":
        return "sim"
    return kind if kind in (HUMAN, MODEL) else "bot"


def player_row(game: Game, seat: int, spec: str, label: str, kind: str, *, simulated: bool) -> dict[str, Any]:
    """One player as the session header and the model panel list them."""
    return {
        "seat": seat,
        "seat_name": game.seats[seat].name if seat < len(game.seats) else str(seat),
        "spec": spec,
        "label": label,
        "kind": kind,
        "badge": kind_key(kind, spec),
        "simulated": simulated and kind == MODEL,
    }


class SessionModel:
    """The states, records, scores and attachments of the open session.

    Steps run from :attr:`base` (0, or the step a fork started from) to :attr:`head`.
    """

    def __init__(self, game: Game | None = None, *, base: int = 0, folder: Path | None = None) -> None:
        self.game = game
        self.base = base
        self.folder = folder
        #: The saved session (replay), or ``None`` for a live one.
        self.session: Any = None
        self.states: list[State | None] = []
        self.state_json: list[dict[str, Any] | None] = []
        self.records: dict[int, list[dict[str, Any]]] = {}
        self.scores: list[tuple[int, list[float]]] = []
        #: The latest attachments of a live session, by ``attachment://`` reference.
        self.blobs: dict[str, bytes] = {}
        self.spend = SpendMeter()

    @classmethod
    def live(cls, game: Game, start: State, folder: Path, spend: SpendMeter) -> SessionModel:
        """A session being recorded from ``start``; ``spend`` is the live match's meter."""
        model = cls(game, base=start.step, folder=folder)
        model.states = [start]
        model.state_json = [None]
        model.scores = [(start.step, [float(s) for s in start.scores])]
        model.spend = spend
        return model

    @classmethod
    def replay(cls, game: Game, loaded: Any) -> SessionModel:
        """A saved session (a :class:`sessions.Session`) for replay; states are decoded when shown."""
        events = list(loaded.events)
        started = next((e for e in events if e.get("type") == ev.SESSION_STARTED), None)
        model = cls(game, base=int(started.get("step") or 0) if started else 0, folder=Path(loaded.path))
        model.session = loaded
        steps = list(loaded.steps)  # the line of play that stands (steps taken back are left out)
        model.states = [None] * (len(steps) + 1)
        model.state_json = [None] * (len(steps) + 1)
        if started is not None and isinstance(started.get("data", {}).get("state"), dict):
            model.state_json[0] = started["data"]["state"]
        for i, e in enumerate(steps):
            data = e.get("data") or {}
            if isinstance(data.get("state"), dict):
                model.state_json[i + 1] = data["state"]
        for e in events:
            step = e.get("step")
            key = int(step) if isinstance(step, int) else model.base
            record = {k: e.get(k) for k in ("type", "step", "seat", "call", "data")}
            model.records.setdefault(key, []).append(record)
            if e.get("type") == ev.MODEL_CALL_FINISHED:
                model.spend.add(e.get("data") or {})
        first = model.state_at(model.base)
        if first is not None:
            model.scores.append((model.base, [float(s) for s in first.scores]))
        for i, e in enumerate(steps):
            scores = (e.get("data") or {}).get("scores")
            if isinstance(scores, list):
                model.scores.append((model.base + i + 1, [float(s) for s in scores]))
        return model

    # -- steps ----------------------------------------------------------------------------------

    @property
    def count(self) -> int:
        """How many steps have been applied."""
        return max(0, len(self.states) - 1)

    @property
    def head(self) -> int:
        return self.base + self.count

    def state_at(self, step: int) -> State | None:
        """The state at ``step`` (after ``step - base`` applied actions), or ``None``."""
        i = step - self.base
        if self.game is None or not 0 <= i < len(self.states):
            return None
        state = self.states[i]
        if state is None:
            data = self.state_json[i]
            if data is None and self.session is not None:
                try:
                    data = self.session.state_json_at(i)
                except IndexError:  # a torn session may not have recorded it: nothing to show
                    return None
                self.state_json[i] = data
            if data is None:
                return None
            state = self.game.state_from_json(data)
            self.states[i] = state
        return state

    def add_state(self, state: State, scores: list[float]) -> None:
        """A live step was applied: ``state`` is the new head."""
        self.states.append(state)
        self.state_json.append(None)
        self.scores.append((state.step, scores))

    def undo_state(self) -> None:
        """A live step was taken back: the head goes back one state. The session file keeps the
        undone decision; the view drops it (only the undo itself stays), so the model panel never shows
        a move that is no longer on the board, and the step decided again starts clean."""
        if len(self.states) > 1:
            self.states.pop()
            self.state_json.pop()
            if len(self.scores) > 1:
                self.scores.pop()
            head = len(self.states) - 1
            for k in [k for k in self.records if k >= head]:
                kept = [r for r in self.records[k] if r.get("type") == ev.UNDO]
                if kept:
                    self.records[k] = kept
                else:
                    del self.records[k]

    # -- records --------------------------------------------------------------------------------

    def records_for(self, step: int) -> list[dict[str, Any]]:
        return list(self.records.get(step, ()))

    def all_records(self) -> list[dict[str, Any]]:
        return [r for k in sorted(self.records) for r in self.records[k]]

    def add_record(self, step: int, record: dict[str, Any]) -> None:
        self.records.setdefault(step, []).append(record)

    def has_activity(self, step: int) -> bool:
        """Whether ``step`` has records the model panel shows (more than turn bookkeeping)."""
        return any(r["type"] not in PASSIVE_TYPES for r in self.records.get(step, ()))

    def cut_off(self) -> bool:
        """Whether the session ended while a model call was in flight (a call started, never answered)."""
        open_calls = 0
        for step in sorted(self.records):
            for record in self.records[step]:
                kind = record.get("type")
                if kind == "model_call_started":
                    open_calls += 1
                elif kind in ("model_call_finished", "model_call_failed") and open_calls:
                    open_calls -= 1
        return open_calls > 0

    def latest_active_step(self) -> int:
        """The last step up to the head with something to show (the head if none)."""
        return max([k for k in self.records if k <= self.head and self.has_activity(k)] or [self.head])

    # -- attachments ----------------------------------------------------------------------------

    def store_blobs(self, event: Event, writer: Any) -> dict[str, Any]:
        """``event``'s data with each binary payload written to the session and replaced by its
        ``attachment://`` reference; the latest few stay in memory for the panel."""
        data = dict(event.data)
        for key, blob in event.blobs.items():
            try:
                ref = writer.add_attachment(blob.data, blob.extension)
            except Exception:  # the writer reports its own failures; the panel can live without
                continue
            self.blobs[ref] = blob.data
            # A long game must not keep every board image it ever sent: the rest are on disk already.
            while len(self.blobs) > BLOB_CACHE:
                del self.blobs[next(iter(self.blobs))]
            data[key] = ref
        return data

    def resolve(self, ref: str) -> bytes | None:
        """The bytes behind an ``attachment://`` reference of this session, or ``None``."""
        if ref in self.blobs:
            return self.blobs[ref]
        name = ref.removeprefix("attachment://")
        if self.folder is None or not _ATTACHMENT_NAME.fullmatch(name):
            return None
        try:
            return (self.folder / "attachments" / name).read_bytes()
        except OSError:
            return None

    # -- a saved session ------------------------------------------------------------------------

    def history_until(self, step: int) -> list[StepRecord]:
        """The applied steps of the saved session before ``step`` (the history a fork starts with)."""
        out: list[StepRecord] = []
        if self.session is None:
            return out
        applied = list(self.session.steps)
        for i, e in enumerate(applied):
            k = self.base + i
            if k >= step:
                break
            before, after = self.state_at(k), self.state_at(k + 1)
            if before is None or after is None:
                break
            data = e.get("data") or {}
            actions = {int(s): a for s, a in (data.get("actions") or {}).items()}
            out.append(StepRecord(k, before, actions, tuple(data.get("rewards") or ()), after))
        return out

    def saved_state(self, step: int) -> State | None:
        """The state at ``step`` rebuilt through the game's own JSON reader, as the session saved it."""
        if self.game is None or self.session is None:
            return self.state_at(step)
        try:
            return self.game.state_from_json(self.session.state_json_at(step - self.base))
        except IndexError:
            return None

    def manifest_players(self) -> list[dict[str, Any]]:
        """The players of the saved session, as :func:`player_row` lists them."""
        rows: list[dict[str, Any]] = []
        if self.game is None or self.session is None:
            return rows
        for p in self.session.manifest.get("players") or []:
            seat = int(p.get("seat", len(rows)))
            kind = str(p.get("kind", "bot"))
            spec = str(p.get("spec", ""))
            rows.append(
                player_row(
                    self.game, seat, spec, str(p.get("label", spec)), kind,
                    simulated=spec.split(":", 1)[0] == "sim",
                )
            )
        return rows
