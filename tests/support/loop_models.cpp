#include "support/loop_models.h"

#include <algorithm>

#include "support/model_builder.h"

namespace ridge::test {
namespace {

void add_int64s(::onnx::GraphProto& g, const std::string& name, std::vector<int64_t> dims,
                const std::vector<int64_t>& values) {
  auto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::INT64);
  for (auto d : dims) t->add_dims(d);
  for (auto v : values) t->add_int64_data(v);
}

}  // namespace

std::string recurrent_loop(int64_t trips, LoopCondition condition, bool trips_as_input) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}}).output("h_final").output("negated");
  b.weight_values("W", {3, 3}, {0.5f, -0.25f, 0.1f, 0.2f, 0.3f, -0.4f, -0.1f, 0.6f, 0.05f});
  std::vector<float> table;
  for (int64_t i = 0; i < std::max<int64_t>(trips, 1); ++i) table.push_back(0.1f * static_cast<float>(i) - 0.15f);
  b.weight_values("table", {std::max<int64_t>(trips, 1)}, table);
  if (trips_as_input)
    b.input("trips", {}, ::onnx::TensorProto::INT64);
  else
    b.int64_constant("trips", {}, {trips});
  bool has_condition = condition == LoopCondition::kTrue || condition == LoopCondition::kComputed;
  if (has_condition) {
    b.bool_constant("go", {}, {true});
  }
  auto& loop = b.node("Loop", {"trips", has_condition ? "go" : "", "x"}, {"h_final", "negated"}, "loop");
  ::onnx::GraphProto body;
  body.set_name("body");
  for (const char* name : {"i", "cond_in", "h_in"}) body.add_input()->set_name(name);
  add_int64s(body, "axis0", {1}, {0});
  add_int64s(body, "one", {}, {1});
  add_int64s(body, "two", {}, {2});
  add_graph_node(body, "MatMul", {"h_in", "W"}, {"product"});
  add_graph_node(body, "Unsqueeze", {"i", "axis0"}, {"start"});
  add_graph_node(body, "Add", {"i", "one"}, {"next"});
  add_graph_node(body, "Unsqueeze", {"next", "axis0"}, {"end"});
  add_graph_node(body, "Slice", {"table", "start", "end"}, {"piece"});  // its shape known from i's value only
  add_graph_node(body, "Add", {"product", "piece"}, {"sum"});
  add_graph_node(body, "Tanh", {"sum"}, {"h_out"});
  add_graph_node(body, "Neg", {"h_out"}, {"neg_out"});
  if (condition == LoopCondition::kComputed || condition == LoopCondition::kComputedWithoutInput)
    add_graph_node(body, "Less", {"i", "two"}, {"cond_out"});
  else
    add_graph_node(body, "Identity", {"cond_in"}, {"cond_out"});
  for (const char* name : {"cond_out", "h_out", "neg_out"}) body.add_output()->set_name(name);
  set_graph(loop, "body", body);
  return b.save("loop_unrolling");
}

std::string nested_control_loop(bool flag_input, int64_t inner_trips) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}});
  if (flag_input) b.input("flag", {}, ::onnx::TensorProto::BOOL);
  b.output("h_final").output("collected");
  b.weight_values("W", {3, 3}, {0.5f, -0.25f, 0.1f, 0.2f, 0.3f, -0.4f, -0.1f, 0.6f, 0.05f});
  b.weight_values("bias", {3}, {0.05f, -0.1f, 0.2f});
  b.int64_constant("trips", {}, {3});
  b.int64_constant("inner_trips", {}, {inner_trips});
  auto& outer = b.node("Loop", {"trips", "", "x"}, {"h_final", "collected"}, "outer");

  ::onnx::GraphProto then_branch, else_branch;
  then_branch.set_name("then");
  auto* two = then_branch.add_initializer();
  two->set_name("two_f");
  two->set_data_type(::onnx::TensorProto::FLOAT);
  two->add_float_data(2.0f);
  add_graph_node(then_branch, "Mul", {"h_in", "two_f"}, {"doubled"});
  then_branch.add_output()->set_name("doubled");
  else_branch.set_name("else");
  add_graph_node(else_branch, "Tanh", {"h_in"}, {"squashed"});
  else_branch.add_output()->set_name("squashed");

  ::onnx::GraphProto inner_body;
  inner_body.set_name("inner_body");
  for (const char* name : {"j", "inner_cond_in", "g_in"}) inner_body.add_input()->set_name(name);
  add_graph_node(inner_body, "MatMul", {"g_in", "W"}, {"gw"});
  add_graph_node(inner_body, "Mul", {"gw", "scale"}, {"scaled"});  // `scale`: the outer body's
  add_graph_node(inner_body, "Add", {"scaled", "bias"}, {"g_out"});
  add_graph_node(inner_body, "Neg", {"g_out"}, {"g_neg"});
  add_graph_node(inner_body, "Identity", {"inner_cond_in"}, {"inner_cond_out"});
  for (const char* name : {"inner_cond_out", "g_out", "g_neg"}) inner_body.add_output()->set_name(name);

  ::onnx::GraphProto body;
  body.set_name("body");
  for (const char* name : {"i", "cond_in", "h_in"}) body.add_input()->set_name(name);
  add_int64s(body, "zero", {}, {0});
  add_int64s(body, "one", {}, {1});
  if (!flag_input) add_graph_node(body, "Equal", {"i", "zero"}, {"first"});
  auto& branch = add_graph_node(body, "If", {flag_input ? "flag" : "first"}, {"b"});
  branch.set_name("first");
  set_graph(branch, "then_branch", then_branch);
  set_graph(branch, "else_branch", else_branch);
  add_graph_node(body, "Add", {"i", "one"}, {"i_plus_one"});
  set_int(add_graph_node(body, "Cast", {"i_plus_one"}, {"scale"}), "to", ::onnx::TensorProto::FLOAT);
  auto& inner = add_graph_node(body, "Loop", {"inner_trips", "", "b"}, {"h_out", "inner_collected"});
  inner.set_name("inner");
  set_graph(inner, "body", inner_body);
  add_graph_node(body, "Identity", {"cond_in"}, {"cond_out"});
  for (const char* name : {"cond_out", "h_out", "inner_collected"}) body.add_output()->set_name(name);
  set_graph(outer, "body", body);
  return b.save("nested_control_loop");
}

std::string reversed_scan() {
  ModelBuilder b;
  b.input("s0", {int64_t{2}}).input("xs", {int64_t{4}, int64_t{2}}).input("ys", {int64_t{2}, int64_t{4}});
  b.output("s").output("sums").output("ys_back");
  auto& scan = b.node("Scan", {"s0", "xs", "ys"}, {"s", "sums", "ys_back"}, "scan");
  set_int(scan, "num_scan_inputs", 2);
  set_ints(scan, "scan_input_axes", {0, 1});
  set_ints(scan, "scan_input_directions", {0, 1});
  set_ints(scan, "scan_output_axes", {0, 1});
  set_ints(scan, "scan_output_directions", {0, 1});
  ::onnx::GraphProto body;
  body.set_name("body");
  for (const char* name : {"s_in", "x", "y"}) body.add_input()->set_name(name);
  add_graph_node(body, "Mul", {"x", "y"}, {"xy"});
  add_graph_node(body, "Add", {"s_in", "xy"}, {"s_out"});
  add_graph_node(body, "Identity", {"y"}, {"y_out"});
  for (const char* name : {"s_out", "s_out", "y_out"}) body.add_output()->set_name(name);
  set_graph(scan, "body", body);
  return b.save("scan_unrolling");
}

}  // namespace ridge::test
