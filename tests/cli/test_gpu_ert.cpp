// `ridge ert --device cuda` through the binary without a GPU: one-line errors, and CPU-only options refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hw/device_file.h"
#include "hw/ert/gpu_ert.h"
#include "hw/roofline.h"
#include "report/gpu_ert_report.h"
#include "report/printer.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace ridge::hw::ert;

// On a machine without a GPU (this one, in CI) `ridge ert --device cuda` fails with one line
// saying why; with a GPU it measures, prints the documented keys and writes a usable profile.
TEST(GpuErtCli, NoGpuIsOneLineErrorElseItMeasures) {
  auto profile = temp_dir() + "/gpu.yaml";
  auto r = run_ridge("ert --device cuda --quick --format json --profile " + profile);
  if (r.exit_code != 0) {
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("ridge: error: ", 0), 0u) << r.err;
    // Only the reasons that mean "no GPU here" (or no CUDA module in this build); a failed kernel
    // check on a GPU machine is a failure of this test.
    bool no_gpu = r.err.find("no usable GPU") != std::string::npos || r.err.find("sees no GPU") != std::string::npos ||
                  r.err.find("built without the CUDA toolkit") != std::string::npos;
    EXPECT_TRUE(no_gpu) << r.err;
    return;
  }
  auto doc = nlohmann::json::parse(r.out);
  for (const char* key : {"fp64", "fp32", "fp16"}) EXPECT_GT(doc["peak_flops"][key].get<double>(), 0) << key;
  for (const char* level : {"l1", "l2", "dram"}) EXPECT_GT(doc["bandwidth"][level].get<double>(), 0) << level;
  auto device = hw::load_device_file(profile);
  EXPECT_EQ(device.kind, "gpu");
  auto stored = run_ridge("results --command ert --format json");
  EXPECT_EQ(stored.exit_code, 0) << stored.err;
  EXPECT_NE(stored.out.find("cuda:"), std::string::npos) << stored.out;
}

TEST(GpuErtCli, CpuOnlyOptionsAreRefusedNotDropped) {
  auto threads = run_ridge("ert --device cuda --threads 2 --quick");
  EXPECT_EQ(threads.exit_code, 1);
  EXPECT_EQ(std::count(threads.err.begin(), threads.err.end(), '\n'), 1) << threads.err;
  EXPECT_NE(threads.err.find("--threads"), std::string::npos) << threads.err;
  auto gpu = run_ridge("ert --gpu 1 --quick");  // --gpu without --device cuda
  EXPECT_EQ(gpu.exit_code, 1);
  EXPECT_EQ(std::count(gpu.err.begin(), gpu.err.end(), '\n'), 1) << gpu.err;
  EXPECT_NE(gpu.err.find("--gpu picks a GPU: it needs --device cuda"), std::string::npos) << gpu.err;
  auto bad = run_ridge("ert --device tpu");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;  // a usage error, from the option's check
  auto help = run_ridge("ert --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--device"), std::string::npos);
  EXPECT_NE(help.out.find("ridge ert --device cuda"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace ridge::test
