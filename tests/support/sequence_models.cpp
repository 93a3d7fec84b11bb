#include "support/sequence_models.h"

#include "support/model_builder.h"

namespace ridge::test {

std::string sequence_ops_model(bool at_out_of_range) {
  ModelBuilder b;
  b.input("a", {int64_t{2}, int64_t{3}}).input("b", {int64_t{4}, int64_t{3}});
  for (const char* out : {"at", "len", "cat", "st", "p1", "stacked"}) b.output(out);
  b.int64_constant("zero", {}, {0}).int64_constant("last", {}, {at_out_of_range ? 5 : -1});
  b.int64_constant("one", {}, {1}).int64_constant("four", {}, {4});
  set_int(b.node("SequenceEmpty", {}, {"s0"}, "empty"), "dtype", ::onnx::TensorProto::FLOAT);
  b.node("SequenceInsert", {"s0", "a"}, {"s1"}, "append_a");
  b.node("SequenceInsert", {"s1", "b", "zero"}, {"s2"}, "prepend_b");
  b.node("SequenceAt", {"s2", "last"}, {"at"}, "at");
  b.node("SequenceLength", {"s2"}, {"len"}, "len");
  set_int(b.node("ConcatFromSequence", {"s2"}, {"cat"}, "cat"), "axis", 0);
  b.node("SequenceErase", {"s2"}, {"s3"}, "erase");
  auto& st = b.node("ConcatFromSequence", {"s3"}, {"st"}, "st");
  set_int(st, "axis", -1);
  set_int(st, "new_axis", 1);
  b.node("SplitToSequence", {"cat", "four"}, {"pieces"}, "split_rows");
  b.node("SequenceAt", {"pieces", "one"}, {"p1"}, "p1");
  auto& columns = b.node("SplitToSequence", {"a"}, {"columns"}, "split_columns");
  set_int(columns, "axis", 1);
  set_int(columns, "keepdims", 0);
  set_int(b.node("ConcatFromSequence", {"columns"}, {"stacked"}, "stacked"), "new_axis", 1);
  return b.save("sequence_ops");
}

std::string sequence_loop(bool stops_early) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}}).output("y").output("h_final");
  b.int64_constant("trips", {}, {3});
  set_int(b.node("SequenceEmpty", {}, {"s"}, "empty"), "dtype", ::onnx::TensorProto::FLOAT);
  auto& loop = b.node("Loop", {"trips", "", "x", "s"}, {"h_final", "collected"}, "loop");
  ::onnx::GraphProto body;
  body.set_name("body");
  for (const char* name : {"i", "cond_in", "h_in", "s_in"}) body.add_input()->set_name(name);
  add_graph_node(body, "Tanh", {"h_in"}, {"h_out"});
  add_graph_node(body, "SequenceInsert", {"s_in", "h_out"}, {"s_out"});
  if (stops_early) {
    auto* one = body.add_initializer();
    one->set_name("one");
    one->set_data_type(::onnx::TensorProto::INT64);
    one->add_int64_data(1);
    add_graph_node(body, "Less", {"i", "one"}, {"cond_out"});
  } else {
    add_graph_node(body, "Identity", {"cond_in"}, {"cond_out"});
  }
  for (const char* name : {"cond_out", "h_out", "s_out"}) body.add_output()->set_name(name);
  set_graph(loop, "body", body);
  auto& stack = b.node("ConcatFromSequence", {"collected"}, {"y"}, "stack");
  set_int(stack, "new_axis", 1);
  return b.save("sequence_loop");
}

}  // namespace ridge::test
