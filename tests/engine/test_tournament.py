"""Round-robin tournaments (:mod:`engine.tournament`): the fixtures, real offline runs, and the GameBot
score formulas checked against hand-computed numbers and the paper's Table 2 / Table 3 rows.

Nothing here touches the network or the disk: matches are recorded in memory.
"""

from __future__ import annotations

import asyncio
import math
import socket
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import events as ev
from engine.events import Event
from engine.match import Match
from engine.questions import ACCURACY, F1, Question
from engine.tournament import (
    MISSING_SCORE,
    MatchRecord,
    Progress,
    TournamentPlan,
    TournamentRunner,
    build_table,
    record_from_session,
)

FAST = {"latency": 0, "reflection": False}


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("a tournament test tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    yield


class MemoryRecorder:
    """An :class:`engine.batch.Recorder` keeping the events and the tags of one match."""

    def __init__(self, match: Match, tags: Mapping[str, Any]) -> None:
        self.match, self.tags = match, dict(tags)
        self.events: list[Event] = []
        self.closed: list[str] = []

    @property
    def path(self) -> Path | None:
        return Path(f"memory/{self.tags['game']}/{self.match.seed}")

    def listener(self, event: Event) -> None:
        self.events.append(event)

    def close(self, status: str) -> None:
        self.closed.append(status)


def play(plan: TournamentPlan) -> tuple[Any, list[MemoryRecorder], list[Progress]]:
    made: list[MemoryRecorder] = []
    heard: list[Progress] = []

    def record(match: Match, tags: Mapping[str, Any]) -> MemoryRecorder:
        made.append(MemoryRecorder(match, tags))
        return made[-1]

    result = asyncio.run(TournamentRunner(plan, record=record, on_progress=heard.append).run())
    return result, made, heard


# -- the plan ---------------------------------------------------------------------------------------------


def test_every_pair_plays_m_matches_with_the_first_move_alternating() -> None:
    plan = TournamentPlan("tictactoe", ["sim", "random", "minimax"], matches=5, seed=100)
    fixtures = plan.fixtures()
    assert len(fixtures) == 3 * 5
    assert [f.seed for f in fixtures] == list(range(100, 115))  # deterministic, one seed per match
    for pair in [(0, 1), (0, 2), (1, 2)]:
        games = [f for f in fixtures if f.pair == pair]
        a, b = plan.players[pair[0]], plan.players[pair[1]]
        assert len(games) == 5
        assert sum(f.seats[0] == a for f in games) == math.ceil(5 / 2) == 3  # A first in ceil(M/2)
        assert sum(f.seats[0] == b for f in games) == 2
        assert all(set(f.seats) == {a, b} for f in games)
    assert plan.fixtures() == fixtures  # the same plan gives the same fixtures


def test_default_stands_for_each_games_default_opponent() -> None:
    plan = TournamentPlan("tictactoe", ["random", "default"], matches=2)
    first = plan.fixtures()[0]
    assert first.seats == ("random", "default")
    assert first.specs == ("random", engine.declaration("tictactoe").default_opponent)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": ["random"]}, "at least two players"),
        ({"players": ["random", "random"]}, "repeated: random"),
        ({"players": ["random", "human"]}, "human"),
        ({"matches": 0}, "at least 1 match"),
        ({"concurrency": 0}, "at least 1 match at a time"),
    ],
)
def test_impossible_plans_are_refused(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"games": "tictactoe", "players": ["random", "minimax"], **kwargs}
    with pytest.raises(ValueError, match=message):
        TournamentPlan(**args)


def test_a_single_seat_game_is_refused_with_a_clear_error() -> None:
    plan = TournamentPlan("2048", ["random", "sim"])
    with pytest.raises(ValueError, match=r"2048 is a 1-seat game: .*needs a two-seat game"):
        plan.check()
    with pytest.raises(ValueError, match="two-seat game"):
        TournamentRunner(plan)


def test_an_unknown_player_is_refused_naming_the_game() -> None:
    with pytest.raises(ValueError, match=r"unknown player 'alphazero' for tictactoe; choose from: random, "):
        TournamentPlan("tictactoe", ["random", "alphazero"]).check()


# -- real runs -----------------------------------------------------------------------------------------


def test_minimax_never_loses_to_random() -> None:
    result, made, heard = play(TournamentPlan("tictactoe", ["minimax", "random"], matches=6, concurrency=3))
    assert result.done == result.total == 6 and result.errors == 0
    table = result.table()
    mm, rnd = table.standing("tictactoe", "minimax"), table.standing("tictactoe", "random")
    assert mm is not None and rnd is not None
    assert mm.played == rnd.played == 6
    assert mm.losses == 0 and mm.wins >= 1
    assert (mm.wins, mm.draws, mm.losses) == (rnd.losses, rnd.draws, rnd.wins)
    assert mm.s1 == pytest.approx(mm.wins / 6)
    # Minimax moved first (played X) in three matches; each match was recorded once, with its tags.
    assert sorted(r.tags["match"] for r in made) == list(range(6))
    assert sum(r.tags["players"][0] == "minimax" for r in made) == 3
    assert all(r.closed == ["completed"] for r in made)
    assert all(r.tags["id"] == result.plan.id for r in made)
    kinds = [p.kind for p in heard]
    assert kinds.count("started") == kinds.count("finished") == 6
    assert [p.done for p in heard if p.kind == "finished"] == list(range(1, 7))


def test_sim_random_and_a_bot_round_robin_counts_and_questions() -> None:
    plan = TournamentPlan("tictactoe", ["sim", "random", "minimax"], matches=4, concurrency=4,
                          model_options=FAST, prompt_variant="cot")
    result, made, _ = play(plan)
    assert result.done == 12 and result.errors == 0
    table = result.table()
    rows = {p: table.standing("tictactoe", p) for p in plan.players}
    assert all(s is not None and s.played == 8 for s in rows.values())  # 2 opponents x 4 matches
    assert sum(s.wins for s in rows.values()) == sum(s.losses for s in rows.values())  # type: ignore[union-attr]
    assert rows["minimax"].losses == 0  # type: ignore[union-attr]
    # Only the model answers intermediate questions: the bots have no I, like the paper's Random row.
    sim = rows["sim"]
    assert sim is not None and [q.key for q in sim.questions] == [1, 2]
    assert all(q.metric == F1 and q.asked > 0 for q in sim.questions)
    assert sim.intermediate == pytest.approx(sum(q.score for q in sim.questions) / 2)  # type: ignore[misc]
    assert rows["random"].intermediate is None and rows["minimax"].questions == []  # type: ignore[union-attr]
    totals = table.totals
    assert totals["random"].final is None and totals["minimax"].final is None
    assert totals["sim"].final == pytest.approx((totals["sim"].outcome + totals["sim"].intermediate) / 2)
    # The checks counted are exactly the verification events the sim's seats recorded.
    recorded = sum(1 for r in made for e in r.events if e.type == ev.VERIFICATION)
    assert sum(q.asked + q.not_applicable for q in sim.questions) == recorded


def test_a_table_rebuilt_from_the_events_equals_the_live_one() -> None:
    plan = TournamentPlan("tictactoe", ["sim", "random"], matches=2, model_options=FAST)
    result, made, _ = play(plan)
    game = engine.make("tictactoe")
    rebuilt = []
    for r in made:
        manifest = {"game": "tictactoe", "seed": r.match.seed, "extra": {"tournament": r.tags},
                    "players": [r.match.player_info(s) for s in range(2)]}
        events = [{"type": e.type, "data": e.data, "seat": e.seat, "step": e.step} for e in r.events]
        rebuilt.append(record_from_session(manifest, events, game=game))
    live, again = result.table(), build_table(rebuilt, games=["tictactoe"], players=plan.players)
    assert again.to_data() == live.to_data()


def test_stopping_aborts_running_matches_and_keeps_what_was_played() -> None:
    plan = TournamentPlan("tictactoe", ["minimax", "random"], matches=8, concurrency=1)
    made: list[MemoryRecorder] = []

    def record(match: Match, tags: Mapping[str, Any]) -> MemoryRecorder:
        made.append(MemoryRecorder(match, tags))
        return made[-1]

    runner: TournamentRunner

    def on_progress(p: Progress) -> None:
        if p.kind == "finished" and p.done == 2:
            runner.stop("enough")

    runner = TournamentRunner(plan, record=record, on_progress=on_progress)
    result = asyncio.run(runner.run())
    assert result.stopped == "enough" and not result.interrupted
    assert result.done == 2 and result.table().standing("tictactoe", "minimax").played == 2  # type: ignore[union-attr]
    assert all(r.closed in (["completed"], ["aborted"]) for r in made)


# -- the formulas -----------------------------------------------------------------------------------------


def win_records(game: str, a: str, b: str, s1: float, n: int = 100) -> list[MatchRecord]:
    """``n`` matches in which ``a`` scores exactly ``s1`` = (W − L) / N against ``b``."""
    margin = round(s1 * n)
    wins, losses = max(margin, 0), max(-margin, 0)
    out = []
    for i in range(n):
        winner = 0 if i < wins else (1 if i < wins + losses else None)
        out.append(MatchRecord(game, (a, b), status="completed", winner=winner))
    return out


def value_records(game: str, a: str, b: str, scaled: float) -> list[MatchRecord]:
    """One match in which ``a``'s value is ``2 * scaled`` and ``b``'s is 1.0, so that α = 2 · 1.0 and
    ``a``'s s2' is ``scaled`` (and ``b``'s the best, 0.5)."""
    return [MatchRecord(game, (a, b), status="completed", winner=None, values=(2 * scaled, 1.0))]


def accuracy_checks(score: float, n: int = 100) -> list[dict[str, Any]]:
    right = round(score * n)
    return [{"key": 1, "question": "q", "correct": i < right,
             "detail": {"label": "correct" if i < right else "incorrect"}} for i in range(n)]


ONE_ACCURACY_QUESTION = [Question(1, "q", truth=lambda view, seat: 0, kind="number")]
PAPER_GAMES = ["p_othello", "p_pong", "p_surround", "p_checkers", "p_tictactoe", "p_connect4",
               "p_holdem", "p_bargaining"]


def paper_row(
    player: str, outcome: list[float | None], intermediate: list[float] | None
) -> list[MatchRecord]:
    """Records giving ``player`` the paper's per-game scores (``None``: a "–" it forfeited)."""
    records: list[MatchRecord] = []
    for g, (game, s) in enumerate(zip(PAPER_GAMES, outcome, strict=True)):
        if game in ("p_holdem", "p_bargaining"):
            records += value_records(game, player, "random", s)  # type: ignore[arg-type]
        elif s is None:  # forfeited 3 of 4 matches: the paper's "rarely valid moves"
            records += [MatchRecord(game, (player, "random"), status="forfeit", winner=1, forfeited=(0,))
                        for _ in range(3)]
            records.append(MatchRecord(game, (player, "random"), status="completed", winner=0))
        else:
            records += win_records(game, player, "random", s)
        if intermediate is not None:
            records[-1].checks[0] = accuracy_checks(intermediate[g])
    return records


def test_gpt4o_row_of_tables_2_and_3() -> None:
    s_row = [0.35, 0.45, 0.62, 0.27, 0.34, 0.45, 0.50, 0.35]
    i_row = [0.44, 0.92, 0.43, 0.27, 0.61, 0.18, 0.85, 0.44]
    questions = {g: ONE_ACCURACY_QUESTION for g in PAPER_GAMES}
    table = build_table(paper_row("gpt-4o", s_row, i_row), questions=questions)
    for game, expected in zip(PAPER_GAMES, s_row, strict=True):
        assert table.standing(game, "gpt-4o").score == pytest.approx(expected)  # type: ignore[union-attr]
    total = table.totals["gpt-4o"]
    assert round(total.outcome, 2) == 0.42  # type: ignore[arg-type]
    assert round(total.intermediate, 2) == 0.52  # type: ignore[arg-type]
    assert total.final == pytest.approx((0.41625 + 0.5175) / 2)
    assert abs(total.final - 0.47) <= 0.005  # §5.4: (0.42 + 0.52) / 2  # type: ignore[operator]
    assert table.totals["random"].intermediate is None and table.totals["random"].final is None


def test_a_dash_counts_minus_half_reka_core_row() -> None:
    row = [-0.11, -0.15, -0.45, None, -0.12, 0.23, 0.12, -0.28]
    table = build_table(paper_row("reka-core", row, None))
    checkers = table.standing("p_checkers", "reka-core")
    assert checkers is not None and checkers.dash and checkers.counted == MISSING_SCORE
    assert checkers.forfeits == 3 and checkers.played == 4
    assert table.totals["reka-core"].outcome == pytest.approx(-1.26 / 8)  # the printed −0.16
    # The column's best ignores the "–": random's (3 − 1) / 4.
    assert table.best("p_checkers", "score") == pytest.approx(0.5)
    # The paper's Gemini-Pro row (also a Checkers "–") averages to −0.18, printed −0.17: within rounding.
    row = [-0.10, -0.28, -0.30, None, -0.11, -0.40, 0.40, -0.15]
    gemini = build_table(paper_row("gemini-pro", row, None))
    assert gemini.totals["gemini-pro"].outcome == pytest.approx(-1.44 / 8)
    assert abs(gemini.totals["gemini-pro"].outcome - (-0.17)) <= 0.01 + 1e-9  # type: ignore[operator]


def test_s1_by_hand() -> None:
    records = [MatchRecord("g", ("a", "b"), status="completed", winner=w) for w in (0, 0, 0, 1, None)]
    records.append(MatchRecord("g", ("b", "a"), status="error"))  # not counted, reported as an error
    table = build_table(records, questions={"g": ()})
    a, b = table.standing("g", "a"), table.standing("g", "b")
    assert a is not None and b is not None
    assert (a.played, a.wins, a.draws, a.losses, a.errors) == (5, 3, 1, 1, 1)
    assert a.s1 == pytest.approx(0.4) and b.s1 == pytest.approx(-0.4)
    assert table.totals["a"].outcome == pytest.approx(0.4)


def test_s2_is_scaled_so_the_best_is_one_half() -> None:
    # Three players; values per match (seat order): a gains 6 and 2, b gains 3, c loses.
    records = [
        MatchRecord("v", ("a", "b"), status="completed", winner=0, values=(6.0, -6.0)),
        MatchRecord("v", ("b", "a"), status="completed", winner=1, values=(-2.0, 2.0)),
        MatchRecord("v", ("b", "c"), status="completed", winner=0, values=(3.0, -3.0)),
        MatchRecord("v", ("c", "a"), status="completed", winner=None, values=(0.0, 0.0)),
    ]
    table = build_table(records, questions={"v": ()})
    a, b, c = (table.standing("v", p) for p in "abc")
    assert a.s2 == pytest.approx(8 / 3) and b.s2 == pytest.approx(-5 / 3) and c.s2 == pytest.approx(-1.5)  # type: ignore[union-attr]
    alpha = 2 * 8 / 3
    assert a.alpha == pytest.approx(alpha)  # type: ignore[union-attr]
    assert a.score == pytest.approx(0.5)  # type: ignore[union-attr]
    assert b.score == pytest.approx((-5 / 3) / alpha) and c.score == pytest.approx(-1.5 / alpha)  # type: ignore[union-attr]


def test_s2_stays_unscaled_when_nobody_gained() -> None:
    records = [MatchRecord("v", ("a", "b"), status="completed", winner=None, values=(0.0, 0.0))]
    table = build_table(records, questions={"v": ()})
    a = table.standing("v", "a")
    assert a is not None and a.alpha == 1.0 and a.score == 0.0


def test_intermediate_is_the_mean_of_the_question_scores() -> None:
    questions = {"g": [Question(1, "wins", truth=lambda v, s: [], kind="set", metric=F1),
                       Question(2, "value", truth=lambda v, s: 0, kind="number", metric=ACCURACY)]}

    def check(key: int, label: str, correct: bool | None, truth: Any = None) -> dict[str, Any]:
        return {"key": key, "question": "", "correct": correct, "truth": truth, "detail": {"label": label}}

    # Q1 (F1): TP, FP, FN, TN → P = 1 / (1 + 1) = 0.5, R = 1 / (1 + 1) = 0.5, F1 = 0.5
    # Q2 (accuracy): 3 right of 4, one not applicable (not counted) → 0.75
    record = MatchRecord("g", ("m", "r"), status="completed", winner=0, checks={0: [
        check(1, "TP", True), check(1, "FP", False), check(1, "FN", False), check(1, "TN", True),
        check(2, "correct", True), check(2, "correct", True), check(2, "correct", True),
        check(2, "incorrect", False), check(2, "not_applicable", None),
    ]})
    table = build_table([record], questions=questions)
    m = table.standing("g", "m")
    assert m is not None
    assert [round(q.score, 4) for q in m.questions] == [0.5, 0.75]  # type: ignore[arg-type]
    assert m.questions[1].not_applicable == 1 and m.questions[1].asked == 4
    assert m.intermediate == pytest.approx(0.625)
    total = table.totals["m"]
    assert total.outcome == pytest.approx(1.0)  # s1 of one win
    assert total.final == pytest.approx((1.0 + 0.625) / 2)


# -- every GameBot game ------------------------------------------------------------------------------------


def _gamebot_games() -> list[str]:
    return [e.id for e in engine.entries()
            if e.available and e.cls is not None and "gamebot" in e.cls.suites and len(e.cls.seats) == 2]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("game_id", _gamebot_games())
def test_every_gamebot_game_plays_a_small_round_robin_offline(game_id: str) -> None:
    plan = TournamentPlan(game_id, ["sim", "random", "default"], matches=1, concurrency=3, model_options=FAST)
    result, made, _ = play(plan)
    assert result.done == 3, [r.summary() for r in result.records if r is not None]
    assert result.errors == 0, [r.error for r in result.records if r is not None]
    table = result.table()
    assert all(table.standing(game_id, p).played == 2 for p in plan.players)  # type: ignore[union-attr]
    assert all(t.outcome is not None for t in table.totals.values())
    assert table.totals["random"].intermediate is None
    if engine.declaration(game_id).questions:
        assert table.totals["sim"].intermediate is not None  # the curated prompt asks its questions
        assert table.totals["sim"].final is not None
    if engine.declaration(game_id).outcome == "value":
        best = max(s.score for s in table.standings.values() if s.score is not None)
        assert best == pytest.approx(0.5) or all(s.alpha == 1.0 for s in table.standings.values())
