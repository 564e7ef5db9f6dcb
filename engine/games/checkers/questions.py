"""Checkers' intermediate questions (GameBot) and their exact oracles.

1. **King-making moves**: the legal moves of a *man* that end on its promotion row (row 7 for White,
   row 0 for Black). GameBot's code asks instead that the move does not start on that row; asking
   for a man is the exact form (a king moving along the far row makes no new king).
2. **Worthless-die moves**: legal moves after which the opponent can capture the piece just moved
   and the player then has no capture of the capturing piece. This is the exact simulation the
   GameBot specification recommends, not the reference code's neighbour heuristic; it applies to every
   legal move (a capture can also end where it is taken back for nothing), and a capture sequence of
   the opponent that takes the moved piece anywhere along its path counts.
3. **Two-for-one shots**: legal moves after which the opponent is forced to capture (captures are
   mandatory) and, whichever capture it chooses, the player then has a capture sequence of at least
   two jumps. GameBot's code counts a move when *some* opponent capture allows such a reply; the
   paper's "forces" is the opponent having no way out, which is what is asked here.

Answers are sets of moves written like actions, ``(r,c)->(r,c)`` (a multi-jump with its full path),
scored by F1. The oracles read the board and the asking seat's colour only, whoever is to move, so
they also answer for a finished or hypothetical position.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.core import Seat, State
from engine.games.checkers.rules import (
    MEN,
    PROMOTION_ROW,
    CheckersState,
    action_name,
    apply_move,
    legal_moves,
    parse_paths,
)
from engine.questions import F1, Question, format_items

__all__ = [
    "QUESTIONS",
    "king_moves",
    "looks_exposed",
    "sacrifices",
    "two_for_one_moves",
    "worthless_moves",
    "write_moves",
]


def _board(state: State) -> str:
    if not isinstance(state, CheckersState):
        raise TypeError(f"not a checkers state: {type(state).__name__}")
    return state.board


def write_moves(moves: Sequence[str]) -> str:
    """A set answer as the prompt asks for it: ``"(2,1)->(3,2), (5,0)->(3,2)->(1,4)"`` or ``"None"``."""
    return format_items(sorted(set(moves)))


def king_moves(board: str, color: Seat) -> list[str]:
    """Legal moves of ``color`` by a man that end on its promotion row."""
    row = PROMOTION_ROW[color]
    return [
        action_name(path)
        for path, _ in legal_moves(board, color)
        if board[path[0]] == MEN[color] and path[-1] // 8 == row
    ]


def worthless_moves(board: str, color: Seat) -> list[str]:
    """Legal moves of ``color`` whose moved piece the opponent can capture at once, with no capture of
    the capturing piece in return."""
    found = []
    for move in legal_moves(board, color):
        after = apply_move(board, move)
        moved = move[0][-1]
        for reply in legal_moves(after, 1 - color):
            if not reply[1]:
                break  # the opponent has no capture at all
            if moved not in reply[1]:
                continue
            capturer = reply[0][-1]
            answers = legal_moves(apply_move(after, reply), color)
            if not any(capturer in captured for _, captured in answers):
                found.append(action_name(move[0]))
                break
    return found


def two_for_one_moves(board: str, color: Seat) -> list[str]:
    """Legal moves of ``color`` that force the opponent to capture and, whatever it captures, leave
    ``color`` a capture sequence of two jumps or more."""
    found = []
    for move in legal_moves(board, color):
        after = apply_move(board, move)
        replies = legal_moves(after, 1 - color)
        if not replies or not replies[0][1]:
            continue  # no forced capture
        if all(
            any(len(captured) >= 2 for _, captured in legal_moves(apply_move(after, reply), color))
            for reply in replies
        ):
            found.append(action_name(move[0]))
    return found


# -- the mistakes a model makes (for the simulated model) ---------------------------------------------


def looks_exposed(board: str, color: Seat) -> list[str]:
    """Simple moves that end next to an opponent piece able to jump that way, whether or not the
    square behind is free or a recapture exists: the shallow reading GameBot's code uses, and the
    usual way a model overcounts worthless-die moves."""
    out = []
    opponent = 1 - color
    for path, captured in legal_moves(board, color):
        if captured:
            continue
        r, c = divmod(path[-1], 8)
        for dr in (-1, 1):
            for dc in (-1, 1):
                rr, cc = r + dr, c + dc
                if not (0 <= rr < 8 and 0 <= cc < 8):
                    continue
                piece = board[rr * 8 + cc]
                forward = 1 if opponent == 0 else -1
                if (piece == MEN[opponent] and -dr == forward) or piece == MEN[opponent].upper():
                    out.append(action_name(path))
    return list(dict.fromkeys(out))


def sacrifices(board: str, color: Seat) -> list[str]:
    """Legal moves that force the opponent to capture (a sacrifice, not necessarily a shot)."""
    out = []
    for move in legal_moves(board, color):
        replies = legal_moves(apply_move(board, move), 1 - color)
        if replies and replies[0][1]:
            out.append(action_name(move[0]))
    return out


def _differ(truth: list[str], options: Sequence[list[str]], rng: random.Random) -> list[str]:
    """The first of ``options`` that differs from ``truth``; else ``truth`` with one move dropped."""
    for option in options:
        if sorted(set(option)) != sorted(set(truth)):
            return sorted(set(option))
    return sorted(truth)[:-1] if truth else []


def _wrong_kings(truth: list[str], view: State, seat: Seat, rng: random.Random) -> list[str]:
    """A missed crowning, or a move one row short of it (or a king's move to the far row) taken for one."""
    board = _board(view)
    row = PROMOTION_ROW[seat]
    short = [
        action_name(p)
        for p, _ in legal_moves(board, seat)
        if board[p[0]] == MEN[seat] and p[-1] // 8 == row + (-1 if seat == 0 else 1)
    ]
    kings = [
        action_name(p) for p, _ in legal_moves(board, seat) if board[p[0]] != MEN[seat] and p[-1] // 8 == row
    ]
    extra = short + kings
    options: list[list[str]] = []
    if truth and rng.random() < 0.5:
        lost = rng.choice(truth)
        options.append([a for a in truth if a != lost])
    if extra:
        options.append([*truth, rng.choice(extra)])
    return _differ(truth, options, rng)


def _wrong_worthless(truth: list[str], view: State, seat: Seat, rng: random.Random) -> list[str]:
    """The shallow reading (every move next to an attacker), or a missed one."""
    board = _board(view)
    options = [looks_exposed(board, seat)]
    if truth:
        lost = rng.choice(truth)
        options.insert(rng.randrange(2), [a for a in truth if a != lost])
    return _differ(truth, options, rng)


def _wrong_shots(truth: list[str], view: State, seat: Seat, rng: random.Random) -> list[str]:
    """A plain sacrifice taken for a shot, or the shot missed."""
    board = _board(view)
    fakes = [a for a in sacrifices(board, seat) if a not in truth]
    options: list[list[str]] = []
    if truth:
        options.append([])
    if fakes:
        options.append([*truth, rng.choice(fakes)])
    rng.shuffle(options)
    return _differ(truth, options, rng)


def _asked(oracle: Any) -> Any:
    def truth(view: State, seat: Seat) -> list[str]:
        return list(oracle(_board(view), seat))

    truth.__doc__ = oracle.__doc__
    truth.__name__ = oracle.__name__
    return truth


QUESTIONS = (
    Question(
        1,
        "king-making moves",
        _asked(king_moves),
        parse=parse_paths,
        write=write_moves,
        kind="set",
        metric=F1,
        wrong=_wrong_kings,
    ),
    Question(
        2,
        "worthless-die moves",
        _asked(worthless_moves),
        parse=parse_paths,
        write=write_moves,
        kind="set",
        metric=F1,
        wrong=_wrong_worthless,
    ),
    Question(
        3,
        "two-for-one moves",
        _asked(two_for_one_moves),
        parse=parse_paths,
        write=write_moves,
        kind="set",
        metric=F1,
        wrong=_wrong_shots,
    ),
)
