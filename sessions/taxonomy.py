"""Label taxonomies: the names annotators tag a model's steps with.

The default taxonomy is drawn from the error kinds the five benchmark papers describe when they look at
models' failures: a misread board (LMGame-Bench's perception errors, LVLM-Playground's perceive task), an
illegal move, a rule misunderstood, a hallucinated merge (2048's "merging the 4 and 4" when no such merge
exists), a repeated invalid action (looping on the same impossible move), and losing track of the goal
(GVGAI-LLM's wandering steps). A study may bring its own, as a TOML file::

    [[label]]
    key = "missed_threat"
    title = "Missed a threat"
    description = "The opponent wins next move and the model did not see it."

Each label gets a number key (1–9, then 0) in the app's annotation panel, in the order listed.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Sequence
from pathlib import Path

from engine.safeio import InputError, loads_toml, read_text
from sessions.errors import SessionError

__all__ = ["DEFAULT_TAXONOMY", "Label", "load_taxonomy", "parse_taxonomy"]

_KEY = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
#: The most labels a taxonomy may hold (the number keys reach the first ten).
MAX_LABELS = 30


@dataclasses.dataclass(frozen=True, slots=True)
class Label:
    """One label: a short key (``misread_board``), the title people read, and what it means."""

    key: str
    title: str
    description: str = ""


DEFAULT_TAXONOMY: tuple[Label, ...] = (
    Label("misread_board", "Misread the board",
          "The reasoning states a position that is not the one shown (a wrong tile, piece or cell)."),
    Label("illegal_move", "Illegal move", "The chosen action is not allowed in this position."),
    Label("rule_misunderstanding", "Misunderstood a rule",
          "The reasoning relies on a rule the game does not have, or ignores one it has."),
    Label("hallucinated_merge", "Hallucinated an effect",
          "The model expects a merge, capture or clear that the move cannot produce."),
    Label("repeated_invalid_action", "Repeated an invalid action",
          "The same impossible or useless action again, after it already failed."),
    Label("lost_goal", "Lost track of the goal",
          "The move does not serve the game's objective; the plan was forgotten or abandoned."),
    Label("good_move", "Good decision", "A correct and well-reasoned step (for contrast and balance)."),
)


def parse_taxonomy(text: str, source: str = "taxonomy") -> tuple[Label, ...]:
    """The labels of a taxonomy file's text (see the module's docstring).

    Raises:
        SessionError: not TOML, a label without a valid key or title, a repeated key — the message
            names the source and, where TOML says it, the line.
    """
    try:
        data = loads_toml(text, source)
    except InputError as exc:
        raise SessionError(str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise SessionError(f"{source}: not a valid TOML file: {exc}") from exc
    raw = data.get("label")
    if not isinstance(raw, list) or not raw:
        raise SessionError(f"{source}: expected one or more [[label]] tables with key and title")
    return labels_from(raw, source, _lines_of(text))


def labels_from(raw: Sequence[object], source: str, lines: Sequence[int] = ()) -> tuple[Label, ...]:
    """Labels from a list of tables (``{"key", "title", "description"}``), checked as
    :func:`parse_taxonomy` checks them; ``lines`` are the tables' line numbers when known."""
    labels: list[Label] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        where = f"{source}, label {i + 1}" + (f" (line {lines[i]})" if i < len(lines) else "")
        if not isinstance(item, dict):
            raise SessionError(f"{where}: expected a table with key and title")
        key, title = item.get("key"), item.get("title")
        if not isinstance(key, str) or not _KEY.match(key):
            raise SessionError(f"{where}: key must be a short lowercase word (a-z, 0-9, _), not {key!r}")
        if key in seen:
            raise SessionError(f"{where}: the key {key!r} is used twice")
        if not isinstance(title, str) or not title.strip():
            raise SessionError(f"{where}: expected a title (what people read)")
        description = item.get("description", "")
        if not isinstance(description, str):
            raise SessionError(f"{where}: description must be text")
        unknown = set(item) - {"key", "title", "description"}
        if unknown:
            raise SessionError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        seen.add(key)
        labels.append(Label(key, title.strip(), description.strip()))
    if len(labels) > MAX_LABELS:
        raise SessionError(f"{source}: at most {MAX_LABELS} labels, not {len(labels)}")
    return tuple(labels)


def load_taxonomy(path: Path | str) -> tuple[Label, ...]:
    """The labels of a taxonomy file.

    Raises:
        SessionError: the file cannot be read or is not a taxonomy (see :func:`parse_taxonomy`).
    """
    p = Path(path)
    try:
        text = read_text(p, cap=1024 * 1024, what="taxonomy")
    except FileNotFoundError:
        raise SessionError(f"the taxonomy {p} does not exist") from None
    except InputError as exc:
        raise SessionError(str(exc)) from None
    return parse_taxonomy(text, str(p))


def _lines_of(text: str) -> list[int]:
    """The line number of each ``[[label]]`` header, in order."""
    return [n for n, line in enumerate(text.splitlines(), 1) if line.strip().startswith("[[label]]")]
