"""A recorded session as an animated GIF and an MP4 (imageio + its ffmpeg plugin), from the module and
from ``playtrace export SESSION out.gif|out.mp4 [--from N --to M]``; frames read back with imageio."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import imageio.v2 as iio2
import imageio.v3 as iio
import numpy as np
import pytest

import sessions
from desktop import cli
from desktop.episode import start_episode
from desktop.video_export import DEFAULT_SIZE, VideoExportError, export_video, plan_video, prepare


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real tic-tac-toe game: the simulated model (X) against minimax, as the engine records it."""
    root = tmp_path_factory.mktemp("sessions")
    episode = start_episode("tictactoe", ["sim", "minimax"], root=root, seed=3, model_options={"latency": 0})
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(episode.run())
    finally:
        loop.close()
    return episode.path


def read_gif(path: Path) -> np.ndarray:
    return iio.imread(path, index=None)


def read_mp4(path: Path) -> list[np.ndarray]:
    reader = iio2.get_reader(path, format="FFMPEG")
    try:
        return [np.asarray(frame) for frame in reader]
    finally:
        reader.close()


def _all_differ(frames: Any) -> bool:
    return all(not np.array_equal(a, b) for a, b in zip(frames, frames[1:], strict=False))


@pytest.mark.parametrize("suffix", [".gif", ".mp4"])
def test_a_recorded_session_exports_one_frame_per_board(
    qapp: Any, recorded: Path, tmp_path: Path, suffix: str
) -> None:
    prepare()
    session = sessions.load_session(recorded)
    done: list[tuple[int, int]] = []
    out = export_video(session, tmp_path / f"game{suffix}", progress=lambda d, t: done.append((d, t)))
    frames = read_gif(out) if suffix == ".gif" else read_mp4(out)
    expected = session.num_steps + 1  # the first board, then the board after every move
    assert len(frames) == expected
    width, height = DEFAULT_SIZE
    assert all(f.shape[:2] == (height, width) for f in frames)
    assert _all_differ(frames)  # each step draws its own board and caption
    assert done == [(i, expected) for i in range(1, expected + 1)]
    assert [p.name for p in tmp_path.iterdir()] == [f"game{suffix}"]  # no temporary file left


def test_the_caption_band_carries_the_rationale(qapp: Any, recorded: Path, tmp_path: Path) -> None:
    from desktop.video_export import caption_of

    session = sessions.load_session(recorded)
    caption = caption_of(session.events_for_step(0), ["X", "O"])
    decision = next(e for e in session.events_for_step(0) if e["type"] == "decision")
    assert caption.startswith(f"X plays {decision['data']['action']}")
    assert decision["data"]["rationale"].split(". ")[0] in caption


def test_cli_exports_a_range_of_steps(
    qapp: Any, recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gif, mp4 = tmp_path / "part.gif", tmp_path / "part.mp4"
    assert cli.main(["export", str(recorded), str(gif), "--from", "2", "--to", "5"]) == 0
    assert capsys.readouterr().out.strip() == str(gif)
    assert len(read_gif(gif)) == 4
    assert cli.main(["export", str(recorded), str(mp4), "--from", "3", "--seconds-per-step", "0.5"]) == 0
    session = sessions.load_session(recorded)
    frames = read_mp4(mp4)
    # Steps 3..last (boards 2..last-1, numbered as the app numbers them), then the final position.
    assert len(frames) == session.num_steps - 3 + 1 + 1
    assert _all_differ(frames)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["out.gif", "--from", "5", "--to", "2"], "is after"),
        (["out.mp4", "--to", "99"], "outside this session's steps"),
        (["out.gif", "--from", "-1"], "outside this session's steps"),
        (["out.gif", "--from", "0", "--to", "3"], "outside this session's steps 1.."),
        (["out.avi"], "unknown format"),
        (["out.zip", "--from", "1"], "not of a zip archive"),
        (["out.gif", "--seconds-per-step", "0"], "must be between"),
    ],
)
def test_a_bad_range_or_format_is_a_one_line_usage_error(
    qapp: Any,
    recorded: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    dest, *rest = args
    code = cli.main(["export", str(recorded), str(tmp_path / dest), *rest])
    captured = capsys.readouterr()
    assert code == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in captured.err
    assert not list(tmp_path.iterdir())  # nothing written


def test_zip_export_is_unchanged(recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dest = tmp_path / "s.zip"
    assert cli.main(["export", str(recorded), str(dest)]) == 0
    assert sessions.load_session(dest).num_steps == sessions.load_session(recorded).num_steps


def test_an_animation_is_never_written_inside_the_session(qapp: Any, recorded: Path) -> None:
    session = sessions.load_session(recorded)
    with pytest.raises(VideoExportError, match="inside the session folder"):
        plan_video(session, recorded / "events.gif")
