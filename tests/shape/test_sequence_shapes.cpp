// ONNX's sequence ops in the analysis: each element of a sequence followed where its positions are known (shape/
// sequence.cpp), a loop's appends counted (shape/control.cpp), the bytes moved (cost/sequence.cpp) and the memory a
// sequence holds (cost/liveness.cpp). Values by hand from the models' definitions (support/sequence_models.h).
#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "support/sequence_models.h"
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
}

}  // namespace
}  // namespace ridge::test
