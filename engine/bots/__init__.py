"""Built-in search bots. Importing this package registers them with :func:`engine.players.register_bot`.

``engine.players`` imports it lazily the first time a bot spec is resolved, so bots cost nothing
at start-up.
"""

from __future__ import annotations

from engine.bots import g2048_expectimax, tictactoe_minimax

__all__ = ["g2048_expectimax", "tictactoe_minimax"]
