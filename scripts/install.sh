#!/bin/sh
# Installs PlayTrace into .venv (with Qt's system libraries on Debian/Ubuntu).
#   scripts/install.sh          the app
#   scripts/install.sh --test   the app and what its tests need
set -eu
cd "$(dirname "$0")/.."

extras=""
[ "${1:-}" = "--test" ] && extras="[test]"

# Qt needs a few system libraries: the xcb ones for a real window, EGL/fontconfig even offscreen.
qt_libs="libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-shape0
libxcb-xinerama0 libxcb-xkb1 libxkbcommon-x11-0 libxkbcommon0 libegl1 libgl1 libfontconfig1 libdbus-1-3
libglib2.0-0"
if command -v dpkg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    missing=""
    for pkg in $qt_libs; do
        dpkg -s "$pkg" 2>/dev/null | grep -q "^Status: install ok" || missing="$missing $pkg"
    done
    if [ -n "$missing" ]; then
        if [ "$(id -u)" = "0" ]; then sudo=""; elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"; else sudo="none"; fi
        if [ "$sudo" = "none" ]; then
            echo "PlayTrace: Qt needs these system packages; install them with:" >&2
            echo "    sudo apt-get install$missing" >&2
        else
            echo "PlayTrace: installing Qt's system libraries:$missing"
            $sudo apt-get update -qq >/dev/null || true
            # shellcheck disable=SC2086
            DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null \
                || echo "PlayTrace: could not install:$missing (install them to open a window)" >&2
        fi
    fi
    # Chess's strongest opponent, best effort: without it the built-in search plays (and says so).
    if ! command -v stockfish >/dev/null 2>&1 && [ ! -x /usr/games/stockfish ]; then
        if [ "$(id -u)" = "0" ]; then sf=""; elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sf="sudo"; else sf="none"; fi
        if [ "$sf" != "none" ]; then
            { $sf apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sf apt-get install -y -qq --no-install-recommends stockfish; } >/dev/null 2>&1 \
                || echo "PlayTrace: could not install stockfish (chess then plays its built-in search)" >&2
        fi
    fi
    # The tests open exported HTML pages in a real headless browser (best effort: they skip without one).
    if [ -n "$extras" ] && ! command -v chromium >/dev/null 2>&1; then
        if [ "$(id -u)" = "0" ]; then cr=""; elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then cr="sudo"; else cr="none"; fi
        if [ "$cr" != "none" ]; then
            { $cr apt-get update -qq && DEBIAN_FRONTEND=noninteractive $cr apt-get install -y -qq --no-install-recommends chromium; } >/dev/null 2>&1 \
                || echo "PlayTrace: could not install chromium (the HTML export's browser tests will be skipped)" >&2
        fi
    fi
elif [ "$(uname -s)" = "Linux" ]; then
    echo "PlayTrace: on Linux, Qt needs the xcb libraries (libxcb-cursor, libxkbcommon-x11, libEGL) for a window." >&2
fi

python=""
for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
        python="$candidate"; break
    fi
done
if [ -z "$python" ]; then
    echo "PlayTrace needs Python 3.11 or newer." >&2
    exit 1
fi

[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".$extras"
