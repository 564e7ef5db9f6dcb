"""What model calls cost: an editable price table (``assets/prices.json``) and the arithmetic on it.

Prices are USD per million tokens, input and output. A model name matches a row exactly, or as a
dated snapshot or ``-latest`` alias of a row (``gpt-4o-2024-08-06`` and ``claude-sonnet-4-5-20250929``
use the ``gpt-4o`` and ``claude-sonnet-4-5`` rows). Other prefixes do **not** match: ``gpt-5.4-mini``
is not priced as ``gpt-5``, because a wrong price is worse than none. Local servers and the simulated
model cost nothing. A model the table does not know has **no** cost (``None``), never a guessed one, and
:func:`price_note` says why, so the cost meter can show "unknown price" instead of "$0.00".

Reasoning/thinking tokens are billed as output tokens by both providers, and :class:`~engine.llm.base.Usage`
counts them inside ``output_tokens`` (``reasoning_tokens`` is a breakdown), so they are not added twice.
Cached-input discounts are ignored: the figure is an upper bound for the list price.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import threading
from pathlib import Path
from typing import Any

from engine.llm.base import Usage

__all__ = [
    "LOCAL_PREFIXES",
    "Estimate",
    "Price",
    "PriceTable",
    "cost",
    "default_table",
    "estimate",
    "price_note",
    "reload",
    "split_spec",
]

#: Spec prefixes that name a local OpenAI-compatible server (free to call).
LOCAL_PREFIXES = frozenset({"local", "ollama", "lmstudio", "vllm", "llamacpp"})
_KNOWN_PREFIXES = LOCAL_PREFIXES | {"openai", "anthropic", "sim"}
_PER = 1_000_000
# "<row>-2024-08-06", "<row>-20250929", "<row>-latest": the same model as <row>, priced the same.
_SNAPSHOT = re.compile(r"(.+?)-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)")


@dataclasses.dataclass(frozen=True, slots=True)
class Price:
    """One row of the table: USD per million input and output tokens, and the row that matched."""

    input_per_mtok: float
    output_per_mtok: float
    matched: str

    def of(self, input_tokens: int, output_tokens: int) -> float:
        """The cost in USD of that many tokens."""
        return (input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok) / _PER


@dataclasses.dataclass(frozen=True, slots=True)
class Estimate:
    """A pre-run estimate: the tokens a run is expected to use and what they cost (None if unknown)."""

    cost: float | None
    input_tokens: int
    output_tokens: int
    steps: int
    price: Price | None
    note: str | None = None


def split_spec(model: str, provider: str | None = None) -> tuple[str | None, str]:
    """Split ``"openai:gpt-4o"`` / ``"local:llama3@http://..."`` into (provider, bare model name).

    A name with no known provider prefix is returned unchanged with ``provider`` (which may be None).
    Local model names may themselves contain colons (``qwen2.5:7b``), so only a known prefix is split.
    """
    head, sep, rest = model.partition(":")
    if sep and head in _KNOWN_PREFIXES:
        prov = "local" if head in LOCAL_PREFIXES else head
        bare = rest.rsplit("@", 1)[0] if prov == "local" else rest
        return prov, bare
    if model == "sim":
        return "sim", model
    return (("local" if provider in LOCAL_PREFIXES else provider), model)


class PriceTable:
    """Prices by model name, with provider-wide rows (``local``, ``sim``)."""

    def __init__(self, models: dict[str, Price], providers: dict[str, Price], *, source: str = "") -> None:
        self.models = models
        self.providers = providers
        self.source = source

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "") -> PriceTable:
        """Build a table from the ``prices.json`` structure; malformed rows are skipped.

        Raises:
            ValueError: ``data`` is not a mapping with a ``models`` mapping.
        """
        if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
            raise ValueError("a price table needs a 'models' object")

        def rows(section: Any) -> dict[str, Price]:
            out: dict[str, Price] = {}
            for name, row in (section or {}).items():
                try:
                    inp, outp = float(row["input"]), float(row["output"])
                except (KeyError, TypeError, ValueError):
                    continue  # one bad hand-edited row must not hide every other price
                if math.isfinite(inp) and math.isfinite(outp) and inp >= 0 and outp >= 0:
                    out[str(name)] = Price(inp, outp, str(name))
            return out

        return cls(rows(data["models"]), rows(data.get("providers")), source=source)

    @classmethod
    def load(cls, path: Path | None = None) -> PriceTable:
        """Read a table from ``path`` (default: the bundled ``assets/prices.json``).

        Raises:
            OSError: the file cannot be read.
            ValueError: it is not a valid price table.
        """
        path = path or _bundled_path()
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")), source=str(path))

    def lookup(self, model: str, provider: str | None = None) -> Price | None:
        """The price row for ``model`` (a bare name or a ``provider:model`` spec), or None if unknown."""
        prov, bare = split_spec(model, provider)
        if prov in self.providers:
            return self.providers[prov]
        if bare in self.models:
            return self.models[bare]
        match = _SNAPSHOT.fullmatch(bare)
        if match and match.group(1) in self.models:
            return self.models[match.group(1)]
        return None

    def note(self, model: str, provider: str | None = None) -> str | None:
        """Why ``model`` has no cost, or None when it has one."""
        if self.lookup(model, provider) is not None:
            return None
        _, bare = split_spec(model, provider)
        return f"no price for {bare!r} in the price table; add it to prices.json to see costs"

    def cost(self, model: str, usage: Usage, provider: str | None = None) -> float | None:
        """USD for one call's ``usage``, or None when the model's price is unknown."""
        price = self.lookup(model, provider)
        return None if price is None else price.of(usage.input_tokens, usage.output_tokens)

    def estimate(
        self,
        model: str,
        input_tokens_per_step: int,
        output_tokens_per_step: int,
        steps: int,
        provider: str | None = None,
    ) -> Estimate:
        """The expected tokens and cost of ``steps`` model calls of the given size."""
        steps = max(0, int(steps))
        tin = max(0, int(input_tokens_per_step)) * steps
        tout = max(0, int(output_tokens_per_step)) * steps
        price = self.lookup(model, provider)
        return Estimate(
            cost=None if price is None else price.of(tin, tout),
            input_tokens=tin,
            output_tokens=tout,
            steps=steps,
            price=price,
            note=self.note(model, provider),
        )


def _bundled_path() -> Path:
    try:
        import assets

        return assets.path("prices.json")
    except (ImportError, AttributeError):
        from importlib import resources

        return Path(str(resources.files("assets") / "prices.json"))


_default: PriceTable | None = None
_default_lock = threading.Lock()


def default_table() -> PriceTable:
    """The bundled table, loaded once (an unreadable file gives an empty table: costs show as unknown)."""
    global _default
    with _default_lock:
        if _default is None:
            try:
                _default = PriceTable.load()
            except (OSError, ValueError):
                _default = PriceTable({}, {"local": Price(0.0, 0.0, "local"), "sim": Price(0.0, 0.0, "sim")})
        return _default


def reload(path: Path | None = None) -> PriceTable:
    """Re-read the table (after the user edited it) and make it the default."""
    global _default
    table = PriceTable.load(path)
    with _default_lock:
        _default = table
    return table


def cost(model: str, usage: Usage, *, provider: str | None = None) -> float | None:
    """USD for one call, from the default table; None (never 0) when the model's price is unknown.

    Args:
        model: A bare model name (with ``provider``) or a spec such as ``"anthropic:claude-sonnet-4-5"``.
        usage: The call's tokens; ``output_tokens`` already includes reasoning tokens.
        provider: ``"openai"``, ``"anthropic"``, ``"local"``, ``"sim"``; local and sim cost 0.
    """
    return default_table().cost(model, usage, provider)


def estimate(
    model: str,
    input_tokens_per_step: int,
    output_tokens_per_step: int,
    steps: int,
    *,
    provider: str | None = None,
) -> Estimate:
    """The pre-run estimate shown before a run starts (default table); see :meth:`PriceTable.estimate`."""
    return default_table().estimate(model, input_tokens_per_step, output_tokens_per_step, steps, provider)


def price_note(model: str, *, provider: str | None = None) -> str | None:
    """Why ``model`` has no cost in the default table, or None when it has one."""
    return default_table().note(model, provider)
