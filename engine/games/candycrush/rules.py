"""Candy Crush, as LMGame-Bench plays it: an 8x8 board of candies in four colours, 50 moves.

A move swaps two neighbouring candies (``((r1,c1),(r2,c2))``, rows and columns from 0 at the top
left, the upper or left cell first). A swap that lines up three or more candies of one colour in a
row or a column clears every line on the board at once, the candies above fall into the gaps, new
candies drop in from the top, and lines the new arrangement makes are cleared in turn (a cascade),
until the board is still.

What happens to a swap that makes no line depends on the ``wasted_swaps`` option:

* off (the default): it is not a move. The state lists only the swaps that make a line; any other
  is refused with the reason, and the board is not touched.
* on: it is allowed and costs a move, as LMGame-Bench's reference environment (tile-match-gym) plays
  it. All 112 swaps are legal; one that makes no line leaves the board as it was, clears nothing and
  uses one of the moves, and the notice says so. A random player then picks among all 112 swaps and
  wastes most of its moves, which is how LMGame-Bench's random row (116.5 +- 51.5 candies over 30
  runs) comes about; with the default, random play clears several times as many.

The raw score is LMGame-Bench's: the number of candies cleared over the session, cascades included;
its progress score is the same figure. There are no special candies (LMGame-Bench plays
tile-match-gym with none). The game ends after ``moves`` moves (50).

When no swap is left after a move, the candies are reshuffled (no points) into an order with no line
and at least one swap, as tile-match-gym does; the state says so. LMGame-Bench's stuck rule (the
episode ends after 50 unchanged observations) never applies: the moves counter changes with every
move (a wasted swap included), and 50 moves end the game first.

How this differs from the reference environment, on purpose: by default a swap that makes no line is
refused (tile-match-gym plays it as a wasted move that costs one of the 50), so that the state lists
only the moves that do something and the agent harness reports such an answer as an illegal move;
``wasted_swaps`` restores the reference behaviour. All lines of a wave are cleared together
(tile-match-gym clears the lowest lines first and looks again after the fall, which can break a line
higher up).

Chance: new candies come from ``random.Random(f"candycrush:{seed}:{move}")`` with the seed the state
carries, so the same seed and the same swaps always give the same candies and a saved state goes on
the same way.
"""

from __future__ import annotations

import dataclasses
import functools
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
from engine.games.candycrush.board import (
    COLOUR_NAMES,
    COLOURS,
    COLS,
    ROWS,
    SWAP_NAMES,
    SWAPS,
    Swap,
    drawer,
    effective,
    effective_indices,
    format_swap,
    lines_at,
    matched,
    new_board,
    parse_swap,
    reshuffle,
    settle,
    swap_board,
)
from engine.options import Option

__all__ = ["ACTIONS", "DEFAULT_COLOURS", "DEFAULT_MOVES", "CandyCrush", "CandyState", "read_swap"]

#: Every adjacent swap as an action, in tile-match-gym's order (the Gymnasium action space).
ACTIONS: tuple[Action, ...] = SWAP_NAMES
DEFAULT_COLOURS = 4
DEFAULT_MOVES = 50
#: How many seeded draws :meth:`CandyState.outcomes` lists for a move.
OUTCOME_SAMPLES = 8
_HEADER = "    " + " ".join(str(c) for c in range(COLS))


def read_swap(text: str) -> Swap:
    """The swap ``text`` names, as two neighbouring cells on the board, upper or left cell first.

    Raises:
        InvalidActionError: the text names no swap, a cell off the board, or cells that are not neighbours.
    """
    found = parse_swap(text)
    if found is None:
        raise InvalidActionError(
            f"{text!r} names no swap; write two neighbouring cells as ((row,col),(row,col)), "
            "for example ((3,4),(3,5))"
        )
    a, b = sorted(found)
    for r, c in (a, b):
        if not (0 <= r < ROWS and 0 <= c < COLS):
            raise InvalidActionError(
                f"({r},{c}) is off the board; rows and columns run from 0 to {ROWS - 1}"
            )
    if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
        raise InvalidActionError(
            f"({a[0]},{a[1]}) and ({b[0]},{b[1]}) are not neighbours; a swap exchanges two candies "
            "side by side or one above the other"
        )
    return a, b


def _name(letter: str) -> str:
    return f"{COLOUR_NAMES[letter]} ({letter})"


@dataclasses.dataclass(frozen=True, slots=True)
class CandyState(State):
    """A Candy Crush position.

    Attributes:
        board: ``ROWS * COLS`` colour letters, row by row from the top.
        colours: The colour letters in play (``"GCPR"`` for four colours).
        score: Candies cleared so far (the raw score).
        moves: Moves played so far.
        max_moves: Moves in the session.
        seed: The seed every refill is drawn from.
        last: The swap that led here, or ``None`` at the start.
        waves: Candies cleared by each wave of the last move (the first is the swap's own line, the
            rest the cascade).
        shuffled: Whether the board was reshuffled after the last move because no swap was left.
        wasted_swaps: Whether a swap that makes no line is a move (it costs a move and changes
            nothing) rather than refused. A last move with no ``waves`` was such a swap.
    """

    game_id: ClassVar[str] = "candycrush"
    rows: ClassVar[int] = ROWS
    cols: ClassVar[int] = COLS

    board: str
    colours: str = COLOURS[:DEFAULT_COLOURS]
    score: int = 0
    moves: int = 0
    max_moves: int = DEFAULT_MOVES
    seed: int = 0
    last: Action | None = None
    waves: tuple[int, ...] = ()
    shuffled: bool = False
    wasted_swaps: bool = False

    # -- the contract ---------------------------------------------------------------------------

    @property
    def step(self) -> int:
        return self.moves

    @property
    def to_act(self) -> tuple[Seat, ...]:
        return () if self.moves >= self.max_moves else (0,)

    @property
    def moves_left(self) -> int:
        return max(0, self.max_moves - self.moves)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        return [SWAP_NAMES[i] for i in self._legal_indices(seat)]

    def _legal_indices(self, seat: Seat | None = None) -> Sequence[int]:
        """The :data:`SWAPS` indices of the legal swaps: all of them with wasted swaps, else those
        that make a line."""
        if seat not in (None, 0) or self.is_over:
            return ()
        return range(len(SWAPS)) if self.wasted_swaps else effective_indices(self.board)

    def cell(self, r: int, c: int) -> str:
        """The colour letter at (``r``, ``c``)."""
        return self.board[r * COLS + c]

    def apply(self, action: Action | Mapping[Seat, Action]) -> CandyState:
        played = self._play(action)
        if not effective(self.board, played):
            return self._wasted(played)
        rng = random.Random(f"candycrush:{self.seed}:{self.moves}")
        return self._settle(played, rng)

    def _play(self, action: Action | Mapping[Seat, Action]) -> Swap:
        """The swap ``action`` names, checked: well formed, the game running, a line made (unless
        wasted swaps are moves)."""
        if isinstance(action, Mapping):
            action = one_action(action, "Candy Crush", self.to_act, ONE_PLAYER)
        if not isinstance(action, str):
            raise InvalidActionError(f"{action!r} is not a Candy Crush swap")
        swap = read_swap(action)
        if self.is_over:
            raise IllegalActionError(f"the game is over ({self.max_moves} moves played); no more swaps")
        if not self.wasted_swaps and not effective(self.board, swap):
            raise IllegalActionError(f"{format_swap(swap)} {self.why_not(swap)}")
        return swap

    def _wasted(self, swap: Swap) -> CandyState:
        """The state after a swap that makes no line, played as a move: the board as it was, nothing
        cleared, one move used."""
        return dataclasses.replace(
            self, moves=self.moves + 1, last=format_swap(swap), waves=(), shuffled=False
        )

    def why_not(self, swap: Swap) -> str:
        """Why a swap makes no line, in words (``"makes no line: ..."``)."""
        (r1, c1), (r2, c2) = swap
        a, b = self.cell(r1, c1), self.cell(r2, c2)
        if self.wasted_swaps:
            cost = "it changes nothing on the board but costs a move"
            if a == b:
                return f"swaps two {COLOUR_NAMES[a]} candies and makes no line: {cost}"
            return (
                f"makes no line: {_name(a)} at ({r1},{c1}) and {_name(b)} at ({r2},{c2}) would not line "
                f"up three of a kind, so {cost}"
            )
        if a == b:
            return f"swaps two {COLOUR_NAMES[a]} candies, which changes nothing; a swap must make a line"
        return (
            f"makes no line: {_name(a)} at ({r1},{c1}) and {_name(b)} at ({r2},{c2}) would not line up "
            "three of a kind; a swap that makes no line is not a move"
        )

    def _settle(self, swap: Swap, rng: random.Random) -> CandyState:
        board, waves = settle(swap_board(self.board, swap), drawer(rng, self.colours))
        shuffled = not effective_indices(board)
        if shuffled:
            board = reshuffle(board, rng, self.colours)
        return dataclasses.replace(
            self,
            board=board,
            score=self.score + sum(waves),
            moves=self.moves + 1,
            last=format_swap(swap),
            waves=tuple(waves),
            shuffled=shuffled,
        )

    def outcomes(self, action: Action | Mapping[Seat, Action]) -> list[tuple[float, State]]:
        """The boards the move can lead to. The refills of a cascade have too many colourings to list
        (four colours to every new candy, wave after wave), so this is an even sample: the seed's own
        result and :data:`OUTCOME_SAMPLES` - 1 other seeded draws, each of equal weight, which search
        bots average over like any chance node."""
        swap = self._play(action)
        if not effective(self.board, swap):
            return [(1.0, self._wasted(swap))]
        results: list[tuple[float, State]] = [(1.0 / OUTCOME_SAMPLES, self.apply(action))]
        for k in range(1, OUTCOME_SAMPLES):
            rng = random.Random(f"candycrush:{self.seed}:{self.moves}:other:{k}")
            results.append((1.0 / OUTCOME_SAMPLES, self._settle(swap, rng)))
        return results

    @property
    def scores(self) -> tuple[float, ...]:
        return (float(self.score),)

    def metrics(self) -> dict[str, float]:
        return {
            "candies_cleared": self.score,
            "moves_left": self.moves_left,
            "swaps_available": len(effective_indices(self.board)),
        }

    # -- notes for people and models ----------------------------------------------------------------

    def first_wave(self, swap: Swap) -> tuple[str, int]:
        """The colours of the lines the swap itself makes (``"GR"``: green and red) and the number of
        candies its first wave clears (before any cascade)."""
        swapped = swap_board(self.board, swap)
        colours = "".join(swapped[r * COLS + c] for r, c in swap if lines_at(swapped, r, c))
        return colours, len(matched(swapped))

    def annotate(self, action: Action, seat: Seat | None = None) -> str:
        try:
            swap = read_swap(action)
        except InvalidActionError:
            return ""
        if self.is_over:
            return ""
        if not effective(self.board, swap):
            return self.why_not(swap)
        colours, cleared = self.first_wave(swap)
        names = " and ".join(COLOUR_NAMES[c] for c in colours)
        return f"lines up {names} candies: {cleared} cleared before any cascade"

    def path_actions(self, seat: Seat | None = None) -> dict[str, Action]:
        """Click a candy, then the neighbour to swap it with (either order):
        ``{"(3,4)->(3,5)": "((3,4),(3,5))", "(3,5)->(3,4)": "((3,4),(3,5))", ...}``."""
        paths: dict[str, Action] = {}
        for i in self._legal_indices(seat):
            (r1, c1), (r2, c2) = SWAPS[i]
            paths[f"({r1},{c1})->({r2},{c2})"] = SWAP_NAMES[i]
            paths[f"({r2},{c2})->({r1},{c1})"] = SWAP_NAMES[i]
        return paths

    def last_words(self) -> str:
        """What the last move did, in words, or ``""`` at the start."""
        if self.last is None:
            return ""
        if not self.waves:
            return f"Last move: {self.last} made no line; the board stayed as it was and the move was used"
        first, *cascade = self.waves
        words = f"Last move: {self.last} cleared {first} candies"
        if cascade:
            words += f", then the cascade cleared {' + '.join(str(w) for w in cascade)} more"
        if self.shuffled:
            words += "; no swap was left, so the candies were reshuffled"
        return words

    def notice(self, seat: Seat | None = None) -> str:
        if self.is_over:
            return f"Game over: all {self.max_moves} moves played; {self.score} candies cleared"
        if self.shuffled:
            return "No swap was left, so the candies were reshuffled (no points)"
        left = f"{self.moves_left} move(s) left" if self.moves_left <= 5 else ""
        if self.last is not None and not self.waves:
            wasted = f"{self.last} made no line: nothing changed, and it used a move"
            return f"{wasted}; {left}" if left else wasted
        return left

    # -- text views -----------------------------------------------------------------------------

    def grid_lines(self) -> list[str]:
        """The board as text: a column header, then each row's number and its colour letters."""
        lines = [_HEADER]
        for r in range(ROWS):
            lines.append(f"{r:>2}| " + " ".join(self.board[r * COLS : (r + 1) * COLS]))
        return lines

    def text(self, seat: Seat | None = None) -> str:
        return _text(self)

    def text_table(self, seat: Seat | None = None) -> str:
        """The perception module's symbolic listing: every colour's candies by coordinates
        (``Green (G) candies at (row 0, col 3), ...``), then the counters."""
        lines = []
        for letter in self.colours:
            cells = [(i // COLS, i % COLS) for i, ch in enumerate(self.board) if ch == letter]
            where = ", ".join(f"(row {r}, col {c})" for r, c in cells)
            lines.append(f"{COLOUR_NAMES[letter].capitalize()} ({letter}) candies at: {where or 'none'}")
        lines.append(f"Candies cleared: {self.score}; moves left: {self.moves_left} of {self.max_moves}")
        return "\n".join(lines)

    def to_json(self) -> JsonDict:
        return {
            "game": self.game_id,
            "board": [self.board[r * COLS : (r + 1) * COLS] for r in range(ROWS)],
            "colours": self.colours,
            "score": self.score,
            "moves": self.moves,
            "max_moves": self.max_moves,
            "seed": self.seed,
            "last": self.last,
            "waves": list(self.waves),
            "shuffled": self.shuffled,
            "wasted_swaps": self.wasted_swaps,
        }


@functools.lru_cache(maxsize=1024)
def _text(state: CandyState) -> str:
    """The text view (cached per state: every Gymnasium step hands it out)."""
    lines = ["Board (row 0 at the top, column 0 at the left):", *state.grid_lines()]
    lines.append("Colours: " + ", ".join(f"{c} {COLOUR_NAMES[c]}" for c in state.colours))
    lines.append(
        f"Candies cleared: {state.score}   Moves left: {state.moves_left} of {state.max_moves}"
    )
    words = state.last_words()
    if words:
        lines.append(words)
    if state.is_over:
        lines.append(f"Game over: all {state.max_moves} moves played.")
    return "\n".join(lines)


_RULES = """\
Candy Crush on an {rows}x{cols} board (row 0 at the top, column 0 at the left) with candies of {n}
colours: {colours}.
Each move swaps two neighbouring candies (side by side or one above the other). {swap_rule}
top; lines they form are cleared too (a cascade), all within the same move.
Your score is the number of candies cleared, cascades included. You have {moves} moves.
If no swap is left, the candies are reshuffled.
Answer with the swap as ((row1,col1),(row2,col2)), for example ((3,4),(3,5))."""

_LINES_ONLY = """\
A swap must line up
three or more candies of the same colour in a row or a column; a swap that makes no line is not
allowed. Every line is cleared, the candies above fall down, and new random candies drop in from the"""
_WASTED_SWAPS = """\
A swap scores when it lines
up three or more candies of the same colour in a row or a column; a swap that makes no line leaves
the board as it was but still uses one of your moves. Every line is cleared, the candies above
fall down, and new random candies drop in from the"""


class CandyCrush(Game):
    """Candy Crush (LMGame-Bench). Options: ``colours`` (4), ``moves`` (50) and ``wasted_swaps``
    (off: a swap that makes no line is refused; on: it is played, changes nothing and costs a move)."""

    id: ClassVar[str] = "candycrush"
    title: ClassVar[str] = "Candy Crush"
    suites: ClassVar[tuple[str, ...]] = ("lmgame",)
    description: ClassVar[str] = (
        "Swap neighbouring candies to line up three or more; the score is the candies cleared in 50 moves."
    )
    seats = seats_of(["Player"])
    chance: ClassVar[bool] = True
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option(
            "colours", int, DEFAULT_COLOURS, "Candy colours in play (LMGame-Bench: 4)", minimum=3, maximum=6
        ),
        Option("moves", int, DEFAULT_MOVES, "Moves in a session (LMGame-Bench: 50)", minimum=1, maximum=1000),
        Option(
            "wasted_swaps",
            bool,
            False,
            "A swap that makes no line is allowed and costs a move, as LMGame-Bench's reference "
            "environment does",
        ),
    )
    #: Every adjacent swap, in tile-match-gym's order: the Gymnasium adapter's discrete action space.
    #: Only the swaps that make a line are legal in a given state (all of them with ``wasted_swaps``).
    actions: ClassVar[tuple[Action, ...]] = ACTIONS
    controls: ClassVar[str] = (
        "Click a candy, then a neighbour to swap it with (Esc drops the first click); "
        "only swaps that line up three are accepted"
    )
    bots: ClassVar[Mapping[str, str]] = {"greedy": ".bots:GreedyBot"}
    default_opponent: ClassVar[str] = "greedy"
    sim_behaviour: ClassVar[str | None] = ".sim:SimCandyCrush"
    extractor: ClassVar[str | None] = ".answers:extract_move"
    observation: ClassVar[str | None] = ".gym:BoardObservation"
    #: LMGame-Bench's raw score, the candies cleared in the session (Table 1); its progress score is
    #: "the same as the raw score" (Table 3).
    raw_score: ClassVar[str | None] = "candies_cleared"
    progress_score: ClassVar[str | None] = "candies_cleared"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.colours: str = COLOURS[: self.options["colours"]]
        self.max_moves: int = self.options["moves"]
        self.wasted_swaps: bool = self.options["wasted_swaps"]
        if self.wasted_swaps:
            self.controls = (  # type: ignore[misc]
                "Click a candy, then a neighbour to swap it with (Esc drops the first click); "
                "a swap that lines up nothing costs a move"
            )
        #: Every episode lasts exactly ``moves`` moves.
        self.max_episode_steps: int | None = self.max_moves  # type: ignore[misc]

    def initial_state(self, seed: int | None = None) -> CandyState:
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"a Candy Crush seed is an integer, not {seed!r}")
        board = new_board(random.Random(f"candycrush:{seed}:start"), self.colours)
        return CandyState(
            board=board, colours=self.colours, max_moves=self.max_moves, seed=seed,
            wasted_swaps=self.wasted_swaps,
        )

    def transition(self, before: State, after: State) -> Transition:
        assert isinstance(before, CandyState) and isinstance(after, CandyState)
        return Transition(rewards=(float(after.score - before.score),), changed=before.board != after.board)

    def rules_text(self) -> str:
        colours = ", ".join(f"{c} = {COLOUR_NAMES[c]}" for c in self.colours)
        return _RULES.format(
            rows=ROWS, cols=COLS, n=len(self.colours), colours=colours, moves=self.max_moves,
            swap_rule=_WASTED_SWAPS if self.wasted_swaps else _LINES_ONLY,
        )

    def parse_action(self, text: str, state: State, seat: Seat | None = None) -> Action:
        """Read a swap from free text (``((1,2),(1,3))``, ``(1,2) -> (1,3)``, ``swap (1,3) with
        (1,2)``, ``(1,2) right``) and return its canonical form.

        Raises:
            InvalidActionError: no swap, a cell off the board, or two cells that are not neighbours.
            IllegalActionError: the swap makes no line (unless wasted swaps are moves), or the game is over.
        """
        swap = read_swap(text)
        action = format_swap(swap)
        if state.is_over:
            raise IllegalActionError(f"the game is over; {action} cannot be played")
        assert isinstance(state, CandyState)
        if not state.wasted_swaps and not effective(state.board, swap):
            raise IllegalActionError(f"{action} {state.why_not(swap)}")
        return action

    def state_from_json(self, data: JsonDict) -> CandyState:
        with reading_state(data, "candycrush", "Candy Crush"):
            rows = data["board"]
            colours = data["colours"]
            if not isinstance(colours, str) or not (3 <= len(colours) <= len(COLOURS)) or not set(
                colours
            ) <= set(COLOURS) or len(set(colours)) != len(colours):
                raise ValueError(f"colours must be 3 to 6 different letters of {COLOURS}")
            if not isinstance(rows, list) or len(rows) != ROWS:
                raise ValueError(f"board must have {ROWS} rows")
            if not all(isinstance(r, str) and len(r) == COLS and set(r) <= set(colours) for r in rows):
                raise ValueError(f"every board row is {COLS} letters of {colours}")
            counts = {k: _int(data[k], k) for k in ("score", "moves", "max_moves", "seed")}
            if counts["max_moves"] < 1 or counts["moves"] > counts["max_moves"]:
                raise ValueError("moves must lie between 0 and max_moves (at least 1)")
            last = data["last"]
            if last is not None and (not isinstance(last, str) or last not in _ACTION_SET):
                raise ValueError(f"last must be a swap such as ((3,4),(3,5)) or null, not {last!r}")
            waves = data["waves"]
            if not isinstance(waves, list) or not all(_int(w, "waves") >= 3 for w in waves):
                raise ValueError("waves must be a list of counts of at least 3")
            shuffled = data["shuffled"]
            if not isinstance(shuffled, bool):
                raise ValueError("shuffled must be true or false")
            wasted_swaps = data.get("wasted_swaps", False)  # absent in states saved before the option
            if not isinstance(wasted_swaps, bool):
                raise ValueError("wasted_swaps must be true or false")
        return CandyState(
            board="".join(rows),
            colours=colours,
            score=counts["score"],
            moves=counts["moves"],
            max_moves=counts["max_moves"],
            seed=counts["seed"],
            last=last,
            waves=tuple(waves),
            shuffled=shuffled,
            wasted_swaps=wasted_swaps,
        )


_ACTION_SET = frozenset(ACTIONS)


def _int(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, not {value!r}")
    return value


def apply_all(state: CandyState, actions: Sequence[Action]) -> CandyState:
    """``state`` after ``actions`` in turn."""
    for action in actions:
        state = state.apply(action)
    return state
