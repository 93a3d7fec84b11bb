// What `ridge devices show DEVICE[:MODE]` prints (report/device_report), in process: each power mode's energy
// coefficients, against the values computed by hand in tests/roofline/test_energy.cpp. Every format of it is checked in
// tests/report/test_command_output.cpp.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "hw/device_db.h"
#include "hw/roofline.h"
#include "report/command_output.h"
#include "report/device_report.h"
#include "support/energy_fixtures.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

using namespace energy_fixtures;  // NOLINT(google-build-using-namespace)

// What `ridge devices show SPEC -f FORMAT` prints, SPEC being ID[:MODE] or a device file[:MODE].
std::string device_shown(const std::string& spec, const std::string& format) {
  auto [id, mode] = hw::split_device_and_mode(spec);
  auto device = hw::find_device(id);
  std::ostringstream out;
  report::emit(report::roofline_document(device, hw::roofline_for(device, hw::resolve_mode(device, mode))), format,
               out);
  return out.str();
}

TEST(DeviceReport, ShowListsEachModesCoefficients) {
  auto dev = temp_dir() + "/device-report-joule.yaml";
  std::ofstream(dev) << kDevice;
  auto j = Json::parse(device_shown(dev + ":half", "json"));
  EXPECT_DOUBLE_EQ(j["energy"]["e_flop_j"]["fp32"].get<double>(), 50e-12 * 0.64);
  EXPECT_DOUBLE_EQ(j["energy"]["p_static_w"].get<double>(), 20);
  ASSERT_EQ(j["energy_modes"].size(), 3u);
  EXPECT_EQ(j["energy_modes"][2]["mode"], "slow");
  EXPECT_DOUBLE_EQ(j["energy_modes"][2]["e_flop_j"]["fp32"].get<double>(), 50e-12 * 0.36);
  EXPECT_DOUBLE_EQ(j["energy_modes"][2]["e_byte_j"].get<double>(), 3e-10 * 0.36);
  EXPECT_EQ(j["energy_modes"][2]["label"], "estimate");
  auto table = device_shown(dev, "table");
  EXPECT_NE(table.find("energy coefficients per power mode"), std::string::npos) << table;
  EXPECT_NE(table.find("50.0 pJ/FLOP"), std::string::npos) << table;
}

}  // namespace
}  // namespace ridge::test
