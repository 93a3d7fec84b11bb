// An If whose condition shape inference evaluated, replaced by its taken branch (exec/if_inlining.h): the rewritten
// graph computes what the If did (the CPU executor, which runs both forms, gives the same bytes), nested Ifs go too,
// and an If the rewrite cannot replace stays, saying why.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "exec/engine.h"
#include "exec/if_inlining.h"
#include "support/model_builder.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

void add_weight(::onnx::GraphProto& g, const std::string& name, const std::vector<float>& values) {
  auto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::FLOAT);
  t->add_dims(static_cast<int64_t>(values.size()));
  t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
}

// x (rows x 3) -> If(rows == 2): then relu(x * w) and x itself, a nested If(rows == 2) adding 1 to the first; else
// -x and x + x. y = first + x; z = second.
std::string branching_model(int64_t rows, const std::string& then_name = "t_mul") {
  ModelBuilder b;
  b.input("x", {rows, int64_t{3}}).output("y").output("z");
  b.int64_constant("zero", {}, {0}).int64_constant("two", {}, {2});
  b.node("Shape", {"x"}, {"s"}, "shape");
  b.node("Gather", {"s", "zero"}, {"rows"}, "rows");
  b.node("Equal", {"rows", "two"}, {"cond"}, "equal");
  auto& node = b.node("If", {"cond"}, {"first", "second"}, "branch");
  ::onnx::GraphProto then_branch, else_branch, inner_then, inner_else;
  then_branch.set_name("then");
  add_weight(then_branch, "t_w", {0.5f, -2.f, 3.f});
  add_graph_node(then_branch, "Mul", {"x", "t_w"}, {then_name});
  add_graph_node(then_branch, "Relu", {then_name}, {"t_relu"});
  inner_then.set_name("inner_then");
  add_weight(inner_then, "t_one", {1.f});
  add_graph_node(inner_then, "Add", {"t_relu", "t_one"}, {"t_plus"});
  inner_then.add_output()->set_name("t_plus");
  inner_else.set_name("inner_else");
  add_graph_node(inner_else, "Neg", {"t_relu"}, {"t_negated"});
  inner_else.add_output()->set_name("t_negated");
  auto& inner = add_graph_node(then_branch, "If", {"cond"}, {"t_inner"});
  set_graph(inner, "then_branch", inner_then);
  set_graph(inner, "else_branch", inner_else);
  then_branch.add_output()->set_name("t_inner");
  then_branch.add_output()->set_name("x");  // a value of the graph, returned as it is
  else_branch.set_name("else");
  add_graph_node(else_branch, "Neg", {"x"}, {"e_neg"});
  add_graph_node(else_branch, "Add", {"x", "x"}, {"e_twice"});
  else_branch.add_output()->set_name("e_neg");
  else_branch.add_output()->set_name("e_twice");
  set_graph(node, "then_branch", then_branch);
  set_graph(node, "else_branch", else_branch);
  b.node("Add", {"first", "x"}, {"y"}, "add");
  b.node("Identity", {"second"}, {"z"}, "out");
  return b.save("if_inlining");
}

std::vector<float> ramp(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i) * 0.75f - 2.f;
  return v;
}

int count_ops(const graph::Graph& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.op_type == op;
  return n;
}

TEST(IfInlining, TheTakenBranchComputesWhatTheIfDid) {
  for (int64_t rows : {2, 4}) {  // then (and its nested If's then), else
    auto r = analyze_file(branching_model(rows));
    ASSERT_TRUE(exec::has_constant_if(r.model.graph)) << rows;
    graph::Model inlined = r.model;
    auto result = exec::inline_constant_ifs(inlined.graph);
    EXPECT_EQ(result.inlined, rows == 2 ? 2 : 1) << rows;
    EXPECT_TRUE(result.kept.empty());
    const auto& g = inlined.graph;
    EXPECT_EQ(count_ops(g, "If"), 0);
    EXPECT_FALSE(exec::has_constant_if(g));
    if (rows == 2) {
      // relu(x * w) + 1 (the nested If's then), and x through an Identity (a value of the graph is no node's output).
      EXPECT_EQ(count_ops(g, "Mul"), 1);
      EXPECT_EQ(count_ops(g, "Relu"), 1);
      EXPECT_EQ(count_ops(g, "Neg"), 0);
      ASSERT_TRUE(g.find("t_w").has_value());
      EXPECT_NE(g.value(*g.find("t_w")).initializer, nullptr);  // the branch's weight is the graph's
      ASSERT_TRUE(g.find("second").has_value());
      const auto& second = g.value(*g.find("second"));
      ASSERT_GE(second.producer, 0);
      EXPECT_EQ(g.nodes[static_cast<size_t>(second.producer)].op_type, "Identity");
    } else {
      EXPECT_EQ(count_ops(g, "Neg"), 1);
      EXPECT_FALSE(g.find("t_w").has_value());
      // The branch's outputs are the If's: its nodes write them.
      EXPECT_EQ(g.nodes[static_cast<size_t>(g.value(*g.find("first")).producer)].op_type, "Neg");
    }
    // Every node after the ones it reads.
    for (size_t n = 0; n < g.nodes.size(); ++n)
      for (auto id : g.nodes[n].inputs)
        if (id != graph::kNoValue) {
          EXPECT_LT(g.value(id).producer, static_cast<graph::NodeId>(n)) << g.nodes[n].name;
        }
    // The CPU executor runs the If and the inlined graph to the same bytes.
    auto x = float_tensor("x", {rows, 3}, ramp(rows * 3));
    auto& engine = exec::load_engine();
    auto want = engine.run(r.model, {x}, {});
    auto got = engine.run(inlined, {x}, {});
    ASSERT_EQ(got.outputs.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(got.outputs[i].dims, want.outputs[i].dims) << i;
      EXPECT_EQ(got.outputs[i].bytes, want.outputs[i].bytes) << rows << " output " << i;
    }
    if (rows == 2) {  // and by hand: relu(x * w) + 1 + x
      auto y = floats(got.outputs[0]);
      auto xs = ramp(6);
      const float w[3] = {0.5f, -2.f, 3.f};
      for (size_t i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(y[i], std::max(xs[i] * w[i % 3], 0.f) + 1.f + xs[i]) << i;
    }
  }
}

TEST(IfInlining, AnIfItCannotReplaceStaysAndSaysWhy) {
  // A condition the graph takes as an input: known only during the run.
  {
    ModelBuilder b;
    b.input("x", {int64_t{3}}).input("cond", {}, ::onnx::TensorProto::BOOL).output("y");
    auto& node = b.node("If", {"cond"}, {"y"}, "branch");
    for (const char* name : {"then_branch", "else_branch"}) {
      ::onnx::GraphProto g;
      g.set_name(name);
      add_graph_node(g, "Neg", {"x"}, {std::string(name) + "_neg"});
      g.add_output()->set_name(std::string(name) + "_neg");
      set_graph(node, name, g);
    }
    auto r = analyze_file(b.save("if_inlining_data"));
    EXPECT_FALSE(exec::has_constant_if(r.model.graph));
    auto result = exec::inline_constant_ifs(r.model.graph);
    EXPECT_EQ(result.inlined, 0);
    EXPECT_EQ(count_ops(r.model.graph, "If"), 1);
  }
  // A branch value named as one of the graph's (a model ONNX's checker refuses; ridge leaves its If alone).
  auto r = analyze_file(branching_model(2, "rows"));
  auto result = exec::inline_constant_ifs(r.model.graph);
  EXPECT_EQ(result.inlined, 0);
  ASSERT_EQ(result.kept.size(), 1u);
  EXPECT_EQ(result.kept[0], "branch: its branch's value 'rows' has the name of one of the graph's");
  EXPECT_EQ(count_ops(r.model.graph, "If"), 1);
}

// Every node an If put in its place (a nested If's too) runs for the outermost If, and a profile of the inlined graph
// becomes the model's: the branch's rows one row named as the If, its times summed (by hand), where its first was.
TEST(IfInlining, TheBranchsNodesAreTimedAsTheIf) {
  auto r = analyze_file(branching_model(2));
  graph::Model inlined = r.model;
  auto inlining = exec::inline_constant_ifs(inlined.graph);
  const auto& g = inlined.graph;
  std::vector<std::string> from_branch, outside;
  for (const auto& node : g.nodes) {
    const auto& from = inlining.inlined_from(node);
    if (from.empty()) {
      outside.push_back(node.name);
    } else {
      EXPECT_EQ(from.name, "branch") << node.name;
      EXPECT_EQ(from.op_type, "If") << node.name;
      from_branch.push_back(node.name);
    }
  }
  // Mul, Relu, the nested If's Add and the Identity that returns x.
  std::sort(from_branch.begin(), from_branch.end());
  EXPECT_EQ(from_branch, (std::vector<std::string>{"branch/second", "t_mul_node", "t_plus_node", "t_relu_node"}));
  std::sort(outside.begin(), outside.end());
  EXPECT_EQ(outside, (std::vector<std::string>{"add", "equal", "out", "rows", "shape"}));

  // Every node timed but node 0 (a profile leaves out what does not execute): node n takes 2^n ms, forward 2^n and
  // backward 0.
  std::vector<exec::Origin> if_of_row;
  std::vector<exec::NodeTiming> rows;
  for (size_t n = 1; n < g.nodes.size(); ++n) {
    exec::NodeTiming t;
    t.name = g.nodes[n].name;
    t.op_type = g.nodes[n].op_type;
    t.mean_ms = t.forward_ms = static_cast<double>(1 << n);
    t.backward_ms = 0;
    t.algorithm = "a" + std::to_string(n);
    if_of_row.push_back(inlining.inlined_from(g.nodes[n]));
    rows.push_back(t);
  }
  exec::fold_inlined_rows(if_of_row, rows);
  double branch_ms = 0;
  size_t first_branch = g.nodes.size(), branch_rows = 0;
  for (size_t n = 1; n < g.nodes.size(); ++n)
    if (!inlining.inlined_from(g.nodes[n]).empty()) {
      branch_ms += static_cast<double>(1 << n);
      first_branch = std::min(first_branch, n);
      ++branch_rows;
    }
  ASSERT_EQ(branch_rows, 4u);
  ASSERT_EQ(rows.size(), g.nodes.size() - 1 - branch_rows + 1);
  size_t at = 0;
  for (size_t n = 1; n < g.nodes.size(); ++n) {
    if (!inlining.inlined_from(g.nodes[n]).empty() && n != first_branch) continue;
    const auto& t = rows.at(at++);
    if (n == first_branch) {
      EXPECT_EQ(t.name, "branch");
      EXPECT_EQ(t.op_type, "If");
      EXPECT_EQ(t.mean_ms, branch_ms);
      EXPECT_EQ(t.forward_ms, branch_ms);
      EXPECT_EQ(t.backward_ms, 0);
      EXPECT_EQ(t.median_ms, -1);
      EXPECT_EQ(t.algorithm, "");
    } else {
      EXPECT_EQ(t.name, g.nodes[n].name);
      EXPECT_EQ(t.mean_ms, static_cast<double>(1 << n));
      EXPECT_EQ(t.algorithm, "a" + std::to_string(n));
    }
  }
  EXPECT_EQ(at, rows.size());
  // The row is the one the analysis costs: a node of that name, an If.
  EXPECT_EQ(node_named(r, "branch").op_type, "If");
  // Rows and their If names must pair up.
  EXPECT_THROW(exec::fold_inlined_rows({exec::Origin{"branch", "If"}}, rows), Error);
}

}  // namespace
}  // namespace ridge::test
