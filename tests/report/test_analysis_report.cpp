// `ridge analyze --sweep` as one call (report::analyze_sweep), in process: one typed point per value, and a sweep of
// what the options already bind refused; and `ridge analyze` printed and kept (report::analyze_and_keep).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/analysis_report.h"
#include "report/result_codec.h"
#include "store/store.h"
#include "support/error_text.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

TEST(AnalysisReport, ASweepAnalysesEveryValue) {
  analysis::Request request;
  request.model_path = model_path("alexnet");
  auto sweep = report::analyze_sweep(request, "batch=1,2");
  EXPECT_EQ(sweep.key, "batch");
  ASSERT_EQ(sweep.analyses.size(), 2u);
  EXPECT_FALSE(sweep.analyses[0].with_nodes);
  // Twice the batch, twice the work.
  EXPECT_NEAR(sweep.analyses[1].cost.totals.flops, 2 * sweep.analyses[0].cost.totals.flops,
              1e-9 * sweep.analyses[1].cost.totals.flops);
  request.bindings.batch = 8;
  EXPECT_EQ(error_text([&] { report::analyze_sweep(request, "batch=1,2"); }),
            "--sweep batch=... and --batch 8 both set the batch: give one");
}

std::string fresh_store(const std::string& name) {
  auto dir = std::filesystem::path(temp_dir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return (dir / "ridge.db").string();
}

TEST(AnalysisReport, OneAnalysisIsPrintedAsItsCodecAndKeptWithTheBatchItBound) {
  report::AnalyzeCommand c{.format = "json", .store = {.path = fresh_store("analyze-and-keep")}};
  c.model.model = model_path("alexnet");
  c.model.batch = 4;
  c.summary = true;
  std::ostringstream out;
  report::analyze_and_keep(c, out);
  auto printed = nlohmann::json::parse(out.str());
  auto decoded = analysis::decode_analyses(printed, "out");
  ASSERT_EQ(decoded.size(), 1u);
  EXPECT_FALSE(decoded[0].with_nodes) << "--summary keeps no per-node rows";
  EXPECT_FALSE(printed.contains("nodes"));
  auto records = store::Store(c.store.path, true).query({});
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].command, "analyze");
  EXPECT_EQ(records[0].params.model, model_path("alexnet"));
  EXPECT_EQ(records[0].params.batch, 4);
  auto typed = report::decode_typed(records[0].result, "store");
  ASSERT_EQ(typed.analyses.size(), 1u);
  EXPECT_EQ(typed.analyses[0].cost.totals.flops, decoded[0].cost.totals.flops);
}

TEST(AnalysisReport, ASweepIsKeptAsOneResultOfItsPointsAndRefusesSummary) {
  report::AnalyzeCommand c{.sweep = "batch=1,2", .format = "csv", .store = {.path = fresh_store("analyze-sweep-keep")}};
  c.model.model = model_path("alexnet");
  std::ostringstream out;
  report::analyze_and_keep(c, out);
  EXPECT_FALSE(out.str().empty());
  auto records = store::Store(c.store.path, true).query({});
  ASSERT_EQ(records.size(), 1u);
  EXPECT_FALSE(records[0].params.batch) << "a sweep's batch is each point's";
  auto typed = report::decode_typed(records[0].result, "store");
  EXPECT_EQ(typed.sweep, "batch");
  ASSERT_EQ(typed.analyses.size(), 2u);
  EXPECT_NEAR(typed.analyses[1].cost.totals.flops, 2 * typed.analyses[0].cost.totals.flops,
              1e-9 * typed.analyses[1].cost.totals.flops);
  c.summary = true;
  EXPECT_EQ(error_text([&] { report::analyze_and_keep(c, out); }),
            "--summary applies to one analysis; a sweep prints one row of totals per point already");
}

}  // namespace
}  // namespace ridge::test
