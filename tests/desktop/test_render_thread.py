"""The real board renderer works from a worker thread once its fonts were registered on the GUI thread."""

from __future__ import annotations

import asyncio
import threading

import engine
from desktop.episode import png_renderer


def test_png_renderer_draws_the_same_image_in_a_worker_thread(qapp: object) -> None:
    from renderers import base

    render = png_renderer("2048", 128)
    assert render is not None
    # png_renderer registered the bundled fonts on this (the GUI) thread, before any worker draws.
    assert base._bundled_families.cache_info().currsize == 1
    state = engine.make("2048").initial_state(7)
    here = render(state)
    names: list[str] = []

    def in_thread() -> bytes:
        names.append(threading.current_thread().name)
        return render(state)

    there = asyncio.run(asyncio.to_thread(in_thread))
    assert names and names[0] != threading.main_thread().name
    assert there.startswith(b"\x89PNG") and there == here
