// ONNX's sequence ops in the analysis: each element of a sequence followed where its positions are known (shape/
// sequence.cpp), a loop's appends counted (shape/control.cpp), the bytes moved (cost/sequence.cpp) and the memory a
// sequence holds (cost/liveness.cpp). Values by hand from the models' definitions (support/sequence_models.h).
#include <gtest/gtest.h>

#include "exec/engine.h"
#include "support/model_builder.h"
#include "support/sequence_models.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

const graph::Value& value_named(const analysis::Result& r, const std::string& name) {
  auto id = r.model.graph.find(name);
  EXPECT_TRUE(id.has_value()) << name;
  return r.model.graph.value(*id);
}

TEST(SequenceShapes, EveryElementIsFollowedWhereItsPositionIsKnown) {
  auto r = analyze_file(sequence_ops_model());
  EXPECT_TRUE(r.cost.unknown_ops.empty());
  EXPECT_TRUE(r.cost.unresolved_ops.empty());
  // [b, a]: b inserted at position 0 of [a].
  EXPECT_EQ(graph::shape_text(value_named(r, "s2")), "sequence[2] of 4x3,2x3");
  EXPECT_EQ(graph::shape_text(value_named(r, "s0")), "sequence[0]");
  EXPECT_EQ(graph::shape_text(value_named(r, "s3")), "sequence[1] of 4x3");
  EXPECT_EQ(graph::shape_text(value_named(r, "at")), "2x3");  // s2[-1] = a
  const auto& len = value_named(r, "len");
  ASSERT_TRUE(len.constant);
  EXPECT_EQ(len.constant->ints, std::vector<int64_t>{2});
  EXPECT_EQ(graph::shape_text(value_named(r, "cat")), "6x3");
  EXPECT_EQ(graph::shape_text(value_named(r, "st")), "4x3x1");  // axis -1 of the stacked rank 3
  // 6 rows in pieces of 4: 4 and 2 (the last the remainder).
  EXPECT_EQ(graph::shape_text(value_named(r, "pieces")), "sequence[2] of 4x3,2x3");
  EXPECT_EQ(graph::shape_text(value_named(r, "p1")), "2x3");
  EXPECT_EQ(graph::shape_text(value_named(r, "columns")), "sequence[3] of 2");
  EXPECT_EQ(graph::shape_text(value_named(r, "stacked")), "3x2");
  // Building a sequence and reading an element move nothing; concatenating copies every element once (fp32).
  for (const char* name : {"append_a", "prepend_b", "at", "erase", "p1"})
    EXPECT_EQ(node_named(r, name).bytes(), 0) << name;
  EXPECT_EQ(node_named(r, "cat").activation_bytes_read, (12 + 6) * 4);
  EXPECT_EQ(node_named(r, "cat").bytes_written, (12 + 6) * 4);
  EXPECT_EQ(node_named(r, "split_rows").activation_bytes_read, 18 * 4);
  EXPECT_EQ(node_named(r, "split_rows").bytes_written, 18 * 4);
  EXPECT_EQ(node_named(r, "stacked").bytes_written, 6 * 4);
  EXPECT_EQ(node_named(r, "prepend_b").output_shape, "sequence[2] of 4x3,2x3");
}

TEST(SequenceShapes, APositionOutOfRangeIsAModelError) {
  try {
    analyze_file(sequence_ops_model(true));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "node 'at' (SequenceAt): position 5 is out of range for a sequence of 2 elements");
  }
}

// A loop of a known trip count appending each iteration's value: the sequence after it holds one per iteration. Where
// the body's condition may stop it sooner, its length is the run's: what reads it is named, not guessed.
TEST(SequenceShapes, ALoopsAppendsAreCounted) {
  auto r = analyze_file(sequence_loop());
  EXPECT_EQ(graph::shape_text(value_named(r, "collected")), "sequence[3] of 2x3");
  EXPECT_EQ(graph::shape_text(value_named(r, "y")), "3x2x3");
  EXPECT_EQ(node_named(r, "stack").activation_bytes_read, 3 * 6 * 4);
  EXPECT_TRUE(r.cost.unresolved_ops.empty());

  auto early = analyze_file(sequence_loop(true));
  EXPECT_EQ(graph::shape_text(value_named(early, "collected")), "sequence of 2x3");
  EXPECT_EQ(early.cost.unresolved_ops, (std::map<std::string, int>{{"ConcatFromSequence", 1}}));
  EXPECT_NE(node_named(early, "stack").note.find("known only at run time"), std::string::npos)
      << node_named(early, "stack").note;
}

// Tensors of two ranks share no shape: what is read from their sequence at a run-time place is the run's, not either
// rank's (before, "nothing in common" read as "nothing yet", and the inserted tensor's shape was claimed).
TEST(SequenceShapes, TensorsOfTwoRanksShareNoShape) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}}).input("r", {int64_t{6}}).input("p", {}, ::onnx::TensorProto::INT64);
  b.output("y");
  b.int64_constant("zero", {}, {0});
  b.node("SequenceConstruct", {"x", "r"}, {"s"});
  b.node("SequenceInsert", {"s", "x", "p"}, {"s2"});  // at a run-time position: the elements are the run's
  b.node("SequenceAt", {"s2", "zero"}, {"y"}, "at");
  auto r = analyze_file(b.save("sequence_ranks"));
  EXPECT_EQ(graph::shape_text(value_named(r, "s")), "sequence[2] of 2x3,6");
  EXPECT_TRUE(value_named(r, "s2").element_shape.ranks_differ);
  EXPECT_EQ(r.cost.unresolved_ops, (std::map<std::string, int>{{"SequenceAt", 1}}));
}

// A body appending what it read, doubled: the first iteration's shapes do not hold for the next (2x3, then 4x3, 8x3),
// so what the body reads of its sequence is the run's and the Loop is named, not costed at the first shapes.
TEST(SequenceShapes, ABodyWhoseAppendsGrowIsNotGivenTheFirstIterationsShapes) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}}).output("y");
  b.int64_constant("trips", {}, {3}).int64_constant("last", {}, {-1});
  b.node("SequenceConstruct", {"x"}, {"s"});
  auto& loop = b.node("Loop", {"trips", "", "s"}, {"grown"}, "loop");
  ::onnx::GraphProto body;
  body.set_name("body");
  for (const char* name : {"i", "cond_in", "s_in"}) body.add_input()->set_name(name);
  add_graph_node(body, "SequenceAt", {"s_in", "last"}, {"e"});
  set_int(add_graph_node(body, "Concat", {"e", "e"}, {"doubled"}), "axis", 0);
  add_graph_node(body, "SequenceInsert", {"s_in", "doubled"}, {"s_out"});
  add_graph_node(body, "Identity", {"cond_in"}, {"cond_out"});
  for (const char* name : {"cond_out", "s_out"}) body.add_output()->set_name(name);
  set_graph(loop, "body", body);
  set_int(b.node("ConcatFromSequence", {"grown"}, {"y"}, "cat"), "axis", 0);
  auto r = analyze_file(b.save("sequence_growing"));
  EXPECT_EQ(r.cost.unresolved_ops.count("Loop"), 1u);
  auto out = exec::load_engine().run(r.model, {float_tensor("x", {2, 3}, std::vector<float>(6, 1.0f))}, {});
  EXPECT_EQ(out.outputs[0].dims, (std::vector<int64_t>{2 + 4 + 8 + 16, 3}));
}

TEST(SequenceShapes, ATensorOpGivenASequenceIsAModelError) {
  ModelBuilder b;
  b.input("x", {int64_t{2}}).output("y");
  b.node("SequenceConstruct", {"x"}, {"s"});
  b.node("Relu", {"s"}, {"y"}, "relu");
  try {
    analyze_file(b.save("sequence_relu"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "node 'relu' (Relu): input 's' is a sequence; Relu takes tensors");
  }
}

// A sequence built by reference holds its tensors: they stay live until what reads it has run. x (256 fp32, 1 KiB)
// -> a = Relu(x), b = Neg(x), s = [a, b], y = concat(s) (2 KiB): at the concat, a, b and y are live (4 KiB); were b
// released after the SequenceConstruct (its last direct reader), the peak would be 3 KiB.
TEST(SequenceShapes, ASequenceKeepsItsTensorsLive) {
  ModelBuilder b;
  b.input("x", {int64_t{256}}).output("y");
  b.node("Relu", {"x"}, {"a"});
  b.node("Neg", {"x"}, {"b"});
  b.node("SequenceConstruct", {"a", "b"}, {"s"});
  b.node("ConcatFromSequence", {"s"}, {"y"});
  auto r = analyze_file(b.save("sequence_liveness"));
  EXPECT_EQ(r.cost.totals.peak_activation_bytes, 4 * 1024);

  // Its length is a scalar of its own (here a constant shape inference knows, counted as no memory): it keeps nothing
  // live. x -> a = Relu(x), n = len([a]) (an output), b = Neg(x): a goes after the SequenceLength, so at b only x and b
  // are live (2 KiB; 3 KiB were a kept to the end, as an alias of the output).
  ModelBuilder c;
  c.input("x", {int64_t{256}}).output("n").output("b");
  c.node("Relu", {"x"}, {"a"});
  c.node("SequenceConstruct", {"a"}, {"s"});
  c.node("SequenceLength", {"s"}, {"n"});
  c.node("Neg", {"x"}, {"b"});
  EXPECT_EQ(analyze_file(c.save("sequence_length_liveness")).cost.totals.peak_activation_bytes, 2 * 1024);
}

}  // namespace
}  // namespace ridge::test
