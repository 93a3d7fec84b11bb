// `ridge power`'s entry points in process: a live source sampled for a while (progress heard, one rail picked) and
// a recorded log read per rail.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "power/energy.h"
#include "power/measure.h"
#include "support/jetson_tree.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

TEST(PowerMeasure, SamplesAConstantJetsonTreeForItsDuration) {
  auto root = constant_jetson_tree(temp_dir() + "/measure_sys");  // 3 + 2 = 5 W
  setenv("RIDGE_SYSFS_ROOT", root.c_str(), 1);
  power::MeasureRequest request{.source = "jetson", .duration_s = 0.3};
  double heard = 0;
  auto trace = power::sample(request, [&](double elapsed_s) { heard = elapsed_s; });
  EXPECT_DOUBLE_EQ(heard, 0.3);
  auto all = power::integrate(trace);
  EXPECT_NEAR(all.mean_w, 5.0, 1e-9);
  EXPECT_GE(all.samples, 3);
  request.rail = "VDD_GPU_SOC";
  EXPECT_NEAR(power::integrate(power::sample(request)).mean_w, 3.0, 1e-9);
  unsetenv("RIDGE_SYSFS_ROOT");
}

TEST(PowerMeasure, ReadsOneRailOfATegrastatsLog) {
  auto log = temp_dir() + "/measure.log";
  write_line_file(log,
                  "RAM 1/2MB VDD_GPU_SOC 1000mW/1000mW VDD_CPU_CV 2000mW/2000mW\n"
                  "RAM 1/2MB VDD_GPU_SOC 3000mW/2000mW VDD_CPU_CV 2000mW/2000mW");
  auto e = power::integrate(
      power::read_recorded({.source = "tegrastats:" + log, .rail = "VDD_GPU_SOC", .interval_ms = 500}));
  EXPECT_DOUBLE_EQ(e.energy_j, 1.0);  // 0.5 s x (1 + 3) / 2 W
  EXPECT_DOUBLE_EQ(e.duration_s, 0.5);
}

}  // namespace
}  // namespace ridge::test
