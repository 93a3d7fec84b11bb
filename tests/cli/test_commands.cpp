// The command line end to end on bundled models: --help, a missing command, and a smoke run of analyze, graph and
// ops. What they print (formats, sweeps, training, the graph as text and dot, the ops table and docs/ops.md) is checked
// in process in tests/report/test_analysis_report.cpp, test_graph_report.cpp and test_ops_report.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/paths.h"

namespace ridge::test {
namespace {

TEST(Cli, AnalyzeSmoke) {
  auto r = run_ridge("analyze " + model_path("resnet50") + " --batch 2 --format json --summary");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["inputs"]["input"], "2x3x224x224");
  EXPECT_EQ(doc["totals"]["macs"].get<int64_t>(), 2 * 4089184256LL);
}

TEST(Cli, GraphSmoke) {
  auto text = run_ridge("graph " + model_path("alexnet"));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("1x64x55x55"), std::string::npos);
}

TEST(Cli, OpsSmoke) {
  auto r = run_ridge("ops --markdown");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("# Ops covered by ridge's analytical model\n", 0), 0u) << r.out.substr(0, 200);
}

TEST(Cli, HelpAndVersion) {
  EXPECT_EQ(run_ridge("--help").exit_code, 0);
  auto help = run_ridge("analyze --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--sweep"), std::string::npos);
  EXPECT_NE(run_ridge("").exit_code, 0);
}

}  // namespace
}  // namespace ridge::test
