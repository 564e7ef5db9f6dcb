"""Sokoban rules: moves and pushes, levels in a row, the paper's score until the first deadlock, the
step cap and stuck rule, views, JSON, undo, the Gymnasium environment, the bot and the simulated model."""

from __future__ import annotations

import asyncio
import random
import statistics

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import engine
import engine.gym  # noqa: F401  (registers the environments)
from engine.agent import prompts
from engine.core import GameError, IllegalActionError, InvalidActionError, StateFormatError
from engine.games.sokoban import STUCK_LIMIT, Sokoban, SokobanState
from engine.games.sokoban.answers import extract_move
from engine.games.sokoban.bots import plan
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext
from engine.match import Match
from engine.players import HumanPlayer, Observation

#: Two levels: a corridor (solved by "rRR") and a room with a corner to avoid.
TWO = """\
#######
#@ $ .#
#######
Title: Corridor

######
#    #
# $  #
#  @.#
######
Title: Room
"""
LETTERS = {"u": "up", "d": "down", "l": "left", "r": "right"}


def start(levels: str = TWO, **options: object) -> SokobanState:
    state = engine.make("sokoban", levels=levels, **options).initial_state(seed=0)
    assert isinstance(state, SokobanState)
    return state


def play(state: SokobanState, moves: str) -> SokobanState:
    for letter in moves:
        state = state.apply(LETTERS[letter.lower()])
    return state


def at(state: SokobanState, index: int) -> tuple[int, int]:
    return state.level.coords(index)


def test_walking_pushing_and_wasted_moves() -> None:
    state = start()
    assert state.legal_actions() == ["up", "down", "left", "right"]
    assert state.outcome("up") == "wall" and state.outcome("right") == "walk"
    bumped = state.apply("up")
    assert bumped.player == state.player and bumped.stuck == 1 and bumped.step == 1
    assert "wall" in state.annotate("up")
    walked = state.apply("right")
    assert at(walked, walked.player) == (1, 2) and walked.outcome("right") == "push"
    pushed = walked.apply("right")
    assert (
        pushed.pushed
        and {at(pushed, b) for b in pushed.boxes} == {(1, 4)}
        and at(pushed, pushed.player) == (1, 3)
    )
    assert state.boxes == state.level.boxes  # states are values: nothing above changed the start
    with pytest.raises(InvalidActionError):
        state.apply("north")
    with pytest.raises(IllegalActionError):
        state.apply({1: "up"})


def test_a_box_cannot_be_pushed_into_a_wall_or_another_box() -> None:
    state = start("#######\n#@$$ .#\n#    .#\n#######")
    assert state.outcome("right") == "blocked" and "cannot move" in state.annotate("right")
    after = state.apply("right")
    assert after.boxes == state.boxes and after.stuck == 1


def test_solving_a_level_goes_on_to_the_next_and_banks_its_boxes() -> None:
    state = play(start(), "rRR")
    assert state.cleared and state.index == 1 and state.level.title == "Room" and state.solved == 1
    assert state.scores == (1.0,) and state.banked == 1 and not state.is_over
    assert state.metrics()["level"] == 2 and state.metrics()["levels_solved"] == 1
    assert "Level 1 solved" in state.text() and "Level 1 solved" in state.notice()
    # The room: the box at (2,2) goes down to the bottom row, then right onto the goal at (3,4).
    middle = play(state, "uulD")
    assert middle.end == "" and {at(middle, b) for b in middle.boxes} == {(3, 2)} and not middle.cleared
    done = play(middle, "ldRR")
    assert done.end == "complete" and done.is_over and done.scores == (2.0,)
    assert done.metrics()["boxes_on_goals"] == 2 and done.metrics()["levels_solved"] == 2
    assert done.legal_actions() == []
    with pytest.raises(IllegalActionError):
        done.apply("up")


def test_the_bots_plan_solves_the_level_it_is_given() -> None:
    state = play(start(), "rRR")
    found = plan(state)
    assert found.moves is not None and found.pushes == 3 and found.action == "up"
    finished = play(state, found.moves)
    assert finished.end == "complete" and finished.scores == (2.0,)
    assert plan(play(state, found.moves[:4])).moves == found.moves[4:]  # remembered along the way


def test_a_deadlock_ends_the_run_and_the_score_counts_boxes_until_then() -> None:
    state = play(start(), "rRR")  # one box banked
    # From the room's start, pushing the box up puts it against the top wall, which has no goal.
    assert "deadlock" in play(state, "l").annotate("up")
    dead = play(state, "lU")
    assert dead.end == "deadlock" and dead.is_over and dead.deadlocked
    assert dead.scores == (1.0,) and dead.metrics()["deadlock"] == 1.0
    assert dead.metrics()["level"] == 2 and dead.metrics()["level_boxes"] == 0
    assert dead.dead_boxes() == dead.boxes
    assert "Game over: deadlock" in dead.text()
    # Pushing it left, into the wall column without a goal, is a deadlock too.
    assert play(state, "uL").end == "deadlock"


def test_the_step_cap_and_the_stuck_rule() -> None:
    capped = play(start(max_steps=3), "lll")
    assert capped.end == "steps" and capped.is_over
    stuck = start(max_steps=0)
    for _ in range(STUCK_LIMIT - 1):
        stuck = stuck.apply("up")
    assert not stuck.is_over and str(STUCK_LIMIT) in stuck.notice()
    stuck = stuck.apply("up")
    assert stuck.end == "stuck"


def test_views_name_the_level_the_cells_and_the_score() -> None:
    state = start()
    text = state.text()
    assert 'Level 1 of 2 "Corridor"' in text and "#@-$-.#" in text and "Moves in this level: 0 of 200" in text
    table = state.text_table()
    assert "Player at (row 1, col 1)" in table and "Box at (row 1, col 3)" in table
    assert "Goal at (row 1, col 5)" in table and "Walls in row 1: columns 0, 6" in table
    assert "Walls in row 0: columns 0-6" in table


def test_json_round_trip_and_bad_json() -> None:
    game = engine.make("sokoban", levels=TWO)
    state = play(game.initial_state(seed=4), "rRRuu")
    back = game.state_from_json(state.to_json())
    assert back == state and back.apply("left") == state.apply("left")
    assert back.apply("up").to_json() == state.apply("up").to_json()
    broken = state.to_json() | {"boxes": [0]}
    with pytest.raises(StateFormatError, match="boxes"):
        game.state_from_json(broken)
    with pytest.raises(StateFormatError, match="not a Sokoban state"):
        game.state_from_json({"game": "2048"})


def test_declaration_scores_and_conformance() -> None:
    assert Sokoban.raw_score == "boxes_on_goals" and Sokoban.progress_score == "level"
    state = engine.make("sokoban").initial_state(seed=1)
    assert {Sokoban.raw_score, Sokoban.progress_score} <= set(state.metrics())
    assert Sokoban.keymap["w"] == "up" and Sokoban.keymap["left"] == "left" and "W A S D" in Sokoban.controls
    report = engine.check_game("sokoban")
    assert report.states > 0
    assert prompts.variants(engine.make("sokoban")) == ["default", "compact"]


def test_generated_rooms_follow_the_seed_and_go_on_forever() -> None:
    game = engine.make("sokoban", levels="generated", width=9, height=8, boxes=2)
    a, b = game.initial_state(seed=3), game.initial_state(seed=3)
    assert a == b and (a.level.width, a.level.height, len(a.boxes)) == (9, 8, 2)
    assert game.initial_state(seed=4).level != a.level
    solved = play(a, plan(a).moves or "")
    assert solved.cleared and solved.index == 1 and solved.level != a.level and solved.banked == 2
    assert "of" not in solved.heading()
    with pytest.raises(GameError, match="holds 1 to"):
        engine.make("sokoban", levels="generated", width=5, height=5, boxes=9)


def test_parse_action_and_the_answer_extractor() -> None:
    game = engine.make("sokoban", levels=TWO)
    state = game.initial_state(seed=0)
    assert game.parse_action("Push LEFT.", state) == "left"
    with pytest.raises(InvalidActionError):
        game.parse_action("up then left", state)
    found = extract_move("thought: the box goes right\nmove: push right", state.legal_actions())
    assert found.extracted == "right" and "push right" in found.reason
    assert extract_move("I would go down", state.legal_actions()).extracted == "down"
    assert extract_move("no idea", state.legal_actions()).error


class Script(HumanPlayer):
    """A person who plays the moves of a script; ``None`` asks to take the last move back."""

    def __init__(self, script: list[str | None]) -> None:
        super().__init__()
        self.script = script

    async def act(self, observation: Observation):  # type: ignore[override]
        item = self.script.pop(0)
        answer = (lambda: self.submit(item)) if item is not None else self.take_back
        asyncio.get_running_loop().call_soon(answer)
        return await super().act(observation)


def test_undo_takes_back_a_push_that_solved_a_level() -> None:
    game = engine.make("sokoban", levels=TWO)
    script: list[str | None] = ["right", "right", "right", None, "right", "up"]
    match = Match(game, [Script(script)], seed=0, undo=True, max_steps=4)
    asyncio.run(match.run())
    final = match.state
    assert isinstance(final, SokobanState) and not script
    # The push that solved the corridor was taken back and played again: one box banked, not two.
    assert final.index == 1 and final.banked == 1 and final.solved == 1 and final.step == 4
    assert [r.actions[0] for r in match.history] == ["right", "right", "right", "up"]
    assert match.history[2].state.index == 0 and match.history[3].state.index == 1


def test_gymnasium_env_passes_the_checker_and_carries_the_text() -> None:
    env = gymnasium.make("playtrace/sokoban-v0", render_mode="rgb_array")
    check_env(env.unwrapped)
    obs, info = env.reset(seed=0)
    assert obs.dtype == np.uint8 and obs.shape == env.observation_space.shape
    assert "Level 1 of 15" in info["text"] and info["boxes_on_goals"] == 0
    assert (obs == 6).sum() + (obs == 7).sum() == 1
    frame = env.render()
    assert frame.ndim == 3 and frame.shape[2] == 3
    env.close()


def test_random_play_scores_near_the_papers_random_baseline() -> None:
    # LMGame-Bench reports 0.0 +- 0.0 for random play: it deadlocks long before it places boxes.
    game = engine.make("sokoban")
    scores, levels, deadlocks = [], [], 0
    for seed in range(30):
        rng = random.Random(seed)
        state = game.initial_state(seed=seed)
        while not state.is_over:
            state = game.play_random(state, rng)
        assert state.end in ("deadlock", "steps", "stuck")
        deadlocks += state.deadlocked
        scores.append(state.metrics()[Sokoban.raw_score])
        levels.append(state.metrics()[Sokoban.progress_score])
    assert statistics.mean(scores) < 0.5 and max(levels) <= 2 and deadlocks >= 20


def ask(game: Sokoban, state: SokobanState, seed: int, **rates: float) -> tuple[str, str]:
    client = SimClient("perfect", seed=seed, latency=0, format_error_rate=0.0, **rates)
    client.set_context(SimContext(game, state, 0))
    messages = (Message("system", "Play."), Message("user", "Your move?"))
    done = asyncio.run(client.complete(Request(model="sim", messages=messages)))
    return done.reasoning, done.content


def test_the_simulated_model_names_its_box_and_goal_and_reflects() -> None:
    game = engine.make("sokoban", levels=TWO)
    assert isinstance(game, Sokoban)
    state = play(game.initial_state(seed=0), "rRR")
    reasoning, answer = ask(game, state, 1)
    assert "working on the box at (2,2)" in reasoning and "goal at (3,4)" in reasoning
    move = answer.rsplit("move:", 1)[1].strip()
    assert move == plan(state).action
    behaviour = SimClient().behaviour(game)
    from engine.players import StepRecord

    after = state.apply("up")
    note = behaviour.reflection(
        SimContext(game, after, 0, [StepRecord(state.step, state, {0: "up"}, (0.0,), after)])
    )
    assert "walked to (2,3)" in note
    before = play(state, "l")
    dead = before.apply("up")
    note = behaviour.reflection(
        SimContext(game, dead, 0, [StepRecord(before.step, before, {0: "up"}, (0.0,), dead)])
    )
    assert "deadlock" in note
