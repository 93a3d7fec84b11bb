// The energy fit (`ridge calibrate --energy`): the non-negative least-squares fit of
// E = e_flop W + e_byte Q + p_static T on synthetic runs of known coefficients (exact, noisy, at the
// bound, not separable) and the energy CSV.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "calib/energy_runs.h"
#include "hw/device_file.h"
#include "hw/energy.h"
#include "hw/roofline.h"
#include "roofline/energy.h"
#include "roofline/energy_fit.h"
#include "support/energy_fit_fixtures.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace energy_fit_fixtures;  // NOLINT(google-build-using-namespace)

namespace fs = std::filesystem;
using roofline::EnergyRun;

std::string error_of(const std::vector<EnergyRun>& runs) {
  try {
    roofline::fit_energy(runs);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(EnergyFit, ExactDataRecoversTheCoefficientsExactly) {
  auto runs = synthetic(kFlop, kByte, kStatic, 8);
  auto fit = roofline::fit_energy(runs);
  EXPECT_NEAR(fit.e_flop_j, kFlop, kFlop * 1e-9);
  EXPECT_NEAR(fit.e_byte_j, kByte, kByte * 1e-9);
  EXPECT_NEAR(fit.p_static_w, kStatic, kStatic * 1e-9);
  EXPECT_LT(fit.max_rel, 1e-9);
  EXPECT_NEAR(fit.r2, 1.0, 1e-12);
  EXPECT_EQ(fit.degrees_of_freedom, 5);
  ASSERT_EQ(fit.fitted_j.size(), runs.size());
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_NEAR(fit.fitted_j[i], runs[i].energy_j, runs[i].energy_j * 1e-9);
  for (bool b : fit.at_bound) EXPECT_FALSE(b);
}

TEST(EnergyFit, NoisyDataRecoversTheCoefficientsWithinTheirErrors) {
  auto runs = synthetic(kFlop, kByte, kStatic, 30, wobble);
  auto fit = roofline::fit_energy(runs);
  EXPECT_NEAR(fit.e_flop_j, kFlop, 0.1 * kFlop);
  EXPECT_NEAR(fit.e_byte_j, kByte, 0.1 * kByte);
  EXPECT_NEAR(fit.p_static_w, kStatic, 0.1 * kStatic);
  // Every coefficient has a standard error, and the truth lies within 4 of them.
  double truth[3] = {kFlop, kByte, kStatic}, got[3] = {fit.e_flop_j, fit.e_byte_j, fit.p_static_w};
  for (int j = 0; j < 3; ++j) {
    ASSERT_TRUE(fit.standard_error[j].has_value()) << j;
    EXPECT_GT(*fit.standard_error[j], 0) << j;
    EXPECT_LT(std::fabs(got[j] - truth[j]), 4 * *fit.standard_error[j]) << j;
  }
  // The errors are those of the noise: at most a little over 3%, R^2 near 1.
  EXPECT_GT(fit.max_rel, 0.005);
  EXPECT_LT(fit.max_rel, 0.06);
  EXPECT_LT(fit.median_rel, fit.max_rel);
  EXPECT_GT(fit.r2, 0.99);
  // The reported errors are the runs' own: recomputed here from the coefficients.
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    double e = fit.e_flop_j * r.flops + fit.e_byte_j * r.bytes + fit.p_static_w * r.time_s;
    EXPECT_NEAR(fit.relative_error[i], (e - r.energy_j) / r.energy_j, 1e-12);
  }
}

TEST(EnergyFit, NonNegativityHoldsACoefficientTheDataWantNegativeAtZero) {
  // p_static = 0 and energies falling with time: the unconstrained fit gives p_static = -0.2 W exactly.
  auto runs = synthetic(kFlop, kByte, 0, 12);
  for (auto& r : runs) r.energy_j -= 0.2 * r.time_s;
  for (const auto& r : runs) ASSERT_GT(r.energy_j, 0);
  auto fit = roofline::fit_energy(runs);
  EXPECT_EQ(fit.p_static_w, 0.0);
  EXPECT_TRUE(fit.at_bound[2]);
  EXPECT_FALSE(fit.standard_error[2].has_value());
  EXPECT_GT(fit.e_flop_j, 0);
  EXPECT_GT(fit.e_byte_j, 0);
  EXPECT_GT(fit.max_rel, 0);  // two coefficients cannot fit three-coefficient data exactly

  // p_static = 0 with noise: never negative.
  auto noisy = synthetic(kFlop, kByte, 0, 20, wobble);
  auto fit2 = roofline::fit_energy(noisy);
  EXPECT_GE(fit2.p_static_w, 0.0);
  EXPECT_GE(fit2.e_flop_j, 0.0);
  EXPECT_GE(fit2.e_byte_j, 0.0);
  EXPECT_NEAR(fit2.e_flop_j, kFlop, 0.15 * kFlop);
  EXPECT_NEAR(fit2.e_byte_j, kByte, 0.15 * kByte);
}

TEST(EnergyFit, RunsThatCannotSeparateTheCoefficientsAreRefusedNamingThem) {
  // Fewer than three runs.
  auto two = synthetic(kFlop, kByte, kStatic, 2);
  auto message = error_of(two);
  EXPECT_NE(message.find("2 run(s)"), std::string::npos) << message;
  EXPECT_NE(message.find("different batch sizes"), std::string::npos) << message;

  // One model at one batch, timed five times: the same W and Q, times and energies wobbling.
  std::vector<EnergyRun> same;
  for (int i = 0; i < 5; ++i)
    same.push_back({"resnet batch 1", "test", 4e9, 1e8, 0.01 * wobble(i), 0.2 * wobble(i + 1)});
  message = error_of(same);
  EXPECT_NE(message.find("same work"), std::string::npos) << message;
  EXPECT_NE(message.find("e_flop_j, e_byte_j and p_static_w cannot be separated"), std::string::npos) << message;
  EXPECT_NE(message.find("different batch sizes"), std::string::npos) << message;

  // Every run at one intensity (W = 10 Q): e_flop and e_byte trade off, p_static is determined.
  std::vector<EnergyRun> one_intensity;
  for (int i = 1; i <= 6; ++i) {
    double w = 1e9 * i, q = w / 10, t = 1e-3 * (1 + (i * 7) % 5);
    one_intensity.push_back({fmt::format("run {}", i), "test", w, q, t, kFlop * w + kByte * q + kStatic * t});
  }
  message = error_of(one_intensity);
  EXPECT_NE(message.find("cannot separate e_flop_j and e_byte_j"), std::string::npos) << message;
  EXPECT_EQ(message.find("p_static_w"), std::string::npos) << message;

  // No FLOPs at all (copies only).
  auto copies = synthetic(0, kByte, kStatic, 5);
  for (auto& r : copies) r.flops = 0;
  message = error_of(copies);
  EXPECT_NE(message.find("e_flop_j cannot be determined"), std::string::npos) << message;

  // Times proportional to bytes: p_static and e_byte trade off.
  std::vector<EnergyRun> streamed;
  for (int i = 1; i <= 6; ++i) {
    double w = 1e9 * ((i * 5) % 7 + 1), q = 1e8 * i, t = q / 1e10;
    streamed.push_back({fmt::format("run {}", i), "test", w, q, t, kFlop * w + kByte * q + kStatic * t});
  }
  message = error_of(streamed);
  EXPECT_NE(message.find("cannot separate e_byte_j and p_static_w"), std::string::npos) << message;
}

TEST(EnergyFit, EnergyCsvIsReadInAnyColumnOrderAndRunsWithoutEnergyAreNamed) {
  std::istringstream in(
      "time_s,energy_j,label,bytes,flops,note\n"
      "0.001,0.05,conv 3x3,1000000,2e9,x\n"
      "0.002,,gemm,2000000,4e9,not measured\n"
      "\n"
      "0.004,0.2,,3e6,1e10,\n");
  std::vector<std::string> skipped;
  auto runs = calib::parse_energy_csv(in, "e.csv", &skipped);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].label, "conv 3x3");
  EXPECT_DOUBLE_EQ(runs[0].flops, 2e9);
  EXPECT_DOUBLE_EQ(runs[0].bytes, 1e6);
  EXPECT_DOUBLE_EQ(runs[0].time_s, 0.001);
  EXPECT_DOUBLE_EQ(runs[0].energy_j, 0.05);
  EXPECT_EQ(runs[0].source, "e.csv line 2");
  EXPECT_EQ(runs[1].label, "line 5");
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0], "e.csv line 3: gemm: no energy_j");

  auto refused = [](const std::string& text) {
    std::istringstream s(text);
    try {
      calib::parse_energy_csv(s, "bad.csv");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refused("flops,bytes,time_s\n1,2,3\n").find("no 'energy_j' column"), std::string::npos);
  EXPECT_NE(
      refused("flops,bytes,time_s,energy_j\n1,2,3,lots\n").find("bad.csv line 2: energy_j 'lots' is not a number"),
      std::string::npos);
  EXPECT_NE(refused("flops,bytes,time_s,energy_j\n1,2,0,1\n").find("time_s must be positive"), std::string::npos);
  EXPECT_NE(refused("flops,bytes,time_s,energy_j\n-1,2,1,1\n").find("must be >= 0"), std::string::npos);
  EXPECT_NE(refused("flops,bytes,time_s,energy_j\n1,2,1,nan\n").find("is not a number"), std::string::npos);
  EXPECT_NE(refused("flops,bytes,time_s,energy_j\n1,2,1\n").find("3 fields, the header has 4"), std::string::npos);
  EXPECT_NE(refused("").find("is empty"), std::string::npos);
}

// ---- end to end: bench results with energy through `ridge calibrate --energy` ----

}  // namespace
}  // namespace ridge::test
