"""Prompt templates kept as files, and how they are filled in.

A game's templates live in its package (``engine/games/<id>/prompts/<variant>.md``, named by
``Game.prompts``); ``assets/prompts/_common/`` holds the reflection prompt and a generic fallback for
games without templates of their own. The syntax is deliberately tiny so that a
template reads like the prompt it produces:

* ``<!-- ... -->`` comments are removed (they document the template, the model never sees them);
* a line ``# system`` or ``# user`` starts the text of that message;
* ``## Heading`` lines stay in the text; a ``##`` section whose body is blank after filling is dropped,
  which is how the history and reflection sections vanish when memory or reflection is switched off;
* ``{name}`` is a placeholder (lower-case identifier); ``{{`` and ``}}`` are literal braces. Other braces,
  such as ``(r,c)`` examples or JSON, are left alone because only identifiers count as placeholders.

Every rendered prompt carries the template's path (relative to the assets folder), its variant and the
sha256 of the template file, so a session says exactly which text produced which prompt.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import pathlib
import re
import sys
from collections.abc import Mapping

import assets
from engine.core import Game

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([a-z_][a-z0-9_]*)\}")
_ROLE_LINE = re.compile(r"^#\s+(system|user)\s*$", re.MULTILINE | re.IGNORECASE)
_SECTION = re.compile(r"^(?=##\s)", re.MULTILINE)

#: The folder name holding templates shared by every game.
COMMON = "_common"


class TemplateError(ValueError):
    """A template is missing, malformed, or was filled without one of its placeholders."""


@dataclasses.dataclass(frozen=True, slots=True)
class PromptTemplate:
    """A parsed template file.

    Attributes:
        path: The file's path relative to the assets folder, with forward slashes
            (``"prompts/2048/default.md"``); this is what sessions record.
        variant: The variant name (the file stem).
        text: The file's full text, comments included.
        sha256: Hex digest of ``text`` encoded as UTF-8.
        system: The system message body, still with placeholders.
        user: The user message body, still with placeholders.
    """

    path: str
    variant: str
    text: str
    sha256: str
    system: str
    user: str

    @property
    def placeholders(self) -> frozenset[str]:
        """Names of all placeholders used in the system and user parts."""
        found = {m.group(1) for m in _PLACEHOLDER.finditer(self.system + "\n" + self.user) if m.group(1)}
        return frozenset(found)

    def render(self, values: Mapping[str, str]) -> RenderedPrompt:
        """Fill the placeholders and drop empty ``##`` sections.

        Raises:
            TemplateError: a placeholder has no value.
        """
        missing = sorted(self.placeholders - set(values))
        if missing:
            raise TemplateError(f"{self.path} needs values for: {', '.join(missing)}")
        return RenderedPrompt(
            system=_fill(self.system, values),
            user=_fill(self.user, values),
            template=self.path,
            template_hash=self.sha256,
            variant=self.variant,
        )


@dataclasses.dataclass(frozen=True, slots=True)
class RenderedPrompt:
    """A filled-in prompt and the template it came from."""

    system: str
    user: str
    template: str
    template_hash: str
    variant: str


def parse_template(text: str, *, path: str, variant: str) -> PromptTemplate:
    """Parse template ``text`` (the contents of ``path``).

    Raises:
        TemplateError: there is no ``# user`` part.
    """
    body = _COMMENT.sub("", text)
    parts: dict[str, str] = {}
    marks = list(_ROLE_LINE.finditer(body))
    for i, match in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(body)
        parts[match.group(1).lower()] = body[match.end() : end].strip("\n")
    if "user" not in parts:
        raise TemplateError(f"{path} has no '# user' part")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return PromptTemplate(path, variant, text, digest, parts.get("system", "").strip(), parts["user"].strip())


def _fill(text: str, values: Mapping[str, str]) -> str:
    def sub(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        return str(values[match.group(1)])

    filled = _PLACEHOLDER.sub(sub, text)
    kept: list[str] = []
    for chunk in _SECTION.split(filled):
        if chunk.startswith("##"):
            heading, _, rest = chunk.partition("\n")
            if not rest.strip():
                continue  # an optional section with nothing in it this time (e.g. no history yet)
        kept.append(chunk)
    # Collapse the blank lines a dropped section or an empty placeholder leaves behind.
    return re.sub(r"\n{3,}", "\n\n", "".join(kept)).strip()


def _asset(*parts: str) -> pathlib.Path:
    """``assets.path(*parts)``, tolerating an install that sees ``assets`` as a namespace package
    (an editable install made before ``assets/__init__.py`` existed has no ``path`` function)."""
    finder = getattr(assets, "path", None)
    if callable(finder):
        return pathlib.Path(finder(*parts))
    return pathlib.Path(next(iter(assets.__path__))).joinpath(*parts)


def prompt_folder(game: Game | type[Game]) -> pathlib.Path | None:
    """The folder holding ``game``'s own templates (``Game.prompts``, inside the game's package),
    or ``None`` when it has none."""
    if not game.prompts:
        return None
    module = sys.modules.get(type(game).__module__ if isinstance(game, Game) else game.__module__)
    file = getattr(module, "__file__", None)
    if not file:
        return None
    folder = pathlib.Path(file).resolve().parent / game.prompts
    return folder if folder.is_dir() else None


@functools.lru_cache(maxsize=64)
def _load(file: pathlib.Path, label: str, variant: str) -> PromptTemplate:
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise TemplateError(f"cannot read prompt template {label}: {exc.strerror or exc}") from None
    return parse_template(text, path=label, variant=variant)


def variants(game: Game | type[Game]) -> list[str]:
    """The prompt variants available for ``game`` (``"default"`` first)."""
    folder = prompt_folder(game)
    names = sorted(p.stem for p in folder.glob("*.md")) if folder is not None else []
    if "default" in names:
        names.remove("default")
    return ["default", *names]


def load_template(game: Game | type[Game], variant: str = "default") -> PromptTemplate:
    """The action prompt template of ``game`` in ``variant``.

    A game's templates live in its package (``Game.prompts``); ``"default"`` means the variant the
    game names in ``Game.default_prompt`` (GameBot's games: ``"cot"``). A game without its own templates gets
    the generic one (``assets/prompts/_common/generic.md``) for the ``"default"`` variant, so every
    game can be played by a model from day one. Sessions record a template as
    ``prompts/<game id>/<variant>.md`` with its sha256.

    Raises:
        TemplateError: the variant does not exist for this game (the message lists the choices).
    """
    if not re.fullmatch(r"[A-Za-z0-9_\-]+", variant):
        raise TemplateError(f"bad prompt variant {variant!r} for {game.id!r}")
    asked_default = variant == "default"
    if asked_default:
        variant = getattr(game, "default_prompt", "default") or "default"
    folder = prompt_folder(game)
    if folder is not None and (folder / f"{variant}.md").is_file():
        return _load(folder / f"{variant}.md", f"prompts/{game.id}/{variant}.md", variant)
    if asked_default:
        label = f"prompts/{COMMON}/generic.md"
        return _load(_asset("prompts", COMMON, "generic.md"), label, "default")
    raise TemplateError(
        f"no prompt variant {variant!r} for {game.id}; choose from: {', '.join(variants(game))}"
    )


def load_common(name: str) -> PromptTemplate:
    """A shared template from ``assets/prompts/_common`` (``"reflection"``)."""
    return _load(_asset("prompts", COMMON, f"{name}.md"), f"prompts/{COMMON}/{name}.md", name)


#: Where a game's package keeps its own perception prompt, inside its prompts folder (a subfolder, so
#: it is never listed as an action prompt variant).
PERCEPTION_PROMPT = ("perception", "describe.md")


def load_perception(game: Game | type[Game]) -> PromptTemplate:
    """The prompt of the ``describe`` perception call for ``game``: the game's own
    (``<prompts>/perception/describe.md`` in its package) or the generic
    ``assets/prompts/_common/describe.md``. Placeholders: ``{game_title}``, ``{seat_name}``,
    ``{rules}`` and ``{step}``.
    """
    folder = prompt_folder(game)
    if folder is not None:
        own = folder.joinpath(*PERCEPTION_PROMPT)
        if own.is_file():
            return _load(own, f"prompts/{game.id}/{'/'.join(PERCEPTION_PROMPT)}", "describe")
    return _load(_asset("prompts", COMMON, "describe.md"), f"prompts/{COMMON}/describe.md", "describe")
