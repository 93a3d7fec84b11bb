// profile/ncu_runs: what the runs of a sweep hand to the import, and the line naming the runs that failed. Running
// ncu itself, with fake ncu programs, is tests/cli/test_ncu_command.cpp's.
#include <gtest/gtest.h>

#include "profile/ncu_runs.h"
#include "util/error.h"

namespace ridge::test {
namespace {

profile::NcuRuns three_points_one_failed() {
  profile::NcuRunRequest request;
  request.ncu.program = {"./app", "--batch", "{batch}"};
  request.ncu.output_dir = "out";
  request.sweeps = {"batch=1,8,x"};
  profile::NcuRuns runs;
  runs.points = profile::ncu_points(request);
  runs.output_dir = "out";
  runs.written = {0, 2};
  runs.failed = {runs.points[1].label};
  return runs;
}

TEST(NcuRuns, WrittenCsvsGoToTheImportWithTheirLabelAndBatch) {
  auto runs = three_points_one_failed();
  profile::NcuImportRequest import;
  profile::add_written(runs, import);
  ASSERT_EQ(import.files.size(), 2u);
  EXPECT_EQ(import.files[0], runs.points[0].csv_path);
  EXPECT_EQ(import.files[1], runs.points[2].csv_path);
  EXPECT_EQ(import.run_labels, (std::vector<std::string>{"batch=1", "batch=x"}));
  EXPECT_EQ(import.batches, (std::vector<int64_t>{1, 0}));  // "x" is no batch
}

TEST(NcuRuns, TheFailureLineNamesTheFailedRunsAndWhereTheOthersAre) {
  auto runs = three_points_one_failed();
  EXPECT_EQ(profile::failure_message(runs, true),
            "1 of 3 ncu runs failed: batch=8 (the CSVs of the others are in out and were imported)");
  EXPECT_EQ(profile::failure_message(runs, false),
            "1 of 3 ncu runs failed: batch=8 (the CSVs of the others are in out)");
  runs.written.clear();
  EXPECT_EQ(profile::failure_message(runs, true), "1 of 3 ncu runs failed: batch=8");
}

TEST(NcuRuns, NcuIsLookedForBeforeTheSweepIsChecked) {
  profile::NcuRunRequest request;
  request.ncu.ncu = "/nowhere/ncu";
  request.ncu.program = {"./app"};
  request.sweeps = {"batch"};
  EXPECT_THROW(profile::ncu_points(request), Error);
  try {
    profile::run_ncu(request, [](const std::string&) {});
    ADD_FAILURE() << "ran without ncu";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ncu not found at /nowhere/ncu"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ridge::test
