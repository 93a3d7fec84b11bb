// A result as the store keeps it (report/result_record): everything about it comes from the typed value (headline,
// the libraries that measured, threads, random weights, the calibration a prediction used), and it decodes back.
#include <gtest/gtest.h>

#include "report/result_record.h"

namespace ridge::test {
namespace {

report::Document document(const std::string& command) {
  report::Document doc;
  doc.command = command;
  doc.subject = "models/resnet50.onnx";
  doc.field("shown", "shown", "a cell people read", 1);
  return doc;
}

TEST(ResultRecord, ABenchRunsLibrariesThreadsAndWeightsComeFromTheRun) {
  exec::BenchResult run;
  run.model = "models/resnet50.onnx";
  run.batch = 1;
  run.latency_ms.mean = 12.3456;
  run.random_weights = true;
  run.environment.threads = 2;
  run.environment.torch_version = "2.11.0";
  run.environment.backend_info = "oneDNN v3.7";
  report::TypedResult value{.kind = "bench", .runs = {run}};
  store::Params params;
  params.model = "models/resnet50.onnx";
  store::Environment here;
  here.host = "this-host";
  here.versions["fmt"] = "10";
  store::Cell cell;
  cell.sweep = "study";
  auto r = report::result_record(document("bench"), params, value, here, cell);
  EXPECT_EQ(r.command, "bench");
  EXPECT_EQ(r.subject, "models/resnet50.onnx");
  EXPECT_EQ(r.summary, "mean 12.346 ms");
  EXPECT_EQ(r.environment.host, "this-host");
  EXPECT_EQ(r.environment.versions["fmt"], "10");
  EXPECT_EQ(r.environment.versions["torch"], "2.11.0");
  EXPECT_EQ(r.environment.versions["backend"], "oneDNN v3.7");
  EXPECT_EQ(r.environment.random_weights, true);
  EXPECT_EQ(r.params.threads, 2);
  EXPECT_EQ(r.cell.sweep, "study");
  EXPECT_EQ(r.document["command"], "bench");
  auto back = report::typed_result(r);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->runs.size(), 1u);
  EXPECT_DOUBLE_EQ(back->runs[0].latency_ms.mean, 12.3456);

  // Threads the command line fixed stay as given.
  params.threads = 8;
  EXPECT_EQ(report::result_record(document("bench"), params, value, here, cell).params.threads, 8);
}

TEST(ResultRecord, APredictionsCalibrationIsItsModelElseItsSource) {
  roofline::Prediction p;
  p.time_s = 1.19e-3;
  p.calibration_source = "h200-cal.yaml";
  report::TypedResult value{.kind = "predict", .predictions = {p}};
  auto r = report::result_record(document("predict"), {}, value, {}, {});
  EXPECT_EQ(r.summary, "1.190 ms predicted");
  EXPECT_EQ(r.environment.calibration, "h200-cal.yaml");
  value.predictions[0].calibration_model = "h200-cal.model.json";
  EXPECT_EQ(report::result_record(document("predict"), {}, value, {}, {}).environment.calibration,
            "h200-cal.model.json");
  EXPECT_FALSE(r.environment.random_weights.has_value());
}

// The parameters a model's options fix, and a prediction's on top of them.
TEST(ResultRecord, ParamsOfTheModelOptionsAndOfAPrediction) {
  analysis::ModelOptions model{.model = "m.onnx", .batch = 4, .dtype = "fp16"};
  auto p = report::model_params(model);
  EXPECT_EQ(p.model, "m.onnx");
  EXPECT_EQ(p.batch, 4);
  EXPECT_EQ(p.precision, "fp16");
  EXPECT_EQ(p.training, false);
  EXPECT_TRUE(p.optimizer.empty());                      // only a training step has one
  EXPECT_EQ(report::model_params(model, 32).batch, 32);  // the batch the analysis bound
  EXPECT_FALSE(report::model_params(analysis::ModelOptions{}).batch);
  auto q = report::prediction_params(model, "h200:MAXN", {.exec_mode = "cuda-graph", .threads = 8});
  EXPECT_EQ(q.device, "h200:MAXN");
  EXPECT_EQ(q.mode, "cuda-graph");
  EXPECT_EQ(q.threads, 8);
  EXPECT_FALSE(report::prediction_params(model, "t4", {}).threads);
}

}  // namespace
}  // namespace ridge::test
