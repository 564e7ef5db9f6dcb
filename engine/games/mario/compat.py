"""Loading nes-py and the Super Mario Bros ROM under the NumPy PlayTrace runs with (2.x).

Imported only when an emulator is first needed, never when the game is listed, so PlayTrace starts
without the ``mario`` extra installed.

**The ROM header under NumPy 2.** nes-py reads a cartridge's iNES header with
``ROM.header = raw_data[:16]``, a ``uint8`` array, and computes sizes from it such as
``prg_rom_size * 2**10`` with ``prg_rom_size = 16 * header[4]``. NumPy 2 adopted NEP 50: a Python
integer mixed with a NumPy scalar takes the scalar's type, so ``uint8(32) * 1024`` no longer widens to
a larger integer; it raises ``OverflowError: Python integer 1024 out of bounds for uint8``, and every
ROM fails to load. :func:`patch_rom_header` replaces the ``header`` property with one returning the
same 16 bytes as ``int64``. This is safe: the header is only read (the byte values are unchanged, only
their arithmetic type widens), the emulator itself receives the ROM path, not this array, and under
NumPy 1 the result is exactly what nes-py computed before. The patch is applied once, at import,
and checks that the class still has the attribute it replaces, so a fixed nes-py is left alone.

**gym.** nes-py's environment class derives from the old ``gym.Env``; importing gym prints a notice
("Gym has been unmaintained ...") on standard error. PlayTrace uses only the emulator through
nes-py (never gym's spaces, wrappers or checks), so the notice is held back while nes-py is imported.

**The ROM** is the one the installed ``gym_super_mario_bros`` package ships; :func:`rom_path` finds
it without importing that package (whose import registers old gym environments). PlayTrace never
copies it: the emulator reads it from there each time one starts.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["NESEnv", "header_fixed", "patch_rom_header", "rom_path"]

#: The ROM inside gym-super-mario-bros (its unmodified "vanilla" image).
ROM_FILE = ("_roms", "super-mario-bros.nes")


class MissingRomError(RuntimeError):
    """The ``gym_super_mario_bros`` package, and with it the ROM, is not installed."""


def rom_path() -> str:
    """The path of Super Mario Bros' ROM inside the installed ``gym_super_mario_bros`` package.

    Raises:
        MissingRomError: the package is not installed or holds no ROM.
    """
    spec = importlib.util.find_spec("gym_super_mario_bros")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in locations:
        candidate = Path(folder).joinpath(*ROM_FILE)
        if candidate.is_file():
            return str(candidate)
    raise MissingRomError(
        "Super Mario Bros needs the ROM that gym-super-mario-bros ships; install it with: "
        "pip install 'playtrace[mario]'"
    )


def _int_header(self: Any) -> np.ndarray:
    """The 16 header bytes as ``int64`` (see the module docstring)."""
    return np.asarray(self.raw_data[:16], dtype=np.int64)


def patch_rom_header(rom_class: Any) -> bool:
    """Make ``rom_class.header`` (nes-py's ``ROM``) give ``int64`` values; returns whether it patched.

    Idempotent; leaves a class alone when it has no ``header`` property (a changed nes-py).
    """
    current = rom_class.__dict__.get("header")
    if not isinstance(current, property):
        return False
    if current.fget is _int_header:
        return True
    rom_class.header = property(_int_header, doc="The iNES header as int64 values (PlayTrace's fix).")
    return True


def header_fixed(rom_class: Any) -> bool:
    """Whether ``rom_class`` reads headers through PlayTrace's fix."""
    current = rom_class.__dict__.get("header")
    return isinstance(current, property) and current.fget is _int_header


def _load() -> Any:
    with contextlib.redirect_stderr(io.StringIO()):
        from nes_py import _rom
        from nes_py.nes_env import NESEnv as _NESEnv
    patch_rom_header(_rom.ROM)
    return _NESEnv


#: nes-py's environment class, with the ROM header fix applied.
NESEnv = _load()
