"""Super Mario Bros, as LMGame-Bench plays it, on the NES emulator nes-py: everything the game knows
but its drawing.

* :mod:`.rules` — states, actions, the score, text views and the declaration :class:`Mario`;
* :mod:`.emulator` — the emulator behind the states, and what is read from its memory;
* :mod:`.compat` — loading nes-py under NumPy 2 and finding the ROM (imported only when an emulator
  starts, so the game is listed without the ``mario`` extra);
* :mod:`.bots` — a runner that jumps over what is ahead;
* :mod:`.answers` — reading an action out of a model's reply;
* :mod:`.sim` — how the simulated model reasons and answers here;
* :mod:`.gym` — the emulator's picture as a Gymnasium observation;
* ``prompts/`` — the prompt template.

The ROM is the one the installed gym-super-mario-bros package ships; it is read from there when an
emulator starts and is never copied. Its drawing is ``renderers/mario.py``.
"""

from engine.games.mario.rules import ACTIONS, BUTTONS_OF, DEFAULT_FRAMES, Mario, MarioState, read_action

__all__ = ["ACTIONS", "BUTTONS_OF", "DEFAULT_FRAMES", "Mario", "MarioState", "read_action"]
