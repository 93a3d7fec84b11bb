// Control flow's costs by hand (cost/node_eval.cpp): a Loop costs its body times its trip count, exactly where it runs
// them (no condition input or a known true one, and a body that keeps it true), and a weight of the graph its body
// reads (an RNN's W, scripted as a Loop) is a weight read on every iteration and one of the model's parameters once.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "graph/loop_condition.h"
#include "support/loop_models.h"
#include "support/model_builder.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

enum class Condition { kAbsent, kTrue, kComputed };

// x [8, 64] -> 16 times h = tanh(h W) (W 64 x 64, a weight of the graph), each h also stacked.
std::string scripted_rnn(Condition condition) {
  ModelBuilder b;
  b.input("x", {int64_t{8}, int64_t{64}}).output("h").output("hs");
  b.weight("W", {64, 64}, 0.01f);
  b.int64_constant("trips", {}, {16});
  b.int64_constant("limit", {}, {3});
  if (condition != Condition::kAbsent) {
    b.bool_constant("go", {}, {true});
  }
  auto& loop = b.node("Loop", {"trips", condition == Condition::kAbsent ? "" : "go", "x"}, {"h", "hs"}, "rnn");
  ::onnx::GraphProto body;
  body.set_name("body");
  for (const char* name : {"i", "cond_in", "h_in"}) body.add_input()->set_name(name);
  add_graph_node(body, "MatMul", {"h_in", "W"}, {"product"});
  add_graph_node(body, "Tanh", {"product"}, {"h_out"});
  add_graph_node(body, "Identity", {"h_out"}, {"h_scan"});
  if (condition == Condition::kComputed)
    add_graph_node(body, "Less", {"i", "limit"}, {"cond_out"});
  else
    add_graph_node(body, "Identity", {"cond_in"}, {"cond_out"});
  for (const char* name : {"cond_out", "h_out", "h_scan"}) body.add_output()->set_name(name);
  set_graph(loop, "body", body);
  return b.save("scripted_rnn");
}

TEST(ControlFlowCost, ALoopReadsTheGraphsWeightsOnEveryIterationAndCountsThemOnce) {
  for (auto condition : {Condition::kAbsent, Condition::kTrue}) {
    auto r = analyze_file(scripted_rnn(condition));
    const auto& loop = node_named(r, "rnn");
    EXPECT_EQ(loop.status, cost::NodeStatus::kCosted) << loop.note;
    EXPECT_EQ(loop.macs, 16 * 8 * 64 * 64);
    EXPECT_EQ(loop.params, 64 * 64);                      // W, once
    EXPECT_EQ(loop.weight_bytes_read, 16 * 64 * 64 * 4);  // W on every iteration
    // h into the product and into the Tanh (the Identity is a view): activations, on every iteration.
    EXPECT_EQ(loop.activation_bytes_read, 16 * 2 * 8 * 64 * 4);
    EXPECT_EQ(r.cost.totals.params, 64 * 64);
    // The weight memory: W, which no node of the graph reads, with the trip count (int64) and the condition (bool).
    EXPECT_EQ(r.cost.totals.weight_bytes, 64 * 64 * 4 + 8 + (condition == Condition::kTrue ? 1 : 0));
    EXPECT_EQ(r.cost.estimated_nodes, 0);
  }
  // A body that computes its condition may stop early: the trip count is then a maximum, and the cost an estimate.
  auto computed = analyze_file(scripted_rnn(Condition::kComputed));
  const auto& loop = node_named(computed, "rnn");
  EXPECT_EQ(loop.status, cost::NodeStatus::kEstimate);
  EXPECT_EQ(loop.macs, 16 * 8 * 64 * 64);
  EXPECT_EQ(computed.cost.estimated_nodes, 1);
}

// A loop nested in a loop's body: its trip count, a constant of the model's graph, is known inside the body (shape
// inference reads an enclosing graph's initializer as the graph's own nodes do), so both loops and their outputs are
// inferred; and the inner body's reads of the model's W and bias are weight reads on every iteration of both loops, and
// parameters once. By hand (support/loop_models.h): 3 outer x 2 inner iterations of a 2x3 by 3x3 product, 18 MACs
// each; parameters W (9), bias (3) and the then branch's 2.0 (1); weights read per inner iteration W and bias (36 + 12
// bytes), per outer iteration the body's int64 0 and 1 (8 + 8) and the then branch's 2.0 (4): the If's condition is
// the iteration's, so its costlier branch is counted (the first of two equal ones) and the Loop is an estimate.
TEST(ControlFlowCost, ALoopInABodyKnowsItsTripsAndReadsTheModelsWeights) {
  auto r = analyze_file(nested_control_loop());
  const auto& g = r.model.graph;
  EXPECT_EQ(graph::known_dims(g.value(*g.find("h_final")).shape), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(graph::known_dims(g.value(*g.find("collected")).shape), (std::vector<int64_t>{3, 2, 2, 3}));
  const auto& loop = node_named(r, "outer");
  EXPECT_EQ(loop.status, cost::NodeStatus::kEstimate) << loop.note;
  EXPECT_EQ(loop.macs, 3 * 2 * 18);
  EXPECT_EQ(loop.params, 9 + 3 + 1);
  EXPECT_EQ(r.cost.totals.params, 9 + 3 + 1);
  EXPECT_EQ(loop.weight_bytes_read, 3 * 2 * (36 + 12) + 3 * (8 + 8 + 4));
}

// A TorchScript loop that collects a Python list (tools/export_scripted_references.py: the exporter writes ONNX's
// sequence ops, SequenceConstruct([x]), a SequenceInsert per iteration into the sequence the Loop carries, and
// ConcatFromSequence(new_axis) after it, and declares the stacked output with a dim of its own naming): the loop's
// appends are counted, so the stacked output is 1 + outer tensors of 2x3 and everything is costed.
TEST(ControlFlowCost, AScriptedListIsCostedThroughItsSequence) {
  auto r =
      analyze_file(source_path("tests/data/executor/scripted_list/model.onnx"), {.dims = {{"outer", 3}, {"inner", 2}}});
  EXPECT_TRUE(r.cost.unknown_ops.empty());
  EXPECT_TRUE(r.cost.unresolved_ops.empty());
  const auto& stack = node_named(r, "/ConcatFromSequence");
  EXPECT_EQ(stack.output_shape, "4x2x3");
  EXPECT_EQ(stack.activation_bytes_read, 4 * 6 * 4);
  EXPECT_EQ(stack.bytes_written, 4 * 6 * 4);
  EXPECT_EQ(node_named(r, "/SequenceConstruct").output_shape, "sequence[1] of 2x3");
  // The If on the iteration number inside makes the Loop an estimate: one of the model's nodes, counted once.
  EXPECT_EQ(node_named(r, "/Loop_1").status, cost::NodeStatus::kEstimate);
  EXPECT_EQ(r.cost.estimated_nodes, 1);
  // The lower bound: the inputs x (2x3) and steps (3x2), the linear layer's weights (9 + 3) and the output, all fp32.
  EXPECT_EQ(r.cost.totals.bytes_min, (6 + 6 + 12 + 24) * 4);
}

// The rule the cost above and the GPU's unrolling share (graph/loop_condition.h): a body keeps its Loop going where its
// condition output is its condition input, directly or through an Identity, or a known true; a known false or a
// computed one may stop it.
TEST(LoopCondition, ABodyKeepsGoingWhereItsConditionStaysTrue) {
  enum class Out { kInput, kIdentity, kTrue, kFalse, kComputed };
  for (auto [out, keeps] : {std::pair{Out::kInput, true}, std::pair{Out::kIdentity, true}, std::pair{Out::kTrue, true},
                            std::pair{Out::kFalse, false}, std::pair{Out::kComputed, false}}) {
    ModelBuilder b;
    b.input("x", {int64_t{2}}).output("y");
    b.int64_constant("trips", {}, {3}).int64_constant("limit", {}, {1});
    auto& loop = b.node("Loop", {"trips", "", "x"}, {"y"}, "loop");
    ::onnx::GraphProto body;
    body.set_name("body");
    for (const char* name : {"i", "cond_in", "x_in"}) body.add_input()->set_name(name);
    add_graph_node(body, "Neg", {"x_in"}, {"x_out"});
    std::string condition = "cond_out";
    if (out == Out::kInput) {
      condition = "cond_in";
    } else if (out == Out::kIdentity) {
      add_graph_node(body, "Identity", {"cond_in"}, {"cond_out"});
    } else if (out == Out::kComputed) {
      add_graph_node(body, "Less", {"i", "limit"}, {"cond_out"});
    } else {
      auto& constant = add_graph_node(body, "Constant", {}, {"cond_out"});
      set_tensor(constant, "value", ::onnx::TensorProto::BOOL, {},
                 out == Out::kTrue ? std::string("\x01", 1) : std::string("\x00", 1));
    }
    body.add_output()->set_name(condition);
    body.add_output()->set_name("x_out");
    set_graph(loop, "body", body);
    auto r = analyze_file(b.save("loop_condition"));
    const auto& node = r.model.graph.nodes.back();
    ASSERT_EQ(node.op_type, "Loop");
    EXPECT_EQ(graph::body_keeps_going(*node.subgraphs().at(0)), keeps) << static_cast<int>(out);
    EXPECT_EQ(node_named(r, "loop").status, keeps ? cost::NodeStatus::kCosted : cost::NodeStatus::kEstimate)
        << static_cast<int>(out);
  }
}

}  // namespace
}  // namespace ridge::test
