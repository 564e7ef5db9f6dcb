"""Helpers the built-in games share (private to :mod:`engine.games`)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path

from engine.core import Action, IllegalActionError, InvalidActionError, Seat, State, StateFormatError

__all__ = [
    "ARROW_KEYS", "ONE_PLAYER", "direction_in", "one_action", "reading_state", "task_prompts",
    "two_player_scores",
]

#: Arrow keys and W A S D, for games whose actions are the four directions.
ARROW_KEYS: Mapping[str, Action] = {
    "up": "up",
    "down": "down",
    "left": "left",
    "right": "right",
    "w": "up",
    "s": "down",
    "a": "left",
    "d": "right",
}


def two_player_scores(winner: Seat | None, drawn: bool) -> tuple[float, float]:
    """The scores of a two-seat game: 1 to the ``winner``, a half each when ``drawn``, else none yet."""
    if winner is not None:
        return (1.0, 0.0) if winner == 0 else (0.0, 1.0)
    return (0.5, 0.5) if drawn else (0.0, 0.0)


@contextlib.contextmanager
def reading_state(data: object, game_id: str, name: str) -> Iterator[None]:
    """Check a saved state's envelope and report every format problem inside as one error.

    Inside the block, a missing key (``KeyError``) or a ``TypeError``/``ValueError`` raised while
    reading the fields becomes :class:`~engine.core.StateFormatError` ("not a <name> state: ..."), so
    ``Game.state_from_json`` only has to say what is wrong with a field.

    Args:
        data: What ``state_from_json`` was given.
        game_id: The game id a saved state may carry under ``"game"`` (states without one are accepted).
        name: The game's name in messages (``"2048"``, ``"tic-tac-toe"``).

    Raises:
        StateFormatError: ``data`` is not a JSON object of this game, or the block found it malformed.
    """
    try:
        if not isinstance(data, Mapping):
            raise TypeError(f"a {name} state is a JSON object")
        if data.get("game", game_id) != game_id:
            raise ValueError(f"this is a {data.get('game')!r} state, not {name}")
        yield None
    except (KeyError, TypeError, ValueError) as exc:
        detail = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise StateFormatError(f"not a {name} state: {detail}") from None


def task_prompts(module_file: str) -> dict[str, str]:
    """The LVLM-Playground task prompts of the game package holding ``module_file`` (its
    ``tasks/perceive.md``, ``qa.md`` with a ``{question}`` placeholder, and ``rules.md``), by task."""
    folder = Path(module_file).resolve().parent / "tasks"
    tasks = ("perceive", "qa", "rules")
    return {task: (folder / f"{task}.md").read_text(encoding="utf-8").strip() for task in tasks}


def one_action(
    action: Mapping[Seat, Action],
    name: str,
    acting: Collection[Seat],
    refused: str | Callable[[Seat], str] = "seat {seat} is not to move",
) -> Action:
    """The one action in a ``{seat: action}`` given to a turn-based game's ``State.apply``.

    Raises:
        IllegalActionError: actions of several seats ("<name> takes one action at a time"), or of a seat
            not in ``acting`` (``refused``: a message with ``{seat}`` and ``{name}``, or a function of
            the seat).
    """
    if len(action) != 1:
        raise IllegalActionError(f"{name} takes one action at a time")
    ((seat, single),) = action.items()
    if seat not in acting:
        why = refused(seat) if callable(refused) else refused.format(seat=seat, name=name)
        raise IllegalActionError(why)
    return single


#: :func:`one_action`'s refusal for a one-player game.
ONE_PLAYER = "seat {seat} does not play {name} (one player, seat 0)"


_DIRECTION_WORDS = re.compile(r"\b(up|down|left|right)\b")


def direction_in(text: str, state: State) -> Action:
    """The one direction (``up``, ``down``, ``left``, ``right``) named in free text (``"move: UP."``,
    ``"push down"``), for games whose actions are the four directions.

    Raises:
        InvalidActionError: no direction, or several different directions, are named.
        IllegalActionError: the game is over.
    """
    words = set(_DIRECTION_WORDS.findall(text.lower()))
    if len(words) != 1:
        what = "no move" if not words else f"several moves ({', '.join(sorted(words))})"
        raise InvalidActionError(f"{text!r} names {what}; answer with one of up, down, left, right")
    action: Action = words.pop()
    if state.is_over:
        raise IllegalActionError(f"the game is over; {action!r} cannot be played")
    return action
