#pragma once
// What the in-process tests (tests/roofline/test_energy.cpp) and the binary-driven tests (tests/cli/test_energy.cpp)
// share.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hw/device_file.h"
#include "hw/energy.h"
#include "hw/roofline.h"
#include "report/figure/energy_roofline_figure.h"
#include "report/format.h"
#include "roofline/energy.h"
#include "roofline/predict.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test::energy_fixtures {

using Json = nlohmann::ordered_json;

// Round numbers: TDP 100 W, idle 20 W, one fp32 unit of 1 TFLOP/s on a GPU clock of 200..1000 MHz,
// 100 GB/s DRAM on a memory clock of 400..2000 MHz. Mode "half" runs the GPU at 600 MHz (the middle of
// its range), "slow" both clocks at their lowest.
inline const std::string kDevice = R"(id: joule
name: Round joules
kind: gpu
clocks:
  gpu: {max_mhz: 1000, min_mhz: 200, source: test}
  emc: {max_mhz: 2000, min_mhz: 400, source: test}
units: [{name: alu, type: vector, clock: gpu, peak_flops: {fp32: 1.0e12}, source: test}]
memory: [{level: dram, bandwidth: 1.0e11, clock: emc, source: test}]
power: {tdp_w: 100, idle_w: 20, source: test datasheet}
overhead: {seconds: 1.0e-5, label: measured, source: test}
modes:
  - {name: full, source: test}
  - {name: half, clocks: {gpu: 600}, source: test}
  - {name: slow, clocks: {gpu: 200, emc: 400}, source: test}
)";

inline hw::Device device(const std::string& text = kDevice) { return hw::parse_device_yaml(text, "joule.yaml"); }

inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("no '" + from + "' in the device text");
  return text.replace(at, from.size(), to);
}

// gemm: A[256,1024] x W[1024,1024] (compute-bound); add: two 2^20 vectors (memory-bound);
// relu: 16 elements (overhead-bound).
inline std::string three_node_model() {
  ModelBuilder b;
  b.input("a", {int64_t{256}, int64_t{1024}}).weight("w", {1024, 1024});
  b.input("x", {int64_t{1} << 20}).input("y", {int64_t{1} << 20}).input("s", {int64_t{16}});
  b.output("g").output("z").output("r");
  b.node("MatMul", {"a", "w"}, {"g"}, "gemm");
  b.node("Add", {"x", "y"}, {"z"}, "add");
  b.node("Relu", {"s"}, {"r"}, "relu");
  return b.save("three");
}

}  // namespace ridge::test::energy_fixtures
