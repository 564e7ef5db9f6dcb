"""What the people at the screen may see of a game: the hidden-information rule, Qt-free.

In a live game of hidden information (:attr:`engine.core.Game.perfect_information` is ``False``) with
a person seated, the board shows that person's view (:meth:`engine.core.State.observe`) and the model
panel leaves out what another seat privately saw; a replay of a finished session shows everything.
The board, the model panel, presenter mode and the study flow all ask here, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from engine.core import Game, Seat, State

__all__ = ["hides_other_seats", "shown_records", "shown_state"]


def _filters(game: Game | type[Game] | None, human_seats: Collection[Seat], live: bool) -> bool:
    return game is not None and live and not game.perfect_information and bool(human_seats)


def shown_state(
    game: Game | type[Game] | None, state: State | None, human_seats: Collection[Seat], live: bool
) -> State | None:
    """The state the board may draw: what the people at the screen are allowed to see.

    In a live game without perfect information (:attr:`Game.perfect_information` is ``False``) where
    at least one seat is a person, the board shows :meth:`State.observe` of a human seat: the first
    human seat to act now, else the first human seat. Everything else (games of perfect information,
    games watched with no person seated, replays of finished sessions) shows the full state.
    """
    if state is None or game is None or not live or game.perfect_information or not human_seats:
        return state
    seats = sorted(human_seats)
    acting = [s for s in seats if s in state.to_act]
    return state.observe(acting[0] if acting else seats[0])


def shown_records(
    game: Game | type[Game] | None,
    records: Sequence[Mapping[str, Any]],
    human_seats: Collection[Seat],
    live: bool,
) -> list[Mapping[str, Any]]:
    """The session records the model panel may show: what the people at the screen are allowed to see.

    The same rule as :func:`shown_state`. In a live game of hidden information with a person seated,
    another seat's prompt, reasoning, memory and verified answers hold that seat's private view, so
    they are left out; its decisions keep only the action played, and applied steps lose the full
    state. Everything is shown again once the game is over (a replay).
    """
    if not _filters(game, human_seats, live):
        return list(records)
    shown: list[Mapping[str, Any]] = []
    for record in records:
        seat = record.get("seat")
        data = record.get("data") or {}
        if seat is not None and seat not in human_seats:
            if record.get("type") != "decision":
                continue
            data = {k: data[k] for k in ("action", "source") if k in data}
        elif record.get("type") in ("action_applied", "session_started"):
            data = {k: v for k, v in data.items() if k != "state"}
        shown.append({**record, "data": data})
    return shown


def hides_other_seats(
    game: Game | type[Game] | None,
    records: Sequence[Mapping[str, Any]],
    human_seats: Collection[Seat],
    live: bool,
) -> bool:
    """Whether :func:`shown_records` leaves out (or cuts) a record of a seat no person at the screen
    holds: only then does the panel say that something is hidden (a person alone at a game of hidden
    information hides nothing from themselves)."""
    if not _filters(game, human_seats, live):
        return False
    return any(r.get("seat") is not None and r.get("seat") not in human_seats for r in records)
