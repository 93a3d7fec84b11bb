// Symbolic dims, bindings, value propagation through shape subgraphs, control flow, unknown ops.
#include <gtest/gtest.h>

#include "shape/spatial.h"
#include "support/model_builder.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using ::onnx::TensorProto;

// x[batch, seq, 8] -> Reshape to [batch*seq, 8] computed from Shape/Gather/Mul/Unsqueeze/Concat.
std::string dynamic_reshape_model() {
  ModelBuilder b;
  b.input("x", {std::string("batch"), std::string("seq"), int64_t{8}}).output("y");
  b.int64_constant("i0", {}, {0}).int64_constant("i1", {}, {1}).int64_constant("axis0", {1}, {0});
  b.int64_constant("eight", {1}, {8});
  b.node("Shape", {"x"}, {"s"}, "shape");
  b.node("Gather", {"s", "i0"}, {"b"}, "g0");
  b.node("Gather", {"s", "i1"}, {"q"}, "g1");
  b.node("Mul", {"b", "q"}, {"bq"}, "mul");
  b.node("Unsqueeze", {"bq", "axis0"}, {"bq1"}, "unsq");
  set_int(b.node("Concat", {"bq1", "eight"}, {"target"}, "concat"), "axis", 0);
  b.node("Reshape", {"x", "target"}, {"y"}, "reshape");
  return b.save("dynreshape");
}

TEST(Shapes, ValuePropagationResolvesDynamicReshape) {
  shape::Bindings bind;
  bind.batch = 4;
  bind.dims["seq"] = 10;
  auto r = analyze_file(dynamic_reshape_model(), bind);
  EXPECT_EQ(node_named(r, "reshape").output_shape, "40x8");
  // The shape arithmetic is known at analysis time: folded, costing nothing.
  EXPECT_EQ(node_named(r, "concat").status, cost::NodeStatus::kFolded);
  EXPECT_EQ(r.cost.unresolved_ops.size(), 0u);
}

TEST(Shapes, UnboundSymbolIsAnErrorNamingTheDim) {
  try {
    analyze_file(dynamic_reshape_model());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--dim seq=N"), std::string::npos) << e.what();
  }
}

TEST(Shapes, BatchDefaultsToOneAndSaysSo) {
  shape::Bindings bind;
  bind.dims["seq"] = 3;
  auto r = analyze_file(dynamic_reshape_model(), bind);
  EXPECT_EQ(node_named(r, "reshape").output_shape, "3x8");
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("batch=1 (default)"), std::string::npos);
}

TEST(Shapes, InputShapeOverrideAndRankCheck) {
  shape::Bindings bind;
  bind.inputs["x"] = {2, 5, 8};
  auto r = analyze_file(dynamic_reshape_model(), bind);
  EXPECT_EQ(node_named(r, "reshape").output_shape, "10x8");
  bind.inputs["x"] = {2, 5};
  EXPECT_THROW(analyze_file(dynamic_reshape_model(), bind), Error);
  shape::Bindings fixed_dim;
  fixed_dim.inputs["x"] = {2, 5, 9};  // dim 2 is fixed to 8 in the model
  EXPECT_THROW(analyze_file(dynamic_reshape_model(), fixed_dim), Error);
}

TEST(Shapes, UnknownOpsAreNamedAndCounted) {
  ModelBuilder b;
  b.input("x", {int64_t{4}}).output("z");
  auto& custom = b.node("FusedThing", {"x"}, {"y"}, "custom");
  custom.set_domain("com.example");
  b.node("Relu", {"y"}, {"z"}, "relu");
  b.node("NotAnOnnxOp", {"x"}, {"w"}, "bogus");
  auto r = analyze_file(b.save("unknown"));
  EXPECT_EQ(r.cost.unknown_ops.at("com.example::FusedThing"), 1);
  EXPECT_EQ(r.cost.unknown_ops.at("NotAnOnnxOp"), 1);
  EXPECT_EQ(node_named(r, "custom").status, cost::NodeStatus::kUnknownOp);
  // Downstream of an op without a shape rule, shapes are unknown: named, not zero.
  EXPECT_EQ(node_named(r, "relu").status, cost::NodeStatus::kUnresolved);
  analysis::Request strict;
  strict.model_path = b.save("unknown_strict");
  strict.strict = true;
  EXPECT_THROW(analysis::run(strict), Error);
}

TEST(Shapes, IfWithConstantConditionCostsTheTakenBranch) {
  ModelBuilder b;
  b.input("x", {int64_t{3}, int64_t{4}}).output("y");
  auto* cond = b.proto().mutable_graph()->add_initializer();
  cond->set_name("cond");
  cond->set_data_type(TensorProto::BOOL);
  cond->add_int32_data(1);
  auto& node = b.node("If", {"cond"}, {"y"}, "if");
  auto branch = [](const char* op) {
    ::onnx::GraphProto g;
    g.set_name(op);
    auto* n = g.add_node();
    n->set_op_type(op);
    n->add_input("x");
    n->add_input("x");
    n->add_output(std::string(op) + "_out");
    g.add_output()->set_name(std::string(op) + "_out");
    return g;
  };
  auto* then_attr = node.add_attribute();
  then_attr->set_name("then_branch");
  then_attr->set_type(::onnx::AttributeProto::GRAPH);
  *then_attr->mutable_g() = branch("Mul");
  auto* else_attr = node.add_attribute();
  else_attr->set_name("else_branch");
  else_attr->set_type(::onnx::AttributeProto::GRAPH);
  *else_attr->mutable_g() = branch("Add");
  auto r = analyze_file(b.save("if"));
  EXPECT_EQ(node_named(r, "if").output_shape, "3x4");
  EXPECT_EQ(node_named(r, "if").flops, 12);  // one Mul over 12 elements, the taken branch only
  EXPECT_EQ(node_named(r, "if").status, cost::NodeStatus::kCosted);
}

}  // namespace
}  // namespace ridge::test

namespace ridge::test {
namespace {

TEST(Shapes, BatchWithoutSymbolicDimIsReported) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}}).output("y");
  b.node("Relu", {"x"}, {"y"}, "relu");
  auto r = analyze_file(b.save("fixed"), {.batch = 8, .dims = {}, .inputs = {}});
  EXPECT_EQ(node_named(r, "relu").output_shape, "2x3");
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("--batch 8 had no effect"), std::string::npos);
}

}  // namespace
}  // namespace ridge::test

namespace ridge::test {
namespace {

graph::Attribute ints_attr(const std::string& name, std::vector<int64_t> values) {
  graph::Attribute a;
  a.name = name;
  a.kind = graph::Attribute::Kind::kInts;
  a.ints = std::move(values);
  return a;
}

graph::Attribute string_attr(const std::string& name, const std::string& value) {
  graph::Attribute a;
  a.name = name;
  a.kind = graph::Attribute::Kind::kString;
  a.s = value;
  return a;
}

// The one window rule shape inference and both executors use (shape::resolve_window), against hand-worked
// ONNX arithmetic: SAME pads make the output ceil(in / stride) with the odd pad at the end (UPPER) or the start
// (LOWER), dilation widening the window; VALID drops explicit pads; a bad auto_pad is an error.
TEST(Shapes, OneWindowRuleForShapesAndExecutors) {
  graph::Node node;
  node.op_type = "Conv";
  // in 7, kernel 3, dilation 2 (extent 5), stride 2: out 4, total pad (4 - 1) x 2 + 5 - 7 = 4.
  node.attributes = {ints_attr("strides", {2}), ints_attr("dilations", {2}), string_attr("auto_pad", "SAME_UPPER")};
  auto w = shape::resolve_window(node, {7}, {3});
  EXPECT_EQ(w.pads_begin, std::vector<int64_t>{2});
  EXPECT_EQ(w.pads_end, std::vector<int64_t>{2});
  EXPECT_EQ(shape::window_output_dims({7}, w), std::vector<int64_t>{4});
  // in 6, kernel 4, stride 1: total 3, UPPER (1, 2), LOWER (2, 1); the output stays 6.
  node.attributes = {string_attr("auto_pad", "SAME_UPPER")};
  w = shape::resolve_window(node, {6}, {4});
  EXPECT_EQ(w.pads_begin, std::vector<int64_t>{1});
  EXPECT_EQ(w.pads_end, std::vector<int64_t>{2});
  node.attributes = {string_attr("auto_pad", "SAME_LOWER")};
  w = shape::resolve_window(node, {6}, {4});
  EXPECT_EQ(w.pads_begin, std::vector<int64_t>{2});
  EXPECT_EQ(w.pads_end, std::vector<int64_t>{1});
  EXPECT_EQ(shape::window_output_dims({6}, w), std::vector<int64_t>{6});
  node.attributes = {string_attr("auto_pad", "VALID"), ints_attr("pads", {1, 1})};
  w = shape::resolve_window(node, {6}, {4});
  EXPECT_EQ(w.pads_begin, std::vector<int64_t>{0});
  EXPECT_EQ(shape::window_output_dims({6}, w), std::vector<int64_t>{3});
  node.attributes = {string_attr("auto_pad", "SAME")};
  EXPECT_THROW(shape::resolve_window(node, {6}, {4}), Error);
  node.attributes = {ints_attr("pads", {0, 0})};
  EXPECT_THROW(shape::window_output_dims({3}, shape::resolve_window(node, {3}, {4})), Error);  // does not fit
}

}  // namespace
}  // namespace ridge::test
