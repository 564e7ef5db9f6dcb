"""Reflection: a separate model call that judges the player's last move, fed into its next prompt.

Following the harness papers, reflection runs once per decision after the player's first, on the
transition(s) since the player last moved: how the state changed, whether the move worked, patterns
to watch and a strategic hint, in fewer than :data:`MAX_WORDS` words. The prompt is the shared
template ``assets/prompts/_common/reflection.md``. The call itself is made by
:class:`~engine.agent.player.ModelPlayer` (it owns the client, the events and the budget); this module
decides *whether* to reflect and builds the prompt, and reads the answer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from engine.agent.memory import Memory, MemoryEntry, format_history
from engine.agent.perception import state_text
from engine.agent.prompts import PromptTemplate, RenderedPrompt
from engine.core import Game
from engine.players import Observation, StepRecord, since_move

#: The length the reflection prompt asks for.
MAX_WORDS = 100


@dataclasses.dataclass(frozen=True, slots=True)
class ReflectionPrompt:
    """A reflection prompt ready to send, and the first step it reflects on."""

    prompt: RenderedPrompt
    on_step: int


def since_last_move(obs: Observation) -> list[StepRecord]:
    """The steps from the player's own last move to now (empty before its first move)."""
    return since_move(obs.history, obs.seat)


def build_prompt(
    template: PromptTemplate, game: Game, obs: Observation, window: Sequence[MemoryEntry]
) -> ReflectionPrompt | None:
    """The reflection prompt for ``obs``, or ``None`` when the player has not moved yet.

    The history shown is the memory window, or (memory off) the steps since the player's last move.
    """
    recent = since_last_move(obs)
    if not recent:
        return None
    entries = list(window) or Memory(len(recent)).window(game, recent, obs.seat)
    values = {
        "game_title": game.title,
        "history": format_history(entries) or "(no earlier steps)",
        "last_action": describe_moves(game, recent),
        "state": state_text(obs.state, obs.seat),
    }
    return ReflectionPrompt(template.render(values), recent[0].step)


def describe_moves(game: Game, records: Sequence[StepRecord]) -> str:
    """``"step 3: left"`` or, with several seats, ``"step 3: X played (0,0); step 4: O played (1,1)"``."""
    parts = []
    for rec in records:
        for seat, action in sorted(rec.actions.items()):
            if game.num_seats > 1:
                name = game.seats[seat].name if seat < len(game.seats) else f"seat {seat}"
                parts.append(f"step {rec.step}: {name} played {action}")
            else:
                parts.append(f"step {rec.step}: {action}")
    return "; ".join(parts)


def clean(content: str) -> str:
    """The reflection text, without a ``reflection:`` label when the model added one."""
    text = content.strip()
    head, sep, rest = text.partition(":")
    if sep and head.strip(" *#").lower() == "reflection":
        text = rest.strip()
    return text
