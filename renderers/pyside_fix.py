"""A guard against a reference-counting bug of PySide6 6.12.0 on Python 3.10 and 3.11.

In that release every Qt method that returns nothing hands ``None`` back to Python without taking a
reference to it (harmless from Python 3.12 on, where ``None`` is immortal). On 3.11 each such call
lowers ``None``'s reference count by one; a few thousand painter calls later the count reaches zero and
the interpreter aborts with "Fatal Python error: none_dealloc". PySide6 6.11 does not have the bug.

:func:`protect_none_refcount` detects the bug with a harmless probe and, only when it is present,
raises ``None``'s reference count far out of reach (what Python 3.12 does by design), so the leak can
never bring it to zero. It is applied when :mod:`renderers` is imported; other Qt-using entry points
(the desktop app, test set-up) may call it too, since the leak comes from any PySide6 call.
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtGui import QColor

__all__ = ["protect_none_refcount"]

# Enough headroom for a process leaking a million references a second to run for twelve days.
_HEADROOM = 1 << 40
_PROBE_CALLS = 16
_protected = False


def protect_none_refcount() -> bool:
    """Make ``None`` safe from PySide6's lost references if (and only if) this PySide6 loses them.

    Returns:
        Whether the protection was applied by this call (``False`` when it was not needed, was
        already applied, or cannot be applied on this interpreter).
    """
    global _protected
    if _protected or sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return False
    if hasattr(sys, "getobjects"):
        # A trace-refs debug build puts two list pointers before the count; leave such builds alone.
        return False
    probe = QColor()
    before = sys.getrefcount(None)
    for _ in range(_PROBE_CALLS):
        probe.setAlpha(255)
    lost = before - sys.getrefcount(None)
    if lost < _PROBE_CALLS:
        return False
    # ob_refcnt is the first field of every object on release builds of CPython 3.11 and earlier.
    ctypes.c_ssize_t.from_address(id(None)).value += _HEADROOM + lost
    _protected = True
    return True
