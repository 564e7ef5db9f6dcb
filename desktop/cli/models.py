"""``playtrace games`` (what can be played here) and ``playtrace check-model`` (can a model be used)."""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import math
import os
import textwrap
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import engine
from desktop.cli.common import EXIT_FAILURE, EXIT_OK, UsageError, one_line, redact

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
    # A server behind basic authentication (http://user:password@host): urllib wants it as a header.
    parts = urllib.parse.urlsplit(url)
    headers: dict[str, str] = {}
    if parts.username is not None:
        token = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
        headers["Authorization"] = "Basic " + base64.b64encode(token.encode()).decode()
        url = urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))
    try:
        request = urllib.request.Request(url, headers=headers)  # noqa: S310  (the user's own server)
        with urllib.request.urlopen(request, timeout=timeout) as resp:  # noqa: S310
            body = resp.read(2_000_000)
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            return False, f"the server refused the key (HTTP {exc.code} from {redact(url)})"
        return True, ""  # no model list here: the real call decides
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


#: What each failure kind of a model call means for someone checking their set-up.
_CHECK_FAILURES = {
    "auth": "the server refused the key",
    "not_found": "the server does not have this model (or the URL is not the API's)",
    "timeout": "no answer in time",
    "connection": "the server cannot be reached",
    "rate_limit": "rate limited: the key works, but the account is over its limits now",
    "server": "the server failed",
    "bad_request": "the server refused the request",
    "stream": "the server did not answer as the API does",
}


async def _one_call(spec: str, base_url: str | None, timeout: float) -> tuple[bool, str]:
    """Make one real, cheap call (a one-word answer of a few tokens) and say how it went."""
    from engine.llm.base import LLMError, Message, Request
    from engine.llm.factory import make_client

    opts: dict[str, Any] = {"timeout_s": timeout, "connect_timeout_s": timeout, "max_retries": 0}
    if base_url:
        opts["base_url"] = base_url
    try:
        client, model = make_client(spec, **opts)
    except ValueError as exc:
        raise UsageError(one_line(exc)) from None
    except LLMError as exc:
        return False, one_line(exc)
    request = Request(model=model, messages=(Message("user", "Reply with the word OK."),), max_tokens=16,
                      timeout_s=timeout, purpose="check", retry_timeouts=False)
    started = time.perf_counter()
    try:
        completion = await asyncio.wait_for(client.complete(request), timeout * 2 + 1)
    except TimeoutError:
        return False, f"no answer within {timeout:g} s"
    except LLMError as exc:
        what = _CHECK_FAILURES.get(exc.kind, "the call failed")
        status = f" (HTTP {exc.status})" if exc.status else ""
        return False, f"{what}{status}: {one_line(exc)}"
    finally:
        with contextlib.suppress(Exception):
            await client.aclose()
    latency = time.perf_counter() - started
    text = (completion.content or "").strip()
    answered = text.splitlines()[0][:40] if text else ""
    where = getattr(client, "base_url", None)
    return True, (f"{model} answered {answered!r} in {latency:.1f} s"
                  + (f" at {redact(str(where))}" if where else "")
                  + f" ({completion.usage.input_tokens + completion.usage.output_tokens} tokens)")


def cmd_check_model(args: argparse.Namespace) -> int:
    """``playtrace check-model SPEC``: one real, cheap call to the model (a few tokens); the failure is
    named (a refused key, an unknown model, no answer in time, an unreachable server)."""
    spec: str = args.spec.strip()
    prefix, _, rest = spec.partition(":")
    if not (math.isfinite(args.timeout) and 0 < args.timeout <= 3600):
        raise UsageError(f"--timeout {args.timeout}: give seconds between 0 and 3600")
    if prefix == "sim" and not args.base_url:
        ok, msg = True, "the simulated model is built in and works offline (no key, no network)"
    elif prefix in KEY_VARS and not args.base_url:
        if not rest:
            raise UsageError(f"write {prefix}:MODEL")
        if key_present(prefix):
            ok, msg = asyncio.run(_one_call(spec, None, args.timeout))
        else:
            ok, msg = False, f"no key for {prefix}: set {KEY_VARS[prefix]} or add one in the app's settings"
    elif args.base_url or prefix == "local" or prefix in _local_presets():
        if args.base_url:
            model = rest.split("@", 1)[0] if prefix in ("local", "openai", "anthropic") and rest else spec
            base_url = args.base_url
            call_spec = spec if prefix in KEY_VARS else f"local:{model}"
        else:
            # Parsed as `run` parses it: presets (ollama:MODEL, local:MODEL@lmstudio) and local:MODEL
            # (Ollama's default address) are checked at the address they will be called at.
            from engine.llm.factory import parse_spec

            try:
                parsed = parse_spec(spec)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            model, base_url, call_spec = parsed.model, str(parsed.base_url), spec
        ok, msg = True, ""
        if prefix not in KEY_VARS:
            # An OpenAI-compatible server lists what it serves: a model it lacks is named at once.
            ok, msg = _probe_server(base_url, model or None, args.timeout)
        if ok:
            ok, msg = asyncio.run(_one_call(call_spec, base_url if args.base_url else None, args.timeout))
    else:
        raise UsageError(f"unknown model spec {spec!r}; choose sim, openai:MODEL, anthropic:MODEL, "
                         "local:MODEL@URL")
    print(redact(f"{'ok' if ok else 'FAILED'}: {spec}: {msg}"))
    return EXIT_OK if ok else EXIT_FAILURE
