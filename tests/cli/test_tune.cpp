// `ridge tune` through the binary: one run's table (which names the estimate), and refusals: exit code and one line on
// stderr. The modes' time and energy against the formulas, the Pareto front, objectives, constraints, the JSON, the
// store and --apply are checked in process (tests/report/test_tune_request.cpp).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "support/paths.h"
#include "support/tune_fixtures.h"

namespace ridge::test {
namespace {

using namespace tune_fixtures;  // NOLINT(google-build-using-namespace)

namespace fs = std::filesystem;

std::string device_file() { return tune_device_file(); }

TEST(Tune, TableNamesTheEstimate) {
  auto r = run_ridge(fmt::format("tune {} --device {}", model_file(), device_file()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ESTIMATED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("against MAXN"), std::string::npos) << r.out;
}

TEST(Tune, NothingMeetsAnImpossibleLimitInOneLine) {
  auto r = run_ridge(fmt::format("tune {} --device {} --latency-max 1e-9", model_file(), device_file()));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("no power mode"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(Tune, ApplyIsRefusedOffAJetson) {
  auto empty = temp_dir() + "/not-a-jetson";
  fs::create_directories(empty);
  auto r =
      run_ridge(fmt::format("tune {} --device {} --apply", model_file(), device_file()), "RIDGE_SYSFS_ROOT=" + empty);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--apply refused"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nvidia,tegra"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // A device file that is no Jetson module is refused whatever the machine.
  auto h100 = run_ridge(fmt::format("tune {} --device h100-sxm --objective latency --apply", model_file()));
  EXPECT_NE(h100.exit_code, 0);
  EXPECT_NE(h100.err.find("not a Jetson"), std::string::npos) << h100.err;
}

}  // namespace
}  // namespace ridge::test
