"""``playtrace --self-test``: checks an installation (a bundle on an annotator's machine) offscreen."""

from __future__ import annotations


def self_test() -> int:
    print("self-test: not available yet")
    return 1
