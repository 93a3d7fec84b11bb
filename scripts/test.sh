#!/usr/bin/env bash
# The test suite. Two ways to run it:
#   scripts/test.sh           everything, as CI runs it (.ci/run), stopping at the first step that fails:
#                             set-up, a formatting check, a warnings-as-errors build, the quick tier (in-process
#                             unit tests, `ctest -L quick`, stopping at its first failure), the binary-driven and
#                             end-to-end tier (`ctest -LE quick`: tests/cli, SLURM), a smoke check of the
#                             installed layout (cmake --install), both tiers again under AddressSanitizer +
#                             UndefinedBehaviorSanitizer, and time-bounded libFuzzer runs of every parser (clang).
#   scripts/test.sh --quick   the day-to-day loop: builds only what the in-process tests need (not the ridge
#                             binary) and runs the quick tier; a few minutes after a build (docs/building.md).
# Every build compiles through ccache (scripts/setup.sh installs it; CMakeLists.txt sets it up so that a clone
# at another path reuses the cache), and the test builds compile CUDA for one architecture (sm_90); the
# installed build (scripts/build.sh) keeps them all. The end prints what this run took from the cache.
#   RIDGE_FUZZ_SECONDS (model loader, default 60)   RIDGE_FUZZ_EXTRA_SECONDS (each other parser, default 15)
#   RIDGE_SKIP_SANITIZE=1 to skip the sanitizer pass
set -euo pipefail
cd "$(dirname "$0")/.."
quick_only=0
case "${1:-}" in
  "") ;;
  --quick) quick_only=1 ;;
  -h | --help)
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "test.sh: unknown option '$1' (--quick runs the quick tier only; --help)" >&2
    exit 2
    ;;
esac
./scripts/setup.sh
jobs=$(nproc)
started=$(date +%s)

# What this run took from the compiler cache: the counters' difference between now and the start.
ccache_counts() {
  if command -v ccache >/dev/null; then
    ccache --print-stats | awk '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h += $2 }
                                $1 == "cache_miss" { m += $2 } END { print h + 0, m + 0 }'
  else
    echo "0 0"
  fi
}
read -r hits0 misses0 < <(ccache_counts)
step() { echo "== $* [at $(($(date +%s) - started)) s]"; }
ccache_report() {
  local hits misses
  read -r hits misses < <(ccache_counts)
  hits=$((hits - hits0))
  misses=$((misses - misses0))
  if [ $((hits + misses)) -gt 0 ]; then
    echo "ccache: $hits of $((hits + misses)) compiles from the cache ($((100 * hits / (hits + misses)))%)"
  fi
  echo "test.sh: $(($(date +%s) - started)) s"
}

# The test builds: one CUDA architecture (the H100/H200's), where the toolkit is found.
test_flags=(-G Ninja -DRIDGE_WERROR=ON -DRIDGE_TESTS=ON -DRIDGE_CUDA_ARCH=90-real)

if [ "$quick_only" = 1 ]; then
  step "quick tier (in-process unit tests)"
  cmake -S . -B build "${test_flags[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build --target ridge_quick_tests
  ctest --test-dir build -L quick -j "$jobs" --output-on-failure
  ccache_report
  exit 0
fi

step "formatting (clang-format, .clang-format)"
git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run --Werror

step "build what the quick tier needs (warnings are errors)"
cmake -S . -B build "${test_flags[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target ridge_quick_tests
step "quick tier (in-process unit tests; stops at the first failure)"
ctest --test-dir build -L quick -j "$jobs" --output-on-failure --stop-on-failure
step "build the rest (the ridge binary, its modules, the binary-driven tests)"
cmake --build build
step "binary-driven and end-to-end tests (tests/cli, SLURM)"
ctest --test-dir build -LE quick -j "$jobs" --output-on-failure

step "installed layout (cmake --install into a temporary prefix, run from outside the tree)"
repo=$(pwd)
prefix=$(cd "$(mktemp -d)" && pwd -P)  # resolved: /proc/self/exe and LD_DEBUG show real paths
trap 'rm -rf "$prefix"' EXIT
cmake --install build --prefix "$prefix/usr" >/dev/null
mv "$prefix/usr" "$prefix/moved"  # the tree finds its libraries, modules and devices relative to itself
(
  cd "$prefix"
  export PATH="$prefix/moved/bin:$PATH"
  unset RIDGE_EXEC_MODULE RIDGE_ATEN_GEMM RIDGE_DEVICE_PATH RIDGE_MODEL_DIR
  installed="$prefix/moved"
  ridge analyze "$repo/models/resnet50.onnx" --summary >/dev/null
  # The device files and the executor module must come from the installed tree, not the build's paths.
  HOME="$prefix" ridge devices show t4 >/dev/null
  HOME="$prefix" ridge devices show t4 --format json >t4.json
  grep -q "\"$installed/share/ridge/devices/t4.yaml\"" t4.json
  # Into files, not pipes: `grep -q` stops reading at the first match and ridge would get SIGPIPE.
  ridge models -f json >models.json
  grep -q "\"$installed/share/ridge/models\"" models.json
  data="$repo/tests/data/executor/bert"
  LD_DEBUG=files ridge run "$data/model.onnx" --inputs "$data/test_data_set_0" --save-outputs out 2>ld.log >/dev/null
  grep -q "calling init: $installed/lib/ridge/libridge_exec.so" ld.log
  grep -Eq "calling init: $installed/(bin/\.\./)?lib/ridge/libridge_core\.so" ld.log  # found via the RUNPATH
  [ -f out/output_0.pb ]
  # Figures: the Vega script and renderer are installed beside the binary.
  [ -f "$installed/share/ridge/vega.js" ] && [ -f "$installed/share/ridge/vega-render.js" ]
  # The NVTX naming helper for users' PyTorch programs is installed and importable from there.
  /usr/bin/python3 -c "import sys; sys.path.insert(0, '$installed/share/ridge'); import torch_nvtx; print(torch_nvtx.scopes('layer1.0.conv1'))" | grep -q "layer1.0"
  ridge plot roofline "$repo/models/alexnet.onnx" -d t4 -o fig.html >/dev/null
  ridge plot roofline "$repo/models/alexnet.onnx" -d t4 -o fig.svg >/dev/null
  grep -q "aria-label=\"node: " fig.svg
  # The GPU module (built where the CUDA toolkit is) loads from the installed tree too.
  if [ -f "$installed/lib/ridge/libridge_cuda.so" ]; then
    ridge doctor -f json >doctor.json
    grep -q "loads ($installed/lib/ridge/libridge_cuda.so)" doctor.json
  fi
)
echo "installed layout: ok"

if [ "${RIDGE_SKIP_SANITIZE:-0}" != 1 ]; then
  step "build under ASan + UBSan"
  cmake -S . -B build-asan "${test_flags[@]}" -DCMAKE_BUILD_TYPE=Debug -DRIDGE_SANITIZE=ON >/dev/null
  cmake --build build-asan
  # A failing test runs once more (a real failure fails twice): LeakSanitizer's exit-time scan itself
  # crashes now and then on this machine ("Tracer caught signal 11 ... LeakSanitizer has encountered
  # a fatal error") in ridge processes that ran libtorch, under load; it is not a leak report.
  export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
  step "quick tier under ASan + UBSan"
  ctest --test-dir build-asan -L quick -j "$jobs" --output-on-failure --repeat until-pass:2 --stop-on-failure
  step "the rest under ASan + UBSan"
  ctest --test-dir build-asan -LE quick -j "$jobs" --output-on-failure --repeat until-pass:2
  unset ASAN_OPTIONS UBSAN_OPTIONS
fi

# Every parser of outside input, each from a seed corpus of real files. The model loader gets the
# budget it always had (RIDGE_FUZZ_SECONDS, default 60 s); the smaller parsers a share of it
# each (RIDGE_FUZZ_EXTRA_SECONDS, default 15 s): about 4 minutes in all.
model_seconds=${RIDGE_FUZZ_SECONDS:-60}
extra_seconds=${RIDGE_FUZZ_EXTRA_SECONDS:-15}
step "build the fuzz targets (clang, libFuzzer)"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIDGE_FUZZ=ON \
  -DRIDGE_TESTS=OFF >/dev/null
# The targets are the files tests/fuzz/fuzz_NAME.cpp (CMakeLists.txt builds the same list); each names the
# longest input it is given in a "fuzz-max-len:" line.
fuzz_targets=()
for f in tests/fuzz/fuzz_*.cpp; do fuzz_targets+=("$(basename "$f" .cpp)"); done
cmake --build build-fuzz --target "${fuzz_targets[@]}"
step "fuzz the parsers (model loader ${model_seconds} s, the others ${extra_seconds} s each)"
corpus=build-fuzz/corpus
rm -rf "$corpus"
# Seeds: tests/fuzz/corpus/NAME/ where a target has its own, and the real files each parser reads, below.
for target in "${fuzz_targets[@]}"; do
  name=${target#fuzz_}
  mkdir -p "$corpus/$name"
  if [ -d "tests/fuzz/corpus/$name" ]; then cp "tests/fuzz/corpus/$name"/* "$corpus/$name/"; fi
done
cp models/*.onnx "$corpus"/model_reader/
testdata=/usr/share/libonnx-testdata/data/node
for t in test_if test_loop11 test_scan9_sum test_lstm_defaults test_reshape_extended_dims test_conv_with_strides_padding; do
  if [ -f "$testdata/$t/model.onnx" ]; then cp "$testdata/$t/model.onnx" "$corpus/model_reader/$t.onnx"; fi
done
cp devices/*.yaml "$corpus"/device_yaml/
cp tests/data/ncu/*.csv tests/data/ncu/real/*.csv "$corpus"/ncu_csv/
head -c 16000 tests/data/ncu/h200/details-resnet50-b1-fp32-nvtx.csv >"$corpus"/ncu_csv/h200-nvtx-head.csv
cp tests/data/power/*.txt "$corpus"/tegrastats/
cp tests/data/power/*.csv "$corpus"/power_csv/
for f in tests/data/executor/*/test_data_set_0/input_*.pb; do
  if [ "$(stat -c %s "$f")" -le 65536 ]; then
    cp "$f" "$corpus/tensor_proto/$(basename "$(dirname "$(dirname "$f")")")_$(basename "$f")"
  fi
done
for t in test_cast_FLOAT_to_FLOAT16 test_cast_FLOAT_to_STRING test_einsum_batch_matmul test_reshape_extended_dims; do
  for f in "$testdata/$t"/test_data_set_0/input_*.pb; do
    if [ -f "$f" ]; then cp "$f" "$corpus/tensor_proto/${t}_$(basename "$f")"; fi
  done
done
for target in "${fuzz_targets[@]}"; do
  name=${target#fuzz_}
  max_len=$(sed -n 's|^// fuzz-max-len: \([0-9]*\).*|\1|p' "tests/fuzz/$target.cpp")
  if [ -z "$max_len" ]; then
    echo "tests/fuzz/$target.cpp has no '// fuzz-max-len: N' line" >&2
    exit 1
  fi
  seconds=$extra_seconds
  if [ "$name" = model_reader ]; then seconds=$model_seconds; fi
  echo "-- $name for $seconds s"
  "build-fuzz/$target" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 \
    -artifact_prefix=build-fuzz/ "$corpus/$name" 2>&1 |
    tail -n 4
done
echo "fuzzing: no crash"
ccache_report
