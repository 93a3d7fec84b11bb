#!/usr/bin/env bash
# ridge's GPU executor against PyTorch on the same GPU, in one call (issue: the GPU executor at PyTorch's speed).
#   bench/gpu_speed.sh OUT_DIR [BUDGET_S]
# Run from the checkout root on a GPU machine where `ridge` ($RIDGE, else build/ridge) has its GPU module and
# python3 has PyTorch with CUDA and torchvision (the GPU machine: `source .gpu/env.sh` first, see
# ../shared/tools/gpu-bundle.sh). Writes into OUT_DIR:
#   ridge-MODEL-PREC.json        ridge bench --device cuda, batch 1 and 32 (BERT 1 and 8 at seq 128), eager and
#                                CUDA graph, fp32 (with the per-node profile), tf32 and fp16 (whole runs only);
#   ridge-MODEL-fp32bench.json   the CNNs again with --conv-algo benchmark (parity with cudnn.benchmark);
#   torch-peer.jsonl             bench/torch_gpu_peer.py: PyTorch, the same points and precisions;
#   table.md                     bench/gpu_speed_table.py: the ratio table;
#   ncu-{ridge,torch}-MODEL-b32.csv, side-by-side-MODEL.md
#                                kernel times of both at batch 32 under Nsight Compute (ResNet-50, ViT-B/16),
#                                joined per layer by bench/gpu_profile_side_by_side.py.
# Every step has a time limit and the steps run in priority order; a step that would start after BUDGET_S
# (default 300) is skipped and named, so the call ends inside the GPU time it was given.
set -uo pipefail
out=${1:?usage: bench/gpu_speed.sh OUT_DIR [BUDGET_S]}
budget=${2:-300}
ridge=${RIDGE:-build/ridge}
mkdir -p "$out"
start=$SECONDS
step_log=gpu_speed
# shellcheck source=bench/gpu_steps.sh
source "$(dirname "$0")/gpu_steps.sh"
cnns="resnet50 mobilenet_v2 densenet121 vgg16"
common=(--device cuda --max-time 0.3 --warmup 0.2 --min-runs 10 --no-store -f json)
points() { [ "$1" = bert_base ] && echo "--sweep batch=1,8 --dim seq=128" || echo "--sweep batch=1,32"; }
peer_spec() { [ "$1" = bert_base ] && echo "bert_base:1,8" || echo "$1:1,32"; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv >"$out/nvidia-smi.csv" 2>&1
for m in $cnns vit_b_16 bert_base; do
  # shellcheck disable=SC2046
  step 60 "ridge $m fp32" sh -c "$ridge bench models/$m.onnx $(points $m) --mode both ${common[*]} >$out/ridge-$m-fp32.json"
done
specs=""
for m in $cnns vit_b_16 bert_base; do specs="$specs $(peer_spec $m)"; done
# shellcheck disable=SC2086
step 150 "PyTorch peer" python3 bench/torch_gpu_peer.py "$out/torch-peer.jsonl" $specs
for p in tf32 fp16; do
  for m in $cnns vit_b_16 bert_base; do
    step 45 "ridge $m $p" sh -c "$ridge bench models/$m.onnx $(points $m) --mode both --precision $p --no-per-node ${common[*]} >$out/ridge-$m-$p.json"
  done
done
python3 bench/gpu_speed_table.py "$out" >"$out/table.md" 2>&1
ncu_common=(--nvtx --metrics gpu__time_duration.sum --csv --page details --print-units base --clock-control none)
for m in resnet50 vit_b_16; do
  step 60 "ncu ridge $m b32" sh -c "ncu ${ncu_common[*]} --log-file $out/ncu-ridge-$m-b32.csv $ridge run models/$m.onnx --device cuda --batch 32 >$out/ncu-ridge-$m.log 2>&1"
  step 90 "ncu PyTorch $m b32" sh -c "ncu ${ncu_common[*]} --nvtx-include '${m}_batch32/' --log-file $out/ncu-torch-$m-b32.csv python3 bench/torch_gpu_nvtx.py $m 32 >$out/ncu-torch-$m.log 2>&1"
  python3 bench/gpu_profile_side_by_side.py "$out/ncu-ridge-$m-b32.csv" "$out/ncu-torch-$m-b32.csv" \
    "$m batch 32 fp32: kernel time per layer, ridge and PyTorch" >"$out/side-by-side-$m.md" 2>&1
done
for m in $cnns; do
  step 60 "ridge $m fp32 --conv-algo benchmark" sh -c "$ridge bench models/$m.onnx --sweep batch=1,32 --mode both --conv-algo benchmark --no-per-node ${common[*]} >$out/ridge-$m-fp32bench.json"
done
python3 bench/gpu_speed_table.py "$out" >"$out/table.md" 2>&1
echo "gpu_speed: done in $((SECONDS - start))s; $out/table.md" >&2
cat "$out/table.md"
