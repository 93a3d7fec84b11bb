// The executor's pieces with hand-computed expectations: timing statistics and the stopping rule,
// the op list `ridge ops` shows, the convolution-algorithm cost formulas, Attention against a
// plain-loop reference, the optimized mode's rewrites, and a training step that really trains.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "cost/conv_algorithms.h"
#include "exec/bench_codec.h"
#include "exec/engine.h"
#include "exec/op_table.h"
#include "exec/prepare.h"
#include "support/attention_reference.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "support/random_weights_fixtures.h"
#include "support/tensor_compare.h"
#include "sys/statistics.h"

namespace ridge::test {
namespace {

TEST(Statistics, SummaryOfKnownSamples) {
  auto s = sys::summarize({4, 1, 10, 3, 2});
  EXPECT_EQ(s.samples, 5);
  EXPECT_DOUBLE_EQ(s.mean, 4);
  EXPECT_NEAR(s.stddev, std::sqrt(12.5), 1e-12);  // squares 9 4 1 0 36, over n - 1 = 4
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_NEAR(s.p90, 4 + 0.6 * 6, 1e-12);   // rank 3.6 between 4 and 10
  EXPECT_NEAR(s.p99, 4 + 0.96 * 6, 1e-12);  // rank 3.96
  EXPECT_NEAR(s.relative_standard_error, std::sqrt(12.5) / std::sqrt(5.0) / 4, 1e-12);
}

TEST(Statistics, RunningStatsAgreeWithTheSummary) {
  std::vector<double> xs{3.5, 2.25, 9, 4, 4, 7.75, 1};
  sys::RunningStats r;
  for (double x : xs) r.add(x);
  auto s = sys::summarize(xs);
  EXPECT_NEAR(r.mean(), s.mean, 1e-12);
  EXPECT_NEAR(r.stddev(), s.stddev, 1e-12);
  EXPECT_NEAR(r.relative_standard_error(), s.relative_standard_error, 1e-12);
}

TEST(Statistics, StoppingRule) {
  sys::StoppingCriterion rule;
  rule.min_samples = 5;
  rule.max_samples = 8;
  rule.max_seconds = 2;
  rule.target_relative_error = 0.01;
  sys::RunningStats steady, noisy;
  for (int i = 0; i < 4; ++i) steady.add(1.0);
  EXPECT_EQ(rule.stop_reason(steady, 0.1), nullptr);  // converged, but fewer than min_samples
  steady.add(1.0);
  EXPECT_STREQ(rule.stop_reason(steady, 0.1), "converged");
  for (double x : {1.0, 3.0, 1.0, 3.0, 1.0}) noisy.add(x);
  EXPECT_EQ(rule.stop_reason(noisy, 0.1), nullptr);  // RSE 0.2: go on
  EXPECT_STREQ(rule.stop_reason(noisy, 2.5), "time budget");
  for (double x : {3.0, 1.0, 3.0}) noisy.add(x);
  EXPECT_STREQ(rule.stop_reason(noisy, 0.1), "sample limit");
}

TEST(Executor, OpListMatchesTheModulesKernelTable) {
  auto ops = exec::load_engine().op_types();
  std::sort(ops.begin(), ops.end());
  auto types = exec::OpRegistry::instance().op_types();
  std::vector<std::string> listed(types.begin(), types.end());
  std::vector<std::string> only_kernels, only_listed;
  std::set_difference(ops.begin(), ops.end(), listed.begin(), listed.end(), std::back_inserter(only_kernels));
  std::set_difference(listed.begin(), listed.end(), ops.begin(), ops.end(), std::back_inserter(only_listed));
  EXPECT_TRUE(only_kernels.empty()) << "kernels without a row in src/exec/<family>.cpp: " << only_kernels.front();
  EXPECT_TRUE(only_listed.empty()) << "rows in src/exec/<family>.cpp without a kernel: " << only_listed.front();
}

TEST(ConvAlgorithmCosts, HandComputed) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{2}, int64_t{6}, int64_t{6}}).weight("w", {4, 2, 3, 3}).output("y");
  set_ints(b.node("Conv", {"x", "w"}, {"y"}, "conv"), "pads", {1, 1, 1, 1});
  auto result = analyze_file(b.save("conv_algos"));
  const auto& node = result.model.graph.nodes.at(0);
  auto costs = cost::conv_algorithm_costs(result.model.graph, node);
  ASSERT_EQ(costs.size(), 4u);
  // direct: 1 x 4 x 6 x 6 outputs x 2 channels x 9 taps = 2592 MACs.
  EXPECT_EQ(costs[0].flops, 2 * 2592);
  EXPECT_EQ(costs[0].workspace_bytes, 0);
  // im2col columns: 2 channels x 9 taps x 36 positions x 4 bytes.
  EXPECT_EQ(costs[1].flops, 2 * 2592);
  EXPECT_EQ(costs[1].workspace_bytes, 2 * 9 * 36 * 4);
  // FFT on the 8x8 padded plane: 40 bins; 2.5 x 64 x log2(64) = 960 FLOPs per transform; 2 input +
  // 8 kernel + 4 output transforms, 8 FLOPs per bin per (output, input channel).
  EXPECT_EQ(costs[2].flops, 14 * 960 + 8 * 4 * 2 * 40);
  EXPECT_EQ(costs[2].workspace_bytes, (2 + 8 + 4 + 8) * 40 * 2 * 4);
  // Winograd F(2x2,3x3): 9 tiles; 16 x 9 x 4 x 2 products + transforms 128 x 9 x 2, 48 x 9 x 4, 84 x 8.
  EXPECT_TRUE(costs[3].applies);
  EXPECT_EQ(costs[3].flops, 2 * (1152 + 2304 + 1728 + 672));
  EXPECT_EQ(costs[3].workspace_bytes, (9 * 2 + 4 * 2 + 9 * 4) * 16 * 4);
}

TEST(Executor, AttentionMatchesAPlainLoopReference) {
  ModelBuilder b(23);
  b.input("q", {int64_t{1}, int64_t{1}, int64_t{2}, int64_t{2}})
      .input("k", {int64_t{1}, int64_t{1}, int64_t{3}, int64_t{2}})
      .input("v", {int64_t{1}, int64_t{1}, int64_t{3}, int64_t{2}})
      .output("y");
  b.node("Attention", {"q", "k", "v"}, {"y"}, "attention");
  std::vector<float> q{0.5f, -1.0f, 2.0f, 0.25f}, k{1, 0, 0, 1, -1, 2}, v{1, 2, 3, 4, 5, 6};
  analysis::Request request;
  request.model_path = b.save("attention");
  auto prepared = exec::prepare(request, "");
  auto out = exec::load_engine().run(
      prepared.analysis.model,
      {float_tensor("q", {1, 1, 2, 2}, q), float_tensor("k", {1, 1, 3, 2}, k), float_tensor("v", {1, 1, 3, 2}, v)}, {});
  auto y = floats(out.outputs.at(0));
  ASSERT_EQ(y.size(), 4u);
  for (int i = 0; i < 2; ++i) {
    double scores[3], total = 0;
    for (int j = 0; j < 3; ++j) {
      scores[j] = std::exp((q[2 * i] * k[2 * j] + q[2 * i + 1] * k[2 * j + 1]) / std::sqrt(2.0));
      total += scores[j];
    }
    for (int d = 0; d < 2; ++d) {
      double expected = 0;
      for (int j = 0; j < 3; ++j) expected += scores[j] / total * v[2 * j + d];
      EXPECT_NEAR(y[2 * i + d], expected, 1e-5);
    }
  }
}

// A case of support/attention_reference.h as a one-node model, run on the CPU with the case's inputs.
exec::RunOutput run_attention_case(const test::AttentionCase& c, const std::vector<exec::HostTensor>& inputs) {
  analysis::Request request;
  request.model_path = test::attention_model(c);
  auto prepared = exec::prepare_again(exec::prepare(request, "").analysis.model, request, inputs);
  return exec::load_engine().run(prepared.analysis.model, prepared.inputs, {});
}

// Every variant of ONNX's Attention against its reference's semantics in plain loops (support/attention_reference.h):
// grouped-query and 3-D heads, masks shorter than the keys, the causal frontier starting at the first key with fewer
// queries than keys, the softcap applied before the mask, and a fully masked row's NaN.
TEST(Executor, AttentionFollowsOnnxsReferenceInEveryVariant) {
  for (const auto& c : test::attention_cases()) {
    auto inputs = test::attention_inputs(c);
    auto out = run_attention_case(c, inputs);
    ASSERT_EQ(out.outputs.at(0).dims, test::attention_output_dims(c)) << c.label;
    auto got = floats(out.outputs.at(0));
    auto want = test::attention_reference(c, inputs);
    ASSERT_EQ(got.size(), want.size()) << c.label;
    int nans = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << c.label << " [" << i << "]";
        ++nans;
        continue;
      }
      ASSERT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << c.label << " [" << i << "]";
    }
    if (c.label == "a row with every key masked") {
      EXPECT_EQ(nans, 2 * 8) << "row 1 of both heads";
    }
  }
}

// Decoding with ONNX's Attention: the key/value cache joined before the new keys (present caches as outputs), the
// causal frontier moved by the cache, a static cache's padding, and the QK output, against the same reference.
TEST(Executor, AttentionWithCachesFollowsOnnxsReference) {
  for (const auto& c : test::attention_cache_cases()) {
    auto inputs = test::attention_inputs(c);
    auto out = run_attention_case(c, inputs);
    auto want = test::attention_reference_outputs(c, inputs);
    ASSERT_EQ(out.outputs.size(), want.size()) << c.label;
    ASSERT_EQ(out.outputs.at(0).dims, test::attention_output_dims(c)) << c.label;
    for (size_t o = 0; o < want.size(); ++o) {
      auto got = floats(out.outputs[o]);
      ASSERT_EQ(got.size(), want[o].size()) << c.label << ", output " << o;
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[o][i], 1e-5 * (1 + std::fabs(want[o][i])))
            << c.label << ", output " << o << " [" << i << "]";
    }
  }
}

// The QK output's modes 1 and 2 (the mask added, the softcap applied) are refused by name: ONNX's text and its
// reference place the two steps in different orders.
TEST(Executor, AttentionRefusesTheQkModesWhoseOrderOnnxLeavesOpen) {
  auto c = test::attention_cache_cases().back();
  c.qk_mode = 1;
  try {
    run_attention_case(c, test::attention_inputs(c));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("qk_matmul_output_mode 1"), std::string::npos) << e.what();
  }
}

// Conv -> BatchNormalization -> Identity -> Relu with real weights: optimized mode folds the
// BatchNorm, drops the Identity and fuses the Relu into the convolution, and computes the same
// values.
std::string conv_bn_model() {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{2}, int64_t{5}, int64_t{5}}).output("y");
  std::vector<float> w(3 * 2 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * static_cast<float>(static_cast<int>(i % 7) - 3);
  b.weight_values("w", {3, 2, 3, 3}, w)
      .weight_values("scale", {3}, {1.5f, 0.5f, 2.0f})
      .weight_values("bias", {3}, {0.1f, -0.2f, 0.3f})
      .weight_values("mean", {3}, {0.05f, 0.1f, -0.1f})
      .weight_values("var", {3}, {0.8f, 1.2f, 0.5f});
  set_ints(b.node("Conv", {"x", "w"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  b.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"n"}, "bn");
  b.node("Identity", {"n"}, {"i"}, "identity");
  b.node("Relu", {"i"}, {"y"}, "relu");
  return b.save("conv_bn");
}

TEST(Executor, OptimizedModeFoldsBatchNormAndKeepsValues) {
  analysis::Request request;
  request.model_path = conv_bn_model();
  auto prepared = exec::prepare(request, "");
  std::vector<float> x(50);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i));
  std::vector<exec::HostTensor> inputs{float_tensor("x", {1, 2, 5, 5}, x)};
  auto& engine = exec::load_engine();
  auto eager = engine.run(prepared.analysis.model, inputs, {});
  exec::ExecOptions optimized;
  optimized.mode = exec::Mode::kOptimized;
  auto folded = engine.run(prepared.analysis.model, inputs, optimized);
  ASSERT_FALSE(folded.notes.empty());
  EXPECT_NE(folded.notes.front().find("1 BatchNorms folded"), std::string::npos) << folded.notes.front();
  EXPECT_NE(folded.notes.front().find("1 no-ops removed"), std::string::npos) << folded.notes.front();
  EXPECT_NE(folded.notes.front().find("1 activations fused"), std::string::npos) << folded.notes.front();
  EXPECT_FALSE(eager.random_weights);
  auto a = floats(eager.outputs.at(0)), b = floats(folded.outputs.at(0));
  ASSERT_EQ(a.size(), b.size());
  double largest = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(a[i], b[i], 1e-5 + 1e-5 * std::fabs(a[i]));
    largest = std::max(largest, static_cast<double>(std::fabs(a[i])));
  }
  EXPECT_GT(largest, 0.1);  // the comparison is not between zeros
  // The fold is really measured: the optimized run has one node (Conv with its Relu), eager four.
  exec::BenchOptions bench;
  bench.exec = optimized;
  bench.fixed_iterations = 3;
  bench.warmup_seconds = 0;
  EXPECT_EQ(engine.bench(prepared.analysis.model, inputs, bench).executed_nodes, 1);
  bench.exec.mode = exec::Mode::kEager;
  EXPECT_EQ(engine.bench(prepared.analysis.model, inputs, bench).executed_nodes, 4);
}

TEST(Executor, TrainingStepLowersTheLoss) {
  analysis::Request request;
  request.model_path = source_path("tests/data/executor/lstm/model.onnx");
  auto prepared = exec::prepare(request, source_path("tests/data/executor/lstm/test_data_set_0"));
  for (const std::string optimizer : {"sgd", "momentum", "adam"}) {
    exec::BenchOptions options;
    options.training.enabled = true;
    options.training.optimizer = cost::parse_optimizer(optimizer);
    options.training.learning_rate = optimizer == "adam" ? 1e-2 : 0.5;
    options.fixed_iterations = 8;
    options.warmup_seconds = 0;
    auto result = exec::load_engine().bench(prepared.analysis.model, prepared.inputs, options);
    ASSERT_EQ(result.training_losses.size(), 8u) << optimizer;
    EXPECT_LT(result.training_losses.back(), 0.9 * result.training_losses.front()) << optimizer;
    EXPECT_EQ(result.latency_ms.samples, 8);
    EXPECT_EQ(result.stop_reason, "fixed iterations");
  }
}

// A training step's profile splits each node's time into its forward and the backward of what its forward recorded.
// Input -> Relu -> MatMul -> Relu -> MatMul: the first Relu reads only the input, so autograd records nothing for it
// and its backward is exactly 0 (a function attributed to the wrong node would show there); every node after the
// first weight has a backward; the gradients' accumulation into the two weights, the loss and the optimizer are rows
// of their own; and the parts, timed one after another on one thread, never sum past the profiled step.
TEST(Executor, ATrainingProfileSplitsEachNodeIntoForwardAndBackward) {
  ModelBuilder b;
  b.input("x", {64, 256}).output("y").weight("w1", {256, 256}, 0.01f).weight("w2", {256, 64}, 0.01f);
  b.node("Relu", {"x"}, {"r0"}, "input_relu");
  b.node("MatMul", {"r0", "w1"}, {"h"}, "fc1");
  b.node("Relu", {"h"}, {"r1"}, "relu1");
  b.node("MatMul", {"r1", "w2"}, {"y"}, "fc2");
  analysis::Request request;
  request.model_path = b.save("training_profile");
  auto prepared = exec::prepare(request, "");
  exec::BenchOptions options;
  options.exec.threads = 1;
  options.exec.profile_nodes = true;
  options.training.enabled = true;
  options.training.learning_rate = 1e-3;
  options.fixed_iterations = 3;
  options.warmup_seconds = 0;
  auto result = exec::load_engine().bench(prepared.analysis.model, prepared.inputs, options);
  std::vector<std::string> names;
  for (const auto& n : result.nodes) names.push_back(n.name);
  ASSERT_EQ(names, (std::vector<std::string>{"input_relu", "fc1", "relu1", "fc2", "(loss)", "(gradient accumulation)",
                                             "(optimizer step)"}));
  const auto& nodes = result.nodes;
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_GT(nodes[i].forward_ms, 0) << nodes[i].name;
    EXPECT_DOUBLE_EQ(nodes[i].mean_ms, nodes[i].forward_ms + nodes[i].backward_ms) << nodes[i].name;
  }
  EXPECT_EQ(nodes[0].backward_ms, 0);
  for (size_t i = 1; i < 4; ++i) EXPECT_GT(nodes[i].backward_ms, 0) << nodes[i].name;
  for (size_t i = 4; i < 7; ++i) {
    EXPECT_GT(nodes[i].mean_ms, 0) << nodes[i].name;
    EXPECT_EQ(nodes[i].forward_ms, -1) << nodes[i].name;  // no split: a row of its own
  }
  for (const auto& n : nodes) EXPECT_EQ(n.median_ms, -1) << n.name;  // a step's parts keep means only
  EXPECT_GT(result.node_sum_ms, 0);
  EXPECT_LE(result.node_sum_ms, result.profiled_run_ms);
}

// An inference profile keeps each node's median over its passes beside the mean: a 256 x 256 x 256 product takes more
// than the Relu before it in both figures, every median is a time (not the -1 of a figure not kept), and the JSON
// carries it.
TEST(Executor, AnInferenceProfileKeepsEachNodesMedian) {
  ModelBuilder b;
  b.input("x", {256, 256}).output("y").weight("w", {256, 256}, 0.01f);
  b.node("Relu", {"x"}, {"r"}, "relu");
  b.node("MatMul", {"r", "w"}, {"y"}, "fc");
  analysis::Request request;
  request.model_path = b.save("median_profile");
  auto prepared = exec::prepare(request, "");
  exec::BenchOptions options;
  options.exec.threads = 1;
  options.exec.profile_nodes = true;
  options.fixed_iterations = 5;
  options.warmup_seconds = 0;
  auto result = exec::load_engine().bench(prepared.analysis.model, prepared.inputs, options);
  ASSERT_EQ(result.nodes.size(), 2u);
  for (const auto& n : result.nodes) {
    EXPECT_GT(n.median_ms, 0) << n.name;
    EXPECT_GT(n.mean_ms, 0) << n.name;
  }
  EXPECT_GT(result.nodes[1].median_ms, result.nodes[0].median_ms);
  EXPECT_DOUBLE_EQ(exec::encode_bench({result})["runs"][0]["nodes"][1]["median_ms"].get<double>(),
                   result.nodes[1].median_ms);
}

// A bundled training export runs a training step on the CPU: MobileNetV2's BatchNorms in training mode (batch
// statistics) and its Dropout with a mask, forward and backward, and SGD steps that lower the loss (the seed fixes
// weights, inputs and masks, so the run is the same every time).
TEST(Executor, ATrainingExportRunsATrainingStep) {
  analysis::Request request;
  request.model_path = model_path("mobilenet_v2_train");
  request.bindings.batch = 2;
  request.bindings.dims = {{"height", 32}, {"width", 32}};
  auto prepared = exec::prepare(request, "");
  exec::BenchOptions options;
  options.training.enabled = true;
  options.training.learning_rate = 0.1;
  options.fixed_iterations = 6;
  options.warmup_seconds = 0;
  auto result = exec::load_engine().bench(prepared.analysis.model, prepared.inputs, options);
  ASSERT_EQ(result.training_losses.size(), 6u);
  EXPECT_TRUE(std::isfinite(result.training_losses.back()));
  EXPECT_LT(result.training_losses.back(), 0.95 * result.training_losses.front());
}

// A fully connected layer (MatMul by a constant weight, bias Add, Relu) at row counts below, at and past oneDNN's
// row block of 64, where the rows past the last full block run as a second product: every row equals a plain
// loop's, eager and optimized (bias and Relu fused into the product).
TEST(Executor, FullyConnectedLayersOfAnyRowCountMatchAPlainLoop) {
  const int64_t k = 8, n = 5;
  std::vector<float> w(k * n), bias(n);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.25f * std::cos(static_cast<float>(i));
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.1f * static_cast<float>(i) - 0.2f;
  for (int64_t rows : {1, 64, 65, 130, 197}) {
    ModelBuilder b;
    b.input("x", {rows, k}).output("y").weight_values("w", {k, n}, w).weight_values("bias", {n}, bias);
    b.node("MatMul", {"x", "w"}, {"p"}, "fc");
    b.node("Add", {"p", "bias"}, {"q"}, "fc_bias");
    b.node("Relu", {"q"}, {"y"}, "relu");
    analysis::Request request;
    request.model_path = b.save("fc_rows");
    auto prepared = exec::prepare(request, "");
    std::vector<float> x(static_cast<size_t>(rows * k));
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.7f * static_cast<float>(i));
    for (auto mode : {exec::Mode::kEager, exec::Mode::kOptimized}) {
      exec::ExecOptions options;
      options.mode = mode;
      auto y = floats(
          exec::load_engine().run(prepared.analysis.model, {float_tensor("x", {rows, k}, x)}, options).outputs.at(0));
      ASSERT_EQ(y.size(), static_cast<size_t>(rows * n)) << rows;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < n; ++j) {
          double expected = bias[static_cast<size_t>(j)];
          for (int64_t i = 0; i < k; ++i)
            expected += static_cast<double>(x[static_cast<size_t>(r * k + i)]) * w[static_cast<size_t>(i * n + j)];
          EXPECT_NEAR(y[static_cast<size_t>(r * n + j)], std::max(0.0, expected), 1e-5) << rows << " row " << r;
        }
    }
  }
}

// An LSTM against a plain-loop reference of ONNX's equations (gates i, o, f, c), forward, reverse and
// bidirectional, with every sequence full (no step masked) and with one sequence shorter than the others (its
// late steps masked: zero outputs, the state held, the reverse direction starting at its own last step).
struct LstmCase {
  int64_t steps = 4, batch = 2, inputs = 3, hidden = 2;
  std::vector<float> x, w, r, bias;
};

float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

// Y [steps, dirs, batch, hidden] and Y_h [dirs, batch, hidden] of the reference.
std::pair<std::vector<float>, std::vector<float>> lstm_reference(const LstmCase& k, int dirs, bool reverse_only,
                                                                 const std::vector<int64_t>& lens) {
  int64_t T = k.steps, B = k.batch, I = k.inputs, H = k.hidden;
  std::vector<float> y(static_cast<size_t>(T * dirs * B * H), 0.0f), yh(static_cast<size_t>(dirs * B * H), 0.0f);
  for (int d = 0; d < dirs; ++d) {
    bool reverse = reverse_only || d == 1;
    const float* w = k.w.data() + d * 4 * H * I;
    const float* r = k.r.data() + d * 4 * H * H;
    const float* wb = k.bias.data() + d * 8 * H;
    for (int64_t b = 0; b < B; ++b) {
      std::vector<float> h(static_cast<size_t>(H), 0.0f), c(static_cast<size_t>(H), 0.0f);
      for (int64_t s = 0; s < lens[static_cast<size_t>(b)]; ++s) {
        int64_t t = reverse ? lens[static_cast<size_t>(b)] - 1 - s : s;
        std::vector<float> g(static_cast<size_t>(4 * H));
        for (int64_t j = 0; j < 4 * H; ++j) {
          float v = wb[j] + wb[4 * H + j];
          for (int64_t i = 0; i < I; ++i) v += k.x[static_cast<size_t>((t * B + b) * I + i)] * w[j * I + i];
          for (int64_t i = 0; i < H; ++i) v += h[static_cast<size_t>(i)] * r[j * H + i];
          g[static_cast<size_t>(j)] = v;
        }
        for (int64_t j = 0; j < H; ++j) {
          auto at = [&](int gate) { return g[static_cast<size_t>(gate * H + j)]; };
          float in = sigmoid(at(0)), out = sigmoid(at(1)), forget = sigmoid(at(2)), cand = std::tanh(at(3));
          c[static_cast<size_t>(j)] = forget * c[static_cast<size_t>(j)] + in * cand;
          h[static_cast<size_t>(j)] = out * std::tanh(c[static_cast<size_t>(j)]);
          y[static_cast<size_t>(((t * dirs + d) * B + b) * H + j)] = h[static_cast<size_t>(j)];
        }
      }
      for (int64_t j = 0; j < H; ++j) yh[static_cast<size_t>((d * B + b) * H + j)] = h[static_cast<size_t>(j)];
    }
  }
  return {y, yh};
}

TEST(Executor, LstmMatchesAPlainLoopReference) {
  LstmCase k;
  auto fill = [](size_t n, float scale, int seed) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = scale * std::sin(static_cast<float>(seed * 31 + static_cast<int>(i)));
    return v;
  };
  k.x = fill(static_cast<size_t>(k.steps * k.batch * k.inputs), 1.0f, 1);
  for (const std::string direction : {"forward", "reverse", "bidirectional"}) {
    int dirs = direction == "bidirectional" ? 2 : 1;
    k.w = fill(static_cast<size_t>(dirs * 4 * k.hidden * k.inputs), 0.5f, 2);
    k.r = fill(static_cast<size_t>(dirs * 4 * k.hidden * k.hidden), 0.5f, 3);
    k.bias = fill(static_cast<size_t>(dirs * 8 * k.hidden), 0.2f, 4);
    for (bool with_lens : {false, true}) {
      std::vector<int64_t> lens{k.steps, with_lens ? 2 : k.steps};
      ModelBuilder b;
      b.input("x", {k.steps, k.batch, k.inputs}).output("y").output("y_h");
      b.weight_values("w", {dirs, 4 * k.hidden, k.inputs}, k.w)
          .weight_values("r", {dirs, 4 * k.hidden, k.hidden}, k.r)
          .weight_values("b", {dirs, 8 * k.hidden}, k.bias);
      std::vector<std::string> inputs{"x", "w", "r", "b"};
      if (with_lens) {
        b.int64_constant("lens", {k.batch}, lens);
        inputs.push_back("lens");
      }
      auto& node = b.node("LSTM", inputs, {"y", "y_h"}, "lstm");
      set_int(node, "hidden_size", k.hidden);
      set_string(node, "direction", direction);
      analysis::Request request;
      request.model_path = b.save("lstm_" + direction);
      auto prepared = exec::prepare(request, "");
      auto out =
          exec::load_engine().run(prepared.analysis.model, {float_tensor("x", {k.steps, k.batch, k.inputs}, k.x)}, {});
      auto [y, yh] = lstm_reference(k, dirs, direction == "reverse", lens);
      auto got_y = floats(out.outputs.at(0)), got_yh = floats(out.outputs.at(1));
      ASSERT_EQ(got_y.size(), y.size()) << direction;
      ASSERT_EQ(got_yh.size(), yh.size()) << direction;
      for (size_t i = 0; i < y.size(); ++i)
        EXPECT_NEAR(got_y[i], y[i], 1e-5) << direction << " lens " << with_lens << " y[" << i << "]";
      for (size_t i = 0; i < yh.size(); ++i)
        EXPECT_NEAR(got_yh[i], yh[i], 1e-5) << direction << " lens " << with_lens << " y_h[" << i << "]";
    }
  }
}

// Batch first (layout 1), the initial state is [batch, directions, hidden] (ONNX's RNN): with W = R = 1, no bias and
// one step, Y_h = tanh(x + h0) row by row. By hand: tanh(0.5 + 0.1) = 0.537050, tanh(-0.2 + 0.3) = 0.099668.
TEST(Executor, BatchFirstRecurrentLayersReadTheirInitialStateByRow) {
  ModelBuilder b;
  b.input("x", {2, 1, 1}).input("h0", {2, 1, 1}).output("y").output("y_h");
  b.weight_values("w", {1, 1, 1}, {1.f}).weight_values("r", {1, 1, 1}, {1.f});
  auto& node = b.node("RNN", {"x", "w", "r", "", "", "h0"}, {"y", "y_h"}, "rnn");
  set_int(node, "hidden_size", 1);
  set_int(node, "layout", 1);
  analysis::Request request;
  request.model_path = b.save("rnn_batch_first");
  auto prepared = exec::prepare(request, "");
  auto out = exec::load_engine().run(
      prepared.analysis.model,
      {float_tensor("x", {2, 1, 1}, {0.5f, -0.2f}), float_tensor("h0", {2, 1, 1}, {0.1f, 0.3f})}, {});
  auto y_h = floats(out.outputs.at(1));
  ASSERT_EQ(y_h.size(), 2u);
  EXPECT_NEAR(y_h[0], 0.537050f, 1e-5);
  EXPECT_NEAR(y_h[1], 0.099668f, 1e-5);
  EXPECT_EQ(out.outputs.at(1).dims, (std::vector<int64_t>{2, 1, 1}));
}
}  // namespace
}  // namespace ridge::test

namespace ridge::test {
namespace {

// Random weights and inputs follow one rule and one stream on every backend (exec/host_values): with the same
// seed, the CPU engine's output is x W for the x and W the shared rule draws (weights first, then inputs), so a
// GPU run of the same seed starts from the same numbers (tests/gpu checks the outputs agree).
TEST(Executor, RandomWeightsAndInputsComeFromTheSharedRule) {
  auto prepared = random_weights::random_matmul("random_matmul");
  exec::ExecOptions options;
  options.seed = 7;
  auto out = exec::load_engine().run(prepared.analysis.model, {}, options);
  ASSERT_TRUE(out.random_weights);
  auto y = floats(out.outputs.at(0));
  random_weights::expect_product(y, random_weights::expected_product(prepared, 7));
  // Another seed draws other numbers.
  options.seed = 8;
  EXPECT_NE(floats(exec::load_engine().run(prepared.analysis.model, {}, options).outputs.at(0)), y);
}

}  // namespace
}  // namespace ridge::test
