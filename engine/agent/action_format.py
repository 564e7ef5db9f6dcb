"""How a model gives its action: free text (the game's own output format), a JSON object, or a native
tool call.

``text`` is the game's prompt unchanged; the game's extractor reads the answer. ``json`` appends an
instruction to answer with one JSON object ``{"thought": ..., "move": ...}`` and
:func:`read_json_answer` reads it. ``tools`` offers one tool, :data:`TOOL_NAME`, whose schema holds the
legal actions (an ``enum`` when there are at most :data:`ENUM_LIMIT` of them, a string otherwise), and
:func:`read_tool_call` reads the call. Either way the move found is then matched to a legal action by
the game, as in text mode, and the parse chain records how it was read.

``json`` is asked for in the prompt only (no ``response_format`` or other constrained decoding), so
it measures the model's own discipline with the format, as ``text`` does; ``tools`` uses each API's
native tool calling (OpenAI ``tool_choice="required"``, Anthropic ``{"type": "any"}``, or ``auto``
with extended thinking, which refuses a forced tool).

Reading never raises and never guesses: an answer without the object or the call is unparsable,
whatever moves its text may name elsewhere (that is how silent substitutions happen).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from engine.agent.parse import Extraction, ParseResult, parse_answer
from engine.core import Game, Seat, State
from engine.llm.base import Tool, ToolCall

FORMATS = ("text", "json", "tools")

#: The tool a model calls to play.
TOOL_NAME = "play_move"
#: Legal actions beyond this many go into the tool's schema as a free string (listed in the prompt).
ENUM_LIMIT = 64

#: Keys a JSON answer may name its move with (the first found wins).
MOVE_KEYS = ("move", "action")

_JSON_INSTRUCTION = (
    "## Answer format\n"
    "Whatever output format is described above, answer with exactly one JSON object and nothing else:\n"
    '{{"thought": "<your brief reasoning>", "move": "<one legal move, written exactly as listed>"}}\n'
    "Legal moves: {legal}"
)
_TOOL_INSTRUCTION = (
    "## Answer format\n"
    f"Whatever output format is described above, play by calling the tool {TOOL_NAME} with your move "
    "(written exactly as listed) and a brief thought.\n"
    "Legal moves: {legal}"
)
#: The most legal moves an instruction lists (the prompt lists them all already).
_LISTED = 80


def instruction(fmt: str, legal: Sequence[str]) -> str:
    """The text appended to the user prompt for ``fmt`` (empty for ``text``)."""
    if fmt == "text":
        return ""
    more = len(legal) - _LISTED
    listed = ", ".join(legal[:_LISTED]) + (f", and {more} more" if more > 0 else "")
    template = _JSON_INSTRUCTION if fmt == "json" else _TOOL_INSTRUCTION
    return template.format(legal=listed)


def move_tool(legal: Sequence[str]) -> Tool:
    """The tool a model plays with: the legal actions as an ``enum`` when few, a string otherwise."""
    move: dict[str, Any] = {"type": "string", "description": "The move, written exactly as a legal move."}
    if 0 < len(legal) <= ENUM_LIMIT:
        move["enum"] = list(dict.fromkeys(legal))
    schema = {
        "type": "object",
        "properties": {
            "thought": {"type": "string", "description": "Brief reasoning behind the move."},
            "move": move,
        },
        "required": ["move"],
    }
    return Tool(TOOL_NAME, "Play one legal move in the game.", schema)


@dataclasses.dataclass(frozen=True, slots=True)
class FormattedAnswer:
    """What a JSON answer or a tool call said: the move (``None`` when it gave none), the thought, and
    why no move could be read."""

    move: str | None
    thought: str = ""
    error: str = ""


def _decode_objects(text: str) -> list[Any]:
    """Every JSON object that starts at a ``{`` in ``text`` (outermost first, in order)."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    at = text.find("{")
    while at != -1:
        try:
            value, end = decoder.raw_decode(text, at)
        except (ValueError, RecursionError):  # not JSON here, or nested beyond what the decoder takes
            at = text.find("{", at + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        at = text.find("{", end)
    return found


def _from_object(value: dict[str, Any], where: str) -> FormattedAnswer:
    thought = value.get("thought")
    thought_text = thought.strip() if isinstance(thought, str) else ""
    for key in MOVE_KEYS:
        if key in value:
            move = value[key]
            if isinstance(move, bool) or move is None:
                return FormattedAnswer(None, thought_text, f"the {where}'s {key!r} is {json.dumps(move)}")
            if isinstance(move, (int, float)):
                move = str(move)
            if not isinstance(move, str):
                return FormattedAnswer(None, thought_text, f"the {where}'s {key!r} is not a string")
            if not move.strip():
                return FormattedAnswer(None, thought_text, f"the {where}'s {key!r} is empty")
            return FormattedAnswer(move.strip(), thought_text)
    return FormattedAnswer(None, thought_text, f"the {where} has no 'move' key")


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def read_json_answer(text: str) -> FormattedAnswer:
    """The move of a JSON answer: the last JSON object in ``text`` (inside a ```json fence or bare)
    that names a move; never raises."""
    if not isinstance(text, str) or not text.strip():
        return FormattedAnswer(None, error="the answer is empty")
    fenced = [m.group(1) for m in _FENCE.finditer(text)]
    objects = [obj for chunk in fenced for obj in _decode_objects(chunk)] or _decode_objects(text)
    if not objects:
        return FormattedAnswer(None, error="no JSON object in the answer")
    with_move = [obj for obj in objects if any(key in obj for key in MOVE_KEYS)]
    return _from_object((with_move or objects)[-1], "JSON object")


def read_tool_call(calls: Sequence[ToolCall]) -> FormattedAnswer:
    """The move of the last :data:`TOOL_NAME` call; never raises."""
    mine = [c for c in calls if c.name == TOOL_NAME]
    if not mine:
        named = ", ".join(sorted({c.name for c in calls}))
        return FormattedAnswer(None, error=f"no {TOOL_NAME} tool call" + (f" (called {named})" if named else
                                                                           " (the model answered in text)"))
    raw = mine[-1].arguments.strip() or "{}"
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return FormattedAnswer(None, error=f"the {TOOL_NAME} arguments are not JSON ({exc.msg})")
    except (ValueError, RecursionError):  # nested beyond what the decoder takes
        return FormattedAnswer(None, error=f"the {TOOL_NAME} arguments are not readable JSON")
    if not isinstance(value, dict):
        return FormattedAnswer(None, error=f"the {TOOL_NAME} arguments are not a JSON object")
    return _from_object(value, f"{TOOL_NAME} call")


def call_text(call: ToolCall) -> str:
    """A tool call as the parse chain and a re-ask show it: ``play_move({"move": "up"})``."""
    return f"{call.name}({call.arguments.strip() or '{}'})"


def reparse(game: Game, state: State, seat: Seat | None, recorded: Mapping[str, Any]) -> ParseResult:
    """The parse chain run again on a recorded parse event (``action_parsed``, ``action_unparsable`` or
    ``action_illegal``), in the action format the answer was given in (its ``format``: a JSON answer
    is read from its object, a tool call from its recorded call), so a re-score after a parser change
    compares like with like; never raises."""
    raw = recorded.get("raw")
    text = raw if isinstance(raw, str) else ""
    fmt = recorded.get("format", "text")
    if fmt == "json":
        found = read_json_answer(text)
    elif fmt == "tools":
        recorded_call = recorded.get("tool_call")
        calls: list[ToolCall] = []
        if isinstance(recorded_call, str) and recorded_call.endswith(")") and "(" in recorded_call:
            name, _, arguments = recorded_call.partition("(")
            calls.append(ToolCall(name, arguments[:-1]))
        found = read_tool_call(calls)
    else:
        return parse_answer(game, state, seat, text)
    return parse_answer(game, state, seat, text,
                        extraction=Extraction(found.move, error=found.error, thought=found.thought))
