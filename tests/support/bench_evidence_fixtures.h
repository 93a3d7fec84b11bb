#pragma once
// What the in-process tests (tests/calib/test_bench_evidence.cpp) and the binary-driven tests
// (tests/cli/test_bench_evidence.cpp) share.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "calib/bench_evidence.h"
#include "calib/shape_prediction.h"
#include "report/bench_report.h"
#include "report/printer.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test::bench_evidence_fixtures {

namespace fs = std::filesystem;

// x -> Conv 3x3 -> BatchNormalization -> Relu -> Add(x) -> GlobalAveragePool -> Flatten -> MatMul -> Add(bias).
// Optimized mode runs it as four layers: conv (+bn, relu, residual), pool, flatten, fc (+bias).
inline std::string tiny_model_bytes() {
  ModelBuilder b;
  b.input("x", {std::string("N"), int64_t{4}, int64_t{8}, int64_t{8}}).output("y");
  b.weight("w", {4, 4, 3, 3}).weight("b", {4});
  b.weight("scale", {4}).weight("shift", {4}).weight("mean", {4}).weight("var", {4});
  b.weight("fc_w", {4, 3}).weight("fc_b", {3});
  auto& conv = b.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  set_ints(conv, "pads", {1, 1, 1, 1});
  b.node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"bn"}, "bn");
  b.node("Relu", {"bn"}, {"r"}, "relu");
  b.node("Add", {"r", "x"}, {"sum"}, "residual");
  b.node("GlobalAveragePool", {"sum"}, {"p"}, "pool");
  b.node("Flatten", {"p"}, {"f"}, "flatten");
  b.node("MatMul", {"f", "fc_w"}, {"m"}, "fc");
  b.node("Add", {"m", "fc_b"}, {"y"}, "fc_bias");
  return b.bytes();
}

// A fresh directory WORK holding WORK/models/NAME.onnx; bench results go to WORK/bench.
struct Workspace {
  fs::path root;
  std::string model_file;                           // absolute
  std::string model = "models/evidence_tiny.onnx";  // as bench recorded it (relative to WORK)
  std::string bench() const { return (root / "bench").string(); }
};

inline Workspace make_workspace(const std::string& name) {
  static int counter = 0;
  Workspace w;
  w.root = fs::path(temp_dir()) / fmt::format("evidence_{}_{}", name, ++counter);
  fs::create_directories(w.root / "models");
  w.model_file = (w.root / w.model).string();
  std::ofstream(w.model_file, std::ios::binary) << tiny_model_bytes();
  return w;
}

inline const calib::Sample& sample(const calib::BenchEvidence& e, const std::string& label, const std::string& mode,
                                   double batch = 1) {
  for (const auto& s : e.samples)
    if (s.label == label && s.mode == mode && s.features.batch == batch) return s;
  ADD_FAILURE() << "no sample " << label << " (" << mode << ", batch " << batch << ")";
  static calib::Sample none;
  return none;
}

inline std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace ridge::test::bench_evidence_fixtures
