"""``playtrace rescore``: today's parser and oracles over recorded answers, with no model call."""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.agent import parse, verify
from engine.agent.parse import Extraction
from sessions.rescore import rescore_session
from sessions.search import find_sessions
from tests.commands import own_home, record, run_cli
from tests.loopback import Answer, LoopbackServer


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Sessions of the simulated model with format errors (tic-tac-toe asks intermediate questions)."""
    root = tmp_path_factory.mktemp("recorded")
    with own_home(tmp_path_factory):
        record(
            "run",
            "tictactoe",
            "-p",
            "sim",
            "-p",
            "random",
            "-n",
            "3",
            "--sim-error-rate",
            "0.4",
            "--out",
            str(root),
        )
        record("run", "2048", "-p", "sim", "-n", "1", "--max-steps", "15", "--out", str(root))
    yield root


def _digests(root: Path) -> dict[str, str]:
    return {
        str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _no_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    attempts: list[Any] = []

    def refuse(self: socket.socket, address: Any) -> None:
        attempts.append(address)
        raise OSError("network refused by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    return attempts


def test_unchanged_code_changes_nothing_and_calls_no_model(
    recorded: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    loopback: LoopbackServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Sessions of real SDK clients against the loopback server, in both wire formats.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-rescore-0000")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-rescore-0000")
    monkeypatch.setenv("OPENAI_BASE_URL", loopback.openai_base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.anthropic_base_url)
    loopback.default = Answer(content="thought: keep the corner.\nmove: left")
    wire = tmp_path / "wire"
    for spec in ("openai:gpt-4o-mini", "anthropic:claude-haiku-4-5"):
        code, _, err = run_cli(
            capsys, "run", "2048", "-p", spec, "--max-steps", "3", "--no-reflection", "--out", str(wire)
        )
        assert code == 0, err
    calls = len(loopback.requests)
    before = _digests(recorded) | _digests(wire)
    attempts = _no_network(monkeypatch)
    code, out, err = run_cli(capsys, "rescore", str(recorded), str(wire), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["sessions"] == 6 and report["changed"] == 0 and report["changes"] == []
    assert report["answers"] > 20 and report["checks"] > 10
    assert attempts == [] and len(loopback.requests) == calls
    assert _digests(recorded) | _digests(wire) == before


def test_a_changed_extractor_and_oracle_change_verdicts(
    recorded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = next(f for f in find_sessions(recorded) if "tictactoe" in f.name)
    baseline = rescore_session(folder)
    assert baseline.changes == [] and baseline.answers > 0 and baseline.checks > 0

    # A "parser fix" that can no longer read any answer: every parsed answer's verdict changes.
    monkeypatch.setattr(parse, "extractor_for", lambda game: lambda text, legal: Extraction(None, error="x"))
    broken = rescore_session(folder)
    parses = [c for c in broken.changes if c.what == "parse"]
    assert parses and all(c.after == "unparsable" for c in parses)
    assert all(c.before.startswith("ok: ") or c.before == "illegal" for c in parses)
    monkeypatch.undo()

    # An "oracle fix" that marks every answer wrong: every correct verdict changes.
    def wrong(question: Any, raw: Any, truth: Any) -> tuple[bool, Any, dict[str, Any]]:
        return False, raw, {"label": "FP"}

    monkeypatch.setattr(verify, "score", wrong)
    strict = rescore_session(folder)
    checks = [c for c in strict.changes if c.what.startswith("Q")]
    assert checks and all(c.after == "wrong (FP)" for c in checks)
    assert all(c.before.startswith("correct") for c in checks)


def test_rescore_refuses_to_write_into_a_session(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = next(iter(find_sessions(recorded)))
    before = _digests(folder)
    code, _, err = run_cli(capsys, "rescore", str(folder), "--out", str(folder / "events.jsonl"))
    assert code == 2 and "only PlayTrace's session writer" in err and err.count("\n") == 1
    assert _digests(folder) == before


def test_rescore_of_something_that_is_no_session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "rescore", str(tmp_path))
    assert code == 2 and "holds no session" in err
    code, _, err = run_cli(capsys, "rescore", str(tmp_path / "nothing"))
    assert code == 2 and "does not exist" in err


def test_audit_replays_every_match_call_for_call(
    recorded: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    loopback: LoopbackServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-audit-0000")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-audit-0000")
    monkeypatch.setenv("OPENAI_BASE_URL", loopback.openai_base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.anthropic_base_url)
    loopback.default = Answer(content="thought: keep the corner.\nmove: left", reasoning="Left keeps it.")
    wire = tmp_path / "wire"
    for spec in ("openai:gpt-4o-mini", "anthropic:claude-haiku-4-5"):
        code, _, err = run_cli(capsys, "run", "2048", "-p", spec, "--max-steps", "4", "--out", str(wire))
        assert code == 0, err
    calls = len(loopback.requests)
    attempts = _no_network(monkeypatch)
    code, out, err = run_cli(capsys, "rescore", str(recorded), str(wire), "--audit", "--json")
    assert code == 0, err
    audits = json.loads(out)["audit"]
    assert len(audits) == 6 and all(a["identical"] for a in audits)
    assert all(a["calls_replayed"] > 0 for a in audits)
    assert attempts == [] and len(loopback.requests) == calls

    # An answer altered after the fact: the re-run plays another move there, and the audit says where.
    victim = next(iter(find_sessions(wire)))
    copy = tmp_path / "altered" / victim.name
    shutil.copytree(victim, copy)
    lines = (copy / "events.jsonl").read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if '"type": "answer"' in line or '"type":"answer"' in line)
    event = json.loads(lines[first])
    event["data"]["text"] = event["data"]["text"].replace("move: left", "move: up")
    lines[first] = json.dumps(event)
    (copy / "events.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "rescore", str(copy), "--audit", "--json")
    assert code == 1
    (audit,) = json.loads(out)["audit"]
    assert not audit["identical"] and "step 1" in audit["difference"] and "'up'" in audit["difference"]
