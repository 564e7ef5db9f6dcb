"""Keep secrets out of sessions.

Every event and every manifest passes through :func:`redact` before it is written. Two rules:

* keys that name a credential (``api_key``, ``Authorization``, ``x-api-key``, ``password``,
  ``secret``, ``token``, ``OPENAI_API_KEY``...) are dropped with their value. Counters that merely
  mention tokens (``input_tokens``, ``max_tokens``, ``thinking_budget``...) are kept: only a key whose
  last word is ``token`` (singular) is treated as a credential;
* any string that contains something shaped like a key (``sk-...``, ``sk-ant-...``,
  ``Bearer xyz...``, ``api_key=...``) or the value of a credential environment variable (or a value
  registered with :func:`register_secret`) has that part replaced by :data:`MASK`.

A mapping that looks like a dump of the process environment is replaced as a whole: the environment
is never written.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import os
import re
from collections.abc import Callable, Mapping
from pathlib import PurePath
from typing import Any, Final

from engine.llm import keys

MASK: Final = "[REDACTED]"
ENV_OMITTED: Final = "[environment omitted]"

# A key is a credential when one of these words ends it (after lower-casing and turning "-" and
# camelCase into "_"): "api_key", "x_api_key", "openai_api_key", "authorization", "access_token".
_SECRET_KEY_RE: Final = re.compile(
    r"(?:^|_)(?:api_?key|apikey|auth|authorization|password|passwd|passphrase|secret|secret_key"
    r"|token|credentials?|cookie|set_cookie|private_key)$"
)
# Never treat these as credentials even if a future rule would match them.
_ALLOWED_KEYS: Final = frozenset(
    {"input_tokens", "output_tokens", "reasoning_tokens", "max_tokens", "thinking_budget", "budget_tokens"}
)

_VALUE_PATTERNS: Final = (
    r"\bsk-ant-[A-Za-z0-9_\-]{8,}",  # Anthropic
    r"\bsk-[A-Za-z0-9_\-]{16,}",  # OpenAI and compatible servers
    r"\bAIza[0-9A-Za-z_\-]{30,}",  # Google
    r"\b(?:gsk|xai|hf|ghp|github_pat)[_-][A-Za-z0-9_]{20,}",  # Groq, xAI, Hugging Face, GitHub
    # An Authorization header quoted in an error message, with or without its scheme.
    r"(?i:\bauthorization\b[\"']?\s*[=:]\s*[\"']?(?:bearer\s+|basic\s+)?[^\s\"',;&]+)",
    # "Bearer <token>": the capitalised scheme, or any case when the token is long (not prose).
    r"\bBearer\s+[A-Za-z0-9._~+/=\-]{3,}",
    r"(?i:\bbearer\s+[A-Za-z0-9._~+/=\-]{20,})",
    # "api_key=abc", "token: abc" inside free text (error messages, URLs).
    r"(?i:\b(?:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password)\b[\"']?\s*[=:]\s*"
    r"[\"']?[^\s\"',;&]{6,})",
)
_VALUE_RE: Final = re.compile("|".join(f"(?:{p})" for p in _VALUE_PATTERNS))
# Every match of _VALUE_RE contains one of these (lower-cased). Checking for them first is ~100 times
# faster than the search on a long prompt, which most event strings are and which rarely hold any.
_VALUE_HINTS: Final = ("sk-", "aiza", "gsk", "xai", "hf_", "hf-", "ghp", "github_pat", "authorization",
                       "bearer", "api_key", "api-key", "apikey", "token", "secret", "password")
_HINT_RE: Final = re.compile("|".join(re.escape(hint) for hint in _VALUE_HINTS))
# The non-ASCII letters that the case-insensitive patterns take for an ASCII one ("ı" for "i"...).
_ASCII_FOLD: Final = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})

# The password in a URL's user-info ("http://user:pass@host": a local server behind basic auth, whose
# URL ends up in player specs and error messages); the user name and the host stay readable.
_URL_PASSWORD_RE: Final = re.compile(r"(?<=://)([^/\s:@]+:)[^/\s@]+(?=@)")

_CAMEL_RE: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NON_ALNUM_RE: Final = re.compile(r"[^a-z0-9]+")

def register_secret(value: str) -> None:
    """Mask ``value`` wherever it appears in anything written from now on (e.g. a key typed in the app).

    The providers' registry (:func:`engine.llm.keys.register_secret`) is the one list of secrets;
    values shorter than 8 characters are ignored there: masking them would garble ordinary text.
    """
    if isinstance(value, str):
        keys.register_secret(value)


def normalize_key(key: str) -> str:
    """``"X-Api-Key"`` → ``"x_api_key"``, ``"apiKey"`` → ``"api_key"``."""
    key = _CAMEL_RE.sub("_", key)
    return _NON_ALNUM_RE.sub("_", key.lower()).strip("_")


@functools.lru_cache(maxsize=4096)  # the same few dozen keys come back in every event
def is_secret_key(key: str) -> bool:
    """Whether a mapping key names a credential whose value must not be written."""
    norm = normalize_key(key)
    if norm in _ALLOWED_KEYS:
        return False
    return bool(_SECRET_KEY_RE.search(norm))


def _env_secrets() -> set[str]:
    """Values of credential-like environment variables (read, never written)."""
    return {v for k, v in os.environ.items() if len(v) >= 8 and is_secret_key(k)}


def _provider_secrets() -> set[str]:
    """Every key the model providers know: keys given to a client, typed in the app or kept in the key
    store, and the SDKs' variables. A local server's key looks like nothing in particular, so only
    its value can be masked."""
    try:
        return keys.known_secrets()
    except Exception:  # a broken key store must not stop a session from being written
        return set()


def _looks_like_environment(m: Mapping[Any, Any]) -> bool:
    if m is os.environ:
        return True
    keys = set(m.keys()) if len(m) >= 4 else set()
    return "PATH" in keys and bool(keys & {"HOME", "USERPROFILE", "USER", "USERNAME", "SHELL"})


class Redactor:
    """Scrubs JSON-like values; one instance per writer (it snapshots the secret values to mask).

    Args:
        on_bytes: Called with raw bytes found inside data (returns a string to store instead, such as
            an attachment reference). Without it, bytes become a short placeholder.
    """

    def __init__(self, on_bytes: Callable[[bytes], str] | None = None) -> None:
        self._on_bytes = on_bytes
        self._refresh()

    def _refresh(self) -> None:
        self._generation = keys.secrets_generation()
        literals = _env_secrets() | _provider_secrets()
        self._literals = sorted(literals, key=len, reverse=True)
        self._keys: dict[str, str] = {}  # mapping keys as redacted: the same few come back in every event

    def text(self, s: str) -> str:
        """Mask key-shaped parts and known secret values of ``s``."""
        if keys.secrets_generation() != self._generation:
            self._refresh()  # a key was registered (a model client made, a key typed) since the snapshot
        for lit in self._literals:
            if lit in s:
                s = s.replace(lit, MASK)
        if "://" in s:
            s = _URL_PASSWORD_RE.sub(r"\1" + MASK, s)
        low = (s if s.isascii() else s.translate(_ASCII_FOLD)).lower()
        # A short string is faster searched for all hints at once, a long one hint by hint.
        hinted = _HINT_RE.search(low) is not None if len(low) < 256 else any(h in low for h in _VALUE_HINTS)
        if not hinted or _VALUE_RE.search(s) is None:
            return s
        return _VALUE_RE.sub(MASK, s)

    def __call__(self, value: Any) -> Any:
        """A JSON-compatible copy of ``value`` with secrets removed."""
        if keys.secrets_generation() != self._generation:
            self._refresh()  # a key was registered since the snapshot (this also empties the key cache)
        return self._walk(value)

    def _walk(self, v: Any) -> Any:
        if v is None or isinstance(v, (bool, int, float)):
            return v
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, Mapping):
            if _looks_like_environment(v):
                return ENV_OMITTED
            out: dict[str, Any] = {}
            for k, item in v.items():
                key = k if isinstance(k, str) else str(k)
                if is_secret_key(key):
                    continue
                safe = self._keys.get(key)
                if safe is None:
                    safe = self.text(key)
                    if len(self._keys) < 4096:
                        self._keys[key] = safe
                out[safe] = self._walk(item)
            return out
        if isinstance(v, (list, tuple)):
            return [self._walk(x) for x in v]
        if isinstance(v, (set, frozenset)):
            return [self._walk(x) for x in sorted(v, key=repr)]
        if isinstance(v, (bytes, bytearray, memoryview)):
            data = bytes(v)
            return self._on_bytes(data) if self._on_bytes else f"<{len(data)} bytes>"
        if isinstance(v, enum.Enum):
            return self._walk(v.value)
        if isinstance(v, PurePath):
            return self.text(str(v))
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return self._walk({f.name: getattr(v, f.name) for f in dataclasses.fields(v)})
        tolist = getattr(v, "tolist", None)  # numpy arrays and scalars
        if callable(tolist):
            try:
                return self._walk(tolist())
            except (TypeError, ValueError):
                pass
        item = getattr(v, "item", None)
        if callable(item):
            try:
                return self._walk(item())
            except (TypeError, ValueError):
                pass
        return self.text(str(v))


def redact(value: Any) -> Any:
    """One-off redaction with a fresh :class:`Redactor`."""
    return Redactor()(value)
