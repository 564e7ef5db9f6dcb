"""LVLM-Playground's offline task sets: perceiving, question answering and rule following.

A game with task definitions declares ``Game.tasks = ".lvlm"``: a module in its package with
``MATRIX_SHAPE``, ``MATRIX_RANGE``, ``random_board``, ``random_legal``, ``matrix``, ``questions``,
``valid_moves``, ``read_move`` and ``PROMPTS``. This module builds task sets from them, reads and
scores answers the way the paper does, and weighs per-game scores into the paper's overall score.
It names no game: everything game-specific comes from the declaration through :meth:`Game.load`.

* :func:`generate` draws ``n`` items reproducibly: item ``k`` comes from its own random generator
  seeded with ``(game, task, seed, k)``, so the first items of a large set equal a small set's;
* :func:`write_task_set` writes ``manifest.json`` (sorted keys, no timestamps), ``images/`` (a renderer
  the caller passes in draws them) and a ``README.md``; :func:`load_task_set` reads it back;
* :func:`score` parses one reply and scores it: perceiving by cell accuracy (an unparsable or wrongly
  sized matrix scores 0), QA by exact letter match, rule following by the move's validity;
* :func:`random_answer` is the paper's random baseline and :func:`sim_answer` the (labelled) simulated
  model's reply, both in the paper's output formats so they go through a real model's parsers;
* :func:`evaluate` runs a player (``random``, ``sim``, ``openai:…``, ``anthropic:…``, ``local:…``) over
  a set concurrently, recording API faults per item;
* :func:`overall` weighs per-game scores by the reference code's ability ratings (spec §1.3, §2.0).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import math
import os
import random
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from engine import safeio
from engine.core import Game, JsonDict, Seat, State
from engine.llm.base import LLMError, ModelUnusable

__all__ = [
    "DEFAULT_IMAGE_SIZE", "GAME_RATINGS", "ItemResult", "PAPER_RANDOM", "RESULTS_FORMAT", "SET_FORMAT",
    "TASK_ABILITIES", "TASK_NAMES", "TaskError", "TaskItem", "TaskSet", "TaskSetError", "definitions",
    "difficulty", "evaluate", "game_weight", "games_with_tasks", "generate", "load_results",
    "load_task_set", "move_vocabulary", "overall", "parse_letter", "parse_matrix", "player_slug",
    "random_answer", "regenerate_command", "results_json", "rule_difficulty", "score", "sim_answer",
    "write_results", "write_task_set",
]

TASK_NAMES = ("perceive", "qa", "rules")
SET_FORMAT = "playtrace-tasks"
RESULTS_FORMAT = "playtrace-task-results"
VERSION = 1
#: The image size items are drawn at unless told otherwise (width, height).
DEFAULT_IMAGE_SIZE = (512, 512)
LETTERS = "ABCD"

#: The reference code's ``GAME_RATINGS`` (Table 6 rounded to halves): Perception, Reasoning,
#: Decision and Adversary per game (spec §1.3). Hard-coded, as the spec says, not recomputed.
GAME_RATINGS: dict[str, dict[str, float]] = {
    "tictactoe": {"P": 0.5, "R": 0.5, "D": 0.5, "A": 0.5},
    "minesweeper": {"P": 4.0, "R": 5.0, "D": 3.0, "A": 0.0},
    "gomoku": {"P": 5.0, "R": 4.0, "D": 3.5, "A": 4.0},
    "sudoku": {"P": 3.5, "R": 2.0, "D": 2.0, "A": 0.0},
    "chess": {"P": 3.5, "R": 3.0, "D": 5.0, "A": 5.0},
    "reversi": {"P": 1.5, "R": 1.5, "D": 2.5, "A": 2.5},
}
#: The abilities each task draws on (spec §2.0, the reference's ``TASK_ABILITIES``).
TASK_ABILITIES: dict[str, tuple[str, ...]] = {
    "perceive": ("P",),
    "qa": ("P", "R"),
    "rules": ("P", "R", "D"),
    "e2e": ("P", "R", "D", "A"),
}
#: The paper's random baselines (Tables 2-4), shown beside a measured random row.
PAPER_RANDOM: dict[str, dict[str, float]] = {
    "perceive": {"tictactoe": 0.332, "reversi": 0.333, "sudoku": 0.103, "minesweeper": 0.093,
                 "gomoku": 0.332, "chess": 0.079},
    "qa": {"tictactoe": 0.256, "reversi": 0.267, "sudoku": 0.268, "minesweeper": 0.281,
           "gomoku": 0.277, "chess": 0.264},
    "rules": {"tictactoe": 0.342, "reversi": 0.127, "sudoku": 0.214, "minesweeper": 0.422,
              "gomoku": 0.508, "chess": 0.014},
}

_DEFINITIONS = ("MATRIX_SHAPE", "MATRIX_RANGE", "random_board", "random_legal", "matrix",
                "questions", "valid_moves", "read_move", "PROMPTS")


class TaskError(ValueError):
    """A task cannot be made or run as asked (unknown task, a game without task definitions)."""


class TaskSetError(TaskError):
    """A folder is not a task set (or a results file is not one); the message says why."""


# -- the records --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class TaskItem:
    """One item: the state drawn in ``image`` (a path relative to the set's folder), the prompt sent
    with it, the QA question and options (``None`` for the other tasks) and the ground truth (a
    matrix, a letter, or the list of valid moves)."""

    id: str
    image: str
    state: JsonDict
    seat: Seat
    prompt: str
    question: str | None
    options: tuple[str, ...] | None
    truth: Any

    def to_json(self) -> JsonDict:
        return {"id": self.id, "image": self.image, "state": self.state, "seat": self.seat,
                "prompt": self.prompt, "question": self.question,
                "options": list(self.options) if self.options is not None else None, "truth": self.truth}


@dataclasses.dataclass(frozen=True, slots=True)
class TaskSet:
    """A task set: ``n`` items of one task of one game, reproducible from ``seed`` and ``options``
    (the game's options). ``path`` is the folder it was written to or read from, if any."""

    game: str
    task: str
    n: int
    seed: int
    options: JsonDict
    image_size: tuple[int, int]
    items: tuple[TaskItem, ...]
    path: Path | None = None

    def make_game(self) -> Game:
        from engine.registry import make

        return make(self.game, **self.options)

    def state(self, item: TaskItem) -> State:
        """The item's state rebuilt."""
        return self.make_game().state_from_json(item.state)

    def image_path(self, item: TaskItem) -> Path:
        """Where ``item``'s image is: always inside the task set's folder (never ``/etc/…`` or ``../``).

        Raises:
            TaskSetError: the set has no folder, or the item names a path that leaves it.
        """
        if self.path is None:
            raise TaskSetError("this task set has not been written to a folder; it has no images")
        try:
            return safeio.inside(self.path, item.image, what=f"item {item.id}'s image")
        except safeio.InputError as exc:
            raise TaskSetError(str(exc)) from None

    def image_bytes(self, item: TaskItem) -> bytes:
        """The PNG of ``item``: a regular file inside the set, at most :data:`MAX_IMAGE_BYTES`.

        Raises:
            TaskSetError: see :meth:`image_path`; or the image is missing, not a regular file or too big.
        """
        path = self.image_path(item)
        try:
            return safeio.read_bytes(path, cap=MAX_IMAGE_BYTES, what=f"item {item.id}'s image")
        except FileNotFoundError:
            raise TaskSetError(f"item {item.id}'s image {path} does not exist") from None
        except safeio.InputError as exc:
            raise TaskSetError(str(exc)) from None

    def manifest(self, version: str = "") -> JsonDict:
        w, h = self.image_size
        return {"format": SET_FORMAT, "version": VERSION, "game": self.game, "task": self.task,
                "n": self.n, "seed": self.seed, "playtrace": version or _playtrace_version(),
                "game_options": self.options, "image": {"width": w, "height": h},
                "items": [item.to_json() for item in self.items]}


@dataclasses.dataclass(slots=True)
class ItemResult:
    """How one reply scored: ``parsed`` is what was read from ``answer`` (a matrix, a letter, a move)
    or ``None``; ``error`` says why nothing could be read, or names the API fault."""

    id: str
    answer: str
    parsed: Any
    score: float
    correct: bool
    error: str | None = None
    latency_s: float | None = None

    def to_json(self) -> JsonDict:
        answer = self.answer
        if len(answer) > MAX_ANSWER_CHARS:  # a 50 MB answer is kept as its start, marked as cut
            answer = answer[:MAX_ANSWER_CHARS] + f"… [cut: {len(self.answer):,} characters in all]"
        return {"id": self.id, "answer": answer, "parsed": self.parsed, "score": self.score,
                "correct": self.correct, "error": self.error,
                "latency_s": None if self.latency_s is None else round(self.latency_s, 4)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ItemResult:
        return cls(str(data["id"]), str(data.get("answer") or ""), data.get("parsed"),
                   float(data.get("score") or 0.0), bool(data.get("correct")), data.get("error"),
                   data.get("latency_s"))


def _playtrace_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("playtrace")
    except metadata.PackageNotFoundError:
        return "0+unknown"


# -- the game's definitions -----------------------------------------------------------------------------


def _check_task(task: str) -> None:
    if task not in TASK_NAMES:
        raise TaskError(f"unknown task {task!r}; choose from: {', '.join(TASK_NAMES)}")


class Definitions:
    """A game's task definitions, loaded through its declaration (attribute access by name)."""

    #: The board matrix's shape (rows, columns) and its value range (low, high) in the perceive task.
    MATRIX_SHAPE: tuple[int, int]
    MATRIX_RANGE: tuple[int, int]
    #: The task prompts by task name (``perceive``, ``qa``, ``rules``).
    PROMPTS: Mapping[str, str]
    #: A random position for the perceive and QA tasks.
    random_board: Callable[[random.Random], State]
    #: A random position where a seat is to move, for the rule-following task.
    random_legal: Callable[[random.Random], tuple[State, Seat]]
    #: The board as the perceive task's matrix of numbers.
    matrix: Callable[[State], Sequence[Sequence[int]]]
    #: QA questions about a position: (question, kind, answer options).
    questions: Callable[[State, random.Random], Sequence[tuple[str, str, list[str]]]]
    #: A model's answer as the game's move name (``"B2"``), or ``None`` when it names none.
    read_move: Callable[[str], str | None]
    #: Every move ``seat`` may make in ``state``, by name.
    valid_moves: Callable[[State, Seat], list[str]]

    def __init__(self, cls: type[Game]) -> None:
        self.cls = cls
        for name in _DEFINITIONS:
            setattr(self, name, cls.load(f"{cls.tasks}:{name}"))
        self.rows, self.cols = (int(v) for v in self.MATRIX_SHAPE)
        self.low, self.high = (int(v) for v in self.MATRIX_RANGE)


_LOADED: dict[type[Game], Definitions] = {}


def definitions(game_id: str) -> Definitions:
    """The task definitions of ``game_id``.

    Raises:
        TaskError: the game is unknown, unavailable, or declares no tasks.
    """
    from engine.core import UnknownGameError
    from engine.registry import declaration

    try:
        cls = declaration(game_id)
    except UnknownGameError as exc:
        raise TaskError(str(exc)) from None
    if not cls.tasks:
        with_tasks = ", ".join(games_with_tasks()) or "none"
        raise TaskError(f"{cls.title} has no LVLM-Playground tasks; games with tasks: {with_tasks}")
    found = _LOADED.get(cls)
    if found is None:
        try:
            found = _LOADED[cls] = Definitions(cls)
        except (ImportError, AttributeError) as exc:
            raise TaskError(f"{cls.title}'s task definitions cannot be loaded: {exc}") from None
    return found


def games_with_tasks() -> list[str]:
    """The ids of the playable games that declare task definitions, sorted."""
    from engine.registry import entries

    return [e.id for e in entries(include_unavailable=False) if e.cls is not None and e.cls.tasks]


# -- generation -----------------------------------------------------------------------------------------


def _item_rng(game_id: str, task: str, seed: int, index: int) -> random.Random:
    # String seeds are hashed with SHA-512 by random.seed: stable across runs and platforms.
    return random.Random(f"playtrace-tasks:{game_id}:{task}:{seed}:{index}")


def _lettered(question: str, options: Sequence[str]) -> str:
    return question + "\n" + "\n".join(f"{LETTERS[i]}. {opt}" for i, opt in enumerate(options))


def _make_item(defs: Definitions, task: str, index: int, rng: random.Random, width: int) -> TaskItem:
    item_id = f"{index + 1:0{width}d}"
    image = f"images/{item_id}.png"
    template = str(defs.PROMPTS[task])
    if task == "rules":
        state, seat = defs.random_legal(rng)
        truth: Any = list(defs.valid_moves(state, seat))
        return TaskItem(item_id, image, state.to_json(), seat, template, None, None, truth)
    state = defs.random_board(rng)
    if task == "perceive":
        truth = [[int(v) for v in row] for row in defs.matrix(state)]
        return TaskItem(item_id, image, state.to_json(), 0, template, None, None, truth)
    pool = list(defs.questions(state, rng))
    if not pool:
        raise TaskError(f"{defs.cls.title}'s question pool asked nothing of a board")
    question, answer, distractors = pool[rng.randrange(len(pool))]
    wrong = [d for d in dict.fromkeys(str(d) for d in distractors) if d != str(answer)][:3]
    options = [str(answer), *wrong]
    rng.shuffle(options)
    lettered = _lettered(question, options)
    prompt = template.replace("{question}", lettered)
    truth = LETTERS[options.index(str(answer))]
    return TaskItem(item_id, image, state.to_json(), 0, prompt, lettered, tuple(options), truth)


def generate(game_id: str, task: str, n: int, seed: int, *, options: Mapping[str, Any] | None = None,
             image_size: tuple[int, int] = DEFAULT_IMAGE_SIZE) -> TaskSet:
    """Draw ``n`` items of ``task`` for ``game_id`` (no images: :func:`write_task_set` draws them).

    Raises:
        TaskError: an unknown task, a game without tasks, ``n`` below 1, or bad game options.
    """
    from engine.options import OptionError

    _check_task(task)
    if n < 1:
        raise TaskError("a task set needs at least one item (n >= 1)")
    defs = definitions(game_id)
    try:
        game = defs.cls(**dict(options or {}))
    except OptionError as exc:
        raise TaskError(str(exc)) from None
    width = max(4, len(str(n)))
    items = tuple(_make_item(defs, task, k, _item_rng(game_id, task, seed, k), width) for k in range(n))
    size = (int(image_size[0]), int(image_size[1]))
    return TaskSet(game_id, task, n, int(seed), dict(game.options), size, items)


# -- writing and reading sets ---------------------------------------------------------------------------


def _dump(data: Any) -> str:
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def regenerate_command(ts: TaskSet, out: str = "DIR") -> str:
    defaults = definitions(ts.game).cls().options
    opts = "".join(f" --option {k}={json.dumps(v) if not isinstance(v, str) else v}"
                   for k, v in sorted(ts.options.items()) if defaults.get(k, object()) != v)
    w, h = ts.image_size
    size = "" if (w, h) == DEFAULT_IMAGE_SIZE else f" --size {w}x{h}"
    head = f"playtrace tasks generate {ts.game} --task {ts.task} --n {ts.n} --seed {ts.seed}"
    return f"{head}{opts}{size} --out {out}"


_HOW_SCORED = {
    "perceive": "cell accuracy: the matrix after `Game State:` is read (every integer in it); a reply "
    "whose count of numbers differs from rows x cols, or with a value outside the legal range, "
    "scores 0; otherwise the share of cells equal to the truth.",
    "qa": "exact match of the option letter (A-D), read from `Final Answer: X`, `\\boxed{X}`, "
    "`Answer: X`, `[X]` or else the first standalone letter A-D; a reply without a letter is wrong.",
    "rules": "valid-move rate: the move after `Movement:` is read with the game's own reader and is "
    "valid when it is one of the item's valid moves (case-insensitive).",
}


def _readme(ts: TaskSet, title: str) -> str:
    w, h = ts.image_size
    lines = [
        f"# {title} - LVLM-Playground {ts.task} task set",
        "",
        f"- game: `{ts.game}` ({title}), options: `{json.dumps(ts.options, sort_keys=True)}`",
        f"- task: `{ts.task}`; {ts.n} items; seed {ts.seed}; images {w}x{h} PNG in `images/`",
        f"- regenerate (byte-identical): `{regenerate_command(ts)}`",
        "- generated by PlayTrace from the game's task definitions: item k draws its board from its "
        "own random generator seeded with (game, task, seed, k), so a larger set starts with the "
        "items of a smaller one.",
        f"- scoring: {_HOW_SCORED[ts.task]}",
        "- evaluate: `playtrace tasks eval DIR --player sim` (or random, openai:MODEL, ...); results go "
        "to `results/`; `playtrace tasks report DIR...` prints the tables.",
        "",
        "`manifest.json` holds every item: its state, the prompt sent with its image, and its truth.",
        "",
        "| id | image | truth |",
        "|---|---|---|",
    ]
    for item in ts.items[:10]:
        truth = item.truth
        if ts.task == "perceive":
            shown = f"{len(truth)}x{len(truth[0]) if truth else 0} matrix"
        elif ts.task == "qa":
            shown = f"{truth} ({item.options[LETTERS.index(truth)] if item.options else ''})"
            q = (item.question or "").split("\n", 1)[0].replace("|", "/")
            shown = f"{q} -> {shown}"
        else:
            shown = f"{len(truth)} valid moves"
        lines.append(f"| {item.id} | [{item.image}]({item.image}) | {shown} |")
    if ts.n > 10:
        lines.append(f"| ... | {ts.n - 10} more | |")
    return "\n".join(lines) + "\n"


def write_task_set(ts: TaskSet, folder: str | Path,
                   render: Callable[[State, int, int], bytes] | None = None, *,
                   on_item: Callable[[int], None] | None = None) -> Path:
    """Write ``ts`` to ``folder``: ``manifest.json``, ``README.md`` and (with ``render``, which draws
    a state as PNG bytes) ``images/``. Returns the folder. ``on_item(k)`` follows the images."""
    out = Path(folder)
    (out / "images").mkdir(parents=True, exist_ok=True)
    game = ts.make_game()
    if render is not None:
        w, h = ts.image_size
        for k, item in enumerate(ts.items):
            (out / item.image).write_bytes(render(game.state_from_json(item.state), w, h))
            if on_item is not None:
                on_item(k + 1)
    (out / "manifest.json").write_text(_dump(ts.manifest()), encoding="utf-8")
    (out / "README.md").write_text(_readme(ts, game.title), encoding="utf-8")
    return out


#: A task set's manifest (1,000 items with their states and prompts is a few megabytes).
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
#: One item's image.
MAX_IMAGE_BYTES = 32 * 1024 * 1024


def _read_json(path: Path, what: str) -> Any:
    try:
        return safeio.read_json(path, cap=MAX_MANIFEST_BYTES)
    except FileNotFoundError:
        raise TaskSetError(f"{path} does not exist: {what}") from None
    except safeio.InputError as exc:
        raise TaskSetError(str(exc)) from None
    except OSError as exc:
        raise TaskSetError(f"{path} cannot be read: {exc.strerror or exc}") from None


def load_task_set(folder: str | Path) -> TaskSet:
    """Read a task set written by :func:`write_task_set` (``folder`` or its ``manifest.json``).

    Raises:
        TaskSetError: the folder holds no readable task set; the message says what is wrong.
    """
    path = Path(folder)
    if path.name == "manifest.json":
        path = path.parent
    if not path.is_dir():
        raise TaskSetError(f"{path} is not a folder (expected a task set from `playtrace tasks generate`)")
    data = _read_json(path / "manifest.json", "not a task set (no manifest.json)")
    if not isinstance(data, dict) or data.get("format") != SET_FORMAT:
        raise TaskSetError(f"{path / 'manifest.json'} is not a PlayTrace task set")
    if data.get("version") != VERSION:
        raise TaskSetError(f"{path} is task-set version {data.get('version')}; PlayTrace reads {VERSION}")
    try:
        task = str(data["task"])
        _check_task(task)
        items = tuple(
            TaskItem(str(d["id"]), str(d["image"]), d["state"], int(d.get("seat") or 0), str(d["prompt"]),
                     d.get("question"), tuple(d["options"]) if d.get("options") is not None else None,
                     d["truth"])
            for d in data["items"]
        )
        image = data.get("image") or {}
        size = (int(image.get("width", 512)), int(image.get("height", 512)))
        loaded = TaskSet(str(data["game"]), task, int(data["n"]), int(data["seed"]),
                         dict(data.get("game_options") or {}), size, items, path)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise TaskSetError(f"{path / 'manifest.json'} is damaged: {exc}") from None
    for item in loaded.items:
        loaded.image_path(item)  # every image stays inside the set, checked before anything is asked
    return loaded


# -- parsing and scoring -----------------------------------------------------------------------------------

_GAME_STATE = re.compile(r"game[ \t]*state[ \t]*[*_`]*[ \t]*[:：]", re.IGNORECASE)
_FENCE = re.compile(r"```[a-zA-Z]*\n?(.*?)```", re.DOTALL)
_INT = re.compile(r"-?\d+")


def _bracket_block(text: str) -> str | None:
    """The first ``[[ ... ]]`` block (balanced), or up to the end when it is never closed."""
    start = text.find("[")
    if start < 0:
        return None
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "[":
            depth += 1
        elif text[i] == "]":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return text[start:]


def parse_matrix(text: str, shape: tuple[int, int], value_range: tuple[int, int]
                 ) -> tuple[list[list[int]] | None, str | None]:
    """Read a ``Game State:`` matrix as the reference parser does: ``[[...]]`` (after the last
    ``Game State:`` when there is one) or a fenced code block, then every integer in it; the count
    must be ``rows * cols`` and every value within ``value_range``. Returns ``(matrix, None)`` or
    ``(None, why)``; never raises."""
    rows, cols = shape
    low, high = value_range
    region = text
    marks = list(_GAME_STATE.finditer(text))
    if marks:
        region = text[marks[-1].end() :]
    block = _bracket_block(region)
    if block is None:
        fenced = _FENCE.search(region)
        block = fenced.group(1) if fenced else (region if marks else None)
    if block is None:
        return None, "no matrix found (expected `Game State: [[...]]`)"
    numbers = [int(x) for x in _INT.findall(block)[: rows * cols + 1]]
    if len(numbers) != rows * cols:
        found = len(_INT.findall(block))
        return None, f"expected a {rows}x{cols} matrix ({rows * cols} numbers), found {found}"
    bad = [v for v in numbers if not low <= v <= high]
    if bad:
        return None, f"value {bad[0]} is outside {low}..{high}"
    return [numbers[r * cols : (r + 1) * cols] for r in range(rows)], None


# The option letter itself is always a capital (``(?-i:…)``): "the final answer: a cell…" names none.
_LETTER_PATTERNS = (
    re.compile(r"final[ \t]*answer[^A-Za-z\n]{0,20}?(?:\\boxed\{[ \t]*)?\(?\b((?-i:[A-D]))\b", re.IGNORECASE),
    re.compile(r"\\boxed\{[ \t]*\(?([A-D])\b"),
    re.compile(r"answer[ \t]*[*_`]*[ \t]*[:：][ \t]*[*_`(\[]*[ \t]*((?-i:[A-D]))\b", re.IGNORECASE),
    re.compile(r"\[([A-D])\]"),
    re.compile(r"(?<![A-Za-z0-9])([A-D])(?![A-Za-z0-9])"),
)


def parse_letter(text: str) -> str | None:
    """The option letter of a QA reply, as the reference tries in turn: ``Final Answer…X`` (also in
    ``\\boxed{}``), ``\\boxed{X}``, ``Answer: X``, ``[X]``, the first standalone A-D. Never raises."""
    for pattern in _LETTER_PATTERNS:
        found = pattern.search(text)
        if found:
            return found.group(1).upper()
    return None


def score(ts: TaskSet, item: TaskItem, answer: str, *, latency_s: float | None = None) -> ItemResult:
    """Parse ``answer`` (a model's raw reply) and score it against ``item``'s truth."""
    defs = definitions(ts.game)
    text = answer or ""
    if ts.task == "perceive":
        found, why = parse_matrix(text, (defs.rows, defs.cols), (defs.low, defs.high))
        if found is None:
            return ItemResult(item.id, text, None, 0.0, False, why, latency_s)
        truth = item.truth
        cells = defs.rows * defs.cols
        same = sum(1 for r in range(defs.rows) for c in range(defs.cols) if found[r][c] == truth[r][c])
        return ItemResult(item.id, text, found, same / cells, same == cells, None, latency_s)
    if ts.task == "qa":
        letter = parse_letter(text)
        if letter is None:
            return ItemResult(item.id, text, None, 0.0, False, "no option letter (A-D) found", latency_s)
        ok = letter == item.truth
        return ItemResult(item.id, text, letter, 1.0 if ok else 0.0, ok, None, latency_s)
    try:
        move = defs.read_move(text)
    except Exception as exc:  # noqa: BLE001  (a game's reader must never end an evaluation)
        move, why = None, f"the move reader failed: {type(exc).__name__}"
    else:
        why = "no move found after `Movement:`"
    if not move:
        return ItemResult(item.id, text, None, 0.0, False, why, latency_s)
    valid = {str(m).lower() for m in item.truth}
    ok = str(move).lower() in valid
    return ItemResult(item.id, text, move, 1.0 if ok else 0.0, ok, None, latency_s)


# -- the random baseline and the simulated model ---------------------------------------------------------

_VOCAB: dict[str, tuple[str, ...]] = {}
#: How many random legal positions a game's move vocabulary is collected from.
VOCAB_POSITIONS = 60


def move_vocabulary(game_id: str) -> tuple[str, ...]:
    """Every move name the game's rule-following items use: the valid moves of
    :data:`VOCAB_POSITIONS` random legal positions drawn from a fixed seed, united and sorted. The
    random baseline answers a move drawn uniformly from it, unfiltered by legality (for board games
    a random cell, for Sudoku a random cell and digit, for chess a random SAN move seen in play)."""
    found = _VOCAB.get(game_id)
    if found is None:
        defs = definitions(game_id)
        moves: set[str] = set()
        for k in range(VOCAB_POSITIONS):
            state, seat = defs.random_legal(random.Random(f"playtrace-vocabulary:{game_id}:{k}"))
            moves.update(str(m) for m in defs.valid_moves(state, seat))
        found = _VOCAB[game_id] = tuple(sorted(moves))
    return found


def _matrix_text(rows: Sequence[Sequence[int]]) -> str:
    return "[" + ", ".join("[" + ", ".join(str(v) for v in row) + "]" for row in rows) + "]"


def random_answer(ts: TaskSet, item: TaskItem, rng: random.Random) -> str:
    """The paper's random baseline for ``item``, in the task's output format: a matrix of uniformly
    random legal values of the right shape; a random option letter; a random move of the game's
    vocabulary (:func:`move_vocabulary`)."""
    defs = definitions(ts.game)
    if ts.task == "perceive":
        rows = [[rng.randint(defs.low, defs.high) for _ in range(defs.cols)] for _ in range(defs.rows)]
        return f"Game State: {_matrix_text(rows)}"
    if ts.task == "qa":
        count = len(item.options or LETTERS)
        return f"Answer: {LETTERS[rng.randrange(count)]}"
    return f"Movement: {rng.choice(move_vocabulary(ts.game))}"


def difficulty(game_id: str) -> float:
    """How hard the board is to read, 0 (3x3) to 1 (15x15), from the number of cells."""
    defs = definitions(game_id)
    return min(1.0, max(0.0, (defs.rows * defs.cols - 9) / (225 - 9)))


def rule_difficulty(game_id: str) -> float:
    """How hard the game's rules are, 0 to 1: its rule-following weight (perception + reasoning +
    decision ratings) placed between the easiest and the hardest of the paper's games; a game
    outside the paper falls back to :func:`difficulty`."""
    if game_id not in GAME_RATINGS:
        return difficulty(game_id)
    weights = [game_weight(g, "rules") for g in GAME_RATINGS]
    low, high = min(weights), max(weights)
    return (game_weight(game_id, "rules") - low) / (high - low)


def sim_answer(ts: TaskSet, item: TaskItem, rng: random.Random) -> str:
    """The simulated model's reply (offline, labelled simulated): written from the truth with errors
    that grow with the board. Perceiving misreads each cell with a probability from 1% (3x3) to 25%
    (15x15) and, on big boards, sometimes drops or repeats a row; QA is right with probability 0.85 on
    small boards down to 0.4 on 15x15; rule following gives a valid move with probability 0.95 for the
    easiest rules down to 0.45 for the hardest (:func:`rule_difficulty`), otherwise a random move of
    the game's vocabulary (valid only by chance, as the random baseline's). About 2% of replies break
    the format."""
    defs = definitions(ts.game)
    t = difficulty(ts.game)
    if rng.random() < 0.02:
        return "I am not able to read the board clearly from this screenshot."
    if ts.task == "perceive":
        p_miss = 0.01 + 0.24 * t
        rows = [[rng.randint(defs.low, defs.high) if rng.random() < p_miss else v for v in row]
                for row in item.truth]
        if rng.random() < 0.15 * t:
            at = rng.randrange(len(rows))
            if rng.random() < 0.5:
                rows.insert(at, list(rows[at]))
            else:
                del rows[at]
        return f"Game State: {_matrix_text(rows)}"
    if ts.task == "qa":
        count = len(item.options or LETTERS)
        letter = str(item.truth)
        if rng.random() >= 0.85 - 0.45 * t and count > 1:
            letter = rng.choice([x for x in LETTERS[:count] if x != letter])
        return f"Looking at the board in the screenshot.\nAnswer: {letter}"
    valid = list(item.truth)
    if valid and rng.random() < 0.95 - 0.5 * rule_difficulty(ts.game):
        move = rng.choice(valid)
    else:  # the board misread: a move of the game's vocabulary, valid only by chance
        move = rng.choice(move_vocabulary(ts.game))
    return f"Movement: {move}"


# -- results -------------------------------------------------------------------------------------------


def player_slug(player: str) -> str:
    """A file name for a player spec (``openai:gpt-4o`` → ``openai-gpt-4o``); a URL's password is
    dropped with the rest of the URL."""
    head = player.split("@", 1)[0]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", head).strip("-.")
    return slug or "player"


def results_json(ts: TaskSet, player: str, label: str, results: Sequence[ItemResult]) -> JsonDict:
    """The results record of one player on a task set (the shared results format); a password in
    the player's base URL is masked."""
    from engine.llm.factory import public_spec

    scored = [r for r in results if not (r.error or "").startswith("api:")]
    mean = sum(r.score for r in scored) / len(scored) if scored else 0.0
    return {
        "format": RESULTS_FORMAT, "version": VERSION, "game": ts.game, "task": ts.task,
        "player": public_spec(player), "label": label, "set": {"n": ts.n, "seed": ts.seed},
        "score": round(mean, 6), "scored": len(scored),
        "format_errors": sum(1 for r in scored if r.parsed is None),
        "api_errors": len(results) - len(scored),
        "items": [r.to_json() for r in results],
    }


def write_results(folder: str | Path, ts: TaskSet, player: str, label: str,
                  results: Sequence[ItemResult]) -> Path:
    """Write ``folder/results/<player-slug>.json`` (whole or not at all) and return its path."""
    out = Path(folder) / "results"
    out.mkdir(parents=True, exist_ok=True)
    path, tmp = out / f"{player_slug(player)}.json", out / f".{player_slug(player)}.json.tmp"
    tmp.write_text(_dump(results_json(ts, player, label, results)), encoding="utf-8")
    os.replace(tmp, path)
    return path


def load_results(path: str | Path) -> JsonDict:
    """Read a results file.

    Raises:
        TaskSetError: it is not a readable PlayTrace results file.
    """
    p = Path(path)
    data = _read_json(p, "not a results file")
    if not isinstance(data, dict) or data.get("format") != RESULTS_FORMAT:
        raise TaskSetError(f"{p} is not a PlayTrace task-results file")
    for key in ("game", "task", "player", "score"):
        if key not in data:
            raise TaskSetError(f"{p} is damaged: it has no {key!r}")
    return data


# -- weighting -------------------------------------------------------------------------------------------


def game_weight(game_id: str, task: str) -> float:
    """The weight of ``game_id`` in ``task``'s overall score: the sum of its reference ratings over
    the task's abilities; a game outside the paper weighs 1."""
    ratings = GAME_RATINGS.get(game_id)
    if ratings is None:
        return 1.0
    return float(sum(ratings[a] for a in TASK_ABILITIES[task]))


def overall(per_game: Mapping[str, float], task: str) -> float:
    """The difficulty-weighted overall score: Σ w·M / Σ w over the games given (a game of weight 0
    adds 1 to the denominator, as in the reference). ``nan`` for no games."""
    if task not in TASK_ABILITIES:
        raise TaskError(f"unknown task {task!r}")
    num = den = 0.0
    for game_id, value in per_game.items():
        w = game_weight(game_id, task)
        num += w * float(value)
        den += w if w > 0 else 1.0
    return num / den if den else math.nan


# -- running a player ------------------------------------------------------------------------------------

#: Called after each item with (done, total, result).
OnResult = Callable[[int, int, ItemResult], None]


async def evaluate(ts: TaskSet, player: str, *, concurrency: int = 4, limit: int | None = None,
                   on_result: OnResult | None = None, timeout_s: float | None = None,
                   max_tokens: int = 1024, temperature: float | None = None,
                   done_before: Mapping[str, ItemResult] | None = None) -> list[ItemResult]:
    """Run ``player`` over the items of ``ts`` (the first ``limit``) and score every reply.

    ``random`` and ``sim`` answer offline from a generator seeded by the set and the item (so a
    rerun gives the same results); model specs go through :func:`engine.llm.factory.make_client`
    with the item's image. A failed call is recorded on its item (``error`` ``"api: …"``, score 0,
    left out of the mean) and never ends the run, except a rejected key or an unknown model, which no
    item can get past: that raises :class:`~engine.llm.base.ModelUnusable` at once.

    ``done_before``: items answered by an earlier, interrupted run (see :class:`AnswerLog`); they are
    not asked again.

    Raises:
        TaskError: an unknown player spec, or a client that cannot be built (no key).
        ModelUnusable: the model refused the key or does not exist.
    """
    all_items = ts.items[: limit] if limit else ts.items
    spec = player.strip()
    done = 0
    results: dict[str, ItemResult] = {
        i.id: done_before[i.id] for i in all_items if done_before and i.id in done_before
    }
    items = tuple(i for i in all_items if i.id not in results)

    def record(result: ItemResult) -> None:
        nonlocal done
        done += 1
        results[result.id] = result
        if on_result is not None:
            on_result(done, len(items), result)

    if not items:
        return [results[i.id] for i in all_items]

    if spec in ("random", "sim") or spec.startswith("sim:"):
        offline = random_answer if spec == "random" else sim_answer
        for item in items:
            rng = random.Random(f"playtrace-{spec}:{ts.game}:{ts.task}:{ts.seed}:{item.id}")
            started = time.perf_counter()
            answer = offline(ts, item, rng)
            record(score(ts, item, answer, latency_s=time.perf_counter() - started))
        return [results[i.id] for i in all_items]
    ask = _model_caller(spec, timeout_s=timeout_s, max_tokens=max_tokens, temperature=temperature)
    gate = asyncio.Semaphore(max(1, concurrency))

    refused: list[ModelUnusable] = []

    async def one(item: TaskItem) -> None:
        async with gate:
            if refused:  # the model refused the key: nothing more is asked
                return
            png = ts.image_bytes(item)  # a refused image stops the run: the set's fault, not the model's
            started = time.perf_counter()
            try:
                answer = await ask(item.prompt, png)
            except LLMError as exc:
                if exc.is_run_error:
                    refused.append(ModelUnusable(exc))
                    raise refused[-1] from None
                record(ItemResult(item.id, "", None, 0.0, False, f"api: {_api_why(exc)}",
                                  time.perf_counter() - started))
                return
            except Exception as exc:  # noqa: BLE001  (an API fault is recorded on its item)
                from engine.llm.keys import redact

                why = str(redact(f"{type(exc).__name__}: {exc}".splitlines()[0]))
                record(ItemResult(item.id, "", None, 0.0, False, f"api: {why}",
                                  time.perf_counter() - started))
                return
            record(score(ts, item, answer, latency_s=time.perf_counter() - started))

    tasks = [asyncio.ensure_future(one(item)) for item in items]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        # A refused key (or a stop): the items still waiting are not asked.
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    finally:
        await ask.close()  # type: ignore[attr-defined]
    return [results[i.id] for i in all_items]


def _api_why(exc: BaseException) -> str:
    from engine.llm.keys import redact

    return str(redact(f"{type(exc).__name__}: {exc}".splitlines()[0]))


#: An answer kept in a results file or an answer log is cut to this many characters (and marked).
MAX_ANSWER_CHARS = 64 * 1024


class AnswerLog:
    """``results/.<player>.answers.jsonl``: each answer of a running ``tasks eval``, one JSON line,
    written and flushed as it comes, so a killed run loses nothing answered; the next run reads it
    back (:meth:`load`) and asks only the rest. API failures are not kept: they are asked again.
    A first line names the set and the player, so a log of another set is never mixed in.
    """

    def __init__(self, folder: str | Path, ts: TaskSet, player: str) -> None:
        self.path = Path(folder) / "results" / f".{player_slug(player)}.answers.jsonl"
        self.header = {"format": "playtrace-task-answers", "game": ts.game, "task": ts.task, "n": ts.n,
                       "seed": ts.seed, "player": player_slug(player)}
        self._fh: Any = None

    def load(self) -> dict[str, ItemResult]:
        """The answers kept by an earlier run of the same player on the same set (a torn last line
        and anything unreadable are skipped)."""
        try:
            data = safeio.read_bytes(self.path, cap=1024 * 1024 * 1024)
        except FileNotFoundError:
            return {}
        lines = data.decode("utf-8", "replace").splitlines()
        try:
            if not lines or json.loads(lines[0]) != self.header:
                return {}
        except ValueError:
            return {}
        kept: dict[str, ItemResult] = {}
        for line in lines[1:]:
            try:
                item = ItemResult.from_json(json.loads(line))
            except (ValueError, KeyError, TypeError, RecursionError):
                continue  # a line cut by the kill
            kept[item.id] = item
        return kept

    def open(self, kept: Mapping[str, ItemResult]) -> None:
        """Start the log afresh with the ``kept`` answers (so it never grows past one line per item)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(self.header) + "\n")
            for item in kept.values():
                fh.write(json.dumps(item.to_json(), ensure_ascii=False) + "\n")
        os.replace(tmp, self.path)
        self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115  (closed by close())

    def add(self, result: ItemResult) -> None:
        """Keep one answer (not an API failure: that item is asked again next time)."""
        if self._fh is None or (result.error or "").startswith("api:"):
            return
        self._fh.write(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
        self._fh.flush()

    def close(self, *, finished: bool) -> None:
        """Close the log; a finished run's results file holds everything, so its log goes."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None
        if finished:
            with contextlib.suppress(OSError):
                self.path.unlink()


class _Caller:
    def __init__(self, client: Any, model: str, **request: Any) -> None:
        self.client, self.model, self.request = client, model, request

    async def __call__(self, prompt: str, png: bytes) -> str:
        from engine.llm.base import ImagePart, Message, Request

        req = Request(self.model, (Message("user", prompt, (ImagePart(png),)),), purpose="task",
                      **self.request)
        completion = await self.client.complete(req)
        return str(completion.content)

    async def close(self) -> None:
        await self.client.aclose()


def _model_caller(spec: str, *, timeout_s: float | None, max_tokens: int,
                  temperature: float | None) -> Callable[[str, bytes], Awaitable[str]]:
    from engine.llm.base import LLMError
    from engine.llm.factory import make_client, parse_spec

    try:
        parse_spec(spec)
        client, model = make_client(spec, **({"timeout_s": timeout_s} if timeout_s else {}))
    except (ValueError, LLMError) as exc:
        raise TaskError(f"player {spec!r}: {exc}") from None
    request: dict[str, Any] = {"max_tokens": max_tokens}
    if temperature is not None:
        request["temperature"] = temperature
    if timeout_s:
        request["timeout_s"] = timeout_s
    return _Caller(client, model, **request)
