#!/usr/bin/env bash
# One GPU session's checks in one call, in the order a session with a GPU spends its time on them:
#   bench/gpu_checks.sh OUT_DIR [BUDGET_S]
# Run from the checkout root on the GPU machine after `source .gpu/env.sh` (../shared/tools/gpu-bundle.sh), with
# bench/gpu_fp16_probe (bench/gpu_fp16_probe.cu, built here with nvcc) in .gpu/. Builds nothing. Writes into OUT_DIR:
#   nvidia-smi.csv
#   tests-kernels.txt, tests-models.txt   the elementwise kernels' GPU tests; the bundled models against PyTorch
#   tests-training.txt                    the GPU training step against PyTorch's gradients (tests/gpu/test_training_gpu)
#   ert.json, gpu.yaml                    `ridge ert --device cuda` (the roof of the next step; the device file's
#                                         measured L1, L2, copy and launch figures)
#   ew-NAME.json, elementwise.md          bench/gpu_elementwise.py's models at batch 32 and its table
#   ridge-resnet50-optimized-{fp32,tf32}.json  `--mode optimized` (BatchNorms folded, ReLU and residual fused into
#                                         cuDNN's convolution, replayed as a CUDA graph) at batch 1 and 32
#   ridge-{vit_b_16,mobilenet_v2}-optimized-fp32.json  the same for the epilogue kernel's fusions (a product's bias
#                                         and GELU, a convolution's ReLU6) and attention fused into one kernel (fp32)
#                                         at batch 1 and 32; ridge-bert_base-optimized-fp32.json at batch 1 and 8
#   att-*.json, attention.md              bench/gpu_attention.py: the fused attention kernel against the products it
#                                         replaces (fp32 CUDA graph, tf32 and fp16 optimized) at ViT's, BERT's and a
#                                         512-token shape, and the table
#   ridge-{resnet50,vit_b_16}-{optimized-,}fp16.json  batch 32 in fp16: optimized (16-bit activations between ops)
#                                         and as a CUDA graph (autocast per layer), PyTorch's half() beside them
#   ridge-resnet50-{optimized-,}fp16-nhwc.json  the same with --memory-format channels-last, PyTorch's half() in
#                                         channels_last beside them
#   ridge-{resnet50,mobilenet_v2,densenet121}-legacy-fp32.json  eager at batch 1 and 32 with --conv-algo
#                                         legacy-heuristic (cudnnConvolutionForward), against the graph API's plans
#   ridge-MODEL-fp32.json, torch-peer.jsonl, table.md
#                                         bench/gpu_speed.sh's fp32 points for ViT-B/16, ResNet-50, BERT and
#                                         MobileNetV2, PyTorch's fp32 configurations beside them, the ratio table
#   ncu-ridge-vit_b_16-b32.csv            ridge's kernels at batch 32 (the side-by-side input)
#   tests-rest.txt                        the other GPU tests (ERT, CUDA graphs, algorithms, precisions)
#   tests-node.txt                        the ONNX project's node tests on the GPU, the recurrent layers, reductions, Attention
#   profile-resnet50/, profile-resnet50.json  `ridge profile` end to end (its export and ridge run's log; the JSON)
#   calibrate-sample.*                    `ridge calibrate --sample --quick --sample-size 4` on the GPU executor
#   fp16-probe.txt, fp16-sass.txt         bench/gpu_fp16_probe's rates and the SASS of its kernels
#   ridge-train-MODEL.json, torch-train.jsonl, training.md
#                                         training steps of the training exports (ResNet-50, VGG-16, MobileNetV2) at
#                                         batch 32, fp32 (eager and CUDA graph), tf32 and fp16 (mixed precision),
#                                         fp16 channels-last, PyTorch's (fp32, tf32, AMP, AMP channels_last) beside
#                                         them, the table
# A step that would start after BUDGET_S (default 420) is skipped and named in skipped.txt.
set -uo pipefail
out=${1:?usage: bench/gpu_checks.sh OUT_DIR [BUDGET_S]}
budget=${2:-420}
ridge=${RIDGE:-build/ridge}
build=$(dirname "$ridge")
mkdir -p "$out"
start=$SECONDS
step_log=gpu_checks
# shellcheck source=bench/gpu_steps.sh
source "$(dirname "$0")/gpu_steps.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv >"$out/nvidia-smi.csv" 2>&1
export RIDGE_STORE="$out/results.db"
device=h100-sxm  # ridge's database entry for the card: ceilings and the calibration's starting file
grep -q H200 "$out/nvidia-smi.csv" && device=h200
step 60 "GPU tests: kernels and the models against PyTorch" sh -c "$build/tests/ridge_gpu_tests \
  --gtest_filter='GpuKernels.*:GpuExecutor.Fp32MatchesPyTorch' >$out/tests-kernels.txt 2>&1"
step 90 "GPU tests: training" sh -c "$build/tests/ridge_gpu_tests --gtest_filter='*Training*' \
  >$out/tests-training.txt 2>&1"
step 60 "ridge ert" sh -c "$ridge ert --device cuda --profile $out/gpu.yaml -f json >$out/ert.json 2>$out/ert.log"
step 30 "fp16 probe" sh -c ".gpu/gpu_fp16_probe >$out/fp16-probe.txt 2>&1; (command -v cuobjdump >/dev/null && \
  cuobjdump -sass .gpu/gpu_fp16_probe || /usr/local/cuda/bin/cuobjdump -sass .gpu/gpu_fp16_probe) >$out/fp16-sass.txt 2>&1"
for m in bench/elementwise/*.onnx; do
  n=$(basename "$m" .onnx)
  step 20 "elementwise $n" sh -c "$ridge bench $m --device cuda --batch 32 --mode eager --max-time 0.3 --warmup 0.1 \
    --min-runs 5 --no-store -f json >$out/ew-$n.json 2>$out/ew-$n.log"
done
cp bench/elementwise/*.onnx "$out/"
python3 bench/gpu_elementwise.py table "$out" >"$out/elementwise.md" 2>&1 || true
common="--device cuda --max-time 0.3 --warmup 0.2 --min-runs 10 --no-store -f json"
for m in vit_b_16 resnet50 bert_base mobilenet_v2; do
  points="--sweep batch=1,32"
  [ "$m" = bert_base ] && points="--sweep batch=1,8 --dim seq=128"
  step 60 "ridge $m fp32" sh -c "$ridge bench models/$m.onnx $points --mode both $common >$out/ridge-$m-fp32.json"
done
# The same CNNs eager with the legacy cudnnConvolutionForward: what the graph API's plans (the default) saved per node.
step 40 "ridge legacy-heuristic eager" sh -c "for m in resnet50 mobilenet_v2 densenet121; do $ridge bench \
  models/\$m.onnx --sweep batch=1,32 --mode eager --conv-algo legacy-heuristic $common \
  >$out/ridge-\$m-legacy-fp32.json; done"
step 60 "ridge resnet50 optimized" sh -c "$ridge bench models/resnet50.onnx --sweep batch=1,32 --mode optimized \
  $common >$out/ridge-resnet50-optimized-fp32.json; $ridge bench models/resnet50.onnx --sweep batch=1,32 \
  --mode optimized --precision tf32 $common >$out/ridge-resnet50-optimized-tf32.json"
step 60 "ridge vit_b_16 and mobilenet_v2 optimized" sh -c "$ridge bench models/vit_b_16.onnx --sweep batch=1,32 \
  --mode optimized $common >$out/ridge-vit_b_16-optimized-fp32.json; $ridge bench models/mobilenet_v2.onnx \
  --sweep batch=1,32 --mode optimized $common >$out/ridge-mobilenet_v2-optimized-fp32.json"
# Fused attention (src/exec/attention_fusion.h) against the products it replaces, on the same tensors.
step 90 "fused attention against its products" sh -c "python3 bench/gpu_attention.py run $out $ridge \
  >$out/attention.log 2>&1; python3 bench/gpu_attention.py table $out >$out/attention.md 2>&1"
# BERT's attention reads its heads through strides in optimized mode (src/exec/product_views.h), then fuses (fp32).
step 40 "ridge bert_base optimized" sh -c "$ridge bench models/bert_base.onnx --sweep batch=1,8 --dim seq=128 \
  --mode optimized $common >$out/ridge-bert_base-optimized-fp32.json"
step 120 "PyTorch peer fp32" env PEER_CONFIGS=fp32,fp32-cudnn-benchmark,fp32-cuda-graph \
  python3 bench/torch_gpu_peer.py "$out/torch-peer.jsonl" vit_b_16:1,32 resnet50:1,32 bert_base:1,8 mobilenet_v2:1,32
# Optimized fp16 keeps activations in 16 bits between ops (src/exec/cuda/storage_plan.h), against PyTorch's half()
# replayed as a CUDA graph (issue 29's goal) and ridge's own fp16 CUDA graph (autocast per layer).
step 60 "ridge resnet50 and vit_b_16 fp16" sh -c "for m in resnet50 vit_b_16; do $ridge bench models/\$m.onnx \
  --batch 32 --mode optimized --precision fp16 $common >$out/ridge-\$m-optimized-fp16.json; $ridge bench \
  models/\$m.onnx --batch 32 --mode cuda-graph --precision fp16 $common >$out/ridge-\$m-fp16.json; done"
step 60 "ridge resnet50 fp16 channels-last" sh -c "$ridge bench models/resnet50.onnx --batch 32 --mode optimized \
  --precision fp16 --memory-format channels-last $common >$out/ridge-resnet50-optimized-fp16-nhwc.json; $ridge bench \
  models/resnet50.onnx --batch 32 --mode cuda-graph --precision fp16 --memory-format channels-last $common \
  >$out/ridge-resnet50-fp16-nhwc.json"
step 60 "PyTorch peer fp16" env PEER_CONFIGS=fp16-cuda-graph,fp16-channels-last-cuda-graph \
  python3 bench/torch_gpu_peer.py "$out/torch-peer.jsonl" resnet50:32 vit_b_16:32
python3 bench/gpu_speed_table.py "$out" >"$out/table.md" 2>&1 || true
step 60 "ncu ridge vit_b_16 b32" sh -c "ncu --nvtx --metrics gpu__time_duration.sum --csv --page details \
  --print-units base --clock-control none --log-file $out/ncu-ridge-vit_b_16-b32.csv $ridge run models/vit_b_16.onnx \
  --device cuda --batch 32 >$out/ncu-ridge-vit_b_16.log 2>&1"
step 120 "ridge profile resnet50 b8" sh -c "$ridge profile models/resnet50.onnx --device cuda --batch 8 \
  --ceilings $device --clock-control none --output-dir $out/profile-resnet50 -f json \
  >$out/profile-resnet50.json 2>$out/profile-resnet50.log"
step 90 "GPU tests: the rest" sh -c "$build/tests/ridge_gpu_tests \
  --gtest_filter='-GpuKernels.*:GpuExecutor.Fp32MatchesPyTorch:*Training*:*NodeTests*:*Recurrent*:*Reductions*' \
  >$out/tests-rest.txt 2>&1"
step 60 "GPU tests: ONNX node tests, recurrent layers, reductions" sh -c "$build/tests/ridge_gpu_tests \
  --gtest_filter='*NodeTests*:*Recurrent*:*Reductions*:*Attention*' >$out/tests-node.txt 2>&1"
step 180 "calibrate --sample on the GPU" sh -c "$ridge calibrate --device $device --sample --quick --sample-size 4 \
  -o $out/calibrate-sample.yaml >$out/calibrate-sample.txt 2>&1"
for m in resnet50 vgg16 mobilenet_v2; do
  step 60 "ridge $m training step" sh -c "$ridge bench models/${m}_train.onnx --device cuda --batch 32 --training \
    --iters 10 --precision fp32 --mode both --no-store -f json >$out/ridge-train-$m.json 2>$out/ridge-train-$m.log; \
    $ridge bench models/${m}_train.onnx --device cuda --batch 32 --training --iters 10 --precision tf32 --no-store \
    -f json >$out/ridge-train-$m-tf32.json 2>>$out/ridge-train-$m.log; \
    $ridge bench models/${m}_train.onnx --device cuda --batch 32 --training --iters 10 --precision fp16 --no-store \
    -f json >$out/ridge-train-$m-fp16.json 2>>$out/ridge-train-$m.log; \
    $ridge bench models/${m}_train.onnx --device cuda --batch 32 --training --iters 10 --precision fp16 \
    --memory-format channels-last --no-store -f json >$out/ridge-train-$m-fp16-nhwc.json 2>>$out/ridge-train-$m.log"
done
step 120 "PyTorch training steps" python3 bench/torch_gpu_train_peer.py "$out/torch-train.jsonl" resnet50:32 vgg16:32 \
  mobilenet_v2:32
python3 bench/gpu_train_table.py "$out" >"$out/training.md" 2>&1 || true
echo "gpu_checks: done in $((SECONDS - start))s" >&2
