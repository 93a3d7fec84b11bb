#!/usr/bin/env bash
# Builds ridge (scripts/build.sh) and installs it: PREFIX/bin/ridge, PREFIX/lib/ridge/ (its libraries
# and modules), PREFIX/share/ridge/devices/ (the device database).
#   ./scripts/install.sh [PREFIX]     PREFIX defaults to $RIDGE_PREFIX, else /usr/local
# /usr/local/bin is on every user's PATH, so `ridge` works at once, in this shell and in new ones;
# when /usr/local is not writable the install step (only) runs under sudo, as scripts/setup.sh does.
# To install without root, give a prefix you own: ./scripts/install.sh ~/.local
# The installed tree finds everything relative to its binary, so it can be moved as a whole.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-${RIDGE_PREFIX:-/usr/local}}"
prefix="${prefix/#\~/$HOME}"
./scripts/build.sh
sudo_cmd=""
mkdir -p "$prefix" 2>/dev/null || true
if [ ! -w "$prefix" ] && [ "$(id -u)" -ne 0 ]; then
  echo "install: $prefix is not writable; installing with sudo (or give a prefix you own: $0 ~/.local)"
  sudo_cmd="sudo"
fi
$sudo_cmd cmake --install build --prefix "$prefix" >/dev/null
$sudo_cmd rm -f build/install_manifest.txt  # root-owned after a sudo install; nothing reads it
echo "install: ridge installed in $prefix/bin"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "install: $prefix/bin is not on PATH; add it (e.g. to ~/.profile): export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
