// Matrix products that read their operands and write their output through strides (exec/product_views.h): the
// layout by hand; an attention block rewritten and evaluated through its strides gives what the CPU executor computes
// for the model as exported; what must stay a node stays; the bundled transformers' attention is absorbed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "exec/engine.h"
#include "exec/host_values.h"
#include "exec/prepare.h"
#include "exec/product_views.h"
#include "support/executor_models.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "support/strided_product.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using Dims = std::vector<int64_t>;

// BERT's scores: Q and K stored [batch 2, tokens 12, heads 2, head size 16], read as Q [2, 2, 12, 16] (perm 0 2 1 3)
// and K^T [2, 2, 16, 12] (perm 0 2 3 1); the scores [2, 2, 12, 12] written as they are.
TEST(ProductViews, TheLayoutOfBatchFirstAttentionByHand) {
  auto p = exec::product_layout({2, 12, 2, 16}, {0, 2, 1, 3}, {2, 12, 2, 16}, {0, 2, 3, 1}, {2, 2, 12, 12}, {});
  EXPECT_EQ(p.batch, (Dims{2, 2}));
  EXPECT_EQ(p.m(), 12);
  EXPECT_EQ(p.k(), 16);
  EXPECT_EQ(p.n(), 12);
  // Q[b, h, s, d] is stored at b * 384 + s * 32 + h * 16 + d.
  EXPECT_EQ(p.a.row_stride, 32);
  EXPECT_EQ(p.a.col_stride, 1);
  EXPECT_EQ(p.a.batch_strides, (Dims{384, 16}));
  // K^T[b, h, d, s] = K[b, s, h, d]: rows (d) step 1, columns (s) step 32.
  EXPECT_EQ(p.b.row_stride, 1);
  EXPECT_EQ(p.b.col_stride, 32);
  EXPECT_EQ(p.b.batch_strides, (Dims{384, 16}));
  EXPECT_EQ(p.y.row_stride, 12);
  EXPECT_EQ(p.y.col_stride, 1);
  EXPECT_EQ(p.y.batch_strides, (Dims{288, 144}));

  // The context P V [2, 2, 12, 16] written as [2, 12, 2, 16] (perm 0 2 1 3): Y[b, s, h, d] at b * 384 + s * 32 +
  // h * 16 + d; V read from [2, 12, 2, 16]; P [2, 2, 12, 12] as it is.
  auto o = exec::product_layout({2, 2, 12, 12}, {}, {2, 12, 2, 16}, {0, 2, 1, 3}, {2, 12, 2, 16}, {0, 2, 1, 3});
  EXPECT_EQ(o.y.row_stride, 32);
  EXPECT_EQ(o.y.col_stride, 1);
  EXPECT_EQ(o.y.batch_strides, (Dims{384, 16}));
  EXPECT_EQ(o.a.batch_strides, (Dims{288, 144}));

  // A 2-D weight broadcast over the batch: stride 0.
  auto w = exec::product_layout({3, 4, 5}, {}, {5, 6}, {}, {3, 4, 6}, {});
  EXPECT_EQ(w.batch, (Dims{3}));
  EXPECT_EQ(w.b.batch_strides, (Dims{0}));
  EXPECT_EQ(w.a.batch_strides, (Dims{20}));

  EXPECT_THROW(exec::product_layout({2, 3}, {}, {4, 5}, {}, {2, 5}, {}), Error);           // inner dims
  EXPECT_THROW(exec::product_layout({2, 3}, {0, 0}, {3, 5}, {}, {2, 5}, {}), Error);       // not a permutation
  EXPECT_THROW(exec::product_layout({2, 3}, {}, {3, 5}, {}, {2, 5}, {1, 0}), Error);       // output dims
  EXPECT_THROW(exec::product_layout({2, 2, 3}, {}, {3, 3, 5}, {}, {3, 2, 5}, {}), Error);  // batch 2 and 3
  EXPECT_THROW(exec::product_layout({3}, {}, {3, 5}, {}, {5}, {}), Error);                 // rank 1
}

exec::HostTensor host(const std::string& name, Dims dims, const std::vector<float>& values) {
  exec::HostTensor t{name, graph::DType::kFloat32, std::move(dims), std::vector<uint8_t>(values.size() * 4)};
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

std::vector<float> wave(size_t n, float scale, float phase) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.37f * static_cast<float>(i) + phase);
  return v;
}

// Batch-first attention as BERT and GPT-2 export it (scores divided after the product), and a sequence-first one as
// torchvision's ViT exports it (the query multiplied before): q, k, v [2, 5, 3, 4] -> y [2, 5, 3, 4]; x [5, 6, 4] ->
// z [5, 6, 5].
std::string attention_block() {
  ModelBuilder b;
  b.input("q", {int64_t{2}, int64_t{5}, int64_t{3}, int64_t{4}})
      .input("k", {2, 5, 3, 4})
      .input("v", {2, 5, 3, 4})
      .input("x", {5, 6, 4})
      .output("y")
      .output("z");
  b.weight_values("root", {}, {2.f}).weight_values("half", {}, {0.5f});
  set_ints(b.node("Transpose", {"q"}, {"qt"}, "q_heads"), "perm", {0, 2, 1, 3});
  set_ints(b.node("Transpose", {"k"}, {"kt"}, "k_heads"), "perm", {0, 2, 3, 1});
  set_ints(b.node("Transpose", {"v"}, {"vt"}, "v_heads"), "perm", {0, 2, 1, 3});
  b.node("MatMul", {"qt", "kt"}, {"s"}, "scores");
  b.node("Div", {"s", "root"}, {"sd"}, "scale");
  set_int(b.node("Softmax", {"sd"}, {"p"}, "softmax"), "axis", -1);
  b.node("MatMul", {"p", "vt"}, {"o"}, "context");
  set_ints(b.node("Transpose", {"o"}, {"y"}, "merge_heads"), "perm", {0, 2, 1, 3});
  set_ints(b.node("Transpose", {"x"}, {"xq"}, "x_query"), "perm", {1, 0, 2});
  b.node("Mul", {"half", "xq"}, {"xs"}, "x_scale");  // the scalar first: either order is a scaling
  set_ints(b.node("Transpose", {"x"}, {"xk"}, "x_key"), "perm", {1, 2, 0});
  b.node("MatMul", {"xs", "xk"}, {"xz"}, "x_scores");
  set_ints(b.node("Transpose", {"xz"}, {"z"}, "x_back"), "perm", {1, 0, 2});
  return b.save("product_views_attention");
}

const graph::Node* node_named(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

// The rewritten graph evaluated by definition: MatMul through its strides (support/strided_product.h), Softmax over
// the last axis; any other op fails the test.
std::map<std::string, std::vector<float>> evaluate(const graph::Graph& g,
                                                   std::map<std::string, std::vector<float>> values) {
  for (const auto& node : g.nodes) {
    auto dims = [&](graph::ValueId id) { return graph::known_dims(g.value(id).shape); };
    const auto& out_name = g.value(node.outputs[0]).name;
    auto y_dims = dims(node.outputs[0]);
    int64_t count = 1;
    for (auto d : y_dims) count *= d;
    std::vector<float> y(static_cast<size_t>(count));
    if (node.op_type == "MatMul") {
      auto layout =
          exec::product_layout(dims(node.inputs[0]), node.get_ints(exec::kPermAAttribute), dims(node.inputs[1]),
                               node.get_ints(exec::kPermBAttribute), y_dims, node.get_ints(exec::kPermYAttribute));
      strided_product(layout, values.at(g.value(node.inputs[0]).name).data(),
                      values.at(g.value(node.inputs[1]).name).data(), y.data(),
                      static_cast<float>(node.get_float(exec::kAlphaAttribute, 1.0)));
    } else if (node.op_type == "Softmax") {
      const auto& x = values.at(g.value(node.inputs[0]).name);
      auto width = static_cast<size_t>(y_dims.back());
      for (size_t row = 0; row < x.size() / width; ++row) {
        double largest = -INFINITY, sum = 0;
        for (size_t i = 0; i < width; ++i) largest = std::max(largest, static_cast<double>(x[row * width + i]));
        for (size_t i = 0; i < width; ++i) sum += std::exp(x[row * width + i] - largest);
        for (size_t i = 0; i < width; ++i)
          y[row * width + i] = static_cast<float>(std::exp(x[row * width + i] - largest) / sum);
      }
    } else {
      ADD_FAILURE() << "the rewritten graph still runs " << node.op_type << " '" << node.name << "'";
      continue;
    }
    values[out_name] = std::move(y);
  }
  return values;
}

TEST(ProductViews, ARewrittenAttentionComputesWhatTheModelDid) {
  analysis::Request request;
  request.model_path = attention_block();
  auto prepared = exec::prepare(request, "");
  const auto& original = prepared.analysis.model.graph;
  auto g = original;
  auto views = exec::absorb_product_views(g, "", [](const exec::ProductLayout&) { return true; });
  // Per block: the three head transposes, the merge back and the scale; the ViT-style one: two, one back, one scale.
  EXPECT_EQ(views.transposes, 7);
  EXPECT_EQ(views.scales, 2);
  EXPECT_EQ(views.summary(), "7 transposes and 2 scalings read or written by matrix products in place");
  EXPECT_EQ(g.nodes.size(), 4u);  // scores, softmax, context, x_scores
  const auto* scores = node_named(g, "scores");
  ASSERT_NE(scores, nullptr);
  EXPECT_EQ(g.value(scores->inputs[0]).name, "q");
  EXPECT_EQ(g.value(scores->inputs[1]).name, "k");
  EXPECT_EQ(g.value(scores->outputs[0]).name, "sd");
  EXPECT_EQ(scores->get_ints(exec::kPermAAttribute), (Dims{0, 2, 1, 3}));
  EXPECT_EQ(scores->get_ints(exec::kPermBAttribute), (Dims{0, 2, 3, 1}));
  EXPECT_FALSE(scores->has(exec::kPermYAttribute));
  EXPECT_DOUBLE_EQ(scores->get_float(exec::kAlphaAttribute, 0), 0.5);
  const auto* context = node_named(g, "context");
  ASSERT_NE(context, nullptr);
  EXPECT_EQ(g.value(context->outputs[0]).name, "y");
  EXPECT_EQ(context->get_ints(exec::kPermYAttribute), (Dims{0, 2, 1, 3}));
  EXPECT_FALSE(context->has(exec::kAlphaAttribute));
  const auto* x_scores = node_named(g, "x_scores");
  ASSERT_NE(x_scores, nullptr);
  EXPECT_EQ(g.value(x_scores->inputs[0]).name, "x");
  EXPECT_EQ(g.value(x_scores->inputs[1]).name, "x");
  EXPECT_DOUBLE_EQ(x_scores->get_float(exec::kAlphaAttribute, 0), 0.5);

  // The CPU executor runs the model as exported; the rewritten graph, evaluated through its strides, agrees.
  std::map<std::string, std::vector<float>> inputs{{"q", wave(120, 1.0f, 0.1f)},
                                                   {"k", wave(120, 0.8f, 1.3f)},
                                                   {"v", wave(120, 1.2f, 2.2f)},
                                                   {"x", wave(120, 0.9f, 0.7f)}};
  std::vector<exec::HostTensor> tensors;
  for (const char* name : {"q", "k", "v"}) tensors.push_back(host(name, {2, 5, 3, 4}, inputs.at(name)));
  tensors.push_back(host("x", {5, 6, 4}, inputs.at("x")));
  auto expected = exec::load_engine().run(prepared.analysis.model, tensors, {});
  auto computed = evaluate(g, inputs);
  ASSERT_EQ(expected.outputs.size(), 2u);
  for (size_t o = 0; o < 2; ++o) {
    auto want = floats(expected.outputs[o]);
    const auto& got = computed.at(o == 0 ? "y" : "z");
    ASSERT_EQ(want.size(), got.size());
    double largest = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::fabs(want[i])) << "output " << o << " element " << i;
      largest = std::max(largest, static_cast<double>(std::fabs(want[i])));
    }
    EXPECT_GT(largest, 0.1) << "output " << o;
  }
}

// What must stay a node: a product with a weight, a Transpose something else reads too (here the graph's output), a
// scaling after a product with an epilogue, a division of a scalar by the product, and whatever the backend refuses.
TEST(ProductViews, WhatAnotherNodeReadsOrTheBackendRefusesStays) {
  ModelBuilder b;
  b.input("a", {int64_t{4}, int64_t{3}}).input("c", {4, 3}).output("y").output("at").output("w_out").output("inv");
  b.weight_values("w", {4, 5}, wave(20, 0.5f, 0.3f)).weight_values("two", {}, {2.f});
  set_ints(b.node("Transpose", {"a"}, {"at"}, "a_t"), "perm", {1, 0});
  b.node("MatMul", {"at", "c"}, {"y"}, "kept_output");  // at is also a graph output
  set_ints(b.node("Transpose", {"c"}, {"ct"}, "c_t"), "perm", {1, 0});
  b.node("MatMul", {"ct", "w"}, {"w_out"}, "weight_product");
  set_ints(b.node("Transpose", {"c"}, {"ct2"}, "c_t2"), "perm", {1, 0});
  b.node("MatMul", {"a", "ct2"}, {"sq"}, "square");
  b.node("Div", {"two", "sq"}, {"inv"}, "reciprocal");  // 2 / (a c^T): not a scaling of the product
  analysis::Request request;
  request.model_path = b.save("product_views_kept");
  auto prepared = exec::prepare(request, "");
  auto g = prepared.analysis.model.graph;
  auto views = exec::absorb_product_views(g, "", [](const exec::ProductLayout&) { return true; });
  EXPECT_NE(node_named(g, "a_t"), nullptr);
  EXPECT_NE(node_named(g, "c_t"), nullptr);
  EXPECT_NE(node_named(g, "reciprocal"), nullptr);
  EXPECT_EQ(node_named(g, "c_t2"), nullptr);  // the one the square product alone reads
  EXPECT_EQ(node_named(g, "square")->get_ints(exec::kPermBAttribute), (Dims{1, 0}));
  EXPECT_EQ(views.transposes, 1);
  EXPECT_EQ(views.scales, 0);

  auto refused = prepared.analysis.model.graph;
  auto none = exec::absorb_product_views(refused, "", [](const exec::ProductLayout&) { return false; });
  EXPECT_EQ(none.summary(), "");
  EXPECT_EQ(refused.nodes.size(), prepared.analysis.model.graph.nodes.size());
}

// The bundled transformers (tests/data/executor: two layers each): every layer's attention reads its heads in place.
TEST(ProductViews, TheBundledTransformersReadTheirHeadsInPlace) {
  for (const char* name : {"bert", "vit", "gpt2"}) {
    auto prepared = prepared_executor_model(name);
    auto g = prepared.analysis.model.graph;
    auto views = exec::absorb_product_views(g, prepared.analysis.model.directory,
                                            [](const exec::ProductLayout&) { return true; });
    EXPECT_EQ(views.transposes, 8) << name;  // Q, K, V and the context, per layer
    EXPECT_EQ(views.scales, 2) << name;      // 1 / sqrt(head size), per layer
    int strided = 0;
    for (const auto& node : g.nodes) {
      if (node.op_type != "MatMul" || g.value(node.inputs[1]).initializer) continue;  // a projection keeps its copy
      for (auto id : node.inputs) {
        auto producer = g.value(id).producer;
        if (producer < 0) continue;
        EXPECT_NE(g.nodes[static_cast<size_t>(producer)].op_type, "Transpose") << name << " " << node.name;
      }
      strided += node.has(exec::kPermAAttribute) || node.has(exec::kPermBAttribute) || node.has(exec::kPermYAttribute);
    }
    EXPECT_EQ(strided, 4) << name;  // the scores and the context, per layer
  }
}

}  // namespace
}  // namespace ridge::test
