// report/results_report in process: merging stores (`ridge store merge`), each result once, line by line; and
// `ridge results --show` and `--export` of what a filter selects.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "report/command_output.h"
#include "report/document_codec.h"
#include "report/results_report.h"
#include "store/store.h"
#include "support/error_text.h"
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

// A store with an ok analyze result (its document says "hello"), a failed bench cell and an ok predict result.
std::string three_results(const std::string& name) {
  auto dir = std::filesystem::path(temp_dir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto path = (dir / "ridge.db").string();
  store::Store s(path);
  report::Document doc;
  doc.command = "analyze";
  doc.field("greeting", "greeting", "hello", "hello");
  store::Record analyze{.command = "analyze", .status = "ok"}, failed{.command = "bench", .status = "failed"},
      predict{.command = "predict", .status = "ok"};
  analyze.document = report::encode_document(doc);
  analyze.environment.created_at = "2026-11-27T10:00:00Z";
  failed.error = "out of memory";
  doc.command = "predict";
  predict.document = report::encode_document(doc);
  s.save(analyze);
  s.save(failed);
  s.save(predict);
  return path;
}

TEST(ResultsReport, ShowPrintsEachSelectedDocumentAfterItsLine) {
  report::ResultsRequest r{.store_path = three_results("results-report-show"), .show = true};
  r.filter.ids = {1, 2};
  std::ostringstream table;
  report::print_results(r, table);
  auto text = table.str();
  EXPECT_EQ(text.rfind("result 1 (analyze, 2026-11-27T10:00:00Z):\n", 0), 0u) << text;
  EXPECT_NE(text.find("hello"), std::string::npos) << text;
  EXPECT_NE(text.find("result 2: bench failed: out of memory\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("predict"), std::string::npos) << "result 3 was not selected: " << text;
  r.format = "json";  // no line before a document a program reads
  r.filter.ids = {1};
  std::ostringstream json;
  report::print_results(r, json);
  EXPECT_EQ(json.str().find("result 1"), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\"hello\""), std::string::npos) << json.str();
}

TEST(ResultsReport, ShowAndExportRefuseWhatSelectsNothing) {
  report::ResultsRequest r{.store_path = three_results("results-report-none"), .show = true};
  r.filter.command = "compare";
  std::ostringstream out;
  EXPECT_EQ(error_text([&] { report::print_results(r, out); }), "no stored result matches");
  r.show = false;
  r.export_dir = temp_dir() + "/results-report-none/export";
  r.filter.command.clear();  // no bench result is ok: nothing to export
  EXPECT_EQ(error_text([&] { report::print_results(r, out); }), "no stored bench result matches: nothing to export");
  EXPECT_EQ(out.str(), "");
  r.export_dir.clear();  // the list
  report::print_results(r, out);
  EXPECT_NE(out.str().find("predict"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace ridge::test
