#!/bin/sh
# Wraps the PyInstaller build's dist/PlayTrace.app into a disk image with hdiutil (macOS only).
#
#   packaging/macos/build_dmg.sh [VERSION]        (VERSION defaults to pyproject.toml's)
#
# Writes dist/PlayTrace-<version>-<arch>.dmg: the app beside a link to /Applications, to drag it
# there. Build once per architecture (arm64 and x86_64, each on its own runner).
# Signing and notarisation happen when these are set; otherwise the image is unsigned, and macOS asks
# the user to allow the app in System Settings > Privacy & Security on its first start:
#   PLAYTRACE_CODESIGN_IDENTITY  a "Developer ID Application: ..." identity in the keychain
#   PLAYTRACE_NOTARY_PROFILE     a notarytool keychain profile (xcrun notarytool store-credentials)
# PLAYTRACE_APP overrides the app's path.
set -eu
cd "$(dirname "$0")/../.."

version="${1:-$(sed -n 's/^version *= *"\(.*\)"/\1/p' pyproject.toml | head -n 1)}"
arch="$(uname -m)"
app="${PLAYTRACE_APP:-dist/PlayTrace.app}"
if [ ! -d "$app" ]; then
    echo "build_dmg: $app not found; build it first: pyinstaller packaging/pyinstaller/playtrace.spec" >&2
    exit 1
fi

identity="${PLAYTRACE_CODESIGN_IDENTITY:-}"
if [ -n "$identity" ]; then
    # The hardened runtime is what notarisation requires.
    codesign --force --deep --options runtime --timestamp --sign "$identity" "$app"
fi

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp -R "$app" "$stage/"
ln -s /Applications "$stage/Applications"

mkdir -p dist
dmg="dist/PlayTrace-${version}-${arch}.dmg"
rm -f "$dmg"
hdiutil create -volname PlayTrace -srcfolder "$stage" -ov -format UDZO "$dmg"

if [ -n "$identity" ]; then
    codesign --force --timestamp --sign "$identity" "$dmg"
    if [ -n "${PLAYTRACE_NOTARY_PROFILE:-}" ]; then
        xcrun notarytool submit "$dmg" --keychain-profile "$PLAYTRACE_NOTARY_PROFILE" --wait
        xcrun stapler staple "$dmg"
    fi
fi
echo "$dmg"
