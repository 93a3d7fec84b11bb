// Optimized mode's attention fusion (exec/attention_fusion.h): each exported form of attention becomes one node whose
// pattern, computed by its definition, gives what the CPU executor computes for the model as exported; what must stay
// nodes stays; the bundled transformers' attention is fused in every layer.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "exec/attention_fusion.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "exec/product_views.h"
#include "support/attention_patterns.h"
#include "support/executor_models.h"
#include "support/model_builder.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

const auto kTakesAll = [](const exec::AttentionPattern&) { return true; };

// The model's graph with its product views absorbed and its attention fused, as a backend's optimized mode does.
graph::Graph fused_graph(const graph::Model& model, exec::AttentionFusions* fusions = nullptr,
                         const exec::TakesAttention& takes = kTakesAll) {
  auto g = model.graph;
  exec::absorb_product_views(g, model.directory, [](const exec::ProductLayout&) { return true; });
  auto f = exec::fuse_attention(g, model.default_opset(), model.directory, takes);
  if (fusions) *fusions = f;
  return g;
}

std::vector<int64_t> dims_of(const graph::Graph& g, graph::ValueId id) { return graph::known_dims(g.value(id).shape); }

exec::AttentionPattern pattern_of(const graph::Graph& g, const graph::Node& node) {
  std::optional<std::vector<int64_t>> mask;
  if (node.input(3) != graph::kNoValue) mask = dims_of(g, node.input(3));
  return exec::attention_pattern(node, dims_of(g, node.inputs[0]), dims_of(g, node.inputs[1]),
                                 dims_of(g, node.inputs[2]), mask, dims_of(g, node.outputs[0]));
}

TEST(AttentionFusion, EachExportedFormBecomesOneNodeThatComputesWhatTheModelDid) {
  for (const auto& c : attention_pattern_cases()) {
    analysis::Request request;
    request.model_path = c.model;
    auto model = exec::prepare(request, "").analysis.model;
    exec::AttentionFusions fusions;
    auto g = fused_graph(model, &fusions);
    EXPECT_EQ(fusions.fused, 1) << c.label;
    EXPECT_EQ(fusions.summary(), "1 attention blocks (scores, mask, Softmax, context) fused into one kernel each");
    ASSERT_EQ(g.nodes.size(), 1u) << c.label;  // every transpose, scaling, mask and the softmax are in it
    const auto& node = g.nodes[0];
    EXPECT_TRUE(exec::is_fused_attention(node)) << c.label;
    EXPECT_EQ(node.name, "scores") << c.label;
    std::vector<std::string> reads;
    for (auto id : node.inputs) reads.push_back(g.value(id).name);
    EXPECT_EQ(reads, c.fused_inputs) << c.label;
    EXPECT_EQ(g.value(node.outputs[0]).name, model.graph.value(model.graph.outputs[0]).name) << c.label;

    auto pattern = pattern_of(g, node);
    EXPECT_EQ(pattern.mask, c.mask) << c.label;
    const exec::HostTensor* mask = c.inputs.size() > 3 ? &c.inputs[3] : nullptr;
    auto got = fused_attention_by_definition(pattern, c.inputs[0], c.inputs[1], c.inputs[2], mask);
    auto expected = exec::load_engine().run(model, c.inputs, {});
    ASSERT_EQ(expected.outputs.size(), 1u);
    auto want = host_values(expected.outputs[0]);
    EXPECT_EQ(compare_with_nan(got, want, 1e-5, 1e-6), "") << c.label;
    double largest = 0;
    int nans = 0;
    for (auto w : want) {
      nans += std::isnan(w);
      if (!std::isnan(w)) largest = std::max(largest, std::fabs(w));
    }
    EXPECT_GT(largest, 0.1) << c.label;
    EXPECT_EQ(nans > 0, c.label.find("keeping none") != std::string::npos) << c.label;  // the fully masked row
  }
}

// What must stay nodes: probabilities something else reads too, a Softmax over another axis, a Where with a finite
// constant (a fully masked row would get uniform weights, not NaN), a context product that scales its result, a mask
// that broadcasts the scores up, and whatever the backend refuses.
TEST(AttentionFusion, WhatTheFusedNodeWouldNotComputeExactlyStays) {
  auto block = [](const std::function<void(ModelBuilder&)>& middle, const std::vector<DimSpec>& mask_dims = {},
                  int32_t mask_type = ::onnx::TensorProto::FLOAT) {
    ModelBuilder b;
    b.input("q", {int64_t{2}, int64_t{3}, int64_t{5}, int64_t{4}}).input("kt", {2, 3, 4, 5}).input("v", {2, 3, 5, 4});
    if (!mask_dims.empty()) b.input("mask", mask_dims, mask_type);
    b.output("y");
    b.weight_values("two", {}, {2.f}).weight_values("big", {}, {-1e9f});
    b.node("MatMul", {"q", "kt"}, {"s"}, "scores");
    middle(b);
    analysis::Request request;
    request.model_path = b.save("attention_fusion_kept");
    return exec::prepare(request, "").analysis.model;
  };
  auto fused = [](const graph::Model& model, const exec::TakesAttention& takes = kTakesAll) {
    exec::AttentionFusions f;
    fused_graph(model, &f, takes);
    return f.fused;
  };
  auto softmax_context = [](ModelBuilder& b, const std::string& scores) {
    set_int(b.node("Softmax", {scores}, {"p"}, "softmax"), "axis", -1);
    b.node("MatMul", {"p", "v"}, {"y"}, "context");
  };
  // The reference shape fuses.
  EXPECT_EQ(fused(block([&](ModelBuilder& b) { softmax_context(b, "s"); })), 1);
  EXPECT_EQ(fused(block([&](ModelBuilder& b) { softmax_context(b, "s"); }),
                  [](const exec::AttentionPattern&) { return false; }),
            0);
  // The probabilities are a graph output too.
  {
    auto m = block([&](ModelBuilder& b) {
      softmax_context(b, "s");
      b.output("p");
    });
    EXPECT_EQ(fused(m), 0);
  }
  // Softmax over the rows.
  EXPECT_EQ(fused(block([&](ModelBuilder& b) {
              set_int(b.node("Softmax", {"s"}, {"p"}, "softmax"), "axis", 2);
              b.node("MatMul", {"p", "v"}, {"y"}, "context");
            })),
            0);
  // Where with a finite constant.
  EXPECT_EQ(fused(block(
                [&](ModelBuilder& b) {
                  b.node("Where", {"mask", "big", "s"}, {"sm"}, "masked");
                  softmax_context(b, "sm");
                },
                {int64_t{5}, int64_t{5}}, ::onnx::TensorProto::BOOL)),
            0);
  // The same Where with -inf fuses.
  EXPECT_EQ(fused(block(
                [&](ModelBuilder& b) {
                  b.weight_values("ninf", {}, {-std::numeric_limits<float>::infinity()});
                  b.node("Where", {"mask", "ninf", "s"}, {"sm"}, "masked");
                  softmax_context(b, "sm");
                },
                {int64_t{5}, int64_t{5}}, ::onnx::TensorProto::BOOL)),
            1);
  // The context scaled after its product (absorbed into its alpha, which the kernel does not apply).
  EXPECT_EQ(fused(block([&](ModelBuilder& b) {
              set_int(b.node("Softmax", {"s"}, {"p"}, "softmax"), "axis", -1);
              b.node("MatMul", {"p", "v"}, {"o"}, "context");
              b.node("Mul", {"o", "two"}, {"y"}, "after");
            })),
            0);
  // A mask of one more dim than the scores: the Add broadcasts the scores up.
  EXPECT_EQ(fused(block(
                [&](ModelBuilder& b) {
                  b.node("Add", {"s", "mask"}, {"sm"}, "add_mask");
                  softmax_context(b, "sm");
                },
                {int64_t{4}, int64_t{2}, int64_t{3}, int64_t{5}, int64_t{5}})),
            0);
  // A mask that broadcasts to the scores fuses.
  EXPECT_EQ(fused(block(
                [&](ModelBuilder& b) {
                  b.node("Add", {"s", "mask"}, {"sm"}, "add_mask");
                  softmax_context(b, "sm");
                },
                {int64_t{3}, int64_t{1}, int64_t{5}})),
            1);
}

TEST(AttentionFusion, AFusedNodesPatternIsCheckedAgainstItsDims) {
  auto c = attention_pattern_cases().front();
  analysis::Request request;
  request.model_path = c.model;
  auto model = exec::prepare(request, "").analysis.model;
  auto g = fused_graph(model);
  ASSERT_EQ(g.nodes.size(), 1u);
  const auto& node = g.nodes[0];
  const std::vector<int64_t> d{2, 5, 3, 4};
  EXPECT_NO_THROW(exec::attention_pattern(node, d, d, d, std::vector<int64_t>{2, 1, 1, 5}, d));
  EXPECT_THROW(exec::attention_pattern(node, d, d, d, std::nullopt, d), Error);  // its mask is missing
  EXPECT_THROW(exec::attention_pattern(node, d, d, d, std::vector<int64_t>{2, 1, 2, 5}, d), Error);
  EXPECT_THROW(exec::attention_pattern(node, d, {2, 5, 3, 6}, d, std::vector<int64_t>{2, 1, 1, 5}, d), Error);
  auto damaged = node;
  for (auto& a : damaged.attributes)
    if (a.name == exec::kAttentionMaskAttribute) a.s = "maybe";
  try {
    exec::attention_pattern(damaged, d, d, d, std::vector<int64_t>{2, 1, 1, 5}, d);
    ADD_FAILURE() << "an unknown mask kind was taken";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "a fused attention's mask 'maybe' is none of none, add, keep and drop");
  }
}

// The bundled transformers (tests/data/executor: two layers each): every layer's attention fuses, with BERT's mask
// added and GPT-2's causal Where.
TEST(AttentionFusion, TheBundledTransformersFuseEveryLayer) {
  for (const auto& [name, mask] : std::vector<std::pair<std::string, exec::ScoreMask>>{
           {"bert", exec::ScoreMask::kAdd}, {"vit", exec::ScoreMask::kNone}, {"gpt2", exec::ScoreMask::kDrop}}) {
    auto prepared = prepared_executor_model(name);
    const auto& model = prepared.analysis.model;
    exec::AttentionFusions fusions;
    auto g = fused_graph(model, &fusions);
    EXPECT_EQ(fusions.fused, 2) << name;
    int fused = 0;
    for (const auto& node : g.nodes) {
      EXPECT_NE(node.op_type, "Softmax") << name;
      if (!exec::is_fused_attention(node)) continue;
      ++fused;
      auto pattern = pattern_of(g, node);
      EXPECT_EQ(pattern.mask, mask) << name;
      EXPECT_NEAR(pattern.alpha, 1.0 / std::sqrt(static_cast<double>(pattern.scores.k())), 1e-6) << name;
    }
    EXPECT_EQ(fused, 2) << name;
  }
}

}  // namespace
}  // namespace ridge::test
