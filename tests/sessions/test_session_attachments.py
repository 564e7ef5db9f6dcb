"""Attachments are content-addressed and stored once."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from engine import events as ev
from engine.events import Blob, Event
from sessions import SessionError, SessionWriter, attachment_path, load_session

from session_helpers import start_event


def test_attachments_are_content_addressed_and_deduplicated(root: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
    writer = SessionWriter.create(root, game="fake", players=[], seed=None, options={})
    writer.append(start_event())
    for call in range(1, 6):  # the same board image sent five times
        writer.append(Event(ev.PROMPT_BUILT, {"system": "s", "user": "u"}, step=0, seat=0, call=call,
                            blobs={"image": Blob(png)}))
    body = b'{"raw": "response"}'
    body_ref = writer.add_attachment(body, ".json")
    again = writer.add_attachment(body, "json")
    writer.append(Event(ev.PROMPT_BUILT, {"system": "s", "user": "u", "raw": b"\x00\x01raw bytes"}, step=0))
    writer.close("completed")

    digest = hashlib.sha256(png).hexdigest()
    files = sorted(p.name for p in (writer.path / "attachments").iterdir())
    assert f"sha256-{digest}.png" in files
    assert body_ref == again == f"attachment://sha256-{hashlib.sha256(body).hexdigest()}.json"
    assert len(files) == 3  # one image, one JSON body, one .bin for the raw bytes found in data

    session = load_session(writer.path)
    refs = {e["data"]["image"] for e in session.events if "image" in e["data"]}
    assert refs == {f"attachment://sha256-{digest}.png"}
    (ref,) = refs
    assert attachment_path(session, ref) == writer.path / "attachments" / f"sha256-{digest}.png"
    assert hashlib.sha256(session.read_attachment(ref)).hexdigest() == digest
    raw_ref = session.events[-1]["data"]["raw"]
    assert raw_ref.endswith(".bin") and session.read_attachment(raw_ref) == b"\x00\x01raw bytes"


@pytest.mark.parametrize(
    "ref",
    ["attachment://../manifest.json", "attachment://sha256-zz.png", "file:///etc/passwd",
     "attachment://sha256-" + "a" * 64 + "/../../x"],
)
def test_bad_references_are_refused(root: Path, ref: str) -> None:
    writer = SessionWriter.create(root, game="fake", players=[], seed=None, options={})
    writer.append(start_event())
    writer.close("completed")
    with pytest.raises(SessionError, match="not a PlayTrace attachment reference"):
        attachment_path(load_session(writer.path), ref)
