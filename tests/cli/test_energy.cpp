// `ridge plot energy-roofline` through the real binary: one run, and what it refuses (exit code, one line on stderr).
// The energy roofline in what predict, devices show and plot energy-roofline print is checked in process, against the
// values computed by hand in tests/roofline/test_energy.cpp: tests/report/test_predict_request.cpp,
// test_device_report.cpp and test_energy_roofline_request.cpp.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/energy_fixtures.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

using namespace energy_fixtures;  // NOLINT(google-build-using-namespace)

using Json = nlohmann::ordered_json;

std::string write(const std::string& name, const std::string& text) {
  auto path = temp_dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// The command's smoke run, then its refusals: exit code and the line on stderr.
TEST(EnergyOutputs, PlotEnergyRooflineWritesTheFigureOrRefuses) {
  auto dev = write("joule.yaml", kDevice);
  auto spec_path = temp_dir() + "/energy.vg.json";
  auto out =
      run_ridge("plot energy-roofline " + three_node_model() + " -d " + dev + ":half -o " + spec_path + " -f json");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(Json::parse(out.out)["kind"], "energy-roofline");
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
