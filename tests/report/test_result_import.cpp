// `ridge results import` as one call (report/result_import): the real H200 bench file's runs saved once each (a second
// import adds nothing), a file that is no result saves nothing and creates no store, and the lines people read.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "report/result_import.h"
#include "support/error_text.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

TEST(ResultImport, EachRunOnceAndABadFileSavesNothing) {
  auto dir = temp_dir() + "/result-import";
  std::filesystem::create_directories(dir);
  auto store = dir + "/ridge.db";
  auto bench = source_path("tests/data/bench/h200/ridge-bench-resnet50.json");
  auto runs = report::import_records(bench).records.size();
  ASSERT_GT(runs, 1u);

  auto bad = dir + "/not-a-result.json";
  std::ofstream(bad) << R"({"hello": 1})";
  EXPECT_NE(error_text([&] { report::import_files({bench, bad}, store); }), "accepted");
  EXPECT_FALSE(std::filesystem::exists(store)) << "a bad file must save nothing";

  auto first = report::import_files({bench}, store);
  ASSERT_EQ(first.files.size(), 1u);
  EXPECT_EQ(first.files[0].command, "bench");
  EXPECT_EQ(first.files[0].results, runs);
  EXPECT_EQ(first.files[0].added, static_cast<int64_t>(runs));
  EXPECT_EQ(first.held, static_cast<int64_t>(runs));
  auto again = report::import_files({bench}, store);
  EXPECT_EQ(again.files[0].added, 0);
  EXPECT_EQ(again.held, static_cast<int64_t>(runs));
  // The H200 runs were written before bench recorded each run's time: they carry the import's.
  EXPECT_EQ(again.files[0].untimed, runs);
  EXPECT_EQ(report::import_line(again.files[0], store),
            fmt::format("{}: {} results, 0 added, {} already in {} (the file records no run times: stored with the "
                        "import's)",
                        bench, runs, runs, store));
}

TEST(ResultImport, TheLineSaysWhyAResultCarriesTheImportsTime) {
  report::FileImport bench{.path = "old.json", .command = "bench", .results = 1, .untimed = 1, .added = 1};
  EXPECT_EQ(report::import_line(bench, "s.db"),
            "old.json: 1 result, 1 added, 0 already in s.db (the file records no run times: stored with the import's)");
  report::FileImport prediction{.path = "p.json", .command = "predict", .results = 3, .untimed = 3, .added = 2};
  EXPECT_EQ(report::import_line(prediction, "s.db"),
            "p.json: 3 results, 2 added, 1 already in s.db (a prediction records no time: stored with the import's)");
  prediction.untimed = 0;
  EXPECT_EQ(report::import_line(prediction, "s.db"), "p.json: 3 results, 2 added, 1 already in s.db");
}

TEST(ResultImport, IntoStoreHandsOnALinePerFileThenTheTotal) {
  auto dir = temp_dir() + "/result-import-lines";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto store = dir + "/ridge.db";
  auto bench = source_path("tests/data/bench/h200/ridge-bench-resnet50.json");
  auto runs = report::import_records(bench).records.size();
  std::vector<std::string> lines;
  auto line = [&](const std::string& text) { lines.push_back(text); };
  report::import_into_store({bench, bench}, store, line);  // the second copy adds nothing
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind(fmt::format("{}: {} results, {} added, 0 already in {}", bench, runs, runs, store), 0), 0u)
      << lines[0];
  EXPECT_EQ(lines[1].rfind(fmt::format("{}: {} results, 0 added, {} already in {}", bench, runs, runs, store), 0), 0u)
      << lines[1];
  EXPECT_EQ(lines[2], fmt::format("{} now holds {} results ({} added)", store, runs, runs));
}

}  // namespace
}  // namespace ridge::test
