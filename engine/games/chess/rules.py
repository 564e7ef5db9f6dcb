"""Chess, as LVLM-Playground plays it, on python-chess.

python-chess (a maintained, perft-tested rules library) generates the moves, writes and reads SAN
and judges checks; this module wraps it in PlayTrace's immutable state contract. The board is 8x8
with files a-h from left to right and ranks 1-8 from bottom to top (a1 bottom-left, h8 top-right).
White (seat 0) moves first from the standard initial position (the option ``fen`` starts elsewhere).

Actions are SAN as python-chess writes it (``"e4"``, ``"Nf3"``, ``"exd5"``, ``"O-O"``, ``"e8=Q+"``,
``"Qxf7#"``): that is what the paper's prompts use. :meth:`Chess.parse_action` and
:meth:`ChessState.apply` also accept SAN without the check mark, UCI (``"e2e4"``, ``"e7e8q"``),
``"e2-e4"``, ``"0-0"`` and the board's click path ``"e2->e4"``, and normalise them to the canonical
SAN.

The game ends, as in LVLM-Playground's reference code, by checkmate, or in a draw by stalemate,
insufficient material, the third occurrence of a position (no claim is needed) or a halfmove clock of
100 (fifty moves by each side without a capture or a pawn move).

A state keeps its position as a python-chess board that is copied, never changed, once the state is
built (``apply`` copies it without its move stack and plays one move), the moves played since the
start as UCI (for JSON, PGN and repetition) and the keys of the positions since the last capture or
pawn move (for the threefold rule).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import chess

from engine.core import (
    Action,
    Game,
    IllegalActionError,
    InvalidActionError,
    JsonDict,
    Seat,
    State,
    StateFormatError,
    seats_of,
)
from engine.games._common import reading_state
from engine.options import Option, OptionError

__all__ = [
    "ACTION_BOUND",
    "BLACK",
    "CAPTURE_VALUES",
    "PIECE_NAMES",
    "SEAT_NAMES",
    "WHITE",
    "Chess",
    "ChessState",
    "lvlm_points",
    "perft",
    "position",
    "strip_san",
]

WHITE, BLACK = 0, 1
SEAT_NAMES: tuple[str, str] = ("White", "Black")
#: The most legal moves any chess position has (a known composed position has 218).
ACTION_BOUND = 218
#: What a captured Black piece is worth in LVLM-Playground's end-to-end points (the king: nothing).
CAPTURE_VALUES: Mapping[int, int] = {
    chess.PAWN: 1,
    chess.KNIGHT: 3,
    chess.BISHOP: 3,
    chess.ROOK: 5,
    chess.QUEEN: 9,
    chess.KING: 0,
}
PIECE_NAMES: Mapping[int, str] = {
    chess.PAWN: "pawn",
    chess.KNIGHT: "knight",
    chess.BISHOP: "bishop",
    chess.ROOK: "rook",
    chess.QUEEN: "queen",
    chess.KING: "king",
}
#: LVLM-Playground's end-to-end points: per White move, per captured point of Black material, and the
#: bonus for each result.
POINTS_PER_MOVE = 10
POINTS_PER_CAPTURE = 5
RESULT_BONUS: Mapping[str, int] = {"win": 1000, "tie": 500, "loss": 0}

_UCI = re.compile(r"^([a-h][1-8])\s*(?:->|-|x|:|\s)?\s*([a-h][1-8])\s*=?\s*([qrbnQRBN])?$")
_SAN_SUFFIX = re.compile(r"[+#!?\s]+$")


def strip_san(san: str) -> str:
    """SAN without its check or mate mark and annotation (``"Qxf7#"`` → ``"Qxf7"``)."""
    return _SAN_SUFFIX.sub("", san)


def _key(board: chess.Board) -> tuple[object, ...]:
    """What makes two positions "the same" for repetition: placement, side, castling rights that can
    still be used, and the en passant square when a capture there is legal (the FEN fields the rule
    compares, as python-chess's own repetition check keys them, without writing a FEN each ply)."""
    return (
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
        board.occupied_co[chess.WHITE],
        board.occupied_co[chess.BLACK],
        board.turn,
        board.clean_castling_rights(),
        board.ep_square if board.has_legal_en_passant() else None,
    )


def _outcome(board: chess.Board, has_moves: bool, keys: tuple[object, ...]) -> tuple[str, Seat | None] | None:
    """``(reason, winner)`` when the game is over here (the mover has legal moves or not), else
    ``None``."""
    if not has_moves:
        if board.is_check():
            return "checkmate", BLACK if board.turn == chess.WHITE else WHITE
        return "stalemate", None
    if board.is_insufficient_material():
        return "insufficient material", None
    if board.halfmove_clock >= 100:
        return "fifty-move rule", None
    if keys and keys.count(keys[-1]) >= 3:
        return "threefold repetition", None
    return None


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class ChessState(State):
    """A chess position with the moves that led to it.

    Attributes:
        board: The position (python-chess, without a move stack). Treat it as read-only: states share
            nothing mutable with each other, and nothing may push moves on it.
        start: The FEN the game started from.
        moves: The moves played since :attr:`start`, in UCI.
        keys: Repetition keys of the positions since the last capture or pawn move, the current last.
        captured: Points of Black material White has captured (P 1, N 3, B 3, R 5, Q 9).

    Notation is written only when asked for: the legal moves are generated once per state as
    python-chess moves (:meth:`legal_moves`, what random play, search and perft use), their SAN
    table (:meth:`legal`, what :meth:`legal_actions` lists) once it is first wanted, and the last
    move's SAN (:attr:`last_san`) from the previous position when it is read.
    """

    game_id: ClassVar[str] = "chess"

    board: chess.Board
    start: str = chess.STARTING_FEN
    moves: tuple[str, ...] = ()
    keys: tuple[tuple[object, ...], ...] = ()
    captured: int = 0
    _last: tuple[chess.Board, chess.Move] | str | None = dataclasses.field(default=None, repr=False)
    _moves: tuple[chess.Move, ...] | None = dataclasses.field(default=None, repr=False)
    _legal: dict[str, chess.Move] | None = dataclasses.field(default=None, repr=False)
    _end: tuple[tuple[str, Seat | None] | None] | None = dataclasses.field(default=None, repr=False)

    # -- identity ---------------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ChessState):
            return NotImplemented
        return self.start == other.start and self.moves == other.moves and self.fen == other.fen

    def __hash__(self) -> int:
        return hash((self.start, self.moves))

    @property
    def fen(self) -> str:
        """The position's FEN."""
        return self.board.fen()

    # -- rules ------------------------------------------------------------------------------------

    @property
    def mover(self) -> Seat:
        """The seat whose turn it is (0 White, 1 Black), over or not."""
        return WHITE if self.board.turn == chess.WHITE else BLACK

    def legal_moves(self) -> tuple[chess.Move, ...]:
        """The mover's legal moves in python-chess's order (generated once per state), ignoring the
        end of the game. No notation is written: the cheap way to pick or count moves."""
        moves = self._moves
        if moves is None:
            moves = tuple(self.board.generate_legal_moves())
            object.__setattr__(self, "_moves", moves)
        return moves

    def legal(self) -> dict[str, chess.Move]:
        """The mover's legal moves by SAN (written once per state, when first asked for), in the
        order of :meth:`legal_moves`, ignoring the end of the game."""
        table = self._legal
        if table is None:
            board = self.board
            table = {board.san(m): m for m in self.legal_moves()}
            object.__setattr__(self, "_legal", table)
        return table

    @property
    def last_san(self) -> str | None:
        """The SAN of the last move, or ``None`` at the start (written from the previous position
        the first time it is read)."""
        last = self._last
        if last is None or isinstance(last, str):
            return last
        previous, move = last
        san = previous.san(move)
        object.__setattr__(self, "_last", san)
        return san

    @property
    def ending(self) -> tuple[str, Seat | None] | None:
        """``(reason, winner)`` once the game is over (``winner`` ``None`` for a draw), else ``None``."""
        cached = self._end
        if cached is None:
            cached = (_outcome(self.board, bool(self.legal_moves()), self.keys),)
            object.__setattr__(self, "_end", cached)
        return cached[0]

    @property
    def step(self) -> int:
        return len(self.moves)

    @property
    def to_act(self) -> tuple[Seat, ...]:
        return () if self.ending is not None else (self.mover,)

    @property
    def winner(self) -> Seat | None:
        end = self.ending
        return end[1] if end is not None else None

    @property
    def scores(self) -> tuple[float, ...]:
        end = self.ending
        if end is None:
            return (0.0, 0.0)
        if end[1] is None:
            return (0.5, 0.5)
        return (1.0, 0.0) if end[1] == WHITE else (0.0, 1.0)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        if (seat is not None and seat != self.mover) or self.ending is not None:
            return []
        return list(self.legal())

    def resolve(self, text: str) -> chess.Move:
        """The legal move ``text`` names: SAN (check marks optional, ``0-0`` forgiven), UCI, or a
        click path ``"e2->e4"`` (a promotion without a piece becomes a queen).

        Raises:
            InvalidActionError: the text is not a chess move at all.
            IllegalActionError: it is a move, but not a legal one here (or an ambiguous SAN).
        """
        if not isinstance(text, str):
            raise InvalidActionError(f"{text!r} is not a move")
        move = self.legal().get(text)
        if move is not None:
            return move
        cleaned = strip_san(text.strip().strip(".`*'\"")).replace("0", "O")
        match = _UCI.match(cleaned.lower()) if cleaned[:1].islower() else None
        if match:
            origin, target, promo = chess.parse_square(match[1]), chess.parse_square(match[2]), match[3]
            candidates = [
                m for m in self.legal().values() if m.from_square == origin and m.to_square == target
            ]
            if promo:
                candidates = [
                    m for m in candidates if m.promotion == chess.Piece.from_symbol(promo).piece_type
                ]
            elif len(candidates) > 1:
                candidates = [m for m in candidates if m.promotion == chess.QUEEN]
            if candidates:
                return candidates[0]
            raise IllegalActionError(f"{match[1]} to {match[2]} is not a legal move here")
        try:
            return self._parse_san(cleaned)
        except chess.IllegalMoveError as exc:
            raise IllegalActionError(f"{text!r} is not a legal move here ({exc})") from None
        except chess.AmbiguousMoveError:
            raise IllegalActionError(
                f"{text!r} is ambiguous here; name the file or rank it moves from"
            ) from None
        except (chess.InvalidMoveError, ValueError):
            raise InvalidActionError(
                f"{text!r} is not a chess move; write SAN such as e4, Nf3 or O-O"
            ) from None

    def _parse_san(self, text: str) -> chess.Move:
        """python-chess's SAN reader, forgiving a lower-case piece letter (``nf3``) when the text does
        not read as a pawn move."""
        try:
            return self.board.parse_san(text)
        except ValueError:
            if len(text) > 2 and text[0] in "nbrqk":
                return self.board.parse_san(text[0].upper() + text[1:])
            raise

    def san(self, move: chess.Move) -> Action:
        """The canonical action of a legal ``move``."""
        for action, m in self.legal().items():
            if m == move:
                return action
        raise IllegalActionError(f"{move.uci()} is not a legal move here")

    def apply(self, action: Action | Mapping[Seat, Action]) -> ChessState:
        if isinstance(action, Mapping):
            if len(action) != 1:
                raise IllegalActionError("chess takes one move at a time")
            ((seat, action),) = action.items()
            if seat != self.mover:
                raise IllegalActionError(f"seat {seat} is not to move")
        if self.ending is not None:
            raise IllegalActionError(f"the game is over ({self.ending[0]}); {action!r} cannot be played")
        move = self.resolve(action)
        return self.after(move)

    def after(self, move: chess.Move) -> ChessState:
        """The state after the legal ``move`` (not checked)."""
        board = self.board
        # The SAN is written now only when this position's table has it already, else when read.
        last: tuple[chess.Board, chess.Move] | str = (
            self.san(move) if self._legal is not None else (board, move)
        )
        captured = self.captured
        if board.turn == chess.WHITE and board.is_capture(move):
            victim = chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square)
            captured += CAPTURE_VALUES.get(victim or chess.PAWN, 0)
        irreversible = board.is_zeroing(move)
        child = board.copy(stack=False)
        child.push(move)
        child.clear_stack()
        key = _key(child)
        return ChessState(
            board=child,
            start=self.start,
            moves=(*self.moves, move.uci()),
            keys=(key,) if irreversible else (*self.keys, key),
            captured=captured,
            _last=last,
        )

    # -- reading the position ---------------------------------------------------------------------

    @property
    def placement(self) -> str:
        """64 characters in reading order (rank 8 first, files a-h): ``PNBRQK`` White, ``pnbrqk``
        Black, ``.`` empty. What the renderer draws."""
        rows = []
        for rank in range(7, -1, -1):
            rows.append(
                "".join(
                    (p.symbol() if (p := self.board.piece_at(chess.square(f, rank))) else ".")
                    for f in range(8)
                )
            )
        return "".join(rows)

    @property
    def last_move_squares(self) -> tuple[str, ...]:
        """The squares the last move went from and to (``("e2", "e4")``), or ``()``."""
        if not self.moves:
            return ()
        uci = self.moves[-1]
        return (uci[:2], uci[2:4])

    @property
    def check_square(self) -> str | None:
        """The square of the king in check, or ``None``."""
        if not self.board.is_check():
            return None
        king = self.board.king(self.board.turn)
        return chess.square_name(king) if king is not None else None

    def move_squares(self, action: str) -> tuple[str, str] | None:
        """The (from, to) squares of a legal ``action``, or ``None`` (for drawing highlights)."""
        try:
            move = self.resolve(action)
        except Exception:
            return None
        return chess.square_name(move.from_square), chess.square_name(move.to_square)

    def path_actions(self, seat: Seat | None = None) -> dict[str, Action]:
        """Click paths to actions for people: ``{"e2->e4": "e4", "g1->f3": "Nf3", ...}``. A promotion
        path names the queen's promotion (other pieces are typed: ``e8=N``)."""
        paths: dict[str, Action] = {}
        for action in self.legal_actions(seat):
            move = self.legal()[action]
            if move.promotion not in (None, chess.QUEEN):
                continue
            paths[f"{chess.square_name(move.from_square)}->{chess.square_name(move.to_square)}"] = action
        return paths

    @property
    def white_moves(self) -> int:
        """How many moves White has made since the start."""
        first_white = self.start.split()[1] == "w"
        n = len(self.moves)
        return (n + 1) // 2 if first_white else n // 2

    def material(self, color: bool) -> int:
        """The material of ``color`` (``chess.WHITE``/``chess.BLACK``) in points, kings excluded."""
        return sum(len(self.board.pieces(t, color)) * v for t, v in CAPTURE_VALUES.items())

    # -- text views -------------------------------------------------------------------------------

    def diagram(self) -> str:
        """The board as text, rank 8 at the top: ``PNBRQK`` White, ``pnbrqk`` Black, ``.`` empty."""
        placement = self.placement
        lines = ["    a b c d e f g h"]
        for r in range(8):
            row = " ".join(placement[r * 8 : r * 8 + 8])
            lines.append(f" {8 - r}  {row}  {8 - r}")
        lines.append("    a b c d e f g h")
        return "\n".join(lines)

    def status_text(self) -> str:
        end = self.ending
        if end is not None:
            reason, winner = end
            if winner is None:
                return f"Draw by {reason}."
            return f"Checkmate: {SEAT_NAMES[winner]} wins."
        check = " and is in check" if self.board.is_check() else ""
        return f"{SEAT_NAMES[self.mover]} to move{check}."

    def text(self, seat: Seat | None = None) -> str:
        lines = [
            "Board (uppercase White PNBRQK, lowercase Black pnbrqk, '.' empty; rank 8 at the top):",
            self.diagram(),
            f"FEN: {self.fen}",
        ]
        if self.last_san:
            lines.append(f"Last move: {self.last_san} by {SEAT_NAMES[1 - self.mover]}.")
        lines.append(f"Halfmove clock: {self.board.halfmove_clock} of 100 (fifty-move rule).")
        if not self.is_over:
            lines.append(f"Legal moves for {SEAT_NAMES[self.mover]}: {', '.join(self.legal_actions())}")
        if seat is not None and not self.is_over:
            lines.append(f"You play {SEAT_NAMES[seat]}.")
        lines.append(self.status_text())
        return "\n".join(lines)

    def text_table(self, seat: Seat | None = None) -> str:
        lines = []
        for color, name in ((chess.WHITE, "White"), (chess.BLACK, "Black")):
            items = []
            for ptype in (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN):
                for sq in self.board.pieces(ptype, color):
                    items.append(f"{PIECE_NAMES[ptype]} {chess.square_name(sq)}")
            lines.append(f"{name}: {', '.join(items)}")
        return "\n".join(lines)

    def notice(self, seat: Seat | None = None) -> str:
        if self.is_over:
            return ""
        if self.board.is_check():
            return f"{SEAT_NAMES[self.mover]} is in check."
        if self.keys.count(self.keys[-1] if self.keys else "") == 2:
            return "This position has occurred twice; a third time draws."
        if self.board.halfmove_clock >= 90:
            return f"{100 - self.board.halfmove_clock} more halfmoves without a capture or pawn move draw."
        return ""

    def to_json(self) -> JsonDict:
        return {"game": self.game_id, "start": self.start, "moves": list(self.moves), "fen": self.fen}

    def metrics(self) -> dict[str, float]:
        return {
            "lvlm_points": float(lvlm_points(self)),
            "white_moves": float(self.white_moves),
            "captured_black_material": float(self.captured),
            "white_material": float(self.material(chess.WHITE)),
            "black_material": float(self.material(chess.BLACK)),
        }

    def history_board(self) -> chess.Board:
        """A python-chess board from the start with every move on its stack (for engines and PGN)."""
        board = chess.Board(self.start)
        for uci in self.moves:
            board.push(chess.Move.from_uci(uci))
        return board


def lvlm_points(state: ChessState) -> int:
    """LVLM-Playground's end-to-end points for White (the model's seat): 10 per White move, 5 per
    point of Black material captured, and 1000 for a win, 500 for a draw, 0 otherwise (a game not
    finished, or lost)."""
    points = POINTS_PER_MOVE * state.white_moves + POINTS_PER_CAPTURE * state.captured
    end = state.ending
    if end is not None:
        points += RESULT_BONUS["tie"] if end[1] is None else RESULT_BONUS["win"] if end[1] == WHITE else 0
    return points


def position(fen: str = chess.STARTING_FEN, moves: tuple[str, ...] | list[str] = ()) -> ChessState:
    """A state from ``fen`` after ``moves`` (SAN or UCI), for tests and examples.

    Raises:
        ValueError: the FEN is not a valid position.
        engine.core.GameError: a move is not legal.
    """
    board = chess.Board(fen)
    if not board.is_valid():
        raise ValueError(f"{fen!r} is not a valid chess position ({board.status()!r})")
    board.clear_stack()
    state = ChessState(board=board, start=board.fen(), keys=(_key(board),))
    for move in moves:
        state = state.apply(move)
    return state


def perft(state: ChessState, depth: int) -> int:
    """The number of move sequences of ``depth`` plies from ``state`` through the state API (the
    standard check of a move generator; draws by rule are not applied)."""
    if depth == 0:
        return 1
    legal = state.legal_moves()
    if depth == 1:
        return len(legal)
    return sum(perft(state.after(m), depth - 1) for m in legal)


_RULES = """\
Chess on an 8x8 board. Files a-h run from left to right and ranks 1-8 from bottom to top (a1 is the
bottom-left square from White's side, h8 the top-right). White moves first. Each side has a king, a
queen, two rooks, two bishops, two knights and eight pawns. The standard rules apply: castling, en
passant and promotion; a move may not leave one's own king in check. Checkmate wins. The game is
drawn by stalemate, insufficient material, the third occurrence of the same position, or fifty moves
by each side without a capture or a pawn move.
Moves are written in Standard Algebraic Notation (SAN): e4, Nf3, exd5, O-O, O-O-O, e8=Q."""


class Chess(Game):
    """Chess (LVLM-Playground). Option ``fen``: the start position; ``engine_time``: Stockfish's
    seconds per move."""

    id: ClassVar[str] = "chess"
    title: ClassVar[str] = "Chess"
    suites: ClassVar[tuple[str, ...]] = ("lvlm",)
    exports: ClassVar[Mapping[str, str]] = {".pgn": ".pgn:played_pgn"}
    tasks: ClassVar[str | None] = ".lvlm"
    description: ClassVar[str] = (
        "Standard chess from the initial position, moves in SAN; White moves first; against Stockfish "
        "when it is installed or a built-in alpha-beta search."
    )
    seats = seats_of(list(SEAT_NAMES))
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option(
            "fen",
            str,
            chess.STARTING_FEN,
            "the start position as FEN (default: the standard start)",
            label="Start FEN",
        ),
        Option(
            "engine_time",
            float,
            1.0,
            "seconds Stockfish thinks per move (LVLM-Playground: 1.0)",
            minimum=0.01,
            maximum=60.0,
        ),
    )
    action_bound: int | None = ACTION_BOUND
    controls: ClassVar[str] = "Click a piece, then the square it moves to (promotions make a queen)"
    bots: ClassVar[Mapping[str, str]] = {"search": ".bots:ChessSearchBot", "stockfish": ".bots:StockfishBot"}
    default_opponent: ClassVar[str] = "stockfish"  # labelled "Built-in search (...)" without one
    sim_bot: ClassVar[str | None] = "search"
    sim_behaviour: ClassVar[str | None] = ".sim:ChessSim"
    extractor: ClassVar[str | None] = ".answers:extract_move"
    default_prompt: ClassVar[str] = "default"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        fen = self.options["fen"].strip() or chess.STARTING_FEN
        try:
            board = chess.Board(fen)
        except ValueError as exc:
            raise OptionError(f"option 'fen': {fen!r} is not a FEN ({exc})") from None
        if not board.is_valid():
            raise OptionError(f"option 'fen': {fen!r} is not a legal chess position ({board.status()!r})")
        self.fen: str = board.fen()

    def initial_state(self, seed: int | None = None) -> ChessState:
        return position(self.fen)

    def rules_text(self) -> str:
        return _RULES

    def play_random(self, state: State, rng: Any) -> State:
        """As :meth:`Game.play_random` (the same draw of ``rng`` picks the same move), choosing among
        the python-chess moves so that no other move's notation is written."""
        if not isinstance(state, ChessState) or not state.to_act:
            return super().play_random(state, rng)
        return state.after(rng.choice(state.legal_moves()))

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read a move in SAN (``Nf3``, ``O-O``, check marks optional), UCI (``g1f3``) or a click path
        (``g1->f3``); a ``Movement:`` line's move wins. Returns the canonical SAN.

        Raises:
            InvalidActionError: the text names no move.
            IllegalActionError: the move is not legal, ambiguous, or ``seat`` is not to move.
        """
        if not isinstance(state, ChessState):
            raise InvalidActionError("not a chess state")
        from engine.games.chess.answers import find_move

        found = find_move(text) or text.strip()
        if state.is_over:
            raise IllegalActionError(f"the game is over; {text!r} cannot be played")
        if seat is not None and seat != state.mover:
            raise IllegalActionError(f"seat {seat} is not to move")
        return state.san(state.resolve(found))

    def state_from_json(self, data: JsonDict) -> ChessState:
        with reading_state(data, "chess", "chess"):
            start = data["start"]
            moves = data.get("moves", [])
            if not isinstance(start, str) or not isinstance(moves, list):
                raise ValueError("start must be a FEN and moves a list of UCI moves")
            try:
                state = position(start)
                for uci in moves:
                    if not isinstance(uci, str):
                        raise ValueError(f"{uci!r} is not a UCI move")
                    move = chess.Move.from_uci(uci)
                    if not state.board.is_legal(move):
                        raise ValueError(f"{uci} is not legal after {len(state.moves)} moves")
                    state = state.after(move)
            except (InvalidActionError, IllegalActionError) as exc:
                raise ValueError(str(exc)) from None
            fen = data.get("fen")
            if fen is not None and fen != state.fen:
                raise ValueError("the fen does not match the moves played from the start")
        if not isinstance(state, ChessState):  # pragma: no cover - for type checkers
            raise StateFormatError("not a chess state")
        return state
