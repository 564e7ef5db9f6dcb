"""Courtroom case files: a broken file is refused with a message naming the file and the field, and a
case of one's own plays through the ``case_file`` option (TOML or JSON)."""

from __future__ import annotations

import copy
import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import assets
import engine
from engine.games.courtroom import CaseFormatError, key_actions, load_case
from engine.games.courtroom.cases import parse_case
from engine.options import OptionError

SOURCE = assets.path("courtroom", "telescope.toml")


def base() -> dict[str, Any]:
    data = tomllib.loads(SOURCE.read_text(encoding="utf-8"))
    return copy.deepcopy(data)


def broken(change: Callable[[dict[str, Any]], None]) -> str:
    """The error message for the telescope case changed by ``change``."""
    data = base()
    change(data)
    with pytest.raises(CaseFormatError) as caught:
        parse_case(data, "mine.toml")
    message = str(caught.value)
    assert message.startswith("mine.toml: ")
    return message


def test_the_bundled_file_reads_and_names_itself() -> None:
    case = load_case(SOURCE)
    assert case.source == "assets/courtroom/telescope.toml" and case.key_steps == 2


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d.pop("title"), "title: this field is required"),
        (lambda d: d.update(id="Not An Id"), "id: 'Not An Id' is not a short id"),
        (lambda d: d.update(colour="red"), "unknown field(s) colour"),
        (lambda d: d["characters"].pop("judge"), "characters.judge: this character is required"),
        (
            lambda d: d["characters"]["osric"]["look"].update(coat="navy"),
            "characters.osric.look.coat: 'navy' is not a colour like #A1B2C3",
        ),
        (
            lambda d: d["characters"]["osric"]["look"].update(hat="crown"),
            "characters.osric.look.hat: 'crown' is not one of none, cap, brim",
        ),
        (lambda d: d["evidence"][1].update(icon="sword"), "evidence[2].icon: 'sword' is not one of"),
        (lambda d: d["evidence"][1].update(id="pass"), "evidence[2].id: the id 'pass' is used twice"),
        (
            lambda d: d["evidence"].extend([dict(d["evidence"][0], id=f"x{i}") for i in range(12)]),
            "evidence: 19 pieces of evidence; at most 12",
        ),
        (lambda d: d["opening"].append(["bailiff", "Order!"]), "opening[4]: unknown speaker 'bailiff'"),
        (lambda d: d["opening"].append(["judge"]), "opening[4]: expected a [speaker, text] pair"),
        (
            lambda d: d["testimony"][0].update(witness="nobody"),
            "testimony[1].witness: unknown character 'nobody'",
        ),
        (
            lambda d: d["testimony"][0]["statements"][1].pop("press"),
            "testimony[1].statements[2].press: this field is required",
        ),
        (
            lambda d: d["testimony"][0]["statements"][1].update(text=7),
            "testimony[1].statements[2].text: expected a non-empty text, not the number 7",
        ),
        (
            lambda d: d["testimony"][1]["statements"][0].update(reveals="smashd"),
            "testimony[2].statements[1].reveals: no statement 'smashd' in this testimony",
        ),
        (
            lambda d: d["testimony"][1]["statements"][0].update(reveals="alone"),
            "testimony[2].statements[1].reveals: statement 'alone' is not hidden = true",
        ),
        (
            lambda d: d["testimony"][1]["statements"][0].pop("reveals"),
            "testimony[2].statements[2].hidden: no press reveals statement 'smashed'",
        ),
        (
            lambda d: d["testimony"][0]["answer"].update(statement="sun"),
            "testimony[1].answer.statement: no statement 'sun' in this testimony",
        ),
        (
            lambda d: d["testimony"][0]["answer"].update(evidence="moonstone"),
            "testimony[1].answer.evidence: no evidence 'moonstone'",
        ),
        (
            lambda d: d["testimony"][1]["answer"].update(press=[]),
            "testimony[2].answer.press: expected the statements whose press reveals something (gone), "
            "not none",
        ),
        (
            lambda d: (
                d["testimony"][0]["statements"][0].update(adds=["photo"]),
                d["testimony"][0]["answer"].update(press=["rounds"]),
            ),
            "testimony[1].statements[1].adds: evidence 'photo' is held from the start",
        ),
        (
            lambda d: d["evidence"][2].update(held=False),
            "testimony[2].answer.evidence: the defense holds none",
        ),
        (
            lambda d: d["testimony"][0].update(
                choice={
                    "question": ["judge", "Who?"],
                    "options": ["A", "B"],
                    "answer": 3,
                    "right": [["judge", "Yes."]],
                    "wrong": [["judge", "No."]],
                }
            ),
            "testimony[1].choice.answer: expected a number from 1 to 2, not 3",
        ),
    ],
)
def test_a_broken_case_names_the_field(change: Callable[[dict[str, Any]], None], expected: str) -> None:
    assert expected in broken(change)


def test_hidden_evidence_must_be_added_somewhere() -> None:
    def change(d: dict[str, Any]) -> None:
        d["evidence"].append({"id": "spare", "name": "Spare key", "description": "A key.", "held": False})

    assert "evidence[8].held: evidence 'spare' is never added" in broken(change)


def test_unreadable_files_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(CaseFormatError, match="cannot read the case file .*missing.toml"):
        load_case(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text('id = "x"\ntitle = \n', encoding="utf-8")
    with pytest.raises(CaseFormatError, match=r"bad\.toml: not valid TOML"):
        load_case(bad)
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"id": "x",\n  oops}', encoding="utf-8")
    with pytest.raises(CaseFormatError, match=r"bad\.json: line 2: not valid JSON"):
        load_case(bad_json)


def test_a_case_file_of_ones_own_plays_through_the_option(tmp_path: Path) -> None:
    data = base()
    data["id"] = "mine"
    file = tmp_path / "mine.json"
    file.write_text(json.dumps(data), encoding="utf-8")
    game = engine.make("courtroom", case_file=str(file))
    state = game.initial_state(seed=0)
    assert state.current_case.id == "mine" and len(game.book) == 1
    for action in key_actions(game.book[0]):
        state = state.apply(action)
    assert state.phase == "won" and state.score == game.book[0].key_steps
    assert game.state_from_json(state.to_json()) == state


def test_a_case_may_start_with_an_empty_court_record(tmp_path: Path) -> None:
    data = base()
    for item in data["evidence"]:
        item["held"] = False
    data["testimony"][0]["statements"][0]["adds"] = [item["id"] for item in data["evidence"]]
    data["testimony"][0]["answer"]["press"] = ["rounds"]
    file = tmp_path / "empty.json"
    file.write_text(json.dumps(data), encoding="utf-8")
    game = engine.make("courtroom", case_file=str(file))
    state = game.initial_state(seed=0)
    assert state.legal_actions() == ["next", "press"] and state.panel(0).amounts == ()
    pressed = state.apply("press")
    assert pressed.score == 0 and pressed.panel(0).action_for({"evidence": 1}) == "present E2"
    assert key_actions(game.book[0])[:2] == ["press", "next"]


def test_a_broken_case_file_option_is_a_game_error(tmp_path: Path) -> None:
    file = tmp_path / "mine.toml"
    file.write_text('id = "mine"\n', encoding="utf-8")
    with pytest.raises(CaseFormatError, match=r"mine\.toml: characters: this field is required"):
        engine.make("courtroom", case_file=str(file))
    with pytest.raises(OptionError, match="'case'"):
        engine.make("courtroom", case="nowhere")
