// The prediction codec (roofline/prediction_codec) and the typed results the store keeps (report/result_codec):
// real predictions of bundled models round-trip through the codec unchanged, field by field, single and swept;
// a stored typed result decodes to the value that was saved, with its headline from the value; bad files get one
// line naming the field.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "analysis/run.h"
#include "exec/bench_codec.h"
#include "hw/device_db.h"
#include "report/prediction_report.h"
#include "report/result_codec.h"
#include "roofline/predict.h"
#include "roofline/prediction_codec.h"
#include "store/store.h"
#include "support/error_text.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using nlohmann::json;

roofline::Prediction predict_model(const std::string& name, const std::string& device_id, int64_t batch,
                                   const std::string& mode = "") {
  analysis::Request request;
  request.model_path = model_path(name);
  request.bindings.batch = batch;
  auto analysis = analysis::run(request);
  auto device = hw::find_device(device_id);
  auto roofline = hw::roofline_for(device, hw::resolve_mode(device, mode));
  roofline::PredictOptions options;
  options.batch = batch;
  auto p = roofline::predict(analysis.cost, roofline, options);
  p.model = request.model_path;
  return p;
}

// Every field, compared exactly: doubles are written with their shortest round-trip form.
void expect_same(const roofline::Prediction& a, const roofline::Prediction& b) {
  EXPECT_EQ(a.model, b.model);
  EXPECT_EQ(a.batch, b.batch);
  EXPECT_EQ(a.training, b.training);
  EXPECT_EQ(a.device_id, b.device_id);
  EXPECT_EQ(a.device_name, b.device_name);
  EXPECT_EQ(a.mode, b.mode);
  EXPECT_EQ(a.calibrated, b.calibrated);
  EXPECT_EQ(a.calibration_source, b.calibration_source);
  EXPECT_EQ(a.precision, b.precision);
  EXPECT_EQ(a.time_s, b.time_s);
  EXPECT_EQ(a.compute_bound_s, b.compute_bound_s);
  EXPECT_EQ(a.memory_bound_s, b.memory_bound_s);
  EXPECT_EQ(a.overhead_bound_s, b.overhead_bound_s);
  EXPECT_EQ(a.throughput, b.throughput);
  EXPECT_EQ(a.unpredicted_ops, b.unpredicted_ops);
  EXPECT_EQ(a.ceilings_used, b.ceilings_used);
  EXPECT_EQ(a.calibration_model, b.calibration_model);
  EXPECT_EQ(a.exec_mode, b.exec_mode);
  EXPECT_EQ(a.threads, b.threads);
  ASSERT_EQ(a.validation.has_value(), b.validation.has_value());
  if (a.validation) {
    EXPECT_EQ(a.validation->points, b.validation->points);
    EXPECT_EQ(a.validation->median_abs, b.validation->median_abs);
    EXPECT_EQ(a.validation->p90_abs, b.validation->p90_abs);
    EXPECT_EQ(a.validation->within_10, b.validation->within_10);
  }
  EXPECT_EQ(a.framework_overhead_s, b.framework_overhead_s);
  EXPECT_EQ(a.energy_predicted, b.energy_predicted);
  EXPECT_EQ(a.energy_j, b.energy_j);
  EXPECT_EQ(a.power_w, b.power_w);
  EXPECT_EQ(a.energy_label, b.energy_label);
  EXPECT_EQ(a.energy_source, b.energy_source);
  EXPECT_EQ(a.energy_missing, b.energy_missing);
  EXPECT_EQ(a.notes, b.notes);
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const auto &x = a.nodes[i], &y = b.nodes[i];
    SCOPED_TRACE(x.name);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.op, y.op);
    EXPECT_EQ(x.family, y.family);
    EXPECT_EQ(x.flops, y.flops);
    EXPECT_EQ(x.bytes, y.bytes);
    EXPECT_EQ(x.peak_key, y.peak_key);
    EXPECT_EQ(x.peak_flops, y.peak_flops);
    EXPECT_EQ(x.attainable_flops, y.attainable_flops);
    EXPECT_EQ(x.compute_s, y.compute_s);
    EXPECT_EQ(x.memory_s, y.memory_s);
    EXPECT_EQ(x.overhead_s, y.overhead_s);
    EXPECT_EQ(x.time_s, y.time_s);
    EXPECT_EQ(x.bound, y.bound);
    EXPECT_EQ(x.efficiency, y.efficiency);
    EXPECT_EQ(x.kernels, y.kernels);
    EXPECT_EQ(x.predicted, y.predicted);
    EXPECT_EQ(x.note, y.note);
    EXPECT_EQ(x.roofline_s, y.roofline_s);
    EXPECT_EQ(x.estimated, y.estimated);
    EXPECT_EQ(x.fused_into, y.fused_into);
    EXPECT_EQ(x.energy_j, y.energy_j);
    EXPECT_EQ(x.power_w, y.power_w);
  }
}

// Through text, as a file or the store holds it.
std::vector<roofline::Prediction> round_trip(const std::vector<roofline::Prediction>& predictions) {
  auto text = roofline::encode_predictions(predictions).dump(2);
  return roofline::decode_predictions(json::parse(text), "test.json");
}

TEST(PredictionCodec, RealPredictionsRoundTripUnchanged) {
  // ResNet-50 on an H100 (energy estimated from the TDP), ViT-B/16 on a T4, at batch 4.
  for (auto [model, device] : {std::pair{"resnet50", "h100-sxm"}, std::pair{"vit_b_16", "t4"}}) {
    SCOPED_TRACE(model);
    auto p = predict_model(model, device, 4);
    ASSERT_GT(p.nodes.size(), 10u);
    EXPECT_EQ(p.batch, 4);
    auto back = round_trip({p});
    ASSERT_EQ(back.size(), 1u);
    expect_same(p, back[0]);
    // Encoding again gives the same text: nothing is lost or added.
    EXPECT_EQ(roofline::encode_prediction(back[0]).dump(), roofline::encode_prediction(p).dump());
  }
}

// A training step's prediction says so: the flag survives the codec, and people read "per training step" where an
// inference's reads latency and energy per inference.
TEST(PredictionCodec, ATrainingStepIsNamedAsOne) {
  analysis::Request request;
  request.model_path = model_path("mobilenet_v2_train");
  request.bindings.batch = 2;
  request.options.training = true;
  auto analysis = analysis::run(request);
  auto device = hw::find_device("h100-sxm");
  roofline::PredictOptions options;
  options.batch = 2;
  auto step = roofline::predict(analysis.cost, hw::roofline_for(device, hw::resolve_mode(device, "")), options);
  EXPECT_TRUE(step.training);
  auto back = round_trip({step});
  ASSERT_EQ(back.size(), 1u);
  expect_same(step, back[0]);
  auto inference = predict_model("mobilenet_v2", "h100-sxm", 2);
  EXPECT_FALSE(inference.training);
  EXPECT_FALSE(roofline::encode_prediction(inference).contains("training"));
  auto titles = [](const roofline::Prediction& p) {
    std::map<std::string, std::string> out;
    for (const auto& table : report::prediction_document(p).tables)
      if (table.key == "totals")
        for (const auto& column : table.columns) out[column.key] = column.title;
    return out;
  };
  EXPECT_EQ(titles(back[0])["time_s"], "predicted time per training step");
  EXPECT_EQ(titles(back[0])["energy_per_inference_j"].rfind("predicted energy per training step", 0), 0u);
  EXPECT_EQ(titles(inference)["time_s"], "predicted latency");
  EXPECT_EQ(titles(inference)["energy_per_inference_j"].rfind("predicted energy per inference", 0), 0u);
}

TEST(PredictionCodec, CalibratedNotPredictedAndFusedNodesRoundTrip) {
  auto p = predict_model("resnet50", "h200", 1);
  // What a shape-aware calibration and the fusion planner set, and what an op without a cost rule leaves.
  p.calibrated = true;
  p.calibration_model = "cal/h200.json";
  p.exec_mode = "cuda-graph";
  p.threads = 1;
  p.validation = roofline::ValidationError{.points = 40, .median_abs = 0.054, .p90_abs = 0.21, .within_10 = 0.8};
  p.framework_overhead_s = 1.25e-5;
  p.unpredicted_ops = {{"FooOp", 2}};
  p.nodes[1].fused_into = p.nodes[0].name;
  p.nodes[1].estimated = true;
  p.nodes[2].predicted = false;
  p.nodes[2].note = "no cost rule for FooOp";
  p.notes.push_back("a note with \"quotes\" and a second line\nhere");
  p.energy_predicted = false;
  p.energy_j = 0, p.power_w = 0;
  for (auto& n : p.nodes) n.energy_j = 0, n.power_w = 0;  // as a roofline without energy ceilings leaves them
  p.energy_missing = "the device file has no energy coefficients";
  auto back = round_trip({p});
  ASSERT_EQ(back.size(), 1u);
  expect_same(p, back[0]);
  // No energy is left out, never written as a zero someone could sum.
  auto encoded = roofline::encode_prediction(p);
  EXPECT_FALSE(encoded["totals"].contains("energy_per_inference_j"));
  EXPECT_FALSE(encoded["nodes"][0].contains("energy_j"));
  EXPECT_EQ(encoded["calibration"]["exec_mode"], "cuda-graph");
}

TEST(PredictionCodec, SweepsKeepEveryPointWhole) {
  std::vector<roofline::Prediction> sweep;
  for (const char* mode : {"MAXN", "15W"})
    for (int64_t batch : {1, 8}) sweep.push_back(predict_model("mobilenet_v2", "jetson-agx-orin-64gb", batch, mode));
  auto encoded = roofline::encode_predictions(sweep);
  ASSERT_TRUE(encoded.contains("points"));
  EXPECT_EQ(encoded["points"].size(), 4u);
  EXPECT_EQ(encoded["device"]["id"], "jetson-agx-orin-64gb");
  auto back = round_trip(sweep);
  ASSERT_EQ(back.size(), 4u);
  for (size_t i = 0; i < sweep.size(); ++i) expect_same(sweep[i], back[i]);
  EXPECT_EQ(back[3].mode, "15W");
  EXPECT_EQ(back[3].batch, 8);
  EXPECT_GT(back[3].time_s, back[2].time_s);  // batch 8 takes longer than batch 1 in the same mode
}

TEST(PredictionCodec, BadFilesGetOneLine) {
  auto message = [](const std::string& text) {
    return error_text([&] { roofline::decode_predictions(json::parse(text), "'p.json'"); });
  };
  EXPECT_NE(message(R"({"runs": []})").find("'p.json' is no `ridge predict -f json` output"), std::string::npos);
  EXPECT_NE(message(R"({"device": {"id": "t4"}, "totals": {"time_s": "fast"}})").find("totals.time_s is not a number"),
            std::string::npos);
  EXPECT_NE(message(R"({"device": {"id": "t4"}, "totals": {"time_s": 1}, "nodes": [{"bound": "slow"}]})")
                .find("'p.json'.nodes[0].bound"),
            std::string::npos);
  EXPECT_NE(message(R"({"device": {"id": "t4"}, "points": [{"mode": "a"}]})").find("points[0].totals is missing"),
            std::string::npos);
  EXPECT_NE(message(R"({"device": {"id": "t4"}, "totals": {"time_s": -1}})").find("time_s -1 is negative"),
            std::string::npos);
}

TEST(TypedResults, TheStoreGivesBackTheValueSaved) {
  auto path = temp_dir() + "/typed-results.db";
  std::filesystem::remove(path);
  store::Store store(path);
  auto p = predict_model("resnet50", "h100-sxm", 2);
  exec::BenchResult run;
  run.model = "models/resnet50.onnx";
  run.batch = 2;
  run.mode = "cuda-graph";
  run.latency_ms.mean = 1.5;
  run.latency_ms.samples = 10;
  run.environment.device = "cuda:0 NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB)";
  run.environment.cpu_model = "Intel(R) Xeon(R) Platinum 8480C";
  store::Record predicted{.command = "predict",
                          .result = report::encode_typed({.kind = "predict", .predictions = {p}})};
  store::Record measured{.command = "bench", .result = report::encode_typed({.kind = "bench", .runs = {run}})};
  store::Record old{.command = "bench"};  // stored before results were typed
  store.save(predicted), store.save(measured), store.save(old);
  auto records = store.query({});
  ASSERT_EQ(records.size(), 3u);
  auto back = report::typed_result(records[0]);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->kind, "predict");
  ASSERT_EQ(back->predictions.size(), 1u);
  expect_same(p, back->predictions[0]);
  auto bench = report::typed_result(records[1]);
  ASSERT_TRUE(bench);
  ASSERT_EQ(bench->runs.size(), 1u);
  EXPECT_EQ(bench->runs[0].mode, "cuda-graph");
  EXPECT_EQ(bench->runs[0].environment.device, run.environment.device);  // the GPU that measured, kept
  EXPECT_TRUE(exec::on_gpu(bench->runs[0].environment));
  EXPECT_FALSE(report::typed_result(records[2]));
  // Listings read no documents or typed results.
  EXPECT_TRUE(store.query({}, false)[0].result.is_null());
  EXPECT_EQ(report::headline(*bench), "mean 1.500 ms");
  EXPECT_NE(report::headline(*back).find("predicted"), std::string::npos);
  // A kind this ridge does not know, or a damaged value, is named.
  EXPECT_THROW(report::decode_typed(json{{"kind", "tea"}, {"result", {}}}, "result 9"), Error);
  EXPECT_THROW(report::decode_typed(json{{"result", {}}}, "result 9"), Error);
}

}  // namespace
}  // namespace ridge::test
