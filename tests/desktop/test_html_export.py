"""``playtrace export SESSION out.html``: one self-contained page, checked in a real headless Chromium."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessions import load_session
from sessions.search import find_sessions
from tests.browser import dump_dom, needs_chromium
from tests.commands import own_home, record, run_cli


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("html")
    with own_home(tmp_path_factory):
        record(
            "run",
            "tictactoe",
            "-p",
            "sim",
            "-p",
            "random",
            "-n",
            "1",
            "--sim-error-rate",
            "0.5",
            "--seed",
            "4",
            "--out",
            str(root),
        )
    yield next(iter(find_sessions(root)))


def _payload(page: str) -> dict[str, object]:
    m = re.search(r'<script id="session-data" type="application/json">(.*?)</script>', page, re.S)
    assert m
    data = json.loads(m.group(1))
    assert isinstance(data, dict)
    return data


def test_the_page_is_self_contained(
    session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "share.html"
    code, stdout, err = run_cli(capsys, "export", str(session), str(out))
    assert code == 0, err
    assert stdout.strip() == str(out)
    page = out.read_text(encoding="utf-8")
    assert "default-src 'none'" in page
    # Nothing to fetch: no http(s) address in any src, href or CSS url().
    assert not re.search(r'(src|href)\s*=\s*"(?!#|data:)', page)
    assert not re.search(r"url\(\s*['\"]?(?!data:)", page)
    data = _payload(page)
    recorded = load_session(session)
    steps = data["steps"]
    assert isinstance(steps, list) and len(steps) == recorded.num_steps + 1
    images = data["images"]
    assert isinstance(images, dict) and all(
        str(u).startswith("data:image/png;base64,") for u in images.values()
    )
    # Every decision the session recorded is on the page with its action, and the model's reasoning.
    decisions = [e for e in recorded.events if e["type"] == "decision"]
    shown = [d for s in steps for d in s["decisions"] if d["action"] is not None]  # type: ignore[index]
    assert [d["action"] for d in shown] == [e["data"]["action"] for e in decisions]
    reasoning = [e["data"]["text"] for e in recorded.events if e["type"] == "reasoning"]
    assert reasoning and all(any(r in str(d["reasoning"]) for d in shown) for r in reasoning)


@needs_chromium
def test_chromium_opens_the_page_offline_and_jumps_to_a_step(
    session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "share.html"
    assert run_cli(capsys, "export", str(session), str(out))[0] == 0
    data = _payload(out.read_text(encoding="utf-8"))
    steps = data["steps"]
    assert isinstance(steps, list)
    n = len(steps) - 1
    for k in (1, 3, n + 1):
        dom = dump_dom(f"{out.as_uri()}#step={k}", tmp_path / "profile")
        assert 'data-ready="true"' in dom
        label = f"Step {k} / {n}" if k <= n else f"Final position · {n} steps"
        assert f'<strong id="position">{label}</strong>' in dom
        for d in steps[k - 1]["decisions"]:
            if d["action"] is not None:
                assert f'<div class="action">{d["action"]}</div>' in dom
        if k <= n:
            assert 'src="data:image/png;base64,' in dom


def test_a_page_never_goes_into_a_session(session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = sorted(p.name for p in session.iterdir())
    code, out, err = run_cli(capsys, "export", str(session), str(session / "page.html"))
    assert code == 2 and "only PlayTrace's session writer" in err and out == ""
    assert sorted(p.name for p in session.iterdir()) == before


def test_hostile_text_stays_text(tmp_path: Path) -> None:
    from desktop.html_page import page

    html = page("<b>t</b>", "m", {"steps": [{"label": "</script><script>alert(1)</script>"}], "images": {}})
    assert "</script><script>alert(1)" not in html and "&lt;b&gt;t&lt;/b&gt;" in html
