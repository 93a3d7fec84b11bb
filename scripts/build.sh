#!/usr/bin/env bash
# Configures and builds ridge (release with debug info) into build/. Extra args go to cmake.
# The GPU module is compiled for every architecture ridge supports (scripts/test.sh, which shares build/,
# compiles one); both are kept in the compiler cache, so switching costs little (docs/building.md).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIDGE_CUDA_ARCH=all "$@" >/dev/null
cmake --build build
