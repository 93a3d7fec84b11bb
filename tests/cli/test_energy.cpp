// The energy roofline in the commands' outputs (predict, devices show, plot energy-roofline), against the
// values computed by hand in tests/roofline/test_energy.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hw/device_file.h"
#include "hw/energy.h"
#include "hw/roofline.h"
#include "report/figure/energy_roofline_figure.h"
#include "report/format.h"
#include "roofline/energy.h"
#include "roofline/predict.h"
#include "support/energy_fixtures.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace energy_fixtures;  // NOLINT(google-build-using-namespace)

using Json = nlohmann::ordered_json;

std::string write(const std::string& name, const std::string& text) {
  auto path = temp_dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// ---- the datasheet estimate ----

// ---- coefficients in device files ----

// ---- predictions ----

// ---- the energy roofline curve ----

// ---- outputs ----

TEST(EnergyOutputs, PredictJsonCarriesEnergyPerNodeAndPerInference) {
  auto dev = write("joule.yaml", kDevice);
  auto model = three_node_model();
  auto out = run_ridge("predict " + model + " -d " + dev + " --no-store -f json");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  auto j = Json::parse(out.out);
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
  auto table = run_ridge("predict " + model + " -d " + dev + " --no-store");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("energy: estimate coefficients"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("predicted energy per inference (estimate)"), std::string::npos);
  EXPECT_NE(table.out.find("docs/energy.md"), std::string::npos);
  auto md = run_ridge("predict " + model + " -d " + dev + " --no-store -f md");
  EXPECT_NE(md.out.find("estimate"), std::string::npos);
  auto csv = run_ridge("predict " + model + " -d " + dev + " --no-store -f csv");
  EXPECT_NE(csv.out.find("energy_j,power_w"), std::string::npos) << csv.out;
}

// Figures predicted from measured coefficients are labelled as predictions: "(measured)" alone would read as a
// measurement.
TEST(EnergyOutputs, PredictionsFromMeasuredCoefficientsAreNotCalledMeasured) {
  auto dev = write("joule-fitted.yaml",
                   kDevice +
                       "energy:\n  - {mode: full, e_flop_j: 5.0e-11, e_byte_j: 3.0e-10, p_static_w: 20, source: "
                       "\"fitted to test runs\"}\n");
  auto table = run_ridge("predict " + three_node_model() + " -d " + dev + ":full --no-store");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("mean power (predicted, measured coefficients)"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("predicted energy per inference (predicted, measured coefficients)"), std::string::npos);
  EXPECT_EQ(table.out.find("(measured)"), std::string::npos) << table.out;
}

TEST(EnergyOutputs, WithoutEnergyTheFiguresAreEmptyNotZero) {
  auto dev = write("nojoule.yaml", replaced(kDevice, "power: {tdp_w: 100, idle_w: 20, source: test datasheet}\n", ""));
  auto out = run_ridge("predict " + three_node_model() + " -d " + dev + " --no-store -f json");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  auto j = Json::parse(out.out);
  EXPECT_EQ(j["energy"]["predicted"], false);
  EXPECT_NE(j["energy"]["missing"].get<std::string>().find("no TDP"), std::string::npos);
  EXPECT_FALSE(j["totals"].contains("energy_per_inference_j"));
  for (const auto& n : j["nodes"]) EXPECT_FALSE(n.contains("energy_j"));
  auto table = run_ridge("predict " + three_node_model() + " -d " + dev + " --no-store");
  EXPECT_NE(table.out.find("energy: not predicted"), std::string::npos) << table.out;
}

TEST(EnergyOutputs, EveryModeOfASweepHasItsEnergy) {
  auto dev = write("joule.yaml", kDevice);
  auto out = run_ridge("predict " + three_node_model() + " -d " + dev + " --modes all --no-store -f json");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  auto j = Json::parse(out.out);
  ASSERT_EQ(j["points"].size(), 3u);
  for (const auto& pt : j["points"]) {
    EXPECT_EQ(pt["energy"]["label"], "estimate");
    EXPECT_GT(pt["totals"]["energy_per_inference_j"].get<double>(), 0);
  }
  auto table = run_ridge("predict " + three_node_model() + " -d " + dev + " --modes all --no-store");
  EXPECT_NE(table.out.find("energy/inference"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("energy of modes full, half, slow: estimate"), std::string::npos) << table.out;
}

TEST(EnergyOutputs, DevicesShowListsEachModesCoefficients) {
  auto dev = write("joule.yaml", kDevice);
  auto out = run_ridge("devices show " + dev + ":half -f json");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  auto j = Json::parse(out.out);
  EXPECT_DOUBLE_EQ(j["energy"]["e_flop_j"]["fp32"].get<double>(), 50e-12 * 0.64);
  EXPECT_DOUBLE_EQ(j["energy"]["p_static_w"].get<double>(), 20);
  ASSERT_EQ(j["energy_modes"].size(), 3u);
  EXPECT_EQ(j["energy_modes"][2]["mode"], "slow");
  EXPECT_DOUBLE_EQ(j["energy_modes"][2]["e_flop_j"]["fp32"].get<double>(), 50e-12 * 0.36);
  EXPECT_DOUBLE_EQ(j["energy_modes"][2]["e_byte_j"].get<double>(), 3e-10 * 0.36);
  EXPECT_EQ(j["energy_modes"][2]["label"], "estimate");
  auto table = run_ridge("devices show " + dev);
  EXPECT_NE(table.out.find("energy coefficients per power mode"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("50.0 pJ/FLOP"), std::string::npos) << table.out;
}

TEST(EnergyOutputs, PlotEnergyRooflineWritesCurvesPerModeAndThePredictedNodes) {
  auto dev = write("joule.yaml", kDevice);
  auto spec_path = temp_dir() + "/energy.vg.json";
  auto out =
      run_ridge("plot energy-roofline " + three_node_model() + " -d " + dev + ":half -o " + spec_path + " -f json");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  auto summary = Json::parse(out.out);
  EXPECT_EQ(summary["kind"], "energy-roofline");
  EXPECT_EQ(summary["series"], 3);
  EXPECT_EQ(summary["points"], 3);
  std::ifstream in(spec_path);
  auto spec = Json::parse(in);
  for (const auto& p : report::figure::data_values(spec, "points")) {
    EXPECT_EQ(p["series"], "half");
    EXPECT_DOUBLE_EQ(p["flops_per_joule"].get<double>(), p["flops"].get<double>() / p["energy_j"].get<double>());
  }
  auto bad = run_ridge("plot energy-roofline -d " + dev + " --ceiling fp16_tensor -o " + spec_path);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("no ceiling 'fp16_tensor'"), std::string::npos) << bad.err;
  auto none = write("nojoule.yaml", replaced(kDevice, "power: {tdp_w: 100, idle_w: 20, source: test datasheet}\n", ""));
  auto missing = run_ridge("plot energy-roofline -d " + none + " -o " + spec_path);
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("no TDP"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace ridge::test
