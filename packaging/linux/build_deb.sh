#!/bin/sh
# Wraps the PyInstaller one-folder build (dist/playtrace/) into a Debian package with dpkg-deb.
#
#   packaging/linux/build_deb.sh [VERSION]        (VERSION defaults to pyproject.toml's)
#
# Installs the app under /opt/playtrace, the `playtrace` command in /usr/bin and a menu entry.
# Needs dpkg-deb (Debian/Ubuntu). Writes dist/playtrace_<version>_<arch>.deb.
# PLAYTRACE_DIST and PLAYTRACE_DEB_DIR override the input folder and the output folder;
# PLAYTRACE_DEB_COMPRESSION (dpkg-deb's -Z: xz, the default and smallest, or gzip, zstd, none) trades
# the package's size for the time it takes to build.
set -eu
cd "$(dirname "$0")/../.."

version="${1:-$(sed -n 's/^version *= *"\(.*\)"/\1/p' pyproject.toml | head -n 1)}"
arch="$(dpkg --print-architecture)"
src="${PLAYTRACE_DIST:-dist/playtrace}"
out="${PLAYTRACE_DEB_DIR:-dist}"
if [ ! -x "$src/playtrace" ]; then
    echo "build_deb: $src/playtrace not found; build it first: pyinstaller packaging/pyinstaller/playtrace.spec" >&2
    exit 1
fi

root="$(mktemp -d)"
chmod 755 "$root"  # mktemp makes it private; it becomes / of the installed package
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/DEBIAN" "$root/opt/playtrace" "$root/usr/bin" "$root/usr/share/applications"
cp -a "$src/." "$root/opt/playtrace/"
ln -s /opt/playtrace/playtrace "$root/usr/bin/playtrace"

cat > "$root/usr/share/applications/playtrace.desktop" <<DESKTOP
[Desktop Entry]
Type=Application
Name=PlayTrace
Comment=Play games with people and language models, and inspect every decision
Exec=/opt/playtrace/playtrace
Terminal=false
Categories=Game;Education;
DESKTOP

# Qt's xcb platform plugin is bundled but links against these system libraries (not bundled by
# PyInstaller); Ubuntu 24.04 renamed some packages with a t64 suffix, hence the alternatives.
depends="libc6, libgl1, libegl1, libfontconfig1, libfreetype6, libdbus-1-3, libglib2.0-0t64 | libglib2.0-0,
 libxkbcommon0, libxkbcommon-x11-0, libxcb-cursor0, libxcb-icccm4, libxcb-image0, libxcb-keysyms1,
 libxcb-render-util0, libxcb-shape0, libxcb-xinerama0, libxcb-xkb1, libxcb-randr0"

# The bundle leaves ffmpeg out (packaging/README.md); MP4 exports use Debian's when it is installed.
cat > "$root/DEBIAN/control" <<CONTROL
Package: playtrace
Version: $version
Section: games
Priority: optional
Architecture: $arch
Maintainer: ${PLAYTRACE_MAINTAINER:-PlayTrace developers <playtrace@localhost>}
Installed-Size: $(du -sk "$root/opt" | cut -f1)
Depends: $depends
Recommends: ffmpeg
Description: play games with people and language models, and inspect every decision
 A desktop app and command line where people, built-in bots and language models play games,
 and where each model decision (prompt, reasoning, parsed action, verified answers) is recorded.
CONTROL

mkdir -p "$out"
deb="$out/playtrace_${version}_${arch}.deb"
dpkg-deb --build --root-owner-group -Z"${PLAYTRACE_DEB_COMPRESSION:-xz}" "$root" "$deb"
echo "$deb"
