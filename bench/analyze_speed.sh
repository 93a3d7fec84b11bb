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
  local best=999999 rss=0 start end kb
  for _ in $(seq "$runs"); do
    start=$EPOCHREALTIME
    /usr/bin/time -f "%M" -o bench/out/time.txt "$@" >/dev/null
    end=$EPOCHREALTIME
    read -r kb < bench/out/time.txt
    best=$(awk -v a="$best" -v s="$start" -v e="$end" 'BEGIN{t = e - s; print (t < a) ? t : a}')
    rss=$(( kb > rss ? kb : rss ))
  done
  echo "$best $(( rss / 1024 ))"
}

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; runs: $runs (best time, max RSS)"
echo "file: $gpt, $(du -m "$gpt" | cut -f1) MB"
read -r t m <<<"$(measure build/ridge analyze "$gpt" --dim seq=512 --format json)"
printf "ridge analyze gpt2-medium (seq 512):        %.3f s, %d MB\n" "$t" "$m"
read -r pt pm <<<"$(measure /usr/bin/python3 -c "import onnx, sys; m = onnx.load(sys.argv[1]); onnx.shape_inference.infer_shapes(m)" "$gpt")"
printf "python3-onnx load + infer_shapes (peer):    %.3f s, %d MB\n" "$pt" "$pm"
awk -v a="$pt" -v b="$t" -v c="$pm" -v d="$m" 'BEGIN{printf "ratio peer/ridge: time %.1fx, memory %.1fx\n", a/b, c/d}'
echo
echo "bundled models (ridge analyze, default bindings):"
for f in models/*.onnx; do
  name=$(basename "$f" .onnx)
  args=""
  case "$name" in bert_base|gpt2_tiny) args="--dim seq=128";; lstm_2layer) args="--dim seq=50";; esac
  read -r t m <<<"$(measure build/ridge analyze "$f" $args --format json)"
  printf "  %-14s %6.1f ms  %4d MB\n" "$name" "$(awk -v t="$t" 'BEGIN{print t * 1000}')" "$m"
done
