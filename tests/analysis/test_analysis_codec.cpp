// The analysis codec (analysis/analysis_codec): it writes exactly what the analysis document prints as JSON, for
// bundled models inference and training, summaries, sweeps and a model with ops ridge cannot cost; what it writes
// decodes to the same cost, field by field, and encodes again to the same text; bad files get one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/analysis_codec.h"
#include "analysis/run.h"
#include "report/analysis_report.h"
#include "report/printer.h"
#include "support/error_text.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using nlohmann::json;

analysis::Request request_for(const std::string& model, int64_t batch, bool training = false) {
  analysis::Request request;
  request.model_path = model_path(model);
  request.bindings.batch = batch;
  request.options.training = training;
  if (training) request.options.optimizer = cost::Optimizer::kAdam;
  return request;
}

void expect_same(const cost::NodeCost& a, const cost::NodeCost& b) {
  SCOPED_TRACE(a.name);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.op_type, b.op_type);
  EXPECT_EQ(a.family, b.family);
  EXPECT_EQ(a.output_shape, b.output_shape);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.note, b.note);
  EXPECT_EQ(a.flops, b.flops);
  EXPECT_EQ(a.macs, b.macs);
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.activation_bytes_read, b.activation_bytes_read);
  EXPECT_EQ(a.weight_bytes_read, b.weight_bytes_read);
  EXPECT_EQ(a.bytes_written, b.bytes_written);
  EXPECT_EQ(a.bytes_fused, b.bytes_fused);
  EXPECT_EQ(a.backward_flops, b.backward_flops);
  EXPECT_EQ(a.backward_bytes, b.backward_bytes);
}

TEST(AnalysisCodec, WritesWhatTheDocumentPrintsAndReadsItBack) {
  struct Case {
    const char* model;
    int64_t batch;
    bool training, with_nodes;
  };
  for (auto c : {Case{"resnet50", 8, false, true}, Case{"mobilenet_v2", 1, true, true},
                 Case{"vit_b_16", 2, false, false}, Case{"lstm_2layer", 4, true, true}}) {
    SCOPED_TRACE(c.model);
    auto request = request_for(c.model, c.batch, c.training);
    if (std::string(c.model) == "lstm_2layer") request.bindings.dims["seq"] = 16;
    auto result = analysis::run(request);
    auto analysis = analysis::make_analysis(request, result, c.with_nodes);
    auto encoded = analysis::encode_analysis(analysis);
    // One layout: the codec's output is the JSON the document prints.
    EXPECT_EQ(encoded.dump(), report::to_json(report::analysis_document(request, result, c.with_nodes)).dump());
    auto back = analysis::decode_analyses(json::parse(encoded.dump(2)), "a.json");
    ASSERT_EQ(back.size(), 1u);
    const auto& b = back[0];
    EXPECT_EQ(b.model, request.model_path);
    EXPECT_EQ(b.inputs, result.inputs);
    EXPECT_EQ(b.training, c.training);
    EXPECT_EQ(b.cost.totals.flops, result.cost.totals.flops);
    EXPECT_EQ(b.cost.totals.peak_activation_bytes, result.cost.totals.peak_activation_bytes);
    EXPECT_EQ(b.cost.training.has_value(), c.training);
    if (c.training) {
      EXPECT_EQ(b.cost.training->backward_flops, result.cost.training->backward_flops);
    }
    ASSERT_EQ(b.cost.nodes.size(), c.with_nodes ? result.cost.nodes.size() : 0u);
    for (size_t i = 0; i < b.cost.nodes.size(); ++i) expect_same(result.cost.nodes[i], b.cost.nodes[i]);
    ASSERT_EQ(b.op_types.size(), result.cost.by_op_type().size());
    EXPECT_EQ(b.op_types.front().flops, result.cost.by_op_type().front().flops);
    EXPECT_EQ(b.notes, result.notes);
    EXPECT_EQ(analysis::encode_analysis(b).dump(), encoded.dump());  // nothing lost or added
  }
}

TEST(AnalysisCodec, OpsWithoutACostRuleAreKeptByName) {
  // A Foo op ridge has no rule for, in a small hand-written graph of the ONNX test data's kind.
  auto request = request_for("resnet50", 1);
  auto result = analysis::run(request);
  result.cost.unknown_ops = {{"FooOp", 2}};
  result.cost.unresolved_ops = {{"NonZero", 1}};
  result.cost.estimated_nodes = 3;
  result.cost.nodes[5].status = cost::NodeStatus::kUnknownOp;
  result.cost.nodes[5].note = "no cost rule for FooOp";
  auto a = analysis::make_analysis(request, result);
  auto back = analysis::decode_analyses(json::parse(analysis::encode_analysis(a).dump()), "a.json").at(0);
  EXPECT_EQ(back.cost.unknown_ops, result.cost.unknown_ops);
  EXPECT_EQ(back.cost.unresolved_ops, result.cost.unresolved_ops);
  EXPECT_EQ(back.cost.estimated_nodes, 3);
  expect_same(result.cost.nodes[5], back.cost.nodes[5]);
}

TEST(AnalysisCodec, SweepsKeepEveryPointsTotals) {
  auto base = request_for("resnet50", 1, true);
  std::vector<report::SweepPoint> points;
  std::vector<analysis::Analysis> analyses;
  for (int64_t batch : {1, 4}) {
    auto request = base;
    request.bindings.batch = batch;
    auto result = analysis::run(request);
    auto a = analysis::make_analysis(request, result, false);
    a.sweep_value = std::to_string(batch);
    analyses.push_back(a);
    points.push_back({std::to_string(batch), std::move(result)});
  }
  auto encoded = analysis::encode_analysis_sweep(base.model_path, "batch", analyses);
  EXPECT_EQ(encoded.dump(), report::to_json(report::analysis_sweep_document(base, "batch", points)).dump());
  auto back = analysis::decode_analyses(json::parse(encoded.dump()), "s.json");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].sweep_value, "4");
  EXPECT_EQ(back[1].cost.totals.flops, 4 * back[0].cost.totals.flops);  // FLOPs scale with the batch
  ASSERT_TRUE(back[1].cost.training);
  EXPECT_EQ(back[1].cost.training->backward_flops, points[1].result.cost.training->backward_flops);
  EXPECT_EQ(analysis::encode_analysis_sweep(base.model_path, "batch", back).dump(), encoded.dump());
}

TEST(AnalysisCodec, BadFilesGetOneLine) {
  auto message = [](const std::string& text) {
    return error_text([&] { analysis::decode_analyses(json::parse(text), "'a.json'"); });
  };
  EXPECT_NE(message(R"({"runs": []})").find("'a.json' is no `ridge analyze -f json` output"), std::string::npos);
  EXPECT_NE(
      message(R"({"model": {}, "op_types": [], "totals": {"flops": 1.5}})").find("totals.flops 1.5 is not a whole"),
      std::string::npos);
  EXPECT_NE(message(R"({"model": {}, "op_types": [], "totals": {}, "nodes": [{"status": "maybe"}]})")
                .find("'a.json'.nodes[0].status 'maybe'"),
            std::string::npos);
  EXPECT_NE(message(R"({"model": {}, "op_types": []})").find("totals is missing"), std::string::npos);
}

}  // namespace
}  // namespace ridge::test
