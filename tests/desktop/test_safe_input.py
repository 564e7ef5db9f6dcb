"""Every command that reads a user's file or folder reads it through the safe input layer
(:mod:`engine.safeio`): special files, archives that unpack to too much, structures nested too deep
and paths that leave their folder are refused with one line and a non-zero exit, within seconds.

Each class of bad input is run against every command that takes that kind of input (parametrised).
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

import assets
from desktop import cli
from engine import safeio

pytestmark = pytest.mark.timeout(60)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, err: str) -> str:
    assert code != 0
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def task_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tasks") / "set"
    assert cli.main(["tasks", "generate", "tictactoe", "--task", "perceive", "--n", "3",
                     "--size", "64x64", "--out", str(folder)]) == 0
    return folder


@pytest.fixture(scope="module")
def results_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A study's results folder with one simulated participant."""
    base = tmp_path_factory.mktemp("study")
    study = base / "study.toml"
    assert cli.main(["study", "init", str(study)]) == 0
    out = base / "results"
    assert cli.main(["study", "simulate", str(study), "--participants", "1", "--out", str(out)]) == 0
    return out


def copy_task_set(src: Path, dest: Path) -> Path:
    import shutil

    shutil.copytree(src, dest)
    return dest


# -- special files: a FIFO and a device, in every command that reads a file -------------------------

#: Each command that reads a file the user names: builds its argv from the path of the bad file.
#: ``name`` is the file name the bad file gets (some commands look at the suffix).
FILE_COMMANDS: dict[str, tuple[str, Callable[[Path, Path], list[str]]]] = {
    "run --game-file": ("game.txt", lambda f, tmp: ["run", "vgdl", "--game-file", str(f), "--out", str(tmp)]),
    "run --level-file": ("lvl.txt", lambda f, tmp: [
        "run", "vgdl", "--game-file", str(assets.path("vgdl") / "crates.txt"), "--level-file", str(f),
        "--out", str(tmp)]),
    "run --option case_file": (
        "case.toml", lambda f, tmp: ["run", "courtroom", "--option", f"case_file={f}", "--out", str(tmp)]
    ),
    "vgdl check": ("game.txt", lambda f, tmp: ["vgdl", "check", str(f)]),
    "import": ("s.zip", lambda f, tmp: ["import", str(f), "--out", str(tmp / "sessions")]),
    "show": ("s.zip", lambda f, tmp: ["show", str(f)]),
    "sweep": ("sweep.toml", lambda f, tmp: ["sweep", str(f), "--dry-run", "--out", str(tmp / "sw")]),
    "study check": ("study.toml", lambda f, tmp: ["study", "check", str(f)]),
    "study simulate": (
        "study.toml",
        lambda f, tmp: ["study", "simulate", str(f), "--participants", "1", "--out", str(tmp / "r")],
    ),
    "study merge": ("results.zip", lambda f, tmp: ["study", "merge", str(f), "--out", str(tmp / "m")]),
    "annotations taxonomy": ("tax.toml", lambda f, tmp: ["annotations", "taxonomy", "--taxonomy", str(f)]),
    "tasks report": ("random.json", lambda f, tmp: ["tasks", "report", str(f)]),
}


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _device(path: Path) -> Path:
    path.symlink_to("/dev/zero")
    return path


@pytest.mark.parametrize("make_bad", [_fifo, _device], ids=["fifo", "dev-zero"])
@pytest.mark.parametrize("command", sorted(FILE_COMMANDS))
def test_special_files_are_refused_by_every_command(
    command: str, make_bad: Callable[[Path], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, argv = FILE_COMMANDS[command]
    bad = make_bad(tmp_path / name)
    code, _out, err = run_cli(capsys, *argv(bad, tmp_path))
    line = one_line_error(code, err)
    assert name in line or "/dev/zero" in line


@pytest.mark.parametrize("make_bad", [_fifo, _device], ids=["fifo", "dev-zero"])
def test_task_set_manifest_that_is_a_special_file(
    make_bad: Callable[[Path], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    make_bad(folder / "manifest.json")
    code, _out, err = run_cli(capsys, "tasks", "eval", str(folder), "--player", "random")
    assert "manifest.json" in one_line_error(code, err)


@pytest.mark.parametrize("make_bad", [_fifo, _device], ids=["fifo", "dev-zero"])
def test_study_results_file_that_is_a_special_file(
    make_bad: Callable[[Path], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    make_bad(folder / "study.toml")
    code, _out, err = run_cli(capsys, "study", "export", str(folder), "--out", str(tmp_path / "x.csv"))
    assert "study.toml" in one_line_error(code, err)


# -- a task set cannot send a file outside it to a model -------------------------------------------------


@pytest.mark.parametrize("image", ["/etc/hostname", "../secret.txt", "images/../../secret.txt", "link.png"])
def test_task_set_image_cannot_leave_the_set(
    image: str, task_set: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], loopback: object
) -> None:
    folder = copy_task_set(task_set, tmp_path / "set")
    (tmp_path / "secret.txt").write_text("private")
    (folder / "link.png").symlink_to(tmp_path / "secret.txt")
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["items"][0]["image"] = image
    (folder / "manifest.json").write_text(json.dumps(manifest))
    url = loopback.openai_base_url  # type: ignore[attr-defined]
    code, _out, err = run_cli(capsys, "tasks", "eval", str(folder), "--player", f"local:m@{url}")
    line = one_line_error(code, err)
    assert "outside" in line or "leaves" in line
    assert loopback.posts() == []  # type: ignore[attr-defined]  # nothing was sent


# -- deep structures ---------------------------------------------------------------------------------------

DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_TOML = "x = " + "[" * 5_000 + "]" * 5_000 + "\n"
DEEP_DOTTED = "a" + ".a" * 200 + " = 1\n"


@pytest.mark.parametrize("deep", [DEEP_TOML, DEEP_DOTTED], ids=["arrays", "dotted-keys"])
@pytest.mark.parametrize(
    "command", ["sweep", "study check", "annotations taxonomy", "run --option case_file"]
)
def test_deep_toml_is_refused_by_every_command(
    command: str, deep: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, argv = FILE_COMMANDS[command]
    path = tmp_path / name
    path.write_text(deep)
    code, _out, err = run_cli(capsys, *argv(path, tmp_path))
    one_line_error(code, err)


def test_deep_json_task_set(task_set: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = copy_task_set(task_set, tmp_path / "set")
    (folder / "manifest.json").write_text(DEEP_JSON)
    code, _out, err = run_cli(capsys, "tasks", "eval", str(folder), "--player", "random")
    assert "nested" in one_line_error(code, err)


def test_deep_json_results_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "random.json"
    path.write_text(DEEP_JSON)
    code, _out, err = run_cli(capsys, "tasks", "report", str(path))
    one_line_error(code, err)


def test_deep_json_case_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "case.json"
    path.write_text(DEEP_JSON)
    code, _out, err = run_cli(
        capsys, "run", "courtroom", "--option", f"case_file={path}", "--out", str(tmp_path)
    )
    assert "nested" in one_line_error(code, err)


def _session_zip(tmp_path: Path, manifest: bytes) -> Path:
    path = tmp_path / "deep.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("s/manifest.json", manifest)
        zf.writestr("s/events.jsonl", b"")
    return path


@pytest.mark.parametrize("command", ["import", "show"])
def test_deep_json_in_a_session_zip(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = b'{"format": "playtrace-session", "x": ' + b"[" * 500 + b"]" * 500 + b"}"
    _name, argv = FILE_COMMANDS[command]
    code, _out, err = run_cli(capsys, *argv(_session_zip(tmp_path, deep), tmp_path))
    assert code != 0
    assert "Traceback" not in err


# -- archives: caps over all members -----------------------------------------------------------------------


def _bomb(path: Path, members: int, member_mib: int, *, prefix: str, first: dict[str, bytes]) -> Path:
    """A zip whose members each unpack to ``member_mib`` MiB of zeros (small on disk)."""
    zero = b"\0" * (1024 * 1024)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in first.items():
            zf.writestr(prefix + name, data)
        for i in range(members):
            with zf.open(f"{prefix}attachments/sha256-{i:064x}.png", "w") as out:
                for _ in range(member_mib):
                    out.write(zero)
    return path


@pytest.fixture(scope="module")
def split_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ten members of 40 MiB of zeros (400 MiB from well under 1 MiB): each member is under the
    per-member threshold, the archive as a whole is a bomb."""
    tmp = tmp_path_factory.mktemp("bomb")
    manifest = json.dumps({"format": "playtrace-session"}).encode()
    return _bomb(tmp / "bomb.zip", 10, 40, prefix="s/",
                 first={"manifest.json": manifest, "events.jsonl": b"", "study.toml": b""})


@pytest.mark.parametrize("command", ["import", "show", "study merge"])
def test_zip_bomb_split_over_members_is_refused(
    command: str, split_bomb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _name, argv = FILE_COMMANDS[command]
    code, _out, err = run_cli(capsys, *argv(split_bomb, tmp_path))
    line = one_line_error(code, err)
    assert "zip bomb" in line
    written = sum(f.stat().st_size for f in tmp_path.rglob("*") if f.is_file())
    assert written < 64 * 1024 * 1024


# -- study merge never follows a link out of a results folder ------------------------------------------------


def test_study_merge_refuses_symlinks(
    results_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    src = tmp_path / "src"
    shutil.copytree(results_folder, src, symlinks=True)
    secret = tmp_path / "private.txt"
    secret.write_text("private")
    session = next((src / "sessions").iterdir())
    (session / "attachments").mkdir(exist_ok=True)
    (session / "attachments" / "leak.png").symlink_to(secret)
    code, _out, err = run_cli(capsys, "study", "merge", str(src), "--out", str(tmp_path / "merged"))
    assert "symbolic link" in one_line_error(code, err)
    assert not any(p.read_bytes() == b"private" for p in (tmp_path / "merged").rglob("*") if p.is_file())


def test_study_merge_zip_with_symlink_member(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("r/study.toml", "")
        link = zipfile.ZipInfo("r/participants/P001.json")
        link.external_attr = (0o120777 << 16)
        zf.writestr(link, "/etc/passwd")
    code, _out, err = run_cli(capsys, "study", "merge", str(path), "--out", str(tmp_path / "m"))
    assert "symbolic link" in one_line_error(code, err)


# -- the layer itself ----------------------------------------------------------------------------------------


def test_inside_refuses_every_escape(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "ok.png").write_bytes(b"x")
    (tmp_path / "a" / "out").symlink_to(tmp_path)
    assert safeio.inside(tmp_path / "a", "ok.png") == tmp_path / "a" / "ok.png"
    for bad in ("/etc/passwd", "../x", "out/x", "", "~/x", "C:/x"):
        with pytest.raises(safeio.InputError):
            safeio.inside(tmp_path / "a", bad)


def test_read_bytes_caps_without_reading_everything(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 1000)
    assert safeio.read_bytes(path, cap=1000) == b"x" * 1000
    with pytest.raises(safeio.InputError, match="big"):
        safeio.read_bytes(path, cap=999)


def test_depth_limit_counts_without_recursion() -> None:
    value: object = 1
    for _ in range(100_000):
        value = [value]
    with pytest.raises(safeio.InputError, match="nested"):
        safeio.check_depth(value, "x")
    safeio.check_depth([[{"a": [1]}]], "x")


# -- self-targets: nothing but the session writer writes into a session folder -------------------------------


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rec")
    assert cli.main(["run", "tictactoe", "--player", "random", "--out", str(root)]) == 0
    return next(p for p in root.iterdir() if (p / "events.jsonl").exists())


#: Every output option of every command, pointed into the session ``s``: (argv, the file that must stay).
SELF_TARGETS: dict[str, Callable[[Path, Path], list[str]]] = {
    "annotations export --out": lambda s, tmp: [
        "annotations", "export", str(s), "--out", str(s / "events.jsonl")],
    "export DEST (zip)": lambda s, tmp: ["export", str(s), str(s / "manifest.json")],
    "export DEST (gif)": lambda s, tmp: ["export", str(s), str(s / "attachments" / "x.gif")],
    "run --out": lambda s, tmp: ["run", "tictactoe", "--player", "random", "--out", str(s)],
    "import --out": lambda s, tmp: ["import", str(tmp / "none.zip"), "--out", str(s)],
    "tournament --out": lambda s, tmp: [
        "tournament", "tictactoe", "--player", "random", "--player", "random", "--out", str(s)],
    "tasks generate --out": lambda s, tmp: [
        "tasks", "generate", "tictactoe", "--task", "perceive", "--n", "1", "--out", str(s / "ts")],
    "tasks report --markdown": lambda s, tmp: [
        "tasks", "report", str(tmp), "--markdown", str(s / "events.jsonl")],
    "study init FILE": lambda s, tmp: ["study", "init", str(s / "manifest.json"), "--force"],
    "study simulate --out": lambda s, tmp: ["study", "simulate", str(tmp / "study.toml"), "--out", str(s)],
    "study export --out": lambda s, tmp: ["study", "export", str(tmp), "--out", str(s / "x.csv")],
    "study merge --out": lambda s, tmp: ["study", "merge", str(tmp), "--out", str(s)],
    "sweep --out": lambda s, tmp: ["sweep", str(tmp / "sweep.toml"), "--out", str(s)],
    "sweep init FILE": lambda s, tmp: ["sweep", "init", str(s / "events.jsonl"), "--force"],
    "baseline --out": lambda s, tmp: ["baseline", "tictactoe", "--out", str(s)],
    "reproduce --out": lambda s, tmp: ["reproduce", "lmgame-bench", "--out", str(s / "r")],
    "leaderboard --out": lambda s, tmp: ["leaderboard", str(tmp), "--out", str(s / "events.jsonl")],
    "rescore --out": lambda s, tmp: ["rescore", str(tmp), "--out", str(s / "manifest.json")],
}


@pytest.mark.parametrize("command", sorted(SELF_TARGETS))
def test_no_command_writes_into_a_session_folder(
    command: str, recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    session = tmp_path / recorded.name
    shutil.copytree(recorded, session)
    before = {p.relative_to(session): p.read_bytes() for p in session.rglob("*") if p.is_file()}
    (tmp_path / "study.toml").write_text("")
    (tmp_path / "sweep.toml").write_text("")
    code, _out, err = run_cli(capsys, *SELF_TARGETS[command](session, tmp_path))
    line = one_line_error(code, err)
    assert "inside the session" in line
    after = {p.relative_to(session): p.read_bytes() for p in session.rglob("*") if p.is_file()}
    assert after == before
