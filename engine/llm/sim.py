"""The offline simulated model: a provider that plays like a language model, with no network and no key.

It exists so the whole app — prompts, streaming, parsing, verification, reflection, budgets — can be
demonstrated and tested offline. It is labelled "Simulated model (offline)" everywhere.

How it knows the game
    A real model only reads the prompt. The simulated one answers in the output format of the game's
    prompt and knows a reflection call from ``Request.purpose``, but its *judgement* comes from the
    game's own bots and intermediate-question oracles, applied to the acting seat's view of the state
    (never the full state of a game with hidden information). The harness hands it that view before
    each call through :meth:`SimClient.set_context` with a :class:`~engine.llm.simstyle.SimContext`.
    This side channel is deliberate and visible: only a client that has a ``set_context`` method
    receives it, so real providers never see anything but the prompt.

    Everything that depends on the game is the game's :class:`~engine.llm.simstyle.SimBehaviour`
    (``Game.sim_behaviour``, in the game's package); games without one get the generic behaviour.

Realism
    A perception call (``Request.purpose == "perception"``) is answered with a description of the board
    from the seat's view (:meth:`~engine.llm.simstyle.SimBehaviour.describe`), deterministically.
    The reasoning trace (streamed as ``reasoning`` deltas) is written from the bot's per-action values;
    the answer is streamed in small chunks with a small delay (``latency`` seconds per chunk, default a
    few milliseconds; ``latency=0`` for tests and benchmarks). Usage is estimated from text length
    (about four characters per token) and the cost is zero. Mistakes happen at configurable rates:
    format errors (``format_error_rate``), illegal or wasted moves (``illegal_rate``), wrong intermediate
    answers (``wrong_ir_rate``) and, for demos of failure handling, API errors (``api_error_rate``).
    Everything random comes from one RNG seeded with ``seed``.

Specs: ``"sim"`` (default rates) and ``"sim:NAME"`` for a preset: ``careless`` (many mistakes) or
``perfect`` (none).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from engine.core import Game
from engine.llm.base import Completion, Delta, LLMError, Request, RetryNotice, ToolCall, Usage
from engine.llm.simstyle import (
    REPEAT_RATE,
    SimBehaviour,
    SimContext,
    blind_choice,
)
from engine.questions import asked_keys

LABEL = "Simulated model (offline)"

#: Error rates of the presets, selected with ``"sim:NAME"``.
PRESETS: dict[str, dict[str, float]] = {
    "default": {"format_error_rate": 0.05, "illegal_rate": 0.05, "wrong_ir_rate": 0.1, "api_error_rate": 0.0},
    "careless": {"format_error_rate": 0.3, "illegal_rate": 0.25, "wrong_ir_rate": 0.4, "api_error_rate": 0.0},
    "perfect": {"format_error_rate": 0.0, "illegal_rate": 0.0, "wrong_ir_rate": 0.0, "api_error_rate": 0.0},
}
DEFAULT_LATENCY = 0.004
_CHUNK_WORDS = 3
_CHARS_PER_TOKEN = 4
_IMAGE_TOKENS = 765


class SimClient:
    """An :class:`~engine.llm.base.LLMClient` that simulates a model offline.

    Args:
        name: Preset name (``"default"``, ``"careless"``, ``"perfect"``).
        seed: Seed of the RNG behind every mistake and tie-break (``None``: unseeded).
        latency: Seconds between streamed chunks (0 = no waiting at all).
        format_error_rate: Probability that an answer breaks the output format.
        illegal_rate: Probability of an illegal move (or, where every move is legal, a wasted one).
        wrong_ir_rate: Probability that each intermediate answer is wrong.
        api_error_rate: Probability that a call fails with a simulated server error.
        thinking: Whether to stream a reasoning trace before the answer.
        bots: Bot spec per game id to analyse with, overriding the game's own choice
            (``Game.analysis_bot()``); ``""`` for the one-move lookahead.

    Raises:
        ValueError: unknown preset, or a rate outside 0..1.
    """

    provider = "sim"
    simulated = True

    def __init__(
        self,
        name: str = "default",
        *,
        seed: int | None = None,
        latency: float = DEFAULT_LATENCY,
        format_error_rate: float | None = None,
        illegal_rate: float | None = None,
        wrong_ir_rate: float | None = None,
        api_error_rate: float | None = None,
        thinking: bool = True,
        bots: Mapping[str, str] | None = None,
    ) -> None:
        if name not in PRESETS:
            raise ValueError(f"unknown simulated model {name!r}; choose from: {', '.join(PRESETS)}")
        rates = dict(PRESETS[name])
        for key, value in (
            ("format_error_rate", format_error_rate),
            ("illegal_rate", illegal_rate),
            ("wrong_ir_rate", wrong_ir_rate),
            ("api_error_rate", api_error_rate),
        ):
            if value is not None:
                rates[key] = float(value)
            if not 0.0 <= rates[key] <= 1.0:
                raise ValueError(f"{key} must be between 0 and 1, not {rates[key]!r}")
        if latency < 0:
            raise ValueError(f"latency must be >= 0 seconds, not {latency!r}")
        self.name = name
        self.seed = seed
        self.latency = float(latency)
        self.rates = rates
        self.thinking = thinking
        self.bots: dict[str, str] = dict(bots or {})
        self.context: SimContext | None = None
        self.calls = 0
        self._rng = random.Random(seed)
        self._behaviours: dict[Game, SimBehaviour] = {}
        #: The last answer's thought and move (None after a broken one) and its intermediate answers, for
        #: answering as a JSON object or a tool call when the request asks for one.
        self._move: tuple[str, str] | None = None
        self._tag_lines: list[str] = []
        #: The last slip: (state, seat, action, kind), to repeat it when re-asked on the same state.
        self._last_slip: tuple[Any, int, str, str] | None = None

    # -- identity -----------------------------------------------------------------------------

    @property
    def model(self) -> str:
        """The model name recorded in sessions: ``"sim"`` or ``"sim:careless"``."""
        return "sim" if self.name == "default" else f"sim:{self.name}"

    @property
    def label(self) -> str:
        """Always "Simulated model (offline)": the preset shows in the spec and model name."""
        return LABEL

    def config(self) -> dict[str, Any]:
        """Everything that shapes this model's behaviour (for the session manifest)."""
        return {
            "preset": self.name,
            "seed": self.seed,
            "latency": self.latency,
            "thinking": self.thinking,
            **self.rates,
        }

    def set_context(self, context: SimContext | None) -> None:
        """Tell the simulated model the true game situation behind the next call."""
        self.context = context

    async def aclose(self) -> None:
        return None

    # -- the call -----------------------------------------------------------------------------

    async def complete(
        self,
        request: Request,
        *,
        on_delta: Callable[[Delta], None] | None = None,
        on_retry: Callable[[RetryNotice], None] | None = None,
    ) -> Completion:
        """Answer ``request`` like a model would, streaming reasoning then the answer."""
        started = time.perf_counter()
        self.calls += 1
        prompt = "\n".join(m.text for m in request.messages)
        if self.latency:
            await asyncio.sleep(self.latency * 5)  # time to first token
        if self._rng.random() < self.rates["api_error_rate"]:
            raise LLMError("simulated server error (503 Service Unavailable)", kind="server", status=503)
        ctx = self.context
        self._move, self._tag_lines = None, []
        if request.purpose == "reflection":
            reasoning, content = "", self._reflection(ctx)
        elif request.purpose == "perception":
            # It sees the board it was told about; what it writes is the seat's own view of it.
            reasoning = ""
            content = self.behaviour(ctx.game).describe(ctx) if ctx is not None else self._describe_blind()
        else:
            reasoning, content = await self._respond(ctx, prompt, _reasked_illegal(request))
        calls: tuple[ToolCall, ...] = ()
        move = self._move
        if move is not None and request.tools:
            # It plays by calling the tool it was offered, its intermediate answers in the text.
            arguments = json.dumps({"thought": move[0], "move": move[1]})
            calls = (ToolCall(request.tools[0].name, arguments, f"call_sim_{self.calls}"),)
            content = "\n".join(self._tag_lines)
        elif move is not None and _JSON_ASKED.search(prompt):
            content = "\n".join([*self._tag_lines, json.dumps({"thought": move[0], "move": move[1]})])
        if not (self.thinking or request.thinking):
            reasoning = ""
        for kind, text in (("reasoning", reasoning), ("content", content),
                           ("tool", calls[0].arguments if calls else "")):
            for chunk in _chunks(text):
                if on_delta is not None:
                    on_delta(Delta(kind, chunk))  # type: ignore[arg-type]
                if self.latency:
                    await asyncio.sleep(self.latency)
        images = sum(len(m.images) for m in request.messages)
        out_tokens = _tokens(content) + _tokens(reasoning)
        usage = Usage(
            input_tokens=_tokens(prompt) + images * _IMAGE_TOKENS,
            output_tokens=out_tokens,
            reasoning_tokens=_tokens(reasoning),
        )
        latency_ms = (time.perf_counter() - started) * 1000
        stop = "tool_use" if calls else "end_turn"
        return Completion(content, reasoning, usage, latency_ms, stop, self.model, 0, tool_calls=calls)

    # -- answers ------------------------------------------------------------------------------

    def behaviour(self, game: Game) -> SimBehaviour:
        """The game's own behaviour (``Game.sim_behaviour``), or the generic one; one per game."""
        key = game
        if key not in self._behaviours:
            behaviour: SimBehaviour
            try:
                behaviour = game.load(game.sim_behaviour)(game) if game.sim_behaviour else SimBehaviour(game)
            except Exception:  # a broken behaviour must not stop the demo: play generically
                behaviour = SimBehaviour(game)
            self._behaviours[key] = behaviour
        return self._behaviours[key]

    async def _respond(self, ctx: SimContext | None, prompt: str, reasked: bool = False) -> tuple[str, str]:
        self._move, self._tag_lines = None, []
        if ctx is None or not ctx.state.legal_actions(ctx.seat):
            style = self.behaviour(ctx.game) if ctx is not None else None
            return "", style.blind(prompt, self._rng) if style is not None else _blind(prompt, self._rng)
        style = self.behaviour(ctx.game)
        bot = self.bots.get(ctx.game.id, ctx.game.analysis_bot())
        analysis = await style.analyse(ctx, self._rng, bot)
        # What the model believes comes first; the move follows from it (wrong beliefs included).
        answers = style.intermediate(ctx, self._rng, self.rates["wrong_ir_rate"])
        action, slip = style.choose(ctx, analysis, answers), ""
        last = self._last_slip
        self._last_slip = None
        if (reasked and last is not None and last[0] is ctx.state and last[1] == ctx.seat
                and self.rates["illegal_rate"] > 0 and self._rng.random() < REPEAT_RATE):
            action, slip = last[2], f"{last[3]} again"  # the same misreading, the same move
        elif self._rng.random() < self.rates["illegal_rate"]:
            action, slip = style.slip(ctx, analysis, self._rng)
        if slip:
            self._last_slip = (ctx.state, ctx.seat, action, slip.split(" ", 1)[0])
        style.about_move(ctx, action, self._rng, self.rates["wrong_ir_rate"], answers)
        broken = self._rng.random() < self.rates["format_error_rate"]
        # It writes the answers its prompt asks for: a "naive" or "none" prompt variant asks none.
        style.asked = asked_keys(prompt)
        style.prompt_text = prompt
        reasoning = style.reasoning(ctx, analysis, action, slip, answers)
        content = style.answer(ctx, analysis, action, slip, broken, answers, self._rng)
        if not broken:  # what a JSON answer or a tool call says (a broken answer gives neither)
            self._move = (style.thought(ctx, analysis, action, slip), str(action))
            self._tag_lines = style.tags(answers)
        return reasoning, content

    @staticmethod
    def _describe_blind() -> str:
        return "The image shows a game board; without the game's context no details can be made out."

    def _reflection(self, ctx: SimContext | None) -> str:
        if ctx is None:
            return "Not enough history yet to judge the last move; keep following the plan."
        return self.behaviour(ctx.game).reflection(ctx)


def _blind(prompt: str, rng: random.Random) -> str:
    """No context at all: pick a cell or a word from the prompt's legal list."""
    legal = re.findall(r"\(\d,\d\)", prompt)
    if re.search(r"chosen\s+move", prompt, re.IGNORECASE):
        return blind_choice(legal, "(1,1)", rng)
    return f"thought: keeping it simple.\nmove: {rng.choice(['up', 'down', 'left', 'right'])}"


#: The harness's instruction to answer with one JSON object (engine.agent.action_format).
_JSON_ASKED = re.compile(r"answer with exactly one JSON object", re.IGNORECASE)


def _reasked_illegal(request: Request) -> bool:
    """Whether the harness re-asks after an illegal move (its re-ask message says so)."""
    last = request.messages[-1] if request.messages else None
    return last is not None and last.role == "user" and "is not a legal move" in last.text


def _chunks(text: str) -> list[str]:
    words = re.findall(r"\S+\s*|\s+", text)
    return ["".join(words[i : i + _CHUNK_WORDS]) for i in range(0, len(words), _CHUNK_WORDS)]


def _tokens(text: str) -> int:
    return (len(text) + _CHARS_PER_TOKEN - 1) // _CHARS_PER_TOKEN


def parse_spec(spec: str) -> str:
    """The preset named by a ``"sim"`` / ``"sim:NAME"`` spec.

    Raises:
        ValueError: the spec is not a simulated-model spec or names an unknown preset.
    """
    head, _, name = spec.strip().partition(":")
    if head != "sim":
        raise ValueError(f"{spec!r} is not a simulated-model spec (sim or sim:NAME)")
    name = name.strip() or "default"
    if name not in PRESETS:
        raise ValueError(
            f"unknown simulated model {spec!r}; choose from: sim, "
            + ", ".join(f"sim:{n}" for n in PRESETS if n != "default")
        )
    return name
