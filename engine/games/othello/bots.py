"""Othello's built-in bots: greedy (most discs flipped), alpha-beta with GameBot's heuristic, and
alpha-beta on the disc difference (LVLM-Playground's Reversi opponent).

The alpha-beta bot is the generic :class:`~engine.bots.search.SearchTreeBot` (depth 3, like
LVLM-Playground's Reversi opponent) with the weights of GameBot's reference "algorithm" player turned
into a position evaluation, each term counted for the searching seat minus its opponent:

* corner disc +100;
* disc next to an empty corner (the X- and C-squares) -50;
* other edge disc +30;
* wedge move available (see :func:`~engine.games.othello.rules.wedge_moves`) +80;
* frontier disc (next to an empty square) -2;
* legal move +2 (so each opponent move is -2: GameBot's "opponent mobility -2 each").
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.bots.base import SearchBot
from engine.bots.search import WIN, SearchTreeBot
from engine.core import Action, Seat, State
from engine.games.othello.rules import (
    _DIRECTIONS,
    CORNER_MASK,
    CORNERS,
    EDGE_MASK,
    FULL,
    PASS,
    OthelloState,
    _shift,
    flips,
    legal_mask,
    wedge_moves,
)
from engine.players import Observation

__all__ = ["AlphaBetaBot", "DiscDifferenceBot", "GreedyBot", "PositionalBot", "evaluate", "features"]

CORNER, NEAR_EMPTY_CORNER, EDGE, WEDGE, FRONTIER, MOBILITY = 100, -50, 30, 80, -2, 2

#: The X- and C-squares of each corner (the three squares touching it).
_NEIGHBOURS = {
    0: (1 << 1) | (1 << 8) | (1 << 9),
    7: (1 << 6) | (1 << 15) | (1 << 14),
    56: (1 << 48) | (1 << 57) | (1 << 49),
    63: (1 << 62) | (1 << 55) | (1 << 54),
}


def _count(mask: int) -> int:
    return mask.bit_count()


def features(state: OthelloState, seat: Seat) -> dict[str, int]:
    """The heuristic's raw counts for ``seat`` and its opponent (``"corners"``, ``"opp_corners"``...)."""
    own, opp = state.discs(seat), state.discs(1 - seat)
    empty = ~(own | opp) & FULL
    danger = 0
    for corner, near in _NEIGHBOURS.items():
        if empty >> corner & 1:
            danger |= near
    touching = 0
    for shift, mask in _DIRECTIONS:
        touching |= _shift(empty, shift, mask)
    plain_edge = EDGE_MASK & ~danger
    return {
        "corners": _count(own & CORNER_MASK),
        "opp_corners": _count(opp & CORNER_MASK),
        "near_corner": _count(own & danger),
        "opp_near_corner": _count(opp & danger),
        "edges": _count(own & plain_edge),
        "opp_edges": _count(opp & plain_edge),
        "wedges": len(wedge_moves(own, opp, state.wedge)),
        "opp_wedges": len(wedge_moves(opp, own, state.wedge)),
        "frontier": _count(own & touching),
        "opp_frontier": _count(opp & touching),
        "mobility": _count(legal_mask(own, opp)),
        "opp_mobility": _count(legal_mask(opp, own)),
    }


def evaluate(state: OthelloState, seat: Seat) -> float:
    """GameBot's weights as a position value for ``seat`` (higher is better)."""
    f = features(state, seat)
    return float(
        CORNER * (f["corners"] - f["opp_corners"])
        + NEAR_EMPTY_CORNER * (f["near_corner"] - f["opp_near_corner"])
        + EDGE * (f["edges"] - f["opp_edges"])
        + WEDGE * (f["wedges"] - f["opp_wedges"])
        + FRONTIER * (f["frontier"] - f["opp_frontier"])
        + MOBILITY * (f["mobility"] - f["opp_mobility"])
    )


def flip_count(state: OthelloState, action: Action) -> int:
    """How many discs ``action`` flips for the mover (0 for a pass)."""
    index = state.naming.read(action) if action != PASS else None
    if index is None:
        return 0
    return _count(flips(state.discs(state.mover), state.discs(1 - state.mover), index))


class GreedyBot(SearchBot):
    """Plays the move that flips the most discs (ties broken by its seeded RNG)."""

    spec = "greedy"
    label = "Greedy"

    def evaluate(self, observation: Observation) -> dict[Action, float]:
        state = observation.state
        assert isinstance(state, OthelloState)
        return {a: float(flip_count(state, a)) for a in observation.legal_actions}

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        if action == PASS:
            return "no legal move: pass"
        return f"{action} flips {int(values[action])} disc(s), the most of {len(values)} moves"


class AlphaBetaBot(SearchTreeBot):
    """Depth-3 alpha-beta over GameBot's positional heuristic (see the module's documentation)."""

    spec = "alphabeta"
    label = "Alpha-beta"
    depth = 3

    def heuristic(self, state: State, seat: Seat) -> float:
        assert isinstance(state, OthelloState)
        return evaluate(state, seat)

    def terminal(self, state: State, seat: Seat) -> float:
        """A finished game: a win or loss dwarfs any heuristic; the disc margin orders results."""
        assert isinstance(state, OthelloState)
        margin = float(state.scores[seat] - state.scores[1 - seat])
        if state.winner == seat:
            return WIN + margin
        if state.winner is not None:
            return -WIN + margin
        return 0.0

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        state = observation.state
        assert isinstance(state, OthelloState)
        if action == PASS:
            return "no legal move: pass"
        index = state.naming.read(action)
        notes = []
        own, opp = state.discs(state.mover), state.discs(1 - state.mover)
        if index in CORNERS:
            notes.append("takes a corner")
        elif action in wedge_moves(own, opp, state.wedge, state.naming.cells):
            notes.append("wedges into an edge")
        notes.append(f"flips {flip_count(state, action)}")
        after = state.apply(action)
        notes.append(f"leaves the opponent {len(after.moves_of(1 - state.mover))} move(s)")
        return f"{action}: {', '.join(notes)}; " + super().explain(observation, action, values)


class PositionalBot(AlphaBetaBot):
    """:class:`AlphaBetaBot` under the name Reversi offers it by (``"positional"``): its
    ``"alphabeta"`` is LVLM-Playground's :class:`DiscDifferenceBot`."""

    spec = "positional"
    label = "Alpha-beta (positional)"


class DiscDifferenceBot(SearchTreeBot):
    """LVLM-Playground's Reversi opponent: depth-3 alpha-beta whose positions at the horizon are worth
    the searcher's discs minus the opponent's.

    The reference code scores the horizon from the side to move there rather than from the searcher,
    which flips the sign on odd plies; PlayTrace searches the evaluation the paper describes ("alpha-beta
    pruning over simulated moves with a scoring system", the disc difference), from the searcher's side
    throughout. A pass is a ply here, as it is in the rules; a finished game is a win or loss (see
    :class:`~engine.bots.search.SearchTreeBot`).
    """

    spec = "alphabeta"
    label = "Alpha-beta (disc difference)"
    depth = 3

    def heuristic(self, state: State, seat: Seat) -> float:
        assert isinstance(state, OthelloState)
        return float(state.discs(seat).bit_count() - state.discs(1 - seat).bit_count())

    def explain(self, observation: Observation, action: Action, values: Mapping[Action, float]) -> str:
        state = observation.state
        assert isinstance(state, OthelloState)
        if action == PASS:
            return "no legal move: pass"
        return f"{action}: flips {flip_count(state, action)}; " + super().explain(observation, action, values)
