#!/usr/bin/env bash
# Speed of `ridge tune`: resnet50 on the Jetson AGX Orin 64 GB over the modes that matter for it
# (GPU x EMC) and over every domain (--all-domains: GPU x EMC x CPU frequency x online cores, ~10k
# modes). One analysis serves every mode; this records what each mode's prediction costs.
# Wall time from bash's EPOCHREALTIME; best of N runs.
#   bench/tune_speed.sh [RUNS]   (builds build/ first)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
./scripts/build.sh >/dev/null
model=models/resnet50.onnx
device=jetson-agx-orin-64gb

best_of() {  # prints the best wall time of $runs runs of the command
  local best=999999 start end
  for _ in $(seq "$runs"); do
    start=$EPOCHREALTIME
    "$@" >/dev/null
    end=$EPOCHREALTIME
    best=$(awk -v a="$best" -v s="$start" -v e="$end" 'BEGIN{t = e - s; print (t < a) ? t : a}')
  done
  echo "$best"
}

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; runs: $runs (best wall time)"
for extra in "--named-only" "" "--all-domains"; do
  modes=$(build/ridge tune "$model" --device "$device" $extra --no-store -f json |
          python3 -c 'import json,sys; print(len(json.load(sys.stdin)["modes"]))')
  t=$(best_of build/ridge tune "$model" --device "$device" $extra --no-store -f json)
  echo "tune resnet50 ${extra:-(default)}: $modes modes, ${t}s"
done
t=$(best_of build/ridge predict "$model" --device "$device" --no-store -f json)
echo "predict resnet50 (one mode, for the fixed cost of loading and analysing): ${t}s"
