// The energy roofline: the datasheet estimate and its voltage scaling, energy coefficients in device
// files, energy per node and per inference in predictions, and the FLOP-per-joule curve, against
// values computed by hand in this file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hw/device_file.h"
#include "hw/energy.h"
#include "hw/roofline.h"
#include "report/figure/energy_roofline_figure.h"
#include "report/format.h"
#include "report/prediction_report.h"
#include "roofline/energy.h"
#include "roofline/predict.h"
#include "roofline/prediction_codec.h"
#include "support/energy_fixtures.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace energy_fixtures;  // NOLINT(google-build-using-namespace)

using Json = nlohmann::ordered_json;

hw::EnergyRoofline energy_of(const hw::Device& d, const std::string& mode) {
  std::string why;
  auto e = hw::energy_roofline(d, hw::resolve_mode(d, mode), &why);
  if (!e) throw std::runtime_error("no energy: " + why);
  return *e;
}

std::string with_energy(const std::string& energy) { return kDevice + energy; }

// ---- the datasheet estimate ----

TEST(EnergyEstimate, FromTdpIdlePeakAndBandwidth) {
  auto e = energy_of(device(), "full");
  EXPECT_EQ(e.label, "estimate");
  EXPECT_DOUBLE_EQ(e.p_static_w, 20);  // the idle power
  // (100 - 20) W split 1 : 0.6 between the unit (50 W at 1e12 FLOP/s) and DRAM (30 W at 1e11 B/s).
  EXPECT_DOUBLE_EQ(e.e_flop("fp32"), 50.0 / 1e12);
  EXPECT_DOUBLE_EQ(e.e_byte_j, 30.0 / 1e11);
  EXPECT_NE(e.source.find("TDP 100 W"), std::string::npos) << e.source;
  EXPECT_NE(e.source.find("idle power 20 W"), std::string::npos) << e.source;
}

TEST(EnergyEstimate, WithoutIdlePowerStaticIsFifteenPercentOfTdp) {
  auto d = device(replaced(kDevice, "idle_w: 20, ", ""));
  auto e = energy_of(d, "full");
  EXPECT_DOUBLE_EQ(e.p_static_w, 15);
  EXPECT_DOUBLE_EQ(e.e_flop("fp32"), 85.0 / 1.6 / 1e12);
  EXPECT_DOUBLE_EQ(e.e_byte_j, 85.0 * 0.6 / 1.6 / 1e11);
}

TEST(EnergyEstimate, LowerClocksScaleEnergyPerOperationByVoltageSquared) {
  auto d = device();
  // half: GPU at 600 MHz, position (600 - 200) / (1000 - 200) = 0.5, V = 0.6 + 0.4 x 0.5 = 0.8 Vmax.
  auto half = energy_of(d, "half");
  EXPECT_DOUBLE_EQ(half.e_flop("fp32"), 50e-12 * 0.8 * 0.8);
  EXPECT_DOUBLE_EQ(half.e_byte_j, 30.0 / 1e11);  // memory clock unchanged
  EXPECT_DOUBLE_EQ(half.p_static_w, 20);
  // slow: both clocks at their lowest, V = 0.6 Vmax for both.
  auto slow = energy_of(d, "slow");
  EXPECT_DOUBLE_EQ(slow.e_flop("fp32"), 50e-12 * 0.36);
  EXPECT_DOUBLE_EQ(slow.e_byte_j, 30.0 / 1e11 * 0.36);
  // The ratio itself, at a quarter of the range: (0.6 + 0.4 x 0.25)^2.
  EXPECT_DOUBLE_EQ(hw::voltage_squared_ratio(d.clocks.at("gpu"), 400), 0.7 * 0.7);
  EXPECT_DOUBLE_EQ(hw::voltage_squared_ratio(d.clocks.at("gpu"), 1000), 1.0);
}

TEST(EnergyEstimate, NoTdpAndNoCoefficientsMeansNoEnergyAndSaysWhy) {
  auto d = device(replaced(kDevice, "power: {tdp_w: 100, idle_w: 20, source: test datasheet}\n", ""));
  std::string why;
  EXPECT_FALSE(hw::energy_roofline(d, d.modes.front(), &why));
  EXPECT_NE(why.find("no TDP"), std::string::npos) << why;
  auto r = hw::roofline_for(d, d.modes.front());
  EXPECT_FALSE(r.energy);
  EXPECT_EQ(r.energy_missing, why);
}

// ---- coefficients in device files ----

TEST(EnergyFile, NumberAndMapOfCoefficients) {
  auto d = device(with_energy(R"(energy:
  - {mode: full, e_flop_j: 5.0e-11, e_byte_j: 3.0e-10, p_static_w: 12, source: "bench run 7"}
  - {mode: half, e_flop_j: {fp32: 4.0e-11, "*": 6.0e-11}, e_byte_j: 2.0e-10, p_static_w: 11, source: paper, label: datasheet}
)"));
  ASSERT_EQ(d.energy.size(), 2u);
  auto full = energy_of(d, "full");
  EXPECT_EQ(full.label, "measured");  // the default label of given coefficients
  EXPECT_EQ(full.source, "bench run 7");
  EXPECT_DOUBLE_EQ(full.e_flop("fp32"), 5e-11);
  EXPECT_DOUBLE_EQ(full.e_flop("fp16"), 5e-11);  // a number holds for every ceiling
  EXPECT_DOUBLE_EQ(full.e_byte_j, 3e-10);
  EXPECT_DOUBLE_EQ(full.p_static_w, 12);
  auto half = energy_of(d, "half");
  EXPECT_EQ(half.label, "datasheet");
  EXPECT_DOUBLE_EQ(half.e_flop("fp32"), 4e-11);
  EXPECT_DOUBLE_EQ(half.e_flop("int8_tensor"), 6e-11);  // "*" for the keys not named
}

TEST(EnergyFile, AnotherModesCoefficientsAreScaledToThisModesClocks) {
  auto d = device(with_energy(R"(energy:
  - {mode: full, e_flop_j: 5.0e-11, e_byte_j: 3.0e-10, p_static_w: 12, source: "bench run 7"}
)"));
  auto half = energy_of(d, "half");
  EXPECT_EQ(half.label, "estimate");
  EXPECT_DOUBLE_EQ(half.e_flop("fp32"), 5e-11 * 0.64);  // (0.8 / 1.0)^2
  EXPECT_DOUBLE_EQ(half.e_byte_j, 3e-10);               // same memory clock
  EXPECT_DOUBLE_EQ(half.p_static_w, 12);                // static power is kept
  auto slow = energy_of(d, "slow");
  EXPECT_DOUBLE_EQ(slow.e_flop("fp32"), 5e-11 * 0.36);
  EXPECT_DOUBLE_EQ(slow.e_byte_j, 3e-10 * 0.36);
  EXPECT_NE(slow.source.find("mode full"), std::string::npos) << slow.source;
}

TEST(EnergyFile, BadEntriesAreRefusedWithTheField) {
  auto expect_error = [](const std::string& energy, const std::string& message) {
    try {
      device(with_energy(energy));
      ADD_FAILURE() << "accepted: " << energy;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  expect_error("energy: [{mode: turbo, e_flop_j: 1e-11, e_byte_j: 1e-10, p_static_w: 1, source: s}]\n",
               "names no mode");
  expect_error(
      "energy: [{mode: full, e_flop_j: 1e-11, e_byte_j: 1e-10, p_static_w: 1, source: s}, {mode: full, e_flop_j: "
      "2e-11, "
      "e_byte_j: 1e-10, p_static_w: 1, source: s}]\n",
      "repeats mode 'full'");
  expect_error("energy: [{mode: full, e_flop_j: 1e-11, e_byte_j: 1e-10, p_static_w: 1, source: s, label: guess}]\n",
               "energy[0].label");
  expect_error("energy: [{mode: full, e_flop_j: -1e-11, e_byte_j: 1e-10, p_static_w: 1, source: s}]\n",
               "energy[0].e_flop_j");
  expect_error("energy: [{mode: full, e_flop_j: {}, e_byte_j: 1e-10, p_static_w: 1, source: s}]\n",
               "must not be empty");
  expect_error("energy: {mode: full}\n", "energy");
  expect_error("energy: [3]\n", "energy[0]");
  // Odd YAML: a sequence where a number belongs, a mapping as a key, text as a number.
  for (const char* odd : {"energy: [{mode: full, e_flop_j: [1, 2], e_byte_j: 1e-10, p_static_w: 1, source: s}]\n",
                          "energy: [{mode: full, e_flop_j: {{a: 1}: 2}, e_byte_j: 1e-10, p_static_w: 1, source: s}]\n",
                          "energy: [{mode: full, e_flop_j: {fp32: [1]}, e_byte_j: 1e-10, p_static_w: 1, source: s}]\n",
                          "energy: [{mode: [full], e_flop_j: 1e-11, e_byte_j: 1e-10, p_static_w: 1, source: s}]\n",
                          "energy: [{mode: full, e_flop_j: lots, e_byte_j: 1e-10, p_static_w: 1, source: s}]\n"})
    EXPECT_THROW(device(with_energy(odd)), Error) << odd;
}

// ---- predictions ----

TEST(EnergyPrediction, EachNodeIsEFlopWPlusEByteQPlusPStaticT) {
  auto d = device();
  for (const char* mode : {"full", "half"}) {
    auto r = hw::roofline_for(d, hw::resolve_mode(d, mode));
    auto p = roofline::predict(analyze_file(three_node_model()).cost, r, {});
    ASSERT_TRUE(p.energy_predicted);
    EXPECT_EQ(p.energy_label, "estimate");
    // Independent coefficients: the rule applied by hand.
    double e_flop = 50e-12 * (std::string(mode) == "half" ? 0.64 : 1.0), e_byte = 3e-10, p_static = 20;
    double total = 0;
    for (const auto& n : p.nodes) {
      ASSERT_TRUE(n.predicted) << n.name;
      double expected = e_flop * n.flops + e_byte * n.bytes + p_static * n.time_s;
      EXPECT_NEAR(n.energy_j, expected, 1e-12 * expected) << mode << " " << n.name;
      EXPECT_NEAR(n.power_w, expected / n.time_s, 1e-9 * expected / n.time_s) << n.name;
      total += expected;
    }
    // The gemm by hand in full mode: 2 x 256 x 1024 x 1024 FLOPs.
    if (std::string(mode) == "full") {
      EXPECT_DOUBLE_EQ(p.nodes[0].flops, 2.0 * 256 * 1024 * 1024);
    }
    EXPECT_NEAR(p.energy_j, total, 1e-12 * total);
    EXPECT_NEAR(p.power_w, total / p.time_s, 1e-9 * total / p.time_s);
  }
}

TEST(EnergyPrediction, WithoutEnergyCeilingsNothingIsChargedAndWhyIsKept) {
  auto d = device(replaced(kDevice, "power: {tdp_w: 100, idle_w: 20, source: test datasheet}\n", ""));
  auto p = roofline::predict(analyze_file(three_node_model()).cost, hw::roofline_for(d, d.modes.front()), {});
  EXPECT_FALSE(p.energy_predicted);
  EXPECT_NE(p.energy_missing.find("no TDP"), std::string::npos);
  EXPECT_EQ(p.energy_j, 0);
}

// Measured coefficients that would have the board draw more than its limit at the roofline time: the inference runs
// at the limit instead, every node stretched alike, as the hardware throttles (issue: H200 predictions of 911-1097 W
// on a 700 W board). By hand: T' = dynamic / (limit - p_static), and the mean power is the limit.
TEST(EnergyPrediction, AnInferenceAboveTheBoardsLimitRunsAtTheLimit) {
  const std::string hot =
      "energy: [{mode: full, e_flop_j: 2.0e-10, e_byte_j: 1.0e-9, p_static_w: 20, source: s, "
      "label: measured}]\n";
  for (const bool budget : {false, true}) {
    auto text = kDevice + hot;
    // With a power mode's budget (60 W), the budget is the limit, not the TDP (100 W).
    if (budget)
      text = replaced(text, "  - {name: full, source: test}", "  - {name: full, power_budget_w: 60, source: test}");
    auto d = device(text);
    auto r = hw::roofline_for(d, hw::resolve_mode(d, "full"));
    auto cost = analyze_file(three_node_model()).cost;
    roofline::PredictOptions options;
    options.batch = 4;
    auto p = roofline::predict(cost, r, options);
    ASSERT_TRUE(p.energy_predicted);
    const double limit = budget ? 60 : 100, p_static = 20;
    ASSERT_TRUE(p.power_limit_w);
    EXPECT_EQ(*p.power_limit_w, limit);
    EXPECT_EQ(p.power_limit_from, budget ? "budget" : "tdp");
    double dynamic = 0, roofline_s = 0;
    std::vector<double> node_s;
    // The dynamic energy and the roofline time by hand: per node max(W / 1e12, Q / 1e11, 10 us) (a GPU with a
    // measured launch spacing of 10 us).
    for (const auto& n : p.nodes) {
      dynamic += 2.0e-10 * n.flops + 1.0e-9 * n.bytes;
      double t = std::max({n.flops / 1e12, n.bytes / 1e11, 1e-5});
      roofline_s += t;
      node_s.push_back(t);
    }
    double demand = dynamic / roofline_s + p_static;
    ASSERT_GT(demand, limit);
    EXPECT_NEAR(p.power_demand_w, demand, 1e-9 * demand);
    double limited = dynamic / (limit - p_static);
    EXPECT_NEAR(p.time_s, limited, 1e-12 * limited);
    EXPECT_NEAR(p.power_limited_s, limited - roofline_s, 1e-9 * limited);
    EXPECT_NEAR(p.power_w, limit, 1e-9 * limit);
    EXPECT_NEAR(p.energy_j, dynamic + p_static * limited, 1e-9 * p.energy_j);
    EXPECT_NEAR(p.throughput, 4 / limited, 1e-9 * p.throughput);
    EXPECT_EQ(p.power_limited_nodes, 3);
    EXPECT_NEAR(p.compute_bound_s + p.memory_bound_s + p.overhead_bound_s, limited, 1e-12 * limited);
    for (size_t i = 0; i < p.nodes.size(); ++i) {
      EXPECT_TRUE(p.nodes[i].power_limited);
      EXPECT_NEAR(p.nodes[i].time_s, node_s[i] * limited / roofline_s, 1e-9 * p.nodes[i].time_s) << i;
    }
    // The prediction codec keeps what the limit did; the document says it.
    auto back = roofline::decode_predictions(nlohmann::json(roofline::encode_prediction(p)), "test").front();
    EXPECT_EQ(back.power_limit_w, p.power_limit_w);
    EXPECT_EQ(back.power_limit_from, p.power_limit_from);
    EXPECT_EQ(back.power_demand_w, p.power_demand_w);
    EXPECT_EQ(back.power_limited_nodes, 3);
    EXPECT_EQ(back.power_limited_s, p.power_limited_s);
    EXPECT_TRUE(back.nodes[0].power_limited);
    auto note = report::power_limit_note(p);
    EXPECT_NE(note.find(fmt::format("would draw {:.3g} W, above the board's {:g} W ({})", demand, limit,
                                    budget ? "the power mode's budget" : "its TDP")),
              std::string::npos)
        << note;
  }
}

// ---- the energy roofline curve ----

TEST(EnergyRoofline, FlopsPerJouleAtTheLimitsAndTheRidgePoint) {
  auto d = device();
  auto r = hw::roofline_for(d, d.modes.front());
  // Exact at the ridge point (1e12 / 1e11 = 10 FLOP/B): 1 / (50e-12 + 3e-10 / 10 + 20 / 1e12), i.e. TDP
  // (100 W) at 1e12 FLOP/s.
  EXPECT_DOUBLE_EQ(roofline::flops_per_joule(r, "fp32", 10), 1 / (50e-12 + 30e-12 + 20e-12));
  // High intensity: compute-bound, bytes negligible: 1 / (e_flop + p_static / peak) = 1 / 70e-12 FLOP/J.
  EXPECT_NEAR(roofline::flops_per_joule(r, "fp32", 1e7), 1 / 70e-12, 1 / 70e-12 * 1e-5);
  // Low intensity: memory-bound, I / (e_byte + p_static / B) = I / (3e-10 + 2e-10).
  double low = 1e-6;  // the e_flop term is 50e-12 x 1e-6 / 5e-10 ~ 1e-7 of the figure
  EXPECT_NEAR(roofline::flops_per_joule(r, "fp32", low), low / 5e-10, low / 5e-10 * 1e-5);
  // Energy balance: e_byte / e_flop = 6 FLOP/B.
  EXPECT_DOUBLE_EQ(roofline::energy_balance(*r.energy, "fp32"), 6);
  // No key, no intensity, no energy: 0, never a made-up figure.
  EXPECT_EQ(roofline::flops_per_joule(r, "fp16_tensor", 10), 0);
  EXPECT_EQ(roofline::flops_per_joule(r, "fp32", 0), 0);
  r.energy.reset();
  EXPECT_EQ(roofline::flops_per_joule(r, "fp32", 10), 0);
}

TEST(EnergyRooflineFigure, OneCurvePerModeAndNodesAsPoints) {
  namespace fig = report::figure;
  auto d = device();
  fig::EnergyRooflineInput in{.title = "t", .peak_key = "fp32", .points_series = "full", .points_label = "estimate"};
  for (const auto& m : d.modes) in.modes.push_back(hw::roofline_for(d, m));
  in.points = {{.name = "gemm",
                .op = "MatMul",
                .family = "matmul",
                .ceiling = "fp32",
                .flops = 1e9,
                .bytes = 1e7,
                .energy_j = 0.1,
                .time_s = 1e-3},
               {.name = "flatten", .op = "Flatten"}};
  auto f = fig::energy_roofline_figure(in);
  EXPECT_EQ(f.kind, "energy-roofline");
  const auto& curves = fig::data_values(f.spec, "curves");
  std::map<std::string, int> per_mode;
  for (const auto& c : curves) {
    ++per_mode[c["series"].get<std::string>()];
    auto mode = c["series"].get<std::string>();
    const hw::Roofline* r = nullptr;
    for (const auto& m : in.modes)
      if (m.mode == mode) r = &m;
    ASSERT_TRUE(r);
    EXPECT_DOUBLE_EQ(c["flops_per_joule"].get<double>(),
                     roofline::flops_per_joule(*r, "fp32", c["intensity"].get<double>()));
    EXPECT_EQ(c["label"], "estimate");
  }
  EXPECT_EQ(per_mode.size(), 3u);
  // Equal samples per mode: the same log-spaced intensities, plus each ridge point inside the axis.
  EXPECT_EQ(per_mode["full"], per_mode["half"]);
  EXPECT_GT(per_mode["full"], fig::kEnergyCurveSamplesPerDecade);
  // The curves differ: a lower GPU clock spends less per FLOP at high intensity.
  double top_full = 0, top_slow = 0;
  for (const auto& b : fig::data_values(f.spec, "bends")) {
    if (b["series"] == "full") top_full = b["top_flops_per_joule"].get<double>();
    if (b["series"] == "slow") top_slow = b["top_flops_per_joule"].get<double>();
    if (b["series"] == "full") {
      EXPECT_DOUBLE_EQ(b["ridge_point"].get<double>(), 10);
    }
  }
  EXPECT_GT(top_full, 0);
  EXPECT_NE(top_full, top_slow);
  const auto& points = fig::data_values(f.spec, "points");
  ASSERT_EQ(points.size(), 1u);  // the Flatten is named in the notes, not drawn at zero
  EXPECT_DOUBLE_EQ(points[0]["intensity"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(points[0]["flops_per_joule"].get<double>(), 1e10);
  bool named = false, estimate = false;
  for (const auto& n : f.notes) {
    named = named || n.find("flatten") != std::string::npos;
    estimate = estimate || n.find("estimate") != std::string::npos;
  }
  EXPECT_TRUE(named);
  EXPECT_TRUE(estimate);
  // No mode with energy: refused.
  for (auto& m : in.modes) m.energy.reset();
  EXPECT_THROW(fig::energy_roofline_figure(in), Error);
}

// ---- outputs ----

TEST(EnergyOutputs, SiPrefixesBelowOne) {
  EXPECT_EQ(report::si(3.42e-3, "J"), "3.42 mJ");
  EXPECT_EQ(report::si(8e-12, "J/FLOP"), "8.00 pJ/FLOP");
  EXPECT_EQ(report::si(0.5, "W"), "500 mW");
  EXPECT_EQ(report::si(4.09e9, "FLOP"), "4.09 GFLOP");
  EXPECT_EQ(report::si(1, "J"), "1 J");
}

}  // namespace
}  // namespace ridge::test
