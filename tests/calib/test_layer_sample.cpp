// The layer sample: the single-layer graphs it builds (costed by ridge's own cost model and checked
// against hand-computed values), the draw and the neighbours the refinement uses, and the
// measurement plumbing end to end on the real executor.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/run.h"
#include "calib/features.h"
#include "calib/layer_sample.h"
#include "calib/shape_prediction.h"
#include "exec/engine.h"
#include "support/model_builder.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using calib::Kind;
using calib::LayerConfig;

analysis::Result analyzed(const LayerConfig& c) { return analysis::rerun(calib::build_layer_model(c), {}); }

// The first node of type `op` that is not one of the layout edges around a sampled layer.
int index_of(const graph::Graph& g, const std::string& op) {
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (g.nodes[n].op_type == op && g.nodes[n].name.rfind("edge_", 0) != 0) return static_cast<int>(n);
  ADD_FAILURE() << "no " << op << " node";
  return 0;
}

LayerConfig conv(int64_t epilogue) {
  return {"conv",
          {{"batch", 2},
           {"channels", 16},
           {"filters", 32},
           {"size", 14},
           {"kernel", 3},
           {"stride", 2},
           {"epilogue", epilogue}}};
}

TEST(LayerSample, ConvolutionGraphHasTheHandComputedShapeAndWork) {
  auto r = analyzed(conv(0));
  const auto& g = r.model.graph;
  // The layer between its two layout edges (depthwise 1x1 convolutions, see layer_sample.cpp).
  ASSERT_EQ(g.nodes.size(), 3u);
  auto conv_at = static_cast<size_t>(index_of(g, "Conv"));
  EXPECT_EQ(g.nodes[conv_at].name, "Conv_1");
  // 14x14, kernel 3, pad 1, stride 2 -> 7x7; MACs = 2 x 32 x 7 x 7 x 16 x 9.
  EXPECT_EQ(graph::to_string(g.value(g.outputs[0]).shape), "2x32x7x7");
  EXPECT_EQ(r.cost.nodes[conv_at].macs, 2 * 32 * 7 * 7 * 16 * 9);
  auto f = calib::features_of(g, g.nodes[conv_at], r.cost.nodes[conv_at]);
  EXPECT_EQ(f.kind, Kind::kConv);
  EXPECT_EQ(f.in_channels, 16);
  EXPECT_EQ(f.out_channels, 32);
  EXPECT_EQ(f.kernel, 9);
  EXPECT_EQ(f.stride, 2);
  EXPECT_EQ(f.batch, 2);
  EXPECT_EQ(f.out_spatial, 49);
}

// Reductions and elementwise ops are described by what their kernels see, not by the rank a model happens to give
// the tensor: Softmax over [1, 128, 512] is 128 rows of 512 as over [128, 512]; LayerNormalization (axis -1) over
// [2, 64, 96] is 128 rows of 96; ReduceMean of [4, 6, 10] over its last axis, 24 rows of 10, keepdims or not; and a
// Tanh of 65536 elements is the same layer as [1, 128, 512] and [256, 256].
TEST(LayerSample, ReductionAndElementwiseFeaturesIgnoreTheRank) {
  auto features = [](const std::string& op, std::vector<DimSpec> dims, auto&& attributes) {
    ModelBuilder b;
    b.input("x", dims).output("y");
    std::vector<std::string> inputs{"x"};
    if (op == "LayerNormalization") {
      auto width = std::get<int64_t>(dims.back());
      b.weight("scale", {width}).weight("bias", {width});
      inputs = {"x", "scale", "bias"};
    }
    attributes(b.node(op, inputs, {"y"}, "layer"));
    auto r = analyze_file(b.save("features_" + op));
    const auto& g = r.model.graph;
    return calib::features_of(g, g.nodes[0], r.cost.nodes[0]);
  };
  auto none = [](::onnx::NodeProto&) {};
  auto last_axis = [](::onnx::NodeProto& n) { set_int(n, "axis", -1); };
  auto rows_of = [&](const std::string& op, std::vector<DimSpec> dims, auto&& attributes) {
    auto f = features(op, std::move(dims), attributes);
    EXPECT_EQ(f.batch, calib::LayerFeatures{}.batch) << op;  // the default: no batch of its own
    EXPECT_EQ(f.in_channels, 0) << op;
    return std::pair{f.m, f.k};
  };
  using Rows = std::pair<double, double>;
  EXPECT_EQ(rows_of("Softmax", {int64_t{1}, int64_t{128}, int64_t{512}}, last_axis), Rows(128, 512));
  EXPECT_EQ(rows_of("Softmax", {int64_t{128}, int64_t{512}}, last_axis), Rows(128, 512));
  EXPECT_EQ(rows_of("LayerNormalization", {int64_t{2}, int64_t{64}, int64_t{96}}, none), Rows(128, 96));
  for (int64_t keep : {0, 1}) {
    auto reduce_last = [keep](::onnx::NodeProto& n) {
      set_ints(n, "axes", {2});
      set_int(n, "keepdims", keep);
    };
    EXPECT_EQ(rows_of("ReduceMean", {int64_t{4}, int64_t{6}, int64_t{10}}, reduce_last), Rows(24, 10)) << keep;
  }
  // A Cast does no arithmetic: it is timed as the copy it is, not as an elementwise op of zero FLOPs.
  auto to_half = [](::onnx::NodeProto& n) { set_int(n, "to", ::onnx::TensorProto::FLOAT16); };
  EXPECT_EQ(features("Cast", {int64_t{128}, int64_t{128}}, to_half).kind, calib::Kind::kDataMovement);
  EXPECT_EQ(features("Tanh", {int64_t{128}, int64_t{128}}, none).kind, calib::Kind::kElementwise);
  auto a = calib::feature_vector(features("Tanh", {int64_t{1}, int64_t{128}, int64_t{512}}, none));
  auto b = calib::feature_vector(features("Tanh", {int64_t{256}, int64_t{256}}, none));
  EXPECT_EQ(a, b);
  // A convolution keeps its batch and channels (the kinds where they are what the kernel loops over).
  LayerConfig c = conv(0);
  auto r = analyzed(c);
  auto f = calib::features_of(r.model.graph, r.model.graph.nodes[index_of(r.model.graph, "Conv")],
                              r.cost.nodes[index_of(r.model.graph, "Conv")]);
  EXPECT_EQ(f.batch, 2);
  EXPECT_EQ(f.in_channels, 16);
}

// A product by a weight matrix is one GEMM over every row of its first operand: ViT's in-projection [197, 1, 768] x
// [768, 2304] has m = 197 and no batch, as [197, 768] x [768, 2304] has; a product of two 3-D operands (attention's
// scores) keeps its batch.
TEST(LayerSample, AProductByAMatrixFoldsTheLeadingDimsIntoItsRows) {
  auto features = [](std::vector<DimSpec> a, std::vector<DimSpec> b_dims, bool weight) {
    ModelBuilder b;
    b.input("a", a).output("y");
    if (weight) {
      std::vector<int64_t> w;
      for (auto d : b_dims) w.push_back(std::get<int64_t>(d));
      b.weight("b", w);
    } else {
      b.input("b", b_dims);
    }
    b.node("MatMul", {"a", "b"}, {"y"}, "product");
    auto r = analyze_file(b.save(fmt::format("fold_{}_{}", a.size(), weight)));
    return calib::features_of(r.model.graph, r.model.graph.nodes[0], r.cost.nodes[0]);
  };
  auto seq_first = features({int64_t{197}, int64_t{1}, int64_t{768}}, {int64_t{768}, int64_t{2304}}, true);
  auto flat = features({int64_t{197}, int64_t{768}}, {int64_t{768}, int64_t{2304}}, true);
  EXPECT_EQ(seq_first.m, 197);
  EXPECT_EQ(seq_first.n, 2304);
  EXPECT_EQ(seq_first.k, 768);
  EXPECT_EQ(seq_first.batch, 1);
  EXPECT_EQ(calib::feature_vector(seq_first), calib::feature_vector(flat));
  auto scores = features({int64_t{12}, int64_t{197}, int64_t{64}}, {int64_t{12}, int64_t{64}, int64_t{197}}, false);
  EXPECT_EQ(scores.m, 197);
  EXPECT_EQ(scores.batch, 12);
}

TEST(LayerSample, DepthwiseIsAGroupedConvolutionOneGroupPerChannel) {
  LayerConfig c{"depthwise",
                {{"batch", 1}, {"channels", 32}, {"size", 28}, {"kernel", 3}, {"stride", 1}, {"epilogue", 0}}};
  auto r = analyzed(c);
  const auto& g = r.model.graph;
  auto at = static_cast<size_t>(index_of(g, "Conv"));
  auto f = calib::features_of(g, g.nodes[at], r.cost.nodes[at]);
  EXPECT_EQ(f.kind, Kind::kGroupedConv);
  EXPECT_EQ(f.groups, 32);
  EXPECT_EQ(f.kernel, 9);
  EXPECT_EQ(r.cost.nodes[at].macs, 32 * 28 * 28 * 9);
}

TEST(LayerSample, OptimizedModeFusesTheEpilogueAsTheExecutorDoes) {
  // Conv -> BatchNormalization -> Add(residual) -> Relu between the two edges: eager runs six
  // nodes, optimized three (the edges and one fused layer).
  auto r = analyzed(conv(3));
  const auto& g = r.model.graph;
  ASSERT_EQ(g.nodes.size(), 6u);
  auto plan = calib::plan_fusion(g, r.cost, r.model.directory);
  EXPECT_EQ(plan.executed(), 3);
  int leader = index_of(g, "Conv");
  auto f = calib::layer_features(g, r.cost, plan, leader, 1);
  EXPECT_EQ(f.fused_ops, 3);
  EXPECT_EQ(calib::no_fusion(g).executed(), 6);

  // The linear layer's GELU epilogue is the Erf chain PyTorch exports: eager runs every node.
  LayerConfig linear{"linear", {{"rows", 8}, {"inputs", 64}, {"outputs", 32}, {"form", 0}, {"epilogue", 5}}};
  auto lr = analyzed(linear);
  std::multiset<std::string> ops;
  for (const auto& n : lr.model.graph.nodes) ops.insert(n.op_type);
  EXPECT_EQ(ops, (std::multiset<std::string>{"MatMul", "Add", "Div", "Erf", "Add", "Mul", "Mul"}));
}

TEST(LayerSample, LargeWeightsAreReadFromMemoryNotCache) {
  // 1024 x 1024 fp32 weights (4 MB): a node streaming twice the last-level cache runs first, as the
  // rest of a network would between two runs of this layer; small weights need none.
  LayerConfig big{"linear", {{"rows", 1}, {"inputs", 1024}, {"outputs", 1024}, {"form", 1}, {"epilogue", 0}}};
  auto r = analyzed(big);
  const auto& g = r.model.graph;
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].name, "edge_flush");
  // Twice the last-level cache streamed: 8 to 64 MB of floats read (and as many written).
  auto flushed = g.value(g.nodes[0].inputs[0]).shape[0].value;
  EXPECT_GE(flushed, int64_t{2} << 20);
  EXPECT_LE(flushed, int64_t{16} << 20);
  LayerConfig small{"linear", {{"rows", 1}, {"inputs", 256}, {"outputs", 256}, {"form", 1}, {"epilogue", 0}}};
  EXPECT_EQ(analyzed(small).model.graph.nodes.size(), 1u);
}

TEST(LayerSample, EveryTemplateBuildsAndCosts) {
  auto configs = calib::draw_configs(2, 7);
  std::set<std::string> layers;
  for (const auto& c : configs) {
    layers.insert(c.layer);
    auto r = analyzed(c);
    EXPECT_TRUE(r.cost.unknown_ops.empty()) << c.label();
    EXPECT_TRUE(r.cost.unresolved_ops.empty()) << c.label();
    // The draw keeps each measurement small; the large convolutions (VGG's and YOLO's at batch 8) stay under 32 GFLOP.
    EXPECT_LE(static_cast<double>(r.cost.totals.flops), c.layer == "large_conv" ? 32e9 : 8e9) << c.label();
    // A pool is padded only where its window has a centre; 5x5 windows are SPP's, stride 1.
    // MobileNetV2's expanded maps, and projections no wider than twice the block's input.
    if (c.layer == "inverted_residual") {
      double expanded = static_cast<double>(c.param.at("channels") * c.param.at("expansion") * c.param.at("size") *
                                            c.param.at("size"));
      EXPECT_LE(expanded, 3.5e6) << c.label();
      EXPECT_LE(c.param.at("filters"), 2 * c.param.at("channels")) << c.label();
    }
    if (c.layer == "pool") {
      EXPECT_TRUE(c.param.at("padding") == 0 || c.param.at("kernel") % 2 == 1) << c.label();
      EXPECT_TRUE(c.param.at("kernel") != 5 || c.param.at("stride") == 1) << c.label();
    }
  }
  auto names = calib::layer_templates();
  EXPECT_EQ(layers, std::set<std::string>(names.begin(), names.end()));
}

// MobileNetV2's block: expansion, depthwise and projection each sampled as they run inside the network (eager: the
// three convolutions, their two ReLU6 Clips and the residual Add apart; optimized: three fused layers), with the
// features of the layer they are (1x1 16 -> 96, depthwise 96 at 3x3, 1x1 96 -> 16 with the residual).
TEST(LayerSample, AnInvertedResidualBlockSamplesEachOfItsLayers) {
  LayerConfig block{"inverted_residual",
                    {{"batch", 1},
                     {"channels", 16},
                     {"expansion", 6},
                     {"filters", 16},
                     {"size", 14},
                     {"kernel", 3},
                     {"stride", 1},
                     {"epilogue", 4}}};
  calib::SampleOptions options;
  options.threads = {1};
  options.seconds_per_run = 0.02;
  options.visits = 1;
  auto run = calib::measure_configs(exec::load_engine(), {block}, options, "test", {});
  ASSERT_TRUE(run.failures.empty()) << run.failures.front();
  std::multiset<std::string> eager_ops;
  std::vector<calib::LayerFeatures> fused;
  for (const auto& s : run.samples) {
    if (s.mode == "eager") eager_ops.insert(s.features.op);
    if (s.mode == "optimized") fused.push_back(s.features);
  }
  EXPECT_EQ(eager_ops, (std::multiset<std::string>{"Conv", "Conv", "Conv", "Clip", "Clip", "Add"}));
  ASSERT_EQ(fused.size(), 3u);
  std::sort(fused.begin(), fused.end(), [](const auto& a, const auto& b) { return a.in_channels < b.in_channels; });
  EXPECT_EQ(fused[0].kind, Kind::kConv);  // the expansion
  EXPECT_EQ(fused[0].out_channels, 96);
  EXPECT_EQ(fused[0].kernel, 1);
  for (size_t i : {1, 2}) EXPECT_EQ(fused[i].in_channels, 96);
  auto depthwise = fused[1].kind == Kind::kGroupedConv ? fused[1] : fused[2];
  auto projection = fused[1].kind == Kind::kGroupedConv ? fused[2] : fused[1];
  EXPECT_EQ(depthwise.kind, Kind::kGroupedConv);
  EXPECT_EQ(depthwise.groups, 96);
  EXPECT_EQ(projection.kind, Kind::kConv);
  EXPECT_EQ(projection.out_channels, 16);
  for (const auto& f : fused) EXPECT_EQ(f.fused_ops, 1) << f.in_channels;  // Clip, Clip, the residual Add
  // A block that changes its shape (stride 2) has no residual; without expansion there is no first 1x1.
  block.param["stride"] = 2;
  block.param["expansion"] = 1;
  block.param["size"] = 56;
  auto g = calib::build_layer_model(block).graph;
  int convs = 0, adds = 0;
  for (const auto& n : g.nodes) {
    if (n.op_type == "Conv" && n.name.rfind("edge_", 0) != 0) ++convs;
    if (n.op_type == "Add") ++adds;
  }
  EXPECT_EQ(convs, 2);
  EXPECT_EQ(adds, 0);
}

TEST(LayerSample, DrawIsDeterministicAndDistinct) {
  auto a = calib::draw_configs(4, 11), b = calib::draw_configs(4, 11), c = calib::draw_configs(4, 12);
  ASSERT_EQ(a.size(), b.size());
  std::set<std::string> labels;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].label(), b[i].label());
    labels.insert(a[i].label());
  }
  EXPECT_EQ(labels.size(), a.size());
  bool differs = a.size() != c.size();
  for (size_t i = 0; !differs && i < a.size(); ++i) differs = a[i].label() != c[i].label();
  EXPECT_TRUE(differs);
}

TEST(LayerSample, NeighboursAreOneGridStepAway) {
  auto base = conv(1);
  base.param["channels"] = 64;  // mid-grid: both directions exist
  base.param["size"] = 56;      // a shape real networks have (the draw rejects others)
  auto near = calib::neighbours(base, 6, 3);
  ASSERT_FALSE(near.empty());
  for (const auto& n : near) {
    EXPECT_EQ(n.layer, "conv");
    int changed = 0;
    for (const auto& [key, value] : n.param) changed += value != base.param.at(key);
    EXPECT_GE(changed, 1) << n.label();
    EXPECT_LE(changed, 2) << n.label();
  }
  // channels 64 sits between 32 and 96 in the grid: a changed channel count is one of those.
  for (const auto& n : near)
    if (n.param.at("channels") != 64) {
      EXPECT_TRUE(n.param.at("channels") == 32 || n.param.at("channels") == 96);
    }
}

TEST(LayerSample, RefusesUnknownTemplatesAndMissingParameters) {
  EXPECT_THROW(calib::build_layer_model({"nonsense", {}}), Error);
  EXPECT_THROW(calib::build_layer_model({"conv", {{"batch", 1}}}), Error);
}

TEST(LayerSample, MeasuresEveryExecutedLayerInEachMode) {
  auto& engine = exec::load_engine();
  calib::SampleOptions options;
  options.threads = {1};
  options.seconds_per_run = 0.02;
  LayerConfig chain{"chain", {{"length", 4}}};
  auto run = calib::measure_configs(engine, {conv(3), chain}, options, "test", {});
  EXPECT_TRUE(run.failures.empty()) << run.failures.front();
  EXPECT_EQ(run.configurations, 2);
  // Eager: conv, bn, add, relu + 4 chain nodes; optimized: one fused conv + 4 chain nodes (the
  // layout edges run but are not samples).
  int eager = 0, optimized = 0;
  for (const auto& s : run.samples) {
    EXPECT_GT(s.measured_s, 0) << s.label;
    EXPECT_EQ(s.source, "layer-sample");
    EXPECT_FALSE(s.environment.at("timestamp").empty());
    if (s.mode == "eager") ++eager;
    if (s.mode == "optimized") {
      ++optimized;
      if (s.features.op == "Conv") {
        EXPECT_EQ(s.features.fused_ops, 3);
      }
    }
  }
  EXPECT_EQ(eager, 8);
  EXPECT_EQ(optimized, 5);
  ASSERT_EQ(run.overheads.size(), 4u);  // one per configuration and mode
  EXPECT_EQ(run.overheads[0].nodes, 6);
  EXPECT_EQ(run.overheads[1].nodes, 3);
  for (const auto& o : run.overheads) {
    EXPECT_GT(o.run_s, 0);
    EXPECT_GT(o.node_sum_s, 0);
    EXPECT_EQ(o.threads, 1);
  }
}

TEST(LayerSample, PlanAndExecutorAgreeOnTheFusedGeluChain) {
  // MatMul + bias + the Erf form of GELU: the executor fuses the whole chain into the product
  // (found numerically); the plan must find the same single layer by structure.
  LayerConfig linear{"linear", {{"rows", 8}, {"inputs", 64}, {"outputs", 32}, {"form", 0}, {"epilogue", 5}}};
  auto r = analyzed(linear);
  auto plan = calib::plan_fusion(r.model.graph, r.cost, r.model.directory);
  EXPECT_EQ(plan.executed(), 1);
  auto f = calib::layer_features(r.model.graph, r.cost, plan, index_of(r.model.graph, "MatMul"), 1);
  EXPECT_EQ(f.fused_ops, 6);

  calib::SampleOptions options;
  options.threads = {1};
  options.modes = {exec::Mode::kOptimized};
  options.seconds_per_run = 0.02;
  auto run = calib::measure_configs(exec::load_engine(), {linear}, options, "test", {});
  ASSERT_EQ(run.overheads.size(), 1u);
  EXPECT_EQ(run.overheads[0].nodes, plan.executed());
  ASSERT_EQ(run.samples.size(), 1u);
  EXPECT_EQ(run.samples[0].features.fused_ops, 6);
}

// YOLO's convolutions end in SiLU (x * Sigmoid(x)): eager runs the Sigmoid and the Mul as nodes of their own, optimized
// mode fuses both into the convolution, and the plan finds the same single layer the executor runs.
TEST(LayerSample, ASiluEpilogueFusesIntoItsConvolution) {
  auto c = conv(7);
  auto r = analyzed(c);
  std::multiset<std::string> ops;
  for (const auto& n : r.model.graph.nodes) ops.insert(n.op_type);
  EXPECT_EQ(ops, (std::multiset<std::string>{"Conv", "Conv", "Conv", "Sigmoid", "Mul"}));
  auto plan = calib::plan_fusion(r.model.graph, r.cost, r.model.directory);
  EXPECT_EQ(plan.executed(), 3);  // the two edges and the fused layer
  auto f = calib::layer_features(r.model.graph, r.cost, plan, index_of(r.model.graph, "Conv"), 1);
  EXPECT_EQ(f.fused_ops, 2);

  calib::SampleOptions options;
  options.threads = {1};
  options.seconds_per_run = 0.02;
  auto run = calib::measure_configs(exec::load_engine(), {c}, options, "test", {});
  std::map<std::string, std::multiset<std::string>> measured;  // by mode
  for (const auto& s : run.samples) measured[s.mode].insert(s.features.op);
  EXPECT_EQ(measured["eager"], (std::multiset<std::string>{"Conv", "Sigmoid", "Mul"}));
  EXPECT_EQ(measured["optimized"], (std::multiset<std::string>{"Conv"}));
  for (const auto& o : run.overheads) EXPECT_EQ(o.nodes, o.mode == "optimized" ? plan.executed() : 5) << o.mode;
}

// The recurrent template: one LSTM over 16 steps of a batch of 2, 64 inputs, 128 hidden. Each step multiplies
// [2, 64 + 128] by [192, 4 x 128] (the gates), so the features are per step: m 2, n 512, k 192, 16 steps. It runs
// on the executor and is measured as kind recurrent (the LSTM model's layers were kind "other", never sampled).
TEST(LayerSample, RecurrentLayersAreSampledPerStep) {
  LayerConfig lstm{"recurrent", {{"op", 0}, {"steps", 16}, {"batch", 2}, {"input", 64}, {"hidden", 128}}};
  auto r = analyzed(lstm);
  auto n = index_of(r.model.graph, "LSTM");
  auto f = calib::layer_features(r.model.graph, r.cost, calib::no_fusion(r.model.graph), n, 1);
  EXPECT_EQ(f.kind, calib::Kind::kRecurrent);
  EXPECT_EQ(f.m, 2);
  EXPECT_EQ(f.n, 512);
  EXPECT_EQ(f.k, 192);
  EXPECT_EQ(f.in_spatial, 16);
  EXPECT_EQ(f.batch, 2);
  EXPECT_EQ(f.out_channels, 128);
  // The cost's MACs: 16 steps x 2 rows x (64 + 128) x 512.
  EXPECT_EQ(r.cost.nodes[static_cast<size_t>(n)].macs, 16 * 2 * 192 * 512);

  LayerConfig gru{"recurrent", {{"op", 1}, {"steps", 4}, {"batch", 1}, {"input", 32}, {"hidden", 32}}};
  auto g = analyzed(gru);
  const auto& gg = g.model.graph;
  EXPECT_EQ(calib::layer_features(gg, g.cost, calib::no_fusion(gg), index_of(gg, "GRU"), 1).n, 3 * 32);  // 3 gates

  calib::SampleOptions options;
  options.threads = {1};
  options.modes = {exec::Mode::kEager};
  options.seconds_per_run = 0.02;
  auto run = calib::measure_configs(exec::load_engine(), {lstm, gru}, options, "test", {});
  EXPECT_TRUE(run.failures.empty()) << run.failures.front();
  ASSERT_EQ(run.samples.size(), 2u);
  for (const auto& s : run.samples) {
    EXPECT_EQ(s.features.kind, calib::Kind::kRecurrent) << s.label;
    EXPECT_GT(s.measured_s, 0) << s.label;
  }
}

// The templates of what a network's memory-bound layers read: a Concat whose parts were each just written by a
// producer (as DenseNet's are), a BatchNormalization between two, Resize's upsampling by 2 (nearest and bilinear), and
// a vision transformer's patch embedding. The producers are edges: run, never sampled.
TEST(LayerSample, MemoryBoundLayersReadWhatAProducerWrote) {
  LayerConfig concat{"concat", {{"batch", 1}, {"parts", 3}, {"channels", 16}, {"size", 14}}};
  auto r = analyzed(concat);
  const auto& g = r.model.graph;
  ASSERT_EQ(g.nodes.size(), 4u);  // three producers and the Concat
  auto at = static_cast<size_t>(index_of(g, "Concat"));
  for (auto in : g.nodes[at].inputs) EXPECT_FALSE(g.value(in).is_graph_input) << g.value(in).name;
  EXPECT_EQ(graph::to_string(g.value(g.outputs[0]).shape), "1x48x14x14");
  // A copy: 3 x 16 x 14 x 14 floats read and written.
  EXPECT_EQ(r.cost.nodes[at].bytes(), 2 * 3 * 16 * 14 * 14 * 4);

  LayerConfig nearest{"resize", {{"op", 0}, {"batch", 2}, {"channels", 32}, {"size", 20}}};
  LayerConfig linear{"resize", {{"op", 1}, {"batch", 1}, {"channels", 32}, {"size", 7}}};
  auto up = analyzed(nearest);
  EXPECT_EQ(graph::to_string(up.model.graph.value(up.model.graph.outputs[0]).shape), "2x32x40x40");
  const auto& resize = up.model.graph.nodes[static_cast<size_t>(index_of(up.model.graph, "Resize"))];
  EXPECT_EQ(resize.get_string("mode", ""), "nearest");
  EXPECT_EQ(resize.input(1), graph::kNoValue);  // no roi: an optional input left out, as exporters write it

  LayerConfig patch{"patch", {{"batch", 2}, {"patch", 16}, {"filters", 768}}};
  auto pr = analyzed(patch);
  auto pn = static_cast<size_t>(index_of(pr.model.graph, "Conv"));
  // 224 / 16 = 14 patches a side; each output reads a 16 x 16 x 3 patch once.
  EXPECT_EQ(graph::to_string(pr.model.graph.value(pr.model.graph.outputs[0]).shape), "2x768x14x14");
  EXPECT_EQ(pr.cost.nodes[pn].macs, 2 * 768 * 14 * 14 * 3 * 16 * 16);

  // A pool after its producer's ReLU, padded and rounding up as GoogLeNet's: 112 + 2 - 3 = 111 over stride 2 is 55.5,
  // up to 56 windows after the first, 57; rounding down, 56. Unpadded, a 3x3 window of 112 rounds up to 56.
  auto pool = [](int64_t padding, int64_t ceil) {
    return LayerConfig{"pool",
                       {{"op", 0},
                        {"batch", 1},
                        {"channels", 64},
                        {"size", 112},
                        {"kernel", 3},
                        {"stride", 2},
                        {"padding", padding},
                        {"ceil", ceil}}};
  };
  auto out_shape = [](const LayerConfig& c) {
    auto a = analyzed(c);
    const auto& pg = a.model.graph;
    const auto& node = pg.nodes[static_cast<size_t>(index_of(pg, "MaxPool"))];
    EXPECT_EQ(pg.nodes[static_cast<size_t>(index_of(pg, "MaxPool")) - 1].op_type, "Relu");
    return graph::to_string(pg.value(node.outputs[0]).shape);
  };
  EXPECT_EQ(out_shape(pool(1, 1)), "1x64x57x57");
  EXPECT_EQ(out_shape(pool(1, 0)), "1x64x56x56");
  EXPECT_EQ(out_shape(pool(0, 1)), "1x64x56x56");
  EXPECT_EQ(out_shape(pool(0, 0)), "1x64x55x55");

  calib::SampleOptions options;
  options.threads = {1};
  options.seconds_per_run = 0.02;
  LayerConfig bn{"batchnorm", {{"batch", 1}, {"channels", 16}, {"size", 14}}};
  auto run = calib::measure_configs(exec::load_engine(), {concat, nearest, linear, patch, bn, pool(1, 1)}, options,
                                    "test", {});
  EXPECT_TRUE(run.failures.empty()) << run.failures.front();
  std::map<std::string, std::multiset<std::string>> ops;  // by mode
  for (const auto& s : run.samples) {
    EXPECT_GT(s.measured_s, 0) << s.label;
    ops[s.mode].insert(s.features.op);
  }
  // One sample per sampled layer in each mode; no producer or consumer edge among them. In optimized mode too the
  // BatchNormalization is a layer of its own: a producer ending in a convolution would have it folded away.
  std::multiset<std::string> layers{"BatchNormalization", "Concat", "Conv", "MaxPool", "Resize", "Resize"};
  EXPECT_EQ(ops["eager"], layers);
  EXPECT_EQ(ops["optimized"], layers);
}

// Transcendental elementwise ops are told apart from arithmetic of the same size: ridge counts a FLOP per element for
// both, and on a CPU an Erf runs at a twentieth of an Add's rate.
TEST(LayerSample, TheFeaturesSayWhetherAnOpIsTranscendental) {
  const auto& names = calib::feature_names();
  auto column = static_cast<size_t>(std::find(names.begin(), names.end(), "transcendental") - names.begin());
  ASSERT_LT(column, names.size());
  calib::LayerFeatures f;
  f.kind = Kind::kElementwise;
  for (const auto& [op, expected] : std::map<std::string, double>{
           {"Erf", 1}, {"Tanh", 1}, {"Sigmoid", 1}, {"Exp", 1}, {"Add", 0}, {"Relu", 0}, {"Mul", 0}, {"Sqrt", 0}}) {
    f.op = op;
    EXPECT_EQ(calib::feature_vector(f).at(column), expected) << op;
  }
}

// An engine that runs nothing: every node it runs takes 1 ms in the per-node pass, and the whole run takes
// `run_share` of the node sum in each mode (1 where not set). On a GPU (a fake one) a CUDA graph takes half: the
// replay does not wait on the host.
class FakeEngine : public exec::Engine {
 public:
  explicit FakeEngine(bool gpu) : gpu_(gpu) {
    if (gpu) run_share[exec::Mode::kCudaGraph] = 0.5;
  }
  std::map<exec::Mode, double> run_share;
  std::set<int> slow_calls;  // bench calls (counted from 0) that take three times as long, nodes and run alike
  int calls = 0;
  std::vector<exec::Mode> modes_seen;
  std::vector<int> threads_seen;
  std::vector<std::string> op_types() const override { return {}; }
  exec::Environment environment(const exec::ExecOptions&) const override {
    exec::Environment env;
    if (gpu_) env.device = "cuda:0 Fake GPU";
    return env;
  }
  exec::RunOutput run(const graph::Model&, const std::vector<exec::HostTensor>&, const exec::ExecOptions&) override {
    throw Error("not used");
  }
  exec::BenchResult bench(const graph::Model& model, const std::vector<exec::HostTensor>&,
                          const exec::BenchOptions& options) override {
    modes_seen.push_back(options.exec.mode);
    threads_seen.push_back(options.exec.threads);
    exec::BenchResult r;
    r.environment = environment(options.exec);
    const double node_ms = slow_calls.count(calls++) ? 3.0 : 1.0;
    for (const auto& node : model.graph.nodes) {
      bool folded = !node.outputs.empty();
      for (auto id : node.outputs) folded = folded && model.graph.value(id).constant;
      if (!folded) r.nodes.push_back({node.name, node.op_type, node_ms});
    }
    r.executed_nodes = static_cast<int64_t>(r.nodes.size());
    double sum_ms = node_ms * static_cast<double>(r.nodes.size());
    auto share = run_share.find(options.exec.mode);
    r.latency_ms.median = r.latency_ms.mean = sum_ms * (share == run_share.end() ? 1.0 : share->second);
    return r;
  }

 private:
  bool gpu_;
};

// A CPU run whose profiled passes sum to more than the timed runs' median (a stall that fell in them, the timers'
// own cost) has its node times scaled down alike to the run, as bench runs are; one whose nodes sum to less keeps
// them, the rest being the framework's time.
TEST(LayerSample, OnTheCpuNodeTimesAreAnchoredToTheirRun) {
  FakeEngine engine(false);
  engine.run_share = {{exec::Mode::kEager, 0.5}, {exec::Mode::kOptimized, 2.0}};
  calib::SampleOptions options;
  options.threads = {2};
  LayerConfig chain{"chain", {{"length", 4}}};
  auto run = calib::measure_configs(engine, {conv(3), chain}, options, "test", {});
  EXPECT_TRUE(run.failures.empty()) << run.failures.front();
  EXPECT_EQ(run.runs, 4);
  EXPECT_EQ(run.anchored_runs, 2);  // the eager runs
  ASSERT_FALSE(run.samples.empty());
  for (const auto& s : run.samples) EXPECT_DOUBLE_EQ(s.measured_s, s.mode == "eager" ? 0.5e-3 : 1e-3) << s.label;
  ASSERT_EQ(run.overheads.size(), 4u);
  for (const auto& o : run.overheads) {
    if (o.mode == "eager") {
      EXPECT_NEAR(o.node_sum_s, o.run_s, 1e-12);
    } else {
      EXPECT_NEAR(o.node_sum_s, o.nodes * 1e-3, 1e-12);
      EXPECT_NEAR(o.run_s, 2 * o.node_sum_s, 1e-12);
    }
  }
  // The whole sample, its refinement round included, counts every run it scaled.
  options.per_template = 1;
  options.quick = true;
  auto all = calib::run_layer_sample(engine, options);
  EXPECT_TRUE(all.failures.empty()) << all.failures.front();
  EXPECT_EQ(all.runs, 2 * all.configurations);
  EXPECT_EQ(all.anchored_runs * 2, all.runs);
}

// Each configuration is visited in passes over the whole list and keeps its fastest visit: a run slowed by the
// machine's other tenants (three times as long here) in either pass is not what the fit sees. One visit keeps it.
TEST(LayerSample, EachConfigurationKeepsItsFastestVisit) {
  calib::SampleOptions options;
  options.threads = {1};
  options.modes = {exec::Mode::kEager};
  LayerConfig chain2{"chain", {{"length", 2}}}, chain3{"chain", {{"length", 3}}};
  for (int visits : {1, 2}) {
    FakeEngine engine(false);
    engine.slow_calls = {0, 3};  // the first configuration's first visit, the second's second
    options.visits = visits;
    std::vector<calib::SampleProgress> progress;
    auto run = calib::measure_configs(engine, {chain2, chain3}, options, "test",
                                      [&](const calib::SampleProgress& p) { progress.push_back(p); });
    EXPECT_TRUE(run.failures.empty()) << run.failures.front();
    EXPECT_EQ(engine.calls, 2 * visits);
    EXPECT_EQ(run.runs, 2);
    ASSERT_EQ(run.overheads.size(), 2u);
    ASSERT_EQ(progress.size(), static_cast<size_t>(2 * visits));
    EXPECT_EQ(progress.back().total, 2 * visits);
    for (const auto& s : run.samples) {
      bool first = s.label.rfind(chain2.label() + " ", 0) == 0;
      EXPECT_DOUBLE_EQ(s.measured_s, visits == 1 && first ? 3e-3 : 1e-3) << visits << " " << s.label;
    }
    EXPECT_NEAR(run.overheads[0].run_s, visits == 1 ? 6e-3 : 2e-3, 1e-12);
    EXPECT_NEAR(run.overheads[1].run_s, 3e-3, 1e-12);
    if (visits == 2) {
      EXPECT_EQ(progress.back().stage, "test, visit 2 of 2");
    }
  }
}

// The layer sample on the GPU executor (calibrate --sample with a GPU device file): modes eager and cuda-graph, no
// thread count; node times kept as measured (a replay's nodes come from an eager pass: 1 ms each against a replay
// of half their sum), every sample naming the run whose time the GPU fit sets them against.
TEST(LayerSample, OnTheGpuNodeTimesAreKeptAndNameTheirRun) {
  FakeEngine engine(true);
  calib::SampleOptions options;
  options.gpu = true;
  options.threads = {0};
  options.modes = {exec::Mode::kEager, exec::Mode::kCudaGraph};
  LayerConfig chain{"chain", {{"length", 4}}};
  auto run = calib::measure_configs(engine, {conv(3), chain}, options, "test", {});
  EXPECT_TRUE(run.failures.empty()) << run.failures.front();
  EXPECT_EQ(engine.modes_seen.size(), 4u);
  for (int t : engine.threads_seen) EXPECT_EQ(t, 0);
  int eager = 0, graph = 0;
  std::set<std::string> runs;
  for (const auto& o : run.overheads) runs.insert(o.run);
  EXPECT_EQ(runs.size(), run.overheads.size());  // one name per run
  for (const auto& s : run.samples) {
    EXPECT_EQ(s.features.threads, 0) << s.label;
    EXPECT_EQ(s.environment.at("device"), "cuda:0 Fake GPU");
    EXPECT_DOUBLE_EQ(s.measured_s, 1e-3) << s.label;
    EXPECT_TRUE(runs.count(s.run)) << s.run;
    EXPECT_NE(s.run.find(s.mode), std::string::npos) << s.run;
    if (s.mode == "eager") {
      ++eager;
    } else {
      ASSERT_EQ(s.mode, "cuda-graph");
      ++graph;
    }
  }
  EXPECT_GT(eager, 0);
  EXPECT_EQ(eager, graph);  // the GPU's plan fuses nothing: the same layers in both modes
  for (const auto& o : run.overheads) {
    if (o.mode == "cuda-graph")
      EXPECT_NEAR(o.run_s, o.node_sum_s / 2, 1e-12);
    else
      EXPECT_NEAR(o.run_s, o.node_sum_s, 1e-12);
  }
}

}  // namespace
}  // namespace ridge::test
