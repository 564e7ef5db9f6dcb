"""Reversi, as LVLM-Playground plays it: Othello's rules with LVLM-Playground's names, start and scoring.

Design: no rule is written twice. :class:`ReversiState` subclasses
:class:`~engine.games.othello.rules.OthelloState`, whose rules (move generation, flips, passes, the end,
the winner) work on cell indices only; a state turns names into indices and back through its class's
:class:`~engine.games.othello.rules.Naming`. Reversi swaps in LVLM-Playground's naming and adds what the
paper adds: a count of Black's moves for the end-to-end points, its own text view and JSON, and the
declaration :class:`Reversi` with its opponent, prompt, extractor and simulated model. The same bits
mean the same squares in both games, so Othello's bots, Gymnasium observation and renderer read a
Reversi state unchanged.

Names: a cell is its row letter A-H (top to bottom) then its column number 1-8 (left to right), so
``"D3"`` is row D, column 3, which Othello writes ``"(C,4)"``. Reversed (``"3D"``) and lower-case
(``"d3"``) forms are read as well, as the paper's parser does; a seat with no move plays ``"pass"``.

Start: LVLM-Playground's sources disagree (its rule-following prompt says only "D4, D5, E4, E5", its
end-to-end prompt puts Black on D4 and E5, its code and therefore every screenshot its models saw put
White on D4 and E5 and Black on D5 and E4). PlayTrace plays the position the models saw, which is also
the standard Othello start, and its prompt says so: White on D4 and E5, Black on D5 and E4. Black
(seat 0, the model in the paper) moves first.

End-to-end points (the paper's §2.4), in ``metrics()["lvlm_points"]``: 10 per move Black has made, 20
per Black disc on the board now, and once the game is over 1000 for a Black win or 500 for a draw.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import ClassVar

from engine.core import Action, Game, InvalidActionError, JsonDict, Seat, State, seats_of
from engine.games._common import reading_state
from engine.games.othello.rules import (
    _START,
    EMPTY,
    PASS,
    SEAT_NAMES,
    SIZE,
    SYMBOLS,
    Naming,
    OthelloState,
    check_legal,
    read_board,
)

__all__ = [
    "ACTIONS",
    "CELLS",
    "LVLM_NAMING",
    "ROWS",
    "Reversi",
    "ReversiState",
    "find_moves",
    "parse_move",
]

ROWS = "ABCDEFGH"
#: The 64 cells in reading order (row A first, columns 1 to 8).
CELLS: tuple[Action, ...] = tuple(f"{ROWS[i // SIZE]}{i % SIZE + 1}" for i in range(SIZE * SIZE))
#: Every action in a fixed order: the 64 cells, then "pass".
ACTIONS: tuple[Action, ...] = (*CELLS, PASS)

_WHOLE = re.compile(r"^\s*(?:([A-Ha-h])\s*([1-8])|([1-8])\s*([A-Ha-h]))\s*$")
#: A cell inside text: letter and digit side by side (either order), not part of a longer word.
_IN_TEXT = re.compile(r"(?<![A-Za-z0-9])(?:([A-Ha-h])\s?([1-8])|([1-8])\s?([A-Ha-h]))(?![A-Za-z0-9])")


def _name(match: re.Match[str]) -> Action:
    letter, digit = (match.group(1), match.group(2)) if match.group(1) else (match.group(4), match.group(3))
    return f"{letter.upper()}{digit}"


def parse_move(text: str) -> int | None:
    """The cell index of ``"D3"``, ``"d3"``, ``"3D"`` or ``"D 3"`` (row letter, column number);
    ``None`` for anything else."""
    match = _WHOLE.match(text)
    if not match:
        return None
    name = _name(match)
    return ROWS.index(name[0]) * SIZE + int(name[1]) - 1


def find_moves(text: str) -> list[Action]:
    """Every cell named in ``text``, normalised (``"4d"`` -> ``"D4"``), in order of appearance."""
    return [_name(m) for m in _IN_TEXT.finditer(text)]


#: LVLM-Playground's naming: ``"D3"`` is row D, column 3.
LVLM_NAMING = Naming(CELLS, parse_move, "cells are written row letter then column number, such as D3")


@dataclasses.dataclass(frozen=True, slots=True)
class ReversiState(OthelloState):
    """A Reversi position: an Othello position named the LVLM way, with Black's move count.

    Attributes:
        black_moves: How many discs Black (seat 0) has placed (passes do not count).
    """

    game_id: ClassVar[str] = "reversi"
    naming: ClassVar[Naming] = LVLM_NAMING

    black_moves: int = 0

    def apply(self, action: Action | Mapping[Seat, Action]) -> ReversiState:
        after = OthelloState.apply(self, action)
        assert isinstance(after, ReversiState)
        if self.mover == 0 and after.last_action != PASS:
            after = dataclasses.replace(after, black_moves=self.black_moves + 1)
        return after

    def lvlm_points(self) -> int:
        """LVLM-Playground's end-to-end points for Black (see the module's documentation)."""
        points = 10 * self.black_moves + 20 * self.black.bit_count()
        if self.is_over:
            winner = self.winner
            points += 1000 if winner == 0 else 500 if winner is None else 0
        return points

    def metrics(self) -> dict[str, float]:
        figures = OthelloState.metrics(self)
        figures["black_moves"] = float(self.black_moves)
        figures["lvlm_points"] = float(self.lvlm_points())
        return figures

    def grid_text(self) -> str:
        """The board as drawn: column numbers above, row letters on the left."""
        cells = self.cells
        lines = ["   " + " ".join(str(c + 1) for c in range(SIZE))]
        for r in range(SIZE):
            lines.append(f"{ROWS[r]}  " + " ".join(cells[r * SIZE + c] or EMPTY for c in range(SIZE)))
        return "\n".join(lines)

    def text(self, seat: Seat | None = None) -> str:
        lines = []
        if seat is not None and not self.is_over:
            lines.append(f"You are the {SEAT_NAMES[seat]} player ({SYMBOLS[seat]}).")
        lines += [
            "The current board (rows A-H from top to bottom, columns 1-8 from left to right; "
            f'B = Black, W = White, "{EMPTY}" = empty):',
            self.grid_text(),
            "",
        ]
        if self.last_action is not None:
            lines.append(f"Last move: {SEAT_NAMES[1 - self.mover]} played {self.last_action}.")
        lines.append(self.status_text())
        return "\n".join(lines)

    def to_json(self) -> JsonDict:
        cells = self.cells
        return {
            "game": self.game_id,
            "board": ["".join(cells[r * SIZE + c] or EMPTY for c in range(SIZE)) for r in range(SIZE)],
            "mover": self.mover,
            "last_action": self.last_action,
            "ply": self.ply,
            "black_moves": self.black_moves,
        }


_RULES = """\
Reversi (Othello) on an 8x8 grid. Rows are labelled A to H from top to bottom and columns 1 to 8 from
left to right; a square is written row letter then column number, e.g. D3 (row D, column 3). The game
starts with four discs in the centre: White on D4 and E5, Black on D5 and E4. Black moves first, then
the players alternate. A move places a disc on an empty square so that it sandwiches one or more of the
opponent's discs in a straight line (horizontal, vertical or diagonal) between the new disc and another
disc of the mover's colour; every sandwiched disc, in every direction, is flipped. A move must flip at
least one disc. A player with no valid move passes ("pass"); the game ends when neither player can move.
The player with more discs wins; equal counts are a draw."""


class Reversi(Game):
    """Reversi (LVLM-Playground): Othello with row-letter names, the paper's opponent and points."""

    id: ClassVar[str] = "reversi"
    title: ClassVar[str] = "Reversi"
    suites: ClassVar[tuple[str, ...]] = ("lvlm",)
    tasks: ClassVar[str | None] = ".lvlm"
    description: ClassVar[str] = (
        "LVLM-Playground's Reversi: outflank and flip discs on an 8x8 board; Black moves first."
    )
    seats = seats_of(SEAT_NAMES)
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    keymap: ClassVar[Mapping[str, Action]] = {"p": PASS}
    controls: ClassVar[str] = (
        "Click a square to place a disc; P or the Pass button passes when you have no move"
    )
    #: 60 placements, and a pass is always followed by a placement.
    max_episode_steps: ClassVar[int | None] = 120
    bots: ClassVar[Mapping[str, str]] = {
        "alphabeta": ".bots:DiscDifferenceBot",
        "greedy": ".bots:GreedyBot",
        "positional": ".bots:PositionalBot",
    }
    default_opponent: ClassVar[str] = "alphabeta"
    sim_behaviour: ClassVar[str | None] = ".reversi_sim:ReversiSim"
    extractor: ClassVar[str | None] = ".reversi_answers:extract_move"
    observation: ClassVar[str | None] = ".gym:BoardObservation"
    #: Reversi's templates live beside Othello's, in their own folder.
    prompts: ClassVar[str | None] = "prompts/reversi"
    default_prompt: ClassVar[str] = "lvlm"

    def initial_state(self, seed: int | None = None) -> ReversiState:
        black, white = _START["lvlm"]
        return ReversiState(black=black, white=white)

    def rules_text(self) -> str:
        return _RULES

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read ``"D3"``, ``"d3"``, ``"3D"``, ``"Movement: D3"`` or ``"pass"``.

        Raises:
            InvalidActionError: the text names no square (or several different ones).
            IllegalActionError: the square is taken or flips nothing, a pass while a move exists, the
                game is over or ``seat`` is not to move.
        """
        assert isinstance(state, ReversiState)
        cleaned = text.strip().strip("*_`'\".:").strip()
        found = list(dict.fromkeys(find_moves(cleaned)))
        if len(found) > 1:
            raise InvalidActionError(f"{text!r} names several squares ({', '.join(found)}); choose one")
        if found:
            action = found[0]
        elif re.search(r"\bpass\b", cleaned, re.IGNORECASE):
            action = PASS
        else:
            raise InvalidActionError(f"{text!r} names no square; write row letter then column, e.g. D3")
        return check_legal(state, action, seat)

    def state_from_json(self, data: JsonDict) -> ReversiState:
        with reading_state(data, "reversi", "Reversi"):
            fields = read_board(data, LVLM_NAMING)
            black_moves = data.get("black_moves", 0)
            if not isinstance(black_moves, int) or isinstance(black_moves, bool) or black_moves < 0:
                raise ValueError(f"black_moves must be a whole number, not {black_moves!r}")
        return ReversiState(**fields, black_moves=black_moves)
