// `ridge devices show` through the binary: the documented JSON keys and one-line errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "hw/device_db.h"
#include "hw/device_file.h"
#include "hw/host.h"
#include "hw/roofline.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

TEST(DevicesCli, ShowJsonKeysAndErrors) {
  auto ok = run_ridge("devices show h100-sxm --format json");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  for (const char* key : {"\"fp32\"", "\"fp64\"", "\"bf16_tensor\"", "\"dram\"", "\"ridge_points\""})
    EXPECT_NE(ok.out.find(key), std::string::npos) << key;
  auto list = run_ridge("devices");
  EXPECT_NE(list.out.find("jetson-agx-orin-64gb"), std::string::npos);
  auto bad = run_ridge("devices show jetson-agx-orin-64gb:gpu=5GHz");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("between 114 and 1300 MHz"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find('\n'), bad.err.size() - 1);
  auto path = temp_dir() + "/broken.yaml";
  std::ofstream(path) << "id: broken\nkind: gpu\n";
  auto broken = run_ridge("devices show " + path);
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_NE(broken.err.find("name is missing"), std::string::npos) << broken.err;
}

}  // namespace
}  // namespace ridge::test
