"""Hold'em matches (LMGame-Bench's Appendix G): the single hand stays the default, a 40-hand mirrored
match plays to the end with every deal replayed from the other side, views keep the deck and the
opponent's folded cards private, states round-trip through JSON, the style metrics count bets, raises,
calls and folds as the paper defines them, a recorded session carries them, and the V0-V2 prompts load.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

import engine
import sessions
from engine.agent.prompts import load_template, variants
from engine.games.holdem import CALL, FOLD, HALF_POT, POT, HoldemState
from engine.games.holdem.match import SeatStyle, cards_for_hand, style_label
from engine.match import Match
from engine.options import OptionError
from engine.roster import make_player
from sessions import SessionWriter

MATCH = engine.make("holdem", hands=40, mirrored=True)


def finished(game: engine.Game, seed: int, rng_seed: int = 1) -> HoldemState:
    rng = random.Random(rng_seed)
    state = game.initial_state(seed=seed)
    while not state.is_over:
        state = game.play_random(state, rng)
    assert isinstance(state, HoldemState)
    return state


def test_the_single_hand_stays_the_default() -> None:
    game = engine.make("holdem")
    state = game.initial_state(seed=4)
    assert (state.hands, state.past, state.deal_seed) == (1, (), None)
    assert "match" not in state.to_json() and "one hand" in game.rules_text()
    end = finished(game, 4)
    assert end.hand == 0 and end.scores == tuple(float(x) for x in end.facts().payoffs)
    assert end.metrics()["hands_played"] == 1.0


def test_a_mirrored_forty_hand_match_plays_every_deal_from_both_seats() -> None:
    state = MATCH.initial_state(seed=7)
    assert state.hands == 40 and state.hand == 0 and "40 hands" in MATCH.rules_text()
    first = state.cards
    # Play out hand 1 and look at hand 2: the same deal, the seats' hole cards and the button swapped.
    rng = random.Random(3)
    while state.hand == 0:
        state = MATCH.play_random(state, rng)
    assert state.cards == first[2:4] + first[0:2] + first[4:] and state.button == 1
    while state.hand == 1:
        state = MATCH.play_random(state, rng)
    assert state.cards != first and state.cards == cards_for_hand(7, 2, True) and state.button == 0
    end = finished(MATCH, 7)
    assert end.hand == 39 and len(end.past) == 39 and end.is_over
    assert end.scores[0] == -end.scores[1] == sum(p.payoffs[0] for p in end.past) + end.facts().payoffs[0]
    assert end.step == sum(len(p.history) for p in end.past) + len(end.history)
    assert end.metrics()["hands_played"] == 40.0 and end.metrics()["chips_p1"] == end.scores[0]
    assert end.winner == (0 if end.scores[0] > 0 else 1 if end.scores[0] < 0 else None)


def test_unmirrored_matches_deal_afresh_and_the_button_alternates() -> None:
    game = engine.make("holdem", hands=3)
    state = game.initial_state(seed=2)
    seen = [(state.cards, state.button)]
    rng = random.Random(0)
    while not state.is_over:
        before = state.hand
        state = game.play_random(state, rng)
        if state.hand != before:
            seen.append((state.cards, state.button))
    assert [b for _, b in seen] == [0, 1, 0] and len({c for c, _ in seen}) == 3


@pytest.mark.parametrize("options", [{"mirrored": True}, {"hands": 3, "mirrored": True}])
def test_mirrored_needs_an_even_number_of_hands(options: dict[str, object]) -> None:
    with pytest.raises(OptionError, match="even"):
        engine.make("holdem", **options)


def test_a_seats_view_keeps_the_deck_and_the_folded_cards_private() -> None:
    rng = random.Random(5)
    state = MATCH.initial_state(seed=11)
    while len(state.past) < 8:
        state = MATCH.play_random(state, rng)
    for seat in (0, 1):
        view = state.observe(seat)
        assert view.deal_seed is None and view.to_json()["match"]["deal_seed"] is None
        for full, seen in zip(state.past, view.past, strict=True):
            other = 1 - seat
            assert seen.cards[2 * seat : 2 * seat + 2] == full.cards[2 * seat : 2 * seat + 2]
            hidden = seen.cards[2 * other : 2 * other + 2]
            assert hidden == (full.cards[2 * other : 2 * other + 2] if full.showdown else (None, None))
            assert all(c is None for c in seen.cards[4 + full.board :])
        assert "Match: hand 9 of 40" in view.text() and "Last hand:" in view.text()
    assert state.match_line is not None and state.match_line.startswith("Hand 9 of 40 (deal 5)")
    last = state.past[-1]
    winner = 0 if last.payoffs[0] > 0 else 1
    assert (
        state.observe(winner).last_hand == f"Hand 8: {'showdown' if last.showdown else 'fold'}, you won "
        f"{last.payoffs[winner]} chips"
    )


def test_match_states_round_trip_through_json() -> None:
    rng = random.Random(8)
    state = MATCH.initial_state(seed=3)
    while len(state.past) < 5:
        state = MATCH.play_random(state, rng)
    for s in (state, state.observe(0), finished(MATCH, 3)):
        back = MATCH.state_from_json(json.loads(json.dumps(s.to_json())))
        assert back == s and back.scores == s.scores and back.metrics() == s.metrics()
    broken = state.to_json()
    broken["match"]["past"] = broken["match"]["past"][:-1]
    with pytest.raises(engine.GameError, match="past must hold every hand"):
        MATCH.state_from_json(broken)


def test_style_metrics_count_as_the_paper_defines_them() -> None:
    game = engine.make("holdem", hands=2)
    state = game.initial_state(seed=1)
    # Hand 1 (seat 0 deals and acts first): a pot-sized raise, and seat 1 folds.
    state = state.apply(POT).apply(FOLD)
    assert state.hand == 1 and state.button == 1
    # Hand 2 (seat 1 deals): it calls the big blind, seat 0 raises half the pot, seat 1 calls; then
    # both check to the showdown (checks are not calls).
    state = state.apply(CALL).apply(HALF_POT).apply(CALL)
    while not state.is_over:
        state = state.apply(CALL)
    m = state.metrics()
    assert (m["bets_raises_p1"], m["calls_p1"], m["folds_p1"]) == (2.0, 0.0, 0.0)
    assert (m["bets_raises_p2"], m["calls_p2"], m["folds_p2"]) == (0.0, 2.0, 1.0)
    assert m["aggression_factor_p1"] == 2.0  # no call at all: bets + raises
    assert (m["aggression_factor_p2"], m["fold_rate_p2"], m["fold_rate_p1"]) == (0.0, 0.5, 0.0)
    assert [s.label for s in state.styles()] == ["LAG", "LP"]
    assert style_label(1.0, 0.72) == "TAG" and style_label(0.99, 0.8) == "TP"
    assert SeatStyle(40, 30, 10, 30).aggression_factor == 3.0 and SeatStyle(40, 30, 10, 30).fold_rate == 0.75


def test_a_recorded_match_carries_the_style_metrics(tmp_path: Path) -> None:
    game = engine.make("holdem", hands=4, mirrored=True)
    players = [make_player("equity", game, seed=1), make_player("caller", game, seed=2)]
    match = Match(game, players, seed=9)
    writer = SessionWriter.for_match(tmp_path, match, title="style")
    asyncio.run(match.run())
    writer.close()
    session = sessions.load_session(writer.path)
    finish = next(e for e in session.events if e["type"] == "session_finished")
    metrics = finish["data"]["metrics"]
    final = session.state_at(len(session.steps))
    assert isinstance(final, HoldemState) and final.is_over and final.hand == 3
    assert metrics["hands_played"] == 4.0 and metrics == pytest.approx(final.metrics())
    # The caller never bets, raises or folds.
    assert (metrics["bets_raises_p2"], metrics["folds_p2"], metrics["aggression_factor_p2"]) == (0, 0, 0)
    assert metrics["chips_p1"] == -metrics["chips_p2"]


@pytest.mark.parametrize("variant", ["v0", "v1", "v2"])
def test_lmgame_benchs_poker_prompts_are_variants(variant: str) -> None:
    assert variant in variants(MATCH)
    template = load_template(MATCH, variant)
    assert template.placeholders >= {"state", "legal_moves"} and "Chosen Action:" in template.user
    assert "match" in template.user and "match" in template.system
    named = {"v0": "Rules-Only", "v1": "Strategic Heuristics", "v2": "Passive Bias"}[variant]
    assert named in template.text  # the paper's name for the prompt, in the file's header
    strategy = {"v0": None, "v1": "Pot odds", "v2": "See more cards"}[variant]
    assert (strategy is None and "## Strategy" not in template.user) or (strategy or "") in template.user
