#pragma once
// What the in-process tests (tests/report/test_compare.cpp) and the binary-driven tests (tests/cli/test_compare.cpp)
// share.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "calib/model.h"
#include "calib/shape_prediction.h"
#include "hw/device_file.h"
#include "hw/roofline.h"
#include "report/compare_report.h"
#include "report/printer.h"
#include "roofline/predict.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test::compare_fixtures {

using nlohmann::json;

// 1 TFLOP/s fp32, 100 GB/s DRAM, 10 us per op, measured: on a CPU it adds to each node's roofline time (one thread
// dispatches, then computes; roofline/predict.h).
inline const char* kDevice = R"(id: round
name: Round numbers
kind: cpu
clocks: {gpu: {max_mhz: 1000, min_mhz: 100, source: test}}
units: [{name: alu, type: vector, clock: gpu, peak_flops: {fp32: 1.0e12}, source: test}]
memory: [{level: dram, bandwidth: 1.0e11, source: test}]
overhead: {seconds: 1.0e-5, label: measured, source: test}
modes:
  - {name: full, source: test}
)";

inline std::string device_file() {
  auto path = temp_dir() + "/compare-round.yaml";
  std::ofstream(path) << kDevice;
  return path;
}

// gemm: A[256,1024] x W[1024,1024] (compute-bound); add: two 2^20 vectors (memory-bound);
// relu and neg: 16 elements each (overhead-bound).
inline std::string four_node_model() {
  ModelBuilder b;
  b.input("a", {int64_t{256}, int64_t{1024}}).weight("w", {1024, 1024});
  b.input("x", {int64_t{1} << 20}).input("y", {int64_t{1} << 20}).input("s", {int64_t{16}});
  b.output("g").output("z").output("r").output("n");
  b.node("MatMul", {"a", "w"}, {"g"}, "gemm");
  b.node("Add", {"x", "y"}, {"z"}, "add");
  b.node("Relu", {"s"}, {"r"}, "relu");
  b.node("Neg", {"s"}, {"n"}, "neg");
  return b.save("compare-four");
}

// The roofline predictions of the four nodes (see tests/roofline/test_predict.cpp for the same by hand).
inline constexpr double kGemmRoofline = 2.0 * 256 * 1024 * 1024 / 1e12;  // compute-bound
inline constexpr double kAddRoofline = 3.0 * (1 << 20) * 4 / 1e11;       // memory-bound
inline constexpr double kTinyRoofline = 16 * 8 / 1e11;                   // relu, neg: 128 bytes
inline constexpr double kGemm = kGemmRoofline + 1e-5, kAdd = kAddRoofline + 1e-5, kTiny = kTinyRoofline + 1e-5;
inline constexpr double kWhole = kGemm + kAdd + 2 * kTiny;

// A bench file of `runs` (each a JSON object), as `ridge bench -f json` writes it.
inline std::string bench_file(const std::string& stem, const std::vector<json>& runs, int threads = 2) {
  json doc{{"model", "four.onnx"}, {"environment", {{"threads", threads}, {"logical_cpus", 2}}}, {"runs", runs}};
  auto path = temp_dir() + "/" + stem + ".json";
  std::ofstream(path) << doc.dump(2);
  return path;
}

inline json hand_run(const std::string& mode) {
  return {{"batch", 256},
          {"input_size", "256x1024"},
          {"mode", mode},
          {"precision", "fp32"},
          {"conv_algo", "auto"},
          {"training", false},
          {"samples", 100},
          {"latency_ms", {{"mean", 1.6}, {"median", 1.5}}},
          {"nodes",
           {{{"name", "gemm"}, {"op", "MatMul"}, {"mean_ms", 1.0}},
            {{"name", "add"}, {"op", "Add"}, {"mean_ms", 0.05}},
            {{"name", "relu"}, {"op", "Relu"}, {"mean_ms", 0.0}},
            {{"name", "ghost"}, {"op", "Identity"}, {"mean_ms", 0.05}}}}};
}

}  // namespace ridge::test::compare_fixtures
