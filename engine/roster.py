"""Building players from specs: ``human``, ``random``, a game's bots, ``sim`` and real models.

A spec is what a user types: ``"minimax"``, ``"sim:careless"``, ``"openai:gpt-4.1-mini"``,
``"local:qwen2.5:7b@http://localhost:11434/v1"``. Bots come from the game's own declaration
(``Game.bots``), so this module names no game.
"""

from __future__ import annotations

from typing import Any

from engine.core import Game
from engine.players import HUMAN, HumanPlayer, Player, RandomPlayer

__all__ = ["MODEL_PREFIXES", "bots_for", "is_model_spec", "make_player", "player_choices"]

#: Spec prefixes that name a model player (the last four are presets of local OpenAI-compatible servers).
MODEL_PREFIXES = ("sim", "openai", "anthropic", "local", "ollama", "lmstudio", "vllm", "llamacpp")


def is_model_spec(spec: str) -> bool:
    return spec.split(":", 1)[0] in MODEL_PREFIXES


def bots_for(game: Game | type[Game]) -> list[str]:
    """The bot specs available for a game: ``random`` first, then the game's own bots."""
    return list(dict.fromkeys(["random", *game.bots]))


def player_choices(game: Game | type[Game]) -> list[str]:
    """Every kind of player spec a game accepts, for messages and help."""
    return [HUMAN, *bots_for(game), "sim", "openai:MODEL", "anthropic:MODEL", "local:MODEL@URL"]


def make_player(spec: str, game: Game, *, seed: int | None = None, **model_options: Any) -> Player:
    """Build a player from its spec (``human``, ``random``, a bot name, ``sim``, ``openai:MODEL``...).

    Raises:
        ValueError: the spec names nothing PlayTrace knows for this game; the message lists choices.
    """
    spec = spec.strip()
    if spec == HUMAN:
        return HumanPlayer()
    if spec == "random":
        return RandomPlayer(seed)
    if is_model_spec(spec):
        from engine.agent.player import make_model_player

        return make_model_player(spec, game, seed=seed, **model_options)
    if spec in game.bots:
        player: Player = game.make_bot(spec, seed)
        return player
    raise ValueError(f"unknown player {spec!r} for {game.id}; choose from: {', '.join(player_choices(game))}")
