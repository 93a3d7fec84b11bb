// `ridge predict` through the binary: a precision the device has no figure for, JSON keys and a mode sweep.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "hw/device_file.h"
#include "hw/roofline.h"
#include "roofline/family_calibration.h"
#include "roofline/predict.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

TEST(PredictCli, PrecisionTheDeviceHasNoFigureForIsRefused) {
  auto r = run_ridge("predict " + model_path("resnet50") + " --device t4 --precision fp64");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find("'t4' has no fp64"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fp16"), std::string::npos) << r.err;
  // fp16 exists on the T4's tensor cores: matrix nodes use it, the others show their fp32 ceiling.
  auto fp16 = run_ridge("predict " + model_path("resnet50") + " --device t4 --precision fp16");
  EXPECT_EQ(fp16.exit_code, 0) << fp16.err;
  EXPECT_NE(fp16.out.find("fp16_tensor"), std::string::npos);
}

TEST(PredictCli, JsonKeysAndModeSweep) {
  auto r = run_ridge("predict " + model_path("resnet50") + " --device t4 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"time_s\""), std::string::npos);
  EXPECT_NE(r.out.find("\"bound\""), std::string::npos);
  auto sweep = run_ridge("predict " + model_path("resnet50") +
                         " --device jetson-agx-orin-64gb --modes all --sweep batch=1,4 --format csv");
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_EQ(std::count(sweep.out.begin(), sweep.out.end(), '\n'), 1 + 4 * 2);
  auto bad = run_ridge("predict " + model_path("resnet50") + " --device host");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("no DRAM bandwidth"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ridge::test
