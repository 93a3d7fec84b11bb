// `ridge calibrate` through the binary: the options it refuses (exit code and one line on stderr) and a smoke run.
// The fits themselves (a layer sample, bench runs, GPU runs, PyTorch timings, Nsight Compute kernel times), the files
// they keep and predictions with them are checked in process in tests/report/test_calibrate_command.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "support/device_fixtures.h"
#include "support/files.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

// A CPU with round ceilings: 100 GFLOP/s, 10 GB/s.
std::string device_file(const std::string& dir) { return round_cpu_device(dir); }

TEST(CalibrateCli, RefusesWhatItCannotHonour) {
  auto dir = temp_dir() + "/calibrate-refusals";
  fs::create_directories(dir);
  auto device = device_file(dir);
  for (const auto& args : std::vector<std::string>{
           "--device " + device, "--device " + device + " --quick --measured " + dir,
           "--device " + device + " --sample --threads 0", "--device " + device + " --sample --threads two",
           "--device " + device + " --sample --modes fast", "--device " + device + " --exclude-model x.onnx --sample",
           model_path("alexnet") + " --device " + device + " --sample",
           "--device " + device + " --samples " + dir + "/missing.samples.csv", std::string("--device host --sample"),
           "--device " + device + " --sample --batch 8", "--device " + device + " --sample --precision bf16",
           "--device " + device + " --sample --dim seq=128",
           // Every refusal is tested in process (tests/calib/test_calibrate.cpp); these check that the command
           // gives what it parsed: --seed 0 is given, not the default.
           model_path("alexnet") + " --device " + device + " --measured " + dir + "/t.csv --seed 0"}) {
    auto r = run_ridge("calibrate " + args + " -o " + dir + "/out.yaml");
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << args << ": " << r.err;
  }
}

// A smoke run of the command: the H200's GPU runs fitted through the binary, the fit printed as JSON on stdout and the
// files written where -o says. What the fits hold, and predictions with them, are checked in process
// (tests/report/test_calibrate_command.cpp).
TEST(CalibrateCli, FitsThroughTheBinary) {
  auto dir = temp_dir() + "/gpu-cal";
  std::filesystem::create_directories(dir + "/models");
  std::filesystem::copy_file(source_path("tests/data/bench/h200/ridge-bench-resnet50.json"), dir + "/runs.json",
                             std::filesystem::copy_options::overwrite_existing);
  // The runs name models/resnet50.onnx: found beside the results, wherever the tests run from.
  std::filesystem::copy_file(model_path("resnet50"), dir + "/models/resnet50.onnx",
                             std::filesystem::copy_options::overwrite_existing);
  auto r =
      run_ridge("calibrate --device h200 --measured " + dir + "/runs.json -o " + dir + "/h200.yaml --no-store -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto fit = nlohmann::json::parse(r.out);
  EXPECT_NE(fit.dump().find("device/conv"), std::string::npos) << fit.dump();
  EXPECT_TRUE(fs::exists(dir + "/h200.model.json"));
  EXPECT_NE(slurp(dir + "/h200.yaml").find("h200.model.json"), std::string::npos);
}

}  // namespace
}  // namespace ridge::test
