// ONNX's sequence ops on the CPU executor (exec/aten/kernels/sequence.cpp) against the ONNX project's own sequence
// models and their reference outputs (Debian's libonnx-testdata, data/simple/test_sequence_model1-8) and values by
// hand; and their rewrite into tensor ops for the GPU (exec/sequence_elimination.h), held to the CPU's sequences, on a
// hand-built model, a loop appending to a list, and PyTorch's own TorchScript export of one.
#include <gtest/gtest.h>

#include <filesystem>

#include "exec/control_flow_rewrite.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "exec/sequence_elimination.h"
#include "support/backend_node_tests.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "support/sequence_models.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

int count_ops(const graph::Graph& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.op_type == op;
  return n;
}

int sequence_ops(const graph::Graph& g) {
  int n = 0;
  for (const char* op : {"SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceErase", "SequenceAt",
                         "SequenceLength", "ConcatFromSequence", "SplitToSequence"})
    n += count_ops(g, op);
  return n;
}

std::vector<float> iota(int n, float from) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(from + static_cast<float>(i));
  return v;
}

// a = 0..5 as 2x3, b = 10..21 as 4x3.
std::vector<exec::HostTensor> ops_inputs() {
  return {float_tensor("a", {2, 3}, iota(6, 0)), float_tensor("b", {4, 3}, iota(12, 10))};
}

TEST(Sequences, OnnxsSequenceModelsMatchTheirReference) {
  fs::path simple = fs::path(onnx_testdata()) / "simple";
  if (!fs::exists(simple / "test_sequence_model1")) GTEST_SKIP() << "libonnx-testdata is not installed";
  // Only the sequence models (the directory holds others: string ops, a training gradient).
  auto root = fs::temp_directory_path() / fmt::format("ridge_sequence_models_{}", ::getpid());
  fs::create_directories(root);
  for (int i = 1; i <= 8; ++i) {
    auto name = fmt::format("test_sequence_model{}", i);
    if (!fs::exists(root / name)) fs::create_directory_symlink(simple / name, root / name);
  }
  auto tally = run_backend_node_tests(root.string(), exec::load_engine(), {});
  fs::remove_all(root);
  EXPECT_EQ(tally.pass, 8) << tally.failures;
  EXPECT_EQ(tally.fail, 0) << tally.failures;
}

TEST(Sequences, TheCpuComputesEachOpAsDefined) {
  auto r = analyze_file(sequence_ops_model());
  auto out = exec::load_engine().run(r.model, ops_inputs(), {});
  ASSERT_EQ(out.outputs.size(), 6u);
  auto a = iota(6, 0), b = iota(12, 10);
  EXPECT_EQ(floats(out.outputs[0]), a);  // s2[-1] = a
  ASSERT_EQ(out.outputs[1].dims, std::vector<int64_t>{});
  std::vector<float> cat = b;
  cat.insert(cat.end(), a.begin(), a.end());
  EXPECT_EQ(floats(out.outputs[2]), cat);  // concat(b, a) along rows
  EXPECT_EQ(out.outputs[3].dims, (std::vector<int64_t>{4, 3, 1}));
  EXPECT_EQ(floats(out.outputs[3]), b);  // b with a trailing axis: the same values in order
  EXPECT_EQ(floats(out.outputs[4]), a);  // rows 4 and 5 of the concat
  EXPECT_EQ(out.outputs[5].dims, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(floats(out.outputs[5]), (std::vector<float>{0, 3, 1, 4, 2, 5}));  // a's columns stacked: a^T
  EXPECT_EQ(int64s(out.outputs[1]), std::vector<int64_t>{2});
}

// The GPU's rewrite leaves no sequence op, and its tensor ops compute what the CPU's sequences did, value for value.
TEST(Sequences, KnownSequencesBecomeTensorOps) {
  auto r = analyze_file(sequence_ops_model());
  graph::Model rewritten = r.model;
  auto result = exec::rewrite_control_flow(rewritten);
  EXPECT_EQ(sequence_ops(rewritten.graph), 0);
  EXPECT_TRUE(result.kept_sequences.empty());
  EXPECT_EQ(count_ops(rewritten.graph, "Concat"), 3);
  EXPECT_EQ(count_ops(rewritten.graph, "Split"), 2);
  EXPECT_EQ(count_ops(rewritten.graph, "Squeeze"), 3);    // the columns split without keepdims
  EXPECT_EQ(count_ops(rewritten.graph, "Unsqueeze"), 4);  // before the two stacks (1 and 3 elements)
  // Each op that stays runs for the sequence op it replaced: a profile names it so.
  for (const auto& node : rewritten.graph.nodes) {
    if (node.op_type == "Unsqueeze") {
      EXPECT_EQ(result.origin(node).op_type, "ConcatFromSequence") << node.name;
    }
    if (node.op_type == "Squeeze") {
      EXPECT_EQ(result.origin(node).name, "split_columns") << node.name;
    }
  }
  EXPECT_NE(result.summary().find("sequence ops ran as the tensor ops"), std::string::npos) << result.summary();
  auto& engine = exec::load_engine();
  auto want = engine.run(r.model, ops_inputs(), {});
  auto got = engine.run(rewritten, ops_inputs(), {});
  ASSERT_EQ(got.outputs.size(), want.outputs.size());
  for (size_t i = 0; i < want.outputs.size(); ++i) {
    EXPECT_EQ(got.outputs[i].dims, want.outputs[i].dims) << i;
    EXPECT_EQ(got.outputs[i].bytes, want.outputs[i].bytes) << i;
  }
}

TEST(Sequences, AnUnrolledLoopsListBecomesAStack) {
  auto r = analyze_file(sequence_loop());
  graph::Model rewritten = r.model;
  auto result = exec::rewrite_control_flow(rewritten);
  EXPECT_EQ(result.loops, 1);
  EXPECT_EQ(count_ops(rewritten.graph, "Loop"), 0);
  EXPECT_EQ(sequence_ops(rewritten.graph), 0);
  EXPECT_EQ(count_ops(rewritten.graph, "Unsqueeze"), 3);
  std::vector<exec::HostTensor> inputs{float_tensor("x", {2, 3}, {0.5f, -1, 2, 0.25f, -0.75f, 1.5f})};
  auto& engine = exec::load_engine();
  auto want = engine.run(r.model, inputs, {});
  auto got = engine.run(rewritten, inputs, {});
  ASSERT_EQ(want.outputs.size(), 2u);
  EXPECT_EQ(want.outputs[0].dims, (std::vector<int64_t>{3, 2, 3}));
  // By hand: y[k] = tanh^(k+1)(x).
  auto x = floats(inputs[0]);
  auto y = floats(want.outputs[0]);
  for (size_t k = 0; k < 3; ++k)
    for (size_t e = 0; e < 6; ++e) {
      float h = x[e];
      for (size_t t = 0; t <= k; ++t) h = std::tanh(h);
      EXPECT_NEAR(y[k * 6 + e], h, 1e-6) << k << " " << e;
    }
  for (size_t i = 0; i < want.outputs.size(); ++i) EXPECT_EQ(got.outputs[i].bytes, want.outputs[i].bytes) << i;

  // A loop the body may stop sooner stays; what reads its list stays too, saying why.
  auto early = analyze_file(sequence_loop(true));
  graph::Model kept = early.model;
  auto kept_result = exec::rewrite_control_flow(kept);
  EXPECT_EQ(count_ops(kept.graph, "Loop"), 1);
  ASSERT_EQ(kept_result.kept_sequences.size(), 2u);
  EXPECT_EQ(kept_result.kept_sequences.front(),
            "empty (SequenceEmpty): loop (Loop) reads the sequence it builds and stays");
  EXPECT_EQ(kept_result.kept_sequences.back(),
            "stack (ConcatFromSequence): its sequence is built during the run (a loop that stays, or a position "
            "computed from data)");
  auto stopped = engine.run(early.model, inputs, {});
  EXPECT_EQ(stopped.outputs[0].dims, (std::vector<int64_t>{2, 2, 3}));  // i = 0 and 1 ran; 1 < 1 stopped it
}

// An empty axis splits into no pieces (ONNX's chunking; ATen's split would give one empty piece): its length is 0 on
// the CPU and to shape inference, and the rewrite leaves no sequence op.
TEST(Sequences, AnEmptyAxisSplitsIntoNothing) {
  ModelBuilder b;
  b.input("x", {int64_t{0}, int64_t{3}}).output("n");
  b.node("SplitToSequence", {"x"}, {"pieces"}, "split");
  b.node("SequenceLength", {"pieces"}, {"n"}, "length");
  auto r = analyze_file(b.save("sequence_empty_split"));
  EXPECT_EQ(graph::shape_text(r.model.graph.value(*r.model.graph.find("pieces"))), "sequence[0]");
  auto out = exec::load_engine().run(r.model, {float_tensor("x", {0, 3}, {})}, {});
  EXPECT_EQ(int64s(out.outputs[0]), std::vector<int64_t>{0});
  graph::Model rewritten = r.model;
  exec::rewrite_control_flow(rewritten);
  EXPECT_EQ(sequence_ops(rewritten.graph), 0);
  EXPECT_EQ(exec::load_engine().run(rewritten, {float_tensor("x", {0, 3}, {})}, {}).outputs[0].bytes,
            out.outputs[0].bytes);
}

// PyTorch's own export of a loop collecting a Python list (tools/export_scripted_references.py): the CPU runs its
// sequences, the rewrite its straight-line tensor ops, and both compute PyTorch's output.
TEST(Sequences, APyTorchScriptedListRunsBothWays) {
  const auto dir = source_path("tests/data/executor/scripted_list");
  analysis::Request request;
  request.model_path = dir + "/model.onnx";
  auto prepared = exec::prepare(request, dir + "/test_data_set_0");
  auto& engine = exec::load_engine();
  auto out = engine.run(prepared.analysis.model, prepared.inputs, {});
  EXPECT_EQ(compare_outputs(out.outputs, dir + "/test_data_set_0", 1e-5, 1e-6), "");
  graph::Model rewritten = prepared.analysis.model;
  auto result = exec::rewrite_control_flow(rewritten);
  EXPECT_EQ(count_ops(rewritten.graph, "Loop") + count_ops(rewritten.graph, "If"), 0);
  EXPECT_EQ(sequence_ops(rewritten.graph), 0);
  EXPECT_TRUE(result.kept_sequences.empty());
  auto straight = engine.run(rewritten, prepared.inputs, {});
  EXPECT_EQ(compare_outputs(straight.outputs, dir + "/test_data_set_0", 1e-5, 1e-6), "");
}

// A model whose input or output is a sequence is refused by name before anything runs.
TEST(Sequences, ASequenceAsAModelsInputOrOutputIsRefused) {
  auto model = fs::path(onnx_testdata()) / "node" / "test_sequence_insert_at_back" / "model.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << "libonnx-testdata is not installed";
  auto r = analyze_file(model.string());
  try {
    exec::check_runnable(r.model, exec::load_engine());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "the model's input 'sequence' is a sequence: ridge runs models whose inputs and outputs are tensors "
                 "(sequences inside a model run)");
  }
}

}  // namespace
}  // namespace ridge::test
