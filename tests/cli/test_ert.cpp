// `ridge ert --quick` runs and prints the documented keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "hw/device_file.h"
#include "hw/ert/ert.h"
#include "hw/ert/kernels.h"
#include "hw/roofline.h"
#include "report/ert_report.h"
#include "report/printer.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

using namespace ridge::hw::ert;

TEST(ErtCli, QuickRunProducesTheDocumentedKeys) {
  auto r = run_ridge("ert --quick --threads 1 --format json --profile " + temp_dir() + "/host-ert.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["threads"], 1);
  // Rates depend on the machine's load (ctest runs tests in parallel), so only their presence is
  // checked here; the FLOP and byte accounting is checked exactly in ErtKernels.*.
  for (const char* key : {"fp32", "fp64"}) {
    EXPECT_GT(doc["peak_flops"][key].get<double>(), 0) << key;
    EXPECT_GT(doc["theoretical"][key].get<double>(), 0) << key;
  }
  for (const char* level : {"l1", "l2", "dram"}) EXPECT_GT(doc["bandwidth"][level].get<double>(), 0) << level;
  EXPECT_GT(doc["gemm_flops"]["fp32"].get<double>(), 0);
  // Both libraries the executor's products run on are timed, and the ceiling is the faster.
  const auto& by_kernel = doc["gemm_flops_by_kernel"];
  ASSERT_EQ(by_kernel.size(), 2u) << by_kernel.dump();
  double fastest = std::max(by_kernel["ATen at::mm"].get<double>(), by_kernel["oneDNN matmul"].get<double>());
  EXPECT_GT(std::min(by_kernel["ATen at::mm"].get<double>(), by_kernel["oneDNN matmul"].get<double>()), 0);
  EXPECT_EQ(doc["gemm_flops"]["fp32"].get<double>(), fastest);
  EXPECT_EQ(by_kernel[doc["gemm_kernel"].get<std::string>()].get<double>(), fastest);
  // The profile is a device file: predictions can use it.
  auto predict =
      run_ridge("predict " + model_path("alexnet") + " --device " + temp_dir() + "/host-ert.yaml --format json");
  EXPECT_EQ(predict.exit_code, 0) << predict.err;
  EXPECT_NE(predict.out.find("\"measured\""), std::string::npos);
}

}  // namespace
}  // namespace ridge::test
