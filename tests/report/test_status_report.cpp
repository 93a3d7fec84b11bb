// `ridge sweep`'s summary as a document (report/status_report): the counts, the overhead per cell run, the
// failures table people see only when a cell failed.
#include <gtest/gtest.h>

#include "report/status_report.h"

namespace ridge::test {
namespace {

const report::Field& field(const report::Document& doc, const std::string& key) {
  for (const auto& f : doc.fields)
    if (f.key == key) return f;
  throw std::runtime_error("no field " + key);
}

TEST(SweepSummary, CountsOverheadAndFailures) {
  sweep::Matrix matrix;
  matrix.name = "study";
  matrix.file = "study.yaml";
  sweep::RunSummary s;
  s.cells = 6, s.skipped = 2, s.done = 3, s.failed = 1;
  s.seconds = 10, s.cell_seconds = 8;  // 2 s of the sweep's own over 4 cells run
  s.failures = {{"bench resnet50 batch=8", "exit code 1"}};
  auto doc = report::sweep_summary_document(matrix, "quick", "2/8", "ridge.db", s);
  EXPECT_EQ(doc.command, "sweep");
  EXPECT_EQ(doc.subject, "study");
  EXPECT_EQ(field(doc, "sweep").text, "study (study.yaml)");
  EXPECT_EQ(field(doc, "stage").text, "quick, shard 2/8");
  EXPECT_EQ(field(doc, "stage").json, "quick");
  EXPECT_EQ(field(doc, "cells").json, 6);
  EXPECT_EQ(field(doc, "skipped").json, 2);
  EXPECT_EQ(field(doc, "done").json, 3);
  EXPECT_EQ(field(doc, "failed").json, 1);
  EXPECT_DOUBLE_EQ(field(doc, "overhead_per_cell_s").json.get<double>(), 0.5);
  EXPECT_EQ(field(doc, "overhead_per_cell_s").text, "500.000 ms");
  const auto* t = doc.find("failures");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(t->rows[0][1]), "exit code 1");
  EXPECT_EQ(t->audience, report::kEveryone);
  EXPECT_EQ(doc.csv_table, "failures");

  // Nothing run now: no overhead to show, and people see no empty failures table.
  sweep::RunSummary stored;
  stored.cells = stored.skipped = 4;
  auto again = report::sweep_summary_document(matrix, "full", "", "ridge.db", stored);
  EXPECT_EQ(field(again, "stage").text, "full");
  EXPECT_EQ(field(again, "overhead_per_cell_s").text, "-");
  EXPECT_EQ(again.find("failures")->audience, report::kJson);
}

}  // namespace
}  // namespace ridge::test
