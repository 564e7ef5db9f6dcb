"""The app's remembered preferences (whether the first-launch demo is done, the window's zoom, provider
base URLs and default models) in an ini file.

The file is ``playtrace.ini`` in PlayTrace's configuration folder: ``PLAYTRACE_HOME/config`` when that
environment variable is set (tests, portable installs), otherwise the platform's configuration folder.
An explicit ini file rather than QSettings' native backend (the Windows registry, macOS plists) keeps
the settings in one readable place that a user can inspect, back up or delete.

API keys never go here: they live in their own 0600 key store (:mod:`engine.llm.keys`). This class
refuses to store anything that looks like a key, so a settings file can be shared in a bug report.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import platformdirs
from PySide6.QtCore import QSettings

__all__ = ["DEFAULT_BASE_URLS", "ZOOM_RANGE", "AppSettings", "SecretInSettingsError", "settings_path"]

#: Base URLs used when the user set none (the SDKs' own defaults, and Ollama for local servers).
DEFAULT_BASE_URLS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    "local": "http://localhost:11434/v1",
}

#: The smallest and the largest zoom factor of the window.
ZOOM_RANGE = (0.5, 3.0)

_SETTINGS_FILE = "playtrace.ini"
# Setting names that would mean a secret is about to be written (whatever the value looks like).
_SECRET_NAME = re.compile(r"(?i)(api[_-]?key|secret|password|token(?!s)|bearer|authorization)")
# Values shaped like provider keys.
_SECRET_VALUE = re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}|\bsk-ant-[A-Za-z0-9_\-]{6,}|(?i:\bbearer\s+\S{6,})")


class SecretInSettingsError(ValueError):
    """Raised when something that looks like an API key is about to be written into the settings."""


def settings_path() -> Path:
    """Where the settings file lives (see the module docstring)."""
    home = os.environ.get("PLAYTRACE_HOME")
    folder = (
        Path(home) / "config" if home else Path(platformdirs.user_config_dir("PlayTrace", appauthor=False))
    )
    return folder / _SETTINGS_FILE


def _looks_secret(value: Any) -> bool:
    if isinstance(value, str):
        return bool(_SECRET_VALUE.search(value))
    if isinstance(value, Mapping):
        return any(_SECRET_NAME.search(str(k)) or _looks_secret(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_looks_secret(v) for v in value)
    return False


class AppSettings:
    """Typed access to PlayTrace's ini settings.

    Args:
        path: The ini file; defaults to :func:`settings_path` (evaluated when the object is made).
    """

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else settings_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._qs = QSettings(str(self.path), QSettings.Format.IniFormat)

    # ------------------------------------------------------------------ raw access

    def value(self, name: str, default: Any = None) -> Any:
        """The raw stored value of ``name`` (a string for most values), or ``default``."""
        return self._qs.value(name, default)

    def set_value(self, name: str, value: Any) -> None:
        """Store ``value`` under ``name``.

        Raises:
            SecretInSettingsError: the name or the value looks like an API key or other secret.
        """
        leaf = name.rsplit("/", 1)[-1]
        if _SECRET_NAME.search(leaf) or _looks_secret(value):
            # The message names the setting, never the value.
            raise SecretInSettingsError(
                f"refusing to store a secret in the settings file ({name}); API keys go to the key store"
            )
        self._qs.setValue(name, value)

    def remove(self, name: str) -> None:
        self._qs.remove(name)

    def sync(self) -> None:
        """Write pending changes to disk now (Qt also writes them on its own, a little later)."""
        self._qs.sync()

    # ------------------------------------------------------------------ first launch

    @property
    def demo_done(self) -> bool:
        """Whether the person has started a game of their own or opened a session (then the app no
        longer plays the demo on launch)."""
        value = self._qs.value("app/demo_done", False)
        if isinstance(value, str):
            return value.strip().lower() in ("1", "true", "yes", "on")
        return bool(value)

    @demo_done.setter
    def demo_done(self, done: bool) -> None:
        self.set_value("app/demo_done", bool(done))

    # ------------------------------------------------------------------ zoom

    @property
    def zoom(self) -> float:
        """The window's zoom factor (1.0 = normal size), clamped to :data:`ZOOM_RANGE`."""
        try:
            value = float(self._qs.value("app/zoom", 1.0))
        except (TypeError, ValueError):
            return 1.0
        if value != value:  # NaN from a hand-edited file
            return 1.0
        return min(max(value, ZOOM_RANGE[0]), ZOOM_RANGE[1])

    @zoom.setter
    def zoom(self, factor: float) -> None:
        self.set_value("app/zoom", round(min(max(float(factor), ZOOM_RANGE[0]), ZOOM_RANGE[1]), 3))

    # ------------------------------------------------------------------ providers

    def base_url(self, provider: str) -> str:
        """The base URL for ``provider``: the saved one, else the default."""
        value = self._qs.value(f"providers/{provider}_base_url")
        return str(value) if value else DEFAULT_BASE_URLS.get(provider, "")

    def set_base_url(self, provider: str, url: str) -> None:
        url = url.strip()
        if url:
            self.set_value(f"providers/{provider}_base_url", url)
        else:
            self.remove(f"providers/{provider}_base_url")

    def default_model(self, provider: str) -> str:
        """The model name preselected for ``provider`` ("" when none)."""
        value = self._qs.value(f"providers/{provider}_model")
        return str(value) if value else ""

    def set_default_model(self, provider: str, model: str) -> None:
        model = model.strip()
        if model:
            self.set_value(f"providers/{provider}_model", model)
        else:
            self.remove(f"providers/{provider}_model")
