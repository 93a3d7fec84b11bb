#pragma once
// What the in-process tests (tests/profile/test_ncu_import.cpp) and the binary-driven tests
// (tests/cli/test_ncu_import.cpp) share.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/run.h"
#include "profile/layer_map.h"
#include "profile/metric_value.h"
#include "profile/ncu_export.h"
#include "profile/ncu_kernel.h"
#include "profile/ncu_metrics.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test::ncu_import_fixtures {

using nlohmann::json;
using profile::kernel_figures;
using profile::parse_metric_value;
using profile::read_ncu_export;

inline std::string sample(const std::string& name) { return source_path("tests/data/ncu/real/" + name); }

inline std::string data(const std::string& name) { return source_path("tests/data/ncu/" + name); }

inline std::vector<profile::KernelFigures> kernels_of(const std::string& path) {
  auto exported = read_ncu_export(path);
  std::vector<profile::KernelFigures> out;
  for (const auto& launch : exported.launches) out.push_back(kernel_figures(launch, path));
  return out;
}

// A real export of an NVIDIA H200 (tests/data/ncu/h200/SOURCES.md).
inline std::string h200_file(const std::string& file) { return source_path("tests/data/ncu/h200/" + file); }
inline std::vector<profile::KernelFigures> h200(const std::string& file) { return kernels_of(h200_file(file)); }
// A real export of an NVIDIA H100 (tests/data/ncu/h100/SOURCES.md).
inline std::vector<profile::KernelFigures> h100(const std::string& file) {
  return kernels_of(source_path("tests/data/ncu/h100/" + file));
}

inline double at(const profile::KernelFigures& k, const std::string& precision) {
  auto it = k.flops_by_precision.find(precision);
  if (it == k.flops_by_precision.end()) ADD_FAILURE() << precision << " not counted for " << k.name;
  return it == k.flops_by_precision.end() ? -1 : it->second;
}

// A details-page CSV of `rows`: kernel, NVTX range, and metrics (name, unit, value).
struct Launch {
  std::string kernel, nvtx;
  std::vector<std::array<std::string, 3>> metrics;
};

inline std::string details_csv(const std::vector<Launch>& launches, bool nvtx_column) {
  std::string out = R"x("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",)x"
                    R"x("Grid Size","Device","CC",)x";
  if (nvtx_column) out += R"x("NVTX Push/Pop Range",)x";
  out += R"x("Section Name","Metric Name","Metric Unit","Metric Value")x"
         "\n";
  for (size_t i = 0; i < launches.size(); ++i)
    for (const auto& m : launches[i].metrics) {
      out += fmt::format(R"x("{}","99","python3","localhost","{}","1","7","(256, 1, 1)","(64, 1, 1)","0","8.0",)x", i,
                         launches[i].kernel);
      if (nvtx_column) out += "\"" + launches[i].nvtx + "\",";
      out += fmt::format(R"x("Command line profiler metrics","{}","{}","{}")x", m[0], m[1], m[2]) + "\n";
    }
  return out;
}

inline std::vector<std::array<std::string, 3>> conv_metrics(const std::string& ffma, const std::string& dram) {
  return {{"gpu__time_duration.sum", "usecond", "10"},
          {"sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst", "0"},
          {"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst", "0"},
          {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", ffma},
          {"dram__bytes.sum", "byte", dram}};
}

// conv1 (3 -> 4 channels, 3x3, 8x8) -> relu1 -> conv2 (4 -> 4).
inline std::string two_conv_model() {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{8}}).weight("w1", {4, 3, 3, 3}).weight("w2", {4, 4, 3, 3});
  b.output("y");
  set_ints(b.node("Conv", {"x", "w1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  b.node("Relu", {"c1"}, {"r1"}, "relu1");
  set_ints(b.node("Conv", {"r1", "w2"}, {"y"}, "conv2"), "pads", {1, 1, 1, 1});
  return b.save("ncu-two-conv");
}

}  // namespace ridge::test::ncu_import_fixtures
