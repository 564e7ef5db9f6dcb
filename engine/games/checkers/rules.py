"""Checkers (English draughts), as GameBot plays it.

The board is 8x8 with coordinates ``(row, col)`` counted from 0; pieces stand on the dark squares
only: odd columns on even rows, even columns on odd rows. White (seat 0) starts on rows 0-2 and moves
first, as GameBot's reference code has it (standard English draughts lets the dark side start; the
position is symmetric, so only the colours' names differ). Black (seat 1) starts on rows 5-7. Men
move one square diagonally forward (White down the board, towards row 7; Black up, towards row 0);
kings move one square diagonally either way. Captures are mandatory and a capture continues while the
same piece can jump again: a whole multi-jump is ONE action written with its full path,
``"(2,1)->(4,3)->(6,5)"``; a simple move is ``"(2,1)->(3,2)"``. A man reaching the far row is crowned
and its move ends there (the English rule). A seat with no legal move loses.

Draws follow the option ``draw_rule``:

``paper`` (default)
    GameBot's prompt: 40 moves (20 per player) without a capture, or the same position (board and
    side to move) for the third time.
``reference``
    GameBot's code: 20 consecutive moves without a capture in total, no repetition check.
``none``
    No draw: play goes on until a seat cannot move.

Every state records its counters (:attr:`CheckersState.quiet`, the moves since the last capture, and
:attr:`CheckersState.seen`, the positions since the last irreversible move), so it can be saved,
restored and judged on its own.
"""

from __future__ import annotations

import dataclasses
import re
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
    seats_of,
)
from engine.games._common import one_action, reading_state
from engine.options import Option

__all__ = [
    "BLACK",
    "DARK_SQUARES",
    "DIAGONAL_STEPS",
    "DRAW_RULES",
    "EMPTY",
    "INITIAL_BOARD",
    "KINGS",
    "MEN",
    "MOVE_RE",
    "PROMOTION_ROW",
    "SEAT_NAMES",
    "WHITE",
    "Checkers",
    "CheckersState",
    "Move",
    "action_name",
    "apply_move",
    "board_from_pieces",
    "captures_exist",
    "is_dark",
    "legal_moves",
    "parse_path",
    "parse_paths",
    "perft",
    "position",
    "square_name",
    "write_path",
]

WHITE, BLACK = 0, 1
SEAT_NAMES: tuple[str, str] = ("White", "Black")
EMPTY = "_"
MEN: tuple[str, str] = ("w", "b")
KINGS: tuple[str, str] = ("W", "B")
#: The row where each seat's men are crowned: White → row 7, Black → row 0.
PROMOTION_ROW: tuple[int, int] = (7, 0)
DRAW_RULES: tuple[str, ...] = ("paper", "reference", "none")
#: Non-capture moves in a row that draw the game, per draw rule (``None``: never).
QUIET_LIMIT: Mapping[str, int | None] = {"paper": 40, "reference": 20, "none": None}
#: The most legal actions a reachable position is expected to have (PettingZoo's action space).
ACTION_BOUND = 64

#: A move: the squares visited (indices ``8 * row + col``) and the squares of the pieces it captures.
Move = tuple[tuple[int, ...], tuple[int, ...]]


def is_dark(row: int, col: int) -> bool:
    """Whether ``(row, col)`` is a playing square (odd columns on even rows, even columns on odd rows)."""
    return (row + col) % 2 == 1


def _start_board() -> str:
    cells = []
    for r in range(8):
        for c in range(8):
            if not is_dark(r, c):
                cells.append(EMPTY)
            elif r <= 2:
                cells.append("w")
            elif r >= 5:
                cells.append("b")
            else:
                cells.append(EMPTY)
    return "".join(cells)


#: The start position: 64 characters, row-major, ``_`` empty, ``w``/``b`` men, ``W``/``B`` kings.
INITIAL_BOARD = _start_board()

_DIAGONALS = ((1, -1), (1, 1), (-1, -1), (-1, 1))
#: Per square and diagonal: (the neighbour, the square beyond it), ``-1`` when off the board.
_STEPS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(
        (
            (r + dr) * 8 + c + dc if 0 <= r + dr < 8 and 0 <= c + dc < 8 else -1,
            (r + 2 * dr) * 8 + c + 2 * dc if 0 <= r + 2 * dr < 8 and 0 <= c + 2 * dc < 8 else -1,
        )
        for dr, dc in _DIAGONALS
    )
    for r in range(8)
    for c in range(8)
)
#: Public name: per square, the (neighbour, beyond) pair along each diagonal (down-left, down-right,
#: up-left, up-right), ``-1`` off the board.
DIAGONAL_STEPS = _STEPS
#: Which diagonals (indices into ``_DIAGONALS``) each kind of piece may use.
_DIRECTIONS: Mapping[str, tuple[int, ...]] = {"w": (0, 1), "b": (2, 3), "W": (0, 1, 2, 3), "B": (0, 1, 2, 3)}
_OWNER: Mapping[str, int] = {"w": WHITE, "W": WHITE, "b": BLACK, "B": BLACK}
_NAMES = tuple(f"({i // 8},{i % 8})" for i in range(64))
_OWN: tuple[frozenset[str], frozenset[str]] = (frozenset("wW"), frozenset("bB"))
_OPPONENT: tuple[frozenset[str], frozenset[str]] = (_OWN[1], _OWN[0])


def square_name(index: int) -> str:
    """``"(r,c)"`` for a square index ``8 * r + c``."""
    return _NAMES[index]


def write_path(path: Sequence[int] | Sequence[tuple[int, int]]) -> Action:
    """The canonical action for a path of squares: ``"(2,1)->(3,2)"``, or with every hop of a
    multi-jump, ``"(5,0)->(3,2)->(1,4)"``. Squares are indices or ``(row, col)`` pairs."""
    names = [_NAMES[p] if isinstance(p, int) else f"({p[0]},{p[1]})" for p in path]
    return "->".join(names)


_SQUARE = r"\(\s*(\d)\s*,\s*(\d)\s*\)"
#: A move as written by people and models: ``->`` (GameBot's form), ``→``, ``-->`` or ``to`` between squares.
_PATH = re.compile(_SQUARE + r"(?:\s*(?:-+>|→|\bto\b)\s*" + _SQUARE + r")+", re.IGNORECASE)
_SQUARE_RE = re.compile(_SQUARE)
#: A written move (public name of the pattern): two or more squares joined by arrows.
MOVE_RE = _PATH


def parse_path(text: str) -> tuple[tuple[int, int], ...] | None:
    """The squares of the first move written in ``text`` (``"(2, 1) -> (3, 2)"``), or ``None``."""
    match = _PATH.search(text)
    if match is None:
        return None
    return tuple((int(m.group(1)), int(m.group(2))) for m in _SQUARE_RE.finditer(match.group(0)))


def parse_paths(text: str | None) -> set[str] | None:
    """A set answer of moves: ``"(2,1)->(3,2), (5,0)->(3,2)->(1,4)"`` → canonical actions; ``"None"``
    → empty; ``None`` (a format error) when the text is neither."""
    if text is None:
        return None
    cleaned = text.strip().strip(".*`'\"[]").strip()
    if not cleaned:
        return None
    found = {
        write_path(tuple((int(s.group(1)), int(s.group(2))) for s in _SQUARE_RE.finditer(m.group(0))))
        for m in _PATH.finditer(cleaned)
    }
    if found:
        return found
    if re.fullmatch(r"(none|no(ne)?(\s+such)?\s*moves?|empty|nothing|-)\.?", cleaned.lower()):
        return set()
    return None


def board_from_pieces(pieces: Mapping[tuple[int, int], str]) -> str:
    """A 64-character board from ``{(row, col): piece}`` (``"w"``, ``"W"``, ``"b"``, ``"B"``).

    Raises:
        ValueError: a piece is not one of the four letters or stands on a light square.
    """
    cells = [EMPTY] * 64
    for (r, c), piece in pieces.items():
        if piece not in _OWNER:
            raise ValueError(f"{piece!r} at ({r},{c}) is not a piece; use w, W, b or B")
        if not (0 <= r < 8 and 0 <= c < 8) or not is_dark(r, c):
            raise ValueError(f"({r},{c}) is not a dark square of the board")
        cells[r * 8 + c] = piece
    return "".join(cells)


#: Per piece letter and square: the (neighbour, beyond) pairs of the diagonals it may use.
_REACH: Mapping[str, tuple[tuple[tuple[int, int], ...], ...]] = {
    piece: tuple(tuple(_STEPS[square][d] for d in dirs if _STEPS[square][d][0] >= 0) for square in range(64))
    for piece, dirs in _DIRECTIONS.items()
}
#: Action names of one-step moves, by (from, to).
_STEP_NAMES: Mapping[tuple[int, int], str] = {
    (a, b): f"{_NAMES[a]}->{_NAMES[b]}" for a in range(64) for pair in _STEPS[a] for b in pair if b >= 0
}
#: The playing squares (indices), for scans that skip the light ones.
DARK_SQUARES: tuple[int, ...] = tuple(i for i in range(64) if is_dark(i // 8, i % 8))


def action_name(path: Sequence[int]) -> Action:
    """:func:`write_path` for square indices, quicker for the common one-step move."""
    if len(path) == 2:
        return _STEP_NAMES[path[0], path[1]]
    return "->".join([_NAMES[p] for p in path])


def _jumps(
    board: str,
    origin: int,
    square: int,
    piece: str,
    opponent: frozenset[str],
    path: tuple[int, ...],
    captured: tuple[int, ...],
    out: list[Move],
) -> None:
    """Every complete capture sequence of ``piece`` from ``square`` (depth-first)."""
    extended = False
    promotion = PROMOTION_ROW[_OWNER[piece]] if piece in MEN else -1
    for mid, land in _REACH[piece][square]:
        if land < 0 or board[mid] not in opponent or mid in captured:
            continue
        if board[land] != EMPTY and land != origin:
            continue
        extended = True
        if land // 8 == promotion:
            # A man crowned during a capture stops there: promotion ends the move.
            out.append(((*path, land), (*captured, mid)))
        else:
            _jumps(board, origin, land, piece, opponent, (*path, land), (*captured, mid), out)
    if not extended and captured:
        out.append((path, captured))


def legal_moves(board: str, color: int) -> list[Move]:
    """All legal moves of ``color`` on ``board``: its captures if it has any (captures are
    mandatory), else its simple moves; in board order (by origin square, then direction)."""
    opponent = _OPPONENT[color]
    own = _OWN[color]
    squares = [i for i in DARK_SQUARES if board[i] in own]
    captures: list[Move] = []
    for square in squares:
        piece = board[square]
        for mid, land in _REACH[piece][square]:
            if land >= 0 and board[mid] in opponent and board[land] == EMPTY:
                _jumps(board, square, square, piece, opponent, (square,), (), captures)
                break
    if captures:
        return captures
    simple: list[Move] = []
    for square in squares:
        for step, _ in _REACH[board[square]][square]:
            if board[step] == EMPTY:
                simple.append(((square, step), ()))
    return simple


def captures_exist(board: str, color: int) -> bool:
    """Whether ``color`` has a capture on ``board`` (then every legal move of it is a capture)."""
    opponent = (MEN[1 - color], KINGS[1 - color])
    for square in range(64):
        piece = board[square]
        if piece in _DIRECTIONS and _OWNER[piece] == color:
            for d in _DIRECTIONS[piece]:
                mid, land = _STEPS[square][d]
                if land >= 0 and board[mid] in opponent and board[land] == EMPTY:
                    return True
    return False


def apply_move(board: str, move: Move) -> str:
    """``board`` after ``move`` (captured pieces removed, a man on its promotion row crowned)."""
    path, captured = move
    cells = list(board)
    piece = cells[path[0]]
    cells[path[0]] = EMPTY
    for square in captured:
        cells[square] = EMPTY
    end = path[-1]
    if piece in MEN and end // 8 == PROMOTION_ROW[_OWNER[piece]]:
        piece = piece.upper()
    cells[end] = piece
    return "".join(cells)


def perft(board: str, color: int, depth: int) -> int:
    """The number of move sequences of ``depth`` plies from ``board`` with ``color`` to move (a whole
    multi-jump is one ply); the standard check of a move generator."""
    if depth == 0:
        return 1
    moves = legal_moves(board, color)
    if depth == 1:
        return len(moves)
    return sum(perft(apply_move(board, m), 1 - color, depth - 1) for m in moves)


@dataclasses.dataclass(frozen=True, slots=True)
class CheckersState(State):
    """A checkers position.

    Attributes:
        board: 64 characters, row-major (index ``8 * row + col``): ``_`` empty, ``w`` / ``b`` men,
            ``W`` / ``B`` kings.
        mover: The seat to move: 0 White, 1 Black.
        plies: Moves played since the start.
        quiet: Moves in a row (both seats counted) without a capture.
        seen: The positions (board plus side to move) since the last capture or man move, the current
            one last; only kings' moves are reversible, so nothing earlier can recur.
        draw_rule: ``"paper"``, ``"reference"`` or ``"none"`` (see the module's documentation).
        last_move: The action that led here, or ``None`` at the start.
    """

    game_id: ClassVar[str] = "checkers"

    board: str = INITIAL_BOARD
    mover: Seat = WHITE
    plies: int = 0
    quiet: int = 0
    seen: tuple[str, ...] = (INITIAL_BOARD + "0",)
    draw_rule: str = "paper"
    last_move: Action | None = None
    _table: dict[Action, Move] | None = dataclasses.field(default=None, compare=False, repr=False)

    # -- rules ------------------------------------------------------------------------------------

    def moves(self) -> dict[Action, Move]:
        """The mover's legal moves by action (computed once per state), ignoring draws."""
        table = self._table
        if table is None:
            names = _STEP_NAMES
            table = {
                names[m[0]] if len(m[0]) == 2 else action_name(m[0]): m
                for m in legal_moves(self.board, self.mover)
            }
            object.__setattr__(self, "_table", table)
        return table

    @property
    def step(self) -> int:
        return self.plies

    @property
    def repetitions(self) -> int:
        """How many times the current position has occurred (since the last irreversible move)."""
        return self.seen.count(self.seen[-1]) if self.seen else 1

    @property
    def drawn(self) -> bool:
        """Whether the draw rule ends the game here (the mover still having a move)."""
        limit = QUIET_LIMIT.get(self.draw_rule)
        if limit is not None and self.quiet >= limit:
            return True
        return self.draw_rule == "paper" and self.repetitions >= 3

    @property
    def to_act(self) -> tuple[Seat, ...]:
        if not self.moves() or self.drawn:
            return ()
        return (self.mover,)

    @property
    def winner(self) -> Seat | None:
        return 1 - self.mover if not self.moves() else None

    @property
    def scores(self) -> tuple[float, ...]:
        if self.moves():
            return (0.5, 0.5) if self.drawn else (0.0, 0.0)
        return (1.0, 0.0) if self.mover == BLACK else (0.0, 1.0)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        if (seat is not None and seat != self.mover) or not self.to_act:
            return []
        return list(self.moves())

    def resolve(self, text: str) -> tuple[Action | None, str]:
        """The legal action a written move means, and why when it is not written in full: a
        multi-jump given by its first hop only, or by its first and last squares, is accepted when
        exactly one legal action fits. ``(None, reason)`` when none or several do."""
        path = parse_path(text)
        if path is None:
            return None, f"{text!r} is not a move; write (row,col)->(row,col)"
        action = write_path(path)
        legal = self.legal_actions()
        if action in legal:
            return action, ""
        if len(path) == 2:
            starts = [a for a in legal if a.startswith(action + "->")]
            if len(starts) == 1:
                return starts[0], f"{action} is the first hop of the only multi-jump starting so, {starts[0]}"
            ends = [
                a
                for a in legal
                if a.startswith(action.split("->")[0] + "->") and a.endswith("->" + action.split("->")[1])
            ]
            if len(ends) == 1:
                return ends[0], f"{action} gives the first and last squares of the multi-jump {ends[0]}"
            if len(starts) > 1:
                return None, f"{action} starts several multi-jumps ({', '.join(starts)}); give the full path"
        return None, f"{action} is not a legal move here"

    def apply(self, action: Action | Mapping[Seat, Action]) -> CheckersState:
        if isinstance(action, Mapping):
            action = one_action(action, "checkers", () if self.is_over else (self.mover,))
        if not isinstance(action, str):
            raise InvalidActionError(f"{action!r} is not a move")
        move = self.moves().get(action)
        if move is None:
            if self.is_over:
                raise IllegalActionError(f"the game is over; {action!r} cannot be played")
            path = parse_path(action)
            if path is None:
                raise InvalidActionError(f"{action!r} is not a move; write (row,col)->(row,col)")
            move = self.moves().get(write_path(path))
            if move is None:
                _, why = self.resolve(action)
                raise IllegalActionError(why or f"{action!r} is not a legal move here")
        elif self.drawn:
            raise IllegalActionError(f"the game is over (drawn); {action!r} cannot be played")
        return self._after(move)

    def _after(self, move: Move) -> CheckersState:
        board = apply_move(self.board, move)
        mover = 1 - self.mover
        key = board + str(mover)
        irreversible = bool(move[1]) or self.board[move[0][0]] in MEN
        return CheckersState(
            board=board,
            mover=mover,
            plies=self.plies + 1,
            quiet=0 if move[1] else self.quiet + 1,
            seen=(key,) if irreversible else (*self.seen, key),
            draw_rule=self.draw_rule,
            last_move=action_name(move[0]),
        )

    # -- reading the board ------------------------------------------------------------------------

    def piece(self, row: int, col: int) -> str:
        """The letter at ``(row, col)``: ``_``, ``w``, ``W``, ``b`` or ``B``."""
        return self.board[row * 8 + col]

    def squares(self, letter: str) -> list[str]:
        """The squares holding ``letter``, in reading order."""
        return [_NAMES[i] for i, p in enumerate(self.board) if p == letter]

    def count(self, seat: Seat) -> tuple[int, int]:
        """(men, kings) of ``seat``."""
        return self.board.count(MEN[seat]), self.board.count(KINGS[seat])

    # -- text views -------------------------------------------------------------------------------

    def matrix_text(self) -> str:
        """The board as a matrix with row and column numbers: ``_ b B w W``."""
        lines = ["   " + " ".join(str(c) for c in range(8))]
        for r in range(8):
            lines.append(f"{r}  " + " ".join(self.board[r * 8 : r * 8 + 8]))
        return "\n".join(lines)

    def draw_text(self) -> str:
        """The draw rule in force and how close it is."""
        if self.draw_rule == "none":
            return "Draw rule: none (play continues until a player cannot move)."
        limit = QUIET_LIMIT[self.draw_rule]
        text = f"Moves without a capture: {self.quiet} of {limit}"
        if self.draw_rule == "paper":
            text += f"; this position has occurred {self.repetitions} time(s) (3 draws)"
        return text + "."

    def status_text(self) -> str:
        if self.winner is not None:
            return f"{SEAT_NAMES[self.winner]} wins: {SEAT_NAMES[1 - self.winner]} cannot move."
        if self.is_over:
            return "Draw."
        return f"{SEAT_NAMES[self.mover]} to move."

    def text(self, seat: Seat | None = None) -> str:
        lines = ["Current Game Board:", self.matrix_text(), ""]
        for side in (WHITE, BLACK):
            men, kings = self.squares(MEN[side]), self.squares(KINGS[side])
            lines.append(
                f"{SEAT_NAMES[side]} men ({MEN[side]}): {', '.join(men) or 'none'}; "
                f"{SEAT_NAMES[side]} kings ({KINGS[side]}): {', '.join(kings) or 'none'}"
            )
        lines.append(self.draw_text())
        if self.last_move:
            lines.append(f"Last move: {self.last_move} by {SEAT_NAMES[1 - self.mover]}.")
        if not self.is_over:
            moves = ", ".join(self.legal_actions())
            lines.append(f"Current valid moves for player {SEAT_NAMES[self.mover]}: {moves}")
        if seat is not None and not self.is_over:
            lines.append(f"You are player {SEAT_NAMES[seat]}.")
        lines.append(self.status_text())
        return "\n".join(lines)

    def notice(self, seat: Seat | None = None) -> str:
        if self.is_over:
            return ""
        if captures_exist(self.board, self.mover):
            return f"{SEAT_NAMES[self.mover]} must capture."
        limit = QUIET_LIMIT.get(self.draw_rule)
        if limit is not None and limit - self.quiet <= 6:
            return f"{limit - self.quiet} more moves without a capture draw the game."
        return ""

    def to_json(self) -> JsonDict:
        return {
            "game": self.game_id,
            "board": [self.board[r * 8 : r * 8 + 8] for r in range(8)],
            "mover": self.mover,
            "plies": self.plies,
            "quiet": self.quiet,
            "seen": list(self.seen),
            "draw_rule": self.draw_rule,
            "last_move": self.last_move,
        }

    def metrics(self) -> dict[str, float]:
        wm, wk = self.count(WHITE)
        bm, bk = self.count(BLACK)
        return {
            "white_pieces": float(wm + wk),
            "black_pieces": float(bm + bk),
            "white_kings": float(wk),
            "black_kings": float(bk),
        }


def position(
    pieces: Mapping[tuple[int, int], str], mover: Seat = WHITE, *, draw_rule: str = "paper"
) -> CheckersState:
    """A state with ``pieces`` on the board and ``mover`` to move (for tests and examples)."""
    board = board_from_pieces(pieces)
    return CheckersState(board=board, mover=mover, seen=(board + str(mover),), draw_rule=draw_rule)


_RULES = """\
Checkers (English draughts) on an 8x8 board. Rows and columns are numbered 0-7 and a square is written
(row,col). Pieces stand on the dark squares only: odd columns on even rows, even columns on odd rows.
White starts on rows 0-2 and moves first; Black starts on rows 5-7.
Men move one square diagonally forward (White towards row 7, Black towards row 0); kings move one square
diagonally in any direction. A piece captures by jumping over an adjacent opponent piece to the empty
square beyond. Captures are mandatory; if several exist you choose, and a piece that can jump again must
continue: the whole multi-jump is one move, written with every square it lands on, e.g. (5,0)->(3,2)->(1,4).
A man reaching the far row (row 7 for White, row 0 for Black) becomes a king, and its move ends there.
A player who cannot move loses. {draw}
Answer with one legal move, e.g. (2,1)->(3,2)."""

_DRAW_WORDS = {
    "paper": "The game is drawn after 40 moves (20 per player) without a capture, or when the same position "
    "occurs for the third time.",
    "reference": "The game is drawn after 20 moves in a row (both players counted) without a capture.",
    "none": "There is no draw rule.",
}


class Checkers(Game):
    """Checkers / English draughts (GameBot). Option ``draw_rule``: ``paper``, ``reference`` or ``none``."""

    id: ClassVar[str] = "checkers"
    title: ClassVar[str] = "Checkers"
    suites: ClassVar[tuple[str, ...]] = ("gamebot",)
    description: ClassVar[str] = (
        "English draughts on the dark squares; captures are mandatory, multi-jumps are one move; "
        "White (rows 0-2) moves first, as in GameBot's code."
    )
    seats = seats_of(list(SEAT_NAMES))
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option(
            "draw_rule",
            str,
            "paper",
            "paper: 40 moves without a capture or threefold repetition; reference: 20 moves without "
            "a capture (GameBot's code); none: no draw",
            choices=DRAW_RULES,
        ),
    )
    action_bound: int | None = ACTION_BOUND
    controls: ClassVar[str] = "Click a piece, then each square it lands on"
    bots: ClassVar[Mapping[str, str]] = {"alphabeta": ".bots:CheckersBot"}
    default_opponent: ClassVar[str] = "alphabeta"
    sim_behaviour: ClassVar[str | None] = ".sim:CheckersSim"
    questions: ClassVar[str | None] = ".questions:QUESTIONS"
    extractor: ClassVar[str | None] = ".answers:extract_move"
    default_prompt: ClassVar[str] = "cot"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.draw_rule: str = self.options["draw_rule"]

    def initial_state(self, seed: int | None = None) -> CheckersState:
        return CheckersState(draw_rule=self.draw_rule)

    def rules_text(self) -> str:
        return _RULES.format(draw=_DRAW_WORDS[self.draw_rule])

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read a move from ``"(2,1)->(3,2)"`` (spaces forgiven) or ``"Chosen Move: (2, 1) -> (3, 2)"``;
        the move after the last "Chosen Move" wins. A multi-jump given by its first hop only (or its
        first and last squares) is accepted when exactly one legal action fits.

        Raises:
            InvalidActionError: the text names no move.
            IllegalActionError: the move is not legal, ambiguous, or ``seat`` is not to move.
        """
        if not isinstance(state, CheckersState):
            raise InvalidActionError("not a checkers state")
        lowered = text.lower()
        marker = lowered.rfind("chosen move")
        if marker >= 0 and parse_path(lowered[marker:]) is not None:
            lowered = lowered[marker:]
        if parse_path(lowered) is None:
            raise InvalidActionError(f"{text!r} names no move; write (row,col)->(row,col), e.g. (2,1)->(3,2)")
        if state.is_over:
            raise IllegalActionError(f"the game is over; {text!r} cannot be played")
        if seat is not None and seat != state.mover:
            raise IllegalActionError(f"seat {seat} is not to move")
        action, why = state.resolve(lowered)
        if action is None:
            raise IllegalActionError(why)
        return action

    def state_from_json(self, data: JsonDict) -> CheckersState:
        with reading_state(data, "checkers", "checkers"):
            rows = data["board"]
            if (
                not isinstance(rows, list)
                or len(rows) != 8
                or not all(isinstance(r, str) and len(r) == 8 for r in rows)
            ):
                raise ValueError("board must be 8 strings of 8 characters")
            board = "".join(rows)
            for i, ch in enumerate(board):
                if ch != EMPTY and (ch not in _OWNER or not is_dark(i // 8, i % 8)):
                    raise ValueError(f"{ch!r} at {_NAMES[i]} is not a piece on a dark square")
            mover = data["mover"]
            if mover not in (WHITE, BLACK) or isinstance(mover, bool):
                raise ValueError("mover must be 0 (White) or 1 (Black)")
            plies, quiet = data.get("plies", 0), data.get("quiet", 0)
            if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (plies, quiet)):
                raise ValueError("plies and quiet must be counts")
            seen = data.get("seen") or [board + str(mover)]
            if not isinstance(seen, list) or not all(isinstance(s, str) and len(s) == 65 for s in seen):
                raise ValueError("seen must be a list of positions")
            if seen[-1] != board + str(mover):
                raise ValueError("the last position seen is not the board")
            draw_rule = data.get("draw_rule", "paper")
            if draw_rule not in DRAW_RULES:
                raise ValueError(f"draw_rule must be one of {', '.join(DRAW_RULES)}")
            last = data.get("last_move")
            if last is not None and (not isinstance(last, str) or parse_path(last) is None):
                raise ValueError(f"last_move {last!r} is not a move")
        return CheckersState(
            board=board,
            mover=mover,
            plies=plies,
            quiet=quiet,
            seen=tuple(seen),
            draw_rule=draw_rule,
            last_move=last,
        )
