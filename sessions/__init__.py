"""PlayTrace sessions: the append-only, crash-safe record of every game played.

One folder per session (``manifest.json``, ``events.jsonl``, ``attachments/``); see
:mod:`sessions.schema` for the format. Qt-free: imports only the standard library, platformdirs and
the engine.
"""

from sessions._files import publish as publish_file
from sessions._files import read_manifest
from sessions._lock import FileLock
from sessions.catalogue import Catalogue, SessionSummary
from sessions.errors import MigrationError, SessionError
from sessions.export import export_zip, import_zip
from sessions.paths import default_root, user_data_dir
from sessions.reader import Session, attachment_path, load_session
from sessions.redact import redact, register_secret
from sessions.schema import SCHEMA_VERSION
from sessions.writer import SessionWriter

__all__ = [
    "publish_file",
    "SCHEMA_VERSION",
    "Catalogue",
    "FileLock",
    "MigrationError",
    "Session",
    "SessionError",
    "SessionSummary",
    "SessionWriter",
    "attachment_path",
    "default_root",
    "export_zip",
    "import_zip",
    "load_session",
    "read_manifest",
    "redact",
    "register_secret",
    "user_data_dir",
]
