// A Loop or Scan whose iterations are known before the run, replaced by them (exec/loop_unrolling.h): the unrolled
// graph computes what the loop did (the CPU executor runs both forms: its Loop and Scan kernels, and the unrolled
// graph's plain ops, to the same bytes; ONNX's own Scan node test's expected outputs; a doubling loop by hand), a
// value computed from the iteration number gets its iteration's shape, the timings fold back into the loop's row, and a
// loop the rewrite cannot replace stays, saying why; control flow nested in a loop is rewritten too
// (exec/control_flow_rewrite.h).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "exec/control_flow_rewrite.h"
#include "exec/engine.h"
#include "exec/loop_unrolling.h"
#include "exec/prepare.h"
#include "support/loop_models.h"
#include "support/model_builder.h"
#include "support/node_tests.h"
#include "support/paths.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

int count_ops(const graph::Graph& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.op_type == op;
  return n;
}

std::vector<float> ramp(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i) * 0.25f - 0.6f;
  return v;
}

// Runs `model` and its unrolled copy on the CPU executor with `inputs`: the same dims, and the same bytes (`rtol` 0)
// or values within `rtol`, output by output. (A product by a weight of the graph runs on the executor's layer path,
// one inside a Loop's body on ATen's matmul: their sums may round differently in the last place.)
void expect_same_outputs(const graph::Model& model, const graph::Model& unrolled,
                         const std::vector<exec::HostTensor>& inputs, double rtol = 0) {
  auto& engine = exec::load_engine();
  auto want = engine.run(model, inputs, {});
  auto got = engine.run(unrolled, inputs, {});
  ASSERT_EQ(got.outputs.size(), want.outputs.size());
  for (size_t i = 0; i < want.outputs.size(); ++i) {
    EXPECT_EQ(got.outputs[i].dims, want.outputs[i].dims) << i;
    if (rtol == 0) {
      EXPECT_EQ(got.outputs[i].bytes, want.outputs[i].bytes) << "output " << i;
      continue;
    }
    auto a = floats(got.outputs[i]), b = floats(want.outputs[i]);
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], rtol * std::abs(b[k])) << "output " << i << " " << k;
  }
}

TEST(LoopUnrolling, TheIterationsComputeWhatTheLoopDid) {
  // No condition input, and a true one, the body passing either through.
  struct Case {
    int64_t trips;
    LoopCondition condition;
  };
  for (auto [trips, condition] :
       {Case{1, LoopCondition::kNone}, Case{4, LoopCondition::kNone}, Case{4, LoopCondition::kTrue}}) {
    SCOPED_TRACE(trips);
    SCOPED_TRACE(static_cast<int>(condition));
    auto r = analyze_file(recurrent_loop(trips, condition));
    ASSERT_TRUE(exec::has_loop(r.model.graph));
    graph::Model unrolled = r.model;
    auto result = exec::unroll_loops(unrolled);
    EXPECT_EQ(result.unrolled, 1) << trips;
    EXPECT_TRUE(result.kept.empty()) << result.kept.front();
    const auto& g = unrolled.graph;
    EXPECT_FALSE(exec::has_loop(g));
    EXPECT_EQ(count_ops(g, "Tanh"), trips);
    EXPECT_EQ(count_ops(g, "Slice"), trips);
    // The scan output is its iterations' -h, unsqueezed and concatenated; the last h reaches the output through an
    // Identity.
    EXPECT_EQ(count_ops(g, "Concat"), 1);
    EXPECT_EQ(g.nodes[static_cast<size_t>(g.value(*g.find("h_final")).producer)].op_type, "Identity");
    // Shapes inferred again: each iteration's Slice of the table is one element, and the scan output trips x 2 x 3.
    for (const auto& node : g.nodes) {
      EXPECT_TRUE(node.unresolved_reason.empty()) << node.name << ": " << node.unresolved_reason;
      if (node.op_type == "Slice") {
        EXPECT_EQ(graph::known_dims(g.value(node.outputs[0]).shape), (std::vector<int64_t>{1})) << node.name;
      }
    }
    EXPECT_EQ(graph::known_dims(g.value(*g.find("negated")).shape), (std::vector<int64_t>{trips, 2, 3}));
    // Every node after the ones it reads.
    for (size_t n = 0; n < g.nodes.size(); ++n)
      for (auto id : g.nodes[n].inputs)
        if (id != graph::kNoValue) {
          EXPECT_LT(g.value(id).producer, static_cast<graph::NodeId>(n)) << g.nodes[n].name;
        }
    auto x = float_tensor("x", {2, 3}, ramp(6));
    expect_same_outputs(r.model, unrolled, {x}, 1e-6);
    // And by hand: the recurrence in doubles, float-rounded at the end.
    const double w[3][3] = {{0.5, -0.25, 0.1}, {0.2, 0.3, -0.4}, {-0.1, 0.6, 0.05}};
    auto xs = ramp(6);
    std::vector<double> h(xs.begin(), xs.end());
    for (int64_t i = 0; i < trips; ++i) {
      std::vector<double> next(6);
      for (int row = 0; row < 2; ++row)
        for (int col = 0; col < 3; ++col) {
          double s = 0.1 * static_cast<double>(i) - 0.15;
          for (int k = 0; k < 3; ++k) s += h[static_cast<size_t>(row * 3 + k)] * w[k][col];
          next[static_cast<size_t>(row * 3 + col)] = std::tanh(s);
        }
      h = next;
    }
    auto got = exec::load_engine().run(unrolled, {x}, {});
    auto final_h = floats(got.outputs[0]);
    for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(final_h[i], h[i], 1e-5) << i;
  }
}

// Scan (opset 9 and later) from ONNX's node test: its expected outputs from the unrolled graph.
TEST(LoopUnrolling, OnnxsScanNodeTestGivesItsExpectedOutputs) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  auto tests = node_tests({"test_scan9_sum"});
  ASSERT_EQ(tests.size(), 1u);
  auto& t = tests.front();
  graph::Model unrolled = t.prepared.analysis.model;
  auto result = exec::unroll_loops(unrolled);
  ASSERT_EQ(result.unrolled, 1);
  EXPECT_EQ(count_ops(unrolled.graph, "Scan"), 0);
  EXPECT_EQ(count_ops(unrolled.graph, "Gather"), 3);  // one element of x per iteration
  auto got = exec::load_engine().run(unrolled, t.inputs(), {});
  EXPECT_EQ(compare_outputs(got.outputs, t.data.string(), 0, 0), "");
  // Scan before opset 9 (a batch dim and sequence lengths) stays.
  auto old = node_tests({"test_scan_sum"});
  ASSERT_EQ(old.size(), 1u);
  graph::Model kept = old.front().prepared.analysis.model;
  auto kept_result = exec::unroll_loops(kept);
  EXPECT_EQ(kept_result.unrolled, 0);
  ASSERT_EQ(kept_result.kept.size(), 1u);
  EXPECT_NE(kept_result.kept[0].find("Scan before opset 9"), std::string::npos) << kept_result.kept[0];
}

// A Scan reading one input along axis 1 from its end and stacking one output along axis 1, in reverse.
TEST(LoopUnrolling, ScanAxesAndDirectionsAreTheScans) {
  auto r = analyze_file(reversed_scan());
  graph::Model unrolled = r.model;
  auto result = exec::unroll_loops(unrolled);
  ASSERT_EQ(result.unrolled, 1) << (result.kept.empty() ? "" : result.kept.front());
  EXPECT_EQ(count_ops(unrolled.graph, "Mul"), 4);
  auto s0 = float_tensor("s0", {2}, {1.f, -1.f});
  auto xs = float_tensor("xs", {4, 2}, ramp(8));
  auto ys = float_tensor("ys", {2, 4}, {0.5f, 1.5f, -2.f, 3.f, 0.25f, -0.75f, 1.f, 2.f});
  expect_same_outputs(r.model, unrolled, {s0, xs, ys});
  // By hand: ys read from its last column; the stacked copy reversed again, so ys_back is ys.
  auto got = exec::load_engine().run(unrolled, {s0, xs, ys}, {});
  EXPECT_EQ(got.outputs[2].bytes, ys.bytes);
  auto x = ramp(8);
  const float y[2][4] = {{0.5f, 1.5f, -2.f, 3.f}, {0.25f, -0.75f, 1.f, 2.f}};
  float s[2] = {1.f, -1.f};
  for (int t = 0; t < 4; ++t)
    for (int j = 0; j < 2; ++j) s[j] += x[static_cast<size_t>(t * 2 + j)] * y[j][3 - t];
  auto final_s = floats(got.outputs[0]);
  EXPECT_FLOAT_EQ(final_s[0], s[0]);
  EXPECT_FLOAT_EQ(final_s[1], s[1]);
}

TEST(LoopUnrolling, ALoopItCannotReplaceStaysAndSaysWhy) {
  struct Case {
    std::string path, why;
  };
  for (const auto& [path, why] :
       {Case{recurrent_loop(3, LoopCondition::kNone, true), "loop: its trip count is known only during the run"},
        Case{recurrent_loop(3, LoopCondition::kComputed), "loop: its body computes whether to go on"},
        Case{recurrent_loop(3, LoopCondition::kComputedWithoutInput), "loop: its body computes whether to go on"},
        Case{recurrent_loop(8000), "loop: 8000 iterations of 9 nodes exceed the 65536 nodes a loop may become"}}) {
    auto r = analyze_file(path);
    auto result = exec::unroll_loops(r.model);
    EXPECT_EQ(result.unrolled, 0);
    ASSERT_EQ(result.kept.size(), 1u);
    EXPECT_EQ(result.kept[0], why);
    EXPECT_EQ(count_ops(r.model.graph, "Loop"), 1);
  }
}

// Every node the Loop became runs for it, and a profile of the unrolled graph becomes the model's: one row named as
// the Loop, its times summed.
TEST(LoopUnrolling, TheIterationsAreTimedAsTheLoop) {
  auto r = analyze_file(recurrent_loop(3));
  graph::Model unrolled = r.model;
  auto result = exec::unroll_loops(unrolled);
  const auto& g = unrolled.graph;
  std::vector<exec::Origin> origins;
  std::vector<exec::NodeTiming> rows;
  double loop_ms = 0;
  int loop_rows = 0;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    exec::NodeTiming t;
    t.name = g.nodes[n].name;
    t.op_type = g.nodes[n].op_type;
    t.mean_ms = static_cast<double>(n + 1);
    origins.push_back(result.unrolled_from(g.nodes[n]));
    if (!origins.back().empty()) {
      EXPECT_EQ(origins.back().name, "loop");
      EXPECT_EQ(origins.back().op_type, "Loop");
      loop_ms += t.mean_ms;
      ++loop_rows;
    }
    rows.push_back(t);
  }
  // 3 iterations of 9 nodes, 3 Unsqueezes and a Concat for the scan output, an Identity for the last h: the whole
  // graph.
  EXPECT_EQ(loop_rows, 3 * 9 + 3 + 1 + 1);
  EXPECT_EQ(static_cast<size_t>(loop_rows), g.nodes.size());
  exec::fold_inlined_rows(origins, rows);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].name, "loop");
  EXPECT_EQ(rows[0].op_type, "Loop");
  EXPECT_EQ(rows[0].mean_ms, loop_ms);
  EXPECT_EQ(result.summary(),
            "1 loop (Loop, Scan) ran as its iterations' nodes (their count known before the run); a per-node profile "
            "times them as the loop");
}

// Control flow in a loop's body is copied with each iteration and rewritten in the next turn
// (exec/control_flow_rewrite.h): the If on the iteration number becomes the branch each iteration takes, the inner
// loop its iterations, and the graph computes what the nested loops did (the CPU executor's Loops and If against its
// run of the rewritten graph, and the recurrence by hand). Every node runs for the outer loop.
TEST(ControlFlowRewrite, ControlFlowNestedInALoopIsRewrittenToo) {
  auto r = analyze_file(nested_control_loop());
  ASSERT_TRUE(exec::has_rewritable_control_flow(r.model.graph));
  graph::Model rewritten = r.model;
  auto result = exec::rewrite_control_flow(rewritten);
  EXPECT_TRUE(result.kept_ifs.empty() && result.kept_loops.empty());
  EXPECT_EQ(result.loops, 1);
  EXPECT_EQ(result.ifs, 0);  // the If is the loop's
  const auto& g = rewritten.graph;
  EXPECT_FALSE(exec::has_rewritable_control_flow(g));
  EXPECT_EQ(count_ops(g, "If"), 0);
  EXPECT_EQ(count_ops(g, "Loop"), 0);
  EXPECT_EQ(count_ops(g, "Tanh"), 2);         // iterations 1 and 2 take the else branch
  EXPECT_EQ(count_ops(g, "MatMul"), 3 * 2);   // the inner loop's, every iteration of both
  EXPECT_EQ(count_ops(g, "Mul"), 1 + 3 * 2);  // iteration 0's then branch and the inner loop's
  std::set<std::string> names;
  for (const auto& node : g.nodes) {
    EXPECT_TRUE(node.unresolved_reason.empty()) << node.name << ": " << node.unresolved_reason;
    EXPECT_TRUE(node.subgraphs().empty()) << node.name;
    EXPECT_TRUE(names.insert(node.name).second) << "two nodes named " << node.name;
    const auto& origin = result.origin(node);
    EXPECT_EQ(origin.name, "outer") << node.name;
    EXPECT_EQ(origin.op_type, "Loop") << node.name;
  }
  EXPECT_EQ(graph::known_dims(g.value(*g.find("collected")).shape), (std::vector<int64_t>{3, 2, 2, 3}));
  auto x = float_tensor("x", {2, 3}, ramp(6));
  expect_same_outputs(r.model, rewritten, {x}, 1e-6);

  // By hand, in doubles: b = i == 0 ? 2h : tanh(h); twice g = (g W)(i + 1) + bias, collecting -g; h = g.
  const double w[3][3] = {{0.5, -0.25, 0.1}, {0.2, 0.3, -0.4}, {-0.1, 0.6, 0.05}};
  const double bias[3] = {0.05, -0.1, 0.2};
  auto xs = ramp(6);
  std::vector<double> h(xs.begin(), xs.end()), collected;
  for (int i = 0; i < 3; ++i) {
    for (auto& v : h) v = i == 0 ? 2 * v : std::tanh(v);
    for (int j = 0; j < 2; ++j) {
      std::vector<double> next(6);
      for (int row = 0; row < 2; ++row)
        for (int col = 0; col < 3; ++col) {
          double s = 0;
          for (int k = 0; k < 3; ++k) s += h[static_cast<size_t>(row * 3 + k)] * w[k][col];
          next[static_cast<size_t>(row * 3 + col)] = s * (i + 1) + bias[col];
        }
      h = next;
      for (auto v : h) collected.push_back(-v);
    }
  }
  auto got = exec::load_engine().run(rewritten, {x}, {});
  auto final_h = floats(got.outputs[0]), got_collected = floats(got.outputs[1]);
  ASSERT_EQ(final_h.size(), 6u);
  ASSERT_EQ(got_collected.size(), collected.size());
  for (size_t k = 0; k < 6; ++k) EXPECT_NEAR(final_h[k], h[k], 1e-5 * (1 + std::abs(h[k]))) << k;
  for (size_t k = 0; k < collected.size(); ++k)
    EXPECT_NEAR(got_collected[k], collected[k], 1e-5 * (1 + std::abs(collected[k]))) << k;
  EXPECT_EQ(result.summary(),
            "1 loop (Loop, Scan) ran as its iterations' nodes (their count known before the run); a per-node profile "
            "times them as the loop");
}

// An If whose condition is the run's stays, one per iteration, each running for the loop and computing what the
// loop's did with either flag; and loops nested in an unrolled one share its budget of nodes.
TEST(ControlFlowRewrite, WhatCannotBeRewrittenStaysAndRunsForItsLoop) {
  auto r = analyze_file(nested_control_loop(true));
  graph::Model rewritten = r.model;
  auto result = exec::rewrite_control_flow(rewritten);
  const auto& g = rewritten.graph;
  EXPECT_EQ(count_ops(g, "Loop"), 0);
  std::vector<std::string> ifs;
  for (const auto& node : g.nodes)
    if (node.op_type == "If") {
      ifs.push_back(node.name);
      EXPECT_EQ(result.origin(node).name, "outer");
    }
  EXPECT_EQ(ifs, (std::vector<std::string>{"outer/0/first", "outer/1/first", "outer/2/first"}));
  auto x = float_tensor("x", {2, 3}, ramp(6));
  for (bool flag : {true, false}) {
    SCOPED_TRACE(flag);
    exec::HostTensor f;
    f.name = "flag";
    f.dtype = graph::DType::kBool;
    f.bytes = {static_cast<uint8_t>(flag)};
    expect_same_outputs(r.model, rewritten, {x, f}, 1e-6);
  }

  // 20000 iterations of the inner body's 5 nodes, where the outer loop already became 22 nodes besides it (each of 3
  // iterations 6 nodes, an If among them now its branch's one node; 3 Unsqueezes and a Concat for the collected values,
  // an Identity for h; less the inner loop itself).
  auto big = analyze_file(nested_control_loop(false, 20000));
  auto refused = exec::rewrite_control_flow(big.model);
  ASSERT_EQ(refused.kept_loops.size(), 3u);
  EXPECT_EQ(refused.kept_loops[0],
            "outer/0/inner: 20000 iterations of 5 nodes exceed the 65536 nodes a loop may become (with the 22 nodes "
            "its enclosing Loop 'outer' already became)");
  EXPECT_EQ(count_ops(big.model.graph, "Loop"), 3);
}

// A real export (tools/export_scripted_references.py: TorchScript's `for i in range(steps.size(0))` holding
// `if i == 0` and a `for` of its own, their trip counts read from an input's shape): once the input binds them the
// whole model becomes straight-line nodes, each running for the outer Loop, and computes PyTorch's output.
TEST(ControlFlowRewrite, APyTorchScriptedLoopRunsAsItsIterations) {
  const auto dir = source_path("tests/data/executor/scripted_loop");
  analysis::Request request;
  request.model_path = dir + "/model.onnx";
  auto prepared = exec::prepare(request, dir + "/test_data_set_0");
  graph::Model rewritten = prepared.analysis.model;
  auto result = exec::rewrite_control_flow(rewritten);
  EXPECT_EQ(result.loops, 1);
  EXPECT_TRUE(result.kept_ifs.empty() && result.kept_loops.empty());
  const auto& g = rewritten.graph;
  EXPECT_EQ(count_ops(g, "Loop") + count_ops(g, "If"), 0);
  EXPECT_EQ(count_ops(g, "Gemm"), 3 * 2);
  EXPECT_EQ(count_ops(g, "Tanh"), 2);
  for (const auto& node : g.nodes) {
    if (g.value(node.outputs.at(0)).constant) continue;  // the shape arithmetic before the loop folds
    EXPECT_EQ(result.origin(node).name, "/Loop_1") << node.name;
  }
  auto out = exec::load_engine().run(rewritten, prepared.inputs, {});
  EXPECT_EQ(compare_outputs(out.outputs, dir + "/test_data_set_0", 1e-5, 1e-6), "");
}

}  // namespace
}  // namespace ridge::test
