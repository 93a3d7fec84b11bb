#pragma once
// What the in-process tests (tests/roofline/test_tune.cpp, tests/report/test_tune_request.cpp) and the binary-driven
// tests (tests/cli/test_tune.cpp) share.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "hw/device_db.h"
#include "hw/device_file.h"
#include "hw/roofline.h"
#include "roofline/predict.h"
#include "roofline/tune.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test::tune_fixtures {

namespace fs = std::filesystem;
using nlohmann::json;

// GPU 1 TFLOP/s fp32 at 1000 MHz (steps 200, 600, 1000), DRAM 100 GB/s at EMC 2000 MHz (steps 500,
// 2000), a CPU domain the model does not use, no per-op overhead. Both named modes carry measured
// energy coefficients; custom modes get MAXN's scaled by (V/Vmax)^2 (labelled estimate).
inline const char* kDevice = R"(id: tune-test
name: Tune test board
kind: soc
clocks:
  gpu: {max_mhz: 1000, min_mhz: 200, steps_mhz: [200, 600, 1000], source: test}
  emc: {max_mhz: 2000, min_mhz: 500, steps_mhz: [500, 2000], source: test}
  cpu: {max_mhz: 2000, min_mhz: 1000, cores: 4, steps_mhz: [1000, 2000], source: test}
units:
  - {name: gpu-cores, type: vector, clock: gpu, peak_flops: {fp32: 1.0e12}, source: test}
  - {name: cpu-simd, type: vector, clock: cpu, scales_with_cores: true, key_prefix: cpu_, peak_flops: {fp32: 1.0e11}, source: test}
memory:
  - {level: dram, bandwidth: 1.0e11, clock: emc, source: test}
overhead: {seconds: 0, source: test}
modes:
  - {name: MAXN, nvpmodel_id: 0, clocks: {gpu: 1000, emc: 2000, cpu: 2000}, cores: {cpu: 4}, source: test}
  - {name: SLOW, nvpmodel_id: 7, clocks: {gpu: 200, emc: 500, cpu: 1000}, cores: {cpu: 2}, power_budget_w: 5, source: test}
energy:
  - {mode: MAXN, e_flop_j: 2.0e-11, e_byte_j: 1.0e-10, p_static_w: 2, source: test, label: measured}
  - {mode: SLOW, e_flop_j: 1.0e-11, e_byte_j: 0.5e-10, p_static_w: 2, source: test, label: measured}
)";

// gemm: A[64,256] x W[256,256], 21.3 FLOP/B (compute-bound at MAXN); add: two 2^16 vectors
// (memory-bound everywhere).
inline std::string model_file() {
  ModelBuilder b;
  b.input("a", {int64_t{64}, int64_t{256}}).weight("w", {256, 256});
  b.input("x", {int64_t{1} << 16}).input("y", {int64_t{1} << 16});
  b.output("g").output("z");
  b.node("MatMul", {"a", "w"}, {"g"}, "gemm");
  b.node("Add", {"x", "y"}, {"z"}, "add");
  return b.save("tune");
}

// kDevice written to a file, as `ridge tune --device` takes it.
inline std::string tune_device_file() {
  auto path = temp_dir() + "/tune-test.yaml";
  std::ofstream(path) << kDevice;
  return path;
}

// The work of the two nodes, by hand.
inline constexpr double kGemmFlops = 2.0 * 64 * 256 * 256;
inline constexpr double kGemmBytes = 4.0 * (64 * 256 + 256 * 256 + 64 * 256);
inline constexpr double kAddFlops = 65536;
inline constexpr double kAddBytes = 3.0 * 65536 * 4;

}  // namespace ridge::test::tune_fixtures
