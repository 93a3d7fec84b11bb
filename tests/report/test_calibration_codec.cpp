// The calibration codec (report/calibration_report): each of `ridge calibrate`'s three fits round-trips through it
// field by field and encodes again to the same text; its JSON is what `calibrate -f json` prints; the store keeps
// it typed with its own headline; JSON of another kind is refused in one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "report/calibration_report.h"
#include "report/printer.h"
#include "report/result_codec.h"
#include "support/energy_fit_fixtures.h"
#include "support/error_text.h"

namespace ridge::test {
namespace {

using nlohmann::json;
using namespace energy_fit_fixtures;  // NOLINT(google-build-using-namespace)

calib::Calibration round_trip(const calib::Calibration& c) {
  // Through text, as the store keeps it.
  auto text = report::encode_calibration(c).dump();
  return report::decode_calibration(json::parse(text), "test");
}

calib::FamilyCalibration family() {
  calib::FamilyCalibration c;
  c.device = "h200";
  c.measured = "runs/nodes.csv";
  c.run = "model m.onnx, batch 8, mode eager, timestamp 2026-11-25T10:00:00Z";
  c.runs_in_file = 3;
  c.fit.calibration.overhead_s = 3.7e-6;
  c.fit.calibration.efficiency = {{"conv", 0.625}, {"matmul", 0.8125}};
  c.fit.calibration.nodes = 53;
  c.fit.calibration.fitted_from = c.measured;
  c.fit.unmatched = 2;
  c.fit.without_work = 5;
  c.fit.dropped = {"pooling"};
  c.notes = {"12 of 174 kernels in x.ncu-rep map to no layer and are not fitted"};
  c.output = "h200.calibrated.yaml";
  return c;
}

calib::ShapeCalibration shape() {
  calib::ShapeCalibration c;
  c.device = "cpu.yaml";
  c.evidence = {"layer sample: 40 configurations, 212 layers timed (2 thread(s); eager,optimized)",
                "3 bench run(s) of 1 model(s) (150 nodes)"};
  c.samples = 362;
  c.folds = 5;
  c.models = {{"all", "every layer", calib::ErrorStats{362, 0.061, 0.22, 0.78}},
              {"conv/eager", "120 samples, cost + threads", calib::ErrorStats{120, 0.05, 0.15, 0.9}},
              {"lstm/eager", "1 sample", std::nullopt}};
  c.notes = {"not measured: a 1x1 depthwise convolution"};
  c.samples_file = "cpu.samples.csv";
  c.overhead_file = "cpu.overhead.csv";
  c.model_file = "cpu.model.json";
  c.output = "cpu.calibrated.yaml";
  return c;
}

calib::EnergyCalibration energy() {
  calib::EnergyCalibration c;
  c.device = "h200";
  c.mode = "700W";
  c.measured = {"bench/", "meter.csv"};
  c.traffic = "unfused";
  c.runs = synthetic(kFlop, kByte, kStatic, 8, wobble);
  c.fit = roofline::fit_energy(c.runs);
  c.skipped = {
      "bench/overall.csv line 4: m.onnx batch 2 (eager, fp32): no energy_per_inference_j (run without "
      "--power)"};
  c.notes = {"m.onnx at batch 8 (fp32): 1 node(s) without a cost (unknown op or shape) are left out of W and Q"};
  c.output = "h200.energy.yaml";
  return c;
}

TEST(CalibrationCodec, APerFamilyFitRoundTripsFieldByField) {
  auto c = family();
  auto back = std::get<calib::FamilyCalibration>(round_trip(c));
  EXPECT_EQ(back.device, c.device);
  EXPECT_EQ(back.measured, c.measured);
  EXPECT_EQ(back.run, c.run);
  EXPECT_EQ(back.runs_in_file, 3);
  EXPECT_EQ(back.fit.calibration.overhead_s, 3.7e-6);
  EXPECT_EQ(back.fit.calibration.efficiency, c.fit.calibration.efficiency);
  EXPECT_EQ(back.fit.calibration.nodes, 53);
  EXPECT_EQ(back.fit.calibration.fitted_from, c.measured);
  EXPECT_EQ(back.fit.unmatched, 2);
  EXPECT_EQ(back.fit.without_work, 5);
  EXPECT_EQ(back.fit.dropped, c.fit.dropped);
  EXPECT_EQ(back.notes, c.notes);  // the document's own "holds 3 runs" note is not one of the fit's
  EXPECT_EQ(back.output, c.output);
  EXPECT_EQ(report::encode_calibration(back).dump(), report::encode_calibration(c).dump());
}

TEST(CalibrationCodec, AShapeAwareFitRoundTripsFieldByField) {
  auto c = shape();
  auto back = std::get<calib::ShapeCalibration>(round_trip(c));
  EXPECT_EQ(back.device, c.device);
  EXPECT_EQ(back.evidence, c.evidence);
  EXPECT_EQ(back.samples, 362);
  EXPECT_EQ(back.folds, 5);
  ASSERT_EQ(back.models.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.models[i].key, c.models[i].key);
    EXPECT_EQ(back.models[i].fit, c.models[i].fit);
    ASSERT_EQ(back.models[i].errors.has_value(), c.models[i].errors.has_value()) << i;
    if (!c.models[i].errors) continue;
    EXPECT_EQ(back.models[i].errors->points, c.models[i].errors->points);
    EXPECT_EQ(back.models[i].errors->median_abs, c.models[i].errors->median_abs);
    EXPECT_EQ(back.models[i].errors->p90_abs, c.models[i].errors->p90_abs);
    EXPECT_EQ(back.models[i].errors->within_10, c.models[i].errors->within_10);
  }
  EXPECT_EQ(back.notes, c.notes);
  EXPECT_EQ(back.samples_file, c.samples_file);
  EXPECT_EQ(back.overhead_file, c.overhead_file);
  EXPECT_EQ(back.model_file, c.model_file);
  EXPECT_EQ(back.output, c.output);
  EXPECT_EQ(report::encode_calibration(back).dump(), report::encode_calibration(c).dump());
}

TEST(CalibrationCodec, AnEnergyFitRoundTripsFieldByField) {
  auto c = energy();
  auto back = std::get<calib::EnergyCalibration>(round_trip(c));
  EXPECT_EQ(back.device, "h200");
  EXPECT_EQ(back.mode, "700W");
  EXPECT_EQ(back.measured, c.measured);
  EXPECT_EQ(back.traffic, "unfused");
  ASSERT_EQ(back.runs.size(), c.runs.size());
  for (size_t i = 0; i < c.runs.size(); ++i) {
    EXPECT_EQ(back.runs[i].label, c.runs[i].label);
    EXPECT_EQ(back.runs[i].source, c.runs[i].source);
    EXPECT_EQ(back.runs[i].flops, c.runs[i].flops);
    EXPECT_EQ(back.runs[i].bytes, c.runs[i].bytes);
    EXPECT_EQ(back.runs[i].time_s, c.runs[i].time_s);
    EXPECT_EQ(back.runs[i].energy_j, c.runs[i].energy_j);
  }
  EXPECT_EQ(back.fit.e_flop_j, c.fit.e_flop_j);
  EXPECT_EQ(back.fit.e_byte_j, c.fit.e_byte_j);
  EXPECT_EQ(back.fit.p_static_w, c.fit.p_static_w);
  for (int j = 0; j < 3; ++j) {
    EXPECT_EQ(back.fit.standard_error[j], c.fit.standard_error[j]) << j;
    EXPECT_EQ(back.fit.at_bound[j], c.fit.at_bound[j]) << j;
  }
  EXPECT_EQ(back.fit.fitted_j, c.fit.fitted_j);
  EXPECT_EQ(back.fit.relative_error, c.fit.relative_error);
  EXPECT_EQ(back.fit.median_rel, c.fit.median_rel);
  EXPECT_EQ(back.fit.max_rel, c.fit.max_rel);
  EXPECT_EQ(back.fit.r2, c.fit.r2);
  EXPECT_EQ(back.fit.degrees_of_freedom, 5);
  EXPECT_EQ(back.skipped, c.skipped);
  EXPECT_EQ(back.notes, c.notes);
  EXPECT_EQ(back.output, c.output);
  EXPECT_EQ(report::encode_calibration(back).dump(), report::encode_calibration(c).dump());

  // A coefficient held at 0 has no standard error and is named in at_bound.
  c.fit.at_bound[2] = true;
  c.fit.standard_error[2].reset();
  back = std::get<calib::EnergyCalibration>(round_trip(c));
  EXPECT_TRUE(back.fit.at_bound[2]);
  EXPECT_FALSE(back.fit.standard_error[2]);
}

TEST(CalibrationCodec, ItsJsonIsWhatCalibratePrintsAndTheStoreKeepsItTyped) {
  for (const calib::Calibration& c :
       {calib::Calibration{family()}, calib::Calibration{shape()}, calib::Calibration{energy()}}) {
    std::ostringstream printed;
    report::print(printed, report::calibration_document(c), report::Format::kJson);
    EXPECT_EQ(json::parse(printed.str()), json(report::encode_calibration(c)));
    report::TypedResult value{.kind = "calibrate"};
    value.calibration = c;
    auto back = report::decode_typed(json(report::encode_typed(value)), "record");
    ASSERT_TRUE(back.calibration);
    EXPECT_EQ(report::encode_calibration(*back.calibration).dump(), report::encode_calibration(c).dump());
  }
  EXPECT_EQ(report::calibration_headline(family()), "53 nodes, 3.7 us per op");
  EXPECT_EQ(report::calibration_headline(shape()), "362 layers, median |error| 6.1%");
  auto e = energy();
  EXPECT_EQ(report::calibration_headline(e),
            fmt::format("8 runs, median |error| {:.1f}%, R^2 {:.4f}", e.fit.median_rel * 100, e.fit.r2));
}

TEST(CalibrationCodec, OtherJsonIsRefusedInOneLine) {
  EXPECT_EQ(error_text([] {
              report::decode_calibration(json{{"fit", "magic"}}, "x.json");
            }),
            "x.json is no `ridge calibrate -f json` output (fit 'magic' is none of family, shape, energy)");
  auto doc = json(report::encode_calibration(energy()));
  doc["runs"][1]["flops"] = "many";
  EXPECT_EQ(error_text([&] { report::decode_calibration(doc, "x.json"); }), "x.json: runs[1].flops is not a number");
  doc = json(report::encode_calibration(energy()));
  doc["at_bound"] = {"e_joule"};
  EXPECT_EQ(error_text([&] { report::decode_calibration(doc, "x.json"); }),
            "x.json: at_bound names 'e_joule', no coefficient");
}

}  // namespace
}  // namespace ridge::test
