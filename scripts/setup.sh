#!/usr/bin/env bash
# Installs every Debian package ridge needs to build, test and export its bundled models.
# Idempotent: when everything is present it prints nothing and exits 0.
set -euo pipefail
packages=(
  cmake ninja-build g++ clang clang-format libclang-rt-14-dev git ccache mold
  libonnx-dev libprotobuf-dev protobuf-compiler
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libfmt-dev libsqlite3-dev
  libeigen3-dev libxgboost-dev libgtest-dev libgmock-dev libbenchmark-dev libtorch-dev libdnnl-dev libopenblas0-pthread likwid
  libonnx-testdata python3 python3-onnx python3-torch python3-torchvision
  time graphviz slurm-wlm munge
  node-vega esbuild librsvg2-bin fonts-dejavu-core chromium
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]}"
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -qq
$sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
