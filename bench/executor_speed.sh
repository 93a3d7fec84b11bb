#!/usr/bin/env bash
# The executor's speed against its peers, on this machine, in one run (docs/benchmarks.md):
#   eager:     ridge bench --mode eager      vs PyTorch eager (python3-torch, same threads), also with
#              BatchNorm folded into the convolutions as in the ONNX file ridge runs
#   optimized: ridge bench --mode optimized  vs ONNX Runtime CPU (npm onnxruntime-node, all graph optimizations)
#   overhead:  ridge's per-node time outside the kernels (from the per-node profile)
# for ResNet-50, MobileNetV2 and the BERT-base encoder (sequence 128) at batch 1 and 8. The tools run
# in turn, ROUNDS times; each figure is the median over rounds of the mean latency.
#   THREADS (default 2)  SECONDS per measurement (default 5)  ROUNDS (default 3)
# PyTorch runs with the environment ridge sets for itself: OMP_PROC_BIND=true (pinned OpenMP threads)
# and OPENBLAS_NUM_THREADS=1 (BLAS single-threaded inside the OpenMP pool); both helped PyTorch too.
# onnxruntime-node is installed into build/bench-node (npm, --ignore-scripts: the CPU library ships
# in the package); it is never a dependency of ridge.
set -euo pipefail
cd "$(dirname "$0")/.."
threads=${THREADS:-2}; seconds=${SECONDS_PER_RUN:-5}; rounds=${ROUNDS:-3}
work=build/bench-executor; mkdir -p "$work"
[ -f "$work/resnet50.onnx" ] || /usr/bin/python3 bench/export_weighted.py "$work" 2>/dev/null
if [ ! -d build/bench-node/node_modules/onnxruntime-node ]; then
  mkdir -p build/bench-node
  (cd build/bench-node && npm install --silent --ignore-scripts onnxruntime-node@1.30.0 >/dev/null)
fi
export NODE_PATH=$PWD/build/bench-node/node_modules
field() { /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
median() { /usr/bin/python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f}')" "$@"; }

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; threads=$threads, ${seconds} s per measurement, $rounds rounds"
printf "%-13s %5s | %10s %10s %10s %7s | %10s %10s %7s | %9s\n" model batch ridge-eager pytorch pt-bn-fold ratio ridge-opt ort ratio "us/node"
for model in resnet50 mobilenet_v2 bert_base; do
  for batch in 1 8; do
    extra=""; [ "$model" = bert_base ] && extra="--dim seq=128"
    re=(); ro=(); pt=(); pf=(); ort=(); overhead=()
    for _ in $(seq "$rounds"); do
      json=$(./build/ridge bench "$work/$model.onnx" --batch "$batch" $extra --threads "$threads" --max-time "$seconds" --min-runs 3 -f json 2>/dev/null)
      re+=("$(echo "$json" | field 'd["runs"][0]["latency_ms"]["mean"]')")
      overhead+=("$(echo "$json" | field 'd["runs"][0]["profile"]["overhead_per_node_us"]')")
      ro+=("$(./build/ridge bench "$work/$model.onnx" --batch "$batch" $extra --threads "$threads" --max-time "$seconds" --min-runs 3 --mode optimized --no-per-node -f json 2>/dev/null | field 'd["runs"][0]["latency_ms"]["mean"]')")
      pt+=("$(OMP_PROC_BIND=true OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/pytorch_eager.py "$model" "$batch" "$threads" "$seconds" 2>/dev/null | field 'd["mean"]')")
      if [ "$model" != bert_base ]; then
        pf+=("$(OMP_PROC_BIND=true OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/pytorch_eager.py "$model" "$batch" "$threads" "$seconds" --fold-bn 2>/dev/null | field 'd["mean"]')")
      fi
      ort+=("$(node bench/ort_bench.js "$work/$model.onnx" "$batch" "$threads" "$seconds" 128 | field 'd["mean"]')")
    done
    e=$(median "${re[@]}"); o=$(median "${ro[@]}"); p=$(median "${pt[@]}"); r=$(median "${ort[@]}")
    f="-"; [ ${#pf[@]} -gt 0 ] && f=$(median "${pf[@]}")
    printf "%-13s %5s | %10s %10s %10s %7s | %10s %10s %7s | %9s\n" "$model" "$batch" "$e" "$p" "$f" \
      "$(/usr/bin/python3 -c "print(f'{$e/$p:.2f}')")" "$o" "$r" "$(/usr/bin/python3 -c "print(f'{$o/$r:.2f}')")" \
      "$(median "${overhead[@]}")"
  done
done
echo "latencies: mean ms, median over rounds; ratio = ridge / peer (below 1: ridge is faster)"
