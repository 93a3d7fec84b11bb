#!/usr/bin/env bash
# Speed and memory of `ridge analyze`: a GPT-2-medium-sized model with its weights inside the
# file (~1.5 GB), and every bundled model. Peer in the same run: the ONNX project's own Python
# loader + shape inference (python3-onnx), the usual way such models are inspected in Python.
# Wall time and peak RSS from /usr/bin/time; best of N runs.
#   bench/analyze_speed.sh [RUNS]   (builds build/ first; writes bench/out/)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
./scripts/build.sh >/dev/null
mkdir -p bench/out
gpt=bench/out/gpt2_medium.onnx
[ -f "$gpt" ] || /usr/bin/python3 bench/make_gpt2_medium.py "$gpt"

measure() {  # prints "best_seconds max_rss_MB" over $runs runs of the command
  local best=999999 rss=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o bench/out/time.txt "$@" >/dev/null
    read -r secs kb < bench/out/time.txt
    best=$(awk -v a="$best" -v b="$secs" 'BEGIN{print (b < a) ? b : a}')
    rss=$(( kb > rss ? kb : rss ))
  done
  echo "$best $(( rss / 1024 ))"
}

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; runs: $runs (best time, max RSS)"
echo "file: $gpt, $(du -m "$gpt" | cut -f1) MB"
read -r t m <<<"$(measure build/ridge analyze "$gpt" --dim seq=512 --format json)"
echo "ridge analyze gpt2-medium (seq 512):        ${t} s, ${m} MB"
read -r pt pm <<<"$(measure /usr/bin/python3 -c "import onnx, sys; m = onnx.load(sys.argv[1]); onnx.shape_inference.infer_shapes(m)" "$gpt")"
echo "python3-onnx load + infer_shapes (peer):    ${pt} s, ${pm} MB"
awk -v a="$pt" -v b="$t" -v c="$pm" -v d="$m" 'BEGIN{printf "ratio peer/ridge: time %.1fx, memory %.1fx\n", a/b, c/d}'
echo
echo "bundled models (ridge analyze, default bindings):"
for f in models/*.onnx; do
  name=$(basename "$f" .onnx)
  args=""
  case "$name" in bert_base|gpt2_tiny) args="--dim seq=128";; lstm_2layer) args="--dim seq=50";; esac
  read -r t m <<<"$(measure build/ridge analyze "$f" $args --format json)"
  printf "  %-14s %6.3f s  %4d MB\n" "$name" "$t" "$m"
done
