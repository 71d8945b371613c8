#!/usr/bin/env bash
# Builds .deps/: the headers and libraries of the Debian packages the C++ build needs,
# unpacked (not installed), so they can travel to the GPU machine, which has no
# package registry. Usage (on a Debian 12 machine): tools/device/make_deps.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
deps="$root/.deps"
pkgs=(libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev googletest libbenchmark-dev
      libbenchmark1debian libhwy-dev libhwy1 libeigen3-dev)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download "${pkgs[@]}" >/dev/null)
rm -rf "$deps.new"
mkdir -p "$deps.new"
for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$deps.new"; done
# Sources and docs are not needed to build against the packages.
rm -rf "$deps.new/usr/share/doc" "$deps.new/usr/src" "$deps.new/usr/share/man"
rm -rf "$deps" && mv "$deps.new" "$deps"
du -sh "$deps"
