// Optimized mode's oneDNN layers against eager mode (ATen's own kernels running the graph as
// exported): convolutions with asymmetric pads, strides, dilations and groups, depthwise ones,
// fully connected layers in both weight orientations, and the activations fused into them
// (Clip with input bounds, Clip with attribute bounds, Relu, SiLU, the Erf form of GELU) and
// residual Adds. Layers whose output has a second reader keep their activation separate.
#include <gtest/gtest.h>

#include <cmath>
#include <dnnl.hpp>

#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/model_builder.h"
#include "support/scoped_env.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

std::vector<float> wave(size_t n, float scale, float phase) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.37f * static_cast<float>(i) + phase);
  return v;
}

struct Runs {
  exec::RunOutput eager, optimized;
};

Runs run_both(const std::string& path, const std::vector<exec::HostTensor>& inputs) {
  analysis::Request request;
  request.model_path = path;
  auto prepared = exec::prepare(request, "");
  auto& engine = exec::load_engine();
  exec::ExecOptions optimized;
  optimized.mode = exec::Mode::kOptimized;
  return {engine.run(prepared.analysis.model, inputs, {}), engine.run(prepared.analysis.model, inputs, optimized)};
}

void expect_same_outputs(const Runs& runs) {
  ASSERT_EQ(runs.eager.outputs.size(), runs.optimized.outputs.size());
  for (size_t o = 0; o < runs.eager.outputs.size(); ++o) {
    auto a = floats(runs.eager.outputs[o]), b = floats(runs.optimized.outputs[o]);
    EXPECT_EQ(runs.eager.outputs[o].dims, runs.optimized.outputs[o].dims) << "output " << o;
    ASSERT_EQ(a.size(), b.size()) << "output " << o;
    double largest = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_NEAR(a[i], b[i], 1e-5 + 1e-5 * std::fabs(a[i])) << "output " << o << " element " << i;
      largest = std::max(largest, static_cast<double>(std::fabs(a[i])));
    }
    EXPECT_GT(largest, 0.05) << "output " << o << " is all (near) zeros: the comparison would prove nothing";
  }
}

// x[2,4,9,8] -> grouped, strided, dilated Conv with asymmetric pads -> Clip(-0.3, 0.4) = y1
//            -> depthwise Conv -> Relu -> 1x1 Conv = c3 -> Relu = r3; y3 = c3 + r3 (c3 has two readers).
TEST(ExecutorFusion, ConvolutionsWithFusedActivationsMatchEager) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{4}, int64_t{9}, int64_t{8}}).output("y1").output("y3");
  b.weight_values("w1", {6, 2, 3, 3}, wave(6 * 2 * 9, 0.4f, 0.1f))
      .weight_values("b1", {6}, wave(6, 0.2f, 1.0f))
      .weight_values("lo", {}, {-0.3f})
      .weight_values("hi", {}, {0.4f})
      .weight_values("w2", {6, 1, 3, 3}, wave(6 * 9, 0.5f, 2.0f))
      .weight_values("w3", {3, 6, 1, 1}, wave(18, 0.6f, 3.0f))
      .weight_values("b3", {3}, {0.05f, -0.1f, 0.02f});
  auto& conv1 = b.node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1");
  set_int(conv1, "group", 2);
  set_ints(conv1, "strides", {2, 1});
  set_ints(conv1, "dilations", {1, 2});
  set_ints(conv1, "pads", {1, 0, 0, 2});
  b.node("Clip", {"c1", "lo", "hi"}, {"y1"}, "clip1");
  auto& conv2 = b.node("Conv", {"y1", "w2"}, {"c2"}, "conv2");
  set_int(conv2, "group", 6);
  set_ints(conv2, "pads", {1, 1, 1, 1});
  b.node("Relu", {"c2"}, {"r2"}, "relu2");
  b.node("Conv", {"r2", "w3", "b3"}, {"c3"}, "conv3");
  b.node("Relu", {"c3"}, {"r3"}, "relu3");
  b.node("Add", {"c3", "r3"}, {"y3"}, "add3");
  auto path = b.save("fused_convs");
  // Each layer on channels-last activations, on oneDNN's blocked layout with reorders around it, and as the first
  // run's timing chooses (onednn.cpp).
  for (const char* layout : {"channels-last", "blocked", "timed"}) {
    SCOPED_TRACE(layout);
    ScopedEnvironment env("RIDGE_ONEDNN_CONV_LAYOUT", layout);
    auto runs = run_both(path, {float_tensor("x", {2, 4, 9, 8}, wave(2 * 4 * 9 * 8, 1.0f, 0.0f))});
    // Output height (9 + 1 + 0 - 3) / 2 + 1 = 4, width (8 + 0 + 2 - 5) / 1 + 1 = 6.
    EXPECT_EQ(runs.optimized.outputs.at(0).dims, (std::vector<int64_t>{2, 6, 4, 6}));
    ASSERT_FALSE(runs.optimized.notes.empty());
    EXPECT_NE(runs.optimized.notes.front().find("2 activations fused"), std::string::npos)
        << runs.optimized.notes.front();
    expect_same_outputs(runs);
    // The clip really clips: the fused output keeps to its bounds and reaches them.
    auto y1 = floats(runs.optimized.outputs.at(0));
    EXPECT_FLOAT_EQ(*std::min_element(y1.begin(), y1.end()), -0.3f);
    EXPECT_FLOAT_EQ(*std::max_element(y1.begin(), y1.end()), 0.4f);
  }
}

// Whether oneDNN, left to choose, lays the activations of a 32 -> 32 channel 3x3 convolution with a fused ReLU over
// a 12x12 image out otherwise than channels-last on this CPU (the executor's question, exec/aten/onednn): AVX2's
// kernels choose nChw8c; AVX-512 ones may take channels-last as it is.
bool onednn_prefers_another_layout() {
  using tag = dnnl::memory::format_tag;
  const auto f32 = dnnl::memory::data_type::f32;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::memory::desc any({1, 32, 12, 12}, f32, tag::any), weights({32, 32, 3, 3}, f32, tag::any);
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, any,
                                       weights, any, {1, 1}, {0, 0}, {1, 1}, {1, 1});
  dnnl::post_ops relu;
  relu.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(relu);
  dnnl::convolution_forward::primitive_desc pd(desc, attr, engine);
  dnnl::memory::desc channels_last({1, 32, 12, 12}, f32, tag::nhwc);
  return pd.src_desc() != channels_last || pd.dst_desc() != channels_last;
}

// The profile names the layout a convolution ran on: "direct" on channels-last activations, "direct-blocked" on
// oneDNN's blocked layout, where oneDNN prefers one for the layer on this CPU (forced blocked otherwise, the layer
// has no blocked form and runs channels-last).
TEST(ExecutorFusion, TheProfileNamesTheLayoutAConvolutionRanOn) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{32}, int64_t{12}, int64_t{12}}).output("y");
  b.weight_values("w", {32, 32, 3, 3}, wave(32 * 32 * 9, 0.1f, 0.4f));
  set_ints(b.node("Conv", {"x", "w"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  b.node("Relu", {"c"}, {"y"}, "relu");
  analysis::Request request;
  request.model_path = b.save("conv_layout_profile");
  auto prepared = exec::prepare(request, "");
  for (const auto& [layout, algorithm] :
       {std::pair{"channels-last", "direct+relu"},
        std::pair{"blocked", onednn_prefers_another_layout() ? "direct-blocked+relu" : "direct+relu"}}) {
    ScopedEnvironment env("RIDGE_ONEDNN_CONV_LAYOUT", layout);
    exec::BenchOptions options;
    options.exec.threads = 1;
    options.exec.mode = exec::Mode::kOptimized;
    options.exec.profile_nodes = true;
    options.fixed_iterations = 2;
    options.warmup_seconds = 0;
    auto result = exec::load_engine().bench(prepared.analysis.model, prepared.inputs, options);
    ASSERT_EQ(result.nodes.size(), 1u) << layout;
    EXPECT_EQ(result.nodes[0].algorithm, algorithm) << layout;
  }
}

// SiLU as exporters write it, x * sigmoid(x), with the Mul's operands either way round.
TEST(ExecutorFusion, SiluJoinsItsConvolution) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{6}, int64_t{6}}).output("y").output("y2");
  b.weight_values("w", {4, 3, 3, 3}, wave(4 * 27, 0.5f, 0.7f)).weight_values("w2", {4, 4, 1, 1}, wave(16, 0.5f, 0.2f));
  b.node("Conv", {"x", "w"}, {"c"}, "conv");
  b.node("Sigmoid", {"c"}, {"s"}, "sigmoid");
  b.node("Mul", {"s", "c"}, {"y"}, "mul");
  b.node("Conv", {"y", "w2"}, {"c2"}, "conv2");
  b.node("Sigmoid", {"c2"}, {"s2"}, "sigmoid2");
  b.node("Mul", {"c2", "s2"}, {"y2"}, "mul2");
  auto runs = run_both(b.save("silu"), {float_tensor("x", {1, 3, 6, 6}, wave(108, 1.0f, 0.3f))});
  EXPECT_NE(runs.optimized.notes.front().find("2 activations fused"), std::string::npos)
      << runs.optimized.notes.front();
  expect_same_outputs(runs);
}

// Opset 6: Clip's bounds are attributes.
TEST(ExecutorFusion, ClipWithAttributeBoundsFuses) {
  ModelBuilder b(6);
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{6}, int64_t{6}}).output("y");
  b.weight_values("w", {4, 3, 3, 3}, wave(4 * 27, 0.5f, 0.7f));
  b.node("Conv", {"x", "w"}, {"c"}, "conv");
  auto& clip = b.node("Clip", {"c"}, {"y"}, "clip");
  set_float(clip, "min", 0.0f);
  set_float(clip, "max", 0.5f);
  auto runs = run_both(b.save("clip_attributes"), {float_tensor("x", {1, 3, 6, 6}, wave(108, 1.0f, 0.3f))});
  EXPECT_NE(runs.optimized.notes.front().find("1 activations fused"), std::string::npos)
      << runs.optimized.notes.front();
  expect_same_outputs(runs);
}

// MatMul [2,3,8] x [8,5] + bias, then GELU as exporters write it: x * 0.5 * (1 + erf(x / sqrt 2))
// with the Mul by x first; and Gemm with transB (weight [N, K]) + Relu.
TEST(ExecutorFusion, FullyConnectedLayersWithGeluAndReluMatchEager) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}, int64_t{8}}).input("x2", {int64_t{4}, int64_t{8}}).output("g").output("y2");
  b.weight_values("w", {8, 5}, wave(40, 0.6f, 0.2f))
      .weight_values("bias", {5}, wave(5, 0.3f, 0.9f))
      .weight_values("sqrt2", {}, {std::sqrt(2.0f)})
      .weight_values("one", {}, {1.0f})
      .weight_values("half", {}, {0.5f})
      .weight_values("wt", {5, 8}, wave(40, 0.6f, 1.7f))
      .weight_values("c", {5}, wave(5, 0.3f, 2.5f));
  b.node("MatMul", {"x", "w"}, {"m"}, "fc");
  b.node("Add", {"bias", "m"}, {"h"}, "fc_bias");
  b.node("Div", {"h", "sqrt2"}, {"d"}, "gelu_div");
  b.node("Erf", {"d"}, {"e"}, "gelu_erf");
  b.node("Add", {"e", "one"}, {"a"}, "gelu_add");
  b.node("Mul", {"h", "a"}, {"p"}, "gelu_mul");
  b.node("Mul", {"p", "half"}, {"g"}, "gelu_half");
  set_int(b.node("Gemm", {"x2", "wt", "c"}, {"q"}, "gemm"), "transB", 1);
  b.node("Relu", {"q"}, {"y2"}, "relu");
  auto runs = run_both(b.save("fused_linear"), {float_tensor("x", {2, 3, 8}, wave(48, 1.5f, 0.0f)),
                                                float_tensor("x2", {4, 8}, wave(32, 1.5f, 0.5f))});
  const auto& note = runs.optimized.notes.front();
  EXPECT_NE(note.find("1 bias adds fused"), std::string::npos) << note;
  EXPECT_NE(note.find("2 activations fused"), std::string::npos) << note;
  expect_same_outputs(runs);
  // And against GELU's closed form, computed here from the eager pre-activation.
  auto g = floats(runs.optimized.outputs.at(0));
  auto x = wave(48, 1.5f, 0.0f), w = wave(40, 0.6f, 0.2f), bias = wave(5, 0.3f, 0.9f);
  for (size_t r = 0; r < 6; ++r)
    for (size_t n = 0; n < 5; ++n) {
      double h = bias[n];
      for (size_t k = 0; k < 8; ++k) h += static_cast<double>(x[r * 8 + k]) * w[k * 5 + n];
      EXPECT_NEAR(g[r * 5 + n], 0.5 * h * (1 + std::erf(h / std::sqrt(2.0))), 1e-5) << r << "," << n;
    }
}

// Residual connections: Conv + Add(x) + Relu (ResNet's block end), Conv + SiLU + Add(x) (YOLO's
// bottleneck: the residual after the activation), a residual computed by a node listed after the
// layer (ResNet's downsampling branch), MatMul + bias + Add(x) with the residual
// as the Add's first operand (a transformer's sublayer), and an Add that broadcasts, which stays
// separate.
TEST(ExecutorFusion, ResidualAddsJoinTheirLayers) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{4}, int64_t{6}, int64_t{6}})
      .input("z", {int64_t{1}, int64_t{4}, int64_t{1}, int64_t{1}})
      .input("t", {int64_t{2}, int64_t{3}, int64_t{8}})
      .output("y")
      .output("y2")
      .output("y3")
      .output("y4")
      .output("y5");
  b.weight_values("w", {4, 4, 3, 3}, wave(144, 0.3f, 0.4f))
      .weight_values("w6", {4, 4, 1, 1}, wave(16, 0.7f, 0.1f))
      .weight_values("bc", {4}, {0.1f, -0.1f, 0.2f, 0.0f})
      .weight_values("w2", {4, 4, 1, 1}, wave(16, 0.5f, 1.1f))
      .weight_values("w4", {4, 4, 1, 1}, wave(16, 0.5f, 1.9f))
      .weight_values("w5", {4, 4, 1, 1}, wave(16, 0.5f, 2.7f))
      .weight_values("fc", {8, 8}, wave(64, 0.4f, 2.2f))
      .weight_values("bias", {8}, wave(8, 0.2f, 0.6f));
  set_ints(b.node("Conv", {"x", "w", "bc"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  b.node("Add", {"c", "x"}, {"s"}, "residual");
  b.node("Relu", {"s"}, {"y"}, "relu");
  b.node("MatMul", {"t", "fc"}, {"m"}, "fc");
  b.node("Add", {"m", "bias"}, {"h"}, "fc_bias");
  b.node("Add", {"t", "h"}, {"y2"}, "fc_residual");
  b.node("Conv", {"y", "w2"}, {"c2"}, "conv2");
  b.node("Add", {"c2", "z"}, {"y3"}, "broadcast_add");
  b.node("Conv", {"y", "w4"}, {"c4"}, "main_branch");
  b.node("Conv", {"y", "w5"}, {"c5"}, "downsample_branch");
  b.node("Add", {"c4", "c5"}, {"y4"}, "block_end");
  b.node("Conv", {"x", "w6"}, {"c6"}, "bottleneck");
  b.node("Sigmoid", {"c6"}, {"s6"}, "silu_sigmoid");
  b.node("Mul", {"c6", "s6"}, {"a6"}, "silu_mul");
  b.node("Add", {"x", "a6"}, {"y5"}, "shortcut");
  auto runs = run_both(b.save("residuals"), {float_tensor("x", {1, 4, 6, 6}, wave(144, 1.0f, 0.0f)),
                                             float_tensor("z", {1, 4, 1, 1}, {0.5f, -0.5f, 0.25f, 1.0f}),
                                             float_tensor("t", {2, 3, 8}, wave(48, 1.0f, 0.8f))});
  const auto& note = runs.optimized.notes.front();
  EXPECT_NE(note.find("1 bias adds fused"), std::string::npos) << note;
  EXPECT_NE(note.find("4 residual adds and 2 activations fused"), std::string::npos) << note;
  expect_same_outputs(runs);
}

// Attention-style products of computed tensors read through transposed views (oneDNN's matmul
// takes their strides), against a plain loop.
TEST(ExecutorFusion, BatchedProductsOfTransposedViewsMatchALoop) {
  ModelBuilder b;
  b.input("p", {int64_t{2}, int64_t{4}, int64_t{3}, int64_t{5}})
      .input("q", {int64_t{2}, int64_t{6}, int64_t{3}, int64_t{5}});
  b.output("y");
  set_ints(b.node("Transpose", {"p"}, {"a"}, "ta"), "perm", {0, 2, 1, 3});   // [2,3,4,5]
  set_ints(b.node("Transpose", {"q"}, {"bt"}, "tb"), "perm", {0, 2, 3, 1});  // [2,3,5,6]
  b.node("MatMul", {"a", "bt"}, {"y"}, "scores");
  auto p = wave(2 * 4 * 3 * 5, 1.0f, 0.1f), q = wave(2 * 6 * 3 * 5, 1.0f, 1.3f);
  auto runs = run_both(b.save("batched"), {float_tensor("p", {2, 4, 3, 5}, p), float_tensor("q", {2, 6, 3, 5}, q)});
  for (const auto* run : {&runs.eager, &runs.optimized}) {
    ASSERT_EQ(run->outputs.at(0).dims, (std::vector<int64_t>{2, 3, 4, 6}));
    auto y = floats(run->outputs.at(0));
    for (int n = 0; n < 2; ++n)
      for (int h = 0; h < 3; ++h)
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 6; ++j) {
            double want = 0;
            for (int k = 0; k < 5; ++k)
              want += double{p[((n * 4 + i) * 3 + h) * 5 + k]} * q[((n * 6 + j) * 3 + h) * 5 + k];
            EXPECT_NEAR(y[((n * 3 + h) * 4 + i) * 6 + j], want, 1e-5) << n << h << i << j;
          }
  }
  // The product ran on oneDNN's matmul (the profile names it), not on ATen's copy-then-bmm.
  analysis::Request request;
  request.model_path = b.save("batched");
  auto prepared = exec::prepare(request, "");
  exec::BenchOptions bench;
  bench.exec.profile_nodes = true;
  bench.fixed_iterations = 2;
  bench.warmup_seconds = 0;
  auto result = exec::load_engine().bench(
      prepared.analysis.model, {float_tensor("p", {2, 4, 3, 5}, p), float_tensor("q", {2, 6, 3, 5}, q)}, bench);
  bool found = false;
  for (const auto& node : result.nodes)
    if (node.name == "scores") {
      found = true;
      EXPECT_EQ(node.algorithm, "matmul");
    }
  EXPECT_TRUE(found);
}

// Activations written other ways are recognized by what they compute (activation_fusion.h):
// GELU's tanh form as PyTorch 1.13 exports a hand-written one (x * x * x), and as Hugging Face's
// GPT-2 writes it (Pow), and ONNX's own HardSwish op. A chain computing no activation (2x + 1)
// stays separate.
TEST(ExecutorFusion, ActivationsAreRecognizedByWhatTheyCompute) {
  ModelBuilder b(14);
  b.input("x", {int64_t{2}, int64_t{8}}).output("g1").output("g2").output("h").output("lin");
  b.weight_values("w", {8, 6}, wave(48, 0.7f, 0.4f));
  for (auto [name, value] : std::vector<std::pair<std::string, float>>{{"c", 0.044715f},
                                                                       {"k", std::sqrt(2.0f / 3.14159265f)},
                                                                       {"one", 1.0f},
                                                                       {"half", 0.5f},
                                                                       {"three", 3.0f},
                                                                       {"two", 2.0f}})
    b.weight_values(name, {}, {value});
  // 0.5 * x * (1 + tanh(k * (x + c * x*x*x))), the 0.5 last.
  b.node("MatMul", {"x", "w"}, {"m1"}, "fc1");
  b.node("Mul", {"m1", "m1"}, {"sq"}, "sq");
  b.node("Mul", {"m1", "sq"}, {"cube"}, "cube");
  b.node("Mul", {"c", "cube"}, {"cc"}, "cc");
  b.node("Add", {"m1", "cc"}, {"inner"}, "inner");
  b.node("Mul", {"k", "inner"}, {"scaled"}, "scaled");
  b.node("Tanh", {"scaled"}, {"t"}, "tanh");
  b.node("Add", {"one", "t"}, {"onep"}, "onep");
  b.node("Mul", {"m1", "onep"}, {"prod"}, "prod");
  b.node("Mul", {"half", "prod"}, {"g1"}, "half1");
  // 0.5 * x first, Pow for the cube.
  b.node("MatMul", {"x", "w"}, {"m2"}, "fc2");
  b.node("Mul", {"m2", "half"}, {"hx"}, "hx");
  b.node("Pow", {"m2", "three"}, {"p3"}, "pow");
  b.node("Mul", {"p3", "c"}, {"pc"}, "pc");
  b.node("Add", {"pc", "m2"}, {"in2"}, "in2");
  b.node("Mul", {"in2", "k"}, {"sc2"}, "sc2");
  b.node("Tanh", {"sc2"}, {"t2"}, "tanh2");
  b.node("Add", {"t2", "one"}, {"op2"}, "op2");
  b.node("Mul", {"hx", "op2"}, {"g2"}, "g2");
  b.node("MatMul", {"x", "w"}, {"m3"}, "fc3");
  b.node("HardSwish", {"m3"}, {"h"}, "hardswish");
  b.node("MatMul", {"x", "w"}, {"m4"}, "fc4");
  b.node("Mul", {"m4", "two"}, {"m4x2"}, "double");
  b.node("Add", {"m4x2", "one"}, {"lin"}, "plus_one");
  auto runs = run_both(b.save("activation_forms"), {float_tensor("x", {2, 8}, wave(16, 2.0f, 0.0f))});
  EXPECT_NE(runs.optimized.notes.front().find("and 3 activations fused"), std::string::npos)
      << runs.optimized.notes.front();
  expect_same_outputs(runs);
}

}  // namespace
}  // namespace ridge::test
