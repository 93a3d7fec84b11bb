// `ridge doctor` printed in process (doctor/doctor_report): the document in the format asked for, and with a feature
// the exit code and the one line naming what it lacks.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "doctor/doctor_report.h"
#include "doctor/feature.h"

namespace ridge::test {
namespace {

// The ncu feature needs ncu and GPUs.
std::vector<doctor::Check> ncu_without_gpus() {
  return {doctor::ok("profilers", "ncu", "2025.1"),
          doctor::missing("cuda", "GPUs", "no GPU found", "install the NVIDIA driver")};
}

TEST(DoctorReport, AFeatureThatIsNotReadyExitsOneWithOneLine) {
  std::ostringstream out, err;
  EXPECT_EQ(doctor::print_doctor(ncu_without_gpus(), &doctor::find_feature("ncu"), "json", out, err), 1);
  EXPECT_EQ(err.str(), "ridge: not ready for ncu: GPUs missing [install the NVIDIA driver]\n");
  auto doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc.at("ready"), false);
  ASSERT_EQ(doc.at("checks").size(), 2u);
  EXPECT_EQ(doc.at("checks").at(1).at("status"), "missing");
}

TEST(DoctorReport, WithoutAFeatureOrWhenReadyTheExitCodeIsZero) {
  std::ostringstream out, err;
  EXPECT_EQ(doctor::print_doctor(ncu_without_gpus(), nullptr, "table", out, err), 0);
  EXPECT_NE(out.str().find("install the NVIDIA driver"), std::string::npos) << out.str();
  auto checks = ncu_without_gpus();
  checks[1] = doctor::ok("cuda", "GPUs", "1 GPU");
  EXPECT_EQ(doctor::print_doctor(checks, &doctor::find_feature("ncu"), "csv", out, err), 0);
  EXPECT_EQ(err.str(), "");
}

}  // namespace
}  // namespace ridge::test
