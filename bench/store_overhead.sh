#!/usr/bin/env bash
# The store's cost per result and a sweep's own overhead per cell (issue 12: under 1 ms and under
# 50 ms). Usage: bench/store_overhead.sh [N]   (builds build/ first)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
cmake --build build --target ridge ridge_store_bench >/dev/null
ridge=$PWD/build/ridge
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; $(date -u +%F)"

echo "== store: one bench result of resnet50 (every node) saved $n times"
"$ridge" bench models/resnet50.onnx --max-time 0.5 --warmup 0 --store "$work/s.db" -f json >/dev/null 2>&1
build/ridge_store_bench "$work/s.db" 1 "$n"

echo "== sweep: 40 predict cells (alexnet, batch 1..40, t4), overhead per cell as the sweep reports it"
{
  echo "name: overhead"
  echo "models: [$PWD/models/alexnet.onnx]"
  echo "batch: [$(seq -s, 1 40)]"
  echo "devices: [t4]"
  echo "measure: false"
} >"$work/sweep.yaml"
start=$(date +%s.%N)
"$ridge" sweep "$work/sweep.yaml" --store "$work/sweep.db" -f json 2>/dev/null |
  python3 -c "import json,sys; d=json.load(sys.stdin); print(f\"sweep: {d['done']} cells in {d['seconds']:.3f} s, own overhead per cell {d['overhead_per_cell_s']*1e3:.2f} ms\")"
sweep_s=$(echo "$(date +%s.%N) - $start" | bc -l)
# Peer: the shell loop a sweep replaces, one ridge process per cell, each storing its result.
start=$(date +%s.%N)
for b in $(seq 1 40); do "$ridge" predict models/alexnet.onnx --device t4 --batch "$b" --store "$work/loop.db" >/dev/null; done
loop_s=$(echo "$(date +%s.%N) - $start" | bc -l)
printf "sweep wall %.3f s; peer (shell loop of 40 ridge predict) %.3f s; ratio loop/sweep %.2f\n" "$sweep_s" "$loop_s" \
  "$(echo "$loop_s / $sweep_s" | bc -l)"
