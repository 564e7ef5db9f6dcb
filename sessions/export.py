"""Sharing sessions: one ``.session.zip`` per session, the session folder zipped as it is."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import tempfile
import zipfile
from pathlib import Path

from sessions import _files, _zip, schema
from sessions._lock import WriterLock
from sessions.errors import SessionError
from sessions.reader import load_folder, load_session
from sessions.writer import atomic_write_json

ZIP_SUFFIX = ".session.zip"
#: Hidden work folder of an import in progress, inside the sessions folder.
IMPORT_PREFIX = ".import-"
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$")


def export_zip(session_path: Path | str, dest: Path | str) -> Path:
    """Zip a session as ``<id>/manifest.json``, ``<id>/events.jsonl``, ``<id>/attachments/...`` and
    its annotations, ``<id>/annotations/<annotator>.jsonl``.

    Args:
        session_path: Anything :func:`sessions.load_session` accepts.
        dest: A folder (the archive is named ``<id>.session.zip`` inside it) or the archive's path.

    Returns:
        The path of the written archive (written to a temporary name first, then renamed).

    Only the session's own regular files are exported: a manifest or event log that is a symbolic
    link (or a FIFO, a device...) is refused, and attachments that are links are left out.

    Raises:
        SessionError: ``session_path`` is not a session, one of its files is not a regular file of
            its own, or ``dest`` lies inside the session (writing there would damage it).
    """
    session = load_session(session_path)
    dest = Path(dest)
    sid = session.id if _SAFE_ID.match(session.id) else session.path.name
    target = dest / f"{sid}{ZIP_SUFFIX}" if dest.is_dir() else dest
    folder = session.path.resolve()
    resolved = target.parent.resolve() / target.name
    if resolved == folder or resolved.is_relative_to(folder):
        raise SessionError(
            f"{target} is inside the session {session.id}; export it to a file outside its folder."
        )
    files = []
    for name in (schema.MANIFEST_FILE, schema.EVENTS_FILE):
        f = session.path / name
        if os.path.lexists(f):
            if not _files.is_regular(f):
                raise SessionError(
                    f"{session.id}/{name} is not a regular file of the session (a link?); export refused."
                )
            files.append(f)
    att_dir = session.path / schema.ATTACHMENTS_DIR
    if att_dir.is_dir() and not att_dir.is_symlink():
        files += sorted(
            p for p in att_dir.iterdir() if schema.ATTACHMENT_NAME_RE.match(p.name) and _files.is_regular(p)
        )
    notes_dir = session.path / schema.ANNOTATIONS_DIR
    if notes_dir.is_dir() and not notes_dir.is_symlink():
        files += sorted(
            p for p in notes_dir.iterdir() if schema.ANNOTATION_NAME_RE.match(p.name) and _files.is_regular(p)
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".export.", suffix=".zip", dir=target.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for f in files:
                # Opened without following links and checked again on the open file, so a file
                # swapped for a link after the listing is not exported either.
                fd_in, _ = _files.open_regular(f, follow=False)
                with os.fdopen(fd_in, "rb") as src:
                    # PNGs are already compressed; storing them saves time for nothing lost.
                    kind = zipfile.ZIP_STORED if f.suffix == ".png" else zipfile.ZIP_DEFLATED
                    info = zipfile.ZipInfo.from_file(f, f"{sid}/{f.relative_to(session.path).as_posix()}")
                    info.compress_type = kind
                    with zf.open(info, "w") as out:
                        shutil.copyfileobj(src, out, 1 << 20)
        _files.publish(tmp)  # an export is for sharing: the umask's permissions, not mkstemp's 0600
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
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SessionError(f"cannot create the sessions folder {root}: {exc.strerror or exc}") from None
    _files.sweep_stale(root, IMPORT_PREFIX)
    with _zip.open_zip(zip_path) as zf:
        prefix, members = _zip.session_members(zf, zip_path)
        _zip.check_sizes(members, zip_path)
        tmp = Path(tempfile.mkdtemp(prefix=IMPORT_PREFIX, dir=root))
        # Held while the import runs: a folder whose lock nobody holds was left by a killed import.
        lock = WriterLock(tmp)
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
                manifest = _files.read_manifest(manifest_file)
                manifest["id"] = final.name
                extra = manifest.get("extra")
                manifest["extra"] = {**(extra if isinstance(extra, dict) else {}), "imported_from": original}
                atomic_write_json(manifest_file, manifest)
            # Renamed with the lock held: a kill before the rename leaves an abandoned work folder.
            os.replace(tmp, final)
            lock.moved(final)
            lock.release()
        except BaseException:
            lock.release()
            _zip.remove_tree(tmp)
            raise
    return final


__all__ = ["ZIP_SUFFIX", "SessionError", "export_zip", "import_zip"]
