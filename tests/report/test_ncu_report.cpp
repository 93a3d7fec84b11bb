// report/ncu_report: what the store keeps with each run of an Nsight Compute import, in process.
#include <gtest/gtest.h>

#include "report/ncu_report.h"

namespace ridge::test {
namespace {

// Each run is a result of its own: its batch is the run's own, else the model's at the import's default batch.
TEST(NcuReport, EachRunsParamsNameItsBatch) {
  profile::NcuImportRequest request;
  request.device = "h200";
  profile::NcuImport import;
  import.runs.resize(2);
  import.runs[0].batch = 8;
  auto p = report::ncu_run_params(request, import, 0);
  EXPECT_EQ(p.device, "h200");
  EXPECT_EQ(p.batch, 8);
  EXPECT_FALSE(report::ncu_run_params(request, import, 1).batch);  // no model: the batch is unknown
  request.model = "m.onnx";
  import.model[0].batch = 4;
  auto q = report::ncu_run_params(request, import, 1);
  EXPECT_EQ(q.model, "m.onnx");
  EXPECT_EQ(q.batch, 4);
}

}  // namespace
}  // namespace ridge::test
