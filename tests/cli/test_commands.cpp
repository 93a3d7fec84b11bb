// The command line end to end on bundled models: formats, sweeps, graph output.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "support/paths.h"

namespace ridge::test {
namespace {

TEST(Cli, AnalyzeJsonKeepsDocumentedNames) {
  auto r = run_ridge("analyze " + model_path("resnet50") + " --batch 2 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  for (const char* key : {"flops", "macs", "params", "bytes", "bytes_fused", "bytes_min", "peak_activation_bytes"})
    EXPECT_TRUE(doc["totals"].contains(key)) << key;
  EXPECT_TRUE(doc["unknown_ops"].is_object());
  EXPECT_EQ(doc["nodes"].size(), doc["model"]["nodes"].get<size_t>());
  EXPECT_EQ(doc["inputs"]["input"], "2x3x224x224");
  EXPECT_EQ(doc["totals"]["macs"].get<int64_t>(), 2 * 4089184256LL);
  int64_t sum = 0;
  for (const auto& n : doc["nodes"]) sum += n["flops"].get<int64_t>();
  EXPECT_EQ(sum, doc["totals"]["flops"].get<int64_t>());
}

TEST(Cli, TrainingJson) {
  auto r = run_ridge("analyze " + model_path("mobilenet_v2") + " --training --optimizer adam --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  const auto& t = doc["training"];
  EXPECT_EQ(t["optimizer_flops"].get<int64_t>(), 14 * doc["totals"]["params"].get<int64_t>());
  EXPECT_GT(t["backward_flops"].get<int64_t>(), t["forward_flops"].get<int64_t>());
  EXPECT_EQ(t["flops"].get<int64_t>(), t["forward_flops"].get<int64_t>() + t["backward_flops"].get<int64_t>() +
                                           t["optimizer_flops"].get<int64_t>());
}

TEST(Cli, SweepCsvHasOneRowPerPoint) {
  auto r = run_ridge("analyze " + model_path("resnet50") + " --sweep batch=1,2,4,8 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < r.out.size()) {
    auto end = r.out.find('\n', pos);
    lines.push_back(r.out.substr(pos, end - pos));
    pos = end + 1;
  }
  ASSERT_EQ(lines.size(), 5u);
  // One output layer: the same quantity has one name in every CSV (flops, as in the per-node CSV).
  EXPECT_EQ(lines[0].substr(0, 12), "batch,flops,");
  EXPECT_EQ(lines[4].substr(0, 2), "8,");
}

TEST(Cli, TableAndMarkdownAndDtype) {
  auto table = run_ridge("analyze " + model_path("alexnet"));
  ASSERT_EQ(table.exit_code, 0);
  EXPECT_NE(table.out.find("per op type:"), std::string::npos);
  EXPECT_NE(table.out.find("714188480"), std::string::npos);  // exact MACs in the totals
  auto md = run_ridge("analyze " + model_path("alexnet") + " --format md --summary");
  EXPECT_NE(md.out.find("| MACs | 714 M | 714188480 |"), std::string::npos) << md.out;
  auto half =
      run_ridge("analyze " + model_path("alexnet") + " --dtype fp16 --weight-dtype fp16 --format json --summary");
  auto full = run_ridge("analyze " + model_path("alexnet") + " --format json --summary");
  auto h = nlohmann::json::parse(half.out), f = nlohmann::json::parse(full.out);
  EXPECT_EQ(2 * h["totals"]["bytes"].get<int64_t>(), f["totals"]["bytes"].get<int64_t>());
}

TEST(Cli, GraphTextAndDot) {
  auto text = run_ridge("graph " + model_path("alexnet"));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("= Conv("), std::string::npos);
  EXPECT_NE(text.out.find("1x64x55x55"), std::string::npos);
  auto dot = run_ridge("graph " + model_path("alexnet") + " --dot");
  ASSERT_EQ(dot.exit_code, 0);
  EXPECT_EQ(dot.out.rfind("digraph model {", 0), 0u);
  EXPECT_NE(dot.out.find("->"), std::string::npos);
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

namespace ridge::test {
namespace {

TEST(Cli, OpsListMatchesDocs) {
  auto r = run_ridge("ops --markdown");
  ASSERT_EQ(r.exit_code, 0);
  std::ifstream in(source_path("docs/ops.md"));
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_EQ(r.out, doc.str()) << "docs/ops.md is stale: regenerate it with `ridge ops --markdown > docs/ops.md`";
  for (const char* op : {"Conv", "LSTM", "Attention", "LayerNormalization", "Einsum", "Loop"})
    EXPECT_NE(r.out.find(std::string("| ") + op + " | yes | yes |"), std::string::npos) << op;
}

TEST(Cli, OpsSummaryCountsTheTable) {
  auto csv = run_ridge("ops -f csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "op,shape,cost,exec");
  size_t ops = 0, shape = 0, cost = 0, exec = 0;
  std::vector<std::string> uncosted;
  while (std::getline(lines, line)) {
    ++ops;
    auto fields = line.substr(line.find(','));  // ",1,0,1"
    shape += fields[1] == '1';
    cost += fields[3] == '1';
    exec += fields[5] == '1';
    if (fields[3] == '0') uncosted.push_back(line.substr(0, line.find(',')));
  }
  auto table = run_ridge("ops");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  auto summary = table.out.substr(table.out.rfind('\n', table.out.size() - 2) + 1);
  EXPECT_EQ(summary, std::to_string(ops) + " ops: " + std::to_string(shape) + " with shape rules, " +
                         std::to_string(cost) + " with cost rules, " + std::to_string(exec) + " executable.\n");
  // Their work depends on the data: no cost rule, and named as such.
  EXPECT_EQ(uncosted, (std::vector<std::string>{"Compress", "NonMaxSuppression", "Unique"}));
}

}  // namespace
}  // namespace ridge::test
