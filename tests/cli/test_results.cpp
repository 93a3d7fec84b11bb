// The results store through the real binary: what only the binary does (the command line each result records is its
// argv, the exit codes and one-line errors of the store options) and a smoke run of `ridge results`, `results import`
// and `store merge`. What the store holds, lists, shows, exports, merges and imports is checked in process in
// tests/report/test_results_report.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/files.h"
#include "support/one_line_error.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

using json = nlohmann::json;

// `ridge results ... -f json` parsed; fails the test unless it exits 0 with JSON.
json results_json(const std::string& args) {
  auto r = run_ridge("results " + args + " -f json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(json::accept(r.out)) << r.out;
  if (!json::accept(r.out)) return json::object();
  return json::parse(r.out);
}

void expect_one_line(const std::string& text) {
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "not one line: " << text;
}

// Each result records the command line the binary was given (main's argv), and `ridge results` lists and shows them.
TEST(ResultsCli, EachResultRecordsTheCommandLineItWasGiven) {
  auto store = fresh_dir("argv") + "/s.db";
  auto model = model_path("alexnet");
  auto analyze = run_ridge("analyze " + model + " --summary --store " + store);
  ASSERT_EQ(analyze.exit_code, 0) << analyze.err;
  auto predict = run_ridge("predict " + model + " --device t4 --store " + store);
  ASSERT_EQ(predict.exit_code, 0) << predict.err;
  auto listing = results_json("--store " + store);
  const auto& results = listing["results"];
  ASSERT_EQ(results.size(), 2u) << listing.dump(2);
  const std::vector<std::string> commands{"analyze", "predict"};
  for (size_t i = 0; i < 2; ++i) {
    auto command_line = results[i]["command_line"].get<std::string>();
    EXPECT_EQ(results[i]["command"], commands[i]);
    EXPECT_NE(command_line.find(" " + commands[i] + " "), std::string::npos) << command_line;
    EXPECT_NE(command_line.find("--store " + store), std::string::npos) << command_line;
  }
  auto table = run_ridge("results --store " + store + " --id 1 --show");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("result 1 (analyze, ", 0), 0u) << table.out;
}

TEST(ResultsCli, StoreAndNoStoreTogetherAreAUsageError) {
  auto store = fresh_dir("both") + "/s.db";
  auto both = run_ridge("analyze " + model_path("alexnet") + " --store " + store + " --no-store");
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_FALSE(std::filesystem::exists(store));
}

TEST(ResultsCli, MissingStoreExitsOneWithOneLine) {
  auto missing = fresh_dir("missing") + "/absent.db";
  auto r = run_ridge("results --store " + missing);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  expect_one_line(r.err);
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(missing));
}

// The result is printed on stdout, then the exit code says it was not kept.
TEST(ResultsCli, UnwritableStoreExitsOneAfterPrintingTheResult) {
  auto store = fresh_dir("unwritable") + "/no/such/dir/s.db";
  auto r = run_ridge("analyze " + model_path("alexnet") + " --summary -f json --store " + store);
  EXPECT_EQ(r.exit_code, 1);
  ASSERT_TRUE(json::accept(r.out)) << r.out;
  EXPECT_TRUE(json::parse(r.out).contains("totals")) << r.out;
  expect_one_line(r.err);
  EXPECT_NE(r.err.find("not saved"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(store));
}

// `ridge results import` and `ridge store merge` through the binary: their lines on stdout, a refusal on stderr.
TEST(ResultsCli, ImportAndMergeSmoke) {
  auto dir = fresh_dir("import-merge");
  auto store = dir + "/imported.db";
  auto file = source_path("tests/data/bench/h200/ridge-bench-resnet50.json");
  auto first = run_ridge("results import " + file + " --store " + store);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("4 results, 4 added, 0 already in"), std::string::npos) << first.out;
  auto merged = dir + "/merged.db";
  auto merge = run_ridge("store merge " + store + " -o " + merged);
  ASSERT_EQ(merge.exit_code, 0) << merge.err;
  EXPECT_NE(merge.out.find(merged + " now holds 4 results (4 added)"), std::string::npos) << merge.out;
  auto self = run_ridge("store merge " + merged + " -o " + merged);
  EXPECT_EQ(self.exit_code, 1);
  expect_one_line(self.err);
  EXPECT_NE(self.err.find("itself"), std::string::npos) << self.err;
}

// A directory a user may point at by mistake: one line each, naming it (an ert document of an older revision:
// tests/report/test_results_report.cpp).
TEST(ResultsCli, ADirectoryIsOneLine) {
  auto dir = temp_dir();
  auto import_dir = run_ridge("results import " + dir + " --store " + dir + "/s.db");  // CLI11 refuses it: usage, 2
  EXPECT_EQ(import_dir.exit_code, 2);
  EXPECT_EQ(import_dir.err.find('\n'), import_dir.err.size() - 1) << import_dir.err;
  EXPECT_NE(import_dir.err.find("directory"), std::string::npos) << import_dir.err;
  expect_one_line_error(run_ridge("plot roofline " + model_path("alexnet") + " --device h100-sxm --measured " + dir +
                                  " -o " + dir + "/r.svg"),
                        "is a directory");
}

}  // namespace
}  // namespace ridge::test
