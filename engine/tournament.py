"""Round-robin tournaments between players, scored the way GameBot scores them.

A :class:`TournamentPlan` names one or more two-seat games, a roster of at least two player specs
(``random``, a game's bot, ``sim``, a real model; ``default`` stands for each game's default
opponent) and ``M`` matches per pair. :meth:`TournamentPlan.fixtures` lists every match: each pair
``(i, j)`` with ``i < j`` plays ``M`` matches of every game, the first player of the pair in seat 0
(moving first) in ``ceil(M / 2)`` of them and the second player in the rest, alternately; match ``k``
of a game is seeded ``seed + k``, whatever the concurrency. A :class:`TournamentRunner` plays the
fixtures with asyncio, at most ``concurrency`` at once, each as a one-episode
:class:`engine.batch.BatchRunner`, so it is recorded exactly as ``playtrace run`` records an episode
(the front end injects the recorder factory, which also receives the match's tournament tags).

Scores (GameBot §4), per player and game, over the finished matches (``completed``, ``max_steps``,
``forfeit``): ``N``, ``W``, ``D``, ``L``; for ``Game.outcome == "win"`` games s1 = (W − L) / N; for
``"value"`` games s2 = the mean of :meth:`engine.core.Game.outcome_value`, reported scaled as
s2' = s2 / α with α = 2 · max over the players of s2 (players shown as "–" aside), so the best
player of the run gets 0.5; when no player's s2 is positive (everybody broke even or lost) α is 1
and s2 is reported unscaled. A player that forfeited more than half of its finished matches of a
game gets "–" there (the paper's Checkers entries: it rarely produced valid moves), counted as −0.5
in its average. The intermediate score of a
game, I_game, is the mean over the game's questions of the player's score on that question
(:func:`engine.questions.tally`: F1 or accuracy over every check of every match it played); players
without checks (random, bots) have none. S and I are the means over the games of the run, and the
final score is (S + I) / 2 (``None`` without an I, like the paper's Random row).

Everything scored is read from the match's events (:class:`MatchCollector`), so a table built while a
tournament runs and one rebuilt from its saved sessions (:func:`record_from_session`) are the same.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import secrets
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engine import events as ev
from engine.agent.verify import questions_for
from engine.batch import FINISHED_STATUSES, BatchPlan, BatchRunner, EpisodeStats, Recorder
from engine.core import Game, GameError
from engine.events import Event
from engine.llm.keys import mask_url_password
from engine.match import Match
from engine.questions import Question, Tally, tally
from engine.registry import make
from engine.roster import is_model_spec

__all__ = [
    "DEFAULT_ALIAS",
    "MISSING_SCORE",
    "Fixture",
    "MatchCollector",
    "MatchRecord",
    "PlayerTotal",
    "Progress",
    "ScoreTable",
    "Standing",
    "TournamentPlan",
    "TournamentResult",
    "TournamentRunner",
    "build_table",
    "record_from_session",
    "run_tournament",
]

#: The roster name that stands for each game's :attr:`~engine.core.Game.default_opponent`.
DEFAULT_ALIAS = "default"
#: What a "–" entry (a player that rarely played valid moves in a game) counts in its average S.
MISSING_SCORE = -0.5
#: The share of forfeited matches above which a player's entry for a game is "–".
DASH_FORFEIT_SHARE = 0.5
#: The key under which a match's tags are kept in its session manifest's ``extra``.
TAG = "tournament"

#: Makes the recorder of one match from the match (not started yet) and its tags (see
#: :meth:`Fixture.tags`); an exception fails that match.
TournamentRecordFactory = Callable[[Match, Mapping[str, Any]], Recorder]


def _new_id() -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{secrets.token_hex(2)}"


# -- the plan -------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Fixture:
    """One match of a tournament.

    Attributes:
        index: Its place among all the tournament's matches (the order they start in).
        game_id: The game.
        pair: The roster indices ``(i, j)``, ``i < j``, of the two players.
        match: Which of the pair's matches of this game (0 .. M − 1).
        seats: The roster names in seat order (seat 0 moves first).
        specs: The player specs in seat order (``default`` resolved to the game's opponent).
        seed: The match's seed.
    """

    index: int
    game_id: str
    pair: tuple[int, int]
    match: int
    seats: tuple[str, str]
    specs: tuple[str, str]
    seed: int

    def tags(self, plan: TournamentPlan) -> dict[str, Any]:
        """What the match's session records about its place in ``plan``'s tournament (the roster and
        games too, so that a report rebuilt from the sessions keeps their order)."""
        return {
            "id": plan.id,
            "game": self.game_id,
            "pair": list(self.pair),
            "match": self.match,
            "matches": plan.matches,
            "players": list(self.seats),
            "seed": self.seed,
            "roster": list(plan.players),
            "games": list(plan.games),
        }


@dataclasses.dataclass
class TournamentPlan:
    """What a round-robin plays.

    Attributes:
        games: One game id, or several (every pair plays every game).
        players: The roster: at least two distinct player specs (``default``: each game's default
            opponent). No ``human``: a tournament plays on its own.
        matches: Matches per pair and game, ``M`` (the paper plays 20).
        seed: Match ``k`` of a game is seeded ``seed + k``.
        options: Per game id, the game's options, already read against its schema.
        model_options: Harness options for the model players (ignored by bots).
        prompt_variant: The prompt variant model players use (``None``: the harness's default).
        concurrency: Matches played at once.
        max_steps: Stop a match after this many steps (it then counts as a draw).
        id: The tournament's id (recorded in every session); a new one by default.

    Raises:
        ValueError: a count out of range, fewer than two players, a repeated player or a human.
    """

    games: str | Sequence[str]
    players: Sequence[str]
    matches: int = 20
    seed: int = 0
    options: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)
    model_options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    prompt_variant: str | None = None
    concurrency: int = 4
    max_steps: int | None = None
    id: str = dataclasses.field(default_factory=_new_id)

    def __post_init__(self) -> None:
        games = [self.games] if isinstance(self.games, str) else list(self.games)
        self.games = list(dict.fromkeys(g.strip() for g in games if g.strip()))
        self.players = [p.strip() for p in self.players]
        self.options = {k: dict(v) for k, v in self.options.items()}
        self.model_options = dict(self.model_options)
        if self.prompt_variant:
            self.model_options["prompt_variant"] = self.prompt_variant
        if not self.games:
            raise ValueError("a tournament needs a game")
        if len(self.players) < 2:
            raise ValueError("a round-robin needs at least two players")
        repeated = sorted({p for p in self.players if self.players.count(p) > 1})
        if repeated:
            raise ValueError(f"each player takes part once; repeated: {', '.join(repeated)}")
        if "human" in self.players:
            raise ValueError("a tournament plays on its own: a human player cannot take part")
        if self.matches < 1:
            raise ValueError("each pair plays at least 1 match")
        if self.concurrency < 1:
            raise ValueError("a tournament plays at least 1 match at a time")
        if self.max_steps is not None and self.max_steps < 1:
            raise ValueError("max_steps must be at least 1")

    def make_game(self, game_id: str) -> Game:
        """A fresh game with its options (raises what :func:`engine.make` raises)."""
        return make(game_id, **dict(self.options.get(game_id, {})))

    def spec_for(self, game: Game | type[Game], player: str) -> str:
        """The spec that plays ``player``'s seat in ``game`` (``default``: its default opponent)."""
        return game.default_opponent if player == DEFAULT_ALIAS else player

    def check(self) -> None:
        """Check that every game can be played by every player, without playing.

        Raises:
            ValueError: a game that is unknown, unavailable or not for two players, or a player
                spec that names nothing in one of the games (the message says which and why).
        """
        for game_id in self.games:
            try:
                game = self.make_game(game_id)
            except GameError as exc:
                raise ValueError(str(exc)) from None
            if game.num_seats != 2:
                raise ValueError(f"{game.title} is a {game.num_seats}-seat game: a round-robin pits two "
                                 "players against each other, so it needs a two-seat game")
            for player in self.players:
                spec = self.spec_for(game, player)
                if spec != "random" and spec not in game.bots and not is_model_spec(spec):
                    bots = ", ".join(["random", *game.bots, DEFAULT_ALIAS, "sim", "openai:MODEL", "..."])
                    raise ValueError(f"unknown player {spec!r} for {game.id}; choose from: {bots}")

    def pairs(self) -> list[tuple[int, int]]:
        """Every pair of roster indices ``(i, j)``, ``i < j``, in order."""
        n = len(self.players)
        return [(i, j) for i in range(n) for j in range(i + 1, n)]

    def fixtures(self) -> list[Fixture]:
        """Every match of the tournament, game by game, pair by pair: in match ``m`` of a pair the
        pair's first player moves first when ``m`` is even (``ceil(M / 2)`` matches)."""
        out: list[Fixture] = []
        for game_id in self.games:
            cls_game = self.make_game(game_id)
            k = 0
            for i, j in self.pairs():
                for m in range(self.matches):
                    first, second = (i, j) if m % 2 == 0 else (j, i)
                    seats = (self.players[first], self.players[second])
                    specs = (self.spec_for(cls_game, seats[0]), self.spec_for(cls_game, seats[1]))
                    out.append(Fixture(len(out), game_id, (i, j), m, seats, specs, self.seed + k))
                    k += 1
        return out


# -- what one match contributes ---------------------------------------------------------------------------


@dataclasses.dataclass
class MatchRecord:
    """What one finished (or failed) match contributes to the tables.

    ``seats`` are roster names in seat order; ``values`` the :meth:`Game.outcome_value` per seat
    (value games only); ``checks`` the ``verification`` records per seat.
    """

    game_id: str
    seats: tuple[str, ...]
    labels: tuple[str, ...] = ()
    status: str = "pending"
    winner: int | None = None
    forfeited: tuple[int, ...] = ()
    values: tuple[float, ...] | None = None
    checks: dict[int, list[dict[str, Any]]] = dataclasses.field(default_factory=dict)
    invalid: dict[int, int] = dataclasses.field(default_factory=dict)
    fallbacks: dict[int, int] = dataclasses.field(default_factory=dict)
    steps: int = 0
    seed: int | None = None
    session: str | None = None
    error: str | None = None

    @property
    def finished(self) -> bool:
        """Whether the match counts in the scores."""
        return self.status in FINISHED_STATUSES

    def result_for(self, seat: int) -> str:
        """``"win"``, ``"draw"`` or ``"loss"`` for ``seat`` (a finished match)."""
        if self.winner is None:
            return "draw"
        return "win" if self.winner == seat else "loss"

    def summary(self) -> str:
        """One line: ``sim beat random`` / ``minimax drew with sim`` / ``sim vs random: error``."""
        a, b = self.seats[0], self.seats[1]
        if not self.finished:
            return f"{a} vs {b}: {self.status}"
        if self.winner is None:
            return f"{a} drew with {b}"
        win, lose = (a, b) if self.winner == 0 else (b, a)
        return f"{win} beat {lose}" + (" (forfeit)" if self.status == "forfeit" else "")


def _event_of(item: Event | Mapping[str, Any]) -> Event:
    if isinstance(item, Event):
        return item
    data = item.get("data")
    return Event(str(item.get("type", "")), dict(data) if isinstance(data, Mapping) else {},
                 step=item.get("step"), seat=item.get("seat"), call=item.get("call"))


class MatchCollector:
    """Reads one match's events (live :class:`Event` objects or a session's dicts) into a
    :class:`MatchRecord`; the outcome value is computed from the last state when the match ends."""

    def __init__(self, game: Game, seats: Sequence[str], *, seed: int | None = None) -> None:
        self.game = game
        self.stats = EpisodeStats(index=0, seed=seed or 0, num_seats=game.num_seats)
        self.record = MatchRecord(game.id, tuple(seats), seed=seed)
        self._state: Any = None

    def on_event(self, item: Event | Mapping[str, Any]) -> None:
        """Match listener (also fed the events of a saved session, in order)."""
        event = _event_of(item)
        self.stats.on_event(event)
        data, record = event.data, self.record
        if event.type == ev.SESSION_STARTED:
            players = data.get("players") or []
            record.labels = tuple(str(p.get("label") or p.get("spec") or "") for p in players
                                  if isinstance(p, Mapping))
            self._state = data.get("state", self._state)
        elif event.type == ev.ACTION_APPLIED:
            self._state = data.get("state", self._state)
        elif event.type == ev.VERIFICATION and event.seat is not None:
            record.checks.setdefault(int(event.seat), []).append(dict(data))
        elif event.type == ev.SESSION_FINISHED:
            record.forfeited = tuple(int(s) for s in data.get("forfeited") or ())
            self.finish(str(data.get("status", "completed")))

    def finish(self, status: str, error: str | None = None) -> MatchRecord:
        """Close the record with ``status`` (from the stats gathered); returns it."""
        record, stats = self.record, self.stats
        record.status = status
        record.winner = stats.winner
        record.steps = stats.steps
        record.invalid = dict(stats.invalid)
        record.fallbacks = dict(stats.fallback_seats)
        record.error = error or stats.error or record.error
        if record.finished and self.game.outcome == "value" and isinstance(self._state, Mapping):
            try:
                final = self.game.state_from_json(dict(self._state))
                record.values = tuple(self.game.outcome_value(final, s) for s in range(self.game.num_seats))
            except Exception as exc:  # noqa: BLE001  (a state that cannot be read loses the value only)
                record.error = f"outcome value unavailable: {exc}"
        return record


def record_from_session(
    manifest: Mapping[str, Any], events: Iterable[Mapping[str, Any]], *, game: Game | None = None
) -> MatchRecord | None:
    """A saved two-seat session as a :class:`MatchRecord` (``None`` for any other session).

    The roster names come from the session's tournament tags when it has them, else from the specs.
    ``game`` is the session's game, made from its manifest when not given.

    Raises:
        engine.core.GameError: the session's game cannot be made here.
    """
    players = [p for p in manifest.get("players") or () if isinstance(p, Mapping)]
    if len(players) != 2:
        return None
    found = manifest.get("extra")
    extra: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    found = extra.get(TAG)
    tags: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    names = tags.get("players")
    seats = [str(n) for n in names] if isinstance(names, list) and len(names) == 2 else [
        str(p.get("spec") or "?") for p in players]
    if game is None:
        game = make(str(manifest.get("game")), **dict(manifest.get("options") or {}))
    seed = manifest.get("seed")
    collector = MatchCollector(game, seats, seed=seed if isinstance(seed, int) else None)
    for item in events:
        collector.on_event(item)
    record = collector.record
    if record.status == "pending":  # cut short without session_finished: it never finished
        collector.finish(str(manifest.get("status") or "interrupted"))
    if not record.labels:
        record.labels = tuple(str(p.get("label") or p.get("spec") or "") for p in players)
    return record


# -- scores ---------------------------------------------------------------------------------------------


def _mean(values: Iterable[float]) -> float | None:
    listed = [v for v in values if v is not None and math.isfinite(v)]
    return statistics.fmean(listed) if listed else None


@dataclasses.dataclass
class Standing:
    """One player in one game: counts, outcome score and intermediate score."""

    player: str
    game_id: str
    outcome: str = "win"
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0
    errors: int = 0
    invalid: int = 0
    fallbacks: int = 0
    values: list[float] = dataclasses.field(default_factory=list)
    checks: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    #: Set by :func:`build_table`: α of the game (value games), the questions' tallies.
    alpha: float | None = None
    questions: list[Tally] = dataclasses.field(default_factory=list)

    @property
    def s1(self) -> float | None:
        """(W − L) / N."""
        return (self.wins - self.losses) / self.played if self.played else None

    @property
    def s2(self) -> float | None:
        """The mean outcome value (value games)."""
        return _mean(self.values)

    @property
    def s2_scaled(self) -> float | None:
        """s2 / α (unscaled when α is unknown)."""
        s2 = self.s2
        return None if s2 is None else s2 / (self.alpha or 1.0)

    @property
    def score(self) -> float | None:
        """The outcome score: s1, or s2' for value games; ``None`` without a finished match."""
        return self.s2_scaled if self.outcome == "value" else self.s1

    @property
    def dash(self) -> bool:
        """Shown as "–": the player forfeited more than half of its finished matches of the game."""
        return self.played > 0 and self.forfeits > DASH_FORFEIT_SHARE * self.played

    @property
    def counted(self) -> float | None:
        """What the game adds to S: :data:`MISSING_SCORE` for a "–", else the score."""
        return MISSING_SCORE if self.dash else self.score

    @property
    def intermediate(self) -> float | None:
        """I_game: the mean of the question scores; ``None`` without checks."""
        return _mean(t.score for t in self.questions if t.score is not None)

    def to_data(self) -> dict[str, Any]:
        return {
            "player": self.player, "game": self.game_id, "outcome_kind": self.outcome,
            "matches": self.played, "wins": self.wins, "draws": self.draws, "losses": self.losses,
            "forfeits": self.forfeits, "errors": self.errors, "invalid_answers": self.invalid,
            "fallback_moves": self.fallbacks, "s1": _r(self.s1), "s2": _r(self.s2),
            "s2_scaled": _r(self.s2_scaled) if self.outcome == "value" else None,
            "score": _r(self.score), "dash": self.dash, "counted": _r(self.counted),
            "intermediate": _r(self.intermediate),
            "questions": [t.to_data() for t in self.questions],
        }


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


@dataclasses.dataclass
class PlayerTotal:
    """One player over the games of the run: S, I and (S + I) / 2."""

    player: str
    label: str
    outcome: float | None
    intermediate: float | None

    @property
    def final(self) -> float | None:
        if self.outcome is None or self.intermediate is None:
            return None
        return (self.outcome + self.intermediate) / 2

    def to_data(self) -> dict[str, Any]:
        return {"player": self.player, "label": self.label, "S": _r(self.outcome),
                "I": _r(self.intermediate), "final": _r(self.final)}


@dataclasses.dataclass
class ScoreTable:
    """The tables of a tournament: a :class:`Standing` per player and game, a :class:`PlayerTotal`
    per player, ``ranking`` best first (by the final score, then S)."""

    games: list[str]
    players: list[str]
    labels: dict[str, str]
    standings: dict[tuple[str, str], Standing]
    totals: dict[str, PlayerTotal]

    def standing(self, game_id: str, player: str) -> Standing | None:
        return self.standings.get((game_id, player))

    @property
    def ranking(self) -> list[PlayerTotal]:
        def key(t: PlayerTotal) -> tuple[float, float]:
            final, s = t.final, t.outcome
            return (-(final if final is not None else -math.inf), -(s if s is not None else -math.inf))

        return sorted(self.totals.values(), key=key)

    def best(self, game_id: str | None, what: str) -> float | None:
        """The best value of a column: ``what`` is ``"score"`` / ``"intermediate"`` for a game, or
        ``"S"`` / ``"I"`` / ``"final"`` over the run (``game_id`` ``None``)."""
        if game_id is None:
            attr = {"S": "outcome", "I": "intermediate", "final": "final"}[what]
            values = [getattr(t, attr) for t in self.totals.values()]
        else:
            values = [getattr(s, what) if not (what == "score" and s.dash) else None
                      for (g, _), s in self.standings.items() if g == game_id]
        present = [v for v in values if v is not None]
        return max(present) if present else None

    @property
    def matches(self) -> int:
        """Finished matches counted (each counted once, not once per player)."""
        return sum(s.played for s in self.standings.values()) // 2

    def to_data(self) -> dict[str, Any]:
        return {
            "games": list(self.games),
            "players": [{"player": p, "label": self.labels.get(p, p)} for p in self.players],
            "standings": [s.to_data() for s in self.standings.values()],
            "totals": [t.to_data() for t in self.ranking],
        }


def build_table(
    records: Iterable[MatchRecord | None],
    *,
    games: Sequence[str] | None = None,
    players: Sequence[str] | None = None,
    questions: Mapping[str, Sequence[Question]] | None = None,
) -> ScoreTable:
    """Score ``records`` (see the module's documentation for every formula).

    ``games`` and ``players`` fix the order of rows and columns (default: as first met); a player
    gets a standing in every game it played at least one match of. ``questions`` gives each game's
    declared questions (for the metric of each); by default they are loaded from the games.
    """
    order_games = list(games or [])
    # Players are named as they may be shown: a password in a server's URL never reaches a table.
    order_players = [mask_url_password(p) for p in players or []]
    seen: dict[str, set[str]] = {}
    standings: dict[tuple[str, str], Standing] = {}
    outcome_kind: dict[str, str] = {}
    for record in records:
        if record is None:
            continue
        if record.game_id not in order_games:
            order_games.append(record.game_id)
        kind = outcome_kind.get(record.game_id)
        if kind is None:
            kind = outcome_kind[record.game_id] = _outcome_kind(record.game_id, record)
        for seat, spec in enumerate(record.seats):
            player = mask_url_password(spec)
            if player not in order_players:
                order_players.append(player)
            if seat < len(record.labels) and record.labels[seat]:
                seen.setdefault(player, set()).add(record.labels[seat])
            st = standings.get((record.game_id, player))
            if st is None:
                st = standings[(record.game_id, player)] = Standing(player, record.game_id, kind)
            st.invalid += record.invalid.get(seat, 0)
            st.fallbacks += record.fallbacks.get(seat, 0)
            st.checks.extend(record.checks.get(seat, ()))
            if not record.finished:
                st.errors += 1
                continue
            st.played += 1
            result = record.result_for(seat)
            st.wins += result == "win"
            st.draws += result == "draw"
            st.losses += result == "loss"
            st.forfeits += seat in record.forfeited
            if record.values is not None and seat < len(record.values):
                st.values.append(float(record.values[seat]))
    for game_id in order_games:
        rows = [s for (g, _), s in standings.items() if g == game_id]
        if outcome_kind.get(game_id) == "value":
            # The best shown entry gets 0.5: a "–" (a player that mostly forfeited) sets no scale.
            top = max((s.s2 for s in rows if s.s2 is not None and not s.dash), default=None)
            alpha = 2 * top if top is not None and top > 0 else 1.0
            for s in rows:
                s.alpha = alpha
        declared = (questions or {}).get(game_id)
        if declared is None:
            declared = _questions_of(game_id)
        for s in rows:
            s.questions = list(tally(s.checks, declared).values())
    # A player's label is its seat's (``Minimax``) unless it differs between games (``default``).
    labels = {p: next(iter(names)) if len(names) == 1 else p for p, names in seen.items()}
    totals: dict[str, PlayerTotal] = {}
    for player in order_players:
        rows = [standings[(g, player)] for g in order_games if (g, player) in standings]
        totals[player] = PlayerTotal(
            player, labels.get(player, player),
            _mean(s.counted for s in rows if s.counted is not None),
            _mean(s.intermediate for s in rows if s.intermediate is not None),
        )
    ordered = {(g, p): standings[(g, p)] for g in order_games for p in order_players if (g, p) in standings}
    return ScoreTable(order_games, order_players, labels, ordered, totals)


def _outcome_kind(game_id: str, record: MatchRecord) -> str:
    if record.values is not None:
        return "value"
    try:
        from engine.registry import declaration

        return str(declaration(game_id).outcome)
    except Exception:  # noqa: BLE001  (a game not installed here: its records decide)
        return "win"


_QUESTIONS: dict[str, tuple[Question, ...]] = {}


def _questions_of(game_id: str) -> tuple[Question, ...]:
    if game_id not in _QUESTIONS:
        try:
            _QUESTIONS[game_id] = tuple(questions_for(make(game_id)))
        except Exception:  # noqa: BLE001  (not installed here: tallies fall back on the labels)
            _QUESTIONS[game_id] = ()
    return _QUESTIONS[game_id]


# -- running ----------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Progress:
    """A step of a running tournament: a match ``started`` or ``finished`` (then with its record)."""

    kind: str
    fixture: Fixture
    record: MatchRecord | None
    done: int
    total: int


@dataclasses.dataclass
class TournamentResult:
    """A tournament as it stands (live while it runs, final once :meth:`TournamentRunner.run` returns).

    ``records`` has one entry per fixture, ``None`` until the match ends (and for matches never
    started because the tournament was stopped or interrupted).
    """

    plan: TournamentPlan
    fixtures: list[Fixture]
    records: list[MatchRecord | None]
    interrupted: bool = False
    stopped: str | None = None
    #: A model could not be used at all (a rejected key, an unknown model name): the matches it met
    #: ended in error (never ranked) and the tournament stopped; run it again once that is fixed.
    model_unusable: str | None = None
    elapsed_s: float = 0.0

    @property
    def done(self) -> int:
        return sum(1 for r in self.records if r is not None)

    @property
    def total(self) -> int:
        return len(self.fixtures)

    @property
    def errors(self) -> int:
        """Matches that ended in an error."""
        return sum(1 for r in self.records if r is not None and r.status == "error")

    def table(self) -> ScoreTable:
        """The score tables of the matches played so far."""
        return build_table(self.records, games=list(self.plan.games), players=list(self.plan.players))

    @property
    def sessions(self) -> list[str]:
        return [r.session for r in self.records if r is not None and r.session]


class TournamentRunner:
    """Plays a :class:`TournamentPlan`, at most ``plan.concurrency`` matches at once.

    ``record(match, tags)`` records each match (a session folder; see :meth:`Fixture.tags`);
    ``on_progress(progress)`` hears each match start and finish; ``on_notice(message)`` gets the
    one-line notices of the batch runner (a budget warning). Callbacks run on the event loop.
    Errors of one match end that match with status ``error``, never the tournament.
    """

    def __init__(
        self,
        plan: TournamentPlan,
        *,
        record: TournamentRecordFactory | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        plan.check()
        self.plan = plan
        self.record = record
        self._on_progress = on_progress
        self._on_notice = on_notice
        fixtures = plan.fixtures()
        self.result = TournamentResult(plan, fixtures, [None] * len(fixtures))
        self._tasks: list[asyncio.Task[None]] = []
        self._started = False

    def stop(self, reason: str = "stopped") -> None:
        """Start no more matches and abort the running ones (recorded as ``aborted``); :meth:`run`
        then returns what was played."""
        if self.result.stopped is not None:
            return
        self.result.stopped = reason
        for task in self._tasks:
            task.cancel()

    async def run(self) -> TournamentResult:
        """Play every fixture and return the result.

        Cancelling the task running this (Ctrl+C) aborts the running matches, marks the result as
        interrupted and re-raises :class:`asyncio.CancelledError`.
        """
        if self._started:
            raise RuntimeError("a TournamentRunner runs once; make another one")
        self._started = True
        loop = asyncio.get_running_loop()
        started = loop.time()
        sem = asyncio.Semaphore(self.plan.concurrency)
        self._tasks = [asyncio.create_task(self._one(f, sem), name=f"match-{f.index}")
                       for f in self.result.fixtures]
        try:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        except asyncio.CancelledError:
            self.result.interrupted = True
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            raise
        finally:
            self.result.elapsed_s = loop.time() - started
        for task in self._tasks:
            if not task.cancelled() and task.exception() is not None:  # a bug here: surface it
                raise task.exception()  # type: ignore[misc]
        return self.result

    def _progress(self, kind: str, fixture: Fixture, record: MatchRecord | None) -> None:
        if self._on_progress is not None:
            self._on_progress(Progress(kind, fixture, record, self.result.done, self.result.total))

    async def _one(self, fixture: Fixture, sem: asyncio.Semaphore) -> None:
        async with sem:
            game = self.plan.make_game(fixture.game_id)
            collector = MatchCollector(game, fixture.seats, seed=fixture.seed)
            batch = BatchPlan(
                fixture.game_id, specs=list(fixture.specs), episodes=1, seed=fixture.seed,
                options=self.plan.options.get(fixture.game_id, {}),
                model_options=self.plan.model_options, max_steps=self.plan.max_steps, concurrency=1,
            )
            tags = fixture.tags(self.plan)
            factory = self.record
            runner = BatchRunner(
                batch,
                record=(lambda match: factory(match, tags)) if factory is not None else None,
                on_event=lambda _stats, event: collector.on_event(event),
                on_notice=self._on_notice,
            )
            self._progress("started", fixture, None)
            try:
                outcome = await runner.run()
            except asyncio.CancelledError:
                if self.result.stopped is None:
                    raise
                if collector.record.status in FINISHED_STATUSES:
                    # It ended just before the stop reached it: its session says so, and so does the table.
                    self.result.records[fixture.index] = collector.record
                    self._progress("finished", fixture, collector.record)
                    return
                collector.finish("aborted")
                return  # a stopped match does not count: its session says "aborted"
            stats = outcome.stats[0]
            record = collector.record
            if record.status == "pending" or stats.status not in FINISHED_STATUSES:
                collector.finish(stats.status, stats.error)
            record.session = str(stats.path) if stats.path else None
            self.result.records[fixture.index] = record
            self._progress("finished", fixture, record)
            if outcome.model_unusable and self.result.model_unusable is None:
                self.result.model_unusable = outcome.model_unusable
                self.stop(outcome.model_unusable)


async def run_tournament(
    plan: TournamentPlan,
    *,
    record: TournamentRecordFactory | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> TournamentResult:
    """Play ``plan`` with a :class:`TournamentRunner` and return its result."""
    return await TournamentRunner(plan, record=record, on_progress=on_progress).run()

