"""Tetris, as LMGame-Bench plays it: a 10x20 board, the seven tetrominoes from a seeded 7-bag, SRS
rotation with wall kicks, hold, soft and hard drop and a preview of the next pieces.

One step is one action from :data:`ACTIONS` (LMGame-Bench's vocabulary: ``no_op``, ``left``,
``right``, ``rotate_left``, ``rotate_right``, ``soft_drop``, ``hard_drop``, ``hold``), then gravity:
with the ``gravity`` option on (the default) the piece falls one row after every action, and a piece
that cannot fall locks at once, as in the benchmark's environment. A hard drop locks the piece where
it lands; a soft drop moves it one row (locking it when it rests). ``hold`` puts the falling piece
aside and brings out the held one (or the next piece); it can be used once per piece. In real-time
play (option ``realtime``, seconds per tick for people) the piece falls only when a tick passes
without a key (the ``no_op`` the match loop plays for a person who did not act), so moving and turning
never push the piece down.

Every action is legal while the game runs: one that cannot be carried out (a move into a wall, a
second hold) changes nothing but lets gravity act, as in the benchmark; :meth:`TetrisState.annotate`
says so. The raw score is LMGame-Bench's: +1 for every piece placed and +10 for every line cleared;
the ``scoring`` option ``harness`` counts +1 a line instead, the modular-harness paper's metric
("total pieces dropped plus total lines cleared").
The game ends when a new piece has no room to enter (game over), when nothing has changed for
:data:`STUCK_LIMIT` actions in a row (the benchmark's stuck rule), or after ``max_steps`` actions.

Pieces enter in the top two rows of the board (there are no hidden rows above it) and lock as soon
as they cannot fall, without a lock delay, as in the benchmark's environment.

These are PlayTrace's own rules rather than tetris-gymnasium's (the environment LMGame-Bench's code
plays): a PlayTrace state is an immutable value that is saved, compared, forked and searched, which a
mutable Gymnasium environment is not. The actions, the gravity per step and the score are the
benchmark's.

The pieces come from a 7-bag (each run of seven holds every piece once). Each draw picks uniformly
among the pieces left in the bag with ``random.Random(f"tetris:{seed}:{n}")`` for the n-th draw, so the
same seed and actions always give the same pieces and a saved state continues the same way.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from engine.core import (
    Action,
    Game,
    IllegalActionError,
    InvalidActionError,
    JsonDict,
    Seat,
    State,
    Transition,
    seats_of,
)
from engine.games._common import ONE_PLAYER, one_action, reading_state
from engine.games.tetris.pieces import CELLS, KICKS, KINDS, SPAWN
from engine.games.tetris.words import GRAVITY_WORDS, RULES, read_actions
from engine.options import Option

__all__ = [
    "ACTIONS",
    "HEIGHT",
    "STUCK_LIMIT",
    "WIDTH",
    "Tetris",
    "TetrisState",
    "lock_piece",
    "read_actions",
]

WIDTH = 10
HEIGHT = 20
ACTIONS: tuple[Action, ...] = (
    "no_op",
    "left",
    "right",
    "rotate_left",
    "rotate_right",
    "soft_drop",
    "hard_drop",
    "hold",
)
#: Actions in a row that change nothing before the episode ends (LMGame-Bench's stuck limit for Tetris).
STUCK_LIMIT = 30
#: Points for a placed piece and for a cleared line (LMGame-Bench's raw score).
PIECE_POINTS = 1
LINE_POINTS = 10
#: The ``scoring`` option: what a cleared line is worth under each paper's metric.
SCORINGS: Mapping[str, int] = {"lmgame": LINE_POINTS, "harness": 1}
#: How gravity acts: after every action, only after a tick without a key, or never.
FALL_EVERY, FALL_IDLE, FALL_NONE = "every", "idle", "none"
_FALLS = (FALL_EVERY, FALL_IDLE, FALL_NONE)
_EMPTY_BOARD = bytes(WIDTH * HEIGHT)
_CODE = {k: i + 1 for i, k in enumerate(KINDS)}
#: Board codes as the text view writes them: empty ``.``, settled ``#``.
_TEXT = bytes.maketrans(bytes(range(8)), b".#######")
_HEADER = "    " + "".join(str(c % 10) for c in range(WIDTH))
_ROW_LABELS = [f"{r:>3} " for r in range(HEIGHT)]
_LEGEND = "Legend: . empty, # settled block, @ falling piece. Row 0 is the top, row 19 the floor."
_ROTATION_NAMES = ("0 (spawn)", "R (one turn clockwise)", "2 (upside down)", "L (one turn anticlockwise)")


class _NeedDraw(Exception):
    """Raised while listing outcomes: the action needs a piece that has not been chosen yet."""

    def __init__(self, bag: str) -> None:
        self.bag = bag


def _reach(cells: tuple[tuple[int, int], ...]) -> tuple[int, int, int, int, tuple[int, ...]]:
    """A rotation state's extent in its box (top, bottom, left, right) and its cells as offsets into
    the board's bytes from the box's top-left."""
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    return min(rows), max(rows), min(cols), max(cols), tuple(r * WIDTH + c for r, c in cells)


_REACH = {k: tuple(_reach(state) for state in CELLS[k]) for k in KINDS}


def fits(board: bytes, kind: str, rotation: int, row: int, col: int) -> bool:
    """Whether the piece fits on ``board`` with its box's top-left at (``row``, ``col``)."""
    top, bottom, left, right, offsets = _REACH[kind][rotation]
    if row + top < 0 or row + bottom >= HEIGHT or col + left < 0 or col + right >= WIDTH:
        return False
    base = row * WIDTH + col
    for offset in offsets:
        if board[base + offset]:
            return False
    return True


def drop_row(board: bytes, kind: str, rotation: int, row: int, col: int) -> int:
    """The row the piece's box comes to rest on when dropped straight down from ``row``."""
    while fits(board, kind, rotation, row + 1, col):
        row += 1
    return row


def lock_piece(board: bytes, kind: str, rotation: int, row: int, col: int) -> tuple[bytes, int]:
    """``board`` with the piece written into it and full rows cleared; returns it and the rows cleared."""
    cells = bytearray(board)
    code = _CODE[kind]
    for r, c in CELLS[kind][rotation]:
        cells[(row + r) * WIDTH + col + c] = code
    full = [r for r in range(HEIGHT) if all(cells[r * WIDTH : (r + 1) * WIDTH])]
    if not full:
        return bytes(cells), 0
    kept = [bytes(cells[r * WIDTH : (r + 1) * WIDTH]) for r in range(HEIGHT) if r not in full]
    return bytes(WIDTH * len(full)) + b"".join(kept), len(full)


def _draw_index(seed: int, draws: int, size: int) -> int:
    # A string seed is hashed with SHA-512 by ``random.Random``: the same on every machine and run.
    return random.Random(f"tetris:{seed}:{draws}").randrange(size)


@dataclasses.dataclass(frozen=True, slots=True)
class TetrisState(State):
    """A Tetris position.

    Attributes:
        board: ``WIDTH * HEIGHT`` bytes, row by row from the top; 0 is empty, 1..7 a settled block of
            the piece ``KINDS[code - 1]``.
        piece: The falling piece's letter (``I J L O S T Z``).
        rotation: Its rotation state, 0 (spawn), 1 (R), 2 or 3 (L).
        row: The row of its bounding box's top-left corner.
        col: The column of that corner.
        queue: The next pieces, soonest first (the preview).
        bag: The pieces left in the current 7-bag that are not yet in the queue.
        hold: The held piece's letter, or ``""``.
        held: Whether hold was used since the falling piece entered (it can be used once per piece).
        pieces: Pieces placed so far.
        lines: Lines cleared so far.
        step: Actions applied so far.
        stuck: Actions in a row that changed nothing.
        last: The action that led here, or ``None`` at the start.
        cleared: Lines the last action cleared.
        locked: Whether the last action placed a piece.
        topped: Whether the game ended because the next piece had no room to enter.
        seed: The seed every draw from the bag is derived from.
        draws: Pieces drawn from the bags so far.
        fall: How gravity acts: ``"every"`` action, only on ``no_op`` (``"idle"``), or ``"none"``.
        max_steps: Actions after which the episode ends.
        line_points: What a cleared line adds to the raw score (10: LMGame-Bench; 1: the
            modular-harness paper).
    """

    game_id: ClassVar[str] = "tetris"
    #: The piece letters in the order of their codes on :attr:`board` (code 1 is ``kinds[0]``).
    kinds: ClassVar[str] = KINDS
    width: ClassVar[int] = WIDTH
    height: ClassVar[int] = HEIGHT

    board: bytes
    piece: str
    rotation: int
    row: int
    col: int
    queue: str
    bag: str
    hold: str = ""
    held: bool = False
    pieces: int = 0
    lines: int = 0
    step: int = 0
    stuck: int = 0
    last: Action | None = None
    cleared: int = 0
    locked: bool = False
    topped: bool = False
    seed: int = 0
    draws: int = 0
    fall: str = FALL_EVERY
    max_steps: int = 2000
    line_points: int = LINE_POINTS

    # -- the contract ---------------------------------------------------------------------------

    @property
    def to_act(self) -> tuple[Seat, ...]:
        if self.topped or self.stuck >= STUCK_LIMIT or self.step >= self.max_steps:
            return ()
        return (0,)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        if seat not in (None, 0) or self.is_over:
            return []
        return list(ACTIONS)

    @property
    def scores(self) -> tuple[float, ...]:
        return (float(self.raw_score),)

    @property
    def raw_score(self) -> int:
        """The raw score: pieces placed + ``line_points`` (LMGame-Bench: 10) x lines cleared."""
        return PIECE_POINTS * self.pieces + self.line_points * self.lines

    def metrics(self) -> dict[str, float]:
        return {"raw_score": self.raw_score, "lines": self.lines, "pieces": self.pieces}

    @property
    def ending(self) -> str:
        """Why the game ended, or ``""`` while it runs."""
        if self.topped:
            return f"the next piece ({self.piece}) has no room to enter"
        if self.stuck >= STUCK_LIMIT:
            return f"nothing changed for {STUCK_LIMIT} actions in a row"
        if self.step >= self.max_steps:
            return f"the step limit ({self.max_steps}) was reached"
        return ""

    def apply(self, action: Action | Mapping[Seat, Action]) -> TetrisState:
        return self._advance(action, None)

    def outcomes(self, action: Action | Mapping[Seat, Action]) -> list[tuple[float, State]]:
        """Every piece the action can reveal: a lock (or a first hold) draws a new piece for the
        preview, uniformly among those left in the 7-bag (a fresh bag holds all seven)."""
        results: list[tuple[float, State]] = []

        def explore(forced: tuple[str, ...], p: float) -> None:
            try:
                results.append((p, self._advance(action, forced)))
            except _NeedDraw as need:
                options = need.bag or KINDS
                for kind in options:
                    explore((*forced, kind), p / len(options))

        explore((), 1.0)
        return results

    # -- the rules ------------------------------------------------------------------------------

    def _advance(self, action: Action | Mapping[Seat, Action], forced: tuple[str, ...] | None) -> TetrisState:
        if isinstance(action, Mapping):
            action = one_action(action, "Tetris", (0,), ONE_PLAYER)
        if action not in _ACTION_SET:
            raise InvalidActionError(f"{action!r} is not a Tetris action; actions are {', '.join(ACTIONS)}")
        if self.is_over:
            raise IllegalActionError(f"the game is over; {action!r} cannot be played")
        board, kind, rot, row, col = self.board, self.piece, self.rotation, self.row, self.col
        queue, bag, hold, held, draws = self.queue, self.bag, self.hold, self.held, self.draws
        pieces, lines = self.pieces, self.lines
        locked = topped = False
        cleared = 0
        used = 0  # forced draws consumed

        def draw() -> str:
            nonlocal queue, bag, draws, used
            pool = bag or KINDS
            if forced is None:
                chosen = sorted(pool)[_draw_index(self.seed, draws, len(pool))]
            elif used < len(forced):
                chosen = forced[used]
                used += 1
            else:
                raise _NeedDraw(bag)
            bag = pool.replace(chosen, "", 1)
            draws += 1
            nxt, queue = queue[0], queue[1:] + chosen
            return nxt

        def spawn(new: str) -> None:
            nonlocal kind, rot, row, col, topped
            kind, rot = new, 0
            row, col = SPAWN[new]
            topped = not fits(board, kind, 0, row, col)

        def lock() -> None:
            nonlocal board, pieces, lines, cleared, locked, held
            board, cleared = lock_piece(board, kind, rot, row, col)
            pieces += 1
            lines += cleared
            locked, held = True, False
            spawn(draw())

        if action == "left" or action == "right":
            step = -1 if action == "left" else 1
            if fits(board, kind, rot, row, col + step):
                col += step
        elif action == "rotate_right" or action == "rotate_left":
            end = (rot + (1 if action == "rotate_right" else 3)) % 4
            for dr, dc in KICKS[kind][(rot, end)]:
                if fits(board, kind, end, row + dr, col + dc):
                    rot, row, col = end, row + dr, col + dc
                    break
        elif action == "soft_drop":
            if fits(board, kind, rot, row + 1, col):
                row += 1
            else:
                lock()
        elif action == "hard_drop":
            row = drop_row(board, kind, rot, row, col)
            lock()
        elif action == "hold" and not held:
            current = kind
            spawn(hold or draw())
            hold, held = current, True
        if (
            not locked
            and not topped
            and (self.fall == FALL_EVERY or (self.fall == FALL_IDLE and action == "no_op"))
        ):
            if fits(board, kind, rot, row + 1, col):
                row += 1
            else:
                lock()
        changed = (
            locked
            or row != self.row
            or col != self.col
            or rot != self.rotation
            or kind != self.piece
            or hold != self.hold
        )
        return TetrisState(
            board=board,
            piece=kind,
            rotation=rot,
            row=row,
            col=col,
            queue=queue,
            bag=bag,
            hold=hold,
            held=held,
            pieces=pieces,
            lines=lines,
            step=self.step + 1,
            stuck=0 if changed else self.stuck + 1,
            last=action,
            cleared=cleared,
            locked=locked,
            topped=topped,
            seed=self.seed,
            draws=draws,
            fall=self.fall,
            max_steps=self.max_steps,
            line_points=self.line_points,
        )

    # -- geometry for views and bots ------------------------------------------------------------

    def cells(self) -> tuple[tuple[int, int], ...]:
        """The (row, column) cells of the falling piece."""
        return tuple((self.row + r, self.col + c) for r, c in CELLS[self.piece][self.rotation])

    def ghost_cells(self) -> tuple[tuple[int, int], ...]:
        """Where the falling piece would land with a hard drop."""
        if self.topped:
            return ()
        row = drop_row(self.board, self.piece, self.rotation, self.row, self.col)
        return tuple((row + r, self.col + c) for r, c in CELLS[self.piece][self.rotation])

    @staticmethod
    def shape(kind: str) -> tuple[tuple[int, int], ...]:
        """The cells of ``kind`` as it enters (rotation 0), shifted so the top-left cell is (0, 0)."""
        cells = CELLS[kind][0]
        top = min(r for r, _ in cells)
        left = min(c for _, c in cells)
        return tuple((r - top, c - left) for r, c in cells)

    def cell(self, row: int, col: int) -> str:
        """The letter of the settled block at (``row``, ``col``), or ``""`` when the cell is empty."""
        code = self.board[row * WIDTH + col]
        return KINDS[code - 1] if code else ""

    def heights(self) -> list[int]:
        """Each column's height: rows from the floor up to its highest settled block."""
        out = []
        for c in range(WIDTH):
            top = next((r for r in range(HEIGHT) if self.board[r * WIDTH + c]), HEIGHT)
            out.append(HEIGHT - top)
        return out

    def holes(self) -> int:
        """Empty cells with a settled block somewhere above them in the same column."""
        count = 0
        for c in range(WIDTH):
            seen = False
            for r in range(HEIGHT):
                if self.board[r * WIDTH + c]:
                    seen = True
                elif seen:
                    count += 1
        return count

    def blocked(self, action: Action) -> str:
        """Why ``action`` cannot be carried out here, or ``""`` when it can."""
        if self.is_over:
            return ""
        kind, rot, row, col = self.piece, self.rotation, self.row, self.col
        if action in ("left", "right"):
            step = -1 if action == "left" else 1
            if not fits(self.board, kind, rot, row, col + step):
                return f"the piece cannot move {action}"
        elif action in ("rotate_left", "rotate_right"):
            end = (rot + (1 if action == "rotate_right" else 3)) % 4
            if kind == "O":
                return "turning the O piece changes nothing"
            if not any(fits(self.board, kind, end, row + dr, col + dc) for dr, dc in KICKS[kind][(rot, end)]):
                return "the piece has no room to turn, even with a wall kick"
        elif action == "hold" and self.held:
            return "hold was already used for this piece"
        return ""

    def annotate(self, action: Action, seat: Seat | None = None) -> str:
        why = self.blocked(action)
        if not why:
            return ""
        if self.fall == FALL_EVERY:
            return f"{why}; only gravity acts"
        return f"{why} (a wasted action)"

    # -- text views -----------------------------------------------------------------------------

    def grid_lines(self) -> list[str]:
        """The board as text rows, ``.`` empty, ``#`` settled, ``@`` the falling piece."""
        text = self.board.translate(_TEXT).decode("ascii")
        rows = [text[r * WIDTH : (r + 1) * WIDTH] for r in range(HEIGHT)]
        for r, c in self.cells():
            if 0 <= r < HEIGHT:
                line = rows[r]
                rows[r] = line[:c] + "@" + line[c + 1 :]
        return rows

    def text(self, seat: Seat | None = None) -> str:
        lines = [_HEADER]
        lines.extend(map(str.__add__, _ROW_LABELS, self.grid_lines()))
        lines.append(_LEGEND)
        cells = " ".join(f"({r},{c})" for r, c in self.cells())
        lines.append(f"Falling piece: {self.piece}, rotation {_ROTATION_NAMES[self.rotation]}, cells {cells}")
        ghost = self.ghost_cells()
        if ghost:
            lines.append("A hard drop would land it on: " + " ".join(f"({r},{c})" for r, c in ghost))
        lines.append("Next pieces: " + ", ".join(self.queue))
        if self.hold:
            free = "used for this piece" if self.held else "can be swapped in"
            lines.append(f"Hold: {self.hold} ({free})")
        else:
            lines.append("Hold: empty" + (" (used for this piece)" if self.held else " (available)"))
        lines.append(
            f"Score: {self.raw_score} (pieces placed {self.pieces}, lines cleared {self.lines})   "
            f"Step {self.step} of {self.max_steps}"
        )
        if self.last is not None:
            what = (
                f"cleared {self.cleared} line(s)" if self.cleared else "placed a piece" if self.locked else ""
            )
            lines.append(f"Last action: {self.last}" + (f" ({what})" if what else ""))
        if self.is_over:
            lines.append(f"Game over: {self.ending}.")
        return "\n".join(lines)

    def text_table(self, seat: Seat | None = None) -> str:
        """The perception module's symbolic listing: the falling piece's cells, where it would land,
        the queue and hold, the column heights, the holes and the settled blocks row by row."""
        cells = ", ".join(f"(row {r}, col {c})" for r, c in self.cells())
        lines = [f"Falling piece {self.piece} (rotation {self.rotation}) at {cells}"]
        ghost = self.ghost_cells()
        if ghost:
            lines.append(
                "Landing cells after a hard drop: " + ", ".join(f"(row {r}, col {c})" for r, c in ghost)
            )
        lines.append("Next pieces: " + ", ".join(self.queue))
        lines.append(
            f"Held piece: {self.hold or 'none'}" + (" (hold used for this piece)" if self.held else "")
        )
        lines.append("Column heights (col 0 to 9): " + " ".join(str(h) for h in self.heights()))
        lines.append(f"Holes: {self.holes()}")
        for r in range(HEIGHT):
            filled = [str(c) for c in range(WIDTH) if self.board[r * WIDTH + c]]
            if filled:
                lines.append(f"Settled blocks in row {r}: cols {','.join(filled)}")
        return "\n".join(lines)

    def notice(self, seat: Seat | None = None) -> str:
        if self.is_over:
            return f"Game over: {self.ending}"
        if self.stuck >= STUCK_LIMIT // 2:
            return f"Nothing has changed for {self.stuck} actions: {STUCK_LIMIT} in a row end the game"
        return ""

    def to_json(self) -> JsonDict:
        text = self.board.translate(_TO_LETTERS).decode("ascii")
        return {
            "game": self.game_id,
            "board": [text[r * WIDTH : (r + 1) * WIDTH] for r in range(HEIGHT)],
            "piece": self.piece,
            "rotation": self.rotation,
            "row": self.row,
            "col": self.col,
            "queue": self.queue,
            "bag": self.bag,
            "hold": self.hold,
            "held": self.held,
            "pieces": self.pieces,
            "lines": self.lines,
            "step": self.step,
            "stuck": self.stuck,
            "last": self.last,
            "cleared": self.cleared,
            "locked": self.locked,
            "topped": self.topped,
            "seed": self.seed,
            "draws": self.draws,
            "fall": self.fall,
            "max_steps": self.max_steps,
            "line_points": self.line_points,
        }


_ACTION_SET = frozenset(ACTIONS)
_TO_LETTERS = bytes.maketrans(bytes(range(8)), b"." + KINDS.encode("ascii"))
_FROM_LETTERS = bytes.maketrans(b"." + KINDS.encode("ascii"), bytes(range(8)))

class Tetris(Game):
    """Tetris (LMGame-Bench). Options: ``gravity``, ``realtime``, ``preview``, ``max_steps``, ``scoring``."""

    id: ClassVar[str] = "tetris"
    title: ClassVar[str] = "Tetris"
    suites: ClassVar[tuple[str, ...]] = ("lmgame",)
    description: ClassVar[str] = (
        "Place falling tetrominoes and clear full rows; +1 a piece, +10 a line, until the stack tops out."
    )
    seats = seats_of(["Player"])
    chance: ClassVar[bool] = True
    default_action: ClassVar[Action | None] = "no_op"
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option(
            "gravity",
            bool,
            True,
            "The piece falls one row after every action (in real time: after every tick without a key)",
        ),
        Option(
            "realtime",
            float,
            0.0,
            "Seconds per tick for people playing in real time (0: turn by turn); models play turn by turn",
            minimum=0.0,
            maximum=5.0,
            label="Real-time tick (s)",
        ),
        Option("preview", int, 5, "How many next pieces are shown", minimum=1, maximum=6),
        Option(
            "max_steps",
            int,
            2000,
            "Actions after which the episode ends (LMGame-Bench: 2000)",
            minimum=10,
            maximum=1_000_000,
        ),
        Option(
            "scoring",
            str,
            "lmgame",
            "The raw score: lmgame (pieces + 10 x lines, LMGame-Bench) or harness (pieces + lines, the "
            "modular-harness paper)",
            choices=tuple(SCORINGS),
        ),
    )
    #: LMGame-Bench's action vocabulary, in its order (the Gymnasium adapter's discrete action space).
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    keymap: ClassVar[Mapping[str, Action]] = {
        "left": "left",
        "right": "right",
        "up": "rotate_right",
        "x": "rotate_right",
        "z": "rotate_left",
        "down": "soft_drop",
        "space": "hard_drop",
        "c": "hold",
    }
    #: In real time, Left, Right and Down repeat while held; a turn, a hard drop or a hold plays once
    #: per press.
    once_per_press: ClassVar[frozenset[Action]] = frozenset(
        {"rotate_left", "rotate_right", "hard_drop", "hold"}
    )
    controls: ClassVar[str] = (
        "Left / Right move, Up or X turns clockwise, Z anticlockwise, Down soft drop, Space hard drop, "
        "C hold (the board must have focus; the Real-time tick option plays against the clock)"
    )
    bots: ClassVar[Mapping[str, str]] = {"dellacherie": ".bots:DellacherieBot"}
    default_opponent: ClassVar[str] = "dellacherie"
    sim_behaviour: ClassVar[str | None] = ".sim:SimTetris"
    extractor: ClassVar[str | None] = ".answers:extract_move"
    observation: ClassVar[str | None] = ".gym:BoardObservation"
    #: LMGame-Bench's raw score (pieces + 10 x lines, Table 1) and its progress score (lines, Table 3).
    raw_score: ClassVar[str | None] = "raw_score"
    progress_score: ClassVar[str | None] = "lines"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        realtime = float(self.options["realtime"])
        #: Seconds a person has per tick in real-time play; ``None``: turn by turn.
        self.tick_s: float | None = realtime if realtime > 0 else None  # type: ignore[misc]
        if not self.options["gravity"]:
            self.fall = FALL_NONE
        else:
            self.fall = FALL_IDLE if self.tick_s is not None else FALL_EVERY

    def initial_state(self, seed: int | None = None) -> TetrisState:
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"a Tetris seed is an integer, not {seed!r}")
        bag, draws, drawn = "", 0, []
        for _ in range(1 + self.options["preview"]):
            pool = bag or KINDS
            chosen = sorted(pool)[_draw_index(seed, draws, len(pool))]
            bag = pool.replace(chosen, "", 1)
            draws += 1
            drawn.append(chosen)
        kind = drawn[0]
        row, col = SPAWN[kind]
        return TetrisState(
            board=_EMPTY_BOARD,
            piece=kind,
            rotation=0,
            row=row,
            col=col,
            queue="".join(drawn[1:]),
            bag=bag,
            seed=seed,
            draws=draws,
            fall=self.fall,
            max_steps=self.options["max_steps"],
            line_points=SCORINGS[self.options["scoring"]],
        )

    def transition(self, before: State, after: State) -> Transition:
        assert isinstance(before, TetrisState) and isinstance(after, TetrisState)
        return Transition(rewards=(after.raw_score - before.raw_score,), changed=after.stuck == 0)

    def rules_text(self) -> str:
        steps = self.options["max_steps"]
        return RULES.format(gravity=GRAVITY_WORDS[self.fall], stuck=STUCK_LIMIT, steps=steps,
                            line=SCORINGS[self.options["scoring"]])

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Find the action in free text: ``"hard_drop"``, ``"Move Left."``, ``"rotate clockwise"``.

        Raises:
            InvalidActionError: no action, or several different actions, are named.
            IllegalActionError: the game is over.
        """
        found = set(read_actions(text))
        if len(found) != 1:
            what = "no action" if not found else f"several actions ({', '.join(sorted(found))})"
            raise InvalidActionError(f"{text!r} names {what}; answer with one of {', '.join(ACTIONS)}")
        action = found.pop()
        if state.is_over:
            raise IllegalActionError(f"the game is over; {action!r} cannot be played")
        return action

    def state_from_json(self, data: JsonDict) -> TetrisState:
        with reading_state(data, "tetris", "Tetris"):
            rows = data["board"]
            if not isinstance(rows, list) or len(rows) != HEIGHT:
                raise ValueError(f"board must have {HEIGHT} rows")
            if not all(isinstance(r, str) and len(r) == WIDTH and set(r) <= _LETTERS for r in rows):
                raise ValueError(f"every board row is {WIDTH} characters of '.' and {', '.join(KINDS)}")
            board = "".join(rows).encode("ascii").translate(_FROM_LETTERS)
            piece = _kind(data["piece"], "piece")
            rotation = _int(data["rotation"], "rotation", 0, 3)
            row = _int(data["row"], "row", -2, HEIGHT)
            col = _int(data["col"], "col", -2, WIDTH)
            queue = _letters(data["queue"], "queue", 1, 6)
            bag = _letters(data["bag"], "bag", 0, 7)
            if len(set(bag)) != len(bag):
                raise ValueError("bag repeats a piece")
            hold = data["hold"]
            if hold != "":
                hold = _kind(hold, "hold")
            counts = {k: _int(data[k], k, 0, None) for k in ("pieces", "lines", "step", "stuck", "draws")}
            seed = _int(data["seed"], "seed", None, None)
            flags = {k: _bool(data[k], k) for k in ("held", "locked", "topped")}
            last = data["last"]
            if last is not None and last not in _ACTION_SET:
                raise ValueError(f"{last!r} is not a Tetris action")
            fall = data["fall"]
            if fall not in _FALLS:
                raise ValueError(f"fall must be one of {', '.join(_FALLS)}")
            cleared = _int(data["cleared"], "cleared", 0, 4)
            max_steps = _int(data["max_steps"], "max_steps", 1, None)
            line_points = _int(data.get("line_points", LINE_POINTS), "line_points", 0, None)
            if not flags["topped"] and not fits(board, piece, rotation, row, col):
                raise ValueError("the falling piece overlaps the settled blocks or leaves the board")
        return TetrisState(
            board=board,
            piece=piece,
            rotation=rotation,
            row=row,
            col=col,
            queue=queue,
            bag=bag,
            hold=hold,
            last=last,
            cleared=cleared,
            seed=seed,
            fall=fall,
            max_steps=max_steps,
            line_points=line_points,
            pieces=counts["pieces"],
            lines=counts["lines"],
            step=counts["step"],
            stuck=counts["stuck"],
            draws=counts["draws"],
            held=flags["held"],
            locked=flags["locked"],
            topped=flags["topped"],
        )


_LETTERS = frozenset("." + KINDS)


def _int(value: Any, name: str, low: int | None, high: int | None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} {value} is out of range")
    return value


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false")
    return value


def _kind(value: Any, name: str) -> str:
    if not isinstance(value, str) or len(value) != 1 or value not in KINDS:
        raise ValueError(f"{name} must be one of {', '.join(KINDS)}")
    return value


def _letters(value: Any, name: str, low: int, high: int) -> str:
    if not isinstance(value, str) or not low <= len(value) <= high or any(ch not in KINDS for ch in value):
        raise ValueError(f"{name} must be {low} to {high} piece letters")
    return value


def apply_all(state: TetrisState, actions: Sequence[Action]) -> TetrisState:
    """``state`` after ``actions`` in turn (a convenience for bots, tests and samples)."""
    for action in actions:
        state = state.apply(action)
    return state
