// `ridge power` and `ridge bench --power` through the real binary: what they refuse, with one line on stderr. What
// they measure (real logs, a fake constant-power INA3221 tree) is checked in process:
// tests/report/test_power_report.cpp and test_bench_request.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/one_line_error.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

// The command's smoke run (the figures themselves: tests/report/test_power_report.cpp).
TEST(PowerCli, IntegrateTheRealNvmlCsvAsJson) {
  auto r = run_ridge("power integrate --source csv:" +
                     source_path("tests/data/power/Olajide-Badejo_GPU-Roofline-Profiler_nvml.csv") + " -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(nlohmann::json::parse(r.out)["energy_j"].get<double>(), 3812.1871235768767, 1e-6);
}

TEST(PowerCli, ALogWithoutRailsOrAMissingDriverIsOneLine) {
  expect_one_line_error(run_ridge("power integrate --source tegrastats:" +
                                  source_path("tests/data/power/sachinkmohan_thesis_jetson_ssd_keras_tegrastats.txt")),
                        "no power rails: run tegrastats as root");
  expect_one_line_error(run_ridge("power sample --source nvml --duration 0.1"),
                        "libnvidia-ml.so.1 was not found (no NVIDIA driver on this machine)");
}

TEST(BenchPowerCli, FileSourcesAndUnreadableSourcesAreRefusedFirst) {
  expect_one_line_error(run_ridge("bench " + model_path("lstm_2layer") + " --dim seq=8 --power csv:meter.csv"),
                        "ridge power integrate --source csv:meter.csv");
  expect_one_line_error(run_ridge("bench " + model_path("lstm_2layer") + " --dim seq=8 --power jetson",
                                  "RIDGE_SYSFS_ROOT=" + temp_dir() + "/none"),
                        "no INA3221");
}

}  // namespace
}  // namespace ridge::test
