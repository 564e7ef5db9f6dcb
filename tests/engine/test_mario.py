"""Super Mario Bros on the real emulator and ROM: determinism, replay, score, the NumPy 2 header fix,
the contract, Gymnasium, and that no ROM byte is ever written."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import engine
import engine.gym  # noqa: F401  (registers the environments)
from engine import registry
from engine.core import IllegalActionError, InvalidActionError, StateFormatError
from engine.games.mario import ACTIONS, Mario, MarioState
from engine.games.mario.compat import header_fixed, patch_rom_header, rom_path
from engine.match import Match
from engine.players import Observation
from sessions import SessionWriter

REPO = Path(__file__).resolve().parents[2]
#: Holding right from the start of 1-1: Mario walks into the first goomba after about 100 frames.
WALK = ["right"] * 60


def play(state: MarioState, actions: list[str]) -> MarioState:
    for action in actions:
        state = state.apply(action)
    return state


@pytest.fixture(scope="module")
def game() -> Mario:
    made = engine.make("mario")
    assert isinstance(made, Mario)
    return made


# -- the ROM header under NumPy 2 ------------------------------------------------------------------


class _UInt8Header:
    """nes-py's way of reading a header: the raw bytes as ``uint8``."""

    def __init__(self, raw: np.ndarray) -> None:
        self.raw_data = raw

    @property
    def header(self) -> np.ndarray:
        return self.raw_data[:16]

    def prg_rom_stop(self) -> int:
        return int(16 + 16 * self.header[4] * 2**10)


def test_the_rom_header_fix_makes_nes_py_read_the_rom_under_numpy_2() -> None:
    raw = np.fromfile(rom_path(), dtype=np.uint8)
    plain = type("PlainHeader", (_UInt8Header,), {"header": _UInt8Header.header})
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        with pytest.raises(OverflowError):
            plain(raw).prg_rom_stop()  # NEP 50: uint8 * 1024 stays uint8 and overflows
    fixed = type("FixedHeader", (_UInt8Header,), {"header": _UInt8Header.header})
    assert patch_rom_header(fixed) and patch_rom_header(fixed)  # idempotent
    assert header_fixed(fixed) and not header_fixed(plain)
    assert fixed(raw).prg_rom_stop() == 16 + 32 * 1024
    assert list(fixed(raw).header[:4]) == [0x4E, 0x45, 0x53, 0x1A]  # the bytes are unchanged
    assert not patch_rom_header(type("NoHeader", (), {}))  # a changed nes-py is left alone

    from nes_py._rom import ROM  # patched when engine.games.mario.compat was imported

    rom = ROM(rom_path())
    assert header_fixed(ROM)
    assert (rom.prg_rom_size, rom.chr_rom_size, rom.mapper) == (32, 8, 0)
    assert rom.prg_rom.size == 32 * 1024 and rom.chr_rom.size == 8 * 1024


# -- determinism, replay and forks -----------------------------------------------------------------


def test_the_same_seed_and_actions_give_the_same_frames_and_positions(game: Mario) -> None:
    script = WALK[:30] + ["right_a"] * 12 + ["right"] * 10
    one = play(game.initial_state(seed=5), script)
    other = play(Mario().initial_state(seed=5), script)  # another game, another emulator
    assert one.lineage.machine is not other.lineage.machine
    assert one == other and hash(one) == hash(other)
    assert one.facts == other.facts and one.facts.x > 40 + 50
    assert np.array_equal(one.screen(), other.screen())
    del other
    assert one != play(game.initial_state(seed=5), script[:-1] + ["left"])
    assert one != play(game.initial_state(seed=6), script)  # the seed is part of the identity


def test_apply_leaves_earlier_states_valid_for_replay_and_forks(game: Mario) -> None:
    start = game.initial_state(seed=1)
    middle = play(start, WALK[:30])
    late = play(middle, WALK[:30])
    late_screen, late_facts = late.screen().copy(), late.facts
    fork = play(middle, ["left"] * 60)  # moves the shared emulator elsewhere
    assert fork.facts.x < middle.facts.x < late.facts.x
    late.lineage.screens.clear()  # no cached picture: the machine must replay
    assert np.array_equal(late.screen(), late_screen) and late.facts == late_facts
    assert middle.apply("right").facts == play(start, WALK[:31]).facts
    assert start.step == 0 and middle.step == 30 and late.step == 60


def test_a_state_survives_json_and_replays_to_the_same_picture(game: Mario) -> None:
    state = play(game.initial_state(seed=2), WALK[:20] + ["right_a"] * 8 + ["noop"] * 3)
    data = json.loads(json.dumps(state.to_json()))
    assert data["actions"] == "right*20 right_a*8 noop*3" and data["step"] == 31
    back = game.state_from_json(data)
    assert back == state and back.facts == state.facts and back.text() == state.text()
    assert np.array_equal(back.screen(), state.screen())  # rebuilt by replaying the actions
    assert back.apply("right").facts == state.apply("right").facts


def test_json_that_does_not_replay_or_parse_is_refused_clearly(game: Mario) -> None:
    state = play(game.initial_state(seed=2), WALK[:10])
    forged = state.to_json()
    forged["facts"]["x"] += 100
    with pytest.raises(StateFormatError, match="does not reach the recorded step 10"):
        game.state_from_json(forged).screen()
    for bad, words in (
        ({**state.to_json(), "actions": "right*9 jump"}, "run 2 .'jump'. is not"),
        ({**state.to_json(), "step": 11}, "step is 11 but the actions hold 10"),
        ({**state.to_json(), "game": "2048"}, "not Super Mario Bros"),
        ({k: v for k, v in state.to_json().items() if k != "seed"}, "missing field 'seed'"),
    ):
        with pytest.raises(StateFormatError, match=words):
            game.state_from_json(bad)
    hand_written = game.state_from_json({"seed": 2, "step": 10, "actions": "right*10"})
    assert hand_written == state and hand_written.facts == state.facts  # facts come from a replay


# -- actions and the contract ------------------------------------------------------------------------


def test_actions_are_lmgame_bench_s_thirteen_and_bad_ones_are_refused(game: Mario) -> None:
    assert ACTIONS == ("noop", "right", "right_a", "right_b", "right_a_b", "a", "b", "left", "left_a",
                       "left_b", "left_a_b", "down", "up")
    state = game.initial_state(seed=0)
    assert state.legal_actions() == list(ACTIONS) and state.legal_actions(1) == []
    with pytest.raises(InvalidActionError, match="not a Super Mario Bros action"):
        state.apply("jump")
    assert game.parse_action("(Right + A, 13)", state) == "right_a"
    assert game.parse_action("NO-OP", state) == "noop"
    with pytest.raises(InvalidActionError):
        game.parse_action("wait a moment", state)


def test_frames_hold_each_action_longer_and_set_the_tick() -> None:
    slow = Mario(frames=4)
    assert slow.tick_s == pytest.approx(4 / 60) and Mario.tick_s == pytest.approx(1 / 60)
    held = play(slow.initial_state(seed=0), WALK[:10])
    single = play(Mario().initial_state(seed=0), WALK[:40])
    assert held.facts.x == single.facts.x and held.facts.frames == 4


def test_with_durations_each_action_names_how_long_it_is_held() -> None:
    game = Mario(durations=True, stuck_seconds=0)
    start = game.initial_state(seed=0)
    legal = start.legal_actions()
    assert len(legal) == 13 * 30 and "right_a 13" in legal and "noop 1" in legal and "right" not in legal
    # Holding right for 40 frames in one action is holding it 40 single frames in a row.
    held = start.apply("right 30").apply("right 10")
    single = play(Mario().initial_state(seed=0), WALK[:40])
    assert held.facts.x == single.facts.x and held.step == 2 and held.facts.frames >= 10
    assert "held 10 frames" in held.text() and "1 to 30" in game.rules_text()
    assert game.parse_action("move: (right_a, 13)", held) == "right_a 13"
    assert game.parse_action("right_b", held) == "right_b 1"  # a bare name: the game's frames
    with pytest.raises(InvalidActionError, match="1 to 30 frames"):
        game.parse_action("(right_a, 45)", held)
    with pytest.raises(InvalidActionError, match="1 to 30 frames"):
        held.apply("right 31")
    with pytest.raises(InvalidActionError, match="durations option"):
        Mario().initial_state(seed=0).apply("right 5")
    back = game.state_from_json(json.loads(json.dumps(held.to_json())))
    assert back == held and back.legal_actions() == legal and held.to_json()["actions"] == "right@30 right@10"
    assert game.keymap["right"] == "right 1" and game.default_action == "noop 1"


def test_the_conformance_check_passes_on_a_bounded_run() -> None:
    # The full check (3 episodes of 200 steps) runs in tests/engine/test_plugins.py with every game.
    report = engine.check_game("mario", episodes=1, max_steps=40)
    assert report.states >= 40


def test_the_gymnasium_environment_passes_check_env_with_emulator_frames() -> None:
    env = gymnasium.make("playtrace/mario-v0", render_mode="rgb_array")
    check_env(env.unwrapped)
    first, info = env.reset(seed=4)
    for _ in range(20):
        obs, reward, terminated, _, info = env.step(ACTIONS.index("right"))
    frame = env.render()  # the renderer's picture: the emulator's frame scaled, with the figures
    assert frame.shape[2] == 3 and frame.shape[0] > 400 and not terminated
    assert obs.shape == (240, 256, 3) and obs.dtype == np.uint8 and not np.array_equal(obs, first)
    assert "Distance (score):" in info["text"]
    assert info["distance"] > 0 and info["x"] == 40 + info["distance"] and reward >= 0
    env.close()


# -- the score ------------------------------------------------------------------------------------------


def test_the_score_is_the_distance_gained_until_three_lives_are_lost(game: Mario) -> None:
    state = game.initial_state(seed=0)
    assert state.scores == (0.0,) and state.facts.lives == 3
    walked = play(state, WALK)
    assert walked.scores[0] == walked.facts.x - 40 == walked.metrics()["distance"]
    back = play(walked, ["left"] * 80)  # Mario slows down, turns and walks back: that earns nothing
    furthest = back.facts.levels[0][3]
    assert back.facts.x < furthest and back.scores[0] == furthest - 40 >= walked.scores[0]
    lost_one = None
    while not state.is_over:  # walking right into the goombas: three deaths
        state = state.apply("right")
        if lost_one is None and state.facts.deaths == 1:
            lost_one = state
            assert "lost a life" in state.notice()
    assert lost_one is not None and lost_one.facts.lives == 2
    facts = state.facts
    assert facts.deaths == 3 and facts.lives == 0 and state.to_act == () and state.legal_actions() == []
    # After a death Mario starts again from 40: the distance counts the furthest point once.
    assert state.scores[0] == facts.levels[0][3] - 40 > 100 and len(facts.levels) == 1
    assert game.raw_score == "distance" and game.progress_score == "obstacles_passed"
    with pytest.raises(IllegalActionError, match="run is over"):
        state.apply("right")
    assert "three lives are lost" in state.text()


def test_a_run_without_progress_ends_after_stuck_seconds() -> None:
    game = Mario(stuck_seconds=2)
    state = play(game.initial_state(seed=0), WALK[:20])
    waited, warned = 0, False
    while not state.is_over:
        state = state.apply("noop")
        waited += 1
        warned = warned or "No progress: the run ends in" in state.notice()
    # Mario slides a few frames after letting go; the run ends 120 frames after his last gain.
    assert warned and state.facts.stuck == 120 and 120 <= waited <= 140 and state.facts.deaths == 0
    assert "Mario made no progress for 2 seconds" in state.text()
    patient = play(Mario(stuck_seconds=0).initial_state(seed=0), WALK[:20] + ["noop"] * 130)
    assert not patient.is_over and patient.facts.stuck >= 100
    assert "no progress for 5 seconds" in engine.make("mario").rules_text()


def test_a_state_read_from_json_rebuilds_its_history_only_when_the_emulator_needs_it(game: Mario) -> None:
    state = play(game.initial_state(seed=8), WALK[:25])
    back = game.state_from_json(json.loads(json.dumps(state.to_json())))
    assert back.up is None and back == state and hash(back) == hash(state)
    assert back.to_json() == state.to_json()  # from the recorded facts, no replay
    assert back.parent is not None and back.parent == state.parent and back.parent.step == 24


def test_the_runner_passes_obstacles_and_the_text_view_names_what_is_ahead(game: Mario) -> None:
    bot = game.make_bot("runner", 1)
    state = game.initial_state(seed=1)
    seen_goomba = False
    for _ in range(420):
        seen_goomba = seen_goomba or "goomba" in state.text()
        decision = asyncio.run(bot.act(Observation(game, state, 0, tuple(state.legal_actions(0)))))
        state = state.apply(decision.action)
    assert seen_goomba and state.facts.deaths == 0
    assert state.metrics()["obstacles_passed"] >= 1 and state.scores[0] > 350
    assert "Ahead (in blocks of 16 pixels):" in state.text() and "Mario at (x" in state.text_table()


# -- registry, sessions and the ROM -----------------------------------------------------------------------


def test_without_the_emulator_the_game_is_listed_with_its_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert Mario.requires == ("nes_py", "gym_super_mario_bros") and Mario.extra == "mario"
    real = registry.importlib.util.find_spec
    monkeypatch.setattr(registry.importlib.util, "find_spec",
                        lambda name, *a: None if name == "nes_py" else real(name, *a))
    registry.refresh()
    try:
        entry = {e.id: e for e in engine.entries()}["mario"]
        assert "nes_py" in entry.problem
        assert entry.install == f"{shlex.quote(sys.executable)} -m pip install 'playtrace[mario]'"
        assert "mario" not in engine.list_games()
    finally:
        monkeypatch.undo()
        registry.refresh()
    assert "mario" in engine.list_games()


def test_sessions_record_actions_and_numbers_but_no_rom_bytes(tmp_path: Path, game: Mario) -> None:
    match = Match(game, [game.make_bot("runner", 3)], seed=3, max_steps=40)
    writer = SessionWriter.for_match(tmp_path, match, title="mario")
    asyncio.run(match.run())
    writer.close()
    rom = Path(rom_path()).read_bytes()
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert b"right" in written and b"distance" in written
    for start in (0, 16, 4096, 16384, 32784):  # the header, code and graphics: never a 16-byte run
        assert rom[start : start + 16] not in written
    assert not [p for p in (REPO / "engine").rglob("*.nes")] + [p for p in (REPO / "assets").rglob("*.nes")]
