// `ridge ops` (report/ops_report), in process: the document and the Markdown page agree on every op, the page is
// docs/ops.md, and the table's summary line counts the CSV's rows.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/command_output.h"
#include "report/ops_report.h"
#include "support/files.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

TEST(OpsReport, EveryOpIsARowOfTheDocumentAndThePage) {
  auto ops = exec::op_coverage();
  ASSERT_FALSE(ops.empty());
  auto doc = report::ops_document(ops);
  EXPECT_EQ(doc.command, "ops");
  ASSERT_EQ(doc.tables.size(), 1u);
  EXPECT_EQ(doc.tables[0].rows.size(), ops.size());
  auto page = report::ops_markdown(ops);
  EXPECT_EQ(page.rfind("# Ops covered by ridge's analytical model\n", 0), 0u);
  EXPECT_NE(page.find("| Conv | yes | yes | yes | yes |\n"), std::string::npos);
  EXPECT_NE(page.find("| Shape | yes | yes | yes | folds |\n"), std::string::npos);
  EXPECT_NE(page.find("| Unique | yes | no | yes | yes |\n"), std::string::npos);
  EXPECT_NE(page.find("| QLinearConv | yes | yes | yes | yes |\n"), std::string::npos);
  EXPECT_NE(page.find("| Loop | yes | yes | yes | rewrites |\n"), std::string::npos);
  EXPECT_EQ(page.substr(page.size() - exec::coverage_summary(ops).size() - 1), exec::coverage_summary(ops) + "\n");
}

TEST(OpsReport, OpsListMatchesDocs) {
  auto page = report::ops_markdown(exec::op_coverage());
  EXPECT_EQ(page, slurp(source_path("docs/ops.md")))
      << "docs/ops.md is stale: regenerate it with `ridge ops --markdown > docs/ops.md`";
  for (const char* op : {"Conv", "LSTM", "Attention", "LayerNormalization", "Einsum", "Loop"})
    EXPECT_NE(page.find(std::string("| ") + op + " | yes | yes |"), std::string::npos) << op;
}

// What `ridge ops -f FORMAT` prints.
std::string ops_text(const std::string& format) {
  std::ostringstream out;
  report::emit(report::ops_document(exec::op_coverage()), format, out);
  return out.str();
}

TEST(OpsReport, OpsSummaryCountsTheTable) {
  std::istringstream lines(ops_text("csv"));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "op,shape,cost,exec,gpu");
  size_t ops = 0, shape = 0, cost = 0, exec = 0, gpu = 0, folds = 0, rewrites = 0;
  std::vector<std::string> uncosted;
  while (std::getline(lines, line)) {
    ++ops;
    auto fields = line.substr(line.find(','));  // ",1,0,1,yes"
    shape += fields[1] == '1';
    cost += fields[3] == '1';
    exec += fields[5] == '1';
    gpu += fields.substr(7) == "yes";
    folds += fields.substr(7) == "folds";
    rewrites += fields.substr(7) == "rewrites";
    if (fields[3] == '0') uncosted.push_back(line.substr(0, line.find(',')));
  }
  auto table = ops_text("table");
  auto summary = table.substr(table.rfind('\n', table.size() - 2) + 1);
  EXPECT_EQ(summary, std::to_string(ops) + " ops: " + std::to_string(shape) + " with shape rules, " +
                         std::to_string(cost) + " with cost rules, " + std::to_string(exec) + " executable, " +
                         std::to_string(gpu) + " on the GPU (" + std::to_string(folds) + " more fold there, " +
                         std::to_string(rewrites) + " are rewritten there where known before the run).\n");
  EXPECT_EQ(rewrites, 11u);  // If, Loop, Scan and the eight sequence ops
  // Their work depends on the data: no cost rule, and named as such.
  EXPECT_EQ(uncosted, (std::vector<std::string>{"Compress", "NonMaxSuppression", "Unique"}));
}

}  // namespace
}  // namespace ridge::test
