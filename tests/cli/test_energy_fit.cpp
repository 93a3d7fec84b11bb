// `ridge calibrate --energy` through the binary: a refused fit exits non-zero with one line on stderr.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "support/energy_fit_fixtures.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

using namespace energy_fit_fixtures;  // NOLINT(google-build-using-namespace)

namespace fs = std::filesystem;

// The exit code and the one line on stderr of a refused fit; what each refusal names, the fit, its table, the store and
// the device file written are checked in process (tests/report/test_calibrate_command.cpp, CalibrateEnergy).
TEST(EnergyFitCli, RefusesRunsOfOneModelAtOneBatchInOneLine) {
  auto dir = temp_dir() + "/energy-fit-refuse";
  fs::remove_all(dir);
  fs::create_directories(dir + "/bench");
  auto device = device_file(dir);
  auto alexnet = model_path("alexnet");
  auto p = point(alexnet, 2);
  auto p2 = p;
  p2.mean_ms *= 1.01;
  p2.energy_j *= 1.02;
  auto p3 = p;
  p3.mean_ms *= 0.98;
  std::ofstream(dir + "/bench/overall.csv") << overall_csv({p, p2, p3}, false);
  auto r = run_ridge("calibrate --energy --device " + device + " --measured " + dir + "/bench --no-store");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("e_flop_j, e_byte_j and p_static_w cannot be separated"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("different batch sizes"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace ridge::test
