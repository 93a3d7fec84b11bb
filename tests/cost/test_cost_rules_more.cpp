// More cost rules by hand: reductions, TopK, Resize, single-operand Einsum, Where, data movement,
// and newer opsets.
#include <gtest/gtest.h>

#include "support/model_builder.h"

namespace ridge::test {
namespace {

using ::onnx::TensorProto;

TEST(ReductionCost, L2AndSumSquareAndArgMax) {
  ModelBuilder b(13);
  b.input("x", {int64_t{4}, int64_t{5}}).output("l2").output("ss").output("am");
  auto& l2 = b.node("ReduceL2", {"x"}, {"l2"}, "l2");
  set_ints(l2, "axes", {1});
  auto& ss = b.node("ReduceSumSquare", {"x"}, {"ss"}, "ss");
  set_ints(ss, "axes", {1});
  set_int(b.node("ArgMax", {"x"}, {"am"}, "am"), "axis", 1);
  auto r = analyze_file(b.save("reduce"));
  // 20 inputs to 4 outputs: 16 adds + 20 squares (+ 4 roots for L2).
  EXPECT_EQ(node_named(r, "l2").flops, 16 + 20 + 4);
  EXPECT_EQ(node_named(r, "ss").flops, 16 + 20);
  EXPECT_EQ(node_named(r, "am").flops, 16);
  EXPECT_EQ(node_named(r, "am").output_shape, "4x1");
}

TEST(ReductionCost, TopK) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{100}}).int64_constant("k", {1}, {7}).output("v").output("i");
  b.node("TopK", {"x", "k"}, {"v", "i"}, "topk");
  auto r = analyze_file(b.save("topk"));
  EXPECT_EQ(node_named(r, "topk").output_shape, "2x7");
  EXPECT_EQ(node_named(r, "topk").flops, 200 * 3);  // n log2(k + 1) = 200 x 3
}

TEST(ManipulationCost, ResizeLinearAndNearest) {
  auto build = [](const char* mode) {
    ModelBuilder b;
    b.input("x", {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{4}}).weight("scales", {4}, 1.0f).output("y");
    auto* scales = b.proto().mutable_graph()->mutable_initializer(0);
    std::vector<float> values{1, 1, 2, 2};
    scales->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), 16));
    auto& node = b.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
    set_string(node, "mode", mode);
    return analyze_file(b.save(mode));
  };
  auto linear = build("linear");
  EXPECT_EQ(node_named(linear, "resize").output_shape, "1x2x8x8");
  EXPECT_EQ(node_named(linear, "resize").flops, 2 * 4 * 128);  // 2 resized dims: 4 neighbours, 2 FLOPs each
  EXPECT_EQ(node_named(linear, "resize").params, 0);           // scales are not parameters
  EXPECT_EQ(node_named(build("nearest"), "resize").flops, 0);
}

TEST(ManipulationCost, ConcatTransposeSliceBytes) {
  ModelBuilder b;
  b.input("a", {int64_t{2}, int64_t{3}}).input("c", {int64_t{2}, int64_t{5}}).output("t").output("s");
  b.int64_constant("starts", {1}, {1}).int64_constant("ends", {1}, {4}).int64_constant("axes", {1}, {1});
  set_int(b.node("Concat", {"a", "c"}, {"cat"}, "concat"), "axis", 1);
  b.node("Transpose", {"cat"}, {"t"}, "transpose");
  b.node("Slice", {"cat", "starts", "ends", "axes"}, {"s"}, "slice");
  auto r = analyze_file(b.save("movement"));
  EXPECT_EQ(node_named(r, "concat").output_shape, "2x8");
  EXPECT_EQ(node_named(r, "concat").bytes(), (6 + 10) * 4 + 16 * 4);
  EXPECT_EQ(node_named(r, "transpose").output_shape, "8x2");
  EXPECT_EQ(node_named(r, "transpose").flops, 0);
  EXPECT_EQ(node_named(r, "slice").output_shape, "2x3");
  EXPECT_EQ(node_named(r, "slice").activation_bytes_read, 6 * 4);  // only the 2x3 slice of the 2x8 input
  EXPECT_EQ(node_named(r, "slice").weight_bytes_read, 3 * 8);      // starts, ends, axes
}

TEST(MatMulCost, EinsumSingleOperandAndImplicitOutput) {
  ModelBuilder b;
  b.input("x", {int64_t{3}, int64_t{4}}).input("y", {int64_t{4}, int64_t{5}}).output("sum").output("prod");
  set_string(b.node("Einsum", {"x"}, {"sum"}, "rowsum"), "equation", "ij->i");
  set_string(b.node("Einsum", {"x", "y"}, {"prod"}, "implicit"), "equation", "ij,jk");
  auto r = analyze_file(b.save("einsum1"));
  EXPECT_EQ(node_named(r, "rowsum").output_shape, "3");
  EXPECT_EQ(node_named(r, "rowsum").flops, 12 - 3);
  EXPECT_EQ(node_named(r, "implicit").output_shape, "3x5");  // implicit output: labels seen once, sorted
  EXPECT_EQ(node_named(r, "implicit").macs, 3 * 4 * 5);
}

TEST(ElementwiseCost, WhereAndVariadicMean) {
  ModelBuilder b;
  b.input("c", {int64_t{4}}, TensorProto::BOOL)
      .input("x", {int64_t{4}})
      .input("y", {int64_t{1}})
      .output("w")
      .output("m");
  b.node("Where", {"c", "x", "y"}, {"w"}, "where");
  b.node("Mean", {"x", "x", "y"}, {"m"}, "mean");
  auto r = analyze_file(b.save("where"));
  EXPECT_EQ(node_named(r, "where").flops, 4);
  EXPECT_EQ(node_named(r, "mean").flops, 3 * 4);  // two adds and a divide per element
}

TEST(Opsets, Opset21ModelWithInputAxes) {
  ModelBuilder b(21);
  b.input("x", {std::string("batch"), int64_t{1}, int64_t{6}}).int64_constant("axes", {1}, {1}).output("y");
  b.node("Squeeze", {"x", "axes"}, {"s"}, "squeeze");
  b.node("ReduceMax", {"s", "axes"}, {"y"}, "rmax");
  auto r = analyze_file(b.save("opset21"), {.batch = 3, .dims = {}, .inputs = {}});
  EXPECT_EQ(r.model.default_opset(), 21);
  EXPECT_EQ(node_named(r, "squeeze").output_shape, "3x6");
  EXPECT_EQ(node_named(r, "rmax").output_shape, "3x1");
  EXPECT_EQ(node_named(r, "rmax").flops, 18 - 3);
}

TEST(Loader, ExternalWeightsLargerThanTwoGigabytes) {
  // 4 GiB of weights in an external file that is not there: the graph alone is analyzed.
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{32768}}).external_weight("w", {32768, 32768}, "weights.bin").output("y");
  b.node("MatMul", {"x", "w"}, {"y"}, "mm");
  auto r = analyze_file(b.save("huge"));
  EXPECT_EQ(r.cost.totals.params, int64_t{32768} * 32768);
  EXPECT_EQ(r.cost.totals.weight_bytes, int64_t{4} << 30);
  EXPECT_EQ(node_named(r, "mm").macs, int64_t{32768} * 32768);
}

}  // namespace
}  // namespace ridge::test

namespace ridge::test {
namespace {

TEST(LossCost, SoftmaxCrossEntropyAndNll) {
  ModelBuilder b;
  b.input("scores", {int64_t{4}, int64_t{10}})
      .input("labels", {int64_t{4}}, ::onnx::TensorProto::INT64)
      .output("loss")
      .output("nll");
  b.node("SoftmaxCrossEntropyLoss", {"scores", "labels"}, {"loss"}, "sce");
  set_string(b.node("NegativeLogLikelihoodLoss", {"scores", "labels"}, {"nll"}, "nll"), "reduction", "sum");
  auto r = analyze_file(b.save("loss"));
  EXPECT_EQ(node_named(r, "sce").output_shape, "scalar");
  EXPECT_EQ(node_named(r, "sce").flops, 5 * 40 + 4 + 3 + 1);  // log-softmax, pick, 3 adds, mean's divide
  EXPECT_EQ(node_named(r, "nll").flops, 4 + 3);
  EXPECT_EQ(node_named(r, "nll").activation_bytes_read, 4 * 4 + 4 * 8);  // 4 picked scores + labels
}

TEST(SamplingCost, GridSampleBilinear) {
  ModelBuilder b(16);
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{8}})
      .input("grid", {int64_t{1}, int64_t{5}, int64_t{6}, int64_t{2}})
      .output("y");
  b.node("GridSample", {"x", "grid"}, {"y"}, "gs");
  auto r = analyze_file(b.save("gridsample"));
  EXPECT_EQ(node_named(r, "gs").output_shape, "1x3x5x6");
  EXPECT_EQ(node_named(r, "gs").flops, (2 * 2 + 2 * 4) * 90);
}

// RoiAlign by hand (cost/pooling.cpp): X 1x8x16x16, 7x7 bins per region. A sample costs 8 FLOPs per channel (four
// weighted pixels summed) and 12 shared by the channels (its coordinates and weights); an average divides once per
// output. X is read where sampled, at most whole (8 x 16 x 16 x 4 = 8192 bytes).
TEST(SamplingCost, RoiAlignSamplesEachBin) {
  auto model = [](int64_t ratio, bool constant_rois) {
    ModelBuilder b(16);
    b.input("x", {int64_t{1}, int64_t{8}, int64_t{16}, int64_t{16}}).output("y");
    int64_t regions = constant_rois ? 2 : 3;
    if (constant_rois)
      b.weight_values("rois", {2, 4}, {0, 0, 14, 7, 2, 2, 9, 9});
    else
      b.input("rois", {regions, int64_t{4}});
    b.int64_constant("batch", {regions}, std::vector<int64_t>(static_cast<size_t>(regions), 0));
    auto& n = b.node("RoiAlign", {"x", "rois", "batch"}, {"y"}, "roi");
    set_int(n, "output_height", 7);
    set_int(n, "output_width", 7);
    set_int(n, "sampling_ratio", ratio);
    return analyze_file(b.save("roialign"));
  };
  // sampling_ratio 2: 3 regions x 49 bins x 4 samples = 588.
  auto fixed = model(2, false);
  const auto& a = node_named(fixed, "roi");
  EXPECT_EQ(a.output_shape, "3x8x7x7");
  EXPECT_EQ(a.status, cost::NodeStatus::kCosted);
  EXPECT_EQ(a.flops, 588 * (8 * 8 + 12) + 3 * 8 * 49);
  EXPECT_EQ(a.activation_bytes_read, 8192 + 3 * 4 * 4);  // X whole, the rois
  EXPECT_EQ(a.weight_bytes_read, 3 * 8);                 // the batch indices, a constant
  // sampling_ratio 0 and regions known only at run time: one sample per bin counted, and said to be an estimate.
  auto adaptive = model(0, false);
  const auto& e = node_named(adaptive, "roi");
  EXPECT_EQ(e.status, cost::NodeStatus::kEstimate);
  EXPECT_EQ(e.flops, 3 * 49 * (8 * 8 + 12) + 3 * 8 * 49);
  EXPECT_NE(e.note.find("one sample per bin"), std::string::npos) << e.note;
  EXPECT_EQ(adaptive.cost.estimated_nodes, 1);
  // sampling_ratio 0 with constant regions: 14 x 7 pixels gives ceil(7/7) x ceil(14/7) = 1 x 2 samples a bin, 7 x 7
  // gives 1 x 1: 49 x 3 in all, exact.
  auto known = model(0, true);
  const auto& k = node_named(known, "roi");
  EXPECT_EQ(k.status, cost::NodeStatus::kCosted);
  EXPECT_EQ(k.flops, 49 * 3 * (8 * 8 + 12) + 2 * 8 * 49);
}

// MaxUnpool moves data: X (2 x 2 x 2 floats) and its int64 indices read, the 2 x 4 x 4 output written, no FLOPs.
TEST(SamplingCost, MaxUnpoolMovesDataOnly) {
  ModelBuilder b(11);
  b.input("x", {int64_t{1}, int64_t{2}, int64_t{2}, int64_t{2}})
      .input("i", {int64_t{1}, int64_t{2}, int64_t{2}, int64_t{2}}, TensorProto::INT64)
      .output("y");
  auto& n = b.node("MaxUnpool", {"x", "i"}, {"y"}, "unpool");
  set_ints(n, "kernel_shape", {2, 2});
  set_ints(n, "strides", {2, 2});
  auto r = analyze_file(b.save("maxunpool"));
  const auto& u = node_named(r, "unpool");
  EXPECT_EQ(u.output_shape, "1x2x4x4");
  EXPECT_EQ(u.flops, 0);
  EXPECT_EQ(u.activation_bytes_read, 8 * 4 + 8 * 8);
  EXPECT_EQ(u.bytes_written, 32 * 4);
}

// A Constant node holding one scalar, as PyTorch's exporter writes Dropout's ratio and training_mode.
void scalar_constant(ModelBuilder& b, const std::string& name, int32_t type, double value) {
  auto& node = b.node("Constant", {}, {name}, name);
  auto* attr = node.add_attribute();
  attr->set_name("value");
  attr->set_type(::onnx::AttributeProto::TENSOR);
  auto* t = attr->mutable_t();
  t->set_data_type(type);
  if (type == TensorProto::FLOAT)
    t->add_float_data(static_cast<float>(value));
  else
    t->add_int32_data(static_cast<int32_t>(value));
}

TEST(ManipulationCost, DropoutWorksOnlyWhenTraining) {
  // x: 2x3x4 = 24 floats. "on" trains (training_mode true): a draw compared and a scale per element, its output
  // (96 B) and mask (24 B) written, 1 FLOP per element backward, which keeps only the mask. "off" is a view.
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}, int64_t{4}}).weight("w", {4}).output("y").output("z");
  scalar_constant(b, "ratio", TensorProto::FLOAT, 0.25);
  scalar_constant(b, "train", TensorProto::BOOL, 1);
  scalar_constant(b, "infer", TensorProto::BOOL, 0);
  b.node("Mul", {"x", "w"}, {"e"}, "scale");  // a trained weight before it, so gradients reach the Dropouts
  b.node("Dropout", {"e", "ratio", "train"}, {"y", "mask"}, "on");
  b.node("Dropout", {"e", "ratio", "infer"}, {"z"}, "off");
  cost::CostOptions training;
  training.training = true;
  auto r = analyze_file(b.save("dropout"), {}, training);
  const auto& on = node_named(r, "on");
  EXPECT_EQ(on.flops, 2 * 24);
  EXPECT_EQ(on.bytes_written, 24 * 4 + 24);
  EXPECT_EQ(on.backward_flops, 24);
  // Backward reads y's gradient (96 B) and the mask (24 B) and writes e's gradient (96 B); the boolean mask has no
  // gradient of its own to read.
  EXPECT_EQ(on.backward_bytes, 96 + 24 + 96);
  EXPECT_EQ(on.params, 0);  // the ratio is not trained
  const auto& off = node_named(r, "off");
  EXPECT_EQ(off.flops, 0);
  EXPECT_EQ(off.bytes(), 0);
  // Saved for backward: Mul keeps its activation input x (96 B) and "on" its mask (24 B), not its output y.
  EXPECT_EQ(r.cost.training->saved_activation_bytes, 24 * 4 + 24);
}

TEST(NormalizationCost, TrainingModeBatchNormComputesBatchStatistics) {
  // training_mode=1 (a training export): mean 1, variance 2, normalize 2, affine 2 FLOPs per element even in an
  // inference analysis, against 2 for the folded inference form.
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{4}, int64_t{3}, int64_t{3}})
      .weight("scale", {4})
      .weight("shift", {4})
      .weight("mean", {4})
      .weight("var", {4})
      .output("y");
  set_int(
      b.node("BatchNormalization", {"x", "scale", "shift", "mean", "var"}, {"y", "running_mean", "running_var"}, "bn"),
      "training_mode", 1);
  auto r = analyze_file(b.save("bn_training"));
  EXPECT_EQ(node_named(r, "bn").flops, 7 * 72);
  EXPECT_EQ(node_named(r, "bn").params, 8);
}

// A training-mode BatchNormalization's running mean and variance outputs (and LayerNormalization's Mean and
// InvStdDev) are statistics: backward receives no gradient for them, so a node that writes them costs the same
// backward as one that does not.
TEST(NormalizationCost, StatisticOutputsReceiveNoGradient) {
  auto backward = [](bool statistics) {
    ModelBuilder b;
    b.input("x", {int64_t{2}, int64_t{4}, int64_t{3}, int64_t{3}})
        .weight("scale", {4})
        .weight("shift", {4})
        .weight("mean", {4})
        .weight("var", {4})
        .weight("gamma", {3})
        .output("z");
    std::vector<std::string> bn_out{"y"}, ln_out{"z"};
    if (statistics) {
      bn_out.insert(bn_out.end(), {"running_mean", "running_var"});
      ln_out.insert(ln_out.end(), {"ln_mean", "ln_inv_std"});
    }
    set_int(b.node("BatchNormalization", {"x", "scale", "shift", "mean", "var"}, bn_out, "bn"), "training_mode", 1);
    b.node("LayerNormalization", {"y", "gamma"}, ln_out, "ln");
    cost::CostOptions training;
    training.training = true;
    auto r = analyze_file(b.save(statistics ? "norm-stats" : "norm-plain"), {}, training);
    return std::pair{node_named(r, "bn").backward_bytes, node_named(r, "ln").backward_bytes};
  };
  auto plain = backward(false), with_statistics = backward(true);
  EXPECT_GT(plain.first, 0);
  EXPECT_EQ(with_statistics.first, plain.first);
  EXPECT_EQ(with_statistics.second, plain.second);
}

TEST(MatMulCost, Determinant) {
  ModelBuilder b;
  b.input("m", {int64_t{5}, int64_t{3}, int64_t{3}}).output("d");
  b.node("Det", {"m"}, {"d"}, "det");
  auto r = analyze_file(b.save("det"));
  EXPECT_EQ(node_named(r, "det").output_shape, "5");
  EXPECT_EQ(node_named(r, "det").flops, 5 * (2 * 27 / 3 + 3));
}

}  // namespace
}  // namespace ridge::test
