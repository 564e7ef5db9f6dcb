"""A toy that needs a module nobody has: PlayTrace lists it as unavailable, with its install command."""

from __future__ import annotations

from typing import ClassVar

from engine.core import seats_of
from playtrace_toys.triple import Triple


class NeedsDep(Triple):
    id: ClassVar[str] = "needsdep"
    title: ClassVar[str] = "Needs a dependency"
    seats = seats_of(["Red", "Green", "Blue"])
    requires: ClassVar[tuple[str, ...]] = ("playtrace_toys_missing_engine",)
    extra: ClassVar[str | None] = "fancy"
