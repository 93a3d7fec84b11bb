// Every cost rule against values computed by hand (the arithmetic is in each comment).
#include <gtest/gtest.h>

#include "support/model_builder.h"

namespace ridge::test {
namespace {

using ::onnx::TensorProto;

TEST(ConvCost, StridedPaddedWithBias) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{32}, int64_t{32}})
      .weight("w", {8, 3, 3, 3})
      .weight("bias", {8})
      .output("y");
  auto& conv = b.node("Conv", {"x", "w", "bias"}, {"y"}, "conv");
  set_ints(conv, "pads", {1, 1, 1, 1});
  set_ints(conv, "strides", {2, 2});
  auto r = analyze_file(b.save("conv"));
  const auto& c = node_named(r, "conv");
  EXPECT_EQ(c.output_shape, "1x8x16x16");  // floor((32 + 2 - 3) / 2) + 1 = 16
  EXPECT_EQ(c.macs, 8 * 16 * 16 * 3 * 9);  // 55296
  EXPECT_EQ(c.flops, 2 * 55296 + 8 * 16 * 16);
  EXPECT_EQ(c.params, 8 * 27 + 8);
  EXPECT_EQ(c.activation_bytes_read, 3 * 32 * 32 * 4);
  EXPECT_EQ(c.weight_bytes_read, 224 * 4);
  EXPECT_EQ(c.bytes_written, 2048 * 4);
  EXPECT_DOUBLE_EQ(c.intensity(), 112640.0 / (12288 + 896 + 8192));
}

TEST(ConvCost, DepthwiseGroups) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{16}, int64_t{10}, int64_t{10}}).weight("w", {16, 1, 3, 3}).output("y");
  set_int(b.node("Conv", {"x", "w"}, {"y"}, "dw"), "group", 16);
  auto r = analyze_file(b.save("dwconv"));
  EXPECT_EQ(node_named(r, "dw").output_shape, "1x16x8x8");
  EXPECT_EQ(node_named(r, "dw").macs, 16 * 64 * 1 * 9);
  EXPECT_EQ(node_named(r, "dw").flops, 2 * 9216);
}

TEST(ConvCost, SameUpperAutoPad) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{2}, int64_t{7}, int64_t{7}}).weight("w", {4, 2, 3, 3}).output("y");
  auto& conv = b.node("Conv", {"x", "w"}, {"y"}, "c");
  set_string(conv, "auto_pad", "SAME_UPPER");
  set_ints(conv, "strides", {2, 2});
  auto r = analyze_file(b.save("same"));
  EXPECT_EQ(node_named(r, "c").output_shape, "1x4x4x4");  // ceil(7 / 2)
  EXPECT_EQ(node_named(r, "c").macs, 4 * 16 * 2 * 9);
}

TEST(ConvCost, Transpose) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{4}, int64_t{5}, int64_t{5}}).weight("w", {4, 2, 3, 3}).output("y");
  set_ints(b.node("ConvTranspose", {"x", "w"}, {"y"}, "ct"), "strides", {2, 2});
  auto r = analyze_file(b.save("convt"));
  EXPECT_EQ(node_named(r, "ct").output_shape, "1x2x11x11");  // 2 * (5 - 1) + 3
  EXPECT_EQ(node_named(r, "ct").macs, 100 * 2 * 9);          // every input element meets 2 x 3x3 weights
}

TEST(MatMulCost, GemmTransposedWithBias) {
  ModelBuilder b;
  b.input("a", {int64_t{4}, int64_t{16}}).weight("w", {10, 16}).weight("c", {10}).output("y");
  set_int(b.node("Gemm", {"a", "w", "c"}, {"y"}, "fc"), "transB", 1);
  auto r = analyze_file(b.save("gemm"));
  const auto& c = node_named(r, "fc");
  EXPECT_EQ(c.output_shape, "4x10");
  EXPECT_EQ(c.macs, 4 * 10 * 16);
  EXPECT_EQ(c.flops, 2 * 640 + 40);  // bias add excluded from MACs, one FLOP per output
  EXPECT_EQ(c.params, 170);
}

TEST(MatMulCost, BatchedBroadcast) {
  ModelBuilder b;
  b.input("a", {int64_t{2}, int64_t{3}, int64_t{4}, int64_t{5}}).weight("w", {5, 6}).output("y");
  b.node("MatMul", {"a", "w"}, {"y"}, "mm");
  auto r = analyze_file(b.save("matmul"));
  EXPECT_EQ(node_named(r, "mm").output_shape, "2x3x4x6");
  EXPECT_EQ(node_named(r, "mm").macs, 2 * 3 * 4 * 6 * 5);
}

TEST(MatMulCost, Einsum) {
  ModelBuilder b;
  b.input("a", {int64_t{2}, int64_t{3}, int64_t{4}}).input("c", {int64_t{2}, int64_t{4}, int64_t{5}}).output("y");
  set_string(b.node("Einsum", {"a", "c"}, {"y"}, "e"), "equation", "bij,bjk->bik");
  auto r = analyze_file(b.save("einsum"));
  EXPECT_EQ(node_named(r, "e").output_shape, "2x3x5");
  EXPECT_EQ(node_named(r, "e").macs, 2 * 3 * 4 * 5);
}

TEST(ElementwiseCost, UnaryAndBroadcastBinary) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}}).weight("bias", {3}).output("z");
  b.node("Add", {"x", "bias"}, {"y"}, "add");
  b.node("Sigmoid", {"y"}, {"z"}, "sig");
  auto r = analyze_file(b.save("eltwise"));
  EXPECT_EQ(node_named(r, "add").flops, 6);
  EXPECT_EQ(node_named(r, "add").params, 3);
  EXPECT_EQ(node_named(r, "sig").flops, 4 * 6);  // neg, exp, add, divide per element
  EXPECT_EQ(node_named(r, "sig").macs, 0);
}

TEST(NormalizationCost, LayerNormSoftmaxBatchNorm) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{5}, int64_t{8}}).weight("g", {8}).weight("beta", {8}).output("s");
  b.node("LayerNormalization", {"x", "g", "beta"}, {"n"}, "ln");
  b.node("Softmax", {"n"}, {"s"}, "sm");
  auto r = analyze_file(b.save("norm"));
  EXPECT_EQ(node_named(r, "ln").flops, 7 * 80);
  EXPECT_EQ(node_named(r, "ln").params, 16);
  EXPECT_EQ(node_named(r, "sm").flops, 5 * 80);

  ModelBuilder bn;
  bn.input("x", {int64_t{1}, int64_t{4}, int64_t{2}, int64_t{2}})
      .weight("scale", {4})
      .weight("shift", {4})
      .weight("mean", {4})
      .weight("var", {4})
      .output("y");
  bn.node("BatchNormalization", {"x", "scale", "shift", "mean", "var"}, {"y"}, "bn");
  auto rb = analyze_file(bn.save("bn"));
  EXPECT_EQ(node_named(rb, "bn").flops, 2 * 16);  // inference: folded scale and shift
  EXPECT_EQ(node_named(rb, "bn").params, 8);      // running mean/var are not parameters
  EXPECT_EQ(node_named(rb, "bn").weight_bytes_read, 16 * 4);
}

TEST(PoolingCost, CeilModeAndGlobal) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{1}, int64_t{5}, int64_t{5}}).output("m").output("a").output("g");
  auto& mp = b.node("MaxPool", {"x"}, {"m"}, "max");
  set_ints(mp, "kernel_shape", {2, 2});
  set_ints(mp, "strides", {2, 2});
  set_int(mp, "ceil_mode", 1);
  auto& ap = b.node("AveragePool", {"x"}, {"a"}, "avg");
  set_ints(ap, "kernel_shape", {3, 3});
  set_ints(ap, "pads", {1, 1, 1, 1});
  b.node("GlobalAveragePool", {"x"}, {"g"}, "gap");
  auto r = analyze_file(b.save("pool"));
  EXPECT_EQ(node_named(r, "max").output_shape, "1x1x3x3");  // ceil((5 - 2) / 2) + 1
  EXPECT_EQ(node_named(r, "max").flops, 9 * 3);             // 3 comparisons per 2x2 window
  EXPECT_EQ(node_named(r, "avg").output_shape, "1x1x5x5");
  EXPECT_EQ(node_named(r, "avg").flops, 25 * 9);
  EXPECT_EQ(node_named(r, "gap").flops, 25);
}

TEST(ReductionCost, ReduceMeanAxesByOpset) {
  // opset 17: axes is an attribute; opset 18: an input.
  ModelBuilder b17(17);
  b17.input("x", {int64_t{2}, int64_t{6}}).output("y");
  set_ints(b17.node("ReduceMean", {"x"}, {"y"}, "rm"), "axes", {1});
  auto r17 = analyze_file(b17.save("rm17"));
  EXPECT_EQ(node_named(r17, "rm").output_shape, "2x1");
  EXPECT_EQ(node_named(r17, "rm").flops, (12 - 2) + 2);  // 10 adds, 2 divides

  ModelBuilder b18(18);
  b18.input("x", {int64_t{2}, int64_t{6}}).int64_constant("axes", {1}, {0}).output("y");
  set_int(b18.node("ReduceMean", {"x", "axes"}, {"y"}, "rm"), "keepdims", 0);
  auto r18 = analyze_file(b18.save("rm18"));
  EXPECT_EQ(node_named(r18, "rm").output_shape, "6");
}

TEST(RecurrentCost, LstmGruRnn) {
  // seq 5, batch 2, input 3, hidden 4.
  auto build = [](const char* op, int gates) {
    ModelBuilder b;
    b.input("x", {int64_t{5}, int64_t{2}, int64_t{3}})
        .weight("W", {1, gates * 4, 3})
        .weight("R", {1, gates * 4, 4})
        .weight("B", {1, 2 * gates * 4})
        .output("y");
    set_int(b.node(op, {"x", "W", "R", "B"}, {"y"}, "rnn"), "hidden_size", 4);
    return analyze_file(b.save(op));
  };
  auto lstm = build("LSTM", 4);
  EXPECT_EQ(node_named(lstm, "rnn").output_shape, "5x1x2x4");
  EXPECT_EQ(node_named(lstm, "rnn").macs, 5 * 4 * 4 * (3 + 4) * 2);  // 1120
  EXPECT_EQ(node_named(lstm, "rnn").flops, 2 * 1120 + 18 * 4 * 2 * 5 + 2 * 4 * 4 * 2 * 5);
  EXPECT_EQ(node_named(lstm, "rnn").params, 48 + 64 + 32);
  EXPECT_EQ(node_named(build("GRU", 3), "rnn").macs, 5 * 3 * 4 * 7 * 2);
  EXPECT_EQ(node_named(build("RNN", 1), "rnn").macs, 5 * 4 * 7 * 2);
}

TEST(AttentionCost, FourDimensional) {
  ModelBuilder b(23);
  b.input("q", {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{8}})
      .input("k", {int64_t{1}, int64_t{2}, int64_t{6}, int64_t{8}})
      .input("v", {int64_t{1}, int64_t{2}, int64_t{6}, int64_t{8}})
      .output("y");
  b.node("Attention", {"q", "k", "v"}, {"y"}, "attn");
  auto r = analyze_file(b.save("attention"));
  EXPECT_EQ(node_named(r, "attn").output_shape, "1x2x4x8");
  EXPECT_EQ(node_named(r, "attn").macs, 2 * (1 * 2 * 4 * 6 * 8));  // QK^T and PV
  EXPECT_EQ(node_named(r, "attn").flops, 2 * 768 + 6 * 48);
}

// A decode step of grouped-query attention over a key/value cache: one new token attends to its 10 cached keys and
// itself, and the present caches (the past ones with the new keys joined) are written whole.
TEST(AttentionCost, ADecodeStepAttendsToItsCache) {
  ModelBuilder b(23);
  b.input("q", {int64_t{2}, int64_t{1}, int64_t{64}})  // 8 query heads of 8
      .input("k", {int64_t{2}, int64_t{1}, int64_t{16}})
      .input("v", {int64_t{2}, int64_t{1}, int64_t{16}})  // 2 key/value heads
      .input("past_k", {int64_t{2}, int64_t{2}, int64_t{10}, int64_t{8}})
      .input("past_v", {int64_t{2}, int64_t{2}, int64_t{10}, int64_t{8}})
      .output("y")
      .output("present_k")
      .output("present_v");
  auto& node = b.node("Attention", {"q", "k", "v", "", "past_k", "past_v"}, {"y", "present_k", "present_v"}, "attn");
  set_int(node, "q_num_heads", 8);
  set_int(node, "kv_num_heads", 2);
  set_int(node, "is_causal", 1);
  auto r = analyze_file(b.save("attention_cache"));
  const auto& a = node_named(r, "attn");
  EXPECT_EQ(graph::shape_text(r.model.graph.value(*r.model.graph.find("present_k"))), "2x2x11x8");
  const int64_t scores = 2 * 8 * 1 * 11;
  EXPECT_EQ(a.macs, scores * 8 + scores * 8);
  EXPECT_EQ(a.flops, 2 * a.macs + 6 * scores);
  EXPECT_EQ(a.activation_bytes_read, 4 * (128 + 32 + 32 + 320 + 320));  // Q, K, V and both caches
  EXPECT_EQ(a.bytes_written, 4 * (128 + 352 + 352));                    // Y and both present caches
}

TEST(ManipulationCost, GatherReadsRowsAndViewsMoveNothing) {
  ModelBuilder b;
  b.input("ids", {int64_t{2}, int64_t{3}}, TensorProto::INT64).weight("table", {100, 16}).output("flat");
  b.int64_constant("shape", {2}, {6, 16});
  b.node("Gather", {"table", "ids"}, {"emb"}, "embed");
  b.node("Reshape", {"emb", "shape"}, {"flat"}, "view");
  auto r = analyze_file(b.save("gather"));
  const auto& g = node_named(r, "embed");
  EXPECT_EQ(g.output_shape, "2x3x16");
  EXPECT_EQ(g.weight_bytes_read, 6 * 16 * 4);  // only the six rows looked up, not 6400 bytes
  EXPECT_EQ(g.params, 1600);
  EXPECT_EQ(node_named(r, "view").bytes(), 0);
  EXPECT_EQ(node_named(r, "view").output_shape, "6x16");
}

TEST(DtypeOverride, ActivationAndWeightBytes) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{32}, int64_t{32}}).weight("w", {8, 3, 3, 3}).output("y");
  b.node("Conv", {"x", "w"}, {"y"}, "conv");
  cost::CostOptions half;
  half.activation_dtype = graph::DType::kFloat16;
  half.weight_dtype = graph::DType::kInt8;
  auto r = analyze_file(b.save("dtype"), {}, half);
  const auto& c = node_named(r, "conv");
  EXPECT_EQ(c.activation_bytes_read, 3 * 32 * 32 * 2);
  EXPECT_EQ(c.weight_bytes_read, 216);
  EXPECT_EQ(c.output_shape, "1x8x30x30");
  EXPECT_EQ(c.bytes_written, 8 * 30 * 30 * 2);
}

}  // namespace
}  // namespace ridge::test
