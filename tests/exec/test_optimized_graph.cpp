// The graph a backend runs in optimized mode (exec/optimized_graph.h): what it takes of each layer's epilogue joins
// the layer, a prefix at a time; a folded BatchNorm's weight and bias computed by fold_batchnorm give the model's
// own outputs, checked by running both graphs on the CPU executor; hand-computed values for the fold itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "exec/engine.h"
#include "exec/host_values.h"
#include "exec/optimized_graph.h"
#include "exec/prepare.h"
#include "support/model_builder.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

std::vector<float> wave(size_t n, float scale, float phase) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.7f * static_cast<float>(i) + phase);
  return v;
}

exec::HostTensor host(const std::string& name, std::vector<int64_t> dims, const std::vector<float>& values) {
  exec::HostTensor t{name, graph::DType::kFloat32, std::move(dims), std::vector<uint8_t>(values.size() * 4)};
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

std::vector<float> values_of(const exec::HostTensor& t) {
  std::vector<float> v(t.bytes.size() / 4);
  std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

// x -> Conv(w, b) -> BatchNorm -> Add(skip) -> Relu -> y; x -> 1x1 Conv -> Identity -> Relu -> z.
std::string residual_block() {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{5}, int64_t{5}}).input("skip", {1, 4, 5, 5}).output("y").output("z");
  b.weight_values("w", {4, 3, 3, 3}, wave(4 * 3 * 9, 0.4f, 0.1f))
      .weight_values("b", {4}, {0.1f, -0.2f, 0.05f, 0.3f})
      .weight_values("scale", {4}, {1.5f, 0.5f, 2.0f, 1.0f})
      .weight_values("shift", {4}, {0.2f, -0.1f, 0.0f, 0.4f})
      .weight_values("mean", {4}, {0.05f, -0.3f, 0.2f, 0.0f})
      .weight_values("var", {4}, {0.8f, 1.2f, 0.5f, 2.0f})
      .weight_values("w2", {4, 3, 1, 1}, wave(12, 0.6f, 2.0f));
  auto& conv = b.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  set_ints(conv, "pads", {1, 1, 1, 1});
  b.node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"bn"}, "bn");
  b.node("Add", {"bn", "skip"}, {"res"}, "residual");
  b.node("Relu", {"res"}, {"y"}, "relu");
  b.node("Conv", {"x", "w2"}, {"c2"}, "conv2");
  b.node("Identity", {"c2"}, {"id"}, "identity");
  b.node("Relu", {"id"}, {"z"}, "relu2");
  return b.save("optimized_graph_block");
}

const graph::Node* node_named(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(OptimizedGraph, ALayerTakesWhatTheBackendTakesOfItsEpilogue) {
  auto r = analyze_file(residual_block());
  const auto& g = r.model.graph;
  auto plan = exec::plan_optimization(g);
  auto all = exec::optimized_graph(g, plan, [](const graph::Node&, const exec::OptimizationPlan::Epilogue&) {
    return exec::EpilogueChoice{true, true, true};
  });
  const auto& og = all.graph;
  EXPECT_EQ(og.nodes.size(), 2u);  // conv (+ bn, residual, relu), conv2 (+ relu2); the Identity gone
  const auto* conv = node_named(og, "conv");
  ASSERT_NE(conv, nullptr);
  ASSERT_EQ(conv->inputs.size(), 4u);
  EXPECT_EQ(og.value(conv->inputs[1]).name, "conv/folded_weight");
  EXPECT_EQ(og.value(conv->inputs[2]).name, "conv/folded_bias");
  EXPECT_TRUE(og.value(conv->inputs[1]).initializer);  // a constant: kept alive by every release rule
  EXPECT_EQ(og.value(conv->inputs[3]).name, "skip");
  EXPECT_EQ(conv->get_string(exec::kActivationAttribute, ""), "relu");
  EXPECT_EQ(og.value(conv->outputs[0]).name, "y");
  const auto* conv2 = node_named(og, "conv2");
  ASSERT_NE(conv2, nullptr);
  EXPECT_EQ(conv2->get_string(exec::kActivationAttribute, ""), "relu");  // read through the removed Identity
  EXPECT_EQ(og.value(conv2->outputs[0]).name, "z");
  ASSERT_EQ(all.folds.size(), 1u);
  EXPECT_EQ(og.value(all.folds[0].conv_weight).name, "w");
  EXPECT_EQ(og.value(all.folds[0].conv_bias).name, "b");
  EXPECT_EQ(og.value(all.folds[0].var).name, "var");
  EXPECT_EQ(all.folded_batchnorms, 1);
  EXPECT_EQ(all.fused_residuals, 1);
  EXPECT_EQ(all.fused_activations, 2);
  EXPECT_EQ(all.removed_noops, 1);

  // A backend that takes the BatchNorm and the activation but not the residual stops at the residual: the Add and
  // the Relu after it stay nodes.
  auto no_residual = exec::optimized_graph(g, plan, [](const graph::Node&, const exec::OptimizationPlan::Epilogue&) {
    return exec::EpilogueChoice{true, false, true};
  });
  const auto& ng = no_residual.graph;
  EXPECT_NE(node_named(ng, "residual"), nullptr);
  EXPECT_NE(node_named(ng, "relu"), nullptr);
  EXPECT_EQ(node_named(ng, "bn"), nullptr);
  EXPECT_EQ(ng.value(node_named(ng, "conv")->outputs[0]).name, "bn");
  EXPECT_EQ(node_named(ng, "conv")->get_string(exec::kActivationAttribute, ""), "");
  EXPECT_EQ(no_residual.fused_activations, 1);  // conv2's
}

// x -> MatMul(w) -> Add(b) -> GELU as exported (x / sqrt 2, Erf, + 1, * x, * 0.5) -> y;
// x -> MatMul(w2) -> Add(b2) -> Add(skip) -> z: a transformer's two kinds of fully connected layer;
// x -> MatMul(w3) -> Add(b3) -> Clip(-1, 6) -> v.
std::string fully_connected_pair() {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{8}}).input("skip", {2, 6}).output("y").output("z").output("v");
  b.weight_values("w", {8, 6}, wave(48, 0.3f, 0.2f))
      .weight_values("b", {6}, wave(6, 0.1f, 0.5f))
      .weight_values("w2", {8, 6}, wave(48, 0.2f, 1.0f))
      .weight_values("b2", {6}, wave(6, 0.2f, 0.9f))
      .weight_values("sqrt2", {}, {1.4142135f})
      .weight_values("one", {}, {1.f})
      .weight_values("half", {}, {0.5f})
      .weight_values("w3", {8, 6}, wave(48, 0.25f, 0.4f))
      .weight_values("b3", {6}, wave(6, 0.3f, 0.1f))
      .weight_values("lo", {}, {-1.f})
      .weight_values("hi", {}, {6.f});
  b.node("MatMul", {"x", "w"}, {"mm"}, "fc1");
  b.node("Add", {"mm", "b"}, {"h"}, "fc1_bias");
  b.node("Div", {"h", "sqrt2"}, {"d"}, "gelu_div");
  b.node("Erf", {"d"}, {"e"}, "gelu_erf");
  b.node("Add", {"e", "one"}, {"e1"}, "gelu_add");
  b.node("Mul", {"h", "e1"}, {"m"}, "gelu_mul");
  b.node("Mul", {"m", "half"}, {"y"}, "gelu_half");
  b.node("MatMul", {"x", "w2"}, {"mm2"}, "fc2");
  b.node("Add", {"b2", "mm2"}, {"h2"}, "fc2_bias");  // the bias first: either order is a bias
  b.node("Add", {"h2", "skip"}, {"z"}, "residual");
  b.node("MatMul", {"x", "w3"}, {"mm3"}, "fc3");
  b.node("Add", {"mm3", "b3"}, {"h3"}, "fc3_bias");
  b.node("Clip", {"h3", "lo", "hi"}, {"v"}, "clip");
  return b.save("optimized_graph_fully_connected");
}

TEST(OptimizedGraph, AProductTakesItsBiasAndThenItsActivation) {
  auto r = analyze_file(fully_connected_pair());
  const auto& g = r.model.graph;
  auto plan = exec::plan_optimization(g);
  // A backend that takes biases and activations but no residual (the GPU's matrix products).
  auto taken = exec::optimized_graph(g, plan, [](const graph::Node&, const exec::OptimizationPlan::Epilogue&) {
    exec::EpilogueChoice c;
    c.bias = c.activation = true;
    return c;
  });
  const auto& og = taken.graph;
  // The product `name` reads `bias` as input 2, computes `activation` and writes `output`.
  auto expect_product = [&og](const char* name, const char* bias, const char* activation, const char* output) {
    const auto* product = node_named(og, name);
    ASSERT_NE(product, nullptr) << name;
    ASSERT_EQ(product->inputs.size(), 3u) << name;
    EXPECT_EQ(og.value(product->inputs[2]).name, bias);
    EXPECT_EQ(product->get_string(exec::kActivationAttribute, ""), activation);
    EXPECT_EQ(og.value(product->outputs[0]).name, output);
  };
  expect_product("fc1", "b", "gelu_erf", "y");
  expect_product("fc2", "b2", "", "h2");
  expect_product("fc3", "b3", "clip", "v");  // its bounds beside the name
  EXPECT_EQ(node_named(og, "fc3")->get_float(exec::kClipMinAttribute, 0), -1.0);
  EXPECT_EQ(node_named(og, "fc3")->get_float(exec::kClipMaxAttribute, 0), 6.0);
  for (const char* gone :
       {"fc1_bias", "gelu_div", "gelu_erf", "gelu_add", "gelu_mul", "gelu_half", "fc2_bias", "fc3_bias", "clip"})
    EXPECT_EQ(node_named(og, gone), nullptr) << gone;
  const auto* residual = node_named(og, "residual");  // not taken: it reads the product's new output
  ASSERT_NE(residual, nullptr);
  EXPECT_EQ(og.value(residual->input(0)).name, "h2");
  EXPECT_EQ(og.nodes.size(), 4u);
  EXPECT_EQ(taken.fused_biases, 3);
  EXPECT_EQ(taken.fused_activations, 2);
  EXPECT_NE(taken.summary().find("3 bias adds fused into matrix products"), std::string::npos) << taken.summary();

  // A backend that takes no bias keeps the products as the model has them: the activation after a bias cannot join.
  auto none = exec::optimized_graph(g, plan, [](const graph::Node&, const exec::OptimizationPlan::Epilogue&) {
    return exec::EpilogueChoice{true, true, true};
  });
  EXPECT_EQ(node_named(none.graph, "fc1")->inputs.size(), 2u);
  EXPECT_NE(node_named(none.graph, "gelu_erf"), nullptr);
  EXPECT_NE(node_named(none.graph, "fc2_bias"), nullptr);
  EXPECT_EQ(none.fused_biases, 0);
  EXPECT_EQ(none.fused_activations, 0);
}

// Per channel s = scale / sqrt(var + eps): w' = w * s, b' = (b - mean) * s + shift.
TEST(OptimizedGraph, FoldBatchNormScalesEachOutputChannel) {
  auto w = host("w", {2, 1, 1, 2}, {1.f, 2.f, 3.f, 4.f});
  auto b = host("b", {2}, {0.5f, -1.f});
  auto [fw, fb] = exec::fold_batchnorm(w, &b, host("s", {2}, {2.f, 1.f}), host("t", {2}, {0.1f, 0.2f}),
                                       host("m", {2}, {0.5f, 1.f}), host("v", {2}, {3.f, 0.f}), 1.0);
  // Channel 0: s = 2 / sqrt(3 + 1) = 1; channel 1: s = 1 / sqrt(0 + 1) = 1: only the biases move.
  EXPECT_EQ(values_of(fw), (std::vector<float>{1.f, 2.f, 3.f, 4.f}));
  EXPECT_EQ(values_of(fb), (std::vector<float>{0.1f, 0.2f - 2.f}));
  auto [gw, gb] = exec::fold_batchnorm(w, nullptr, host("s", {2}, {1.f, 3.f}), host("t", {2}, {0.f, 1.f}),
                                       host("m", {2}, {1.f, 2.f}), host("v", {2}, {0.f, 8.f}), 1.0);
  EXPECT_EQ(values_of(gw), (std::vector<float>{1.f, 2.f, 3.f, 4.f}));  // s = 1 / 1 = 1, s = 3 / 3 = 1
  EXPECT_EQ(values_of(gb), (std::vector<float>{-1.f, -1.f}));          // (0 - m) * s + t
  auto [hw, hb] = exec::fold_batchnorm(w, &b, host("s", {2}, {0.5f, 4.f}), host("t", {2}, {0.f, 0.f}),
                                       host("m", {2}, {0.f, 0.f}), host("v", {2}, {0.f, 3.f}), 1.0);
  EXPECT_EQ(values_of(hw), (std::vector<float>{0.5f, 1.f, 6.f, 8.f}));  // s = 0.5, s = 4 / 2 = 2
  EXPECT_EQ(values_of(hb), (std::vector<float>{0.25f, -2.f}));
  EXPECT_THROW((void)exec::fold_batchnorm(w, &b, host("s", {3}, {1, 1, 1}), host("t", {2}, {0, 0}),
                                          host("m", {2}, {0, 0}), host("v", {2}, {1, 1}), 1e-5),
               Error);
}

// The BatchNorms folded by the rewrite and fold_batchnorm compute what the model did: both graphs on the CPU executor,
// eager, give the same outputs for `inputs`. `rewritten`: the rewrite.
void expect_folds_keep_the_outputs(const std::string& path, const std::vector<exec::HostTensor>& inputs,
                                   exec::OptimizedGraph& rewritten) {
  analysis::Request request;
  request.model_path = path;
  auto prepared = exec::prepare(request, "");
  const auto& g = prepared.analysis.model.graph;
  auto plan = exec::plan_optimization(g);
  rewritten = exec::optimized_graph(g, plan, [](const graph::Node&, const exec::OptimizationPlan::Epilogue&) {
    return exec::EpilogueChoice{true, false, false};
  });
  auto model = prepared.analysis.model;
  model.graph = rewritten.graph;
  std::mt19937_64 rng(0);
  bool random = false;
  auto load = [&](graph::ValueId id) { return exec::load_initializer(g, id, model.directory, rng, random); };
  for (const auto& f : rewritten.folds) {
    exec::HostTensor bias;
    if (f.conv_bias != graph::kNoValue) bias = load(f.conv_bias);
    auto [w, b] = exec::fold_batchnorm(load(f.conv_weight), f.conv_bias != graph::kNoValue ? &bias : nullptr,
                                       load(f.scale), load(f.shift), load(f.mean), load(f.var), f.epsilon);
    for (const auto& [id, t] : {std::pair{f.weight, w}, std::pair{f.bias, b}}) {
      auto& ref = *model.graph.value(id).initializer;
      ref.location.kind = graph::TensorLocation::Kind::kTypedFields;
      auto data = std::make_shared<graph::ConstantData>();
      data->dtype = graph::DType::kFloat32;
      data->dims = t.dims;
      for (float v : values_of(t)) data->reals.push_back(v);
      ref.typed_values = data;
    }
  }
  EXPECT_FALSE(random);
  EXPECT_EQ(node_named(model.graph, "bn"), nullptr);
  auto& engine = exec::load_engine();
  auto before = engine.run(prepared.analysis.model, inputs, {});
  auto after = engine.run(model, inputs, {});
  ASSERT_EQ(before.outputs.size(), after.outputs.size());
  for (size_t o = 0; o < before.outputs.size(); ++o) {
    auto a = floats(before.outputs[o]), b = floats(after.outputs[o]);
    ASSERT_EQ(a.size(), b.size());
    double largest = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_NEAR(a[i], b[i], 1e-5 + 1e-5 * std::fabs(a[i])) << "output " << o << " element " << i;
      largest = std::max(largest, static_cast<double>(std::fabs(a[i])));
    }
    EXPECT_GT(largest, 0.1) << "output " << o;  // not a comparison of zeros
  }
}

TEST(OptimizedGraph, AFoldedBatchNormGivesTheModelsOutputs) {
  exec::OptimizedGraph rewritten;
  expect_folds_keep_the_outputs(
      residual_block(),
      {host("x", {1, 3, 5, 5}, wave(75, 1.0f, 0.3f)), host("skip", {1, 4, 5, 5}, wave(100, 0.5f, 1.1f))}, rewritten);
}

// Two Conv + BatchNorm layers named alike (ONNX does not require node names to be unique): each folds into constants
// of its own. (Named by the layer alone, the second fold's weights had taken the first's value and replaced them.)
TEST(OptimizedGraph, LayersNamedAlikeFoldIntoConstantsOfTheirOwn) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{4}}).output("y");
  for (const char* k : {"1", "2"}) {
    const std::string s(k);
    b.weight_values("w" + s, {2, 2, 1, 1}, wave(4, s == "1" ? 0.5f : -0.7f, 0.4f))
        .weight_values("scale" + s, {2}, {1.5f, s == "1" ? 0.5f : 2.5f})
        .weight_values("shift" + s, {2}, {0.2f, -0.1f})
        .weight_values("mean" + s, {2}, {0.05f, -0.3f})
        .weight_values("var" + s, {2}, {0.8f, s == "1" ? 1.2f : 0.3f});
  }
  b.node("Conv", {"x", "w1"}, {"c1"}, "conv");
  b.node("BatchNormalization", {"c1", "scale1", "shift1", "mean1", "var1"}, {"n1"}, "bn");
  b.node("Conv", {"n1", "w2"}, {"c2"}, "conv");
  b.node("BatchNormalization", {"c2", "scale2", "shift2", "mean2", "var2"}, {"y"}, "bn");
  exec::OptimizedGraph rewritten;
  expect_folds_keep_the_outputs(b.save("same_names"), {host("x", {1, 2, 4, 4}, wave(32, 1.0f, 0.3f))}, rewritten);
  ASSERT_EQ(rewritten.folds.size(), 2u);
  const auto& og = rewritten.graph;
  EXPECT_NE(rewritten.folds[0].weight, rewritten.folds[1].weight);
  EXPECT_NE(rewritten.folds[0].bias, rewritten.folds[1].bias);
  EXPECT_EQ(og.value(rewritten.folds[0].weight).name, "conv/folded_weight");
  EXPECT_EQ(og.value(rewritten.folds[1].weight).name, "conv/folded_weight#2");
}

}  // namespace
}  // namespace ridge::test
