"""Sharing sessions: one ``.session.zip`` per session, the session folder zipped as it is."""

from __future__ import annotations

import json
import os
import re
import secrets
import tempfile
import zipfile
from pathlib import Path

from sessions import _zip, schema
from sessions.errors import SessionError
from sessions.reader import load_folder, load_session
from sessions.writer import atomic_write_json

ZIP_SUFFIX = ".session.zip"
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$")


def export_zip(session_path: Path | str, dest: Path | str) -> Path:
    """Zip a session as ``<id>/manifest.json``, ``<id>/events.jsonl`` and ``<id>/attachments/...``.

    Args:
        session_path: Anything :func:`sessions.load_session` accepts.
        dest: A folder (the archive is named ``<id>.session.zip`` inside it) or the archive's path.

    Returns:
        The path of the written archive (written to a temporary name first, then renamed).

    Raises:
        SessionError: ``session_path`` is not a session.
    """
    session = load_session(session_path)
    dest = Path(dest)
    sid = session.id if _SAFE_ID.match(session.id) else session.path.name
    target = dest / f"{sid}{ZIP_SUFFIX}" if dest.is_dir() else dest
    target.parent.mkdir(parents=True, exist_ok=True)
    files = [session.path / schema.MANIFEST_FILE, session.path / schema.EVENTS_FILE]
    att_dir = session.path / schema.ATTACHMENTS_DIR
    if att_dir.is_dir():
        files += sorted(p for p in att_dir.iterdir() if schema.ATTACHMENT_NAME_RE.match(p.name))
    fd, tmp = tempfile.mkstemp(prefix=".export.", suffix=".zip", dir=target.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for f in files:
                if f.is_file():
                    # PNGs are already compressed; storing them saves time for nothing lost.
                    kind = zipfile.ZIP_STORED if f.suffix == ".png" else zipfile.ZIP_DEFLATED
                    zf.write(f, f"{sid}/{f.relative_to(session.path).as_posix()}", compress_type=kind)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def import_zip(zip_path: Path | str, root: Path | str) -> Path:
    """Unpack an exported session into ``root`` and return its new folder.

    The archive is checked before anything lands in ``root``: unsafe member paths (absolute,
    ``..``, symbolic links) and archives that hold no PlayTrace session are refused. It is unpacked
    into a hidden temporary folder inside ``root``, loaded to prove it is a session, then renamed into
    place, so ``root`` never holds half an import. An id already present gets a ``-2``, ``-3``... suffix.

    Raises:
        SessionError: the file is not a safe PlayTrace session archive.
    """
    zip_path, root = Path(zip_path), Path(root)
    root.mkdir(parents=True, exist_ok=True)
    with _zip.open_zip(zip_path) as zf:
        prefix, members = _zip.session_members(zf, zip_path)
        tmp = Path(tempfile.mkdtemp(prefix=".import-", dir=root))
        try:
            _zip.extract_members(zf, members, tmp, zip_path)
            fallback = prefix or zip_path.name.removesuffix(".zip").removesuffix(".session")
            session = load_folder(tmp, source=zip_path, name=fallback)
            original = session.id
            base = original if _SAFE_ID.match(original) else f"imported_{secrets.token_hex(4)}"
            final, n = root / base, 1
            while final.exists():
                n += 1
                final = root / f"{base}-{n}"
            manifest_file = tmp / schema.MANIFEST_FILE
            if final.name != original and manifest_file.is_file():
                # Keep the manifest id equal to the folder name; remember where it came from.
                manifest = json.loads(manifest_file.read_bytes())
                manifest["id"] = final.name
                extra = manifest.get("extra")
                manifest["extra"] = {**(extra if isinstance(extra, dict) else {}), "imported_from": original}
                atomic_write_json(manifest_file, manifest)
            os.replace(tmp, final)
        except BaseException:
            _zip.remove_tree(tmp)
            raise
    return final


__all__ = ["ZIP_SUFFIX", "SessionError", "export_zip", "import_zip"]
