"""Where sessions live on disk.

Users' sessions belong in the platform's user-data folder (never in the repository). The
``PLAYTRACE_HOME`` environment variable replaces that folder, so tests and portable installs can
keep everything in one place.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

#: Environment variable that overrides the PlayTrace user-data folder.
HOME_ENV = "PLAYTRACE_HOME"
APP_NAME = "PlayTrace"


def user_data_dir() -> Path:
    """The PlayTrace user-data folder: ``$PLAYTRACE_HOME`` if set, else the platform's folder."""
    override = os.environ.get(HOME_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    # appauthor=False keeps Windows from nesting the folder under a company name.
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def default_root() -> Path:
    """The folder that holds one sub-folder per session (not created here)."""
    return user_data_dir() / "sessions"
