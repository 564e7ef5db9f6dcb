"""PlayTrace's bundled data files: fonts, icons, sprites, level and case files.

Other packages locate a file with :func:`path` rather than building paths from ``__file__``, so the
lookup keeps working when PlayTrace is installed as a wheel or frozen into an installer.
"""

from __future__ import annotations

import pathlib
from importlib import resources

__all__ = ["path"]


def path(*parts: str) -> pathlib.Path:
    """The filesystem path of a file (or folder) inside the assets package.

    Args:
        *parts: Path components below the package, e.g. ``path("fonts", "DejaVuSans.ttf")``.

    Returns:
        The path; it is not checked for existence, so callers can test ``.exists()`` themselves.

    Raises:
        ValueError: a component is absolute or climbs out of the package with ``..``.
    """
    for part in parts:
        pure = pathlib.PurePath(part)
        if pure.is_absolute() or ".." in pure.parts:
            raise ValueError(f"asset path components must stay inside the assets package, not {part!r}")
    root = resources.files(__name__)
    # Installed from a wheel, an editable checkout or a frozen bundle, the package is a real folder and
    # ``files()`` already gives a pathlib.Path; anything else (a zip import) falls back to the module's
    # folder, which is where setuptools' package-data puts the files.
    base = root if isinstance(root, pathlib.Path) else pathlib.Path(__file__).resolve().parent
    return base.joinpath(*parts)
