"""Reading a Pong action out of a model's reply (the game's answer extractor).

GameBot's prompt ends with an ``**[Action]**`` section holding ``1 - Move Up`` (``0 - Stay Still``,
``2 - Move Down``); its checker lower-cased the reply and looked for ``move up``, ``move down`` or
``stay still`` after the last ``[action]``. Here the same: the first action named after the last
``[Action]`` (or ``Action:``) marker, a phrase winning over a bare number. Without any marker, the last
phrase the reply names is taken, and the result says so; a marker followed by no action is a format
error, never patched from elsewhere in the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.agent.parse import Extraction, strip_tags
from engine.games.pong.rules import read_action

__all__ = ["extract_action"]

_MARKER = re.compile(r"\[\s*action\s*\]|(?<![\w])action\s*[:：]", re.IGNORECASE)
_DECISION = re.compile(r"\[\s*decision\s*\]", re.IGNORECASE)
_PHRASE = re.compile(r"move\s*up|move\s*down|stay\s*still", re.IGNORECASE)


def _decision(text: str) -> str:
    """The reasoning's last ``[Decision]`` paragraph (the first line after the marker), or ``""``."""
    found = list(_DECISION.finditer(text))
    if not found:
        return ""
    rest = [line.strip() for line in text[found[-1].end() :].splitlines() if line.strip(" *:")]
    return rest[0].strip(" *:") if rest else ""


def extract_action(text: str, legal: Sequence[str]) -> Extraction:
    """Pong: the action after the last ``[Action]`` marker; without one, the last phrase named."""
    thought = _decision(text)
    markers = list(_MARKER.finditer(text))
    if markers:
        rest = text[markers[-1].end() :].strip()
        # The section runs to the next blank line: "1 - Move Up", however it is decorated.
        section = rest.split("\n\n", 1)[0] if rest else ""
        action = read_action(section)
        if action is None:
            shown = section.strip()[:60]
            error = (
                f"the [Action] section names no action ({shown!r})"
                if shown
                else "the [Action] section is empty"
            )
            return Extraction(None, error=error, thought=thought)
        return Extraction(action, thought=thought)
    phrases = list(_PHRASE.finditer(strip_tags(text)))
    if not phrases:
        return Extraction(None, error="no [Action] section and no action named in the reply", thought=thought)
    action = read_action(phrases[-1].group(0))
    return Extraction(
        action, reason="no [Action] section; took the last action named in the reply", thought=thought
    )
