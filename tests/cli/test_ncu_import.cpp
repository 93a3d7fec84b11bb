// `ridge import ncu` through the binary: a smoke run, and the exit code and one line of a file that is no export. The
// summaries, the JSON the plots read, malformed files, the store and the report are checked in process
// (tests/report/test_ncu_import_command.cpp), calibration from mapped kernel times in
// tests/report/test_calibrate_command.cpp, and the mapping itself in tests/profile/test_ncu_import.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/ncu_import_fixtures.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

using namespace ncu_import_fixtures;  // NOLINT(google-build-using-namespace)

using nlohmann::json;

TEST(NcuImport, ImportsThroughTheBinary) {
  auto r = run_ridge("import ncu --no-store -f json " + data("summary_per_kernel.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out);
  EXPECT_EQ(doc["runs"][0]["layout"], "summary");
  EXPECT_EQ(doc["kernels"][1]["invocations"], 2);
}

TEST(NcuImport, AFileThatIsNoExportExitsOneWithOneLine) {
  auto path = temp_dir() + "/other.csv";
  std::ofstream(path) << "node,time_ms\nconv1,1.5\n";
  auto r = run_ridge("import ncu --no-store " + path);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not an Nsight Compute CSV export"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace ridge::test
