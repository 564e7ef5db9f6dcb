"""PlayTrace's VGDL engine plays GVGAI's published games as GVGAI's Java engine does.

The reference facts (tests/data/gvgai_reference) were recorded from the Java framework; the procedure
and every game that does not agree yet, with what differs, are in docs/vgdl-reference.md. Deterministic
traces are replayed tick for tick; random play is compared within three standard errors
(tests/engine/vgdl_reference.py has the comparisons and prints them for every game).
"""

from __future__ import annotations

import re

import pytest

from tests.engine import vgdl_reference as ref

pytestmark = pytest.mark.skipif(not ref.GVGAI.is_dir(),
                                reason="../shared/gvgai (GVGAI's games) is not beside the repository")

#: Games whose every recorded deterministic trace PlayTrace replays tick for tick.
TRACE_GAMES: tuple[str, ...] = (
    "avoidgeorge",
    "boloadventures",
    "bomber",
    "bomberman",
    "brainman",
    "catapults",
    "chipschallenge",
    "chopper",
    "circuit",
    "clusters",
    "colourescape",
    "cookmepasta",
    "cops",
    "crossfire",
    "deceptizelda",
    "digdug",
    "doorkoban",
    "dungeon",
    "enemycitadel",
    "escape",
    "firecaster",
    "flower",
    "garbagecollector",
    "glow",
    "grow",
    "gymkhana",
    "hungrybirds",
    "iceandfire",
    "islands",
    "killBillVol1",
    "labyrinthdual",
    "lasers",
    "lasers2",
    "lemmings",
    "mirrors",
    "modality",
    "overload",
    "plants",
    "plaqueattack",
    "pokemon",
    "realportals",
    "realsokoban",
    "rivers",
    "roguelike",
    "shipwreck",
    "sistersavior",
    "slide",
    "sokoban",
    "surround",
    "tercio",
    "thecitadel",
    "theshepherd",
    "thesnowman",
    "towerdefense",
    "vortex",
    "waferthinmints",
    "waferthinmintsexit",
    "watergame",
    "waves",
    "wrapsokoban",
    "zelda",
    "zenpuzzle",
)

#: Games whose random play on level 0 agrees with the reference: mean score, wins and losses before
#: the step cap, each within three standard errors.
RANDOM_GAMES: tuple[str, ...] = (
    "aliens",
    "angelsdemons",
    "assemblyline",
    "avoidgeorge",
    "blacksmoke",
    "boloadventures",
    "bomber",
    "bomberman",
    "boulderchase",
    "boulderdash",
    "brainman",
    "cakybaky",
    "camelRace",
    "catapults",
    "chainreaction",
    "chipschallenge",
    "chopper",
    "circuit",
    "clusters",
    "colourescape",
    "cookmepasta",
    "cops",
    "crossfire",
    "decepticoins",
    "deceptizelda",
    "defem",
    "defender",
    "deflection",
    "digdug",
    "donkeykong",
    "doorkoban",
    "dungeon",
    "eggomania",
    "eighthpassenger",
    "enemycitadel",
    "escape",
    "explore",
    "factorymanager",
    "firecaster",
    "fireman",
    "flower",
    "freeway",
    "garbagecollector",
    "ghostbuster",
    "glow",
    "gymkhana",
    "hungrybirds",
    "iceandfire",
    "ikaruga",
    "intersection",
    "islands",
    "jaws",
    "killBillVol1",
    "labyrinthdual",
    "lasers",
    "lasers2",
    "lemmings",
    "link",
    "mirrors",
    "modality",
    "myAliens",
    "overload",
    "pacoban",
    "plants",
    "plaqueattack",
    "pokemon",
    "racebet",
    "racebet2",
    "realportals",
    "realsokoban",
    "rivers",
    "roadfighter",
    "roguelike",
    "run",
    "seaquest",
    "sheriff",
    "shipwreck",
    "sistersavior",
    "slide",
    "sokoban",
    "solarfox",
    "superman",
    "surround",
    "tercio",
    "thecitadel",
    "themole",
    "theshepherd",
    "thesnowman",
    "towerdefense",
    "vortex",
    "waferthinmints",
    "waferthinmintsexit",
    "watergame",
    "waves",
    "whackamole",
    "wildgunman",
    "witnessprotected",
    "witnessprotection",
    "wrapsokoban",
    "x-racer",
    "zelda",
    "zenpuzzle",
)

DOC = ref.ROOT / "docs" / "vgdl-reference.md"


def _documented() -> set[tuple[str, str]]:
    """(game, check) pairs the document lists as not agreeing yet, from its table rows."""
    text = DOC.read_text(encoding="utf-8")
    rows = re.findall(r"^\| *`?([\w-]+)`? *\| *(traces|random|loads) *\|", text, re.M)
    return set(rows)


@pytest.mark.parametrize("game", TRACE_GAMES)
def test_deterministic_traces_replay_tick_for_tick(game: str) -> None:
    data = ref.load(game)
    assert data["traces"], f"{game} has no deterministic trace recorded"
    for trace in data["traces"]:
        difference = ref.first_difference(data, trace)
        assert difference is None, f"{game}: {difference}"


@pytest.mark.parametrize("game", RANDOM_GAMES)
def test_random_play_agrees_within_three_standard_errors(game: str) -> None:
    data = ref.load(game)
    comparison = ref.compare_random(data)
    assert comparison.agrees, f"{game}: {ref.describe_random(data, comparison)}"


def test_every_recorded_game_is_either_asserted_or_listed_with_its_difference() -> None:
    documented = _documented()
    games = ref.recorded_games()
    assert len(games) >= 100
    unaccounted = []
    for game in games:
        data = ref.load(game)
        if data["traces"] and game not in TRACE_GAMES and (game, "traces") not in documented \
                and (game, "loads") not in documented:
            unaccounted.append(f"{game} (traces)")
        if data.get("random") and game not in RANDOM_GAMES and (game, "random") not in documented \
                and (game, "loads") not in documented:
            unaccounted.append(f"{game} (random)")
    assert not unaccounted, f"neither asserted nor listed in {DOC.name}: {', '.join(unaccounted)}"
    asserted = set(TRACE_GAMES) | set(RANDOM_GAMES)
    listed_but_asserted = {(g, c) for g, c in documented if (c == "traces" and g in TRACE_GAMES)
                           or (c == "random" and g in RANDOM_GAMES)}
    assert not listed_but_asserted, f"listed as disagreeing but asserted: {sorted(listed_but_asserted)}"
    assert asserted <= set(games)
    # A game agrees when every check recorded for it is asserted.
    agreeing = [g for g in games if (g in TRACE_GAMES or not ref.load(g)["traces"])
                and (g in RANDOM_GAMES or not ref.load(g).get("random"))]
    assert len(agreeing) >= 30


def test_a_trace_that_differs_is_reported_with_its_tick_and_values() -> None:
    data = ref.load("sokoban")
    trace = dict(data["traces"][0])
    ticks = [list(t) for t in trace["ticks"]]
    ticks[5][2] += 1  # the reference's score after the fifth tick, changed
    difference = ref.first_difference(data, {**trace, "ticks": ticks})
    assert difference is not None and "tick 5 " in difference and "score" in difference
