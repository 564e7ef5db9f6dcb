"""The courtroom as a Gymnasium observation: the text view, its oldest dialogue left out so that the
current testimony and the evidence always fit in the text space."""

from __future__ import annotations

import string
from typing import Any

from gymnasium import spaces

from engine.core import Game, Seat, State
from engine.games.courtroom.rules import CourtState

#: The longest observation, in characters (Gymnasium's text space needs a bound).
MAX_LENGTH = 8192
_CHARSET = frozenset(string.printable)


class TrimmedText:
    """The defense's text view, at most :data:`MAX_LENGTH` printable characters."""

    def __init__(self, game: Game) -> None:
        self.space: spaces.Space[Any] = spaces.Text(
            max_length=MAX_LENGTH, min_length=0, charset=string.printable
        )

    def encode(self, view: State, seat: Seat) -> str:
        assert isinstance(view, CourtState)
        text = view.text_within(MAX_LENGTH)
        # Typographic quotes and the like become plain ones; anything else unprintable becomes "?".
        text = text.translate(_PLAIN)
        return "".join(c if c in _CHARSET else "?" for c in text)[:MAX_LENGTH]


_PLAIN = str.maketrans(
    {
        "\u201c": '"',
        "\u201d": '"',
        "\u2018": "'",
        "\u2019": "'",
        "\u2014": "-",
        "\u2013": "-",
        "\u00b7": "-",
        "\u2026": "...",
    }
)
