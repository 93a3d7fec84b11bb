// `ridge analyze --sweep` as one call (report::analyze_sweep), in process: one typed point per value, and a sweep of
// what the options already bind refused.
#include <gtest/gtest.h>

#include "report/analysis_report.h"
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

}  // namespace
}  // namespace ridge::test
