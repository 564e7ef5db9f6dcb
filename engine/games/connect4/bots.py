"""Connect Four search: negamax with alpha-beta pruning on bitboards, a transposition table, centre-first
move ordering and a threat-counting evaluation.

The board is two integers in the classic layout (each column is 7 bits, 6 rows and a sentinel, the
bottom row in the lowest bit): ``mask`` holds every disc and ``mine`` the discs of the side to move.
"Threats" are the empty cells that would complete four for one side, computed for the whole board
with a few shifts; the evaluation counts them and the discs in the centre column. A search of fixed
depth (no clock) keeps every decision reproducible; at the default depth a move takes well under
200 ms (see ``benchmarks/bench_gamebot.py``).

No maintained Python package offers a Connect Four engine one can call per position (the strong
solvers are C++ programs with opening books), so the search lives here, in some 150 lines.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.bots.base import SearchBot
from engine.core import Action, Game
from engine.games.connect4.rules import COLS, MARKS, ROWS, ConnectFourState, winning_moves
from engine.players import Observation

H1 = ROWS + 1  # bits per column (6 rows and a sentinel bit)
BOTTOM = sum(1 << (c * H1) for c in range(COLS))
BOARD = BOTTOM * ((1 << ROWS) - 1)
CENTRE = ((1 << ROWS) - 1) << (COLS // 2 * H1)
#: Columns from the centre outwards: the usual best-first order.
ORDER = (3, 2, 4, 1, 5, 0, 6)
COLUMN_MASKS = tuple(((1 << ROWS) - 1) << (c * H1) for c in range(COLS))
#: A win's value; a win ``p`` plies from the root is worth ``WIN - p``.
WIN = 1000
#: Default search depth in plies.
DEPTH = 7


def threats(stones: int, mask: int) -> int:
    """Empty cells where one more disc would complete four for the side holding ``stones``."""
    # Vertical: three stacked stones below.
    r = (stones << 1) & (stones << 2) & (stones << 3)
    for shift in (H1, ROWS, ROWS + 2):  # horizontal and the two diagonals
        p = (stones << shift) & (stones << 2 * shift)
        r |= p & (stones << 3 * shift)
        r |= p & (stones >> shift)
        p = (stones >> shift) & (stones >> 2 * shift)
        r |= p & (stones << shift)
        r |= p & (stones >> 3 * shift)
    return r & (BOARD ^ mask)


def bitboards(state: ConnectFourState) -> tuple[int, int]:
    """``(mine, mask)`` for the side to move in ``state``."""
    mover = MARKS[state.mover]
    mine = mask = 0
    for i, v in enumerate(state.cells):
        if v:
            bit = 1 << ((i % COLS) * H1 + i // COLS)
            mask |= bit
            if v == mover:
                mine |= bit
    return mine, mask


def evaluate(mine: int, mask: int) -> int:
    """A static value for the side to move: threats (weighted by whether they can be reached soon)
    and centre discs, mine minus the opponent's."""
    theirs = mine ^ mask
    my_threats = threats(mine, mask)
    their_threats = threats(theirs, mask)
    playable = (mask + BOTTOM) & BOARD
    # A threat right above a playable cell is about to matter; one on a playable cell is decisive
    # (the search handles those before evaluating).
    score = 6 * ((my_threats & (playable << 1)).bit_count() - (their_threats & (playable << 1)).bit_count())
    score += 3 * (my_threats.bit_count() - their_threats.bit_count())
    score += (mine & CENTRE).bit_count() - (theirs & CENTRE).bit_count()
    return score


class Searcher:
    """One search: negamax with alpha-beta over bitboards, sharing a transposition table."""

    def __init__(self) -> None:
        self.table: dict[tuple[int, int], tuple[int, int, int]] = {}
        self.nodes = 0

    def negamax(self, mine: int, mask: int, ply: int, depth: int, alpha: int, beta: int) -> int:
        """The value of the position for the side to move (``ply`` plies below the root)."""
        self.nodes += 1
        moves = mask.bit_count()
        if moves >= ROWS * COLS:
            return 0
        possible = (mask + BOTTOM) & BOARD
        if threats(mine, mask) & possible:
            return WIN - ply - 1
        theirs = mine ^ mask
        their_threats = threats(theirs, mask)
        forced = their_threats & possible
        if forced:
            if forced & (forced - 1):
                return -(WIN - ply - 2)  # two threats at once: one cannot block both
            possible = forced
        # Never play right under an opponent's threat (it would hand them the cell).
        possible &= ~(their_threats >> 1)
        if not possible:
            return -(WIN - ply - 2)
        if depth <= 0:
            return evaluate(mine, mask)
        key = (mine, mask)
        entry = self.table.get(key)
        if entry is not None and entry[0] >= depth:
            _, flag, value = entry
            if flag == 0:
                return value
            if flag > 0:
                alpha = max(alpha, value)
            else:
                beta = min(beta, value)
            if alpha >= beta:
                return value
        original_alpha = alpha
        best = -WIN * 2
        children = []
        for c in ORDER:
            move = possible & COLUMN_MASKS[c]
            if move:
                # Moves that make more threats first (then centre-first, from ORDER's stable sort).
                children.append((-threats(mine | move, mask | move).bit_count(), move))
        children.sort(key=lambda t: t[0])
        for _, move in children:
            value = -self.negamax(theirs, mask | move, ply + 1, depth - 1, -beta, -alpha)
            if value > best:
                best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
        flag = 0 if original_alpha < best < beta else (1 if best >= beta else -1)
        self.table[key] = (depth, flag, best)
        return best


def action_values(state: ConnectFourState, depth: int = DEPTH) -> dict[Action, float]:
    """The search value of every legal move for the side to move (``WIN - plies`` for a forced win)."""
    mine, mask = bitboards(state)
    searcher = Searcher()
    values: dict[Action, float] = {}
    for action in state.legal_actions():
        c = int(action.strip("()").split(",")[1])
        move = ((mask + BOTTOM) & BOARD) & COLUMN_MASKS[c]
        if threats(mine, mask) & move:
            values[action] = float(WIN - 1)
            continue
        child_mask = mask | move
        theirs = mine ^ mask
        values[action] = float(-searcher.negamax(theirs, child_mask, 1, depth - 1, -WIN * 2, WIN * 2))
    return values


class AlphaBetaBot(SearchBot):
    """Negamax with alpha-beta to a fixed depth (7 plies); among equal moves it picks one with its
    seeded RNG, preferring nothing in particular."""

    spec = "alphabeta"
    label = "Alpha-beta"

    def __init__(self, game: Game, seed: int | None = None, depth: int = DEPTH) -> None:
        super().__init__(game, seed)
        self.depth = depth

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, ConnectFourState)
        values = action_values(state, self.depth)
        return {a: values[a] for a in observation.legal_actions if a in values}

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        state = observation.state
        assert isinstance(state, ConnectFourState)
        value = values[action]
        me, them = MARKS[state.mover], MARKS[1 - state.mover]
        if value >= WIN - 1:
            return f"{action} completes four {me} in a row and wins now"
        if value > WIN - 100:
            return f"{action} forces a win in {int(WIN - value)} plies whatever {them} does"
        if value < -(WIN - 100):
            plies = int(WIN + value)
            return f"every move loses against best play; {action} holds out longest ({plies} plies)"
        if action in winning_moves(state, them):
            return f"{action} blocks {them}'s four in a row"
        return f"{action} scores best in a {self.depth}-ply search ({value:+.0f}: threats and centre control)"
