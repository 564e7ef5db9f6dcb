"""Transient memory: the last N steps as (state, action, reward), as the harness papers define it.

The window is computed from the match's history each turn rather than kept inside the player, so a
forked or resumed session gives the model exactly the memory the original run would have had.
Entries use the acting seat's point of view (its text view and its reward); in two-player games the
opponent's moves are in the window too, marked with who played them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from engine.core import Game, Seat
from engine.players import StepRecord

DEFAULT_WINDOW = 10


@dataclasses.dataclass(frozen=True, slots=True)
class MemoryEntry:
    """One remembered step: the state before it (as text), who played what, and the reward."""

    step: int
    state: str
    action: str
    reward: float
    by: str = ""

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "step": self.step,
            "state": self.state,
            "action": self.action,
            "reward": self.reward,
        }
        if self.by:
            data["by"] = self.by
        return data


class Memory:
    """A window over the last ``size`` steps (``size == 0`` switches memory off)."""

    def __init__(self, size: int = DEFAULT_WINDOW) -> None:
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ValueError(f"memory must be a whole number of steps (0 = off), not {size!r}")
        self.size = size

    @property
    def enabled(self) -> bool:
        return self.size > 0

    def window(self, game: Game, history: Sequence[StepRecord], seat: Seat) -> list[MemoryEntry]:
        """The last ``size`` steps of ``history`` seen from ``seat``."""
        if not self.enabled:
            return []
        entries = []
        # Only the tail is read: copying the whole history every turn is quadratic over an episode.
        for record in (history[i] for i in range(max(0, len(history) - self.size), len(history))):
            acted = sorted(record.actions)
            if game.num_seats > 1 and not game.simultaneous:
                by = ", ".join(_seat_name(game, s) for s in acted)
                action = ", ".join(record.actions[s] for s in acted)
            elif game.simultaneous:
                by = ""
                action = ", ".join(f"{_seat_name(game, s)}: {record.actions[s]}" for s in acted)
            else:
                by = ""
                action = ", ".join(record.actions[s] for s in acted)
            reward = record.rewards[seat] if seat < len(record.rewards) else 0.0
            entries.append(MemoryEntry(record.step, record.state.text(seat), action, float(reward), by))
        return entries


def _seat_name(game: Game, seat: Seat) -> str:
    return game.seats[seat].name if seat < len(game.seats) else f"seat {seat}"


def format_history(entries: Sequence[MemoryEntry]) -> str:
    """The window as prompt text (empty when there is nothing to remember)."""
    blocks = []
    for e in entries:
        who = f" by {e.by}" if e.by else ""
        blocks.append(f"Step {e.step}:\nState:\n{e.state}\nAction{who}: {e.action}\nReward: {_num(e.reward)}")
    return "\n\n".join(blocks)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"
