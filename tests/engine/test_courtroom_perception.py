"""The courtroom's perception call, on a session the engine recorded: the simulated model describes
the courtroom picture with the courtroom's own perception prompt (LMGame-Bench's Ace Attorney fields),
and the acting model plays from that description: the current line and every piece of evidence with
its description, but none of the older dialogue a screenshot cannot show."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.episode import png_renderer
from engine import events as ev
from engine.games.courtroom import load_bundled
from tests.sessions.test_steps import Recording, of_type, record_sim_match


@pytest.fixture(scope="module")
def described(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    root: Path = tmp_path_factory.mktemp("court-describe")
    return record_sim_match(
        root,
        "courtroom",
        ["sim"],
        seed=3,
        max_steps=3,
        render=png_renderer("courtroom"),
        perception="describe",
        reflection=False,
        memory=0,
    )


def test_the_description_carries_the_screen_and_the_court_record(described: Recording) -> None:
    records = described.session.events_for_step(1)
    perception = of_type(records, ev.PERCEPTION)[0]["data"]
    assert perception["template"] == "prompts/courtroom/perception/describe.md" and perception["image"]
    assert "Game State:" in perception["user"] and "court record panel" in perception["user"]
    text = perception["text"]
    fields = [line.split(":", 1)[0] for line in text.splitlines()]
    assert fields == ["Game State", "Dialog", "Dialogue Continuation", "Options", "Evidence", "Scene"]
    case = load_bundled()[0]
    for item in case.evidence:
        assert f"{item.label} {item.name}: {item.description}" in text
    assert "Cross-Examination" in text and case.opening[0][1] not in text
    prompt = of_type(records, ev.PROMPT_BUILT)[0]["data"]["user"]
    assert "Evidence: E1 Visitor pass" in prompt and case.opening[0][1] not in prompt
