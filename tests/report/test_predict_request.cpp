// `ridge predict` as one call (report/predict_request): every power mode asked for at every batch of a sweep, batches
// outer; a device or mode that does not exist and the unmeasured host refused before any model work. The energy in
// what it prints (per node, per inference, per mode of a sweep, and how its coefficients are labelled), against the
// values computed by hand in tests/roofline/test_energy.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hw/device_db.h"
#include "report/predict_request.h"
#include "report/result_codec.h"
#include "roofline/prediction_codec.h"
#include "store/store.h"
#include "support/energy_fixtures.h"
#include "support/error_text.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

double flops(const roofline::Prediction& p) {
  double sum = 0;
  for (const auto& n : p.nodes) sum += n.flops;
  return sum;
}

TEST(PredictRequest, EveryModeAtEveryBatchBatchesOuter) {
  report::PredictRequest r{.model = {.model_path = model_path("resnet50")},
                           .device = "jetson-agx-orin-64gb",
                           .modes = "all",
                           .batches = {1, 8}};
  auto points = report::predict_model(r);
  auto modes = hw::find_device("jetson-agx-orin-64gb").modes.size();
  ASSERT_GT(modes, 1u);
  ASSERT_EQ(points.size(), 2 * modes);
  for (size_t i = 0; i < modes; ++i) {
    const auto& one = points[i];
    const auto& eight = points[modes + i];
    EXPECT_EQ(one.batch, 1);
    EXPECT_EQ(eight.batch, 8);
    EXPECT_EQ(one.mode, eight.mode);
    // Eight images cost eight times the FLOPs (ResNet-50 has no batch-shared work), and take longer.
    EXPECT_NEAR(flops(eight.prediction) / flops(one.prediction), 8.0, 1e-9);
    EXPECT_GT(eight.prediction.time_s, one.prediction.time_s);
  }
  EXPECT_NE(points[0].mode, points[1].mode);

  // Without a sweep, the model's own binding; an unbound batch is predicted at 1.
  report::PredictRequest one{.model = {.model_path = model_path("resnet50")}, .device = "t4"};
  auto single = report::predict_model(one);
  ASSERT_EQ(single.size(), 1u);
  EXPECT_EQ(single[0].batch, 1);
  EXPECT_DOUBLE_EQ(flops(single[0].prediction), flops(points[0].prediction));
}

TEST(PredictRequest, RefusesADeviceThatCannotPredictBeforeAnyModelWork) {
  // The model does not exist: each refusal comes before it would be read.
  report::PredictRequest r{.model = {.model_path = "no-such-model.onnx"}, .device = "host"};
  EXPECT_NE(error_text([&] { report::predict_model(r); }).find("device 'host' has no DRAM bandwidth"),
            std::string::npos);
  r.device = "no-such-device";
  EXPECT_NE(error_text([&] { report::predict_model(r); }).find("no-such-device"), std::string::npos);
  r.device = "t4";
  r.modes = "no-such-mode";
  EXPECT_NE(error_text([&] { report::predict_model(r); }).find("no-such-mode"), std::string::npos);
}

TEST(PredictRequest, BatchesFromTheSweepAndStoredParams) {
  analysis::Request model;
  EXPECT_TRUE(report::predict_batches(model, "").empty());  // the model's own binding
  EXPECT_EQ(report::predict_batches(model, "batch=1,4"), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(error_text([&] { report::predict_batches(model, "seq=128"); }),
            "predict sweeps batch sizes only: --sweep batch=v1,v2,...");
  // The device with its modes as given, the batch of a single point, --precision else --dtype, and the executor
  // conditions of a calibrated device.
  analysis::ModelOptions options{.model = "m.onnx", .batch = 2, .dtype = "bf16"};
  report::PredictRequest r{.device = "t4", .modes = "all", .choices = {.exec_mode = "optimized", .threads = 2}};
  std::vector<report::PredictionPoint> one(1);
  one[0].batch = 16;
  auto p = report::predict_params(options, r, one);
  EXPECT_EQ(p.device, "t4:all");
  EXPECT_EQ(p.batch, 16);
  EXPECT_EQ(p.precision, "bf16");
  EXPECT_EQ(p.mode, "optimized");
  EXPECT_EQ(p.threads, 2);
  r.modes.clear();
  r.choices = {.precision = "fp16"};
  p = report::predict_params(options, r, std::vector<report::PredictionPoint>(2));
  EXPECT_EQ(p.device, "t4");
  EXPECT_EQ(p.batch, 2);  // --batch as given: a sweep has no one batch
  EXPECT_EQ(p.precision, "fp16");
  EXPECT_FALSE(p.threads);
}

std::string fresh_store(const std::string& name) {
  auto dir = std::filesystem::path(temp_dir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return (dir / "ridge.db").string();
}

// One point: printed as the prediction codec, kept with its batch and device; a sweep: one result of every point,
// with no batch of its own.
TEST(PredictRequest, PrintedAsTheCodecAndKeptAsOneResult) {
  analysis::ModelOptions model{.model = model_path("resnet50"), .batch = 8};
  auto path = fresh_store("predict-and-keep");
  std::ostringstream out;
  report::PredictRequest r{.model = analysis::make_request(model), .device = "h100-sxm"};
  report::predict_and_keep(r, "", model, "json", {.path = path}, out);
  auto printed = roofline::decode_predictions(nlohmann::json::parse(out.str()), "out");
  ASSERT_EQ(printed.size(), 1u);
  EXPECT_EQ(printed[0].batch, 8);
  model.batch = 0;
  report::PredictRequest sweep{.model = analysis::make_request(model), .device = "h100-sxm"};
  std::ostringstream table;
  report::predict_and_keep(sweep, "batch=1,2", model, "table", {.path = path}, table);
  auto records = store::Store(path, true).query({});
  ASSERT_EQ(records.size(), 2u);
  std::map<size_t, store::Record> by_points;
  for (const auto& record : records)
    by_points[report::decode_typed(record.result, "store").predictions.size()] = record;
  ASSERT_EQ(by_points.count(1), 1u);
  ASSERT_EQ(by_points.count(2), 1u);
  EXPECT_EQ(by_points[1].command, "predict");
  EXPECT_EQ(by_points[1].params.batch, 8);
  EXPECT_EQ(by_points[1].params.device, "h100-sxm");
  EXPECT_FALSE(by_points[2].params.batch);
  EXPECT_EQ(report::decode_typed(by_points[2].result, "store").predictions[1].batch, 2);
}

// What `ridge predict MODEL -d DEVICE [--modes MODES] --no-store -f FORMAT` prints.
std::string predicted(const std::string& model, const std::string& device, const std::string& format,
                      const std::string& modes = "") {
  analysis::ModelOptions options{.model = model};
  std::ostringstream out;
  report::predict_and_keep({.model = analysis::make_request(options), .device = device, .modes = modes}, "", options,
                           format, {.disabled = true}, out);
  return out.str();
}

std::string device_file(const std::string& name, const std::string& text) {
  auto path = temp_dir() + "/predict-request-" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(PredictRequest, JsonCarriesEnergyPerNodeAndPerInference) {
  using namespace energy_fixtures;  // NOLINT(google-build-using-namespace)
  auto dev = device_file("joule.yaml", kDevice);
  auto model = three_node_model();
  auto j = Json::parse(predicted(model, dev, "json"));
  EXPECT_EQ(j["energy"]["predicted"], true);
  EXPECT_EQ(j["energy"]["label"], "estimate");
  EXPECT_NE(j["energy"]["source"].get<std::string>().find("TDP 100 W"), std::string::npos);
  double sum = 0;
  for (const auto& n : j["nodes"]) {
    double expected =
        50e-12 * n["flops"].get<double>() + 3e-10 * n["bytes"].get<double>() + 20 * n["time_s"].get<double>();
    EXPECT_NEAR(n["energy_j"].get<double>(), expected, expected * 1e-12);
    EXPECT_NEAR(n["power_w"].get<double>(), expected / n["time_s"].get<double>(), 1e-6);
    sum += n["energy_j"].get<double>();
  }
  EXPECT_NEAR(j["totals"]["energy_per_inference_j"].get<double>(), sum, sum * 1e-12);
  EXPECT_NEAR(j["totals"]["power_mean_w"].get<double>(), sum / j["totals"]["time_s"].get<double>(), 1e-6);
  // People see that the figures are estimates.
  auto table = predicted(model, dev, "table");
  EXPECT_NE(table.find("energy: estimate coefficients"), std::string::npos) << table;
  EXPECT_NE(table.find("predicted energy per inference (estimate)"), std::string::npos);
  EXPECT_NE(table.find("docs/energy.md"), std::string::npos);
  EXPECT_NE(predicted(model, dev, "md").find("estimate"), std::string::npos);
  auto csv = predicted(model, dev, "csv");
  EXPECT_NE(csv.find("energy_j,power_w"), std::string::npos) << csv;
}

// An uncalibrated GPU prediction is a bound, and says how to make it an estimate on that kind of device; the JSON
// carries the device's kind.
TEST(PredictRequest, AnUncalibratedGpuBoundSaysHowToCalibrate) {
  auto table = predicted(model_path("resnet50"), "h200", "table");
  EXPECT_NE(table.find("uncalibrated: times are roofline bounds"), std::string::npos) << table;
  EXPECT_NE(table.find("ridge calibrate --device h200 --measured runs.json -o h200-cal.yaml"), std::string::npos)
      << table;
  auto j = nlohmann::json::parse(predicted(model_path("resnet50"), "h200", "json"));
  EXPECT_EQ(j["device"]["kind"], "gpu");
  auto decoded = roofline::decode_predictions(j, "out");
  ASSERT_EQ(decoded.size(), 1u);
  EXPECT_EQ(decoded[0].device_kind, "gpu");
  // A board whose per-op overhead is a default says so, and how to calibrate, once (the overhead note).
  auto orin = predicted(model_path("resnet50"), "jetson-agx-orin-64gb", "table");
  EXPECT_NE(orin.find("launch overhead left out of the bound"), std::string::npos) << orin;
  EXPECT_NE(orin.find("ridge calibrate"), std::string::npos) << orin;
  EXPECT_EQ(orin.find("for estimates rather than bounds"), std::string::npos) << orin;
}

// Figures predicted from measured coefficients are labelled as predictions: "(measured)" alone would read as a
// measurement.
TEST(PredictRequest, PredictionsFromMeasuredCoefficientsAreNotCalledMeasured) {
  using namespace energy_fixtures;  // NOLINT(google-build-using-namespace)
  auto dev = device_file("joule-fitted.yaml",
                         kDevice +
                             "energy:\n  - {mode: full, e_flop_j: 5.0e-11, e_byte_j: 3.0e-10, p_static_w: 20, source: "
                             "\"fitted to test runs\"}\n");
  auto table = predicted(three_node_model(), dev + ":full", "table");
  EXPECT_NE(table.find("mean power (predicted, measured coefficients)"), std::string::npos) << table;
  EXPECT_NE(table.find("predicted energy per inference (predicted, measured coefficients)"), std::string::npos);
  EXPECT_EQ(table.find("(measured)"), std::string::npos) << table;
}

TEST(PredictRequest, WithoutEnergyTheFiguresAreEmptyNotZero) {
  using namespace energy_fixtures;  // NOLINT(google-build-using-namespace)
  auto dev =
      device_file("nojoule.yaml", replaced(kDevice, "power: {tdp_w: 100, idle_w: 20, source: test datasheet}\n", ""));
  auto j = Json::parse(predicted(three_node_model(), dev, "json"));
  EXPECT_EQ(j["energy"]["predicted"], false);
  EXPECT_NE(j["energy"]["missing"].get<std::string>().find("no TDP"), std::string::npos);
  EXPECT_FALSE(j["totals"].contains("energy_per_inference_j"));
  for (const auto& n : j["nodes"]) EXPECT_FALSE(n.contains("energy_j"));
  auto table = predicted(three_node_model(), dev, "table");
  EXPECT_NE(table.find("energy: not predicted"), std::string::npos) << table;
}

TEST(PredictRequest, EveryModeOfASweepHasItsEnergy) {
  using namespace energy_fixtures;  // NOLINT(google-build-using-namespace)
  auto dev = device_file("joule.yaml", kDevice);
  auto j = Json::parse(predicted(three_node_model(), dev, "json", "all"));
  ASSERT_EQ(j["points"].size(), 3u);
  for (const auto& pt : j["points"]) {
    EXPECT_EQ(pt["energy"]["label"], "estimate");
    EXPECT_GT(pt["totals"]["energy_per_inference_j"].get<double>(), 0);
  }
  auto table = predicted(three_node_model(), dev, "table", "all");
  EXPECT_NE(table.find("energy/inference"), std::string::npos) << table;
  EXPECT_NE(table.find("energy of modes full, half, slow: estimate"), std::string::npos) << table;
}

}  // namespace
}  // namespace ridge::test
