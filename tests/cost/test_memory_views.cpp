// Fused and lower-bound traffic, peak activation memory and the training step, by hand.
#include <gtest/gtest.h>

#include "support/model_builder.h"

namespace ridge::test {
namespace {

// x(1x3x32x32) -> Conv(8x3x3x3, pad 1, stride 2) -> t -> Relu -> y(1x8x16x16)
std::string conv_relu_model() {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{32}, int64_t{32}})
      .weight("w", {8, 3, 3, 3})
      .weight("bias", {8})
      .output("y");
  auto& conv = b.node("Conv", {"x", "w", "bias"}, {"t"}, "conv");
  set_ints(conv, "pads", {1, 1, 1, 1});
  set_ints(conv, "strides", {2, 2});
  b.node("Relu", {"t"}, {"y"}, "relu");
  return b.save("conv_relu");
}

constexpr int64_t kInput = 3 * 32 * 32 * 4;   // 12288
constexpr int64_t kWeights = 224 * 4;         // 896
constexpr int64_t kOutput = 8 * 16 * 16 * 4;  // 8192

TEST(MemoryViews, UnfusedFusedAndLowerBound) {
  auto r = analyze_file(conv_relu_model());
  const auto& t = r.cost.totals;
  EXPECT_EQ(t.bytes, (kInput + kWeights + kOutput) + (kOutput + kOutput));
  // Relu is fused into the convolution: t is neither written nor read back.
  EXPECT_EQ(node_named(r, "conv").bytes_fused, kInput + kWeights);
  EXPECT_EQ(node_named(r, "relu").bytes_fused, kOutput);
  EXPECT_EQ(t.bytes_fused, kInput + kWeights + kOutput);
  EXPECT_EQ(t.bytes_min, kWeights + kInput + kOutput);
  EXPECT_EQ(t.weight_bytes, kWeights);
}

TEST(MemoryViews, NoFusionAcrossMultipleConsumers) {
  ModelBuilder b;
  b.input("x", {int64_t{4}, int64_t{4}}).output("y").output("z");
  b.node("Relu", {"x"}, {"t"}, "relu");
  b.node("Sigmoid", {"t"}, {"y"}, "sig");
  b.node("Tanh", {"t"}, {"z"}, "tanh");
  auto r = analyze_file(b.save("branch"));
  EXPECT_EQ(r.cost.totals.bytes_fused, r.cost.totals.bytes);  // t has two readers: it must be stored
}

TEST(MemoryViews, PeakActivationLiveness) {
  auto r = analyze_file(conv_relu_model());
  // Before conv: x live (12288). Conv allocates t: 20480 (peak), frees x. Relu allocates y: 16384.
  EXPECT_EQ(r.cost.totals.peak_activation_bytes, kInput + kOutput);
}

TEST(MemoryViews, ViewsAliasTheirInput) {
  ModelBuilder b;
  b.input("x", {int64_t{64}}).int64_constant("shape", {2}, {8, 8}).output("z");
  b.node("Relu", {"x"}, {"a"}, "relu");              // a: 256 B
  b.node("Reshape", {"a", "shape"}, {"v"}, "view");  // alias of a: no new bytes, keeps a alive
  b.node("Neg", {"v"}, {"z"}, "neg");                // z: 256 B while a is still read
  auto r = analyze_file(b.save("alias"));
  // x (256) + a (256) at relu; x freed; a + z (512) at neg.
  EXPECT_EQ(r.cost.totals.peak_activation_bytes, 512);
}

TEST(Training, SgdAndAdamOnConvRelu) {
  cost::CostOptions options;
  options.training = true;
  auto sgd = analyze_file(conv_relu_model(), {}, options);
  ASSERT_TRUE(sgd.cost.training.has_value());
  const auto& t = *sgd.cost.training;
  int64_t macs = 55296, outputs = 2048;
  // Conv: no input gradient (x is a model input), weight gradient 2*MACs + bias sums.
  EXPECT_EQ(node_named(sgd, "conv").backward_flops, 2 * macs + outputs);
  EXPECT_EQ(node_named(sgd, "relu").backward_flops, outputs);
  EXPECT_EQ(t.backward_flops, 2 * macs + outputs + outputs);
  EXPECT_EQ(t.optimizer_flops, 2 * 224);  // w -= lr * g
  EXPECT_EQ(t.optimizer_bytes, 3 * kWeights);
  EXPECT_EQ(t.saved_activation_bytes, kInput + kOutput);  // conv keeps x, relu keeps y
  EXPECT_EQ(t.forward_flops, sgd.cost.totals.flops);
  EXPECT_EQ(t.flops(), t.forward_flops + t.backward_flops + t.optimizer_flops);

  options.optimizer = cost::Optimizer::kAdam;
  auto adam = analyze_file(conv_relu_model(), {}, options);
  EXPECT_EQ(adam.cost.training->optimizer_flops, 14 * 224);
  EXPECT_EQ(adam.cost.training->optimizer_state_bytes, 2 * kWeights);
  EXPECT_EQ(adam.cost.training->optimizer_bytes, 7 * kWeights);
}

TEST(Training, InputGradientFlowsOnlyWhereNeeded) {
  // Two stacked Gemms: the first needs no input gradient, the second does.
  ModelBuilder b;
  b.input("x", {int64_t{4}, int64_t{8}}).weight("w1", {8, 8}).weight("w2", {8, 8}).output("y");
  b.node("MatMul", {"x", "w1"}, {"h"}, "fc1");
  b.node("MatMul", {"h", "w2"}, {"y"}, "fc2");
  cost::CostOptions options;
  options.training = true;
  auto r = analyze_file(b.save("mlp"), {}, options);
  int64_t macs = 4 * 8 * 8;
  EXPECT_EQ(node_named(r, "fc1").backward_flops, 2 * macs);
  EXPECT_EQ(node_named(r, "fc2").backward_flops, 4 * macs);
}

}  // namespace
}  // namespace ridge::test
