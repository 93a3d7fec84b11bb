// ncu run on every point and its CSVs imported, printed and kept (report/ncu_import_command), in process, with a fake
// ncu that writes two kernels (gemm_kernel 2000 ns, relu_kernel 500 ns) and fails for the program argument "8".
// tests/cli/test_ncu_command.cpp runs `ridge ncu run` through the binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/ncu_import_command.h"
#include "store/store.h"
#include "support/error_text.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string fresh_dir(const std::string& name) {
  auto dir = fs::path(temp_dir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string fake_ncu(const std::string& dir) {
  const std::string header =
      R"("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value")";
  const std::string row =
      R"row("%s","1","app","h","%s","1","7","(256, 1, 1)","(1024, 1, 1)","0","8.0","Command line profiler metrics","%s","%s","%s"\n)row";
  std::ostringstream body;
  body << "#!/bin/sh\nlog=''; last=''\n"
       << "while [ $# -gt 0 ]; do [ \"$1\" = --log-file ] && log=\"$2\"; last=\"$1\"; shift; done\n"
       << "[ \"$last\" = 8 ] && { echo '==ERROR== The application returned an error code (3).'; exit 3; }\n"
       << "{\n  echo '" << header << "'\n";
  for (auto [id, kernel, ns] : {std::tuple{"0", "gemm_kernel", "2,000"}, std::tuple{"1", "relu_kernel", "500"}})
    body << "  printf '" << row << "' " << id << " " << kernel << " gpu__time_duration.sum ns '" << ns << "'\n";
  body << "} > \"$log\"\n";
  auto path = fs::path(dir) / "ncu";
  std::ofstream(path) << body.str();
  fs::permissions(path, fs::perms::owner_all);
  return path.string();
}

profile::NcuRunRequest request_in(const std::string& dir, const std::string& sweep) {
  profile::NcuRunRequest r;
  r.ncu.ncu = fake_ncu(dir);
  r.ncu.output_dir = dir + "/out";
  r.ncu.program = {"./app", "{batch}"};
  r.sweeps = {sweep};
  return r;
}

TEST(NcuImportCommand, WithoutImportPrintsWhatEachPointWrote) {
  auto dir = fresh_dir("ncu-import-command-written");
  report::NcuImportCommand import{.format = "json", .store = {.disabled = true}};
  std::ostringstream out, err;
  EXPECT_EQ(report::run_ncu_points(request_in(dir, "batch=1,2"), false, import, out, err), 0);
  auto doc = json::parse(out.str());
  ASSERT_EQ(doc.at("points").size(), 2u);
  EXPECT_EQ(doc.at("points").at(1).at("status"), "ok");
  EXPECT_EQ(doc.at("points").at(1).at("csv"), dir + "/out/ncu-batch=2.csv");
  EXPECT_NE(err.str().find("[2/2]"), std::string::npos) << err.str();
}

TEST(NcuImportCommand, AFailedPointIsNamedAfterTheOthersAreImportedAndKept) {
  auto dir = fresh_dir("ncu-import-command-failed");
  report::NcuImportCommand import{.format = "json", .store = {.path = dir + "/ridge.db"}};
  std::ostringstream out, err;
  auto error = error_text([&] { report::run_ncu_points(request_in(dir, "batch=1,8"), true, import, out, err); });
  EXPECT_EQ(error, "1 of 2 ncu runs failed: batch=8 (the CSVs of the others are in " + dir + "/out and were imported)");
  auto doc = json::parse(out.str());
  std::map<std::string, double> times;
  for (const auto& k : doc.at("kernels")) times[k.at("name").get<std::string>()] = k.at("time_s").get<double>();
  ASSERT_EQ(times.size(), 2u) << out.str();
  EXPECT_NEAR(times.at("gemm_kernel"), 2e-6, 1e-12);
  EXPECT_NEAR(times.at("relu_kernel"), 5e-7, 1e-12);
  auto records = store::Store(dir + "/ridge.db", true).query({});
  ASSERT_EQ(records.size(), 1u);  // the one run that was written
  EXPECT_EQ(records[0].command, "import ncu");
  EXPECT_EQ(records[0].params.batch, 1);
}

}  // namespace
}  // namespace ridge::test
