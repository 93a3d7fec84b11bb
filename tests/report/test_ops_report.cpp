// `ridge ops` (report/ops_report), in process: the document and the Markdown page agree on every op.
#include <gtest/gtest.h>

#include "report/ops_report.h"

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
  EXPECT_NE(page.find("| Conv | yes | yes | yes |\n"), std::string::npos);
  EXPECT_EQ(page.substr(page.size() - exec::coverage_summary(ops).size() - 1), exec::coverage_summary(ops) + "\n");
}

}  // namespace
}  // namespace ridge::test
