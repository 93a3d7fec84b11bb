// `ridge import torch` through the binary: JSON kernels and layers, the layers CSV through calibrate,
// the store, malformed files named in one line, and the real ResNet-18 CUDA trace: its passes without
// ProfilerSteps, and the note when it is given another model (the fit to its own: tests/profile/test_torch_import.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "onnx/model_reader.h"
#include "profile/torch_trace.h"
#include "roofline/family_calibration.h"
#include "support/paths.h"
#include "support/torch_trace_fixtures.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace torch_trace_fixtures;  // NOLINT(google-build-using-namespace)

using profile::TorchSummary;
using profile::TorchTrace;

TEST(TorchTrace, CliJsonHasKernelsAndLayers) {
  auto r = run_ridge("import torch " + data("cuda_by_hand.json") + " --no-store -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_TRUE(doc["kernels"].is_array());
  bool found = false;
  for (const auto& k : doc["kernels"])
    if (k["name"] == "implicit_gemm") {
      found = true;
      EXPECT_EQ(k["calls"], 2);
      EXPECT_NEAR(k["time_s"].get<double>(), 51 * kUs, 1e-12);  // per call: (50 + 52) / 2
      EXPECT_NEAR(k["total_time_s"].get<double>(), 102 * kUs, 1e-12);
      EXPECT_EQ(k["op"], "aten::conv2d");
      EXPECT_EQ(k["layer"], "conv1");
      EXPECT_EQ(k["device"], "cuda:0");
    }
  EXPECT_TRUE(found);
  ASSERT_EQ(doc["layers"].size(), 1u);
  EXPECT_NEAR(doc["layers"][0]["gpu_time_s"].get<double>(), 55 * kUs, 1e-12);
  EXPECT_NEAR(doc["layers"][0]["time_s"].get<double>(), 55 * kUs, 1e-12);
  EXPECT_EQ(doc["traces"][0]["steps"], 2);
  EXPECT_EQ(doc["traces"][0]["passes"], 2);  // a trace with ProfilerSteps: one pass per step
  EXPECT_EQ(doc["traces"][0]["passes_from"], "steps");
  ASSERT_EQ(doc["steps"].size(), 2u);
  EXPECT_EQ(doc["steps"][1]["step"], 2);
  EXPECT_TRUE(!doc.contains("passes") || doc["passes"].empty());
  EXPECT_EQ(doc["layers"][0]["passes"], 2);
  // An unlinked kernel has no op: the key is absent or null, never an invented name.
  for (const auto& k : doc["kernels"])
    if (k["name"] == "orphan_kernel") {
      EXPECT_TRUE(!k.contains("op") || k["op"].is_null());
    }
  ASSERT_TRUE(doc["unmapped"].is_array());
  EXPECT_FALSE(doc["unmapped"].empty());
}

TEST(TorchTrace, LayersCsvRoundTripsThroughCalibrate) {
  auto r = run_ridge("import torch " + data("tiny_cnn_cpu.json") + " --model " + data("tiny_cnn.onnx") +
                     " --no-store -f csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  auto nodes = roofline::parse_node_times(in, "import.csv");
  ASSERT_EQ(nodes.size(), 8u);
  EXPECT_EQ(nodes.front().name, "/conv1/Conv");
  auto dir = temp_dir();
  std::ofstream(dir + "/layers.csv") << r.out;
  auto c = run_ridge("calibrate " + data("tiny_cnn.onnx") + " --device a100-sxm-40gb --measured " + dir +
                     "/layers.csv -o " + dir + "/cal.yaml --no-store -f json");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("\"unmatched\": 0"), std::string::npos) << c.out;
}

TEST(TorchTrace, StoresTheDocument) {
  auto dir = temp_dir();
  auto r = run_ridge("import torch " + data("cuda_by_hand.json") + " -m " + data("tiny_cnn.onnx") + " --store " + dir +
                     "/torch-trace.db -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto q = run_ridge("results --store " + dir + "/torch-trace.db -f json");
  ASSERT_EQ(q.exit_code, 0) << q.err;
  auto doc = nlohmann::json::parse(q.out);
  ASSERT_EQ(doc["results"].size(), 1u);
  EXPECT_EQ(doc["results"][0]["command"], "import torch");
}

TEST(TorchTrace, MalformedFilesGetOneLineNamingTheFile) {
  for (const char* name : {"truncated.json", "not_a_trace.json", "no_events.json", "negative_duration.json"}) {
    auto path = data(std::string("malformed/") + name);
    auto r = run_ridge("import torch " + path + " --no-store");
    EXPECT_NE(r.exit_code, 0) << name;
    EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << name;
  }
  auto missing = run_ridge("import torch /nonexistent/trace.json --no-store");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("/nonexistent/trace.json"), std::string::npos);
  EXPECT_THROW(profile::parse_torch_trace("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"aten::add\"}]}", "x"), Error);
  EXPECT_THROW(profile::parse_torch_trace("[1, 2]", "x"), Error);
  EXPECT_THROW(profile::parse_torch_trace("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"ProfilerStep#x\", \"ts\": 1, "
                                          "\"dur\": 1}]}",
                                          "x"),
               Error);
}

TEST(TorchTrace, CliRealCudaTraceReportsPassesFromTheOpSequence) {
  auto r = run_ridge("import torch " + data(kResnet18Trace) + " --no-store -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  const auto& t = doc["traces"][0];
  EXPECT_EQ(t["steps"], 0);
  EXPECT_EQ(t["passes"], 2);
  EXPECT_EQ(t["passes_from"], "op_sequence");
  EXPECT_EQ(t["kernels"], 238);
  EXPECT_NEAR(t["kernel_time_s"].get<double>(), 1411.238 * kUs, 1e-10);
  EXPECT_NEAR(t["kernel_time_per_pass_s"].get<double>(), 705.619 * kUs, 1e-10);
  EXPECT_TRUE(!t.contains("model_fit") || t["model_fit"].is_null());
  ASSERT_EQ(doc["passes"].size(), 2u);
  EXPECT_EQ(doc["passes"][0]["pass"], 1);
  EXPECT_NEAR(doc["passes"][0]["kernel_time_s"].get<double>(), 706.723 * kUs, 1e-10);
  EXPECT_NEAR(doc["passes"][1]["kernel_time_s"].get<double>(), 704.515 * kUs, 1e-10);
  bool said = false;
  for (const auto& n : doc["notes"])
    said = said || n.get<std::string>().find("2 passes, found by the top-level op sequence repeating 2 times") !=
                       std::string::npos;
  EXPECT_TRUE(said) << doc["notes"].dump();

  // People see the count and how it was found.
  auto table = run_ridge("import torch " + data(kResnet18Trace) + " --no-store");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("op sequence"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("passes (copies of the top-level op sequence):"), std::string::npos) << table.out;
}

TEST(TorchTrace, CliRealCudaTraceOfAnotherModelIsNamedAndNotMappedByOrder) {
  auto model = source_path("models/resnet50.onnx");
  auto r = run_ridge("import torch " + data(kResnet18Trace) + " -m " + model + " --no-store");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("note: " + data(kResnet18Trace) + ": the trace does not fit " + model +
                       ": 40 convolutions against 53 Conv nodes (not a whole multiple): a trace of another model? "
                       "nothing mapped by op order\n"),
            std::string::npos)
      << r.out;
  auto j = run_ridge("import torch " + data(kResnet18Trace) + " -m " + model + " --no-store -f json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  const auto& t = doc["traces"][0];
  EXPECT_EQ(t["mapped_by"]["op_order"], 0);
  EXPECT_EQ(t["passes"], 2);
  EXPECT_EQ(t["passes_from"], "op_sequence");
  EXPECT_EQ(t["model_fit"]["verdict"], "mismatch");
  EXPECT_TRUE(!t["model_fit"].contains("passes") || t["model_fit"]["passes"].is_null());
  bool conv_counted = false;
  for (const auto& f : t["model_fit"]["families"])
    if (f["family"] == "conv") conv_counted = f["ops"] == 40 && f["nodes"] == 53;
  EXPECT_TRUE(conv_counted) << t["model_fit"].dump();
  EXPECT_TRUE(doc["layers"].empty());
}

}  // namespace
}  // namespace ridge::test
