// `ridge power` and `ridge bench --power` through the real binary, on real logs and a fake
// constant-power INA3221 tree (RIDGE_SYSFS_ROOT).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/jetson_tree.h"
#include "support/one_line_error.h"
#include "support/paths.h"
#include "util/csv.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

// An Orin-layout tree whose rails draw 3 + 2 = 5 W, constantly.
std::string constant_tree() { return constant_jetson_tree(temp_dir() + "/sys"); }

TEST(PowerCli, IntegrateTheRealNvmlCsvAsJson) {
  auto r = run_ridge("power integrate --source csv:" +
                     source_path("tests/data/power/Olajide-Badejo_GPU-Roofline-Profiler_nvml.csv") + " -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_NEAR(doc["energy_j"].get<double>(), 3812.1871235768767, 1e-6);  // see test_power.cpp
  EXPECT_NEAR(doc["duration_s"].get<double>(), 31.728, 1e-6);
  EXPECT_NEAR(doc["mean_w"].get<double>(), 120.1521401874711, 1e-6);
  EXPECT_EQ(doc["samples"], 293);
  EXPECT_EQ(doc["rails"][0]["rail"], "power_w");
}

TEST(PowerCli, IntegrateATegrastatsLogPerRail) {
  auto log = temp_dir() + "/t.log";
  write_line_file(log,
                  "RAM 1/2MB VDD_GPU_SOC 1000mW/1000mW VDD_CPU_CV 2000mW/2000mW\n"
                  "user@orin:~$ ^C\n"
                  "RAM 1/2MB VDD_GPU_SOC 3000mW/2000mW VDD_CPU_CV 2000mW/2000mW");
  auto r = run_ridge("power integrate --source tegrastats:" + log + " --interval 500 --rail VDD_GPU_SOC -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(doc["energy_j"].get<double>(), 1.0);  // 0.5 s x (1 + 3) / 2 W
  EXPECT_DOUBLE_EQ(doc["duration_s"].get<double>(), 0.5);
  EXPECT_EQ(doc["skipped_lines"], 1);
  expect_one_line_error(run_ridge("power integrate --source tegrastats:" +
                                  source_path("tests/data/power/sachinkmohan_thesis_jetson_ssd_keras_tegrastats.txt")),
                        "no power rails: run tegrastats as root");
}

TEST(PowerCli, SampleAFakeJetsonTree) {
  auto r = run_ridge("power sample --source jetson --duration 0.3 -f json", "RIDGE_SYSFS_ROOT=" + constant_tree());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_NEAR(doc["mean_w"].get<double>(), 5.0, 1e-9);
  EXPECT_GE(doc["samples"].get<int>(), 3);
  expect_one_line_error(run_ridge("power sample --source nvml --duration 0.1"),
                        "libnvidia-ml.so.1 was not found (no NVIDIA driver on this machine)");
}

TEST(BenchPowerCli, EnergyPerInferenceIsPowerTimesLatency) {
  auto csv = temp_dir() + "/bench_csv";
  auto r = run_ridge("bench " + model_path("lstm_2layer") +
                         " --dim seq=8 --threads 1 --no-per-node --max-time 1 --warmup 0.1 --power jetson --idle-time "
                         "0.2 --power-min-time 0.5 -f json --csv " +
                         csv,
                     "RIDGE_SYSFS_ROOT=" + constant_tree());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["power"]["source"], "jetson");
  EXPECT_NEAR(doc["power"]["idle_power_w"].get<double>(), 5.0, 1e-9);
  auto run = doc["runs"][0];
  EXPECT_GE(run["power"]["samples"].get<int>(), 2);
  EXPECT_NEAR(run["power_mean_w"].get<double>(), 5.0, 1e-9);
  // Energy / runs = 5 W x window / runs; the window holds the runs and a little loop overhead.
  double expected = 5.0 * run["latency_ms"]["mean"].get<double>() / 1e3;
  EXPECT_NEAR(run["energy_per_inference_j"].get<double>(), expected, 0.05 * expected);
  std::ifstream in(csv + "/overall.csv");
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  // The two columns, by name: filled with the figures of the JSON run.
  auto names = split_csv_line(header), cells = split_csv_line(row);
  ASSERT_EQ(names.size(), cells.size()) << row;
  auto cell = [&](const std::string& name) {
    auto it = std::find(names.begin(), names.end(), name);
    return it == names.end() ? std::string("missing") : cells[static_cast<size_t>(it - names.begin())];
  };
  ASSERT_NE(cell("power_mean_w"), "missing") << header;
  ASSERT_FALSE(cell("energy_per_inference_j").empty()) << row;
  EXPECT_NEAR(std::stod(cell("power_mean_w")), 5.0, 1e-9) << row;
  EXPECT_NEAR(std::stod(cell("energy_per_inference_j")), run["energy_per_inference_j"].get<double>(), 1e-12) << row;
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
