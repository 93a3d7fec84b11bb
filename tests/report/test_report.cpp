// The output layer: one document printed by every printer, checked cell by cell.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/document.h"
#include "report/format.h"
#include "report/printer.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using report::Column;
using report::Document;
using report::Style;
using report::Table;
using report::Value;

// A small document with every kind of cell: exact integers, reals, text needing CSV quotes, a
// missing value, a human-only and a JSON-only column, a dotted JSON path and a nested table.
Document sample() {
  Document doc;
  doc.command = "test";
  doc.subject = "m.onnx";
  doc.field("model", "model", "m.onnx (2 nodes)", {{"path", "m.onnx"}});
  auto& t = doc.table("nodes", "per node:");
  t.column({.key = "name", .title = "node"})
      .column({.key = "flops", .title = "FLOPs", .style = Style::kSi})
      .column({.key = "mean_ms", .style = Style::kFixed, .decimals = 2, .json_path = "latency_ms.mean"})
      .column({.key = "label", .audience = report::kHuman})
      .column({.key = "detail", .audience = report::kJson})
      .column({.key = "optimizer"});
  auto inner = std::make_shared<Table>();
  inner->key = "detail";
  inner->layout = Table::Layout::kList;
  inner->column({.key = "x"});
  inner->add({int64_t{7}}).add({int64_t{8}});
  t.add({std::string("conv, \"first\""), int64_t{4089184256}, 1.5, std::string("L"),
         std::shared_ptr<const Table>(inner), std::string("adam")});
  t.add({std::string("relu"), int64_t{0}, 0.25, std::string("M"), Value{}, Value{}});
  auto& totals = doc.table("totals", "totals:", Table::Layout::kRecord);
  totals.column({.key = "flops", .title = "FLOPs", .style = Style::kSi})
      .column({.key = "intensity", .style = Style::kFixed, .unit = "FLOP/B", .decimals = 2});
  totals.add({int64_t{4089184256}, 24.372});
  doc.notes.push_back("random weights");
  return doc;
}

std::string printed(const Document& doc, report::Format format) {
  std::ostringstream out;
  report::print(out, doc, format);
  return out.str();
}

TEST(Report, JsonKeepsExactIntegersNestsDottedPathsAndOmitsMissingValues) {
  auto doc = nlohmann::json::parse(printed(sample(), report::Format::kJson));
  EXPECT_EQ(doc["model"]["path"], "m.onnx");
  ASSERT_EQ(doc["nodes"].size(), 2u);
  EXPECT_EQ(doc["nodes"][0]["flops"].get<int64_t>(), 4089184256);
  EXPECT_DOUBLE_EQ(doc["nodes"][0]["latency_ms"]["mean"].get<double>(), 1.5);
  EXPECT_EQ(doc["nodes"][0]["detail"], nlohmann::json::array({7, 8}));
  EXPECT_FALSE(doc["nodes"][0].contains("label"));  // people only
  EXPECT_FALSE(doc["nodes"][1].contains("optimizer"));
  EXPECT_EQ(doc["totals"]["flops"].get<int64_t>(), 4089184256);
  EXPECT_EQ(doc["notes"][0], "random weights");
}

TEST(Report, CsvHasRawValuesQuotedTextAndEmptyMissingCells) {
  auto csv = printed(sample(), report::Format::kCsv);
  EXPECT_EQ(csv,
            "name,flops,mean_ms,optimizer\n"
            "\"conv, \"\"first\"\"\",4089184256,1.5,adam\n"
            "relu,0,0.25,\n");
}

TEST(Report, TableShowsRoundedValuesAndRecordsWithTheirExactValue) {
  auto text = printed(sample(), report::Format::kTable);
  EXPECT_NE(text.find("model: m.onnx (2 nodes)"), std::string::npos) << text;
  EXPECT_NE(text.find("4.09 G"), std::string::npos) << text;
  EXPECT_NE(text.find("1.50"), std::string::npos) << text;
  EXPECT_EQ(text.find("latency_ms"), std::string::npos) << text;
  // The record: quantity, rounded value, exact integer.
  auto line = text.substr(text.find("\nFLOPs ") + 1);
  line = line.substr(0, line.find('\n'));
  EXPECT_NE(line.find(" 4.09 G  4089184256"), std::string::npos) << line;
  EXPECT_NE(text.find("24.37 FLOP/B"), std::string::npos) << text;
  EXPECT_NE(text.find("note: random weights"), std::string::npos) << text;
}

TEST(Report, MarkdownHasOneTablePerSection) {
  auto md = printed(sample(), report::Format::kMarkdown);
  EXPECT_EQ(md.rfind("# ridge test: `m.onnx`", 0), 0u) << md;
  EXPECT_NE(md.find("## Per node"), std::string::npos) << md;
  EXPECT_NE(md.find("| node | FLOPs | mean_ms | label | optimizer |"), std::string::npos) << md;
  EXPECT_NE(md.find("| FLOPs | 4.09 G | 4089184256 |"), std::string::npos) << md;
}

TEST(Report, LongListsAreCutAtAnItemWithTheCountLeftOut) {
  EXPECT_EQ(report::cut_list("a, b, c", 300), "a, b, c");
  std::string kernels;
  for (int i = 0; i < 100; ++i) kernels += (i ? ", " : "") + fmt::format("kernel_{:02}", i);  // 100 x 9 + 99 x 2
  auto cut = report::cut_list(kernels, 50);
  // Items of 9 characters and ", ": four whole items fit in 50 (4 x 9 + 3 x 2 = 42), the fifth would end at 53.
  EXPECT_EQ(cut, "kernel_00, kernel_01, kernel_02, kernel_03, ... (96 more)");
  // No list to cut at: characters.
  EXPECT_EQ(report::cut_list(std::string(60, 'x'), 50), std::string(50, 'x') + " ... (10 more characters)");
}

TEST(Report, EveryFormatNameParsesAndUnknownOnesAreRefused) {
  for (const auto& name : report::format_names()) EXPECT_NO_THROW(report::parse_format(name));
  EXPECT_THROW(report::parse_format("xml"), Error);
}

TEST(Report, RowsOfTheWrongWidthAreABuilderBug) {
  Table t;
  t.column({.key = "a"});
  EXPECT_THROW(t.add({int64_t{1}, int64_t{2}}), Error);
}

TEST(Report, CsvFilesAppendWithOneHeaderAndRefuseAnotherLayout) {
  auto dir = temp_dir() + "/append";
  std::filesystem::remove_all(dir);
  Table t;
  t.column({.key = "batch"}).column({.key = "mean_ms"});
  t.add({int64_t{1}, 2.5});
  report::append_csv_file(dir, "overall.csv", t);
  report::append_csv_file(dir, "overall.csv", t);
  std::ifstream in(dir + "/overall.csv");
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), "batch,mean_ms\n1,2.5\n1,2.5\n");
  Table other;
  other.column({.key = "batch"});
  other.add({int64_t{1}});
  EXPECT_THROW(report::append_csv_file(dir, "overall.csv", other), Error);
}

}  // namespace
}  // namespace ridge::test
