"""The model's confidence over the candidate moves, from the token log-probabilities of its answer.

Where a provider returns log-probabilities (OpenAI's ``logprobs`` with ``top_logprobs``), the answer's
move is found in the text, and:

* ``chosen`` is the probability of the whole move as written: the product of its tokens' probabilities;
* ``candidates`` spreads the first move token's alternatives over the legal moves they begin: each
  alternative whose text (after what the token shares with the text before the move) starts exactly
  one legal move counts for that move; ``other`` is the mass of the alternatives that begin no legal
  move or more than one (``"("`` in ``(1,2)``-style moves says nothing about which cell).

Everything is a probability (``exp(logprob)``), rounded to four places. It is recorded on the
``action_parsed`` event and shown in the model panel; nothing here changes which move is played.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from engine.llm.base import TokenLogprob


def _p(logprob: float) -> float:
    return round(math.exp(logprob), 4)


def move_confidence(
    tokens: Sequence[TokenLogprob], move: str, legal: Sequence[str]
) -> dict[str, Any] | None:
    """``{"move", "chosen", "candidates": {move: p}, "other"}`` for the last occurrence of ``move`` in
    the text the ``tokens`` spell, or ``None`` when there are no tokens or the move is not in it."""
    if not tokens or not move:
        return None
    text = "".join(t.token for t in tokens)
    start = text.lower().rfind(move.lower())
    if start < 0:
        return None
    end = start + len(move)
    offsets = []
    at = 0
    for token in tokens:
        offsets.append(at)
        at += len(token.token)
    covering = [i for i, off in enumerate(offsets) if off < end and off + len(tokens[i].token) > start]
    if not covering:
        return None
    chosen = _p(sum(tokens[i].logprob for i in covering))
    first = covering[0]
    prefix = text[offsets[first] : start]  # what the first move token carries before the move (" ")
    candidates: dict[str, float] = {}
    other = 0.0
    alternatives = tokens[first].top or ((tokens[first].token, tokens[first].logprob),)
    for alt, logprob in alternatives:
        rest = alt[len(prefix):] if alt.lower().startswith(prefix.lower()) else ""
        rest = rest.strip().lower()
        begun = [m for m in legal if rest and m.lower().startswith(rest)]
        if len(begun) == 1:
            candidates[begun[0]] = round(candidates.get(begun[0], 0.0) + math.exp(logprob), 4)
        else:
            other += math.exp(logprob)
    ranked = dict(sorted(candidates.items(), key=lambda kv: -kv[1]))
    return {"move": move, "chosen": chosen, "candidates": ranked, "other": round(other, 4)}
