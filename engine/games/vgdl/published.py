"""GVGAI-LLM's published win rates (Table 3): LLMs, GVGAI's planners and RL on the six core games.

Five levels × five runs per game and agent, as printed in the paper (percent). ``playtrace vgdl report``
prints these rows beside the win rates measured from recorded sessions; :data:`PLANNER_BOTS` names the
PlayTrace bot that stands for each of the paper's planning agents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["GAMES", "PLANNER_BOTS", "SOURCE", "TABLE3", "WIN_RATES", "PublishedTable"]

SOURCE = "GVGAI-LLM, Table 3"
#: The core games, in the paper's column order (GVGAI's game file names without ``.txt``).
GAMES: tuple[str, ...] = ("aliens", "boulderdash", "escape", "realsokoban", "sokoban", "zelda")
#: Win rate (%) per agent, one value per game of :data:`GAMES`.
WIN_RATES: Mapping[str, tuple[float, ...]] = {
    "DeepSeek-chat": (16.7, 0.0, 20.0, 0.0, 0.0, 23.3),
    "DeepSeek-r1": (0.0, 0.0, 54.5, 0.0, 50.0, 28.6),
    "GPT-4o-mini": (8.0, 0.0, 4.0, 0.0, 0.0, 0.0),
    "GPT-o3-mini": (80.0, 0.0, 44.0, 0.0, 52.0, 72.0),
    "Gemini-2.5-pro": (16.0, 0.0, 36.0, 4.0, 28.0, 8.0),
    "gemini-2.0-exp.-flash": (4.0, 0.0, 12.5, 0.0, 0.0, 0.0),
    "olets": (100.0, 56.0, 68.0, 0.0, 24.0, 76.0),
    "sampleMCTS": (100.0, 28.0, 0.0, 0.0, 40.0, 24.0),
    "sampleRHEA": (100.0, 4.0, 24.0, 0.0, 24.0, 36.0),
    "baseline3DQN": (56.0, 0.0, 16.0, 0.0, 0.0, 0.0),
    "baseline3PPO": (64.0, 0.0, 12.0, 0.0, 12.0, 8.0),
}
#: The paper's planning agents (GVGAI's sample controllers) → the PlayTrace bot that plays it.
PLANNER_BOTS: Mapping[str, str] = {"olets": "olets", "sampleMCTS": "search", "sampleRHEA": "rhea"}


@dataclass(frozen=True)
class PublishedTable:
    """A paper's table of win rates: where it is from, its games, its rows and the bots for its planners."""

    SOURCE: str
    GAMES: tuple[str, ...]
    WIN_RATES: Mapping[str, tuple[float, ...]]
    PLANNER_BOTS: Mapping[str, str]


#: Table 3 as one value (what ``playtrace vgdl report`` loads through the game's declaration).
TABLE3 = PublishedTable(SOURCE, GAMES, WIN_RATES, PLANNER_BOTS)
