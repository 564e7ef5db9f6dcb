"""A recorded session as an animated GIF or an MP4: the board of every step with a caption line.

Each frame is drawn by the game's own renderer (:func:`renderers.get`) from a state the session
rebuilds (:meth:`sessions.Session.state_at`), with the move chosen on that board highlighted and, in a
band under the board, the step number and the decision's one-sentence rationale. Encoding is
imageio's: the Pillow plugin for GIF, and the FFMPEG plugin (the ffmpeg binary shipped in the
``imageio-ffmpeg`` wheel) for MP4. Nothing here touches a widget, so the app runs :func:`export_video`
in a worker thread (after :func:`prepare` on the GUI thread) and the CLI runs it directly.

Steps are numbered as the app numbers them (:mod:`desktop.status`): step N is the decision made on the
N-th board, so board index ``k`` (``Session.state_at(k)``) is step ``k + 1``. A range of steps
``first..last`` gives the board of each of those steps and, when it reaches the last step, the final
position after it: ``last - first + 1`` frames, one more with the final position.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import re
import tempfile
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter

from desktop.status import position_text, step_number
from engine import events as ev
from engine.players import HUMAN, MODEL
from sessions import publish_file

__all__ = [
    "FORMATS",
    "VideoExportError",
    "VideoPlan",
    "caption_of",
    "export_video",
    "fit_lines",
    "plan_video",
    "prepare",
    "rationale_sentence",
    "video_format",
]

#: File suffix -> format name of the animations this module writes.
FORMATS: dict[str, str] = {".gif": "gif", ".mp4": "mp4"}

#: Frame size (width, height). Multiples of 16 so the H.264 encoder never has to resize a frame.
DEFAULT_SIZE = (640, 768)
#: How long each board is shown, in seconds.
DEFAULT_SECONDS_PER_STEP = 1.0

# The caption band: high-contrast, readable when a talk's slide shows the animation.
_BAND_BG = "#111827"
_BAND_INK = "#FFFFFF"
_BAND_MUTED = "#CBD5E1"
# A sentence ends at . ! or ? before a space (not in "e.g." or "i.e.", nor in a number such as 1.5).
_SENTENCE_END = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<=[.!?])\s+")


class VideoExportError(ValueError):
    """A request that cannot be exported (unknown format, bad range); the message is one line."""


def video_format(path: Path | str) -> str | None:
    """``"gif"`` or ``"mp4"`` for a destination with that suffix, else ``None``."""
    return FORMATS.get(Path(path).suffix.lower())


def rationale_sentence(text: Any, limit: int = 160) -> str:
    """The first sentence of a rationale, on one line and at most ``limit`` characters."""
    if not isinstance(text, str):
        return ""
    flat = " ".join(text.split())
    if not flat:
        return ""
    first = _SENTENCE_END.split(flat, maxsplit=1)[0]
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def caption_of(
    records: Iterable[Mapping[str, Any]], seat_names: Sequence[str], model_seats: Collection[int] = ()
) -> str:
    """The caption of one step: who chose what, and why (the decision's rationale, one sentence).

    ``records`` are the step's events (as a session or the app's session model gives them). A person's
    move at one of ``model_seats`` (a person took the model's seat over) says so.
    """
    parts: list[str] = []
    for record in records:
        if record.get("type") != ev.DECISION:
            continue
        data = record.get("data") or {}
        seat = record.get("seat")
        name = seat_names[seat] if isinstance(seat, int) and 0 <= seat < len(seat_names) else ""
        action = data.get("action")
        if action is None:
            continue
        head = f"{name} plays {action}" if name else f"plays {action}"
        if data.get("source") == HUMAN and seat in model_seats:
            head += " (a person took over)"
        why = rationale_sentence(data.get("rationale"))
        parts.append(f"{head} — “{why}”" if why else head)
    return " · ".join(parts)


def _chosen(records: Iterable[Mapping[str, Any]]) -> list[str]:
    for record in records:
        if record.get("type") == ev.ACTION_APPLIED:
            actions = (record.get("data") or {}).get("actions") or {}
            if isinstance(actions, Mapping):
                return [str(a) for a in actions.values()]
    return []


def _first_step(session: Any) -> int:
    """The number of the session's first board (0, or the step a fork started from)."""
    for event in session.events:
        if event.get("type") == ev.SESSION_STARTED:
            step = event.get("step")
            return step if isinstance(step, int) and not isinstance(step, bool) else 0
        break
    return 0


@dataclasses.dataclass(frozen=True)
class VideoPlan:
    """What :func:`export_video` will write: the session, the format and the boards drawn, as state
    indexes ``first..last`` (inclusive; ``base`` is the index of the session's first board)."""

    session: Any
    dest: Path
    fmt: str
    first: int
    last: int
    base: int

    @property
    def frames(self) -> int:
        return self.last - self.first + 1


def plan_video(
    session: Any, dest: Path | str, *, first: int | None = None, last: int | None = None
) -> VideoPlan:
    """Check a request and say what it will write.

    ``first`` and ``last`` are step numbers as the app shows them (default: the first and the last
    step); the final position is drawn after the last step.

    Raises:
        VideoExportError: the suffix is not ``.gif``/``.mp4``, or the range is empty or outside the
            session's steps (the message names the valid range).
    """
    dest = Path(dest)
    fmt = video_format(dest)
    if fmt is None:
        raise VideoExportError(
            f"cannot export to {dest.name!r}: the format is chosen by the suffix, .gif or .mp4 (or .zip)"
        )
    base = _first_step(session)
    head = base + int(session.num_steps)
    low, high = step_number(base), step_number(head - 1)
    lo = low if first is None else int(first)
    hi = high if last is None else int(last)
    if head == base and first is None and last is None:
        lo, hi = low, low - 1  # no step was played: the first board alone
    elif not (low <= lo <= high and low <= hi <= high):
        steps = f"steps {low}..{high}" if head > base else "no steps"
        raise VideoExportError(f"steps {lo}..{hi} are outside this session's {steps}")
    elif lo > hi:
        raise VideoExportError(f"--from {lo} is after --to {hi}: the range is empty")
    folder = Path(session.path).resolve()
    target = dest.resolve()
    if target == folder or folder in target.parents:
        raise VideoExportError(f"{dest} is inside the session folder; export next to it instead")
    # Board index k is step k + 1; the final position follows the last step.
    last_index = head if hi == high else hi - 1
    return VideoPlan(session, dest, fmt, max(base, lo - 1), max(base, last_index), base)


def prepare() -> None:
    """Set up drawing on the GUI thread (Qt's font registration is not thread-safe); call it there
    before :func:`export_video` runs in a worker thread."""
    import renderers
    from renderers.base import font_family

    renderers.ensure_gui_app()
    font_family()


def _model_seats(session: Any) -> set[int]:
    """The seats a model plays in ``session`` (from its manifest)."""
    players = session.manifest.get("players") or []
    return {
        int(p.get("seat", i))
        for i, p in enumerate(players)
        if isinstance(p, Mapping) and p.get("kind") == MODEL
    }


def _seat_names(session: Any) -> list[str]:
    try:
        return [s.name for s in session.game().seats]
    except Exception:  # noqa: BLE001  (an unknown game still exports, with unnamed seats)
        return []


def fit_lines(text: str, font: QFont, width: float, max_lines: int) -> list[str]:
    """Word-wrap ``text`` to ``width`` pixels; the last line is elided when it does not fit."""
    metrics = QFontMetricsF(font)
    if max_lines <= 1:
        return [metrics.elidedText(" ".join(text.split()), Qt.TextElideMode.ElideRight, width)]
    lines: list[str] = []
    current = ""
    words = text.split()
    for i, word in enumerate(words):
        trial = f"{current} {word}".strip()
        if metrics.horizontalAdvance(trial) <= width or not current:
            current = trial
            continue
        lines.append(current)
        current = word
        if len(lines) == max_lines - 1:
            current = " ".join(words[i:])
            break
    if current:
        lines.append(metrics.elidedText(current, Qt.TextElideMode.ElideRight, width))
    return lines[:max_lines]


def draw_frame(
    renderer: Any, state: Any, title: str, caption: str, size: tuple[int, int], highlight: Sequence[str] = ()
) -> QImage:
    """One frame: the board drawn by ``renderer`` above a dark band with ``title`` and ``caption``."""
    from renderers.base import THEME, color, font

    width, height = size
    band = max(96, height // 6)
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(color(THEME.background))
    painter = QPainter(image)
    try:
        painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        renderer.paint(painter, state, QRectF(0, 0, width, height - band), highlight=tuple(highlight))
        painter.fillRect(QRectF(0, height - band, width, band), QColor(_BAND_BG))
        margin = 16.0
        title_font = font(band * 0.2, bold=True)
        text_font = font(band * 0.17)
        painter.setFont(title_font)
        painter.setPen(QColor(_BAND_MUTED))
        title_h = QFontMetricsF(title_font).height()
        painter.drawText(
            QRectF(margin, height - band + 8, width - 2 * margin, title_h),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            title,
        )
        painter.setFont(text_font)
        painter.setPen(QColor(_BAND_INK))
        line_h = QFontMetricsF(text_font).lineSpacing()
        y = height - band + 8 + title_h + 4
        room = int((height - y - 6) // line_h) or 1
        for line in fit_lines(caption, text_font, width - 2 * margin, room):
            painter.drawText(
                QRectF(margin, y, width - 2 * margin, line_h),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                line,
            )
            y += line_h
    finally:
        painter.end()
    return image


def to_array(image: QImage) -> np.ndarray:
    """An RGB ``uint8`` array (height x width x 3) of ``image``."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    h, w, stride = rgb.height(), rgb.width(), rgb.bytesPerLine()
    buffer = np.frombuffer(rgb.constBits(), dtype=np.uint8, count=stride * h).reshape(h, stride)
    return buffer[:, : w * 3].reshape(h, w, 3).copy()


def frames(plan: VideoPlan, size: tuple[int, int] = DEFAULT_SIZE) -> Iterable[np.ndarray]:
    """The frames of ``plan``, one per board, drawn as :func:`draw_frame` draws them."""
    import renderers

    session = plan.session
    renderer = renderers.get(session.game_id)
    names = _seat_names(session)
    models = _model_seats(session)
    head = plan.base + int(session.num_steps)
    for step in range(plan.first, plan.last + 1):
        index = step - plan.base
        state = session.state_at(index)
        records = session.events_for_step(index) if step < head else []
        caption = caption_of(records, names, models)
        if step == head:
            result = (session.summary() or {}).get("result") or ""
            caption = result or ("" if session.finished else "The recording ends here")
        title = position_text(step, head)
        yield to_array(draw_frame(renderer, state, title, caption, size, _chosen(records)))


#: How long a board may be shown: a GIF frame lasts at most 65.535 s, and a hundredth of a second is
#: the shortest most viewers show.
SECONDS_PER_STEP_RANGE = (0.02, 60.0)


def check_seconds_per_step(value: float) -> None:
    """Refuse a time per board outside :data:`SECONDS_PER_STEP_RANGE` (and NaN)."""
    low, high = SECONDS_PER_STEP_RANGE
    if not (math.isfinite(value) and low <= value <= high):
        raise VideoExportError(f"seconds per step must be between {low:g} and {high:g}, not {value:g}")


def export_video(
    session: Any,
    dest: Path | str,
    *,
    first: int | None = None,
    last: int | None = None,
    seconds_per_step: float = DEFAULT_SECONDS_PER_STEP,
    size: tuple[int, int] = DEFAULT_SIZE,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Path:
    """Write ``session`` (a loaded :class:`sessions.Session`) as a GIF or an MP4 at ``dest``.

    The file appears complete or not at all: frames go to a temporary file next to ``dest`` that
    replaces it at the end. ``progress(done, total)`` is called after each frame; ``cancelled()``
    returning true stops the export (and removes the temporary file).

    Raises:
        VideoExportError: see :func:`plan_video`; also when ``cancelled`` stopped it.
        OSError: the file could not be written.
    """
    plan = plan_video(session, dest, first=first, last=last)
    check_seconds_per_step(seconds_per_step)
    out = plan.dest
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out.stem}-", suffix=out.suffix, dir=out.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    total = plan.frames
    try:
        with _writer(plan.fmt, tmp, seconds_per_step) as write:
            for done, frame in enumerate(frames(plan, size), start=1):
                if cancelled is not None and cancelled():
                    raise VideoExportError("export cancelled")
                write(frame)
                if progress is not None:
                    progress(done, total)
        publish_file(tmp)  # a GIF or video is for sharing: the umask's permissions, not mkstemp's 0600
        os.replace(tmp, out)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    return out


@contextlib.contextmanager
def _writer(fmt: str, path: Path, seconds_per_step: float) -> Any:
    import imageio.v2 as iio
    import imageio.v3 as iio3

    if fmt == "gif":
        from imageio.plugins.pillow import PillowPlugin

        # The Pillow plugin collects the frames and writes them, looping, when it is closed.
        file = iio3.imopen(path, "w", plugin="pillow", extension=".gif")
        try:
            yield lambda frame: file.write(
                frame, is_batch=False, duration=round(seconds_per_step * 1000), loop=0
            )
            file.close()
        except BaseException:
            # It tries to write what it holds again when it is collected: after a failed write (a full
            # disk) or a cancel it must hold nothing, or that second failure is printed as a traceback.
            if isinstance(file, PillowPlugin):
                file.images_to_write.clear()
            with contextlib.suppress(Exception):
                file.close()
            raise
        return
    writer = iio.get_writer(
        path,
        format="FFMPEG",
        mode="I",
        fps=1.0 / seconds_per_step,
        codec="libx264",
        pixelformat="yuv420p",
        macro_block_size=16,
        quality=8,
        # A player should show the first board at once: every frame a key frame is cheap at 1 fps.
        output_params=["-g", "1"],
    )
    try:
        yield writer.append_data
    finally:
        writer.close()
