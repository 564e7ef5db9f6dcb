"""The Linux installers: ``packaging/build.sh`` builds the PyInstaller bundle and the ``.deb``, and the
bundle works on its own.

The build runs once for this module (about a minute and a half). The bundle is then started from a
folder outside the repository with a clean environment (only PATH, HOME and QT_QPA_PLATFORM): it opens
the app's window, and ``playtrace --self-test`` draws and plays every game. The bundle must carry the
package metadata (the games are entry points) and the package data, and must not carry the NES ROM or
anything else PlayTrace may not redistribute.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import engine

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO / ".." / "shared"
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
#: A ceiling that catches a large file slipping back in (the ffmpeg executable alone is 170 MB).
MAX_BUNDLE_MB = 250

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="build.sh builds the Linux installers"),
    # Building the bundle takes most of this module's time; it happens in the first test's setup.
    pytest.mark.timeout(900),
]


@dataclasses.dataclass(frozen=True)
class Built:
    bundle: Path
    deb: Path
    log: str

    @property
    def executable(self) -> Path:
        return self.bundle / "playtrace"

    @property
    def internal(self) -> Path:
        return self.bundle / "_internal"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    out = tmp_path_factory.mktemp("installers")
    env = {
        **os.environ,
        "PYTHON": sys.executable,
        "PLAYTRACE_DIST_DIR": str(out / "dist"),
        "PLAYTRACE_WORK_DIR": str(out / "work"),
        "PLAYTRACE_DEB_COMPRESSION": "zstd",  # seconds, where xz takes minutes
    }
    proc = subprocess.run(
        [str(REPO / "packaging" / "build.sh")], cwd=out, env=env, capture_output=True, text=True,
        timeout=840,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"packaging/build.sh failed:\n{log[-6000:]}"
    debs = sorted((out / "dist").glob("playtrace_*.deb"))
    assert len(debs) == 1, f"expected one .deb in {out / 'dist'}: {debs}"
    return Built(out / "dist" / "playtrace", debs[0], log)


def _clean_env(home: Path, **extra: str) -> dict[str, str]:
    """What an annotator's machine gives the app: no virtualenv, no PYTHONPATH, no repository."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "QT_QPA_PLATFORM": "offscreen", **extra}


def _run_bundle(built: Built, tmp_path: Path, *args: str, timeout: float = 120, **env: str):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return subprocess.run(
        [str(built.executable), *args], cwd=tmp_path, env=_clean_env(home, **env),
        capture_output=True, text=True, timeout=timeout,
    )


def test_build_writes_the_documented_layout(built: Built) -> None:
    assert built.executable.is_file() and os.access(built.executable, os.X_OK)
    assert built.deb.parent == built.bundle.parent
    assert str(built.executable) in built.log  # build.sh says where the bundle is


def test_the_bundle_runs_the_self_test_outside_the_repository(built: Built, tmp_path: Path) -> None:
    proc = _run_bundle(built, tmp_path, "--self-test")
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    assert re.fullmatch(r"self-test PASSED: \d+ passed, 0 failed, \d+ skipped in [\d.]+ s", lines[-1])
    install = next(line for line in lines if line.startswith("ok    install: "))
    assert f"playtrace {VERSION}" in install and "frozen bundle" in install
    # Every game of this checkout is found in the frozen app (through the bundled entry points): drawn
    # and played, or, for one that needs an optional extra, reported as unavailable.
    for entry in engine.registry.entries():
        if entry.cls is not None and not entry.cls.requires and not entry.cls.extra:
            for check in ("draw", "sim", "random"):
                assert any(line.startswith(f"ok    {entry.id} {check}: ") for line in lines), entry.id
        else:
            assert any(
                line.startswith((f"ok    {entry.id} random: ", f"skip  {entry.id}: ")) for line in lines
            ), entry.id


def test_the_bundle_opens_the_app_window(built: Built, tmp_path: Path) -> None:
    proc = _run_bundle(built, tmp_path, timeout=60, PLAYTRACE_EXIT_WHEN_SHOWN="1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "playtrace: window shown" in proc.stdout.splitlines()


def test_the_bundle_is_the_command_line_too(built: Built, tmp_path: Path) -> None:
    proc = _run_bundle(built, tmp_path, "--version", timeout=60)
    assert (proc.returncode, proc.stdout.strip()) == (0, f"playtrace {VERSION}")


def _files(root: Path) -> list[Path]:
    """The regular files below ``root`` (a symbolic link to a library is not a second copy of it)."""
    return [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]


def test_the_bundle_carries_the_entry_points_and_the_package_data(built: Built) -> None:
    dist_infos = list(built.internal.glob("playtrace-*.dist-info"))
    assert len(dist_infos) == 1, dist_infos
    entry_points = (dist_infos[0] / "entry_points.txt").read_text(encoding="utf-8")
    for group in ("[playtrace.games]", "[playtrace.renderers]"):
        assert group in entry_points
    for entry in engine.registry.entries():
        assert re.search(rf"^{re.escape(entry.id)} = ", entry_points, re.MULTILINE), entry.id
    assert not (dist_infos[0] / "direct_url.json").exists()  # a path of the build machine
    # assets/ and every game's prompts/ and tasks/ files, as in the checkout.
    wanted = [
        p.relative_to(REPO) for p in _files(REPO / "assets")
        if "__pycache__" not in p.parts and p.suffix not in (".py", ".pyc")
    ]
    wanted += [p.relative_to(REPO) for p in (REPO / "engine" / "games").rglob("prompts/**/*.md")]
    wanted += [p.relative_to(REPO) for p in (REPO / "engine" / "games").glob("*/tasks/*.md")]
    assert any(p.parts[-2] == "prompts" for p in wanted) and any(p.parts[-2] == "tasks" for p in wanted)
    missing = sorted(str(p) for p in wanted if not (built.internal / p).is_file())
    assert not missing, f"package data missing from the bundle: {missing}"
    bundled_assets = {p.relative_to(built.internal) for p in _files(built.internal / "assets")}
    extra = sorted(str(p) for p in bundled_assets - set(wanted))
    assert not extra, f"files in the bundle's assets/ that the checkout's assets/ does not hold: {extra}"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_bundle_holds_no_rom_and_nothing_we_may_not_redistribute(built: Built) -> None:
    files = _files(built.bundle)
    names = [str(p.relative_to(built.bundle)).lower() for p in built.bundle.rglob("*")]
    assert not [n for n in names if n.endswith(".nes")], "an NES ROM is inside the bundle"
    # The Mario extra: its package ships the ROM; the emulator around it is GPL-free but useless alone.
    for package in ("gym_super_mario_bros", "nes_py"):
        assert not [n for n in names if package in n], f"{package} is inside the bundle"
    # imageio-ffmpeg's executable is a GPL build of ffmpeg.
    assert not [n for n in names if re.search(r"(^|/)ffmpeg[^/]*$", n)], "an ffmpeg executable is bundled"
    # GVGAI's games (GPL, read by the tests from shared/) are never copied: no bundled file equals one.
    gvgai = SHARED / "gvgai"
    assert gvgai.is_dir(), f"{gvgai} is missing: shared/ belongs beside the repository"
    theirs = {_sha256(p) for p in _files(gvgai)}
    small = [p for p in files if p.stat().st_size < 1_000_000]
    copied = sorted(str(p.relative_to(built.bundle)) for p in small if _sha256(p) in theirs)
    assert not copied, f"GVGAI files inside the bundle: {copied}"
    size_mb = sum(p.stat().st_size for p in files) / 1e6
    assert size_mb < MAX_BUNDLE_MB, f"the bundle is {size_mb:.0f} MB"


def _dpkg_deb(*args: str) -> str:
    proc = subprocess.run(["dpkg-deb", *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_deb_is_a_valid_package_of_the_bundle(built: Built, tmp_path: Path) -> None:
    assert "Package: playtrace" in _dpkg_deb("--info", str(built.deb))
    fields = {
        name: " ".join(_dpkg_deb("--field", str(built.deb), name).split())
        for name in ("Package", "Version", "Architecture", "Depends", "Recommends")
    }
    assert fields["Package"] == "playtrace" and fields["Version"] == VERSION
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True)
    assert fields["Architecture"] == arch.stdout.strip()
    assert built.deb.name == f"playtrace_{VERSION}_{fields['Architecture']}.deb"
    for lib in ("libxcb-cursor0", "libxkbcommon-x11-0", "libegl1"):
        assert lib in fields["Depends"]
    assert fields["Recommends"] == "ffmpeg"  # MP4 exports (the bundle leaves imageio-ffmpeg's out)
    contents = _dpkg_deb("--contents", str(built.deb))
    for path in ("./opt/playtrace/playtrace", "./usr/bin/playtrace -> /opt/playtrace/playtrace",
                 "./usr/share/applications/playtrace.desktop"):
        assert path in contents, path
    # The packaged folder is the bundle, and it runs from where the package puts it.
    _dpkg_deb("-x", str(built.deb), str(tmp_path / "root"))
    packaged = tmp_path / "root" / "opt" / "playtrace" / "playtrace"
    proc = subprocess.run([str(packaged), "--version"], cwd=tmp_path, env=_clean_env(tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout.strip()) == (0, f"playtrace {VERSION}")
