"""The conformance checker every game passes: ``engine.check_game(game_id)``.

Like Gymnasium's ``check_env``, it exercises a game only through the contract (:mod:`engine.core`),
so a new game gets it for free. It plays seeded random episodes and checks:

* the declaration: id, title, seats, flags, options schema (defaults accepted, each option's
  invalid values refused with an error naming it), keymap, bots, real-time settings;
* determinism: the same seed and actions give the same states;
* JSON: every state survives ``to_json`` → text → ``state_from_json`` unchanged, and is plain JSON;
* actions: every legal action applies without touching the state it was applied to, nonsense and
  out-of-turn actions raise the contract's errors, and nothing applies once the game is over;
* chance: ``outcomes`` sums to 1 and holds what ``apply`` did;
* privacy: no seat's observation (its view as JSON, its text, its symbolic table, its legal actions)
  contains a word another seat keeps secret (``State.secrets``);
* the end: scores for every seat, a winner that is a seat or ``None``, no legal actions left;
* speed: random play reaches a floor of steps per second.

It raises :class:`ConformanceError` listing every problem found, or returns a :class:`Report`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import re
import time
from collections.abc import Iterable, Mapping
from typing import Any

from engine.core import Action, Game, GameError, IllegalActionError, InvalidActionError, Seat, State
from engine.options import Option, OptionError
from engine.registry import declaration

__all__ = ["ConformanceError", "Report", "check_game"]

#: Random play must reach this many steps per second (state copies, legal lists, scoring)...
MIN_STEPS_PER_SECOND = 200.0
#: ... or, for a real-time game, this many times its tick rate (an emulator that draws a frame per step
#: needs only to stay well ahead of the clock a person plays against).
REAL_TIME_MARGIN = 2.0
_NONSENSE = "\u00bfnot an action of any game?"


class ConformanceError(AssertionError):
    """A game broke its contract; the message lists every problem found."""

    def __init__(self, game_id: str, problems: list[str]) -> None:
        self.game_id = game_id
        self.problems = problems
        listed = "\n".join(f"  - {p}" for p in problems)
        super().__init__(
            f"{game_id} does not conform to the game contract ({len(problems)} problem(s)):\n{listed}"
        )


@dataclasses.dataclass(frozen=True, slots=True)
class Report:
    """What a passing check saw."""

    game_id: str
    episodes: int
    states: int
    steps_per_second: float


class _Checker:
    def __init__(self, game_id: str, episodes: int, max_steps: int, seed: int) -> None:
        self.game_id = game_id
        self.episodes = episodes
        self.max_steps = max_steps
        self.seed = seed
        self.problems: list[str] = []
        self._kinds: set[str] = set()
        self.states_seen = 0

    def fail(self, message: str) -> None:
        """Record a problem once per kind (the same fault at other steps or with other values is not
        repeated, so the report stays readable)."""
        kind = re.sub(r"\w*\d+\w*", "#", message)
        if kind not in self._kinds and len(self.problems) < 40:
            self._kinds.add(kind)
            self.problems.append(message)

    # -- declaration and options ----------------------------------------------------------------

    def declaration(self, cls: type[Game]) -> None:
        if cls.id != self.game_id:
            self.fail(f"the class declares id {cls.id!r}, not {self.game_id!r}")
        if not cls.seats:
            self.fail("no seats are declared")
        if cls.tick_s is not None and cls.default_action is None:
            self.fail("a real-time game (tick_s) must declare a default_action")
        for name in cls.bots:
            if name in ("human", "random") or ":" in name:
                self.fail(f"bot name {name!r} clashes with a player spec")
        for option in cls.options_schema:
            self.option(cls, option)

    def option(self, cls: type[Game], option: Option) -> None:
        try:
            cls(**{option.name: option.default})
        except Exception as exc:
            self.fail(f"option {option.name!r}: its default {option.default!r} is refused ({exc})")
        for bad in _invalid_values(option):
            try:
                cls(**{option.name: bad})
            except OptionError as exc:
                if option.name not in str(exc):
                    self.fail(f"option {option.name!r}: the error for {bad!r} does not name the option")
            except Exception as exc:
                self.fail(f"option {option.name!r}: {bad!r} raised {type(exc).__name__}, not OptionError")
            else:
                self.fail(f"option {option.name!r}: the invalid value {bad!r} was accepted")
        try:
            cls(**{"no_such_option": 1})
        except OptionError:
            pass
        except Exception as exc:
            self.fail(f"an unknown option raised {type(exc).__name__}, not OptionError")
        else:
            self.fail("an unknown option was accepted")

    # -- states ---------------------------------------------------------------------------------

    def state(self, game: Game, state: State) -> None:
        self.states_seen += 1
        data = state.to_json()
        try:
            text = json.dumps(data, allow_nan=False, sort_keys=True)
            back = game.state_from_json(json.loads(text))
        except (TypeError, ValueError) as exc:
            self.fail(f"step {state.step}: the state does not survive a JSON round trip ({exc})")
            return
        if back != state:
            self.fail(f"step {state.step}: state_from_json(to_json(s)) differs from s")
        to_act = state.to_act
        if any(not (0 <= s < game.num_seats) for s in to_act):
            self.fail(f"step {state.step}: to_act {to_act} names a seat that does not exist")
        if len(to_act) > 1 and not game.simultaneous:
            self.fail(f"step {state.step}: several seats act at once but the game is not simultaneous")
        scores = state.scores
        if len(scores) != game.num_seats or not all(math.isfinite(float(x)) for x in scores):
            self.fail(f"step {state.step}: scores {scores} are not one finite number per seat")
        for seat in range(game.num_seats):
            if not isinstance(state.text(seat), str):
                self.fail(f"step {state.step}: text({seat}) is not a string")
            legal = state.legal_actions(seat)
            if seat not in to_act and legal:
                self.fail(f"step {state.step}: seat {seat} has legal actions but is not to act")
            if seat in to_act and not legal:
                self.fail(f"step {state.step}: seat {seat} is to act but has no legal action")
            if len(set(legal)) != len(legal):
                self.fail(f"step {state.step}: seat {seat}'s legal actions repeat")
        self.privacy(game, state)

    def privacy(self, game: Game, state: State) -> None:
        secrets = {seat: state.secrets(seat) for seat in range(game.num_seats)}
        if not any(secrets.values()):
            return
        if game.perfect_information:
            self.fail("states keep secrets but the game declares perfect_information")
        for seat in range(game.num_seats):
            seen = _what_a_seat_receives(state, seat)
            for other, words in secrets.items():
                leaked = sorted(w for w in words if other != seat and _has_word(seen, w))
                if leaked:
                    self.fail(
                        f"step {state.step}: seat {seat}'s observation reveals seat {other}'s "
                        f"secret {', '.join(leaked)}"
                    )

    def moves(self, game: Game, state: State, rng: random.Random) -> State:
        """Check the actions of ``state``; return the state after a random legal joint action."""
        before = state.to_json()
        seats = state.to_act
        legal = {s: state.legal_actions(s) for s in seats}
        for seat in seats:
            for action in legal[seat][:12]:  # each legal action applies (a sample on wide games)
                joint = self.joint(game, state, legal, seat, action)
                try:
                    after = state.apply(joint)
                except GameError as exc:
                    self.fail(f"step {state.step}: legal action {action!r} of seat {seat} raised {exc}")
                    continue
                self.outcomes(game, state, joint, after)
        nonsense: Any = {s: _NONSENSE for s in seats} if game.simultaneous else _NONSENSE
        self.expect_error(state, nonsense, "a nonsense action", game)
        waiting = [s for s in range(game.num_seats) if s not in seats]
        if waiting and not game.simultaneous and seats:
            other = state.legal_actions(seats[0])
            # An action only legal for the seat to move must not be accepted from a seat that waits.
            joint_wrong = {waiting[0]: other[0]} if other else None
            if joint_wrong is not None:
                self.expect_error(state, joint_wrong, f"seat {waiting[0]} acting out of turn", game)
        if state.to_json() != before:
            self.fail(f"step {state.step}: applying actions changed the state they were applied to")
        return game.play_random(state, rng)

    @staticmethod
    def joint(
        game: Game, state: State, legal: Mapping[Seat, list[Action]], seat: Seat, action: Action
    ) -> Any:
        if not game.simultaneous:
            return action
        return {s: (action if s == seat else legal[s][0]) for s in state.to_act}

    def expect_error(self, state: State, action: Any, what: str, game: Game) -> None:
        try:
            state.apply(action)
        except (IllegalActionError, InvalidActionError):
            return
        except Exception as exc:
            self.fail(
                f"step {state.step}: {what} raised {type(exc).__name__}, not IllegalActionError "
                "or InvalidActionError"
            )
            return
        self.fail(f"step {state.step}: {what} was accepted")

    def outcomes(self, game: Game, state: State, joint: Any, after: State) -> None:
        if not game.chance:
            return
        try:
            results = state.outcomes(joint)
        except Exception as exc:
            self.fail(f"step {state.step}: outcomes() raised {type(exc).__name__}: {exc}")
            return
        total = sum(p for p, _ in results)
        if not math.isclose(total, 1.0, abs_tol=1e-6) or any(p < 0 for p, _ in results):
            self.fail(f"step {state.step}: outcome probabilities sum to {total:g}, not 1")
        if all(s != after for _, s in results):
            self.fail(f"step {state.step}: apply() gave a state that outcomes() does not list")

    def end(self, game: Game, state: State) -> None:
        if state.legal_actions():
            self.fail("the game is over but legal actions remain")
        winner = state.winner
        if winner is not None and not (isinstance(winner, int) and 0 <= winner < game.num_seats):
            self.fail(f"the winner {winner!r} is not a seat")
        self.expect_error(state, _NONSENSE, "an action after the end", game)

    # -- the run ---------------------------------------------------------------------------------

    def run(self) -> Report:
        try:
            cls = declaration(self.game_id)
        except GameError as exc:
            raise ConformanceError(self.game_id, [str(exc)]) from None
        self.declaration(cls)
        game = cls()
        trajectories = []
        for episode in range(self.episodes):
            trajectories.append(self.episode(game, self.seed + episode))
        again = self.episode(game, self.seed, record_only=True)
        if again != trajectories[0]:
            self.fail("the same seed and actions gave different states (not deterministic)")
        speed = self.speed(game)
        floor = MIN_STEPS_PER_SECOND
        if game.tick_s:
            floor = min(floor, REAL_TIME_MARGIN / game.tick_s)
        if speed < floor:
            self.fail(f"random play runs at {speed:.0f} steps/s, under the floor of {floor:.0f}")
        if self.problems:
            raise ConformanceError(self.game_id, self.problems)
        return Report(self.game_id, self.episodes, self.states_seen, speed)

    def episode(self, game: Game, seed: int, *, record_only: bool = False) -> list[str]:
        rng = random.Random(seed)
        state = game.initial_state(seed=seed)
        if game.initial_state(seed=seed) != state:
            self.fail("initial_state(seed) is not the same twice")
        seen = [json.dumps(state.to_json(), sort_keys=True)]
        for _ in range(self.max_steps):
            if state.is_over:
                break
            if record_only:
                state = game.play_random(state, rng)
            else:
                self.state(game, state)
                state = self.moves(game, state, rng)
            seen.append(json.dumps(state.to_json(), sort_keys=True))
        if not record_only:
            self.state(game, state)
            if state.is_over:
                self.end(game, state)
        return seen

    def speed(self, game: Game) -> float:
        """Steps per second of this process's CPU time (other work on the machine does not count)."""
        rng = random.Random(self.seed)
        steps = 0
        started = time.process_time()
        state = game.initial_state(seed=self.seed)
        while time.process_time() - started < 0.2:
            if state.is_over:
                state = game.initial_state(seed=rng.randrange(2**31))
            state = game.play_random(state, rng)
            steps += 1
        return steps / max(time.process_time() - started, 1e-9)


def _invalid_values(option: Option) -> Iterable[Any]:
    """Values the option must refuse."""
    yield [] if option.type is not str else 12345  # the wrong type altogether
    if option.minimum is not None:
        yield option.type(option.minimum) - 1 if option.type is int else option.minimum - 0.5
    if option.maximum is not None:
        yield option.type(option.maximum) + 1 if option.type is int else option.maximum + 0.5
    if option.choices and option.type is str:
        yield "\u00bfnone of these?"


def _what_a_seat_receives(state: State, seat: Seat) -> str:
    """Everything a player in ``seat`` is handed about ``state``, as one text."""
    view = state.observe(seat)
    parts = [json.dumps(view.to_json(), sort_keys=True), view.text(seat), view.text_table(seat)]
    parts += state.legal_actions(seat)
    return "\n".join(parts)


def _has_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", text) is not None


def check_game(game_id: str, *, episodes: int = 3, max_steps: int = 200, seed: int = 0) -> Report:
    """Check that ``game_id`` keeps the game contract (see the module docstring).

    Raises:
        ConformanceError: the game breaks the contract; the message lists every problem.
    """
    return _Checker(game_id, episodes, max_steps, seed).run()
