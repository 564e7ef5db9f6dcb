"""The harness settings the papers' protocols rely on, checked on the wire: the real OpenAI and
Anthropic SDK clients talk to the loopback server, and each test reads what the server received.

* ``reask="same"`` re-sends exactly the first prompt (LVLM-Playground); ``"feedback"`` adds the answer
  and the parse error; ``"none"`` asks once and the fallback decides;
* memory 0 and no reflection: a step carries no earlier step (GVGAI-LLM's single turn);
* the zero-shot setting (image, no labels, memory 0, reflection off) sends one unlabelled image;
* ``perception="describe"``: a perception call with the image precedes each action call, and its
  answer is the text the action call gets;
* ``action_format="tools"``: the legal actions go out as a tool and the called action is played.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest

import engine
from engine import events as ev
from engine.agent.player import ModelPlayer, make_model_player
from engine.core import Game
from engine.events import Event
from engine.llm.anthropic_client import AnthropicClient
from engine.llm.base import LLMClient
from engine.llm.openai_client import OpenAIClient
from engine.match import Match
from engine.players import Observation, Player
from engine.roster import make_player
from tests.loopback import Answer, LoopbackServer, Recorded

WIRES = ("openai", "anthropic")


def client_for(wire: str, loopback: LoopbackServer) -> LLMClient:
    """A real SDK client of ``wire`` pointed at the loopback server (a fake key, never sent elsewhere)."""
    if wire == "openai":
        return OpenAIClient(provider="local", base_url=loopback.openai_base_url, max_retries=0)
    return AnthropicClient(api_key="sk-ant-test-key", base_url=loopback.anthropic_base_url, max_retries=0)


def model(wire: str, loopback: LoopbackServer, game: Game, **options: Any) -> ModelPlayer:
    options.setdefault("reflection", False)
    return make_model_player(f"{wire}:loop-model", game, seed=1, client=client_for(wire, loopback),
                             model="loop-model", **options)


def messages_of(request: Recorded) -> list[dict[str, Any]]:
    """The conversation a request carried, the system prompt first (both wire formats)."""
    body = request.body
    messages = list(body["messages"])
    if "system" in body:  # Anthropic keeps the system prompt apart
        messages.insert(0, {"role": "system", "content": body["system"]})
    return messages


def texts_of(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content if p.get("type") == "text")


def images_of(request: Recorded) -> list[bytes]:
    """Every PNG a request carried, decoded (OpenAI data URLs and Anthropic base64 blocks)."""
    found = []
    for message in request.body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            continue
        for part in content:
            if part.get("type") == "image_url":
                found.append(base64.b64decode(part["image_url"]["url"].split(",", 1)[1]))
            elif part.get("type") == "image":
                found.append(base64.b64decode(part["source"]["data"]))
    return found


def act_once(player: ModelPlayer, game: Game, *, render: Any = None) -> tuple[Any, list[Event]]:
    state = game.initial_state(seed=1)
    events: list[Event] = []
    obs = Observation(game, state, 0, tuple(state.legal_actions(0)), emit=events.append, render=render)

    async def go() -> Any:
        try:
            return await player.act(obs)
        finally:
            await player.client.aclose()

    return asyncio.run(go()), events


def play(game: Game, players: list[Player], *, max_steps: int, render: Any = None) -> list[Event]:
    match = Match(game, players, seed=3, max_steps=max_steps, render=render)
    events: list[Event] = []
    match.subscribe(events.append)

    async def go() -> None:
        try:
            await match.run()
        finally:
            for p in players:
                client = getattr(p, "client", None)
                if client is not None:
                    await client.aclose()

    asyncio.run(go())
    return events


# -- the invalid-answer policy ------------------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
def test_reask_same_sends_exactly_the_first_prompt_again(wire: str, loopback: LoopbackServer) -> None:
    game = engine.make("tictactoe")
    loopback.script(Answer("I would rather not say."), Answer("Chosen Move: (1,1)"))
    player = model(wire, loopback, game, memory=0, reask="same", retries=2)
    decision, events = act_once(player, game)
    posts = loopback.posts()
    assert len(posts) == 2
    assert messages_of(posts[1]) == messages_of(posts[0])  # not a word added, nothing left out
    assert decision.action == "(1,1)" and decision.extra["policy"] == "answer"
    reask = [e.data for e in events if e.type == ev.PROMPT_BUILT and e.data.get("reask")]
    first = next(e.data for e in events if e.type == ev.PROMPT_BUILT)
    assert len(reask) == 1 and reask[0]["policy"] == "same" and reask[0]["user"] == first["user"]
    assert player.harness_config()["invalid_policy"]["reask"] == "same"


@pytest.mark.parametrize("wire", WIRES)
def test_reask_feedback_adds_the_answer_and_the_error(wire: str, loopback: LoopbackServer) -> None:
    game = engine.make("tictactoe")
    loopback.script(Answer("I would rather not say."), Answer("Chosen Move: (1,1)"))
    player = model(wire, loopback, game, memory=0)  # the default policy
    assert player.config.reask == "feedback"
    decision, _ = act_once(player, game)
    first, second = (messages_of(p) for p in loopback.posts())
    assert second[: len(first)] == first and len(second) == len(first) + 2
    assert second[-2] == {"role": "assistant", "content": "I would rather not say."}
    assert "Legal moves now: (0,0)" in texts_of(second[-1])
    assert decision.action == "(1,1)"


@pytest.mark.parametrize("wire", WIRES)
def test_reask_none_asks_once_and_the_fallback_plays(wire: str, loopback: LoopbackServer) -> None:
    game = engine.make("tictactoe")
    loopback.script(Answer("I would rather not say."), Answer("Chosen Move: (1,1)"))
    player = model(wire, loopback, game, memory=0, reask="none", fallback="forfeit")
    decision, _ = act_once(player, game)
    assert len(loopback.posts()) == 1
    assert decision.forfeit and decision.extra["policy"] == "forfeit"
    assert "after 1 attempt" in decision.extra["fallback_reason"]


def test_a_bad_reask_value_is_refused() -> None:
    with pytest.raises(ValueError, match="reask must be one of feedback, same, none"):
        make_model_player("sim", engine.make("tictactoe"), reask="again")


# -- memory, reflection and the zero-shot setting ----------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
def test_memory_zero_without_reflection_carries_no_earlier_step(wire: str, loopback: LoopbackServer) -> None:
    game = engine.make("tictactoe")
    moves = ["(1,1)", "(0,0)", "(2,2)", "(0,2)", "(2,0)"]
    # Each answer carries a marker: none may come back in a later request.
    loopback.script(*(Answer(f"marker-{i} here.\nChosen Move: {m}") for i, m in enumerate(moves)))
    player = model(wire, loopback, game, memory=0, reflection=False)
    other = make_player("sim:perfect", game, seed=2, latency=0, reflection=False, memory=0)
    play(game, [player, other], max_steps=4)
    posts = loopback.posts()
    assert len(posts) == 2
    for request in posts:
        messages = messages_of(request)
        assert [m["role"] for m in messages] == ["system", "user"]  # one prompt, no earlier turn
        text = texts_of(messages[-1])
        assert "marker-" not in text and "Previous game history" not in text
        assert "Reflection on your last move" not in text


@pytest.mark.parametrize("wire", WIRES)
def test_zero_shot_sends_one_unlabelled_image_and_no_memory(wire: str, loopback: LoopbackServer) -> None:
    from desktop.episode import png_renderer

    render = png_renderer("2048")
    assert render is not None
    game = engine.make("2048")
    loopback.default = Answer("thought: corner\nmove: left")
    player = model(wire, loopback, game, perception="image", image_labels=False, memory=0, reflection=False)
    events = play(game, [player], max_steps=2, render=render)
    posts = loopback.posts()
    assert len(posts) == 2
    first_state = game.initial_state(seed=3)
    assert any(e.type == ev.ACTION_PARSED for e in events)
    for request in posts:
        messages = messages_of(request)
        assert [m["role"] for m in messages] == ["system", "user"]
        assert len(images_of(request)) == 1
        assert "Previous" not in texts_of(messages[-1]) and "move: left" not in texts_of(messages[-1])
    sent = images_of(posts[0])[0]
    assert sent == render(first_state, grid_labels=False)
    assert sent != render(first_state, grid_labels=True)
    assert player.harness_config()["image_labels"] is False


def test_the_policy_is_a_sweep_key() -> None:
    from engine.sweep.spec import HarnessSetting, parse_sweep

    setting = HarnessSetting("lvlm", {"reask": "same", "retries": 2, "fallback": "forfeit", "strikes": 3})
    opts = setting.model_options()
    assert opts["invalid_policy"] == {"reask": "same", "retries": 2, "fallback": "forfeit"}
    player = make_model_player("sim", engine.make("tictactoe"), **opts)
    assert (player.config.reask, player.config.retries, player.config.fallback, player.config.strikes) == (
        "same", 2, "forfeit", 3)
    head = 'players = ["sim"]\n[[games]]\nid = "tictactoe"\n[harness]\n'
    sweep = parse_sweep(head + 'reask = ["same", "none"]\n', name="s.toml")
    assert sorted(c.harness.values["reask"] for c in sweep.cells) == ["none", "same"]
    text = head + 'reask = "again"\n'
    with pytest.raises(ValueError, match=r"s.toml:5: .*reask.*\"feedback\", \"same\" or \"none\""):
        parse_sweep(text, name="s.toml")


# -- perception as its own call ------------------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
def test_a_describe_call_precedes_each_action_call(wire: str, loopback: LoopbackServer) -> None:
    from desktop.episode import png_renderer

    render = png_renderer("2048")
    game = engine.make("2048")
    loopback.script(
        Answer("DESC-0: a 2 at the top right."), Answer("thought: corner\nmove: left"),
        Answer("DESC-1: two 2s on the left."), Answer("thought: merge\nmove: up"),
    )
    player = model(wire, loopback, game, perception="describe", memory=0)
    events = play(game, [player], max_steps=2, render=render)
    posts = loopback.posts()
    assert len(posts) == 4
    for k in range(2):
        describe, act = posts[2 * k], posts[2 * k + 1]
        # The perception call: its own prompt, with the board image.
        assert "You are the eyes of an AI agent that plays 2048" in texts_of(messages_of(describe)[0])
        assert len(images_of(describe)) == 1
        # The action call: the description as the state, and no image.
        assert images_of(act) == []
        assert f"DESC-{k}:" in texts_of(messages_of(act)[-1])
        assert "You are the eyes" not in json_text(act)
    perceptions = [e for e in events if e.type == ev.PERCEPTION]
    assert [e.data["text"] for e in perceptions] == [
        "DESC-0: a 2 at the top right.", "DESC-1: two 2s on the left."]
    assert all(e.blobs["image"].data == images_of(posts[2 * i])[0] for i, e in enumerate(perceptions))
    calls = [e.data["purpose"] for e in events if e.type == ev.MODEL_CALL_FINISHED]
    assert calls == ["perception", "action", "perception", "action"]
    finished = [e.data for e in events
                if e.type == ev.MODEL_CALL_FINISHED and e.data["purpose"] == "perception"]
    assert all(d["input_tokens"] == 12 and d["output_tokens"] == 7 and d["latency_ms"] > 0 for d in finished)
    assert [e.data["action"] for e in events if e.type == ev.DECISION] == ["left", "up"]
    assert player.harness_config()["perception"] == "describe"
    assert player.harness_config()["perception_template"] == "prompts/_common/describe.md"


@pytest.mark.parametrize("wire", WIRES)
def test_another_model_can_describe_the_board(wire: str, loopback: LoopbackServer) -> None:
    from desktop.episode import png_renderer

    render = png_renderer("2048")
    game = engine.make("2048")
    loopback.default = Answer("thought: corner\nmove: left")
    player = model(wire, loopback, game, perception="describe", perception_model="sim", memory=0)
    events = play(game, [player], max_steps=1, render=render)
    (act,) = loopback.posts()  # the description came from the simulated model, offline
    description = next(e.data for e in events if e.type == ev.PERCEPTION)
    assert description["provider"] == "sim"
    assert description["text"].startswith("The image shows 2048 at step 0")
    assert description["text"].split("\n\n", 1)[1].strip() in texts_of(messages_of(act)[-1])
    assert player.harness_config()["perception_model"] == "sim"


def json_text(request: Recorded) -> str:
    return request.text


# -- the action format ---------------------------------------------------------------------------------


def _tools_of(request: Recorded) -> list[dict[str, Any]]:
    """The tools a request offered, as ``{"name", "parameters"}`` (both wire formats)."""
    tools = request.body.get("tools") or []
    return [{"name": t["function"]["name"], "parameters": t["function"]["parameters"]} if "function" in t
            else {"name": t["name"], "parameters": t["input_schema"]} for t in tools]


# Compatible servers may ignore stream=True and answer with one JSON document; Anthropic always streams.
@pytest.mark.parametrize(("wire", "stream"), [("openai", True), ("openai", False), ("anthropic", True)])
def test_a_tool_calling_run_sends_the_legal_moves_and_plays_the_called_one(
    wire: str, stream: bool, loopback: LoopbackServer
) -> None:
    game = engine.make("tictactoe")
    call = ("play_move", '{"thought": "centre first", "move": "(1,1)"}')
    loopback.script(Answer("", tool_calls=(call,), stream=None if stream else False))
    player = model(wire, loopback, game, memory=0, action_format="tools")
    decision, events = act_once(player, game)
    (request,) = loopback.posts()
    (tool,) = _tools_of(request)
    legal = list(game.initial_state(seed=1).legal_actions(0))
    assert tool["name"] == "play_move"
    assert tool["parameters"]["properties"]["move"]["enum"] == legal
    assert request.body["tool_choice"] == ("required" if wire == "openai" else {"type": "any"})
    assert "calling the tool play_move" in texts_of(messages_of(request)[-1])
    assert decision.action == "(1,1)" and decision.extra["policy"] == "answer"
    answer = next(e.data for e in events if e.type == ev.ANSWER)
    assert answer["tool_calls"][0]["name"] == "play_move"
    assert json_loads(answer["tool_calls"][0]["arguments"]) == {"thought": "centre first", "move": "(1,1)"}
    parsed = next(e.data for e in events if e.type == ev.ACTION_PARSED)
    assert parsed["format"] == "tools" and parsed["tool_call"].startswith("play_move(")
    assert parsed["extracted"] == "(1,1)" and parsed["matched"] == "(1,1)"
    assert parsed["thought"] == "centre first"
    assert player.harness_config()["action_format"] == "tools"


@pytest.mark.parametrize("wire", WIRES)
def test_an_illegal_tool_call_is_reasked_with_the_call_shown(wire: str, loopback: LoopbackServer) -> None:
    game = engine.make("tictactoe")
    loopback.script(Answer("", tool_calls=(("play_move", '{"move": "(3,3)"}'),)),
                    Answer("", tool_calls=(("play_move", '{"move": "(0,0)"}'),)))
    player = model(wire, loopback, game, memory=0, action_format="tools")
    decision, events = act_once(player, game)
    first, second = (messages_of(p) for p in loopback.posts())
    assert second[-2] == {"role": "assistant", "content": 'play_move({"move": "(3,3)"})'}
    assert "could not be read as a move" in texts_of(second[-1]) or "not a legal move" in texts_of(second[-1])
    assert decision.action == "(0,0)"
    rejected = next(e.data for e in events if e.type in (ev.ACTION_ILLEGAL, ev.ACTION_UNPARSABLE))
    assert rejected["format"] == "tools" and rejected["extracted"] == "(3,3)"


@pytest.mark.parametrize("wire", WIRES)
def test_a_text_answer_to_a_tool_request_is_unparsable_not_guessed(
    wire: str, loopback: LoopbackServer
) -> None:
    game = engine.make("tictactoe")
    loopback.script(Answer("Chosen Move: (1,1)"))
    player = model(wire, loopback, game, memory=0, action_format="tools", reask="none", fallback="forfeit")
    decision, events = act_once(player, game)
    assert decision.forfeit
    error = next(e.data for e in events if e.type == ev.ACTION_UNPARSABLE)["error"]
    assert error == "no play_move tool call (the model answered in text)"


@pytest.mark.parametrize("wire", WIRES)
def test_a_json_answer_is_read_from_its_object(wire: str, loopback: LoopbackServer) -> None:
    game = engine.make("2048")
    loopback.script(Answer('Sure.\n```json\n{"thought": "keep the corner", "move": "left"}\n```'))
    player = model(wire, loopback, game, memory=0, action_format="json")
    decision, events = act_once(player, game)
    (request,) = loopback.posts()
    assert "answer with exactly one JSON object" in texts_of(messages_of(request)[-1])
    assert "tools" not in request.body
    assert decision.action == "left"
    parsed = next(e.data for e in events if e.type == ev.ACTION_PARSED)
    assert parsed["format"] == "json" and parsed["thought"] == "keep the corner"


LEFT_TOKENS = (
    ("thought", -0.01, ()), (":", -0.01, ()), (" corner", -0.3, ()), ("\n", -0.01, ()),
    ("move", -0.01, ()), (":", -0.01, ()),
    (" left", -0.2, ((" left", -0.2), (" right", -1.9), (" up", -3.0), (" the", -4.0))),
)


@pytest.mark.parametrize("stream", [True, False])
def test_logprobs_give_the_confidence_over_the_candidate_moves(
    stream: bool, loopback: LoopbackServer
) -> None:
    game = engine.make("2048")
    loopback.script(Answer(logprobs=LEFT_TOKENS, stream=None if stream else False))
    player = model("openai", loopback, game, memory=0, logprobs=True)
    decision, events = act_once(player, game)
    (request,) = loopback.posts()
    assert request.body["logprobs"] is True and request.body["top_logprobs"] == 5
    assert decision.action == "left"
    confidence = next(e.data for e in events if e.type == ev.ACTION_PARSED)["confidence"]
    assert confidence["move"] == "left" and confidence["chosen"] == pytest.approx(0.8187, abs=1e-4)
    assert list(confidence["candidates"]) == ["left", "right", "up"]
    assert confidence["candidates"]["right"] == pytest.approx(0.1496, abs=1e-4)
    assert confidence["other"] == pytest.approx(0.0183, abs=1e-4)  # " the" begins no move


def test_anthropic_has_no_logprobs_and_none_are_asked(loopback: LoopbackServer) -> None:
    game = engine.make("2048")
    loopback.script(Answer("thought: corner\nmove: left"))
    player = model("anthropic", loopback, game, memory=0, logprobs=True)
    decision, events = act_once(player, game)
    (request,) = loopback.posts()
    assert "logprobs" not in request.body and "top_logprobs" not in request.body
    assert "confidence" not in next(e.data for e in events if e.type == ev.ACTION_PARSED)
    assert decision.action == "left"


def json_loads(text: str) -> Any:
    import json

    return json.loads(text)


@pytest.mark.parametrize("wire", WIRES)
def test_a_failed_perception_call_is_recorded_and_the_fallback_says_why(
    wire: str, loopback: LoopbackServer
) -> None:
    from tests.loopback import Fail

    game = engine.make("2048")
    loopback.script(Fail(status=500))
    player = model(wire, loopback, game, perception="describe", memory=0, fallback="noop")
    decision, events = act_once(player, game, render=lambda s, **_: b"\x89PNG fake")
    assert len(loopback.posts()) == 1  # no action call without a description
    described = next(e for e in events if e.type == ev.PERCEPTION)
    assert described.data["kind"] == "server" and "text" not in described.data
    assert described.blobs["image"].data == b"\x89PNG fake"
    failed = next(e.data for e in events if e.type == ev.MODEL_CALL_FAILED)
    assert failed["purpose"] == "perception"
    assert not any(e.type == ev.PROMPT_BUILT for e in events)
    assert decision.extra["policy"] in ("noop", "random")
    assert "the perception call failed (server)" in decision.extra["fallback_reason"]
