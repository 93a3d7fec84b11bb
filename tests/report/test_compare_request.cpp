// `ridge compare` as one call (report/compare_request): ResNet-50 on the H200 against ridge's own run of it on an
// H200 (tests/data/bench/h200, CUDA graph at batch 32), a training step measured now and read back, and the inputs
// it refuses, in process.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "exec/bench_codec.h"
#include "report/compare_codec.h"
#include "report/compare_request.h"
#include "store/store.h"
#include "support/error_text.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

report::CompareRequest h200_request(int64_t batch) {
  report::CompareRequest r;
  r.model.model_path = model_path("resnet50");
  r.model.bindings.batch = batch;
  r.model_name = "models/resnet50.onnx";
  r.device = "h200";
  r.choices.exec_mode = "cuda-graph";
  r.measured = source_path("tests/data/bench/h200/ridge-bench-resnet50.json");
  return r;
}

TEST(CompareRequest, ComparesTheRunTheBatchAndModeSelect) {
  auto c = report::compare_model(h200_request(32));
  // The run's median, read from the file (latency_ms.median of the batch-32 CUDA-graph run).
  EXPECT_NEAR(c.measured_s, 13.948847770690918e-3, 1e-12);
  EXPECT_EQ(c.measured.batch, 32);
  EXPECT_EQ(c.measured.mode, "cuda-graph");
  EXPECT_EQ(c.model, "models/resnet50.onnx");
  EXPECT_GT(c.predicted_s, 0);
  // Every one of the run's 122 timed nodes is a node of the model: compared, never dropped as unknown.
  int compared = 0, not_predicted = 0;
  for (const auto& n : c.nodes) {
    compared += n.match == report::Match::kCompared;
    not_predicted += n.match == report::Match::kNotPredicted;
  }
  EXPECT_EQ(compared, 122);
  EXPECT_EQ(not_predicted, 0);
  ASSERT_FALSE(c.inputs.empty());
  EXPECT_EQ(c.inputs.front().second, "32x3x224x224");
}

TEST(CompareRequest, RefusesWhatDoesNotBelongTogether) {
  auto both = h200_request(32);
  both.run = true;
  EXPECT_NE(error_text([&] { report::compare_model(both); }).find("not both"), std::string::npos);
  auto neither = h200_request(32);
  neither.measured.clear();
  EXPECT_NE(error_text([&] { report::compare_model(neither); }).find("give the measurements"), std::string::npos);
  // The file holds batches 1 and 32 only.
  EXPECT_NE(error_text([&] { report::compare_model(h200_request(8)); }).find("batch"), std::string::npos);
  // The run was measured in fp32.
  auto fp16 = h200_request(32);
  fp16.choices.precision = "fp16";
  EXPECT_NE(error_text([&] { report::compare_model(fp16); }).find("contradicts"), std::string::npos);
  // The detected host has no measured bandwidth to predict with.
  auto host = h200_request(32);
  host.device = "host";
  EXPECT_NE(error_text([&] { report::compare_model(host); }).find("ridge ert --profile"), std::string::npos);
}

// A CPU training step measured now is compared per node (its profile: each node's forward and backward) against a
// prediction of a training step, the optimizer update included; a prediction of an inference never matches it, nor
// one of another optimizer; a run without per-node times is compared whole.
TEST(CompareRequest, ATrainingStepIsComparedWithAPredictionOfOne) {
  report::CompareRequest r;
  r.model.model_path = source_path("tests/data/training/resnet/model.onnx");
  r.model.options.training = true;
  r.model_name = "resnet";
  r.device = "h200";
  r.run = true;
  r.max_time_s = 5;
  auto c = report::compare_model(r);
  EXPECT_TRUE(c.measured.training);
  EXPECT_EQ(c.measured.optimizer, "sgd");
  EXPECT_TRUE(c.prediction.training);
  // Every node the prediction has was measured, the optimizer row included; the loss and the gradients'
  // accumulation are the run's own rows.
  EXPECT_EQ(c.not_measured, 0);
  std::set<std::string> not_predicted, compared;
  for (const auto& n : c.nodes) {
    if (n.match == report::Match::kNotPredicted) not_predicted.insert(n.name);
    if (n.match == report::Match::kCompared) compared.insert(n.name);
  }
  EXPECT_EQ(not_predicted, (std::set<std::string>{"(loss)", "(gradient accumulation)"}));
  EXPECT_TRUE(compared.count("(optimizer step)"));
  EXPECT_GT(c.compared, 20);
  ASSERT_GT(c.measured_s, 0);
  EXPECT_EQ(c.measured_s, c.measured.latency_ms.median * 1e-3);
  ASSERT_TRUE(c.error);
  EXPECT_DOUBLE_EQ(*c.error, c.predicted_s / c.measured_s - 1);
  // Its codec keeps it: the nodes, a training step on both sides.
  auto decoded = report::decode_comparison(nlohmann::json::parse(report::encode_comparison(c).dump()), "test");
  EXPECT_EQ(decoded.nodes.size(), c.nodes.size());
  EXPECT_TRUE(decoded.measured.training);
  EXPECT_TRUE(decoded.prediction.training);
  EXPECT_EQ(decoded.measured_s, c.measured_s);
  EXPECT_EQ(report::encode_comparison(decoded).dump(), report::encode_comparison(c).dump());

  // The same run read back from a bench file.
  auto path = temp_dir() + "/training-run.json";
  std::ofstream(path) << exec::encode_bench({c.measured}).dump();
  auto from_file = r;
  from_file.run = false;
  from_file.measured = path;
  auto again = report::compare_model(from_file);
  EXPECT_EQ(again.measured_s, c.measured_s);
  EXPECT_TRUE(again.prediction.training);
  // A comparison keeps the run without its nodes (they are its rows), so the file holds a step timed whole, as
  // one measured with --no-per-node: it is compared whole, and the notes say so.
  EXPECT_TRUE(again.nodes.empty());
  EXPECT_EQ(again.compared, 0);
  bool says_whole = false;
  for (const auto& note : again.notes)
    says_whole = says_whole || note.find("the whole step is compared") != std::string::npos;
  EXPECT_TRUE(says_whole);
  auto inference = from_file;
  inference.model.options.training = false;
  EXPECT_NE(error_text([&] { report::compare_model(inference); }).find("has no inference run"), std::string::npos);
  auto adam = from_file;
  adam.model.options.optimizer = cost::Optimizer::kAdam;
  EXPECT_NE(error_text([&] { report::compare_model(adam); }).find("no training run with adam"), std::string::npos);
}

// Printed (-f json: the codec's, which reads back) and kept with the parameters given, its headline the two latencies.
TEST(CompareRequest, PrintedAsItsCodecAndKept) {
  auto dir = std::filesystem::path(temp_dir()) / "compare-request-kept";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto path = (dir / "ridge.db").string();
  std::ostringstream out;
  report::compare_and_keep(h200_request(32), 5, "json", {.path = path}, {.model = "models/resnet50.onnx", .batch = 32},
                           out);
  auto printed = nlohmann::json::parse(out.str());
  ASSERT_TRUE(report::is_comparison(printed)) << out.str().substr(0, 200);
  auto c = report::decode_comparison(printed, "out");
  EXPECT_NEAR(c.measured_s, 13.948847770690918e-3, 1e-12);
  auto records = store::Store(path, true).query({});
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].command, "compare");
  EXPECT_EQ(records[0].params.model, "models/resnet50.onnx");
  EXPECT_EQ(records[0].params.batch, 32);
  EXPECT_NE(records[0].summary.find(" vs 13.949 ms measured ("), std::string::npos) << records[0].summary;
}

}  // namespace
}  // namespace ridge::test
