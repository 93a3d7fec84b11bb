// `ridge ncu command|run` through the binary: the usage errors (exit code 2), a refusal and a missing ncu as one line
// on stderr (exit code 1), and a smoke run of each, `ncu run` with a fake ncu program (support/fake_ncu.h). The shell
// lines, JSON and CSV are checked in process in tests/report/test_ncu_command_report.cpp, the runs of fake ncu
// programs (no permission, no kernels, a failing point, the import) in tests/report/test_ncu_import_command.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "profile/ncu_metrics.h"
#include "support/fake_ncu.h"
#include "support/files.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void expect_one_line(const std::string& err) {
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.find('\n'), err.size() - 1) << "more than one line: " << err;
}

// A smoke run: the lines on stdout, the note on stderr.
TEST(NcuCommand, CliPrintsOneShellLinePerPoint) {
  auto r = run_ridge("ncu command --sweep batch=1,8 --output-dir out -- ./app --batch '{batch}'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" --nvtx --log-file out/ncu-batch=8.csv ./app --batch 8\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("note: no --cc: the tensor-core ops counters are not asked for"), std::string::npos) << r.err;
}

TEST(NcuCommand, CliUsageErrorsAndRefusals) {
  // A compute capability without a table is refused by the option's check, not dropped.
  auto ampere = run_ridge("ncu command --cc 8.0 -- ./app");
  EXPECT_EQ(ampere.exit_code, 2);
  EXPECT_NE(ampere.err.find("--cc"), std::string::npos) << ampere.err;
  EXPECT_EQ(run_ridge("ncu command").exit_code, 2);  // no program
  auto r = run_ridge("ncu command --sweep batch=1,8 -- ./app --batch 8");
  EXPECT_EQ(r.exit_code, 1);
  expect_one_line(r.err);
  EXPECT_NE(r.err.find("no {batch}"), std::string::npos) << r.err;
}

TEST(NcuRun, MissingNcuIsOneLine) {
  auto r =
      run_ridge("ncu run --no-import --ncu /nonexistent/ncu --output-dir " + fresh_dir("ncu-missing") + " -- ./app");
  EXPECT_EQ(r.exit_code, 1);
  expect_one_line(r.err);
  EXPECT_NE(r.err.find("ncu not found"), std::string::npos) << r.err;
}

// A smoke run with the importer: the fake's CSV written, its two kernels imported and printed as JSON.
TEST(NcuRun, ImportsWhatItWrote) {
  auto dir = fresh_dir("ncu-run-import");
  auto ncu = ncu_fakes::checking_ncu(dir);
  auto r = run_ridge("ncu run --no-store --ncu " + ncu + " --output-dir " + dir +
                     "/out --sweep batch=2 -f json -- ./app '{batch}'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("[1/1] batch=2"), std::string::npos) << r.err;
  EXPECT_NE(slurp(dir + "/out/ncu-batch=2.log").find("hello from the program, argument 2"), std::string::npos);
  auto doc = json::parse(r.out);
  std::map<std::string, double> times;
  for (const auto& k : doc.at("kernels")) times[k.at("name").get<std::string>()] = k.at("time_s").get<double>();
  ASSERT_EQ(times.size(), 2u) << r.out;
  EXPECT_NEAR(times.at("gemm_kernel"), 2e-6, 1e-12);
  EXPECT_NEAR(times.at("relu_kernel"), 5e-7, 1e-12);
}

}  // namespace
}  // namespace ridge::test
