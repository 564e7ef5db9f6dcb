"""API keys: where PlayTrace finds them, where it keeps the ones people type in, and how it hides them.

Resolution order for a provider (:func:`resolve_key`):

1. a key passed explicitly (command-line option, a test, the settings dialog's "use once" field);
2. the provider SDK's own environment variable (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``);
3. PlayTrace's key store (:class:`KeyStore`).

Base URLs from ``OPENAI_BASE_URL`` and ``ANTHROPIC_BASE_URL`` are honoured by the SDKs themselves when
PlayTrace does not pass a base URL, so they need nothing here.

About the key store, honestly: the operating system's keyring is not used (it is not available
everywhere PlayTrace runs). Keys that a user enters in the app are written **in plain text** to
``keys.json`` in the PlayTrace configuration folder, a file of their own (never the settings file, so
sharing settings or a bug report never shares keys), created with permissions ``0600`` (readable and
writable by the owner only) on systems that have POSIX permissions. That protects against other users
of the same machine, not against malware running as the same user, backups or a stolen unencrypted
disk. It is *not* encryption. People who prefer can keep using environment variables instead.

Keys for local OpenAI-compatible servers (provider ``"local"``) are deliberately **not** taken from
``OPENAI_API_KEY``: a real OpenAI key must not be sent to whatever server a base URL points at.

:func:`redact` masks anything that looks like a key, plus every key PlayTrace currently knows, and is
used by logs, crash reports and session writers.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import threading
from pathlib import Path

import platformdirs

__all__ = [
    "ENV_VARS",
    "KeyStore",
    "config_dir",
    "forget_secret",
    "key_source",
    "keys_path",
    "redact",
    "register_secret",
    "resolve_key",
]

#: The SDKs' own environment variables, per provider.
ENV_VARS: dict[str, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}

_APP_NAME = "PlayTrace"
_KEYS_FILE = "keys.json"
# Shorter strings are never treated as secrets by redact(): masking "abc" everywhere would garble logs.
_MIN_SECRET_LEN = 8

_lock = threading.Lock()
# Keys handed to PlayTrace in this process (explicit keys given to clients); redact() masks them too.
_registered: set[str] = set()
_generation = 0


def config_dir() -> Path:
    """PlayTrace's configuration folder.

    ``PLAYTRACE_HOME`` overrides the platform folder (``PLAYTRACE_HOME/config``), which tests and portable
    installs use; otherwise it is ``platformdirs.user_config_dir("PlayTrace")``.
    """
    home = os.environ.get("PLAYTRACE_HOME")
    if home:
        return Path(home) / "config"
    return Path(platformdirs.user_config_dir(_APP_NAME, appauthor=False))


def keys_path() -> Path:
    """The key store file, ``keys.json`` in :func:`config_dir`."""
    return config_dir() / _KEYS_FILE


class KeyStore:
    """Keys that a user typed into PlayTrace, kept in a separate ``keys.json`` with permissions 0600.

    The file holds ``{"version": 1, "keys": {"openai": "...", "anthropic": "..."}}`` in plain text; see
    the module docstring for what this does and does not protect against.

    Args:
        path: The file to use; defaults to :func:`keys_path` (evaluated on each access, so a changed
            ``PLAYTRACE_HOME`` is honoured).
    """

    def __init__(self, path: Path | None = None) -> None:
        self._path = path

    @property
    def path(self) -> Path:
        """The file this store reads and writes."""
        return self._path if self._path is not None else keys_path()

    def __repr__(self) -> str:
        # Only where the keys live, never the keys themselves.
        return f"KeyStore(path={str(self.path)!r})"

    def _read(self) -> dict[str, str]:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            # A damaged store must not stop the app; the user re-enters the key and the file is rewritten.
            return {}
        keys = data.get("keys") if isinstance(data, dict) else None
        if not isinstance(keys, dict):  # "keys": null / a list, hand-edited: as damaged as bad JSON
            return {}
        return {str(k): str(v) for k, v in keys.items() if isinstance(v, str) and v}

    def _write(self, keys: dict[str, str]) -> None:
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"version": 1, "keys": keys}, indent=2, sort_keys=True)
        # mkstemp creates the file with mode 0600 before anything is written into it, so the key is
        # never readable by others, not even for a moment; os.replace then swaps it in atomically.
        fd, tmp = tempfile.mkstemp(prefix=".keys-", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(payload)
                fh.flush()
                os.fsync(fh.fileno())
            with contextlib.suppress(OSError):  # no POSIX permissions (Windows): best effort
                os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def get(self, provider: str) -> str | None:
        """The stored key for ``provider``, or None."""
        return self._read().get(provider)

    def set(self, provider: str, key: str) -> None:
        """Store (or replace) the key for ``provider``.

        Raises:
            ValueError: ``key`` is empty or only whitespace.
        """
        key = key.strip()
        if not key:
            raise ValueError("an API key cannot be empty")
        with _lock:
            keys = self._read()
            keys[provider] = key
            self._write(keys)

    def delete(self, provider: str) -> bool:
        """Forget the key for ``provider``; returns whether there was one."""
        with _lock:
            keys = self._read()
            if provider not in keys:
                return False
            del keys[provider]
            self._write(keys)
            return True

    def providers(self) -> list[str]:
        """The providers that have a stored key, sorted."""
        return sorted(self._read())


def resolve_key(provider: str, explicit: str | None = None, *, store: KeyStore | None = None) -> str | None:
    """The key to use for ``provider``: explicit, then the SDK's environment variable, then the store.

    Args:
        provider: ``"openai"``, ``"anthropic"`` or ``"local"`` (local servers never read
            ``OPENAI_API_KEY``; see the module docstring).
        explicit: A key given directly; wins when non-empty.
        store: The key store to consult; defaults to :class:`KeyStore` at :func:`keys_path`.

    Returns:
        The key, or None when there is none anywhere.
    """
    key, _ = _resolve(provider, explicit, store)
    return key


def key_source(provider: str, explicit: str | None = None, *, store: KeyStore | None = None) -> str | None:
    """Where :func:`resolve_key` would take the key from: ``"explicit"``, ``"env"``, ``"store"`` or None.

    The settings dialog shows this ("key from environment variable OPENAI_API_KEY"), never the key.
    """
    _, source = _resolve(provider, explicit, store)
    return source


def _resolve(provider: str, explicit: str | None, store: KeyStore | None) -> tuple[str | None, str | None]:
    if explicit and explicit.strip():
        return explicit.strip(), "explicit"
    var = ENV_VARS.get(provider)
    if var:
        value = os.environ.get(var, "").strip()
        if value:
            return value, "env"
    stored = (store or KeyStore()).get(provider)
    if stored:
        return stored, "store"
    return None, None


def register_secret(value: str | None) -> None:
    """Tell :func:`redact` (and every session writer) about a secret it must mask wherever it appears,
    e.g. a key given explicitly or typed into the app."""
    global _generation
    if value and len(value.strip()) >= _MIN_SECRET_LEN:
        with _lock:
            _registered.add(value.strip())
            _generation += 1


def forget_secret(value: str | None) -> None:
    """Undo :func:`register_secret` (mostly for tests)."""
    global _generation
    if value:
        with _lock:
            _registered.discard(value.strip())
            _generation += 1


def secrets_generation() -> int:
    """A number that changes whenever a secret is registered or forgotten (to refresh snapshots)."""
    return _generation


def known_secrets() -> set[str]:
    """Every secret value PlayTrace knows: registered ones, the SDKs' key variables, the key store."""
    secrets = set(_registered)
    for var in ENV_VARS.values():
        value = os.environ.get(var, "").strip()
        if len(value) >= _MIN_SECRET_LEN:
            secrets.add(value)
    secrets.update(_stored_secrets())
    return secrets


# redact() runs for every log line; re-read the store only when the file changed.
_store_cache: tuple[str, tuple[int, int], frozenset[str]] | None = None


def _stored_secrets() -> frozenset[str]:
    global _store_cache
    path = keys_path()
    try:
        st = path.stat()
    except OSError:
        return frozenset()
    # Size as well as mtime: coarse mtime clocks could hide two writes within one tick.
    mtime = (st.st_mtime_ns, st.st_size)
    cached = _store_cache
    if cached is not None and cached[0] == str(path) and cached[1] == mtime:
        return cached[2]
    values = frozenset(v for v in KeyStore(path)._read().values() if len(v) >= _MIN_SECRET_LEN)
    _store_cache = (str(path), mtime, values)
    return values


# Key-shaped strings: OpenAI (sk-..., sk-proj-...) and Anthropic (sk-ant-...) keys, bearer tokens, and
# "api_key": "..." / x-api-key: ... pairs as they appear in logged headers, JSON and reprs.
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{6,}"), "sk-ant-[REDACTED]"),
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}"), "sk-[REDACTED]"),
    (re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9_\-\.=:+/]{6,}"), r"\1 [REDACTED]"),
    (
        re.compile(
            r"(?i)([\"']?(?:x-api-key|api[_-]?key|authorization)[\"']?\s*[:=]\s*[\"']?)"
            r"([^\s\"',}]{6,})"
        ),
        r"\1[REDACTED]",
    ),
    # The password of a URL with credentials (http://user:password@host/...), however short.
    (re.compile(r"(?i)(\bhttps?://[^/\s:@]*:)[^/\s]*@(?=[^@/\s]*(?:[/\s]|$))"), r"\1[REDACTED]@"),
)


def redact(text: str) -> str:
    """``text`` with anything key-like and every currently known key value masked.

    Known keys are those in the SDK environment variables, in the key store and those registered with
    :func:`register_secret` (every client registers the key it is given).
    """
    if not text:
        return text
    # Known values first, longest first, so a key that does not look like "sk-..." is still caught.
    for secret in sorted(known_secrets(), key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, "[REDACTED]")
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    # A password in a server's URL (``http://user:password@host``) is a secret as a key is.
    return mask_url_password(text)


# -- passwords inside URLs (local servers behind basic authentication) -------------------------------

_USERINFO = re.compile(r"(?i)(\bhttps?://[^/\s:@]*:)([^/\s]*)@(?=[^@/\s]*(?:[/\s]|$))")


def url_password(url: str) -> str | None:
    """The password in ``url``'s ``user:password@`` part, or None."""
    found = _USERINFO.search(url)
    return found.group(2) if found and found.group(2) else None


def mask_url_password(text: str) -> str:
    """``text`` with the password of every ``http(s)://user:password@host`` URL in it replaced by
    ``***`` (the user name stays, so people can tell which account a URL uses)."""
    return _USERINFO.sub(lambda m: f"{m.group(1)}***@" if m.group(2) else m.group(0), text)
