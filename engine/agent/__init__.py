"""The model harness: perception, memory, reflection, prompts, parsing and verification.

:func:`make_model_player` builds the player that runs them (see :mod:`engine.agent.player`).
"""

from __future__ import annotations

from engine.agent.player import HarnessConfig, ModelPlayer, make_model_player

__all__ = ["HarnessConfig", "ModelPlayer", "make_model_player"]
