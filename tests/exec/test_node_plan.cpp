// The one node plan every executor builds (exec/node_plan): which nodes run and what each releases, read off
// small graphs by hand: shape arithmetic folded (the GPU) or run (the CPU), an activation released after its last
// reader, a graph output and a folded constant kept, a value an If's branches read released after the If, and values
// computed from a weight run when a training step updates the weights.
#include <gtest/gtest.h>

#include <set>

#include "exec/node_plan.h"
#include "support/model_builder.h"

namespace ridge::test {
namespace {

std::set<std::string> released(const graph::Graph& g, const exec::NodePlan& p, size_t node) {
  std::set<std::string> names;
  for (auto id : p.release_after.at(node)) names.insert(g.value(id).name);
  return names;
}

TEST(NodePlan, ShapeArithmeticFoldsOrRunsAndActivationsGoAfterTheirLastReader) {
  // x -> Shape -> s (known to inference); Reshape(x, s) -> r -> Relu -> y (output)
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}}).output("y");
  b.node("Shape", {"x"}, {"s"}, "shape");
  b.node("Reshape", {"x", "s"}, {"r"}, "reshape");
  b.node("Relu", {"r"}, {"y"}, "relu");
  auto r = analyze_file(b.save("node_plan"));
  const auto& g = r.model.graph;
  ASSERT_TRUE(exec::is_folded_arithmetic(g, g.nodes[0]));
  EXPECT_FALSE(exec::is_folded_arithmetic(g, g.nodes[1]));

  auto folded = exec::plan_nodes(g, true);
  EXPECT_EQ(folded.runs, (std::vector<bool>{false, true, true}));
  EXPECT_TRUE(released(g, folded, 0).empty());
  EXPECT_EQ(released(g, folded, 1), (std::set<std::string>{"x"}));  // s is a constant now: kept
  EXPECT_EQ(released(g, folded, 2), (std::set<std::string>{"r"}));  // y is the output: kept

  auto run = exec::plan_nodes(g, false);
  EXPECT_EQ(run.runs, (std::vector<bool>{true, true, true}));
  EXPECT_TRUE(released(g, run, 0).empty());
  EXPECT_EQ(released(g, run, 1), (std::set<std::string>{"x", "s"}));
  EXPECT_EQ(released(g, run, 2), (std::set<std::string>{"r"}));
}

TEST(NodePlan, AValueASubgraphReadsIsReleasedAfterItsNode) {
  // x -> Relu -> a; If(cond) whose branches compute from a -> y; a has no reader in the main graph.
  ModelBuilder b;
  b.input("x", {int64_t{3}}).input("cond", {int64_t{1}}, ::onnx::TensorProto::BOOL).output("y");
  b.node("Relu", {"x"}, {"a"}, "relu");
  auto& node = b.node("If", {"cond"}, {"y"}, "if");
  for (const auto* attr_name : {"then_branch", "else_branch"}) {
    ::onnx::GraphProto branch;
    branch.set_name(attr_name);
    auto* n = branch.add_node();
    n->set_op_type("Neg");
    n->add_input("a");
    n->add_output("neg_out");
    branch.add_output()->set_name("neg_out");
    auto* attr = node.add_attribute();
    attr->set_name(attr_name);
    attr->set_type(::onnx::AttributeProto::GRAPH);
    *attr->mutable_g() = branch;
  }
  auto r = analyze_file(b.save("node_plan_if"));
  const auto& g = r.model.graph;
  auto p = exec::plan_nodes(g, false);
  EXPECT_EQ(released(g, p, 0), (std::set<std::string>{"x"}));
  EXPECT_EQ(released(g, p, 1), (std::set<std::string>{"a", "cond"}));
}

TEST(NodePlan, ValuesComputedFromAWeightRunWhenTheWeightsChange) {
  // w (a weight of 4) -> Slice [1:3] -> s -> Mul(x, s) -> y (output); Shape(w) -> n (int64, output)
  ModelBuilder b;
  b.input("x", {int64_t{2}}).output("y").output("n");
  b.weight_values("w", {4}, {1.f, 2.f, 3.f, 4.f});
  b.int64_constant("starts", {1}, {1}).int64_constant("ends", {1}, {3});
  b.node("Slice", {"w", "starts", "ends"}, {"s"}, "slice");
  b.node("Mul", {"x", "s"}, {"y"}, "mul");
  b.node("Shape", {"w"}, {"n"}, "shape");
  auto r = analyze_file(b.save("node_plan_weights"));
  const auto& g = r.model.graph;
  // Shape inference evaluated the slice of the weight, so inference folds it.
  ASSERT_TRUE(exec::is_folded_arithmetic(g, g.nodes[0]));
  EXPECT_EQ(exec::plan_nodes(g, true).runs, (std::vector<bool>{false, true, false}));
  // Training: the slice would keep the weight's first values and hide it from the backward, so it runs; the weight's
  // shape (an integer, no gradient) stays folded.
  auto training = exec::plan_nodes(g, true, true);
  EXPECT_EQ(training.runs, (std::vector<bool>{true, true, false}));
  EXPECT_EQ(released(g, training, 1), (std::set<std::string>{"x", "s"}));
}

}  // namespace
}  // namespace ridge::test
