"""The model player: the harness around one language model, recording every stage as an event.

One decision (:meth:`ModelPlayer.act`) runs this pipeline, each stage an event in the session:

1. ``reflection`` — from the player's second decision on, a separate model call reflects on what its
   last move did (the step was applied by the match after the previous ``act``), under 100 words;
   its text goes into this decision's prompt. It has its own ``model_call_*`` events (purpose
   ``"reflection"``).
2. ``memory`` — the window of the last N steps (state, action, reward).
3. perception — the state as text, image or both (recorded inside ``prompt_built``); with
   ``perception="describe"`` a vision model (the acting model or ``perception_model``) first describes
   the board image in a call of its own (``model_call_*`` events with purpose ``"perception"``, then a
   ``perception`` event with its prompt, image and answer), and the acting model gets that text
   instead of the image.
4. ``prompt_built`` — system and user text exactly as sent, the image as a Blob under ``"image"``,
   the template path, its sha256 and the variant.
5. ``model_call_started`` → live ``model_delta`` items → ``model_retry`` (transport retries) →
   ``reasoning`` and ``answer`` (assembled) → ``model_call_finished`` (latency, tokens, cost) or
   ``model_call_failed`` (error and kind).
6. the parse chain — ``action_parsed`` (raw, extracted, matched, reason) or ``action_unparsable`` /
   ``action_illegal``; an unusable answer is re-asked up to ``retries`` times with the error stated,
   then the fallback policy applies (random legal move, no-op, or forfeit) and the ``decision`` event
   says which policy was used and why: nothing is ever substituted silently.
7. ``verification`` — intermediate answers against ground-truth oracles.

The match loop then records ``decision`` and ``action_applied``. A failing API call is recorded and
handled by the same policy, until ``max_failed_calls`` calls in a row have failed (across decisions):
then the seat forfeits (policy ``"failed_calls"``) rather than let fallback moves pass for its play.
While calls are failing no reflection call is made and timeouts are not retried by the transport, so
a silent server costs at most about ``(max_failed_calls + 1) * timeout_s``. Cancelling the task cancels
the call; the player records that the call was cancelled and re-raises. Budget caps (USD per player, i.e. per
session seat) warn at the soft cap and forfeit at the hard cap.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from engine import events as ev
from engine.agent import action_format, prompts, reflection
from engine.agent.confidence import move_confidence
from engine.agent.memory import DEFAULT_WINDOW, Memory, MemoryEntry, format_history
from engine.agent.parse import ILLEGAL, Extraction, ParseResult, parse_answer
from engine.agent.perception import MODES, Perception
from engine.agent.verify import verify
from engine.core import Action, Game
from engine.events import Blob
from engine.llm.base import (
    Completion,
    Delta,
    ImagePart,
    LLMClient,
    LLMError,
    Message,
    ModelUnusable,
    Request,
    RetryNotice,
    Tool,
    Usage,
)
from engine.players import MODEL, Decision, Observation
from engine.questions import asked_keys

FALLBACKS = ("random", "noop", "forfeit")
#: How an unusable answer is asked again: with the parse error and the legal moves (``"feedback"``),
#: with exactly the first prompt and nothing added (``"same"``, LVLM-Playground), or not at all.
REASKS = ("feedback", "same", "none")
#: Error kinds after which asking again cannot help (the key or the request itself is wrong).
_HOPELESS = frozenset({"auth", "bad_request"})
#: Timed-out calls after which a decision stops re-asking (each call already retried its timeout once).
_MAX_TIMEOUTS_PER_DECISION = 2
#: Consecutive failed provider calls (across decisions) after which the seat forfeits.
DEFAULT_MAX_FAILED_CALLS = 5
_SIM_OPTIONS = ("latency", "format_error_rate", "illegal_rate", "wrong_ir_rate", "api_error_rate")
_PROVIDER_TITLES = {"openai": "OpenAI", "anthropic": "Anthropic", "local": "local server", "sim": "simulated"}


#: The most legal moves a re-ask names.
_REASK_LISTED = 40


@dataclasses.dataclass(frozen=True, slots=True)
class HarnessConfig:
    """Every harness toggle; recorded in the session manifest under ``"harness"``.

    Attributes:
        perception: ``"text"``, ``"image"``, ``"both"`` or ``"describe"`` (a vision model describes the
            image and the acting model gets the description).
        perception_model: The player spec of the model that describes the image in ``describe`` mode
            (``None``: the acting model itself).
        memory: Steps in the memory window (0 = off).
        reflection: Whether a reflection call precedes each decision after the first.
        thinking: Ask the provider for extended thinking / reasoning.
        thinking_budget: Thinking token budget (Anthropic).
        effort: Reasoning effort (``"low"``, ``"medium"``, ``"high"``; OpenAI reasoning models).
        temperature: Sampling temperature (``None``: provider default).
        max_tokens: Output token limit per call (``None``: derived from ``thinking``).
        prompt_variant: Template variant (``assets/prompts/<game>/<variant>.md``).
        reask: How an unusable answer (unparsable or illegal) is asked again: ``"feedback"`` appends
            the answer and a message with the parse error and the legal moves (the default);
            ``"same"`` re-sends exactly the first prompt, with no feedback (LVLM-Playground);
            ``"none"`` asks no again and goes straight to ``fallback`` (a failed call is still asked
            again, up to ``retries`` times: a failure is not an answer).
        retries: Re-asks after an unusable answer or a failed call.
        fallback: ``"random"``, ``"noop"`` or ``"forfeit"`` once retries are used up.
        budget_soft_usd: Spending after which a warning is recorded.
        budget_hard_usd: Spending at which the player forfeits.
        prices: Optional ``{"input_per_mtok", "output_per_mtok"}`` overriding the price table.
        timeout_s: Per-call timeout passed to the provider.
        image_labels: Whether the board image carries row/column coordinate labels.
        max_failed_calls: Consecutive failed provider calls (action and reflection calls alike,
            counted across decisions; any successful call resets the count) after which the seat
            forfeits with decision policy ``"failed_calls"``; 0 turns the rule off. With a server that
            never answers, the seat makes at most this many calls, and only the first of them lets the
            provider retry its timeout, so the wait is bounded by about
            ``(max_failed_calls + 1) * timeout_s`` (see :meth:`ModelPlayer.act`).
        action_format: How the model gives its action: ``"text"`` (the game's own output format),
            ``"json"`` (one JSON object ``{"thought", "move"}``) or ``"tools"`` (a native tool call whose
            schema holds the legal actions); see :mod:`engine.agent.action_format`.
        logprobs: Ask for token log-probabilities where the provider has them (OpenAI and compatible
            servers) and record the model's confidence over the candidate moves.
        strikes: Unusable answers (unparsable or illegal) allowed in a whole game, counted across
            decisions; the answer that reaches it forfeits the seat (policy ``"strikes"``). 0 turns
            the rule off; LVLM-Playground's end-to-end play uses 3.
    """

    perception: str = "text"
    perception_model: str | None = None
    image_labels: bool = True
    memory: int = DEFAULT_WINDOW
    reflection: bool = True
    thinking: bool = False
    thinking_budget: int | None = None
    effort: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    prompt_variant: str = "default"
    reask: str = "feedback"
    retries: int = 3
    fallback: str = "random"
    budget_soft_usd: float | None = None
    budget_hard_usd: float | None = None
    prices: Mapping[str, float] | None = None
    timeout_s: float = 60.0
    max_failed_calls: int = DEFAULT_MAX_FAILED_CALLS
    strikes: int = 0
    action_format: str = "text"
    logprobs: bool = False

    def __post_init__(self) -> None:
        if self.perception not in MODES:
            raise ValueError(f"perception must be one of {', '.join(MODES)}, not {self.perception!r}")
        if self.action_format not in action_format.FORMATS:
            choices = ", ".join(action_format.FORMATS)
            raise ValueError(f"action_format must be one of {choices}, not {self.action_format!r}")
        if self.reask not in REASKS:
            raise ValueError(f"reask must be one of {', '.join(REASKS)}, not {self.reask!r}")
        if self.fallback not in FALLBACKS:
            choices = ", ".join(FALLBACKS)
            raise ValueError(f"invalid_policy fallback must be one of {choices}, not {self.fallback!r}")
        if not isinstance(self.retries, int) or self.retries < 0:
            raise ValueError(f"invalid_policy retries must be a whole number >= 0, not {self.retries!r}")
        if isinstance(self.max_failed_calls, bool) or not isinstance(self.max_failed_calls, int) \
                or self.max_failed_calls < 0:
            raise ValueError(
                f"max_failed_calls must be a whole number >= 0 (0: off), not {self.max_failed_calls!r}"
            )
        if isinstance(self.strikes, bool) or not isinstance(self.strikes, int) or self.strikes < 0:
            raise ValueError(f"strikes must be a whole number >= 0 (0: off), not {self.strikes!r}")
        for name in ("budget_soft_usd", "budget_hard_usd"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"{name} must be >= 0, not {value!r}")

    def request_max_tokens(self) -> int:
        if self.max_tokens:
            return self.max_tokens
        if self.thinking:
            return (self.thinking_budget or 2048) + 2048
        return 1024


class ModelPlayer:
    """A seat played by a language model (or the offline simulated model) through the harness.

    Build one with :func:`make_model_player`.
    """

    kind = MODEL

    def __init__(
        self,
        game: Game,
        client: LLMClient,
        model: str,
        *,
        spec: str,
        config: HarnessConfig | None = None,
        seed: int | None = None,
        label: str | None = None,
        perceiver: tuple[LLMClient, str] | None = None,
    ) -> None:
        self.game = game
        self.client = client
        self.model = model
        self.spec = spec
        self.seed = seed
        self.config = config or HarnessConfig()
        self.template = prompts.load_template(game, self.config.prompt_variant)
        self.reflection_template = prompts.load_common("reflection")
        self.perception = Perception(self.config.perception, image_labels=self.config.image_labels)
        describing = self.config.perception == "describe"
        #: The description prompt of ``perception="describe"`` (``None`` in the other modes).
        self.describe_template = prompts.load_perception(game) if describing else None
        #: The client and model that describe the image: another model's, or the acting model's own.
        self.perceiver: tuple[LLMClient, str] = perceiver or (client, model)
        self.memory = Memory(self.config.memory)
        self.label = label or _default_label(client, model)
        self.spent_usd = 0.0
        self._rng = random.Random(f"{seed}:fallback")
        self._reflection: tuple[int, int, str] | None = None  # (state step, history length, text)
        self._soft_warned = False
        self._unknown_cost_warned = False
        self._announced = False
        #: The question keys the last action prompt asked (only those are verified).
        self._asked: set[int] | None = None
        #: Unusable answers (unparsable or illegal) in this game, for :attr:`HarnessConfig.strikes`.
        self.invalid_answers = 0
        #: Provider calls that failed in a row, across decisions (reset by any successful call).
        self.failed_calls = 0

    # -- configuration ------------------------------------------------------------------------

    def harness_config(self) -> dict[str, Any]:
        """Every toggle and the identity of the model and templates, JSON-ready (for the manifest)."""
        c = self.config
        data: dict[str, Any] = {
            "spec": self.spec,
            "provider": getattr(self.client, "provider", "unknown"),
            "model": self.model,
            "label": self.label,
            "simulated": bool(getattr(self.client, "simulated", False)),
            "perception": c.perception,
            "perception_model": c.perception_model if self.describe_template is not None else None,
            "image_labels": c.image_labels,
            "action_format": c.action_format,
            "logprobs": c.logprobs,
            "memory": c.memory,
            "reflection": c.reflection,
            "thinking": c.thinking,
            "thinking_budget": c.thinking_budget,
            "effort": c.effort,
            "temperature": c.temperature,
            "max_tokens": c.request_max_tokens(),
            "timeout_s": c.timeout_s,
            "max_failed_calls": c.max_failed_calls,
            "strikes": c.strikes,
            "prompt_variant": c.prompt_variant,
            "template": self.template.path,
            "template_hash": self.template.sha256,
            "reflection_template": self.reflection_template.path,
            "reflection_template_hash": self.reflection_template.sha256,
            "perception_template": self.describe_template.path if self.describe_template else None,
            "perception_template_hash": self.describe_template.sha256 if self.describe_template else None,
            "reask": c.reask,
            "retries": c.retries,
            "fallback": c.fallback,
            "invalid_policy": {"reask": c.reask, "retries": c.retries, "fallback": c.fallback,
                               "strikes": c.strikes},
            "budget_soft_usd": c.budget_soft_usd,
            "budget_hard_usd": c.budget_hard_usd,
            "prices": dict(c.prices) if c.prices else None,
            "seed": self.seed,
        }
        sim_config = getattr(self.client, "config", None)
        if callable(sim_config) and data["simulated"]:
            data["sim"] = sim_config()
        return data

    # -- the decision -------------------------------------------------------------------------

    async def act(self, observation: Observation) -> Decision:
        """Run the whole pipeline for one decision (see the module docstring)."""
        obs = observation
        started = time.perf_counter()
        spent_before = self.spent_usd
        self._give_context(obs)
        if self._over_budget():
            return self._budget_forfeit(obs, 0, started, spent_before)

        window = self.memory.window(self.game, obs.history, obs.seat)
        reflection = ""
        if self.config.reflection and not self.failed_calls:
            # Skipped while the provider is failing: a reflection would only add one more wait.
            reflection = await self._reflect(obs, window)
            if self._over_budget():
                return self._budget_forfeit(obs, 0, started, spent_before)
        if self._too_many_failures():
            return self._failed_calls_forfeit(obs, 0, started, spent_before, "the reflection call failed")
        if self.memory.enabled:
            obs.record(ev.MEMORY, {"entries": [e.to_data() for e in window], "size": self.memory.size})

        # Drawn off the event loop: a PNG encode per decision would otherwise stall the window.
        percept = await self.perception.aperceive(obs)
        state_view = percept.text
        sent_image = percept.image
        if percept.used == "describe" and percept.image is not None:
            described = await self._describe(obs, percept.image)
            if isinstance(described, LLMError):
                problem = f"the perception call failed ({described.kind}): {described}"
                if self._too_many_failures():
                    return self._failed_calls_forfeit(obs, 0, started, spent_before, problem)
                if described.kind in _HOPELESS:
                    return self._decision(obs, None, "forfeit", 0, started, spent_before,
                                          reason=f"{problem}; the player forfeits", forfeit=True)
                return self._fallback(obs, problem, 0, started, spent_before)
            if self._over_budget():
                return self._budget_forfeit(obs, 0, started, spent_before)
            state_view, sent_image = described, None  # the acting model reads, it does not look
        rendered = self.template.render(self._values(obs, state_view, window, reflection))
        fmt = self.config.action_format
        asked_format = action_format.instruction(fmt, obs.legal_actions)
        if asked_format:
            rendered = dataclasses.replace(rendered, user=f"{rendered.user}\n\n{asked_format}")
        tools = (action_format.move_tool(obs.legal_actions),) if fmt == "tools" else ()
        images = (ImagePart(sent_image),) if sent_image is not None else ()
        messages: list[Message] = [Message("system", rendered.system), Message("user", rendered.user, images)]
        data: dict[str, Any] = {
            "system": rendered.system,
            "user": rendered.user,
            "template": rendered.template,
            "template_hash": rendered.template_hash,
            "variant": rendered.variant,
            "perception": {**percept.to_data(), "described_by": self.perceiver[1]}
            if percept.used == "describe" else percept.to_data(),
            "images": len(images),
        }
        if fmt != "text":
            data["action_format"] = fmt
        if tools:
            data["tools"] = [{"name": t.name, "description": t.description, "parameters": dict(t.parameters)}
                             for t in tools]
        if not self._announced:
            data["harness"] = self.harness_config()
            self._announced = True
        blobs = {"image": Blob(sent_image)} if sent_image is not None else {}
        obs.record(ev.PROMPT_BUILT, data, blobs=blobs)
        self._asked = asked_keys(f"{rendered.system}\n{rendered.user}")

        attempts = 0
        timeouts = 0
        last: ParseResult | None = None
        problem = "no answer"
        while attempts < 1 + self.config.retries:
            attempts += 1
            if self._over_budget():
                self._verify(obs, last)
                return self._budget_forfeit(obs, attempts - 1, started, spent_before)
            if attempts > 1:
                self._record_reask(obs, rendered, messages, attempts, problem)
            self._give_context(obs)
            request = self._request(tuple(messages), "action", tools)
            try:
                completion = await self._call(obs, request, attempts)
            except LLMError as exc:
                problem = f"the model call failed ({exc.kind}): {exc}"
                if self._too_many_failures():
                    self._verify(obs, last)
                    return self._failed_calls_forfeit(obs, attempts, started, spent_before, problem)
                if exc.kind in _HOPELESS:
                    # A rejected key or request fails the same way every time: playing on with
                    # fallback moves would pass random play off as the model's.
                    self._verify(obs, last)
                    return self._decision(obs, None, "forfeit", attempts, started, spent_before,
                                          reason=f"{problem}; the player forfeits", forfeit=True)
                if exc.kind == "timeout":
                    timeouts += 1
                    if timeouts >= _MAX_TIMEOUTS_PER_DECISION:
                        # A server that stays silent would otherwise hold the game for
                        # retries x timeout; the fallback policy takes over instead.
                        break
                continue
            result = self._parse(obs, completion)
            last = result
            self._record_parse(obs, result, attempts, self._read_facts(obs, completion, result))
            if not result.ok:
                self.invalid_answers += 1
                if self.config.strikes and self.invalid_answers >= self.config.strikes:
                    self._verify(obs, result)
                    return self._decision(
                        obs, None, "strikes", attempts, started, spent_before, forfeit=True,
                        reason=f"{result.error}; that is {self.invalid_answers} unusable answers in this "
                               f"game (the limit is {self.config.strikes}), so the player forfeits",
                    )
            if result.ok:
                self._verify(obs, result)
                assert result.action is not None
                return self._decision(
                    obs, result.action, "answer", attempts, started, spent_before, rationale=result.thought
                )
            problem = result.error
            if self.config.reask == "none":
                break  # no second chance for an unusable answer: the fallback decides
            if self.config.reask == "feedback":
                messages += [
                    Message("assistant", self._answer_text(completion)),
                    Message("user", self._reask_text(obs, result)),
                ]
            # "same": the next attempt sends ``messages`` unchanged, exactly the first prompt.
        self._verify(obs, last)
        return self._fallback(obs, problem, attempts, started, spent_before)

    # -- stages -------------------------------------------------------------------------------

    def _give_context(self, obs: Observation) -> None:
        """Tell a simulated model the true situation (real providers have no such hook)."""
        clients = (self.client,) if self.perceiver[0] is self.client else (self.client, self.perceiver[0])
        for client in clients:
            setter = getattr(client, "set_context", None)
            if callable(setter):
                from engine.llm.simstyle import SimContext

                setter(SimContext(self.game, obs.state, obs.seat, obs.history))

    async def _describe(self, obs: Observation, image: bytes) -> str | LLMError:
        """The perception call: the vision model describes ``image``; its answer, or the error
        (already recorded) when the call failed."""
        template = self.describe_template
        assert template is not None
        seats = self.game.seats
        values = {
            "game_title": self.game.title,
            "rules": self.game.rules_text(),
            "seat_name": seats[obs.seat].name if obs.seat < len(seats) else f"seat {obs.seat}",
            "step": str(obs.state.step),
        }
        rendered = template.render(values)
        client, model = self.perceiver
        request = dataclasses.replace(
            self._request(
                (Message("system", rendered.system), Message("user", rendered.user, (ImagePart(image),))),
                "perception",
            ),
            model=model,
            # A description, not a decision: extended thinking is the acting model's setting.
            thinking=False, thinking_budget=None, effort=None,
        )
        data: dict[str, Any] = {
            "system": rendered.system,
            "user": rendered.user,
            "template": rendered.template,
            "template_hash": rendered.template_hash,
            "provider": getattr(client, "provider", "unknown"),
            "model": model,
            "images": 1,
        }
        try:
            completion = await self._call(obs, request, 1, client=client, model=model)
        except LLMError as exc:
            obs.record(ev.PERCEPTION, {**data, "error": str(exc), "kind": exc.kind},
                       blobs={"image": Blob(image)})
            return exc
        text = completion.content.strip()
        obs.record(ev.PERCEPTION, {**data, "text": text}, blobs={"image": Blob(image)})
        return text

    async def _reflect(self, obs: Observation, window: Sequence[MemoryEntry]) -> str:
        key = (obs.state.step, len(obs.history))
        if self._reflection is not None and self._reflection[:2] == key:
            return self._reflection[2]  # the same position asked again (re-ask from review): reuse it
        built = reflection.build_prompt(self.reflection_template, self.game, obs, window)
        if built is None:
            return ""  # first decision of this player: nothing of its own to reflect on
        rendered = built.prompt
        request = self._request(
            (Message("system", rendered.system), Message("user", rendered.user)), "reflection"
        )
        try:
            completion = await self._call(obs, request, 1)
        except LLMError:
            return ""  # recorded as model_call_failed; the decision goes ahead without a reflection
        text = reflection.clean(completion.content)
        obs.record(
            ev.REFLECTION,
            {
                "text": text,
                "words": len(text.split()),
                "on_step": built.on_step,
                "template": rendered.template,
                "template_hash": rendered.template_hash,
            },
        )
        self._reflection = (*key, text)
        return text

    def _values(
        self, obs: Observation, state_view: str, window: Sequence[MemoryEntry], reflection: str
    ) -> dict[str, str]:
        seats = self.game.seats
        me = seats[obs.seat].name if obs.seat < len(seats) else f"seat {obs.seat}"
        other = seats[1 - obs.seat].name if len(seats) == 2 else ""
        return {
            "game_title": self.game.title,
            "rules": self.game.rules_text(),
            "history": format_history(window),
            "reflection": reflection,
            "state": state_view,
            "legal_moves": ", ".join(obs.legal_actions),
            "seat_name": me,
            "mark": me,
            "opponent_mark": other,
            "step": str(obs.state.step),
        }

    def _request(self, messages: tuple[Message, ...], purpose: str, tools: tuple[Tool, ...] = ()) -> Request:
        c = self.config
        return Request(
            tools=tools,
            logprobs=5 if c.logprobs and purpose == "action" else 0,
            model=self.model,
            messages=messages,
            temperature=c.temperature,
            max_tokens=c.request_max_tokens(),
            thinking=c.thinking,
            thinking_budget=c.thinking_budget,
            effort=c.effort,
            timeout_s=c.timeout_s,
            purpose=purpose,
            # After a failed call the harness itself asks again (or gives up): a transport retry of a
            # timeout on top of that would only double the wait for a server that is not answering.
            retry_timeouts=not self.failed_calls,
        )

    async def _call(
        self,
        obs: Observation,
        request: Request,
        attempt: int,
        *,
        client: LLMClient | None = None,
        model: str | None = None,
    ) -> Completion:
        """One streamed provider call with its events (by default to the acting model; the perception
        call names its own ``client`` and ``model``); raises :class:`LLMError` after recording it."""
        purpose = request.purpose
        client = client or self.client
        model = model or self.model
        provider = getattr(client, "provider", "unknown")
        obs.record(
            ev.MODEL_CALL_STARTED,
            {"provider": provider, "model": model, "params": request.params(), "purpose": purpose,
             "attempt": attempt},
        )

        def on_delta(delta: Delta) -> None:
            obs.record(ev.MODEL_DELTA, {"kind": delta.kind, "text": delta.text, "purpose": purpose})

        def on_retry(notice: RetryNotice) -> None:
            data: dict[str, Any] = {"attempt": notice.attempt, "reason": notice.reason, "purpose": purpose}
            if notice.wait_s is not None:
                data["wait_s"] = notice.wait_s
            if notice.status is not None:
                data["status"] = notice.status
            obs.record(ev.MODEL_RETRY, data)

        started = time.perf_counter()
        try:
            completion = await client.complete(request, on_delta=on_delta, on_retry=on_retry)
        except asyncio.CancelledError:
            obs.record(ev.MODEL_CALL_FAILED, {"error": "cancelled", "kind": "cancelled", "purpose": purpose,
                                               "attempt": attempt})
            raise
        except LLMError as exc:
            self._count_failure(exc)
            self._record_failure(obs, exc, purpose, attempt)
            if exc.is_run_error:
                # A rejected key or an unknown model is the run's failure, not the player's move.
                raise ModelUnusable(exc) from None
            raise
        except Exception as exc:  # a provider bug must not take the session down: treat it as a failure
            err = LLMError(f"{type(exc).__name__}: {exc}", kind="other")
            self._count_failure(err)
            self._record_failure(obs, err, purpose, attempt)
            raise err from exc
        self.failed_calls = 0
        latency_ms = (time.perf_counter() - started) * 1000
        if purpose == "action":
            if completion.reasoning:
                obs.record(ev.REASONING, {"text": completion.reasoning, "purpose": purpose})
            answer: dict[str, Any] = {"text": completion.content, "purpose": purpose}
            if completion.tool_calls:
                answer["tool_calls"] = [{"name": c.name, "arguments": c.arguments, "id": c.id}
                                        for c in completion.tool_calls]
            obs.record(ev.ANSWER, answer)
        cost = self._cost(completion.usage, model, client)
        if cost is not None:
            self.spent_usd += cost
        usage = completion.usage
        obs.record(
            ev.MODEL_CALL_FINISHED,
            {
                "latency_ms": round(latency_ms, 2),
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "reasoning_tokens": usage.reasoning_tokens,
                "cost_usd": cost,
                "purpose": purpose,
                "attempt": attempt,
                "stop_reason": completion.stop_reason,
                "retries": completion.retries,
                "model": completion.model or model,
            },
        )
        self._check_budget(obs, cost)
        return completion

    def _count_failure(self, exc: LLMError) -> None:
        if exc.kind != "cancelled":  # the client was closed under the call: not the provider failing
            self.failed_calls += 1

    def _too_many_failures(self) -> bool:
        limit = self.config.max_failed_calls
        return bool(limit) and self.failed_calls >= limit

    def _failed_calls_forfeit(
        self, obs: Observation, attempts: int, started: float, spent_before: float, problem: str
    ) -> Decision:
        n = self.failed_calls
        reason = (f"{n} model calls failed in a row (the limit is {self.config.max_failed_calls}; last: "
                  f"{problem}); the player forfeits rather than play fallback moves as the model's")
        return self._decision(obs, None, "failed_calls", attempts, started, spent_before, reason=reason,
                              forfeit=True)

    def _record_failure(self, obs: Observation, exc: LLMError, purpose: str, attempt: int) -> None:
        data: dict[str, Any] = {"error": str(exc), "kind": exc.kind, "purpose": purpose, "attempt": attempt}
        data["failed_in_a_row"] = self.failed_calls
        if exc.status is not None:
            data["status"] = exc.status
        if exc.partial:
            data["partial"] = exc.partial  # what a torn stream delivered before it broke
        obs.record(ev.MODEL_CALL_FAILED, data)

    def _answer_text(self, completion: Completion) -> str:
        """The answer as text: its content, then each tool call as ``name(arguments)``."""
        calls = [action_format.call_text(c) for c in completion.tool_calls]
        return "\n".join(part for part in (completion.content.strip(), *calls) if part)

    def _parse(self, obs: Observation, completion: Completion) -> ParseResult:
        """The parse chain for the configured action format (see :mod:`engine.agent.action_format`)."""
        fmt = self.config.action_format
        if fmt == "text":
            return parse_answer(self.game, obs.state, obs.seat, completion.content)
        if fmt == "json":
            found = action_format.read_json_answer(completion.content)
        else:
            found = action_format.read_tool_call(completion.tool_calls)
        extraction = Extraction(found.move, error=found.error, thought=found.thought)
        raw = self._answer_text(completion)
        return parse_answer(self.game, obs.state, obs.seat, raw, extraction=extraction)

    def _read_facts(self, obs: Observation, completion: Completion, result: ParseResult) -> dict[str, Any]:
        """What the parse chain records besides the parse: how the answer was given (JSON, the tool
        call) and the model's confidence over the candidate moves when log-probabilities came back."""
        facts: dict[str, Any] = {}
        fmt = self.config.action_format
        if fmt != "text":
            facts["format"] = fmt
        if fmt == "tools" and completion.tool_calls:
            # The call the move was read from: the last one of the move tool (else the last one made).
            calls = [c for c in completion.tool_calls if c.name == action_format.TOOL_NAME]
            facts["tool_call"] = action_format.call_text((calls or list(completion.tool_calls))[-1])
        if completion.logprobs and result.extracted:
            confidence = move_confidence(completion.logprobs, result.extracted, obs.legal_actions)
            if confidence is not None:
                facts["confidence"] = confidence
        return facts

    def _record_parse(
        self, obs: Observation, result: ParseResult, attempt: int, facts: Mapping[str, Any] | None = None
    ) -> None:
        extra = dict(facts or {})
        if result.ok:
            data: dict[str, Any] = {
                "raw": result.raw,
                "extracted": result.extracted,
                "matched": result.action,
                "attempt": attempt,
                **extra,
            }
            if result.reason:
                data["reason"] = result.reason
            if result.thought:
                data["thought"] = result.thought
            note = obs.state.annotate(result.action, obs.seat) if result.action else ""
            if note:
                data["note"] = note
            obs.record(ev.ACTION_PARSED, data)
        elif result.kind == ILLEGAL:
            obs.record(
                ev.ACTION_ILLEGAL,
                {"raw": result.raw, "extracted": result.extracted, "error": result.error, "attempt": attempt,
                 **extra},
            )
        else:
            data = {"raw": result.raw, "error": result.error, "attempt": attempt, **extra}
            if result.extracted is not None:
                data["extracted"] = result.extracted
            obs.record(ev.ACTION_UNPARSABLE, data)

    def _reask_text(self, obs: Observation, result: ParseResult) -> str:
        kind = "is not a legal move" if result.kind == ILLEGAL else "could not be read as a move"
        legal = list(obs.legal_actions)
        # A long list (a bargaining pool has over a hundred divisions) is in the prompt already.
        more = len(legal) - _REASK_LISTED
        listed = ", ".join(legal[:_REASK_LISTED])
        if more > 0:
            listed += f", and {more} more (see the list above)"
        return (
            f"Your answer {kind}: {result.error}\n"
            f"Legal moves now: {listed}.\n"
            "Answer again, following the output format exactly."
        )

    def _record_reask(
        self,
        obs: Observation,
        rendered: prompts.RenderedPrompt,
        messages: Sequence[Message],
        attempt: int,
        problem: str,
    ) -> None:
        obs.record(
            ev.PROMPT_BUILT,
            {
                "system": rendered.system,
                "user": messages[-1].text if messages[-1].role == "user" else rendered.user,
                "policy": self.config.reask,
                "template": rendered.template,
                "template_hash": rendered.template_hash,
                "variant": rendered.variant,
                "attempt": attempt,
                "reask": True,
                "reason": problem,
                "conversation": [{"role": m.role, "text": m.text, "images": len(m.images)} for m in messages],
            },
        )

    def _verify(self, obs: Observation, result: ParseResult | None) -> None:
        if result is None:
            return
        for check in verify(self.game, obs.state, obs.seat, result.tags, self._asked, result.action):
            obs.record(ev.VERIFICATION, check.to_data())

    # -- outcomes -----------------------------------------------------------------------------

    def _decision(
        self,
        obs: Observation,
        action: Action | None,
        policy: str,
        attempts: int,
        started: float,
        spent_before: float,
        *,
        rationale: str = "",
        reason: str = "",
        forfeit: bool = False,
    ) -> Decision:
        extra: dict[str, Any] = {
            "policy": policy,
            "attempts": attempts,
            "model": self.model,
            "latency_ms": round((time.perf_counter() - started) * 1000, 2),
            "cost_usd": round(self.spent_usd - spent_before, 6),
            "spent_usd": round(self.spent_usd, 6),
        }
        if reason:
            extra["fallback_reason"] = reason
        return Decision(action, source=MODEL, rationale=rationale, forfeit=forfeit, extra=extra)

    def _fallback(
        self, obs: Observation, problem: str, attempts: int, started: float, spent_before: float
    ) -> Decision:
        how = self.config.fallback
        tried = f"no usable answer after {attempts} attempt{'s' if attempts != 1 else ''}: {problem}"
        if how == "forfeit" or not obs.legal_actions:
            return self._decision(obs, None, "forfeit", attempts, started, spent_before,
                                  reason=f"{tried}; the player forfeits", forfeit=True)
        if how == "noop":
            noop = self.game.default_action
            if noop is not None and noop in obs.legal_actions:
                return self._decision(obs, noop, "noop", attempts, started, spent_before,
                                      reason=f"{tried}; played the game's default action ({noop})")
            action = self._rng.choice(obs.legal_actions)
            return self._decision(obs, action, "random", attempts, started, spent_before,
                                  reason=f"{tried}; {self.game.title} has no no-op action, so a random legal "
                                         f"move ({action}) was played instead")
        action = self._rng.choice(obs.legal_actions)
        return self._decision(obs, action, "random", attempts, started, spent_before,
                              reason=f"{tried}; played a random legal move ({action})")

    # -- budget -------------------------------------------------------------------------------

    def _cost(self, usage: Usage, model: str, client: LLMClient) -> float | None:
        prices = self.config.prices
        if prices:
            return (usage.input_tokens * float(prices.get("input_per_mtok", 0.0))
                    + usage.output_tokens * float(prices.get("output_per_mtok", 0.0))) / 1_000_000
        if getattr(client, "simulated", False):
            return 0.0
        try:
            from engine.llm import pricing
        except ImportError:
            return None
        try:
            return pricing.cost(model, usage, provider=getattr(client, "provider", None))
        except Exception:
            return None

    def _check_budget(self, obs: Observation, cost: float | None) -> None:
        c = self.config
        if cost is None and (c.budget_hard_usd is not None or c.budget_soft_usd is not None):
            if not self._unknown_cost_warned:
                self._unknown_cost_warned = True
                obs.record(ev.ERROR, {"message": f"the price of {self.model} is unknown, so the budget cap "
                                                 "cannot count this model's calls", "where": "budget"})
        if c.budget_soft_usd is not None and not self._soft_warned and self.spent_usd >= c.budget_soft_usd:
            self._soft_warned = True
            obs.record(ev.ERROR, {"message": f"spent ${self.spent_usd:.4f}, past the soft budget of "
                                             f"${c.budget_soft_usd:.4f}", "where": "budget",
                                  "spent_usd": round(self.spent_usd, 6), "cap_usd": c.budget_soft_usd,
                                  "cap": "soft"})

    def _over_budget(self) -> bool:
        cap = self.config.budget_hard_usd
        return cap is not None and self.spent_usd >= cap

    def _budget_forfeit(
        self, obs: Observation, attempts: int, started: float, spent_before: float
    ) -> Decision:
        cap = self.config.budget_hard_usd
        message = f"spent ${self.spent_usd:.4f}, reaching the hard budget of ${cap:.4f}; the player forfeits"
        obs.record(ev.ERROR, {"message": message, "where": "budget", "spent_usd": round(self.spent_usd, 6),
                              "cap_usd": cap, "cap": "hard"})
        return self._decision(
            obs, None, "budget", attempts, started, spent_before, reason=message, forfeit=True
        )


# -- helpers ------------------------------------------------------------------------------------------


def _default_label(client: LLMClient, model: str) -> str:
    label = getattr(client, "label", None)
    if isinstance(label, str) and label:
        return label
    provider = getattr(client, "provider", "")
    return f"{model} ({_PROVIDER_TITLES.get(provider, provider)})" if provider else model


def _invalid_policy(value: Any) -> dict[str, Any]:
    """``invalid_policy`` as HarnessConfig fields: ``{"reask", "retries", "fallback", "strikes"}``
    (only those given); a bare string names the fallback."""
    if value is None:
        return {}
    if isinstance(value, str):
        return {"fallback": value}
    if isinstance(value, Mapping):
        unknown = set(value) - set(_POLICY_KEYS)
        if unknown:
            known, given = ", ".join(_POLICY_KEYS), ", ".join(sorted(unknown))
            raise ValueError(f"invalid_policy takes {known}, not {given}")
        policy = {k: value[k] for k in _POLICY_KEYS if value.get(k) is not None}
        if "retries" in policy:
            policy["retries"] = int(policy["retries"])
        return policy
    example = "{'reask': 'feedback', 'retries': 3, 'fallback': 'random'}"
    raise ValueError(f"invalid_policy must be a dict like {example}, not {value!r}")


#: The invalid-answer policy's settings (also accepted one by one as model options).
_POLICY_KEYS = ("reask", "retries", "fallback", "strikes")


def policy_text(harness: Mapping[str, Any]) -> str:
    """The invalid-answer policy of a recorded harness (``harness_config()``), in a few words:
    ``"re-ask with feedback ×3 → random move"``, ``"re-ask the same prompt ×3 → forfeit; 3 strikes"``."""
    nested = harness.get("invalid_policy")
    policy: Mapping[str, Any] = nested if isinstance(nested, Mapping) else {}

    def get(key: str, default: Any) -> Any:
        value = harness.get(key, policy.get(key))
        return default if value is None else value

    reask, retries, fallback = get("reask", "feedback"), get("retries", 3), get("fallback", "random")
    strikes = get("strikes", 0)
    then = {"random": "random move", "noop": "no-op", "forfeit": "forfeit"}.get(str(fallback), str(fallback))
    if reask == "none" or not retries:
        text = f"no re-ask → {then}"
    else:
        how = "the same prompt" if reask == "same" else "with feedback"
        text = f"re-ask {how} ×{retries} → {then}"
    if strikes:
        text += f"; forfeit at {strikes} strikes"
    return text


def harness_text(harness: Mapping[str, Any]) -> str:
    """A model seat's harness in one line: what it perceives, remembers, how it answers, and the
    invalid-answer policy that played (as the manifest records it)."""
    perception = str(harness.get("perception", "text"))
    if perception == "describe":
        perception += f" (by {harness.get('perception_model') or harness.get('spec')})"
    if perception in ("image", "both") and harness.get("image_labels") is False:
        perception += " (unlabelled)"
    memory = harness.get("memory")
    parts = [f"perception {perception}", f"memory {memory}" if memory else "memory off",
             "reflection " + ("on" if harness.get("reflection") else "off")]
    if harness.get("action_format") not in (None, "text"):
        parts.append(f"answers as {harness['action_format']}")
    if harness.get("logprobs"):
        parts.append("logprobs on")
    parts.append(f"invalid answers: {policy_text(harness)}")
    return " · ".join(parts)



_HARNESS_OPTIONS = (
    "perception", "memory", "reflection", "thinking", "thinking_budget", "effort", "temperature",
    "max_tokens", "prompt_variant", "budget_soft_usd", "budget_hard_usd", "prices", "timeout_s",
    "image_labels", "max_failed_calls", "perception_model", "action_format", "logprobs",
)
OPTIONS = frozenset(
    {*_HARNESS_OPTIONS, *_POLICY_KEYS, "invalid_policy", "client", "model", "label", *_SIM_OPTIONS,
     "perception_client", "perception_model_name"}
)


def make_model_player(spec: str, game: Game, *, seed: int | None = None, **options: Any) -> ModelPlayer:
    """Build a model player from its spec and harness options.

    Args:
        spec: ``"sim"``, ``"sim:NAME"``, ``"openai:MODEL"``, ``"anthropic:MODEL"`` or
            ``"local:MODEL@BASE_URL"``.
        game: The game it will play.
        seed: Seeds the simulated model and the random fallback move.
        **options: Harness options (see :class:`HarnessConfig`; ``invalid_policy`` is
            ``{"reask": "feedback"|"same"|"none", "retries": k, "fallback": "random"|"noop"|"forfeit",
            "strikes": n}``, whose keys may also be given one by one), the simulated model's
            ``latency`` and error rates, ``client`` (an :class:`LLMClient` to use instead of building
            one, e.g. in tests), ``model`` (the model name for an injected client), ``label``, and
            for ``perception="describe"`` ``perception_model`` (a spec) or ``perception_client`` and
            ``perception_model_name`` (an injected client for the perception call).

    Raises:
        ValueError: an unknown option, a bad value, or an unknown simulated preset.
    """
    unknown = sorted(set(options) - OPTIONS)
    if unknown:
        raise ValueError(f"unknown model option(s) {', '.join(unknown)}; known: {', '.join(sorted(OPTIONS))}")
    spec = spec.strip()
    policy = _invalid_policy(options.get("invalid_policy"))
    # The policy's keys may also come one by one (as sweep files and protocols name them).
    policy.update({k: options[k] for k in _POLICY_KEYS if options.get(k) is not None})
    config_args = {k: options[k] for k in _HARNESS_OPTIONS if k in options and options[k] is not None}
    if "memory" in config_args:
        memory = config_args["memory"]
        # A checkbox gives True/False: on means the default window, off means none.
        config_args["memory"] = (DEFAULT_WINDOW if memory else 0) if isinstance(memory, bool) else int(memory)
    if "reflection" in config_args:
        config_args["reflection"] = bool(config_args["reflection"])
    from engine.llm.factory import public_spec

    describing = config_args.get("perception") == "describe"
    perception_spec = str(options.get("perception_model") or "").strip()
    if not describing or perception_spec == spec:
        perception_spec = ""  # recorded only where it plays: another model describing the image
    config_args.pop("perception_model", None)
    config = HarnessConfig(**config_args, **policy, perception_model=public_spec(perception_spec) or None)
    client, model = _client(spec, options.get("client"), options.get("model"), seed, options, config)
    perceiver: tuple[LLMClient, str] | None = None
    if perception_spec or (describing and options.get("perception_client") is not None):
        perceiver = _client(perception_spec or spec, options.get("perception_client"),
                            options.get("perception_model_name"), seed, options, config)
    return ModelPlayer(
        game, client, model, spec=public_spec(spec), config=config, seed=seed, label=options.get("label"),
        perceiver=perceiver,
    )


def _client(
    spec: str,
    client: LLMClient | None,
    model: str | None,
    seed: int | None,
    options: Mapping[str, Any],
    config: HarnessConfig,
) -> tuple[LLMClient, str]:
    """The client and model name for ``spec``: the injected ``client`` (named ``model``), a simulated
    model, or a provider's client."""
    if client is not None:
        return client, model or spec.partition(":")[2] or spec
    if spec.split(":", 1)[0] == "sim":
        from engine.llm.sim import DEFAULT_LATENCY, SimClient, parse_spec

        sim_args = {k: options[k] for k in _SIM_OPTIONS if options.get(k) is not None}
        sim_args.setdefault("latency", DEFAULT_LATENCY)
        sim = SimClient(parse_spec(spec), seed=seed, **sim_args)
        return sim, sim.model
    from engine.llm.factory import make_client

    return make_client(spec, timeout_s=config.timeout_s)
