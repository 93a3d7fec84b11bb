// Every check of `ridge doctor` (doctor::all_checks) printed in process (doctor::print_doctor): a row each in every
// format; with a feature, which rows it needs and whether it is ready. Programs are found on the PATH given (fake ncu
// and sbatch put there stand for real ones); the store is checked where it would be written.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "doctor/checks.h"
#include "doctor/doctor_report.h"
#include "doctor/feature.h"
#include "support/doctor_checks.h"
#include "support/paths.h"
#include "support/scoped_env.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A directory holding executable shell scripts NAME -> body, to be the whole PATH of a check.
std::string tool_dir(const std::string& name, const std::map<std::string, std::string>& scripts) {
  auto dir = fs::path(temp_dir()) / name;
  fs::create_directories(dir);
  for (const auto& [tool, body] : scripts) {
    auto path = dir / tool;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  }
  return dir.string();
}

const std::map<std::string, std::string> kFakeTools{{"ncu",
                                                     "echo 'NVIDIA (R) Nsight Compute Command Line Profiler'\n"
                                                     "echo 'Copyright (c) 2018-2025 NVIDIA Corporation'\n"
                                                     "echo 'Version 2025.3.0.0 (build 36273991) (public-release)'\n"},
                                                    {"sbatch", "echo 'slurm 22.05.8'\n"}};

// What `ridge doctor [--for FEATURE] -f FORMAT` prints, and its exit code; every check made with PATH as `path`
// ("": as it is).
struct Printed {
  int exit_code = 0;
  std::string out, err;
};
Printed doctor(const std::string& feature, const std::string& format, const std::string& path = "") {
  std::vector<doctor::Check> checks;
  if (path.empty()) {
    checks = doctor::all_checks(doctor::resolve_store_path(""));
  } else {
    ScopedEnvironment environment("PATH", path);
    checks = doctor::all_checks(doctor::resolve_store_path(""));
  }
  std::ostringstream out, err;
  Printed printed;
  printed.exit_code =
      doctor::print_doctor(checks, feature.empty() ? nullptr : &doctor::find_feature(feature), format, out, err);
  printed.out = out.str();
  printed.err = err.str();
  return printed;
}

std::map<std::string, json> checks_by_name(const std::string& out) {
  std::map<std::string, json> checks;
  auto doc = json::parse(out);
  for (const auto& c : doc.at("checks")) checks[c.at("check").get<std::string>()] = c;
  return checks;
}

void expect_one_line(const std::string& err) {
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.find('\n'), err.size() - 1) << "more than one line: " << err;
}

TEST(DoctorChecks, EveryCheckIsARowOfTheJson) {
  auto r = doctor("", "json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& c : doc.at("checks")) {
    names.push_back(c.at("check").get<std::string>());
    for (const char* key : {"area", "check", "status", "detail", "fix"}) EXPECT_TRUE(c.at(key).is_string()) << key;
    EXPECT_FALSE(c.at("required").get<bool>());
    auto status = c.at("status").get<std::string>();
    EXPECT_TRUE(status == "ok" || status == "missing" || status == "not applicable") << status;
    EXPECT_EQ(c.at("fix").get<std::string>().empty(), status != "missing") << c.dump();
    EXPECT_FALSE(c.at("detail").get<std::string>().empty()) << c.dump();
  }
  EXPECT_EQ(names, kCheckNames);
  auto checks = checks_by_name(r.out);
  // This machine: the executor loads and the bundled device files are valid.
  EXPECT_EQ(checks["executor module"]["status"], "ok") << checks["executor module"].dump();
  EXPECT_EQ(checks["libtorch (ATen)"]["status"], "ok");
  EXPECT_EQ(checks["device files"]["status"], "ok") << checks["device files"].dump();
  EXPECT_EQ(checks["logical cores"]["status"], "ok");
}

TEST(DoctorChecks, PrintsEveryFormat) {
  for (const char* format : {"table", "csv", "md"}) {
    auto r = doctor("bench", format);
    ASSERT_EQ(r.exit_code, 0) << format << ": " << r.err;
    for (const auto& name : kCheckNames) EXPECT_NE(r.out.find(name), std::string::npos) << format << ": " << name;
  }
  auto csv = doctor("", "csv");
  EXPECT_EQ(csv.out.rfind("area,check,status,detail,fix,required\n", 0), 0u) << csv.out;
}

TEST(DoctorChecks, ToolsOnPathReportTheirVersions) {
  auto path = tool_dir("fake-tools", kFakeTools);
  auto r = doctor("", "json", path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto checks = checks_by_name(r.out);
  EXPECT_EQ(checks["ncu"]["status"], "ok") << checks["ncu"].dump();
  EXPECT_NE(checks["ncu"]["detail"].get<std::string>().find("2025.3.0.0"), std::string::npos) << checks["ncu"].dump();
  EXPECT_NE(checks["ncu"]["detail"].get<std::string>().find(path + "/ncu"), std::string::npos);
  EXPECT_EQ(checks["sbatch"]["status"], "ok") << checks["sbatch"].dump();
  EXPECT_NE(checks["sbatch"]["detail"].get<std::string>().find("22.05.8"), std::string::npos)
      << checks["sbatch"].dump();
  EXPECT_EQ(checks["nsys"]["status"], "missing");
  // Looking for programs never disturbs loading the executor.
  EXPECT_EQ(checks["executor module"]["status"], "ok");
}

TEST(DoctorChecks, ToolsNotOnPathAreMissingWithAFix) {
  auto r = doctor("", "json", tool_dir("no-tools", {}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto checks = checks_by_name(r.out);
  for (const char* tool : {"ncu", "nsys", "sbatch"}) {
    EXPECT_EQ(checks[tool]["status"], "missing") << checks[tool].dump();
    EXPECT_EQ(checks[tool]["detail"], "not on PATH") << checks[tool].dump();
    EXPECT_FALSE(checks[tool]["fix"].get<std::string>().empty());
  }
  EXPECT_NE(checks["sbatch"]["fix"].get<std::string>().find("slurm"), std::string::npos);
}

TEST(DoctorChecks, AToolThatFailsIsMissingWithItsMessage) {
  auto path = tool_dir("broken-tools", {{"sbatch",
                                         "echo 'sbatch: fatal: Could not establish a configuration source' >&2\n"
                                         "exit 1\n"}});
  auto checks = checks_by_name(doctor("", "json", path).out);
  EXPECT_EQ(checks["sbatch"]["status"], "missing");
  EXPECT_NE(checks["sbatch"]["detail"].get<std::string>().find("configuration source"), std::string::npos)
      << checks["sbatch"].dump();
}

TEST(DoctorChecks, ForSlurmNeedsSbatch) {
  auto without = doctor("slurm", "table", tool_dir("no-tools", {}));
  EXPECT_EQ(without.exit_code, 1) << without.err;
  expect_one_line(without.err);
  EXPECT_NE(without.err.find("not ready for slurm"), std::string::npos) << without.err;
  EXPECT_NE(without.err.find("sbatch missing"), std::string::npos) << without.err;
  EXPECT_NE(without.err.find("apt install slurm-client"), std::string::npos) << without.err;
  auto with = doctor("slurm", "json", tool_dir("fake-tools", kFakeTools));
  EXPECT_EQ(with.exit_code, 0) << with.err;
  EXPECT_TRUE(with.err.empty()) << with.err;
  auto doc = json::parse(with.out);
  EXPECT_EQ(doc["for"], "slurm");
  EXPECT_EQ(doc["ready"], true);
  for (const auto& c : doc["checks"]) EXPECT_EQ(c["required"].get<bool>(), c["check"] == "sbatch") << c.dump();
}

TEST(DoctorChecks, ForBenchNeedsTheExecutorWhichLoadsHere) {
  auto r = doctor("bench", "json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto checks = checks_by_name(r.out);
  EXPECT_TRUE(checks["executor module"]["required"].get<bool>());
  EXPECT_FALSE(checks["CUDA driver"]["required"].get<bool>());
  auto table = doctor("bench", "table");
  EXPECT_NE(table.out.find("ready: yes"), std::string::npos) << table.out;
}

TEST(DoctorChecks, ForBenchCudaNamesWhatIsMissing) {
  auto checks = checks_by_name(doctor("", "json").out);
  auto r = doctor("bench-cuda", "json");
  bool ready = true;
  for (const char* name : {"CUDA driver", "CUDA runtime", "cuDNN", "cuBLAS", "GPUs", "GPU module"}) {
    EXPECT_TRUE(json::parse(r.out)["checks"].is_array());
    if (checks[name]["status"] == "ok") continue;
    ready = false;
    EXPECT_NE(r.err.find(std::string(name) + " "), std::string::npos) << name << ": " << r.err;
  }
  EXPECT_EQ(r.exit_code, ready ? 0 : 1) << r.err;
  // No NVIDIA driver (this machine, CI): not ready, and the message names the driver and its fix.
  if (checks["CUDA driver"]["status"] != "ok") {
    EXPECT_EQ(r.exit_code, 1);
    expect_one_line(r.err);
    EXPECT_NE(r.err.find("CUDA driver missing [install the NVIDIA driver"), std::string::npos) << r.err;
    EXPECT_EQ(checks["GPUs"]["status"], "missing");
  }
}

TEST(DoctorChecks, ForPowerIsAnyOneOfItsSources) {
  auto r = doctor("power", "json");
  auto checks = checks_by_name(r.out);
  bool any = false;
  for (const char* name : {"NVML", "RAPL", "tegrastats"}) {
    EXPECT_TRUE(checks[name]["required"].get<bool>()) << name;
    any = any || checks[name]["status"] == "ok";
  }
  EXPECT_EQ(r.exit_code, any ? 0 : 1) << r.err;
  if (!any) {
    EXPECT_NE(r.err.find("one of NVML, RAPL, tegrastats is needed"), std::string::npos) << r.err;
  }
}

TEST(DoctorChecks, StoreIsCheckedWhereItWouldBeWritten) {
  auto dir = fs::path(temp_dir()) / "store";
  fs::create_directories(dir);
  // The "results store" row of `ridge doctor --store FLAG` ("": none given) with $RIDGE_STORE as it is.
  auto store_row = [](const std::string& flag) {
    std::ostringstream out, err;
    doctor::print_doctor({doctor::store_check(doctor::resolve_store_path(flag))}, nullptr, "json", out, err);
    return checks_by_name(out.str())["results store"];
  };
  auto fresh = store_row((dir / "results.db").string());
  EXPECT_EQ(fresh["status"], "ok") << fresh.dump();
  EXPECT_NE(fresh["detail"].get<std::string>().find("--store"), std::string::npos) << fresh.dump();
  json from_env;
  {
    ScopedEnvironment environment("RIDGE_STORE", (dir / "env.db").string());
    from_env = store_row("");
  }
  EXPECT_EQ(from_env["status"], "ok") << from_env.dump();
  EXPECT_NE(from_env["detail"].get<std::string>().find("RIDGE_STORE"), std::string::npos) << from_env.dump();
  auto nowhere = store_row((dir / "no" / "such" / "results.db").string());
  EXPECT_EQ(nowhere["status"], "missing") << nowhere.dump();
  EXPECT_NE(nowhere["fix"].get<std::string>().find("mkdir -p"), std::string::npos) << nowhere.dump();
  auto directory = store_row(dir.string());
  EXPECT_EQ(directory["status"], "missing") << directory.dump();
}

TEST(DoctorChecks, AnInvalidDeviceFileIsNamed) {
  auto dir = fs::path(temp_dir()) / "bad-devices";
  fs::create_directories(dir);
  std::ofstream(dir / "broken-gpu.yaml") << "id: broken-gpu\nname: [unclosed\n";
  ScopedEnvironment environment("RIDGE_DEVICE_PATH", dir.string());
  auto devices = checks_by_name(doctor("", "json").out)["device files"];
  EXPECT_EQ(devices["status"], "missing") << devices.dump();
  EXPECT_NE(devices["detail"].get<std::string>().find("broken-gpu.yaml"), std::string::npos) << devices.dump();
}

}  // namespace
}  // namespace ridge::test
