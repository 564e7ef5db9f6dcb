"""Leaderboards across games and suites, from the sessions under a folder.

Per game and player (a seat's player spec): episodes, the seat's mean final score with its standard
error, for games of several seats the win score S (win 1, draw ½, loss 0) and for every game the
intermediate-answer accuracy I (correct / checked, where the prompts asked), and for one-seat games
each figure the game reports at the end (LMGame-Bench's raw and progress scores, LVLM-Playground's
points, GVGAI's rewards...). Which figure heads a game's column is the game's own declaration
(:attr:`engine.core.Game.raw_score`; else S for several seats, else the score).

The cross-suite view normalises each game's headline figure to [0, 1] between the lowest and the
highest player on the board (min-max per game, as LMGame-Bench's leaderboard puts games of different
scales side by side) and averages it over the games each player played. The sessions are read through
the search index (:mod:`sessions.search`), so a board over thousands of sessions is quick.
"""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from sessions.search import SearchIndex

__all__ = ["Board", "Entry", "build", "to_csv", "to_html", "to_markdown"]

_FINISHED = ("completed", "max_steps", "forfeit")


@dataclasses.dataclass
class Entry:
    """One player at one game."""

    game: str
    player: str
    episodes: int = 0
    scores: list[float] = dataclasses.field(default_factory=list)
    outcomes: list[float] = dataclasses.field(default_factory=list)
    figures: dict[str, list[float]] = dataclasses.field(default_factory=lambda: defaultdict(list))
    asked: int = 0
    correct: int = 0
    headline_name: str = "score"
    normalised: float | None = None

    @staticmethod
    def _mean_se(values: Sequence[float]) -> tuple[float | None, float | None]:
        if not values:
            return None, None
        se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else None
        return statistics.fmean(values), se

    @property
    def score(self) -> tuple[float | None, float | None]:
        return self._mean_se(self.scores)

    @property
    def s(self) -> float | None:
        return statistics.fmean(self.outcomes) if self.outcomes else None

    @property
    def i(self) -> float | None:
        return self.correct / self.asked if self.asked else None

    @property
    def headline(self) -> float | None:
        if self.headline_name == "S":
            return self.s
        if self.headline_name == "score":
            return self.score[0]
        return self._mean_se(self.figures.get(self.headline_name, []))[0]

    def to_json(self) -> dict[str, Any]:
        mean, se = self.score
        return {
            "game": self.game,
            "player": self.player,
            "episodes": self.episodes,
            "score": mean,
            "score_se": se,
            "S": self.s,
            "I": self.i,
            "headline": self.headline_name,
            "headline_value": self.headline,
            "normalised": self.normalised,
            "figures": {k: self._mean_se(v)[0] for k, v in sorted(self.figures.items())},
        }


@dataclasses.dataclass
class Board:
    entries: list[Entry]
    overall: list[tuple[str, float, int]]  #: (player, mean normalised headline, games)

    def to_json(self) -> dict[str, Any]:
        return {
            "games": [e.to_json() for e in self.entries],
            "overall": [{"player": p, "normalised": round(v, 4), "games": n} for p, v, n in self.overall],
        }


def _headline(game_id: str, seats: int) -> str:
    try:
        from engine.registry import declaration

        raw = declaration(game_id).raw_score
    except Exception:  # a game this PlayTrace does not know: its sessions still count by score
        raw = None
    if raw and seats == 1:
        return raw
    return "S" if seats > 1 else "score"


def build(indexes: Sequence[SearchIndex], game: str | None = None) -> Board:
    """The leaderboard of the sessions the ``indexes`` hold (one game's, with ``game``)."""
    where = f"status IN ({', '.join('?' * len(_FINISHED))})"
    params: list[Any] = list(_FINISHED)
    if game is not None:
        where += " AND game = ?"
        params.append(game)
    sql = f"SELECT game, players, scores, winner, metrics FROM sessions WHERE {where}"
    rows = [row for index in indexes for row in index.query(sql, params).rows]
    entries: dict[tuple[str, str], Entry] = {}
    seats_of: dict[str, int] = {}
    for game_id, players_json, scores_json, winner, metrics_json in rows:
        players = json.loads(players_json or "[]")
        scores = json.loads(scores_json or "[]")
        metrics = json.loads(metrics_json or "{}") or {}
        if not players or len(scores) < len(players):
            continue
        seats_of[game_id] = max(seats_of.get(game_id, 0), len(players))
        for seat, spec in enumerate(players):
            e = entries.setdefault((game_id, str(spec)), Entry(game_id, str(spec)))
            e.episodes += 1
            if isinstance(scores[seat], (int, float)):
                e.scores.append(float(scores[seat]))
            if len(players) > 1:
                if isinstance(winner, int):
                    e.outcomes.append(1.0 if winner == seat else 0.0)
                elif all(isinstance(x, (int, float)) for x in scores):
                    best = max(scores)
                    ties = sum(x == best for x in scores)
                    e.outcomes.append((1.0 if ties == 1 else 0.5) if scores[seat] == best else 0.0)
            elif isinstance(metrics, Mapping):
                for key, value in metrics.items():
                    if (
                        isinstance(value, (int, float))
                        and not isinstance(value, bool)
                        and math.isfinite(value)
                    ):
                        e.figures[key].append(float(value))
    for index in indexes:
        checks = index.query(
            "SELECT game, player, sum(questions_asked), sum(questions_correct) FROM steps "
            "WHERE questions_asked > 0 GROUP BY game, player"
        ).rows
        for game_id, player, asked, correct in checks:
            found = entries.get((game_id, str(player)))
            if found is not None:
                found.asked += int(asked)
                found.correct += int(correct)
    by_game: dict[str, list[Entry]] = defaultdict(list)
    for e in entries.values():
        e.headline_name = _headline(e.game, seats_of.get(e.game, 1))
        by_game[e.game].append(e)
    totals: dict[str, list[float]] = defaultdict(list)
    for group in by_game.values():
        values = [e.headline for e in group if e.headline is not None]
        lo, hi = (min(values), max(values)) if values else (0.0, 0.0)
        for e in group:
            if e.headline is None:
                continue
            e.normalised = (e.headline - lo) / (hi - lo) if hi > lo else 1.0
            totals[e.player].append(e.normalised)
    overall = sorted(
        ((p, statistics.fmean(v), len(v)) for p, v in totals.items()), key=lambda t: (-t[1], t[0])
    )
    ordered = sorted(entries.values(), key=lambda e: (e.game, -(e.headline or -math.inf), e.player))
    return Board(ordered, overall)


def _num(x: float | None) -> str:
    """Four significant digits, no exponent below a million."""
    if x is None:
        return "–"
    if x == 0 or abs(x) >= 1e6:
        return f"{x:.4g}"
    digits = max(0, 3 - math.floor(math.log10(abs(x))))
    return f"{x:,.{digits}f}".rstrip("0").rstrip(".") if digits else f"{x:,.0f}"


def _rows(board: Board) -> tuple[list[str], list[list[str]]]:
    head = ["game", "player", "n", "headline", "value", "score ± SE", "S", "I", "normalised"]
    rows = []
    for e in board.entries:
        mean, se = e.score
        score = _num(mean) if se is None else f"{_num(mean)} ± {_num(se)}"
        rows.append(
            [
                e.game,
                e.player,
                str(e.episodes),
                e.headline_name,
                _num(e.headline),
                score,
                _num(e.s),
                _num(e.i),
                _num(e.normalised),
            ]
        )
    return head, rows


def _overall_rows(board: Board) -> tuple[list[str], list[list[str]]]:
    return ["#", "player", "games", "mean normalised"], [
        [str(n), p, str(g), _num(v)] for n, (p, v, g) in enumerate(board.overall, 1)
    ]


def to_markdown(board: Board) -> str:
    def table(head: list[str], rows: list[list[str]]) -> list[str]:
        out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
        return out

    lines = [
        "## Overall (each game's headline normalised to [0, 1] between the lowest and highest player)",
        "",
    ]
    lines += table(*_overall_rows(board))
    lines += ["", "## Per game", ""] + table(*_rows(board))
    return "\n".join(lines) + "\n"


def to_csv(board: Board) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        ["game", "player", "episodes", "headline", "value", "score", "score_se", "S", "I", "normalised"]
    )
    for e in board.entries:
        mean, se = e.score
        w.writerow(
            [e.game, e.player, e.episodes, e.headline_name, e.headline, mean, se, e.s, e.i, e.normalised]
        )
    return buf.getvalue()


def to_html(board: Board, title: str = "PlayTrace leaderboard") -> str:
    """One self-contained page: the overall bars (inline SVG) and both tables; nothing is fetched."""
    import html

    def table(head: list[str], rows: list[list[str]]) -> str:
        th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
        return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"

    bar_h, width, label_w = 26, 640, 220
    bars = []
    for n, (player, value, games) in enumerate(board.overall):
        y = n * bar_h
        w = max(1.0, value * (width - label_w - 60))
        bars.append(
            f'<text x="{label_w - 8}" y="{y + 17}" text-anchor="end">{html.escape(player)}</text>'
            f'<rect x="{label_w}" y="{y + 4}" width="{w:.1f}" height="{bar_h - 8}" fill="#1d4ed8"></rect>'
            f'<text x="{label_w + w + 6:.1f}" y="{y + 17}">{value:.2f} ({games})</text>'
        )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{max(1, len(bars)) * bar_h}" '
        f'font-family="system-ui, sans-serif" font-size="13">{"".join(bars)}</svg>'
    )
    csp = "default-src 'none'; style-src 'unsafe-inline'"
    style = (
        "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#111827}"
        "table{border-collapse:collapse;margin:8px 0 24px}th,td{border-bottom:1px solid #e5e7eb;"
        "padding:4px 10px;text-align:left}th{background:#f3f4f6}"
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}"><title>{html.escape(title)}</title>'
        f"<style>{style}</style></head><body><h1>{html.escape(title)}</h1>"
        "<h2>Overall</h2><p>Each game's headline figure normalised to [0, 1] between the lowest and the "
        "highest player, averaged over the games a player played (games in brackets).</p>"
        f"{svg}{table(*_overall_rows(board))}<h2>Per game</h2>{table(*_rows(board))}</body></html>\n"
    )
