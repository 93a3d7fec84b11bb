// report/results_report: merging stores (`ridge store merge`) in process, each result once, line by line.
#include <gtest/gtest.h>

#include <filesystem>

#include "report/results_report.h"
#include "store/store.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

TEST(ResultsReport, MergeCopiesEachResultOnceLineByLine) {
  auto dir = std::filesystem::path(temp_dir()) / "results-report-merge";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto a = (dir / "a.db").string(), b = (dir / "b.db").string(), out = (dir / "out.db").string();
  for (const auto& [path, count] : {std::pair{a, 2}, std::pair{b, 1}}) {
    store::Store s(path);
    for (int i = 0; i < count; ++i) {
      store::Record r;
      r.command = "bench";
      r.status = "ok";
      s.save(r);
    }
  }
  std::vector<std::string> lines;
  auto line = [&](const std::string& text) { lines.push_back(text); };
  report::merge_stores({a, b}, out, line);
  EXPECT_EQ(lines, (std::vector<std::string>{a + ": 2 results, 2 added, 0 already in " + out,
                                             b + ": 1 results, 1 added, 0 already in " + out,
                                             out + " now holds 3 results (3 added)"}));
  lines.clear();
  report::merge_stores({b}, out, line);  // again: nothing added
  EXPECT_EQ(lines.back(), out + " now holds 3 results (0 added)");
  EXPECT_EQ(report::holds_line("x.db", 1, 1), "x.db now holds 1 result (1 added)");
}

}  // namespace
}  // namespace ridge::test
