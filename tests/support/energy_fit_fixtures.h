#pragma once
// What the in-process tests (tests/roofline/test_energy_fit.cpp) and the binary-driven tests
// (tests/cli/test_energy_fit.cpp) share.
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
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test::energy_fit_fixtures {

namespace fs = std::filesystem;
using roofline::EnergyRun;

inline constexpr double kFlop = 2e-11, kByte = 1.5e-10, kStatic = 6.0;  // J/FLOP, J/B, W

// Runs of varied intensity: W from 1e8 to 3e10 FLOP, Q from 1e6 to 4e9 B, T neither a function of W
// nor of Q alone. `noise(i)` scales run i's energy.
inline std::vector<EnergyRun> synthetic(double e_flop, double e_byte, double p_static, int count,
                                        double (*noise)(int) = nullptr) {
  std::vector<EnergyRun> runs;
  for (int i = 0; i < count; ++i) {
    EnergyRun r;
    r.label = fmt::format("run {}", i);
    r.source = "test";
    r.flops = 1e8 * (1 + (i * 37) % 300);
    r.bytes = 1e6 * (1 + (i * 53) % 4000);
    r.time_s = std::max(r.flops / 1e12, r.bytes / 1e11) + 2e-3 * (1 + (i * 7) % 5);
    r.energy_j = (e_flop * r.flops + e_byte * r.bytes + p_static * r.time_s) * (noise ? noise(i) : 1.0);
    runs.push_back(r);
  }
  return runs;
}

// +-3% of deterministic, zero-mean-ish noise.
inline double wobble(int i) { return 1 + 0.03 * std::sin(1.7 * i + 0.3); }

}  // namespace ridge::test::energy_fit_fixtures
