// `ridge import torch` printed and kept (report/torch_import_command), in process: the traces as their codec prints
// them, in order, and one stored result about the model; the JSON's kernels and layers, the layers CSV through
// calibrate, and the real ResNet-18 CUDA trace: its passes without ProfilerSteps, and the note when it is given another
// model (the fit to its own: tests/profile/test_torch_import.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/request_builder.h"
#include "report/calibrate_command.h"
#include "report/torch_import_codec.h"
#include "report/torch_import_command.h"
#include "roofline/family_calibration.h"
#include "store/store.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/stored_results.h"
#include "support/torch_trace_fixtures.h"

namespace ridge::test {
namespace {

using namespace torch_trace_fixtures;  // NOLINT(google-build-using-namespace)

TEST(TorchImportCommand, ImportedTracesArePrintedAsTheirCodecAndKeptAsOneResult) {
  auto dir = std::filesystem::path(temp_dir()) / "torch-trace-report-kept";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto path = (dir / "ridge.db").string();
  std::ostringstream out;
  report::import_torch_traces({.files = {data("cuda_by_hand.json"), data(kResnet18Trace)}}, "json", {.path = path},
                              out);
  auto printed = nlohmann::json::parse(out.str());
  ASSERT_TRUE(report::is_torch_import(printed)) << out.str().substr(0, 200);
  auto imports = report::decode_torch_imports(printed, "out");
  ASSERT_EQ(imports.imports.size(), 2u);
  EXPECT_EQ(imports.imports[0].trace.source, data("cuda_by_hand.json"));
  auto records = store::Store(path, true).query({});
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].command, "import torch");
  EXPECT_EQ(records[0].params.model, "");
}

// What `ridge import torch FILE [-m MODEL] --no-store -f FORMAT` prints.
std::string import_text(const std::string& file, const std::string& format, const std::string& model = "") {
  std::ostringstream out;
  report::import_torch_traces({.files = {file}, .model = model}, format, {.disabled = true}, out);
  return out.str();
}

nlohmann::json import_json(const std::string& file, const std::string& model = "") {
  auto text = import_text(file, "json", model);
  EXPECT_TRUE(nlohmann::json::accept(text)) << text.substr(0, 200);
  return nlohmann::json::accept(text) ? nlohmann::json::parse(text) : nlohmann::json::object();
}

TEST(TorchImportCommand, JsonHasKernelsAndLayers) {
  auto doc = import_json(data("cuda_by_hand.json"));
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

TEST(TorchImportCommand, LayersCsvRoundTripsThroughCalibrate) {
  auto csv = import_text(data("tiny_cnn_cpu.json"), "csv", data("tiny_cnn.onnx"));
  std::istringstream in(csv);
  auto nodes = roofline::parse_node_times(in, "import.csv");
  ASSERT_EQ(nodes.size(), 8u);
  EXPECT_EQ(nodes.front().name, "/conv1/Conv");
  auto dir = fresh_dir("torch-layers-calibrate");
  std::ofstream(dir + "/layers.csv") << csv;
  // `ridge calibrate MODEL --device a100-sxm-40gb --measured layers.csv -o cal.yaml --no-store -f json`.
  calib::CalibrateRequest request;
  request.fit = calib::Fit::kFamily;
  request.device = "a100-sxm-40gb";
  request.model = analysis::make_request({.model = data("tiny_cnn.onnx")});
  request.measured = {dir + "/layers.csv"};
  request.output = dir + "/cal.yaml";
  std::ostringstream out;
  report::calibrate_and_keep(request, {.device = request.device}, "json", {.disabled = true}, {}, out);
  EXPECT_NE(out.str().find("\"unmatched\": 0"), std::string::npos) << out.str();
}

TEST(TorchImportCommand, StoresTheDocumentAboutTheModel) {
  auto store = fresh_dir("torch-trace-store") + "/torch-trace.db";
  std::ostringstream out;
  report::import_torch_traces({.files = {data("cuda_by_hand.json")}, .model = data("tiny_cnn.onnx")}, "json",
                              {.path = store}, out);
  auto doc = stored_results(store);
  ASSERT_EQ(doc["results"].size(), 1u);
  EXPECT_EQ(doc["results"][0]["command"], "import torch");
}

TEST(TorchImportCommand, RealCudaTraceReportsPassesFromTheOpSequence) {
  auto doc = import_json(data(kResnet18Trace));
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
  auto table = import_text(data(kResnet18Trace), "table");
  EXPECT_NE(table.find("op sequence"), std::string::npos) << table;
  EXPECT_NE(table.find("passes (copies of the top-level op sequence):"), std::string::npos) << table;
}

TEST(TorchImportCommand, RealCudaTraceOfAnotherModelIsNamedAndNotMappedByOrder) {
  auto model = source_path("models/resnet50.onnx");
  auto table = import_text(data(kResnet18Trace), "table", model);
  EXPECT_NE(table.find("note: " + data(kResnet18Trace) + ": the trace does not fit " + model +
                       ": 40 convolutions against 53 Conv nodes (not a whole multiple): a trace of another model? "
                       "nothing mapped by op order\n"),
            std::string::npos)
      << table;
  auto doc = import_json(data(kResnet18Trace), model);
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
