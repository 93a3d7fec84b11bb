// `ridge power integrate` and `ridge power sample` as one call each (report/power_report): a recorded trace read and
// integrated into the document, with hand-computed energy; a real NVML log, a tegrastats log per rail and a fake
// Jetson tree (RIDGE_SYSFS_ROOT, read when the source opens). tests/cli/test_power.cpp keeps the refusals as one line
// on stderr.
#include <gtest/gtest.h>

#include <fstream>

#include "report/power_report.h"
#include "report/printer.h"
#include "support/error_text.h"
#include "support/jetson_tree.h"
#include "support/paths.h"
#include "support/scoped_env.h"

namespace ridge::test {
namespace {

TEST(PowerReport, IntegrateReadsTheTraceAndIntegratesIt) {
  auto path = temp_dir() + "/power-report.csv";
  std::ofstream(path) << "time_s,power_w\n0,10\n1,20\n3,20\n";
  auto doc = report::integrate_power({.source = "csv:" + path});
  EXPECT_EQ(doc.command, "power integrate");
  auto json = report::to_json(doc);
  // Trapezoids: (10 + 20) / 2 * 1 s + 20 W * 2 s = 55 J over 3 s.
  EXPECT_DOUBLE_EQ(json["energy_j"].get<double>(), 55);
  EXPECT_DOUBLE_EQ(json["duration_s"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(json["mean_w"].get<double>(), 55.0 / 3);
}

TEST(PowerReport, ALiveSourceIsNotReadAsARecordedOne) {
  std::vector<std::string> progress;
  EXPECT_NE(error_text([&] {
              report::sample_power({.source = "csv:m.csv", .duration_s = 5},
                                   [&](const std::string& text) { progress.push_back(text); });
            }).find("ridge power integrate"),
            std::string::npos);
  EXPECT_TRUE(progress.empty());
}

TEST(PowerReport, IntegrateTheRealNvmlCsv) {
  auto doc = report::to_json(report::integrate_power(
      {.source = "csv:" + source_path("tests/data/power/Olajide-Badejo_GPU-Roofline-Profiler_nvml.csv")}));
  EXPECT_NEAR(doc["energy_j"].get<double>(), 3812.1871235768767, 1e-6);  // see power/test_power.cpp
  EXPECT_NEAR(doc["duration_s"].get<double>(), 31.728, 1e-6);
  EXPECT_NEAR(doc["mean_w"].get<double>(), 120.1521401874711, 1e-6);
  EXPECT_EQ(doc["samples"], 293);
  EXPECT_EQ(doc["rails"][0]["rail"], "power_w");
}

TEST(PowerReport, IntegrateATegrastatsLogPerRail) {
  auto log = temp_dir() + "/power-report-t.log";
  write_line_file(log,
                  "RAM 1/2MB VDD_GPU_SOC 1000mW/1000mW VDD_CPU_CV 2000mW/2000mW\n"
                  "user@orin:~$ ^C\n"
                  "RAM 1/2MB VDD_GPU_SOC 3000mW/2000mW VDD_CPU_CV 2000mW/2000mW");
  auto doc = report::to_json(
      report::integrate_power({.source = "tegrastats:" + log, .rail = "VDD_GPU_SOC", .interval_ms = 500}));
  EXPECT_DOUBLE_EQ(doc["energy_j"].get<double>(), 1.0);  // 0.5 s x (1 + 3) / 2 W
  EXPECT_DOUBLE_EQ(doc["duration_s"].get<double>(), 0.5);
  EXPECT_EQ(doc["skipped_lines"], 1);
}

TEST(PowerReport, SampleAFakeJetsonTree) {
  // An Orin-layout tree whose rails draw 3 + 2 = 5 W, constantly.
  ScopedEnvironment sysfs("RIDGE_SYSFS_ROOT", constant_jetson_tree(temp_dir() + "/power-report-sys"));
  auto doc = report::to_json(report::sample_power({.source = "jetson", .duration_s = 0.3}, {}));
  EXPECT_NEAR(doc["mean_w"].get<double>(), 5.0, 1e-9);
  EXPECT_GE(doc["samples"].get<int>(), 3);
}

}  // namespace
}  // namespace ridge::test
