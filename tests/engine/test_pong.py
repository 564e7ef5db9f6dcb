"""Pong: the simulator, the mirrored text views, GameBot's questions and their oracles, the extractor,
the bots, the prompts and the simulated model."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random

import pytest

import engine
from engine.agent.parse import parse_answer
from engine.agent.prompts import load_template
from engine.agent.verify import verify
from engine.core import IllegalActionError, InvalidActionError, StateFormatError
from engine.games.pong import Pong, PongState, fold
from engine.games.pong.answers import extract_action
from engine.games.pong.bots import trace_to_paddle
from engine.games.pong.questions import QUESTIONS, ball_direction, ball_y_at_paddle, intercept
from engine.games.pong.sim import decide, trajectory
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext
from engine.players import Observation
from engine.questions import NOT_APPLICABLE, asked_keys, score

GAME = engine.make("pong")
STILL = {0: "stay", 1: "stay"}

#: The paper's worked example: the ball at (71,136), (75,144), (79,152); the right paddle ends at
#: [59, 75], the left one at [125, 141]. Frames are (ball_x, ball_y, right low, left low).
EXAMPLE_FRAMES = ((71, 136, 66, 111), (75, 144, 62, 117), (79, 152, 59, 125))


def rally(frames: tuple[tuple[int, int, int, int], ...], velocity: tuple[int, int] = (1, 2)) -> PongState:
    """An in-play state whose last recorded frames are ``frames``."""
    x, y, right, left = frames[-1]
    base = GAME.initial_state(seed=0)
    assert isinstance(base, PongState)
    return dataclasses.replace(
        base,
        ball=(x, y),
        velocity=velocity,
        paddles=(right, left),
        frames=frames,
        wait=0,
        frame=240,
        steps=60,
    )


def mirrored(frames: tuple[tuple[int, int, int, int], ...]) -> tuple[tuple[int, int, int, int], ...]:
    return tuple((160 - x, y, left, right) for x, y, right, left in frames)


def run(state: PongState, moves: dict[int, str] | None = None, steps: int = 1) -> PongState:
    """``state`` after ``steps`` decisions of ``moves`` (or until the match ends)."""
    for _ in range(steps):
        if state.is_over:
            break
        state = state.apply(moves or STILL)
    return state


# -- the declaration ---------------------------------------------------------------------------------


def test_declaration() -> None:
    assert isinstance(GAME, Pong) and GAME.id == "pong" and "gamebot" in GAME.suites
    assert [s.name for s in GAME.seats] == ["Right", "Left"]
    assert GAME.simultaneous and GAME.tick_s == pytest.approx(0.1) and GAME.default_action == "stay"
    assert GAME.actions == ("stay", "up", "down")
    assert GAME.keymap == {"up": "up", "down": "down", "w": "up", "s": "down"}
    assert GAME.default_prompt == "cot" and GAME.default_opponent == "predictor"
    assert set(GAME.bots) == {"tracker", "predictor"}
    assert GAME.options == {"frame_skip": 4, "points": 1, "max_frames": 1000}


def test_conformance() -> None:
    report = engine.check_game("pong")
    assert report.states > 0


def test_the_serve_comes_from_the_seed() -> None:
    a, b = GAME.initial_state(seed=7), GAME.initial_state(seed=7)
    assert a == b and a.frames == ((a.ball[0], a.ball[1], 88, 88),)
    serves = {(s.ball, s.velocity) for s in (GAME.initial_state(seed=i) for i in range(20))}
    assert len(serves) > 5
    assert all(s.ball[0] == 80 and s.velocity[0] in (-1, 1) for s in map(GAME.initial_state, range(20)))
    assert run(a, steps=30) == run(b, steps=30)


# -- the simulator -----------------------------------------------------------------------------------


def test_both_seats_act_at_once_and_paddles_move_two_units_a_frame() -> None:
    state = GAME.initial_state(seed=1)
    assert state.to_act == (0, 1) and state.legal_actions(1) == ["stay", "up", "down"]
    after = state.apply({0: "up", 1: "down"})
    assert after.paddles == (88 + 8, 88 - 8) and after.frame == 4 and after.step == 1
    assert after.last == ("up", "down") and state.paddles == (88, 88)
    with pytest.raises(IllegalActionError):
        state.apply({0: "up"})
    with pytest.raises(InvalidActionError):
        state.apply({0: "left", 1: "up"})
    with pytest.raises(InvalidActionError):
        state.apply("up")
    top = run(state, {0: "up", 1: "down"}, steps=20)
    assert top.paddles == (160, 16)
    assert top.annotate("up", 0) and not top.annotate("down", 0) and top.annotate("down", 1)


def test_the_ball_waits_then_moves_in_straight_lines() -> None:
    state = GAME.initial_state(seed=3)
    (x, y), (vx, vy) = state.ball, state.velocity
    waited = run(state, steps=2)
    assert waited.ball == (x, y) and waited.wait == 0 and not state.in_play
    moved = run(waited)
    assert moved.ball == (x + 4 * vx, y + 4 * vy) and moved.in_play
    assert [f[:2] for f in moved.frames] == [(x, y), (x, y), (x + 4 * vx, y + 4 * vy)]


def test_the_ball_rebounds_off_the_walls() -> None:
    state = dataclasses.replace(rally(((98, 170, 88, 88),)), velocity=(1, 3))
    after = run(state)  # y: 173, 176, 179 -> 173, 170
    assert after.ball == (102, 170) and after.velocity == (1, -3)
    low = dataclasses.replace(rally(((60, 19, 88, 88),)), velocity=(-1, -2))
    after = run(low)  # y: 17, 15 -> 17, 19, 21
    assert after.ball == (56, 21) and after.velocity == (-1, 2)


@pytest.mark.parametrize(("low", "vy"), [(82, 1), (79, 2), (76, 3), (86, -1), (89, -2), (92, -3), (84, 1)])
def test_a_paddle_hit_steepens_towards_the_edge(low: int, vy: int) -> None:
    # The ball meets the right paddle's face at y = 92 (the paddle's centre is low + 8).
    state = dataclasses.replace(rally(((136, 92, low, 88),)), velocity=(1, 0))
    after = run(state)
    assert after.velocity == (-1, vy) and after.ball[0] == 140 - 0 and after.hits == 1
    assert after.points == (0, 0)


def test_the_ball_speeds_up_every_two_hits() -> None:
    state = dataclasses.replace(rally(((138, 96, 88, 88),)), velocity=(1, 1), hits=1)
    after = run(state)
    assert after.hits == 2 and after.velocity[0] == -2


def test_a_miss_scores_for_the_other_side_and_ends_the_match() -> None:
    state = dataclasses.replace(rally(((150, 40, 140, 88),)), velocity=(3, 0))
    after = run(state)
    assert after.points == (0, 1) and after.scored == 1 and after.winner == 1 and after.is_over
    assert after.scores == (0.0, 1.0) and after.legal_actions() == [] and after.to_act == ()
    with pytest.raises(IllegalActionError):
        after.apply(STILL)
    longer = engine.make("pong", points=2)
    state = dataclasses.replace(
        longer.initial_state(seed=2), ball=(150, 40), velocity=(3, 0), paddles=(140, 88), wait=0
    )
    after = run(state)
    assert after.points == (0, 1) and not after.is_over and after.wait > 0
    assert after.ball[0] == 80 and len(after.frames) == 1 and after.serves == 2


def test_a_long_rally_is_a_draw_at_max_frames() -> None:
    game = engine.make("pong", max_frames=40, frame_skip=8)
    state = run(game.initial_state(seed=0), steps=5)
    assert state.frame == 40 and state.is_over and state.winner is None and state.scores == (0.0, 0.0)
    assert "Draw" in state.text()


def test_json_round_trip_and_bad_data() -> None:
    state = run(GAME.initial_state(seed=5), {0: "up", 1: "stay"}, steps=6)
    assert GAME.state_from_json(json.loads(json.dumps(state.to_json()))) == state
    for change in (
        {"ball": [1]},
        {"frames": []},
        {"paddles": [0, 88]},
        {"game": "tictactoe"},
        {"last": ["x", "up"]},
    ):
        with pytest.raises(StateFormatError):
            GAME.state_from_json({**state.to_json(), **change})


# -- text views ----------------------------------------------------------------------------------------


def test_text_shows_the_last_three_frames_as_gamebot_wrote_them() -> None:
    text = rally(EXAMPLE_FRAMES).text(0)
    assert (
        "Frame t-2\n{'ball_x': 71, 'ball_y': 136, 'player_x': 140, 'player_y': [66, 82], 'opponent_x': 20, "
        "'opponent_y': [111, 127], 'upper_bound': 176, 'lower_bound': 16}" in text
    )
    assert "Frame t-1\n{'ball_x': 75, 'ball_y': 144," in text
    assert "Frame t\n{'ball_x': 79, 'ball_y': 152, 'player_x': 140, 'player_y': [59, 75]" in text
    assert "You control the right paddle" in text and "mirrored" not in text


def test_the_second_seat_sees_a_mirrored_court() -> None:
    state = rally(EXAMPLE_FRAMES)
    text = state.text(1)
    # Seat 1 is the left paddle: it sees the ball at 160 - x and its own paddle as the right one.
    assert (
        "Frame t\n{'ball_x': 81, 'ball_y': 152, 'player_x': 140, 'player_y': [125, 141], 'opponent_x': 20, "
        "'opponent_y': [59, 75]" in text
    )
    assert "mirrored" in text and state.observe(1) is state
    assert rally(mirrored(EXAMPLE_FRAMES)).text(1).split("\n\n")[1] == state.text(0).split("\n\n")[1]


def test_a_running_match_keeps_three_frames() -> None:
    state = run(GAME.initial_state(seed=1), steps=10)
    assert len(state.frames) == 3 and state.text(0).count("Frame t") == 3


# -- GameBot's questions -------------------------------------------------------------------------------


def test_the_papers_worked_example() -> None:
    state = rally(EXAMPLE_FRAMES)
    assert ball_direction(state, 0) == "Right Up"
    assert ball_y_at_paddle(state, 0) == pytest.approx(78.0)
    direction, intercept_q = QUESTIONS
    assert direction.expected(state, 0) == "right up" and intercept_q.expected(state, 0) == 78.0
    assert score(direction, "Right Up", "right up")[0] is True
    assert score(intercept_q, "78", 78.0)[0] is True
    assert score(intercept_q, "78.2", 78.0)[0] is False
    assert score(intercept_q, "274", 78.0)[0] is False
    # The same position seen by the left seat, on a mirrored court, has the same answers.
    other = rally(mirrored(EXAMPLE_FRAMES))
    assert ball_direction(other, 1) == "Right Up" and ball_y_at_paddle(other, 1) == pytest.approx(78.0)
    assert ball_direction(other, 0) == "Left Up"


def test_the_trajectory_written_like_the_paper() -> None:
    lines = "\n".join(trajectory((75, 144), (79, 152), None))
    assert "m = (144 - 152) / (75 - 79) = 2" in lines and "y = 2x - 6" in lines
    assert "274 > 176 is invalid" in lines and "x = 91" in lines and "y = -2x + 358" in lines
    assert lines.endswith("78 is valid.")
    assert decide(78, 59) == "up" and decide(60, 59) == "stay" and decide(40, 59) == "down"


def test_fold_reflects_off_both_walls() -> None:
    assert fold(274) == 78 and fold(100) == 100 and fold(10) == 22 and fold(176) == 176
    assert fold(176 + 160 + 5) == 21 and fold(-150) == 170
    assert intercept((75, 144), (79, 152)) == 78


def test_when_the_questions_apply() -> None:
    direction, intercept_q = QUESTIONS
    left = rally(((90, 100, 88, 88), (86, 108, 88, 88)))
    assert direction.expected(left, 0) == "left up" and intercept_q.expected(left, 0) == NOT_APPLICABLE
    assert intercept_q.expected(left, 1) == pytest.approx(ball_y_at_paddle(left, 1))  # towards seat 1
    flat = rally(((90, 100, 88, 88), (94, 100, 88, 88)))
    assert direction.expected(flat, 0) == NOT_APPLICABLE and intercept_q.expected(flat, 0) == 100.0
    waiting = GAME.initial_state(seed=0)
    assert all(q.expected(waiting, s) == NOT_APPLICABLE for q in QUESTIONS for s in (0, 1))
    passed = rally(((140, 100, 16, 88), (144, 104, 16, 88)))
    assert intercept_q.expected(passed, 0) == NOT_APPLICABLE


def test_the_intercept_oracle_agrees_with_the_simulator() -> None:
    """Where the last two frames follow one straight, rebounding path to the paddle, the oracle's y is
    where the simulated ball really crosses x = 140."""
    checked = 0
    for seed in range(300):
        state = run(GAME.initial_state(seed=seed), steps=3)
        rng = random.Random(seed)
        for _ in range(60):
            if state.is_over or not state.in_play:
                break
            (x1, y1, *_), (x2, y2, *_) = state.frames[-2:]
            vx, vy = state.velocity
            straight = x2 - x1 == 4 * vx and abs(y2 - y1) == 4 * abs(vy) and vx > 0
            if straight and x2 < 140 and (140 - x2) % vx == 0 and (y2 - y1) * vy > 0:
                assert ball_y_at_paddle(state, 0) == trace_to_paddle(x2, y2, vx, vy)[0]
                checked += 1
            state = state.apply({0: rng.choice(GAME.actions), 1: "stay"})
    assert checked > 100


def test_wrong_answers_are_plausible() -> None:
    direction, intercept_q = QUESTIONS
    state = rally(EXAMPLE_FRAMES)
    rng = random.Random(0)
    assert direction.wrong is not None and intercept_q.wrong is not None
    wrongs = {direction.wrong("Right Up", state, 0, rng) for _ in range(50)}
    assert wrongs <= {"Right Down", "Left Up"} and len(wrongs) == 2
    numbers = [intercept_q.wrong(78.0, state, 0, rng) for _ in range(100)]
    assert all(16 <= n <= 176 and n != 78 for n in numbers) and 176 in numbers


def test_direction_answers_are_read_leniently() -> None:
    direction, _ = QUESTIONS
    for text in ("Right Up", "right-up", "**Right Up**", "Up Right", "right, upwards"):
        assert score(direction, text, "right up")[0] is True, text
    assert score(direction, "Right Down", "right up")[0] is False
    assert score(direction, None, "right up")[2]["label"] == "format_error"


# -- reading the action --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("**[Action]**\n1 - Move Up", "up"),
        ("[Action]\n2 - Move Down\n", "down"),
        ("**[Action]** 0 - Stay Still", "stay"),
        ("[action]: stay still", "stay"),
        ("[Decision] Move Down would be wrong.\n**[Action]**\n1 - Move Up", "up"),
        ("**[Action]**\n2", "down"),
        ("Action: Move Up", "up"),
    ],
)
def test_the_action_after_the_last_marker(text: str, action: str) -> None:
    assert extract_action(text, list(GAME.actions)).extracted == action
    result = parse_answer(GAME, rally(EXAMPLE_FRAMES), 0, text)
    assert result.ok and result.action == action


def test_action_extraction_fallbacks_and_errors() -> None:
    found = extract_action("I will Move Down now, then Stay Still.", list(GAME.actions))
    assert found.extracted == "stay" and "no [Action]" in found.reason
    assert extract_action("**[Action]**\nthe usual", list(GAME.actions)).extracted is None
    assert extract_action("The slope is 2.", list(GAME.actions)).extracted is None
    result = parse_answer(GAME, rally(EXAMPLE_FRAMES), 0, "**[Action]**\n")
    assert not result.ok and result.kind == "unparsable"
    assert GAME.parse_action("Move Up", rally(EXAMPLE_FRAMES), 0) == "up"
    with pytest.raises(InvalidActionError):
        GAME.parse_action("sideways", rally(EXAMPLE_FRAMES), 0)


# -- bots ----------------------------------------------------------------------------------------------


def play(specs: tuple[str, str], seed: int) -> PongState:
    bots = [GAME.make_bot(spec, seed + i) if spec != "random" else None for i, spec in enumerate(specs)]
    rng = random.Random(seed)
    state = GAME.initial_state(seed=seed)
    while not state.is_over:
        moves = {}
        for seat, bot in enumerate(bots):
            if bot is None:
                moves[seat] = rng.choice(GAME.actions)
                continue
            obs = Observation(GAME, state.observe(seat), seat, tuple(state.legal_actions(seat)))
            moves[seat] = asyncio.run(bot.act(obs)).action
        state = state.apply(moves)
    return state


def test_the_predictor_beats_the_tracker_and_random_from_either_side() -> None:
    for seed in range(6):
        assert play(("predictor", "tracker"), seed).winner == 0
        assert play(("tracker", "predictor"), seed).winner == 1
        assert play(("random", "predictor"), seed).winner == 1


def test_the_tracker_beats_random_play() -> None:
    wins = sum(play(("tracker", "random"), seed).winner == 0 for seed in range(10))
    assert wins >= 8


def test_points_need_a_few_hundred_frames() -> None:
    frames = [play(("tracker", "predictor"), seed).frame for seed in range(8)]
    assert 100 <= sum(frames) / len(frames) <= 800


# -- prompts and the simulated model ---------------------------------------------------------------


def prompt(variant: str, state: PongState, seat: int) -> tuple[str, str]:
    template = load_template(GAME, variant)
    values = {"history": "", "reflection": "", "state": state.text(seat)}
    rendered = template.render({k: values.get(k, "") for k in template.placeholders})
    return rendered.system, rendered.user


def test_the_prompts() -> None:
    state = rally(EXAMPLE_FRAMES)
    system, user = prompt("cot", state, 0)
    assert asked_keys(user) == {1, 2} and "right paddle" in system
    assert "0 - Stay Still; 1 - Move Up; 2 - Move Down" in user and "= -280 + 358 = 78" in user
    assert user.rstrip().endswith("holds only the action.") and state.text(0) in user
    for variant in ("naive", "none"):
        system, user = prompt(variant, state, 0)
        assert asked_keys(user) == set() and "[Action]" in user and state.text(0) in user
    assert load_template(GAME, "default").variant == "cot"


def ask(state: PongState, seat: int, seed: int, variant: str = "cot", **rates: float) -> str:
    client = SimClient("perfect", seed=seed, latency=0, **rates)
    client.set_context(SimContext(GAME, state, seat))
    system, user = prompt(variant, state, seat)
    request = Request(model="sim", messages=(Message("system", system), Message("user", user)))
    return asyncio.run(client.complete(request)).content


def test_the_simulated_model_solves_the_worked_example() -> None:
    state = rally(EXAMPLE_FRAMES)
    answer = ask(state, 0, seed=1)
    assert "[Intermediate Thinking Results 1: Right Up]" in answer
    assert "[Intermediate Thinking Results 2: 78]" in answer and "y = -2x + 358" in answer
    assert answer.rstrip().endswith("**[Action]**\n1 - Move Up")
    result = parse_answer(GAME, state, 0, answer)
    assert result.action == "up"
    checks = verify(GAME, state, 0, result.tags, asked_keys(prompt("cot", state, 0)[1]))
    assert [c.correct for c in checks] == [True, True]
    mirror = rally(mirrored(EXAMPLE_FRAMES))
    assert parse_answer(GAME, mirror, 1, ask(mirror, 1, seed=1)).action == "up"


def test_the_simulated_model_answers_only_what_it_is_asked() -> None:
    answer = ask(rally(EXAMPLE_FRAMES), 0, seed=2, variant="naive")
    assert "Intermediate Thinking Results" not in answer and answer.rstrip().endswith("1 - Move Up")


def test_the_simulated_model_acts_on_its_beliefs() -> None:
    """With every intermediate answer wrong, its move still follows its (wrong) answers, and its
    answers always parse or are deliberate format errors."""
    states = []
    for seed in range(40):
        state = run(
            GAME.initial_state(seed=seed), {0: "stay", 1: "up"}, steps=random.Random(seed).randrange(2, 25)
        )
        if not state.is_over:
            states.append(state)
    for i, state in enumerate(states):
        answer = ask(state, i % 2, seed=i, wrong_ir_rate=1.0)
        result = parse_answer(GAME, state, i % 2, answer)
        assert result.ok, answer
        tags = result.tags
        low = state.seat_frames(i % 2)[-1][2]
        if state.wait == 0 and tags.get(1, "").startswith("Right") and "rebounded off a paddle" not in answer:
            assert result.action == decide(float(tags[2]), low), answer
        assert result.action in answer.split("[Decision]")[1].lower().replace("stay still", "stay").replace(
            "move ", ""
        )


def test_broken_answers_name_no_action() -> None:
    state = rally(EXAMPLE_FRAMES)
    for seed in range(10):
        answer = ask(state, 0, seed=seed, format_error_rate=1.0)
        assert not parse_answer(GAME, state, 0, answer).ok, answer


def test_a_match_of_the_simulated_model_against_the_predictor() -> None:
    state = GAME.initial_state(seed=4)
    client = SimClient("perfect", seed=4, latency=0)
    bot = GAME.make_bot("predictor", 4)
    for _ in range(400):
        if state.is_over:
            break
        client.set_context(SimContext(GAME, state, 0))
        system_user = prompt("cot", state, 0)
        request = Request(
            model="sim", messages=(Message("system", system_user[0]), Message("user", system_user[1]))
        )
        mine = parse_answer(GAME, state, 0, asyncio.run(client.complete(request)).content).action
        theirs = asyncio.run(
            bot.act(Observation(GAME, state.observe(1), 1, tuple(state.legal_actions(1))))
        ).action
        assert mine in GAME.actions
        state = state.apply({0: mine, 1: theirs})
    assert state.is_over and state.frame <= 1000
