"""``playtrace games`` (what can be played here) and ``playtrace check-model`` (can a model be used)."""

from __future__ import annotations

import argparse
import json
import os
import textwrap
import urllib.error
import urllib.request
from typing import Any

import engine
from desktop.cli.common import EXIT_FAILURE, EXIT_OK, UsageError, redact

#: The environment variable holding each cloud provider's key.
KEY_VARS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


# -- games ---------------------------------------------------------------------------------------------


def cmd_games(args: argparse.Namespace) -> int:
    """``playtrace games``: every registered game, its seats, kind, bots and options; games that
    cannot be played here are listed with the reason and the command that installs what they need."""
    from engine.roster import bots_for

    listed = engine.entries()
    if getattr(args, "json", False):
        print(json.dumps([_game_json(e) for e in listed], indent=2))
        return EXIT_OK
    for e in listed:
        if not e.available or e.cls is None:
            hint = f" (install: {e.install})" if e.install else ""
            print(f"{e.id}  {e.title}  UNAVAILABLE: {e.problem}{hint}")
            continue
        cls = e.cls
        seats = ", ".join(s.name for s in cls.seats)
        print(f"{e.id}  {cls.title}  [{', '.join(cls.suites) or e.distribution}]")
        _wrapped(_kind_text(cls), 4)
        _wrapped(f"seats: {seats}; players: human, {', '.join(bots_for(cls))}, sim, models", 4)
        for o in cls.options_schema:
            # Short lines: the list reads at 80 columns.
            line = f"--option {o.name}=…  {o.describe_type()}, default {o.default}"
            if len(line) + 4 > 80:  # a long default (a FEN) gets a line of its own
                _wrapped(f"--option {o.name}=…  {o.describe_type()}", 4)
                _wrapped(f"default {o.default}", 8)
            else:
                _wrapped(line, 4)
            if o.help:
                _wrapped(o.help, 8)
    return EXIT_OK


def _wrapped(text: str, indent: int) -> None:
    """Print ``text`` indented and wrapped at 80 columns (long words, such as a FEN, stay whole)."""
    pad = " " * indent
    print(textwrap.fill(text, 80, initial_indent=pad, subsequent_indent=pad + "  ",
                        break_long_words=False, break_on_hyphens=False))


def _kind_text(cls: type[engine.Game]) -> str:
    parts = [
        f"{len(cls.seats)} seat{'s' if len(cls.seats) != 1 else ''}",
        "simultaneous" if cls.simultaneous else "turn-based",
        "chance" if cls.chance else "deterministic",
        "perfect information" if cls.perfect_information else "hidden information",
    ]
    if cls.tick_s is not None:
        parts.append(f"real time ({cls.tick_s:g} s a tick)")
    return ", ".join(parts)


def _game_json(e: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": e.id, "title": e.title, "available": e.available, "distribution": e.distribution
    }
    if e.problem:
        data["problem"] = e.problem
    if e.install:
        data["install"] = e.install
    cls = e.cls
    if cls is not None:
        data |= {
            "suites": list(cls.suites),
            "seats": [s.name for s in cls.seats],
            "simultaneous": cls.simultaneous,
            "chance": cls.chance,
            "perfect_information": cls.perfect_information,
            "tick_s": cls.tick_s,
            "default_action": cls.default_action,
            "bots": list(cls.bots),
            "default_opponent": cls.default_opponent,
            "options": [o.to_data() for o in cls.options_schema],
        }
    return data


# -- check-model ---------------------------------------------------------------------------------------


def key_present(provider: str) -> bool:
    """Whether a key for ``provider`` is configured (never returns or prints the key itself)."""
    try:
        from engine.llm.keys import key_source
    except ImportError:
        return bool(os.environ.get(KEY_VARS.get(provider, ""), "").strip())
    if provider == "anthropic" and os.environ.get("ANTHROPIC_AUTH_TOKEN", "").strip():
        # The Anthropic client lets its SDK use a bearer token when there is no key (see AnthropicClient).
        return True
    return key_source(provider) is not None


def _probe_server(base_url: str, model: str | None, timeout: float) -> tuple[bool, str]:
    """GET ``{base_url}/models`` of an OpenAI-compatible server; says whether ``model`` is served."""
    url = base_url.rstrip("/") + "/models"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310  (the user's own server)
            body = resp.read(2_000_000)
    except urllib.error.HTTPError as exc:
        return False, f"{url} answered HTTP {exc.code}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return False, f"cannot reach {url}: {redact(str(reason))}"
    try:
        ids = [m.get("id") for m in json.loads(body).get("data", []) if isinstance(m, dict)]
    except (ValueError, AttributeError):
        return True, f"{url} answered, but not with an OpenAI-style model list"
    # Ollama lists "llama3:latest" for a model pulled and run as "llama3".
    if model and model not in ids and f"{model}:latest" not in ids:
        shown = ", ".join(str(i) for i in ids[:10]) or "none"
        return False, f"server reachable, but it does not serve {model!r} (it serves: {shown})"
    served = f", serves {model}" if model else f" ({len(ids)} models)"
    return True, f"server reachable at {base_url}{served}"


def _local_presets() -> frozenset[str]:
    """Spec prefixes naming a local server preset (``ollama``, ``lmstudio``...)."""
    from engine.llm.local import PRESETS

    return frozenset(PRESETS)


def cmd_check_model(args: argparse.Namespace) -> int:
    """``playtrace check-model SPEC``: local servers are probed; cloud providers need a key present."""
    spec: str = args.spec.strip()
    prefix, _, rest = spec.partition(":")
    if args.base_url:
        model = rest.split("@", 1)[0] if prefix in ("local", "openai") and rest else (rest or None)
        ok, msg = _probe_server(args.base_url, model or None, args.timeout)
    elif prefix == "sim":
        ok, msg = True, "the simulated model is built in and works offline (no key, no network)"
    elif prefix == "local" or prefix in _local_presets():
        # Parsed as `run` parses it: presets (ollama:MODEL, local:MODEL@lmstudio) and local:MODEL
        # (Ollama's default address) are checked at the address they will be called at.
        from engine.llm.factory import parse_spec

        try:
            parsed = parse_spec(spec)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        ok, msg = _probe_server(str(parsed.base_url), parsed.model or None, args.timeout)
    elif prefix in KEY_VARS:
        if not rest:
            raise UsageError(f"write {prefix}:MODEL")
        ok = key_present(prefix)
        msg = (f"a key for {prefix} is configured (not shown); {rest} will be called on first use"
               if ok else f"no key for {prefix}: set {KEY_VARS[prefix]} or add one in the app's settings")
    else:
        raise UsageError(f"unknown model spec {spec!r}; choose sim, openai:MODEL, anthropic:MODEL, "
                         "local:MODEL@URL")
    print(f"{'ok' if ok else 'FAILED'}: {spec}: {msg}")
    return EXIT_OK if ok else EXIT_FAILURE
