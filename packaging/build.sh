#!/bin/sh
# Builds PlayTrace's Linux installers from this checkout:
#   dist/playtrace/                      a PyInstaller one-folder bundle (run dist/playtrace/playtrace)
#   dist/playtrace_<version>_<arch>.deb  a Debian package of that folder (packaging/linux/build_deb.sh)
#
#   packaging/build.sh [--no-deb]
#
# Needs PyInstaller in the Python that has PlayTrace installed (`pip install -e ".[test]"` brings it) and,
# for the .deb, dpkg-deb; no root. Environment:
#   PYTHON                     the Python to build with (default .venv/bin/python, else python3)
#   PLAYTRACE_DIST_DIR         where the bundle and the .deb go (default dist)
#   PLAYTRACE_WORK_DIR         PyInstaller's work folder (default build/pyinstaller); a second build
#                              with the same folder reuses its analysis cache
#   PLAYTRACE_DEB_COMPRESSION  the .deb's compression (xz by default; zstd builds in seconds)
set -eu
cd "$(dirname "$0")/.."

deb=1
for arg in "$@"; do
    case "$arg" in
        --no-deb) deb=0 ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build.sh: unknown argument $arg (expected --no-deb)" >&2; exit 2 ;;
    esac
done

python="${PYTHON:-}"
if [ -z "$python" ]; then
    if [ -x .venv/bin/python ]; then python=.venv/bin/python; else python=python3; fi
fi
dist="${PLAYTRACE_DIST_DIR:-dist}"
work="${PLAYTRACE_WORK_DIR:-build/pyinstaller}"

if ! "$python" -c "import PyInstaller" 2>/dev/null; then
    echo "build.sh: PyInstaller is not installed for $python; install it with:" >&2
    echo "    $python -m pip install 'pyinstaller>=6.10,<7'" >&2
    exit 1
fi

if [ "$(uname -s)" = "Linux" ] && ! command -v objdump >/dev/null 2>&1; then
    echo "build.sh: PyInstaller reads libraries with objdump; install binutils (sudo apt-get install binutils)" >&2
    exit 1
fi

# --noconfirm replaces an earlier bundle without asking. No --clean: PyInstaller's cache of analysed
# modules and binaries in the work folder makes a rebuild several times faster.
"$python" -m PyInstaller --noconfirm --log-level WARN --distpath "$dist" --workpath "$work" \
    packaging/pyinstaller/playtrace.spec
echo "$dist/playtrace/playtrace"

if [ "$deb" = 1 ]; then
    PLAYTRACE_DIST="$dist/playtrace" PLAYTRACE_DEB_DIR="$dist" packaging/linux/build_deb.sh
fi
