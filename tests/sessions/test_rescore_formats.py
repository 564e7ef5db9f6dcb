"""Re-scoring reads each recorded answer in the action format it was given in: a JSON answer from its
object, a tool call from its call. Unchanged code changes no verdict; a changed JSON reader does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.agent import action_format
from sessions.rescore import rescore_session
from tests.sessions.test_steps import record_sim_match


@pytest.mark.parametrize("fmt", ["json", "tools"])
def test_unchanged_code_changes_nothing_in_either_format(fmt: str, tmp_path: Path) -> None:
    rec = record_sim_match(tmp_path, "tictactoe", ["sim:careless", "minimax"], seed=4, action_format=fmt,
                           reflection=False)
    parsed = [e["data"] for e in rec.session.events
              if e["type"] in ("action_parsed", "action_unparsable", "action_illegal")]
    assert parsed and all(d["format"] == fmt for d in parsed)
    report = rescore_session(rec.session.path)
    assert report.answers == len(parsed) and report.checks > 0
    assert report.changes == [] and report.problems == []


def test_a_changed_json_reader_changes_verdicts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rec = record_sim_match(tmp_path, "tictactoe", ["sim:perfect", "minimax"], seed=4, action_format="json",
                           reflection=False)

    def nothing(text: Any) -> action_format.FormattedAnswer:
        return action_format.FormattedAnswer(None, error="reader changed")

    monkeypatch.setattr(action_format, "read_json_answer", nothing)
    report = rescore_session(rec.session.path)
    parses = [c for c in report.changes if c.what == "parse"]
    assert parses and all(c.after.startswith("unparsable") for c in parses)
