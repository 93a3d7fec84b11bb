#!/usr/bin/env bash
# The GPU checks, on a machine with an NVIDIA GPU, the CUDA toolkit (nvcc, cuDNN 9, cuBLAS) and ridge's
# other dependencies (scripts/setup.sh): builds ridge with its GPU module into build-gpu (or $1), then
#   1. `ridge doctor --for bench-cuda` (driver, runtime, cuDNN, cuBLAS, the GPU, the module);
#   2. the GPU tests (tests/gpu): the bundled small models' outputs against PyTorch's in fp32, tf32, fp16 and
#      bf16, every cuDNN algorithm's outputs, CUDA-graph replay, CUDA-event times against the wall clock,
#      the GPU roofline within the device's theoretical bounds;
#   3. ridge bench --device cuda on ResNet-50 (eager and cuda-graph, every algorithm), imported into a store and
#      drawn (plot modes); ridge's own executor under `ridge ncu run -m` (where ncu is installed); ridge ert
#      --device cuda; their JSON kept in $OUT (default build-gpu/gpu-check) for docs/benchmarks.md.
# Exit code: 0 when every step passed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
out=${OUT:-$build/gpu-check}
mkdir -p "$out"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/nvidia-smi.csv"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIDGE_WERROR=ON -DRIDGE_TESTS=ON \
  -DCMAKE_CUDA_ARCHITECTURES=native >/dev/null
cmake --build "$build" --target ridge ridge_cuda ridge_gpu_tests ridge_cuda_tests ridge_tests ridge_cli_tests
ridge="$build/ridge"
echo "== doctor"
"$ridge" doctor --for bench-cuda | tee "$out/doctor.txt"
echo "== host-side GPU module tests"
"$build/tests/ridge_cuda_tests" --gtest_brief=1
echo "== GPU tests"
"$build/tests/ridge_gpu_tests" --gtest_output="xml:$out/gpu-tests.xml"
"$build/tests/ridge_tests" --gtest_filter='GpuErt*' --gtest_brief=1
"$build/tests/ridge_cli_tests" --gtest_filter='GpuErt*:CudaCli*' --gtest_brief=1  # the CLI's GPU branch
echo "== bench on the GPU"
export RIDGE_STORE="$out/results.db"
"$ridge" bench models/resnet50.onnx --device cuda --sweep batch=1,32 --mode both -f json >"$out/bench-resnet50.json"
"$ridge" bench models/resnet50.onnx --device cuda --batch 32 --conv-algo all --max-time 2 -f json \
  >"$out/bench-resnet50-algorithms.json"
"$ridge" bench models/resnet50.onnx --device cuda --batch 32 --precision tf32 -f json >"$out/bench-resnet50-tf32.json"
"$ridge" bench models/resnet50.onnx --device cuda --batch 32 --precision fp16 -f json >"$out/bench-resnet50-fp16.json"
"$ridge" bench models/resnet50.onnx --device cuda --batch 32 --power nvml -f json >"$out/bench-resnet50-power.json" ||
  echo "gpu-check: NVML power not measured (see doctor above)"
echo "== bench results through the codec, the store and the figures"
"$ridge" results import "$out/bench-resnet50.json" --store "$out/imported.db"
"$ridge" plot modes --from "$out/bench-resnet50.json" -o "$out/modes-resnet50.png"
echo "== ridge's own executor under Nsight Compute, mapped to ResNet-50's layers"
if command -v ncu >/dev/null || [ -x /usr/local/cuda/bin/ncu ]; then
  "$ridge" ncu run -m models/resnet50.onnx --clock-control none --output-dir "$out/ncu-ridge" -f json \
    --no-store -- "$ridge" run models/resnet50.onnx --device cuda >"$out/ncu-ridge-import.json" ||
    echo "gpu-check: ncu run of ridge's executor failed (its log is in $out/ncu-ridge)"
else
  echo "gpu-check: no ncu: the profiler import is not checked"
fi
echo "== the GPU roofline"
"$ridge" ert --device cuda --profile "$out/gpu.yaml" -f json >"$out/ert.json"
echo "gpu-check: passed; results in $out"
