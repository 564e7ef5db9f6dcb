"""Pong, as GameBot plays it: two paddles, one ball, simultaneous moves, our own simulator (no ROM).

The court uses GameBot's coordinates (taken from the Atari RAM annotations the paper used): x runs
from 0 (left edge) to 160 (right edge), y from the lower wall at 16 to the upper wall at 176, and a
larger y is *higher* on screen. Seat 0 is the right paddle, whose face is at x = 140 (the model's
paddle in the paper); seat 1 is the left paddle, face at x = 20. Paddles are 16 units long and move
2 units per frame; ``player_y`` ``[low, high]`` is the span a paddle covers.

The ball is a point moving in straight lines, a whole number of units per frame, so every position
the text view shows is an integer. It rebounds off the walls and off a paddle whose span (plus one
unit, the ball's size) it crosses; the rebound's steepness depends on where it meets the paddle (a hit
near the edge sends it away at the steepest angle, the centre almost flat), and the ball speeds up
every two paddle hits of a rally. A ball that reaches the far edge scores for the other side; the
next ball waits at the centre for a moment and is served in a direction drawn from the seed.

One step of the game is one decision of both seats: ``frame_skip`` frames during which each paddle
repeats its action (``"stay"``, ``"up"`` or ``"down"``), as GameBot queried its models every few
frames and repeated the last action in between. The state keeps the last three decision frames,
which is what the text view shows ("Frame t-2 / t-1 / t"). The second seat sees a mirrored court
(``ball_x' = 160 - ball_x``, paddles swapped), so both seats believe they are the right paddle.

A match is first to ``points`` (GameBot: first point wins); after ``max_frames`` frames without a
winner it is a draw.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.core import (
    Action,
    Game,
    IllegalActionError,
    InvalidActionError,
    JsonDict,
    Seat,
    SeatInfo,
    State,
)
from engine.games._common import reading_state
from engine.options import Option

__all__ = [
    "ACTIONS",
    "CENTRE_Y",
    "COURT_WIDTH",
    "LEFT_X",
    "LOWER_WALL",
    "PADDLE_LENGTH",
    "PADDLE_SPEED",
    "RIGHT_X",
    "UPPER_WALL",
    "Frame",
    "Pong",
    "PongState",
    "fold",
    "frame_dict",
]

ACTIONS: tuple[Action, ...] = ("stay", "up", "down")
#: How each action moves a paddle, in units of y per frame (up is +y).
_DIRECTION = {"stay": 0, "up": 1, "down": -1}
#: The prompt's names of the actions, GameBot's numbering (0 - Stay Still, 1 - Move Up, 2 - Move Down).
PHRASES: dict[Action, str] = {"stay": "Stay Still", "up": "Move Up", "down": "Move Down"}
NUMBERS: dict[Action, int] = {"stay": 0, "up": 1, "down": 2}

COURT_WIDTH = 160
LOWER_WALL = 16
UPPER_WALL = 176
RIGHT_X = 140  # seat 0's paddle face
LEFT_X = 20  # seat 1's paddle face
PADDLE_LENGTH = 16
PADDLE_SPEED = 2  # units per frame
#: The ball's half size: a ball this far beyond a paddle's end still touches it.
BALL_REACH = 1
CENTRE_Y = (LOWER_WALL + UPPER_WALL) // 2  # 96
SERVE_X = COURT_WIDTH // 2
#: Frames the ball waits at the centre before a serve.
SERVE_WAIT = 8
#: The horizontal speed rises by one every this many paddle hits of a rally, up to ``MAX_VX``.
HITS_PER_SPEEDUP = 2
MAX_VX = 4
_LOWEST = LOWER_WALL
_HIGHEST = UPPER_WALL - PADDLE_LENGTH

#: One recorded frame: ball x, ball y, seat 0's paddle low end, seat 1's paddle low end.
Frame = tuple[int, int, int, int]


def fold(y: float) -> float:
    """``y`` folded into the court by reflecting it off the walls as often as needed ("unfold, then
    fold"): a straight line that leaves the court comes back as the ball's real, rebounding path."""
    span = UPPER_WALL - LOWER_WALL
    t = (y - LOWER_WALL) % (2 * span)
    return LOWER_WALL + (2 * span - t if t > span else t)


def mirror_frame(frame: Frame, seat: Seat) -> Frame:
    """``frame`` as ``seat`` sees it: seat 1's court is mirrored so that its paddle is on the right
    (``ball_x' = 160 - ball_x``, the paddles swapped)."""
    if seat != 1:
        return frame
    x, y, right, left = frame
    return (COURT_WIDTH - x, y, left, right)


def frame_dict(frame: Frame) -> dict[str, Any]:
    """A frame (already in the seat's view) as GameBot writes it, keys in GameBot's order."""
    x, y, mine, theirs = frame
    return {
        "ball_x": x,
        "ball_y": y,
        "player_x": RIGHT_X,
        "player_y": [mine, mine + PADDLE_LENGTH],
        "opponent_x": LEFT_X,
        "opponent_y": [theirs, theirs + PADDLE_LENGTH],
        "upper_bound": UPPER_WALL,
        "lower_bound": LOWER_WALL,
    }


def _clamp(value: int, low: int, high: int) -> int:
    return low if value < low else high if value > high else value


def _rebound_vy(offset: int, incoming: int) -> int:
    """The vertical speed after a paddle hit ``offset`` units from the paddle's centre: steeper the
    nearer the edge, upwards off the upper half; a dead-centre hit keeps the incoming direction."""
    size = abs(offset)
    speed = 1 if size <= 2 else 2 if size <= 5 else 3
    sign = 1 if offset > 0 else -1 if offset < 0 else (1 if incoming >= 0 else -1)
    return sign * speed


def serve(seed: int, number: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Where serve ``number`` of a match starts and its velocity per frame, from the seed alone."""
    rng = random.Random(f"pong:{seed}:{number}")
    y = rng.randrange(56, 137, 2)
    vx = rng.choice((-1, 1))
    vy = rng.choice((-2, -1, 1, 2))
    return (SERVE_X, y), (vx, vy)


@dataclasses.dataclass(frozen=True, slots=True)
class PongState(State):
    """A moment of a Pong match, between two decisions.

    Attributes:
        ball: The ball's (x, y) in court units.
        velocity: The ball's (vx, vy) per frame.
        paddles: The low end (smallest y) of seat 0's (right) and seat 1's (left) paddle.
        points: Points scored by seat 0 and seat 1.
        frame: Frames played since the start.
        steps: Decisions (joint actions) applied since the start.
        frames: The last decision frames, oldest first (at most three), all of the current rally.
        wait: Frames the ball still waits at the centre before it is served.
        hits: Paddle hits in the current rally (the ball speeds up with them).
        serves: Serves so far (the next serve's direction is drawn from the seed and this number).
        seed: The match's seed.
        frame_skip: Frames per decision.
        target: Points that win the match.
        max_frames: Frames after which the match is a draw.
        last: The joint action that led here (seat 0's, seat 1's), or ``None`` at the start.
        scored: The seat that scored during the last step, or ``None``.
    """

    game_id: ClassVar[str] = "pong"

    ball: tuple[int, int] = (SERVE_X, CENTRE_Y)
    velocity: tuple[int, int] = (1, 1)
    paddles: tuple[int, int] = (CENTRE_Y - PADDLE_LENGTH // 2, CENTRE_Y - PADDLE_LENGTH // 2)
    points: tuple[int, int] = (0, 0)
    frame: int = 0
    steps: int = 0
    frames: tuple[Frame, ...] = ()
    wait: int = SERVE_WAIT
    hits: int = 0
    serves: int = 1
    seed: int = 0
    frame_skip: int = 4
    target: int = 1
    max_frames: int = 1000
    last: tuple[Action, Action] | None = None
    scored: Seat | None = None

    # -- the contract -------------------------------------------------------------------------------

    @property
    def step(self) -> int:
        return self.steps

    @property
    def winner(self) -> Seat | None:
        for seat in (0, 1):
            if self.points[seat] >= self.target:
                return seat
        return None

    @property
    def to_act(self) -> tuple[Seat, ...]:
        if self.winner is not None or self.frame >= self.max_frames:
            return ()
        return (0, 1)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        to_act = self.to_act
        if not to_act or (seat is not None and seat not in to_act):
            return []
        return list(ACTIONS)

    @property
    def scores(self) -> tuple[float, ...]:
        return (float(self.points[0]), float(self.points[1]))

    def apply(self, action: Action | Mapping[Seat, Action]) -> PongState:
        if not isinstance(action, Mapping):
            raise InvalidActionError("both paddles move at once: give {0: action, 1: action}")
        for seat, move in action.items():
            if move not in ACTIONS:
                raise InvalidActionError(f"{move!r} is not stay, up or down (seat {seat})")
        if self.is_over:
            raise IllegalActionError("the match is over")
        if set(action) != {0, 1}:
            raise IllegalActionError(f"seats 0 and 1 must both act, not {sorted(action)}")
        return self._advance(action[0], action[1])

    # -- the simulator ------------------------------------------------------------------------------

    def _advance(self, right: Action, left: Action) -> PongState:
        (x, y), (vx, vy) = self.ball, self.velocity
        paddles = list(self.paddles)
        points = list(self.points)
        wait, hits, serves = self.wait, self.hits, self.serves
        frames = self.frames
        scored: Seat | None = None
        moves = (_DIRECTION[right], _DIRECTION[left])
        for _ in range(self.frame_skip):
            for seat in (0, 1):
                paddles[seat] = _clamp(paddles[seat] + moves[seat] * PADDLE_SPEED, _LOWEST, _HIGHEST)
            if scored is not None:
                continue  # the point is over; the ball waits for the next serve
            if wait > 0:
                wait -= 1
                continue
            nx, ny = x + vx, y + vy
            if ny > UPPER_WALL:
                ny, vy = 2 * UPPER_WALL - ny, -vy
            elif ny < LOWER_WALL:
                ny, vy = 2 * LOWER_WALL - ny, -vy
            face = RIGHT_X if vx > 0 else LEFT_X
            crossing = x < face <= nx if vx > 0 else x > face >= nx
            seat = 0 if vx > 0 else 1
            low = paddles[seat]
            if crossing and low - BALL_REACH <= ny <= low + PADDLE_LENGTH + BALL_REACH:
                hits += 1
                speed = min(MAX_VX, 1 + hits // HITS_PER_SPEEDUP)
                nx = 2 * face - nx
                vx = -speed if vx > 0 else speed
                vy = _rebound_vy(ny - (low + PADDLE_LENGTH // 2), vy)
            x, y = nx, ny
            if x >= COURT_WIDTH or x <= 0:
                scored = 1 if x >= COURT_WIDTH else 0
                points[scored] += 1
        frame = self.frame + self.frame_skip
        recorded: Frame = (x, y, paddles[0], paddles[1])
        if scored is not None and max(points) < self.target:
            # The next ball: the recorded frames start again with the new rally.
            (x, y), (vx, vy) = serve(self.seed, serves)
            serves += 1
            wait, hits = SERVE_WAIT, 0
            frames = ((x, y, paddles[0], paddles[1]),)
        else:
            frames = (*frames[-2:], recorded)
        return dataclasses.replace(
            self,
            ball=(x, y),
            velocity=(vx, vy),
            paddles=(paddles[0], paddles[1]),
            points=(points[0], points[1]),
            frame=frame,
            steps=self.steps + 1,
            frames=frames,
            wait=wait,
            hits=hits,
            serves=serves,
            last=(right, left),
            scored=scored,
        )

    # -- views --------------------------------------------------------------------------------------

    @property
    def in_play(self) -> bool:
        """Whether the ball is moving on the court (not waiting for a serve, not out)."""
        return self.wait == 0 and 0 < self.ball[0] < COURT_WIDTH

    def seat_frames(self, seat: Seat | None) -> list[Frame]:
        """The recorded frames as ``seat`` sees them (mirrored for seat 1), oldest first."""
        return [mirror_frame(f, 1 if seat == 1 else 0) for f in self.frames]

    def status_text(self) -> str:
        if self.winner is not None:
            return f"{('Right', 'Left')[self.winner]} wins the match."
        if self.is_over:
            return "Draw: no winner within the frame limit."
        if self.wait > 0:
            return "The ball waits at the centre to be served."
        return "The ball is in play."

    def text(self, seat: Seat | None = None) -> str:
        view = 1 if seat == 1 else 0
        frames = self.seat_frames(view)
        names = [
            f"Frame t-{len(frames) - 1 - i}" if i < len(frames) - 1 else "Frame t" for i in range(len(frames))
        ]
        lines: list[str] = []
        if seat is None:
            lines.append(
                f"Score: Right {self.points[0]}, Left {self.points[1]} (first to {self.target}). "
                f"Frame {self.frame} of {self.max_frames}."
            )
        else:
            mine, theirs = self.points[seat], self.points[1 - seat]
            lines.append(
                f"Score: you {mine}, opponent {theirs} (first to {self.target} wins). "
                f"Frame {self.frame} of {self.max_frames}; one decision every {self.frame_skip} frames."
            )
            lines.append(
                f"You control the right paddle (x = {RIGHT_X}); the opponent's paddle is at x = {LEFT_X}."
            )
            if seat == 1:
                lines.append("(Your court is shown mirrored, so that your paddle is always the right one.)")
        lines.append("")
        for name, frame in zip(names, frames, strict=True):
            lines.append(name)
            lines.append(str(frame_dict(frame)))
        lines.append("")
        lines.append(self.status_text())
        return "\n".join(lines)

    def notice(self, seat: Seat | None = None) -> str:
        if self.is_over:
            return self.status_text()
        if self.wait > 0:
            return "Serve coming: the ball leaves the centre in a moment."
        return ""

    def annotate(self, action: Action, seat: Seat | None = None) -> str:
        low = self.paddles[1 if seat == 1 else 0]
        if action == "up" and low >= _HIGHEST:
            return "the paddle is already against the upper wall; moving up changes nothing"
        if action == "down" and low <= _LOWEST:
            return "the paddle is already against the lower wall; moving down changes nothing"
        return ""

    def metrics(self) -> dict[str, float]:
        return {"frames": float(self.frame), "rally_hits": float(self.hits)}

    def to_json(self) -> JsonDict:
        return {
            "game": self.game_id,
            "ball": list(self.ball),
            "velocity": list(self.velocity),
            "paddles": list(self.paddles),
            "points": list(self.points),
            "frame": self.frame,
            "steps": self.steps,
            "frames": [list(f) for f in self.frames],
            "wait": self.wait,
            "hits": self.hits,
            "serves": self.serves,
            "seed": self.seed,
            "frame_skip": self.frame_skip,
            "target": self.target,
            "max_frames": self.max_frames,
            "last": list(self.last) if self.last is not None else None,
            "scored": self.scored,
        }


_RULES = """\
Atari-style Pong for two players. Each player moves a paddle up and down along its own side of the
court; the ball travels in straight lines and rebounds off the upper wall (y = 176), the lower wall
(y = 16) and the paddles. Hitting the ball near the edge of your paddle sends it back at a steeper
angle. If the ball gets past your paddle, your opponent scores. Coordinates: a larger x is further
right, a larger y is higher on screen. You control the right paddle (x = 140); the opponent's paddle
is at x = 20. Paddles are 16 units long. Actions: 0 - Stay Still, 1 - Move Up, 2 - Move Down."""

_PHRASE = re.compile(r"(move\s*up|move\s*down|stay\s*still|\bup\b|\bdown\b|\bstay\b|\bnoop\b)")


def read_action(text: str) -> Action | None:
    """The action a short text names: ``"1 - Move Up"``, ``"Stay Still"``, ``"down"``, ``"2"``;
    ``None`` when it names none. A phrase wins over a bare number."""
    lowered = text.lower()
    match = _PHRASE.search(lowered)
    if match:
        word = match.group(1)
        return "up" if "up" in word else "down" if "down" in word else "stay"
    number = re.search(r"(?<![\d.])([012])(?![\d.])", lowered)
    if number:
        return ACTIONS[int(number.group(1))]
    return None


class Pong(Game):
    """Pong (GameBot): two paddles, simultaneous moves, first to ``points`` wins."""

    id: ClassVar[str] = "pong"
    title: ClassVar[str] = "Pong"
    suites: ClassVar[tuple[str, ...]] = ("gamebot",)
    description: ClassVar[str] = "Atari-style Pong: both paddles move at once; make the other side miss."
    seats = (SeatInfo("Right", "R"), SeatInfo("Left", "L"))
    simultaneous: ClassVar[bool] = True
    tick_s: ClassVar[float | None] = 0.1
    default_action: ClassVar[Action | None] = "stay"
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option(
            "frame_skip",
            int,
            4,
            "Frames per decision (each paddle repeats its action)",
            minimum=1,
            maximum=16,
        ),
        Option(
            "points",
            int,
            1,
            "Points that win the match (GameBot: the first point wins)",
            minimum=1,
            maximum=21,
        ),
        Option(
            "max_frames", int, 1000, "Frames after which the match is a draw", minimum=40, maximum=100_000
        ),
    )
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    keymap: ClassVar[Mapping[str, Action]] = {"up": "up", "down": "down", "w": "up", "s": "down"}
    controls: ClassVar[str] = "Hold Up / Down (or W / S) to move your paddle; it stays when you let go"
    bots: ClassVar[Mapping[str, str]] = {"tracker": ".bots:TrackerBot", "predictor": ".bots:PredictorBot"}
    default_opponent: ClassVar[str] = "predictor"
    sim_behaviour: ClassVar[str | None] = ".sim:PongSim"
    questions: ClassVar[str | None] = ".questions:QUESTIONS"
    extractor: ClassVar[str | None] = ".answers:extract_action"
    default_prompt: ClassVar[str] = "cot"

    def initial_state(self, seed: int | None = None) -> PongState:
        seed = 0 if seed is None else int(seed)
        (x, y), velocity = serve(seed, 0)
        centre = CENTRE_Y - PADDLE_LENGTH // 2
        return PongState(
            ball=(x, y),
            velocity=velocity,
            paddles=(centre, centre),
            frames=((x, y, centre, centre),),
            seed=seed,
            frame_skip=self.options["frame_skip"],
            target=self.options["points"],
            max_frames=self.options["max_frames"],
        )

    def rules_text(self) -> str:
        return _RULES

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read ``"Move Up"``, ``"1 - Move Up"``, ``"up"``, ``"stay still"`` or ``"0"``..``"2"``.

        Raises:
            InvalidActionError: the text names no action.
            IllegalActionError: the match is over or ``seat`` does not act.
        """
        action = read_action(text)
        if action is None:
            raise InvalidActionError(f"{text!r} is not Stay Still, Move Up or Move Down")
        if action not in state.legal_actions(seat):
            raise IllegalActionError(
                "the match is over" if state.is_over else f"seat {seat} does not act now"
            )
        return action

    def state_from_json(self, data: JsonDict) -> PongState:
        with reading_state(data, "pong", "Pong"):
            ball = _pair(data["ball"], "ball")
            velocity = _pair(data["velocity"], "velocity")
            paddles = _pair(data["paddles"], "paddles")
            points = _pair(data["points"], "points")
            frames = tuple(_frame(f) for f in data["frames"])
            if not 1 <= len(frames) <= 3:
                raise ValueError("frames holds one to three recorded frames")
            if any(not _LOWEST <= p <= _HIGHEST for p in paddles):
                raise ValueError(f"paddles must lie between {_LOWEST} and {_HIGHEST}")
            if not LOWER_WALL <= ball[1] <= UPPER_WALL:
                raise ValueError("the ball is outside the walls")
            if min(points) < 0:
                raise ValueError("points cannot be negative")
            last = data.get("last")
            if last is not None:
                if not isinstance(last, list) or len(last) != 2 or any(a not in ACTIONS for a in last):
                    raise ValueError("last must be two actions")
                last = (last[0], last[1])
            scored = data.get("scored")
            if scored not in (None, 0, 1):
                raise ValueError("scored must be 0, 1 or null")
            counts = {k: _int(data[k], k) for k in ("frame", "steps", "wait", "hits", "serves", "seed")}
            rules = {k: _int(data[k], k) for k in ("frame_skip", "target", "max_frames")}
            if min(counts.values()) < 0 or min(rules.values()) < 1:
                raise ValueError("counters must not be negative")
        return PongState(
            ball=ball,
            velocity=velocity,
            paddles=paddles,
            points=points,
            frames=frames,
            last=last,
            scored=scored,
            **counts,
            **rules,
        )


def _int(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer")
    return value


def _pair(value: Any, name: str) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError(f"{name} must be a list of two integers")
    return (_int(value[0], name), _int(value[1], name))


def _frame(value: Any) -> Frame:
    if not isinstance(value, list) or len(value) != 4:
        raise ValueError("a frame is [ball_x, ball_y, right_low, left_low]")
    a, b, c, d = (_int(v, "frames") for v in value)
    return (a, b, c, d)
