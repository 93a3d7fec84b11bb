#!/usr/bin/env bash
# How long figures and the report take: `ridge plot roofline` for ResNet-50 on the Jetson AGX Orin in
# all its power modes (484 points) to each format, and `ridge report` of AlexNet with one bench result.
# Usage: bench/plot_speed.sh [RIDGE] (default build/ridge). Prints the median of 5 runs per line.
set -euo pipefail
ridge=${1:-build/ridge}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source "$(dirname "$0")/timing.sh"
model=models/resnet50.onnx
for ext in vg.json html svg png pdf; do
  echo "plot roofline -> .$ext: $(median_ms "$ridge" plot roofline "$model" -d jetson-agx-orin-64gb --modes all -o "$out/r.$ext") ms"
done
export RIDGE_STORE="$out/store.db"
"$ridge" bench models/alexnet.onnx --max-time 1 >/dev/null 2>&1
echo "report -> .html: $(median_ms "$ridge" report models/alexnet.onnx -d jetson-agx-orin-64gb --modes all -o "$out/report.html") ms"
echo "report -> --markdown (PNGs): $(median_ms "$ridge" report models/alexnet.onnx -d jetson-agx-orin-64gb --modes all --markdown "$out/md") ms"
echo "figures in the Markdown report: $(ls "$out"/md/*.png | wc -l)"
