"""Protocol files: the shipped ones read and plan; mistakes name their line; edits are honoured."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.protocols import ProtocolFileError, load_protocol, parse_protocol, plan, shipped, shipped_text
from engine.protocols.papers import load_paper, parse_value

GVGAI = Path(__file__).resolve().parents[2] / ".." / "shared" / "gvgai"
PAPERS = ("lmgame-bench", "modular-harness", "gvgai-llm", "lvlm-playground", "gamebot")

SMALL = """\
id = "mine"
title = "A small protocol"

[[games]]
id = "2048"
max_steps = 6

[[games]]
id = "tictactoe"
opponent = "minimax"

[harness]
memory = 0
reflection = false

[[variants]]
name = "zs"
ablation = "ZS"
perception = "image"

[[variants]]
name = "both"
ablation = "+Both"
memory = 4
reflection = true

[[runs]]
name = "random"
players = ["random"]
episodes = 3
games = ["2048"]

[[runs]]
name = "model"
players = [["{player}", "{opponent}"], ["{opponent}", "{player}"]]
episodes = 2
variants = true
games = ["tictactoe"]
"""


def test_every_paper_has_a_shipped_protocol_and_published_tables() -> None:
    assert shipped() == sorted(PAPERS)
    for pid in PAPERS:
        protocol = load_protocol(pid)
        assert protocol.id == pid
        assert protocol.deviations, f"{pid} names no deviation"
        assert load_paper(protocol.report_paper), f"{pid} has no published tables"


def test_lmgame_protocol_is_the_papers() -> None:
    p = load_protocol("lmgame-bench")
    assert [v.ablation for v in p.variants][:4] == ["ZS", "+Memory", "+Perception", "+Both"]
    zs = p.variants[0].values
    assert zs["perception"] == "image" and zs["image_labels"] is False and zs["memory"] == 0
    assert zs["reflection"] is False
    assert p.game("candycrush").options["wasted_swaps"] is True
    runs = {r.name: r for r in p.runs}
    assert runs["random"].episodes == 30 and runs["random"].baseline
    assert runs["model"].episodes == 3 and runs["model"].variants and not runs["model"].baseline
    assert p.statistic == "sd"
    assert p.harness["reask"] == "none" and p.harness["fallback"] == "noop"
    made = {r.run.name: r.sweep for r in plan(p, player="sim").runs}
    vlm = {s.name: s.values for s in made["model-mario"].settings}
    assert vlm["both-vlm"]["perception"] == "describe" and vlm["zs"]["perception"] == "image"
    assert vlm["zs"]["prompt_variant"] == "lmgame"
    mario = made["model-mario"].games[0].options
    assert mario["durations"] is True and mario["max_frames"] == 30 and mario["stuck_seconds"] == 0
    assert {g.label for g in made["model-courtroom"].games} == {"courtroom"}
    holdem = made["holdem"]
    assert holdem.games[0].options["hands"] == 40 and holdem.games[0].options["mirrored"] is True
    assert [s.values["prompt_variant"] for s in holdem.settings] == ["v0", "v1", "v2"]
    contexts = {made[n].games[0].options["context"] for n in ("context-long", "context-recent")}
    assert contexts == {"long", "recent"}


def test_plan_makes_each_run_a_sweep_with_the_player_and_opponents() -> None:
    p = parse_protocol(SMALL, name="mine.toml")
    made = plan(p, player="sim")
    runs = {r.run.name: r for r in made.runs}
    assert len(runs["random"].sweep.episodes) == 3
    model = runs["model"].sweep
    assert {c.lineup.specs for c in model.cells} == {("sim", "minimax"), ("minimax", "sim")}
    assert [s.name for s in model.settings] == ["zs", "both"]
    assert len(model.episodes) == 2 * 2 * 2
    assert "sim_latency = 0.0" in runs["model"].text
    # Without a player, only the baselines play.
    alone = plan(p, player=None)
    assert [r.run.name for r in alone.runs] == ["random"]
    assert alone.skipped == ("run model (needs --player)",)
    # A first look: fewer episodes, fewer games, a step cap.
    quick = plan(p, player="sim", games=["tictactoe"], episodes=1, max_steps=3)
    assert [r.run.name for r in quick.runs] == ["model"]
    assert quick.runs[0].sweep.seeds == (0,) and quick.runs[0].sweep.max_steps == 3


def test_an_edited_protocol_changes_what_is_played() -> None:
    text = shipped_text("lmgame-bench")
    edited = text.replace("episodes = 30", "episodes = 7").replace("moves = 50", "moves = 20")
    p = parse_protocol(edited, name="mine.toml")
    made = plan(p, player="sim", games=["candycrush"])
    runs = {r.run.name: r for r in made.runs}
    assert runs["random"].sweep.seeds == tuple(range(7))
    assert runs["random"].sweep.games[0].options["moves"] == 20


@pytest.mark.parametrize(("change", "where", "message"), [
    (("id = \"2048\"", "id = \"2049\""), "id = \"2049\"", "games[0].id"),
    (("max_steps = 6", "max_steps = 0"), "max_steps = 0", "a whole number of steps"),
    (("perception = \"image\"", "perception = \"smell\""), "perception = \"smell\"",
     '"text", "image", "both"'),
    (("episodes = 3", "episodes = \"3\""), "episodes = \"3\"", "runs[0].episodes"),
    (("games = [\"2048\"]", "games = [\"chess\"]"), "games = [\"chess\"]", "runs[0].games[0]"),
    (("ablation = \"ZS\"", "ablation = \"zero\""), "ablation = \"zero\"", "variants[0].ablation"),
    (("name = \"random\"", "name = \"random\"\ncolour = 1"), "colour = 1", "unknown key"),
    (("opponent = \"minimax\"\n", ""), "players = [[\"{player}\"", "{opponent} needs an opponent"),
])
def test_a_mistake_names_its_line(change: tuple[str, str], where: str, message: str) -> None:
    text = SMALL.replace(*change)
    assert text != SMALL
    line = next(i for i, ln in enumerate(text.splitlines(), start=1) if where in ln)
    with pytest.raises(ProtocolFileError) as info:
        parse_protocol(text, name="mine.toml")
    assert message in str(info.value)
    assert str(info.value).startswith(f"mine.toml:{line}: "), str(info.value)


def test_toml_syntax_error_has_its_line() -> None:
    with pytest.raises(ProtocolFileError, match=r"mine\.toml:3: not valid TOML"):
        parse_protocol('id = "x"\n\n[[games]\n', name="mine.toml")


def test_gvgai_needs_its_games_folder(tmp_path: Path) -> None:
    p = load_protocol("gvgai-llm")
    with pytest.raises(ProtocolFileError, match="--input gvgai=DIR"):
        plan(p, player="sim")
    with pytest.raises(ProtocolFileError, match="not an input"):
        plan(p, player="sim", inputs={"roms": str(tmp_path)})
    if not GVGAI.is_dir():
        pytest.skip("GVGAI's games are not beside the repository")
    made = plan(p, player="sim", inputs={"gvgai": str(GVGAI.resolve())}, games=["aliens"])
    zero = next(r for r in made.runs if r.run.name == "zero-shot").sweep
    assert len(zero.games) == 5
    assert zero.games[2].options["level_file"].endswith("aliens_lvl2.txt")
    tagger = next(r for r in made.runs if r.run.name == "tagger").sweep
    assert all(g.options["coordinates"] is True for g in tagger.games)
    assert zero.settings[0].values["temperature"] == 0.9 and zero.settings[0].values["memory"] == 0


def test_lvlm_plans_task_sets_and_end_to_end_games() -> None:
    p = load_protocol("lvlm-playground")
    made = plan(p, player="sim", episodes=5)
    assert len(made.tasks) == 18 and all(t.n == 5 for t in made.tasks)
    assert made.tasks[0].players == ("random", "sim")
    e2e = {r.run.name: r.sweep for r in made.runs}
    duel = e2e["e2e-duel"].settings[0].values
    assert duel["strikes"] == 3 and duel["reask"] == "same" and duel["fallback"] == "forfeit"
    assert duel["memory"] == 0 and duel["perception"] == "image"


def test_an_id_is_not_mistaken_for_a_folder_of_that_name(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "gamebot").mkdir()  # e.g. a reproduction folder named after its protocol
    monkeypatch.chdir(tmp_path)
    assert load_protocol("gamebot").id == "gamebot"


def test_unknown_protocol_id_lists_the_shipped_ones() -> None:
    with pytest.raises(ProtocolFileError, match="lmgame-bench"):
        load_protocol("lmgame")


def test_paper_values_are_read_as_printed() -> None:
    assert parse_value("987.0 ± 414.5").mean == 987.0 and parse_value("987.0 ± 414.5").spread == 414.5
    assert parse_value("−0.27").mean == -0.27
    assert parse_value("N/A").mean is None
    assert parse_value("8.0 %").mean == 8.0
    table1 = load_paper("lmgame-bench")["table1"]
    random_row = table1.baseline_row("random")
    assert random_row is not None and random_row.n == 30
    assert random_row.cells["candycrush"].mean == 116.5 and random_row.cells["candycrush"].spread == 51.5
