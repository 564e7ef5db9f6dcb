"""The offline simulated model: a provider that plays like a language model, with no network and no key.

It exists so the whole app — prompts, streaming, parsing, verification, reflection, budgets — can be
demonstrated and tested offline. It is labelled "Simulated model (offline)" everywhere.

How it knows the game
    A real model only reads the prompt. The simulated one also reads the prompt (it answers in the
    output format the prompt asks for: ``thought:``/``move:`` lines, or GameBot's intermediate tags and
    ``Chosen Move:``, and it knows a reflection call from ``Request.purpose``), but its *judgement* comes
    from a built-in bot analysing the true state. The harness hands it that state before each call
    through :meth:`SimClient.set_context` with a :class:`SimContext` (game, state, seat, history). This
    side channel is deliberate and visible: only a client that has a ``set_context`` method receives
    it, so real providers never see anything but the prompt. Without a context it still answers in the
    requested format, picking a move it can read from the prompt.

Realism
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
import dataclasses
import random
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.core import Game, Seat, State
from engine.llm.base import Completion, Delta, LLMError, Request, RetryNotice, Usage

LABEL = "Simulated model (offline)"

#: Error rates of the presets, selected with ``"sim:NAME"``.
PRESETS: dict[str, dict[str, float]] = {
    "default": {"format_error_rate": 0.05, "illegal_rate": 0.05, "wrong_ir_rate": 0.1, "api_error_rate": 0.0},
    "careless": {"format_error_rate": 0.3, "illegal_rate": 0.25, "wrong_ir_rate": 0.4, "api_error_rate": 0.0},
    "perfect": {"format_error_rate": 0.0, "illegal_rate": 0.0, "wrong_ir_rate": 0.0, "api_error_rate": 0.0},
}
#: The bot whose analysis a game's simulated reasoning is written from.
DEFAULT_BOTS: dict[str, str] = {"2048": "expectimax", "tictactoe": "minimax"}
DEFAULT_LATENCY = 0.004
_CHUNK_WORDS = 3
_CHARS_PER_TOKEN = 4
_IMAGE_TOKENS = 765


@dataclasses.dataclass(frozen=True, slots=True)
class SimContext:
    """The true situation behind the next call (set by the harness with :meth:`SimClient.set_context`)."""

    game: Game
    state: State
    seat: Seat
    history: Sequence[Any] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class _Analysis:
    best: str
    values: dict[str, float]
    source: str


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
        bots: Bot spec per game id to analyse with (overrides :data:`DEFAULT_BOTS`; ``""`` for the
            built-in one-move lookahead).

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
        self.bots = {**DEFAULT_BOTS, **(bots or {})}
        self.context: SimContext | None = None
        self.calls = 0
        self._rng = random.Random(seed)
        self._bot_cache: dict[tuple[str, str], Any] = {}

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
        return {"preset": self.name, "seed": self.seed, "latency": self.latency, "thinking": self.thinking,
                **self.rates}

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
        if request.purpose == "reflection":
            reasoning, content = "", self._reflection(ctx)
        else:
            reasoning, content = await self._respond(ctx, prompt)
        if not (self.thinking or request.thinking):
            reasoning = ""
        for kind, text in (("reasoning", reasoning), ("content", content)):
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
        return Completion(content, reasoning, usage, latency_ms, "end_turn", self.model, 0)

    # -- answers ------------------------------------------------------------------------------

    async def _respond(self, ctx: SimContext | None, prompt: str) -> tuple[str, str]:
        gamebot = bool(re.search(r"chosen\s+move", prompt, re.IGNORECASE))
        two_line = bool(re.search(r"^\s*move:", prompt, re.IGNORECASE | re.MULTILINE))
        if ctx is None or not ctx.state.legal_actions(ctx.seat):
            return self._blind(prompt, gamebot)
        analysis = await self._analyse(ctx)
        action, slip = self._maybe_slip(ctx, analysis)
        broken = self._rng.random() < self.rates["format_error_rate"]
        if ctx.game.id == "tictactoe":
            return self._tictactoe(ctx, analysis, action, slip, broken)
        reasoning = self._reasoning(ctx, analysis, action, slip)
        thought = self._thought(ctx, analysis, action, slip)
        if broken:
            return reasoning, self._broken_two_line(self._situation(ctx))
        if gamebot:
            return reasoning, f"Conclusion: {thought}\nChosen Move: {action}"
        if two_line or ctx.game.id == "2048":
            return reasoning, f"thought: {thought}\nmove: {action}"
        return reasoning, f"{thought}\nmove: {action}"

    def _blind(self, prompt: str, gamebot: bool) -> tuple[str, str]:
        """No context: read a move from the prompt's legal list, or guess a direction."""
        legal = re.findall(r"\(\d,\d\)", prompt)
        if gamebot:
            move = self._rng.choice(legal) if legal else "(1,1)"
            return "", f"I cannot see the whole position clearly.\nChosen Move: {move}"
        move = self._rng.choice(["up", "down", "left", "right"])
        return "", f"thought: keeping it simple.\nmove: {move}"

    async def _analyse(self, ctx: SimContext) -> _Analysis:
        bot_spec = self.bots.get(ctx.game.id, "")
        if bot_spec:
            bot = self._bot(ctx.game, bot_spec)
            if bot is not None:
                from engine.players import Observation

                obs = Observation(ctx.game, ctx.state, ctx.seat, tuple(ctx.state.legal_actions(ctx.seat)))
                decision = await bot.act(obs)
                if decision.action is not None:
                    values = {a: float(v) for a, v in (decision.values or {decision.action: 0.0}).items()}
                    return _Analysis(decision.action, values, bot_spec)
        return self._lookahead(ctx)

    def _bot(self, game: Game, spec: str) -> Any:
        key = (game.id, spec)
        if key not in self._bot_cache:
            try:
                from engine.players import make_player

                self._bot_cache[key] = make_player(spec, game, seed=self._rng.randrange(2**31))
            except Exception:  # bot not available for this game: use the one-move lookahead
                self._bot_cache[key] = None
        return self._bot_cache[key]

    def _lookahead(self, ctx: SimContext) -> _Analysis:
        """One-move lookahead on the seat's score, for games without a bot."""
        values: dict[str, float] = {}
        for action in ctx.state.legal_actions(ctx.seat):
            try:
                after = ctx.state.apply(action)
                values[action] = float(after.scores[ctx.seat] - ctx.state.scores[ctx.seat])
            except Exception:
                values[action] = float("-inf")
        best_value = max(values.values())
        best = self._rng.choice([a for a, v in values.items() if v == best_value])
        return _Analysis(best, values, "lookahead")

    def _maybe_slip(self, ctx: SimContext, analysis: _Analysis) -> tuple[str, str]:
        """The action to answer and what kind of mistake it is (``""`` for none)."""
        if self._rng.random() >= self.rates["illegal_rate"]:
            return analysis.best, ""
        legal = set(ctx.state.legal_actions(ctx.seat))
        vocabulary = list(dict.fromkeys([*ctx.game.keymap.values(), *getattr(ctx.game, "actions", ())]))
        illegal = [a for a in vocabulary if a not in legal]
        if illegal:
            return self._rng.choice(illegal), "illegal"
        changes = getattr(ctx.state, "changes_board", None)
        if callable(changes):
            wasted = [a for a in sorted(legal) if not changes(a)]
            if wasted:
                return self._rng.choice(wasted), "wasted"
        return analysis.best, ""

    # -- 2048 and generic text ------------------------------------------------------------------

    def _reasoning(self, ctx: SimContext, analysis: _Analysis, action: str, slip: str) -> str:
        lines = [self._situation(ctx)]
        ranked = sorted(analysis.values.items(), key=lambda kv: kv[1], reverse=True)
        if len(ranked) > 1:
            lines.append("Let me compare the moves:")
            for a, v in ranked:
                lines.append(f"- {a}: {_fmt(v)}" + ("  (changes nothing)" if _wasted(ctx, a) else ""))
        lines.append(f"{analysis.best} looks strongest.")
        if slip:
            lines.append(f"Actually, {action} might open things up. I'll go with {action}.")
        else:
            lines.append(f"I'll go with {action}.")
        return "\n".join(lines)

    def _situation(self, ctx: SimContext) -> str:
        board = getattr(ctx.state, "board", None)
        if isinstance(board, tuple) and board and isinstance(board[0], tuple):
            top = max(max(row) for row in board)
            where = next((r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v == top)
            empty = sum(1 for row in board for v in row if not v)
            last = len(board) - 1
            corner = where in {(0, 0), (0, last), (last, 0), (last, last)}
            spot = "in a corner" if corner else "away from the corners"
            return f"The largest tile is {top} at ({where[0]},{where[1]}), {spot}; {empty} cells are empty."
        legal = len(ctx.state.legal_actions(ctx.seat))
        return f"Position after {ctx.state.step} moves; {legal} legal actions."

    def _thought(self, ctx: SimContext, analysis: _Analysis, action: str, slip: str) -> str:
        if slip:
            return f"{action} should shake the board up a little."
        ranked = sorted(analysis.values, key=lambda a: analysis.values[a], reverse=True)
        others = [a for a in ranked if a != action]
        extra = f" better than {', '.join(others[:2])}" if others else ""
        return f"{self._situation(ctx)} {action} scores{extra} and keeps the structure."

    def _broken_two_line(self, situation: str) -> str:
        # A realistic format slip. The text must not name a move anywhere else, or the parser's
        # fallback would (rightly) find it and it would not be a format error at all.
        plain = f"{situation} This needs careful thought before committing."
        variant = self._rng.randrange(3)
        if variant == 0:
            return f"thought: {plain}"  # the move line is missing: the answer was cut short
        if variant == 1:
            return f"thought: {plain}\nmove: {self._rng.choice(['diagonal', 'stay', 'merge', 'none'])}"
        return f"Analysis: {plain} The best option is obvious from here."

    # -- tic-tac-toe (GameBot format) ---------------------------------------------------------------

    def _tictactoe(
        self, ctx: SimContext, analysis: _Analysis, action: str, slip: str, broken: bool
    ) -> tuple[str, str]:
        from engine.games.tictactoe import MARKS, winning_moves

        cells: tuple[str, ...] = getattr(ctx.state, "cells", ("",) * 9)
        me, them = MARKS[ctx.seat], MARKS[1 - ctx.seat]
        mine = winning_moves(cells, me)
        theirs = winning_moves(cells, them)
        empty = [f"({i // 3},{i % 3})" for i in range(9) if not cells[i]]
        ir1 = self._perturb(mine, empty)
        ir2 = self._perturb(theirs, empty)

        def where(mark: str) -> str:
            spots = [f"({i // 3},{i % 3})" for i in range(9) if cells[i] == mark]
            return ", ".join(spots) if spots else "none yet"

        ranked = sorted(analysis.values.items(), key=lambda kv: kv[1], reverse=True)
        reasoning_lines = [
            f"I am {me}. My marks: {where(me)}. Opponent ({them}): {where(them)}.",
            "Checking each empty cell against its row, column and diagonals.",
            f"Cells that win for me: {', '.join(ir1) or 'none'}. Cells that win for {them}: "
            f"{', '.join(ir2) or 'none'}.",
        ]
        if len(ranked) > 1:
            reasoning_lines.append(
                "Search values: " + ", ".join(f"{a} {_fmt(v)}" for a, v in ranked[:5])
            )
        if ir1:
            plan = f"I can complete a line at {ir1[0]}."
        elif ir2:
            plan = f"I must block {them} at {ir2[0]}."
        elif not any(cells):
            plan = "Empty board: the centre or a corner is the principled start."
        else:
            plan = "No immediate threats; I follow the strongest continuation."
        reasoning_lines.append(plan)
        reasoning = "\n".join(reasoning_lines)
        move_line = f"Chosen Move: {action}"
        if broken:
            garbled = self._rng.choice(["the centre square", "top corner", "middle row", "C2"])
            move_line = f"Chosen Move: {garbled}"
        conclusion = (
            f"{action} looks playable." if slip else f"{action} is the best move. {plan}"
        )
        content = "\n".join(
            [
                "1. Observations",
                f"My pieces ({me}): {where(me)}. Opponent's pieces ({them}): {where(them)}.",
                f"[Intermediate Thinking Results 1: {', '.join(ir1) if ir1 else 'None'}]",
                f"[Intermediate Thinking Results 2: {', '.join(ir2) if ir2 else 'None'}]",
                "2. Strategic Analysis",
                plan,
                f"Conclusion: {conclusion}",
                move_line,
            ]
        )
        return reasoning, content

    def _perturb(self, truth: list[str], empty: list[str]) -> list[str]:
        """The true answer, or (at ``wrong_ir_rate``) a plausible wrong one."""
        if self._rng.random() >= self.rates["wrong_ir_rate"]:
            return list(truth)
        others = [c for c in empty if c not in truth]
        if truth and (not others or self._rng.random() < 0.5):
            return truth[:-1]  # missed one
        if others:
            return sorted([*truth, self._rng.choice(others)])  # saw a threat that is not there
        return list(truth)

    # -- reflection ---------------------------------------------------------------------------

    def _reflection(self, ctx: SimContext | None) -> str:
        if ctx is None or not ctx.history:
            return "Not enough history yet to judge the last move; keep following the plan."
        last = ctx.history[-1]
        before: State = last.state
        after: State = last.next_state
        action = ", ".join(str(a) for a in last.actions.values())
        board_b = getattr(before, "board", None)
        board_a = getattr(after, "board", None)
        if isinstance(board_b, tuple) and isinstance(board_a, tuple):
            empty_b = sum(1 for row in board_b for v in row if not v)
            empty_a = sum(1 for row in board_a for v in row if not v)
            gain = after.scores[0] - before.scores[0]
            top = max(max(row) for row in board_a)
            if board_b == board_a:
                return (
                    f"'{action}' changed nothing: a wasted turn that counts towards the stagnation limit. "
                    "Avoid repeating it; pick a direction that moves or merges tiles."
                )
            verdict = "effective" if gain > 0 else "safe but without merges"
            return (
                f"After '{action}', empty cells went from {empty_b} to {empty_a} and the merged sum rose by "
                f"{_fmt(gain)}. The move was {verdict}. Largest tile: {top}. Keep it anchored in its corner, "
                "keep the edge row filled in descending order, and avoid moves that pull it into the middle."
            )
        cells = getattr(after, "cells", None)
        if isinstance(cells, tuple) and len(cells) == 9:
            from engine.games.tictactoe import MARKS, winning_moves

            me, them = MARKS[ctx.seat], MARKS[1 - ctx.seat]
            threats = winning_moves(cells, them)
            chances = winning_moves(cells, me)
            moves = [(seat, a) for rec in _since_own_move(ctx) for seat, a in sorted(rec.actions.items())]
            said = "; ".join(f"{'I' if seat == ctx.seat else them} played {a}" for seat, a in moves)
            parts = [f"Since my last turn: {said}." if said else f"The last move was {action}."]
            if chances:
                parts.append(f"I can win at {', '.join(chances)}: take it.")
            if threats:
                parts.append(f"{them} threatens {', '.join(threats)}; block unless I can win first.")
            if not chances and not threats:
                parts.append("No immediate threats. Aim for a fork: two lines at once.")
            return " ".join(parts)
        return (
            f"The last action was {action}. Check whether it improved the score and avoid repeating mistakes."
        )


def _since_own_move(ctx: SimContext) -> list[Any]:
    history = ctx.history
    for i in range(len(history) - 1, -1, -1):  # from the end: no full scan per decision
        if ctx.seat in history[i].actions:
            return [history[j] for j in range(i, len(history))]
    return [history[-1]] if history else []


def _chunks(text: str) -> list[str]:
    words = re.findall(r"\S+\s*|\s+", text)
    return ["".join(words[i : i + _CHUNK_WORDS]) for i in range(0, len(words), _CHUNK_WORDS)]


def _tokens(text: str) -> int:
    return (len(text) + _CHARS_PER_TOKEN - 1) // _CHARS_PER_TOKEN


def _fmt(value: float) -> str:
    if abs(value) >= 1000:
        return f"{value:,.1f}"  # search values are large and close together: keep the differences visible
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.3g}"


def _wasted(ctx: SimContext, action: str) -> bool:
    changes = getattr(ctx.state, "changes_board", None)
    try:
        return callable(changes) and not changes(action)
    except Exception:
        return False


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
        raise ValueError(f"unknown simulated model {spec!r}; choose from: sim, " +
                         ", ".join(f"sim:{n}" for n in PRESETS if n != "default"))
    return name
