// `ridge analyze --sweep` as one call (report::analyze_sweep), in process: one typed point per value, and a sweep of
// what the options already bind refused; and `ridge analyze` printed and kept (report::analyze_and_keep): the
// documented JSON names with ResNet-50's exact MACs, training totals, a sweep as CSV, the table, Markdown and a
// half-precision analysis. tests/cli/test_commands.cpp keeps a smoke run through the binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

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

// What `ridge analyze MODEL [options] -f FORMAT --no-store` prints.
std::string analyzed(const analysis::ModelOptions& model, const std::string& format, bool summary = false,
                     const std::string& sweep = "") {
  report::AnalyzeCommand c{.model = model, .sweep = sweep, .summary = summary, .format = format};
  c.store.disabled = true;
  std::ostringstream out;
  report::analyze_and_keep(c, out);
  return out.str();
}

TEST(AnalysisReport, JsonKeepsDocumentedNames) {
  auto doc = nlohmann::json::parse(analyzed({.model = model_path("resnet50"), .batch = 2}, "json"));
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

TEST(AnalysisReport, TrainingJson) {
  auto doc = nlohmann::json::parse(
      analyzed({.model = model_path("mobilenet_v2"), .training = true, .optimizer = "adam"}, "json"));
  const auto& t = doc["training"];
  EXPECT_EQ(t["optimizer_flops"].get<int64_t>(), 14 * doc["totals"]["params"].get<int64_t>());
  EXPECT_GT(t["backward_flops"].get<int64_t>(), t["forward_flops"].get<int64_t>());
  EXPECT_EQ(t["flops"].get<int64_t>(), t["forward_flops"].get<int64_t>() + t["backward_flops"].get<int64_t>() +
                                           t["optimizer_flops"].get<int64_t>());
}

TEST(AnalysisReport, SweepCsvHasOneRowPerPoint) {
  auto out = analyzed({.model = model_path("resnet50")}, "csv", false, "batch=1,2,4,8");
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < out.size()) {
    auto end = out.find('\n', pos);
    lines.push_back(out.substr(pos, end - pos));
    pos = end + 1;
  }
  ASSERT_EQ(lines.size(), 5u);
  // One output layer: the same quantity has one name in every CSV (flops, as in the per-node CSV).
  EXPECT_EQ(lines[0].substr(0, 12), "batch,flops,");
  EXPECT_EQ(lines[4].substr(0, 2), "8,");
}

TEST(AnalysisReport, TableAndMarkdownAndDtype) {
  auto table = analyzed({.model = model_path("alexnet")}, "table");
  EXPECT_NE(table.find("per op type:"), std::string::npos);
  EXPECT_NE(table.find("714188480"), std::string::npos);  // exact MACs in the totals
  auto md = analyzed({.model = model_path("alexnet")}, "md", true);
  EXPECT_NE(md.find("| MACs | 714 M | 714188480 |"), std::string::npos) << md;
  auto half = nlohmann::json::parse(
      analyzed({.model = model_path("alexnet"), .dtype = "fp16", .weight_dtype = "fp16"}, "json", true));
  auto full = nlohmann::json::parse(analyzed({.model = model_path("alexnet")}, "json", true));
  EXPECT_EQ(2 * half["totals"]["bytes"].get<int64_t>(), full["totals"]["bytes"].get<int64_t>());
}

}  // namespace
}  // namespace ridge::test
