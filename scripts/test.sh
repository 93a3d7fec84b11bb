#!/usr/bin/env bash
# The whole test suite, as CI runs it: set-up, a formatting check, a warnings-as-errors build, the unit and
# end-to-end tests, a smoke check of the installed layout (cmake --install), the same tests under
# AddressSanitizer + UndefinedBehaviorSanitizer, and time-bounded libFuzzer runs of every parser (clang).
#   RIDGE_FUZZ_SECONDS (default 60)   RIDGE_SKIP_SANITIZE=1 to skip the sanitizer pass
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
jobs=$(nproc)

echo "== formatting (clang-format, .clang-format)"
git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run --Werror

echo "== build (warnings are errors)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIDGE_WERROR=ON -DRIDGE_TESTS=ON >/dev/null
cmake --build build
echo "== tests"
ctest --test-dir build -j "$jobs" --output-on-failure

echo "== installed layout (cmake --install into a temporary prefix, run from outside the tree)"
repo=$(pwd)
prefix=$(cd "$(mktemp -d)" && pwd -P)  # resolved: /proc/self/exe and LD_DEBUG show real paths
trap 'rm -rf "$prefix"' EXIT
cmake --install build --prefix "$prefix/usr" >/dev/null
mv "$prefix/usr" "$prefix/moved"  # the tree finds its libraries, modules and devices relative to itself
(
  cd "$prefix"
  export PATH="$prefix/moved/bin:$PATH"
  unset RIDGE_EXEC_MODULE RIDGE_ATEN_GEMM RIDGE_DEVICE_PATH
  installed="$prefix/moved"
  ridge analyze "$repo/models/resnet50.onnx" --summary >/dev/null
  # The device files and the executor module must come from the installed tree, not the build's paths.
  HOME="$prefix" ridge devices show t4 >/dev/null
  HOME="$prefix" ridge devices show t4 --format json | grep -q "\"$installed/share/ridge/devices/t4.yaml\""
  data="$repo/tests/data/executor/bert"
  LD_DEBUG=files ridge run "$data/model.onnx" --inputs "$data/test_data_set_0" --save-outputs out 2>ld.log >/dev/null
  grep -q "calling init: $installed/lib/ridge/libridge_exec.so" ld.log
  grep -q "calling init: $installed/lib/ridge/libridge_core.so" ld.log
  [ -f out/output_0.pb ]
)
echo "installed layout: ok"

if [ "${RIDGE_SKIP_SANITIZE:-0}" != 1 ]; then
  echo "== tests under ASan + UBSan"
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRIDGE_SANITIZE=ON -DRIDGE_WERROR=ON -DRIDGE_TESTS=ON >/dev/null
  cmake --build build-asan
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-asan -j "$jobs" --output-on-failure
fi

echo "== fuzz the loader for ${RIDGE_FUZZ_SECONDS:-60} s"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIDGE_FUZZ=ON \
  -DRIDGE_TESTS=OFF >/dev/null
cmake --build build-fuzz --target fuzz_model_reader
corpus=build-fuzz/corpus
mkdir -p "$corpus"
cp models/*.onnx "$corpus"/
for t in test_if test_loop11 test_scan9_sum test_lstm_defaults test_reshape_extended_dims test_conv_with_strides_padding; do
  [ -f "/usr/share/libonnx-testdata/data/node/$t/model.onnx" ] && cp "/usr/share/libonnx-testdata/data/node/$t/model.onnx" "$corpus/$t.onnx"
done
build-fuzz/fuzz_model_reader -max_total_time="${RIDGE_FUZZ_SECONDS:-60}" -rss_limit_mb=2048 -max_len=262144 \
  -print_final_stats=1 "$corpus" 2>&1 | tail -n 12
echo "fuzzing: no crash"
