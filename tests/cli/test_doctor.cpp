// `ridge doctor` through the binary: what a process sees when it starts (an executor module that does not load, the
// CUDA toolkit's stub driver first on the loader's path), a usage error, and a smoke run. Every check in every format,
// programs on PATH and --for FEATURE are checked in process (tests/doctor/test_checks.cpp). Also the usage errors of
// `ridge bench --list-algorithms` and a smoke run of it (its values: tests/report/test_choices_report.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "support/doctor_checks.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

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

// A smoke run: every check is a row of what the binary prints. The checks, the formats and the features are checked
// in process (tests/doctor/test_checks.cpp).
TEST(Doctor, EveryCheckIsARowOfWhatTheBinaryPrints) {
  auto r = run_ridge("doctor --for bench -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto checks = checks_by_name(r.out);
  for (const auto& name : kCheckNames) EXPECT_EQ(checks.count(name), 1u) << name;
  EXPECT_EQ(checks.size(), kCheckNames.size());
}

// The executor module is loaded once per process, from the path the environment names when the process starts: a
// module that does not load is a check of its own process.
TEST(Doctor, AnExecutorThatDoesNotLoadIsMissingWithTheLoadersMessage) {
  auto fake = fs::path(temp_dir()) / "libridge_exec.so";
  std::ofstream(fake) << "not a shared library\n";
  auto r = run_ridge("doctor --for bench -f json", "RIDGE_EXEC_MODULE=" + fake.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  expect_one_line(r.err);
  EXPECT_NE(r.err.find("executor module missing"), std::string::npos) << r.err;
  auto module = checks_by_name(r.out)["executor module"];
  EXPECT_EQ(module["status"], "missing");
  EXPECT_NE(module["detail"].get<std::string>().find(fake.string()), std::string::npos) << module.dump();
  EXPECT_NE(module["fix"].get<std::string>().find("libtorch"), std::string::npos) << module.dump();
}

// The CUDA toolkit's stub libcuda, found first by the loader (a common mistake), is a driver that
// does not work: named, with how to get rid of it.
TEST(Doctor, TheToolkitsStubDriverIsNotADriver) {
  fs::path stub;
  for (const char* candidate : {"/usr/local/cuda/lib64/stubs/libcuda.so", "/usr/local/cuda/lib/stubs/libcuda.so"})
    if (fs::exists(candidate)) stub = candidate;
  if (stub.empty()) GTEST_SKIP() << "no CUDA toolkit stubs here";
  auto dir = fs::path(temp_dir()) / "stub-driver";
  fs::create_directories(dir);
  fs::create_symlink(stub, dir / "libcuda.so.1");
  auto r = run_ridge("doctor -f json", "LD_LIBRARY_PATH=" + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto checks = checks_by_name(r.out);
  EXPECT_EQ(checks["CUDA driver"]["status"], "missing") << checks["CUDA driver"].dump();
  EXPECT_NE(checks["CUDA driver"]["detail"].get<std::string>().find("CUDA_ERROR_STUB_LIBRARY"), std::string::npos)
      << checks["CUDA driver"].dump();
  EXPECT_NE(checks["CUDA driver"]["fix"].get<std::string>().find("stub"), std::string::npos);
  EXPECT_EQ(checks["GPUs"]["status"], "missing");
}

TEST(Doctor, UnknownFeatureIsAUsageError) {
  auto r = run_ridge("doctor --for gpu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  expect_one_line(r.err);
  EXPECT_NE(r.err.find("bench-cuda"), std::string::npos) << r.err;
}

TEST(BenchListAlgorithms, ListsWithoutAModel) {
  auto r = run_ridge("bench --list-algorithms");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("winograd"), std::string::npos) << r.out;
}

TEST(BenchListAlgorithms, ModelIsStillRequiredOtherwise) {
  for (const std::string& args : {std::string("bench"), std::string("bench --threads 2")}) {
    auto r = run_ridge(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    expect_one_line(r.err);
    EXPECT_NE(r.err.find("model is required"), std::string::npos) << r.err;
  }
  // --list-algorithms takes no model and no run options: refused, never dropped.
  for (const std::string& args :
       {"bench --list-algorithms " + model_path("alexnet"), std::string("bench --list-algorithms --threads 2")}) {
    auto r = run_ridge(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(r.out.empty()) << r.out;
    expect_one_line(r.err);
    EXPECT_NE(r.err.find("--list-algorithms excludes"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace ridge::test
