"""Where a value of a TOML file is written, so that a mistake found after parsing names its line.

``tomllib`` gives values without positions; :func:`locate` finds the line that defines a value from
its path in the parsed data (``["games", 1, "options"]``, ``["questionnaire", 0, "item", 2, "kind"]``)
by following the file's table headers and keys. Sweep files and study files use it for their errors.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["locate"]

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*=""")


def locate(text: str, path: Sequence[str | int]) -> int | None:
    """The line (1-based) that defines the longest prefix of ``path``; ``None`` when no line does.

    ``[[name]]`` headers count the entries of the array ``name``; a header inside an array's entry
    (``[[questionnaire.item]]``) counts within the entry it follows.
    """
    target = tuple(path)
    counters: dict[tuple[Any, ...], int] = {}
    arrays: dict[tuple[str, ...], tuple[Any, ...]] = {}  # array name -> its current entry's full path
    current: tuple[Any, ...] = ()
    best: tuple[int, int] | None = None  # (prefix length, line)

    def consider(full: tuple[Any, ...], line: int) -> None:
        nonlocal best
        if target[: len(full)] == full and (best is None or len(full) > best[0]):
            best = (len(full), line)

    def resolve(names: tuple[str, ...]) -> tuple[Any, ...]:
        """``names`` with the current entry of every enclosing array put in (the longest first)."""
        for cut in range(len(names) - 1, 0, -1):
            if names[:cut] in arrays:
                return (*arrays[names[:cut]], *names[cut:])
        return names

    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header and not _KEY.match(line):
            names = tuple(part.strip().strip("\"'") for part in header.group(2).split("."))
            base = resolve(names)
            if header.group(1) == "[[":
                index = counters.get(base, -1) + 1
                counters[base] = index
                current = (*base, index)
                arrays[names] = current
                consider(base, number)  # the first [[games]] is where "games" starts
            else:
                current = base
            consider(current, number)
            continue
        key = _KEY.match(line)
        if key:
            consider((*current, key.group(1).strip("\"'")), number)
    return best[1] if best else None
