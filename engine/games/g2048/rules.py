"""2048, as LMGame-Bench plays it.

A square board (4x4 by default) of power-of-two tiles. Each move (``up``, ``down``, ``left``,
``right``) slides every tile as far as it goes and merges equal neighbours once per move; when the
move changes the board a new tile (2 with probability 0.9, else 4) appears in a random empty cell.

The raw score is LMGame-Bench's *merged sum*: the sum of the values of all tiles created by merges
(two 2s merging give +4). The reported figure is ``score_2048 = 10 * log2(merged_sum)``. The
``scoring`` option ``harness`` plays the modular-harness paper's credit instead: a merge earns the
value of the tiles that merged ("merging two 2's yields +2"), half of LMGame-Bench's.

The game ends when no move changes the board, or when the board has not changed for
:data:`STAGNATION_LIMIT` consecutive turns (LMGame-Bench's stuck rule). Until then all four moves are
legal: a move that changes nothing is a wasted turn that counts towards stagnation, exactly as a
model's repeated impossible move does in the benchmark.

Randomness comes from ``random.Random(f"{seed}:{step}")`` with the seed stored in the state, so the
same seed and the same moves always give the same tiles, and any saved state continues the same way.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
from collections.abc import Mapping
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
from engine.games._common import ARROW_KEYS, direction_in, reading_state
from engine.options import Option

Board = tuple[tuple[int, ...], ...]

ACTIONS: tuple[Action, ...] = ("up", "down", "left", "right")
#: Consecutive turns without a board change after which the episode ends (LMGame-Bench, M = 10).
STAGNATION_LIMIT = 10
#: Probability that a spawned tile is a 4 rather than a 2.
FOUR_PROBABILITY = 0.1
DEFAULT_SIZE = 4
#: The ``scoring`` option: LMGame-Bench credits a merge with the new tile (two 2s: +4); the
#: modular-harness paper with the tiles that merged (two 2s: +2).
SCORING_LMGAME, SCORING_HARNESS = "lmgame", "harness"


# -- board mechanics (pure functions on tuples; shared with the bots) ------------------------------


@functools.lru_cache(maxsize=65536)
def slide_row_left(row: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """Slide one row to the left and merge equal neighbours once.

    Returns the new row and the merged sum it earned, e.g. ``(2, 2, 2, 2) -> ((4, 4, 0, 0), 8)``.
    Cached because bots evaluate the same rows many thousands of times.
    """
    tiles = [v for v in row if v]
    out: list[int] = []
    gain = 0
    i = 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            merged = tiles[i] * 2
            out.append(merged)
            gain += merged
            i += 2
        else:
            out.append(tiles[i])
            i += 1
    out.extend([0] * (len(row) - len(out)))
    return tuple(out), gain


def transpose(board: Board) -> Board:
    """Rows become columns."""
    return tuple(zip(*board, strict=True))


def move_board(board: Board, action: Action) -> tuple[Board, int]:
    """Apply a move to a board without spawning; returns the new board and the merged sum earned.

    Raises:
        InvalidActionError: ``action`` is not one of ``up``, ``down``, ``left``, ``right``.
    """
    if action == "left":
        rows = [slide_row_left(r) for r in board]
        return tuple(r for r, _ in rows), sum(g for _, g in rows)
    if action == "right":
        rows = [slide_row_left(r[::-1]) for r in board]
        return tuple(r[::-1] for r, _ in rows), sum(g for _, g in rows)
    if action == "up":
        moved, gain = move_board(transpose(board), "left")
        return transpose(moved), gain
    if action == "down":
        moved, gain = move_board(transpose(board), "right")
        return transpose(moved), gain
    raise InvalidActionError(f"{action!r} is not a 2048 move; moves are {', '.join(ACTIONS)}")


def empty_cells(board: Board) -> list[tuple[int, int]]:
    """Empty cells in reading order."""
    return [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v == 0]


@functools.lru_cache(maxsize=65536)
def can_move(board: Board) -> bool:
    """Whether at least one move changes the board (an empty cell or two equal neighbours).

    Cached: every look at whether the game is over asks it, several times a step.
    """
    n = len(board)
    for r in range(n):
        for c in range(n):
            v = board[r][c]
            if v == 0:
                return True
            if c + 1 < n and board[r][c + 1] == v:
                return True
            if r + 1 < n and board[r + 1][c] == v:
                return True
    return False


def place(board: Board, cell: tuple[int, int], value: int) -> Board:
    """A copy of ``board`` with ``value`` at ``cell``."""
    r, c = cell
    row = board[r]
    return board[:r] + (row[:c] + (value,) + row[c + 1 :],) + board[r + 1 :]


def spawn(board: Board, rng: random.Random) -> tuple[Board, tuple[int, int] | None]:
    """Put a 2 (p = 0.9) or a 4 (p = 0.1) in a random empty cell; ``None`` when the board is full."""
    cells = empty_cells(board)
    if not cells:
        return board, None
    cell = rng.choice(cells)
    value = 4 if rng.random() < FOUR_PROBABILITY else 2
    return place(board, cell, value), cell


def _rng(seed: int, tag: int | str) -> random.Random:
    # A string seed is hashed with SHA-512 by ``random.Random`` and is independent of PYTHONHASHSEED,
    # so the tiles are the same on every machine and every run.
    return random.Random(f"{seed}:{tag}")


# -- state -------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class State2048(State):
    """A 2048 position.

    Attributes:
        board: rows of tile values, 0 for an empty cell.
        merged_sum: the raw score, the sum of the values of all tiles created by merges.
        stagnant: consecutive turns without a board change.
        last_action: the move that led here, or ``None`` at the start.
        spawned: the cell of the tile spawned by the last move, or ``None``.
        seed: the seed every future tile spawn is derived from.
        step: moves played so far (including moves that changed nothing).
        halve: whether a merge earns the merged tiles' value (the ``harness`` scoring) rather than
            the new tile's.
    """

    game_id: ClassVar[str] = "2048"

    board: Board
    merged_sum: int = 0
    stagnant: int = 0
    last_action: Action | None = None
    spawned: tuple[int, int] | None = None
    seed: int = 0
    step: int = 0
    halve: bool = False

    @property
    def size(self) -> int:
        return len(self.board)

    @property
    def to_act(self) -> tuple[Seat, ...]:
        if self.stagnant >= STAGNATION_LIMIT or not can_move(self.board):
            return ()
        return (0,)

    @property
    def stalled(self) -> bool:
        """Whether the game ended by the stagnation rule rather than by a full, locked board."""
        return self.stagnant >= STAGNATION_LIMIT

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        if seat not in (None, 0) or self.is_over:
            return []
        return list(ACTIONS)

    def changes_board(self, action: Action) -> bool:
        """Whether ``action`` would move or merge at least one tile."""
        return move_board(self.board, action)[0] != self.board

    def annotate(self, action: Action, seat: Seat | None = None) -> str:
        if action in ACTIONS and not self.changes_board(action):
            return "this move does not change the board (a wasted turn)"
        return ""

    def outcomes(self, action: Action | Mapping[Seat, Action]) -> list[tuple[float, State]]:
        """Every tile spawn ``action`` can lead to: each empty cell, a 2 (p = 0.9) or a 4 (p = 0.1)."""
        played = self.apply(action)
        if played.spawned is None:
            return [(1.0, played)]  # the move changed nothing, so nothing spawned
        assert isinstance(played, State2048)
        moved, _ = move_board(self.board, played.last_action or "")
        cells = empty_cells(moved)
        results: list[tuple[float, State]] = []
        for cell in cells:
            for value, p in ((2, 1 - FOUR_PROBABILITY), (4, FOUR_PROBABILITY)):
                board = place(moved, cell, value)
                results.append((p / len(cells), dataclasses.replace(played, board=board, spawned=cell)))
        return results

    def apply(self, action: Action | Mapping[Seat, Action]) -> State2048:
        if isinstance(action, Mapping):
            if set(action) != {0}:
                raise IllegalActionError("2048 has one seat (0)")
            action = action[0]
        if action not in ACTIONS:
            raise InvalidActionError(f"{action!r} is not a 2048 move; moves are {', '.join(ACTIONS)}")
        if self.is_over:
            raise IllegalActionError(f"the game is over; {action!r} cannot be played")
        moved, gain = move_board(self.board, action)
        # Built directly rather than with ``dataclasses.replace``, which costs as much again.
        if moved == self.board:
            return type(self)(
                self.board, self.merged_sum, self.stagnant + 1, action, None, self.seed, self.step + 1,
                self.halve,
            )
        board, cell = spawn(moved, _rng(self.seed, self.step))
        if self.halve:
            gain //= 2
        return type(self)(
            board, self.merged_sum + gain, 0, action, cell, self.seed, self.step + 1, self.halve
        )

    @property
    def scores(self) -> tuple[float, ...]:
        return (self.merged_sum,)

    @property
    def max_tile(self) -> int:
        return _tallies(self.board)[0]

    @property
    def empty_count(self) -> int:
        """How many cells are empty."""
        return _tallies(self.board)[1]

    def metrics(self) -> dict[str, float]:
        return {
            "score_2048": score_2048(self.merged_sum),
            "merged_sum": self.merged_sum,
            "max_tile": self.max_tile,
            "empty": self.empty_count,
        }

    # -- text views --------------------------------------------------------------------------

    def grid_text(self, top: int | None = None) -> str:
        """The board as a right-aligned grid, ``.`` for empty cells (``top``: the largest tile, when
        the caller already knows it)."""
        width = max(4, len(str(self.max_tile if top is None else top)))
        return "\n".join([_row_text(row, width) for row in self.board])

    def text(self, seat: Seat | None = None) -> str:
        top = self.max_tile
        lines = [
            self.grid_text(top),
            "",
            f"Score (merged sum): {self.merged_sum}   Max tile: {top}   Empty cells: {self.empty_count}",
        ]
        if self.last_action is not None:
            moved = "moved the board" if self.stagnant == 0 else "did not change the board"
            lines.append(f"Last move: {self.last_action} ({moved})")
        if self.is_over:
            reason = (
                f"the board did not change for {STAGNATION_LIMIT} turns"
                if self.stalled
                else "no move is possible"
            )
            lines.append(f"Game over: {reason}.")
        elif self.stagnant:
            lines.append(f"Turns without a board change: {self.stagnant} of {STAGNATION_LIMIT}")
        return "\n".join(lines)

    def notice(self, seat: Seat | None = None) -> str:
        """The stagnation counter while it runs: a move that changes nothing still counts as a step."""
        if self.stalled:
            return f"Game over: no tile moved for {STAGNATION_LIMIT} moves in a row"
        if self.stagnant and not self.is_over:
            limit = STAGNATION_LIMIT
            return f"No tile moved ({self.stagnant} of {limit}): {limit} in a row end the game"
        return ""

    def text_table(self, seat: Seat | None = None) -> str:
        """The perception module's coordinate table: one line per tile, then the empty cells.

        Example line: ``Tile 8 at (row 0, col 2)``. Rows and columns count from 0 at the top left.
        """
        lines = [
            f"Tile {v} at (row {r}, col {c})"
            for r, row in enumerate(self.board)
            for c, v in enumerate(row)
            if v
        ]
        empties = empty_cells(self.board)
        if empties:
            lines.append("Empty cells: " + ", ".join(f"(row {r}, col {c})" for r, c in empties))
        else:
            lines.append("Empty cells: none")
        return "\n".join(lines)

    def to_json(self) -> JsonDict:
        return {
            "game": self.game_id,
            "board": [list(row) for row in self.board],
            "merged_sum": self.merged_sum,
            "stagnant": self.stagnant,
            "last_action": self.last_action,
            "spawned": list(self.spawned) if self.spawned is not None else None,
            "seed": self.seed,
            "step": self.step,
            "scoring": SCORING_HARNESS if self.halve else SCORING_LMGAME,
        }


@functools.lru_cache(maxsize=1024)
def _tallies(board: Board) -> tuple[int, int]:
    """The largest tile and the number of empty cells (cached: the text view, the metrics and the
    renderer all ask for them about the same board)."""
    return max(map(max, board)), sum(row.count(0) for row in board)


@functools.lru_cache(maxsize=65536)
def _row_text(row: tuple[int, ...], width: int) -> str:
    """One row of :meth:`State2048.grid_text` (cached: the same rows come back all game long)."""
    return " ".join(f"{v if v else '.':>{width}}" for v in row)


def score_2048(merged_sum: float) -> float:
    """LMGame-Bench's reported score: ``10 * log2(merged_sum)``, 0 when nothing was merged."""
    return 10.0 * math.log2(merged_sum) if merged_sum > 0 else 0.0


# -- game --------------------------------------------------------------------------------------

_RULES = """\
2048 is played on a {n}x{n} grid of numbered tiles.
Each turn you choose one move: up, down, left or right. All tiles slide as far as possible in that
direction. Two tiles with the same number that collide merge into one tile with their sum; a tile
merges at most once per move. Example: a row [2, 2, 2, 2] moved left becomes [4, 4, 0, 0].
After every move that changes the board, a new tile appears in a random empty cell: a 2 (90%) or a 4 (10%).
{credit}
The game ends when no move can change the board, or when the board has not changed for {m}
consecutive turns. A move that changes nothing wastes a turn.
Answer with exactly one of: up, down, left, right."""


class Game2048(Game):
    """2048 (LMGame-Bench). Options ``size`` (the board's side length, default 4) and ``scoring``."""

    id: ClassVar[str] = "2048"
    title: ClassVar[str] = "2048"
    suites: ClassVar[tuple[str, ...]] = ("lmgame",)
    description: ClassVar[str] = "Slide and merge numbered tiles; the score is the sum of all merges."
    seats = seats_of(["Player"])
    chance: ClassVar[bool] = True
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option("size", int, DEFAULT_SIZE, "Side length of the square board", minimum=2, maximum=8),
        Option(
            "scoring",
            str,
            SCORING_LMGAME,
            "What a merge earns: lmgame (the new tile's value: two 2s give +4, LMGame-Bench) or harness "
            "(the merged tiles' value: two 2s give +2, the modular-harness paper)",
            choices=(SCORING_LMGAME, SCORING_HARNESS),
        ),
    )
    #: Every action of the game in a fixed order (the Gymnasium adapter's discrete action space).
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    keymap: ClassVar[Mapping[str, Action]] = ARROW_KEYS
    controls: ClassVar[str] = "Arrows or W A S D slide the tiles (the board must have focus)"
    bots: ClassVar[Mapping[str, str]] = {"expectimax": ".bots:ExpectimaxBot", "greedy": ".bots:GreedyBot"}
    default_opponent: ClassVar[str] = "expectimax"
    sim_behaviour: ClassVar[str | None] = ".sim:Sim2048"
    extractor: ClassVar[str | None] = ".answers:extract_move"
    observation: ClassVar[str | None] = ".gym:BoardObservation"
    #: LMGame-Bench reports 10 × log2 of the merged sum (Table 1); its progress score is the largest tile.
    raw_score: ClassVar[str | None] = "score_2048"
    progress_score: ClassVar[str | None] = "max_tile"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.size: int = self.options["size"]
        self.halve: bool = self.options["scoring"] == SCORING_HARNESS

    def initial_state(self, seed: int | None = None) -> State2048:
        if seed is None:
            # An unseeded game still carries a concrete seed, so its future is reproducible from the state.
            seed = random.SystemRandom().randrange(2**31)
        if not _is_int(seed):
            raise ValueError(f"a 2048 seed is an integer, not {seed!r}")
        board: Board = tuple((0,) * self.size for _ in range(self.size))
        rng = _rng(seed, "start")
        board, _ = spawn(board, rng)
        board, _ = spawn(board, rng)
        return State2048(board=board, seed=seed, halve=self.halve)

    def transition(self, before: State, after: State) -> Transition:
        assert isinstance(before, State2048) and isinstance(after, State2048)
        # A wasted move still changes ``step`` and ``stagnant``; what matters to people is the board.
        return Transition(
            rewards=(after.merged_sum - before.merged_sum,), changed=before.board != after.board
        )

    def rules_text(self) -> str:
        credit = (
            "Your score is the sum of the values of the tiles that merge, once per merge "
            "(merging two 2s gives +2)."
            if self.halve
            else "Your score is the sum of the values of all tiles created by merges "
            "(merging two 2s gives +4)."
        )
        return _RULES.format(n=self.size, m=STAGNATION_LIMIT, credit=credit)

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Find the move in free text: ``"Left"``, ``"move: UP."``, ``"I will go down"``.

        Raises:
            InvalidActionError: no direction, or several different directions, are named.
            IllegalActionError: the game is over.
        """
        return direction_in(text, state)

    def state_from_json(self, data: JsonDict) -> State2048:
        with reading_state(data, "2048", "2048"):
            rows = data["board"]
            if not isinstance(rows, list) or len(rows) != self.size:
                raise ValueError(f"board must have {self.size} rows")
            board: list[tuple[int, ...]] = []
            for row in rows:
                if not isinstance(row, list) or len(row) != self.size:
                    raise ValueError(f"every board row must have {self.size} cells")
                for v in row:
                    if not _is_int(v) or v < 0 or (v and (v < 2 or v & (v - 1))):
                        raise ValueError(f"{v!r} is not a 2048 tile")
                board.append(tuple(row))
            merged_sum = _non_negative_int(data, "merged_sum")
            stagnant = _non_negative_int(data, "stagnant")
            step = _non_negative_int(data, "step")
            seed = data["seed"]
            if not _is_int(seed):
                raise ValueError("seed must be an integer")
            last_action = data.get("last_action")
            if last_action is not None and last_action not in ACTIONS:
                raise ValueError(f"{last_action!r} is not a 2048 move")
            spawned_raw = data.get("spawned")
            spawned: tuple[int, int] | None = None
            if spawned_raw is not None:
                if (
                    not isinstance(spawned_raw, list | tuple)
                    or len(spawned_raw) != 2
                    or not all(_is_int(x) and 0 <= x < self.size for x in spawned_raw)
                ):
                    raise ValueError("spawned must be a [row, col] cell or null")
                spawned = (spawned_raw[0], spawned_raw[1])
            scoring = data.get("scoring", SCORING_LMGAME)
            if scoring not in (SCORING_LMGAME, SCORING_HARNESS):
                raise ValueError(f"scoring must be {SCORING_LMGAME} or {SCORING_HARNESS}, not {scoring!r}")
        return State2048(
            board=tuple(board),
            merged_sum=merged_sum,
            stagnant=stagnant,
            last_action=last_action,
            spawned=spawned,
            seed=seed,
            step=step,
            halve=scoring == SCORING_HARNESS,
        )


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _non_negative_int(data: Mapping[str, Any], key: str) -> int:
    v = data[key]
    if not _is_int(v) or v < 0:
        raise ValueError(f"{key} must be a non-negative integer")
    return int(v)
