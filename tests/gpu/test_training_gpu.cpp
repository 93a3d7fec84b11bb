// The GPU training step on a GPU (scripts/gpu-check.sh): the same PyTorch references as the CPU step
// (support/training_reference.h) for the CNNs, BERT and the 2-layer LSTM: fp32 within 1e-3 of each gradient tensor's
// largest value, tf32 and mixed precision (fp16 with loss scaling, bf16) within 2e-2, channels-last too; Adam's first
// step; and the bench's training steps, eager and replayed as a CUDA graph, lowering the loss with a per-node profile.
// The recurrent backward's order and arithmetic are checked without a GPU in tests/cuda/test_recurrent_host.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/paths.h"
#include "support/training_reference.h"
#include "util/error.h"

extern "C" ridge::exec::Engine* ridge_cuda_engine();

namespace ridge::test {
namespace {

exec::ExecOptions gpu(exec::Precision precision = exec::Precision::kFp32) {
  exec::ExecOptions o;
  o.device = exec::Backend::kCuda;
  o.precision = precision;
  return o;
}

class GpuTrainingReference : public ::testing::TestWithParam<const char*> {};

TEST_P(GpuTrainingReference, Fp32LossGradientsAndSgdUpdateMatchPyTorch) {
  check_training_step(*ridge_cuda_engine(), GetParam(), gpu(), cost::Optimizer::kSgd, 1e-3);
}

TEST_P(GpuTrainingReference, Tf32AndMixedPrecisionStayWithinTwoPercent) {
  for (auto precision : {exec::Precision::kTf32, exec::Precision::kFp16, exec::Precision::kBf16}) {
    SCOPED_TRACE(exec::name(precision));
    check_training_step(*ridge_cuda_engine(), GetParam(), gpu(precision), cost::Optimizer::kSgd, 2e-2);
  }
}

// --memory-format channels-last: the forward holds 4-D activations NHWC, the convolutions', BatchNorms', poolings',
// activations' and arithmetic's backwards take them so (exec/cuda/backward_layout.h), the rest NCHW copies; the step is
// PyTorch's, as NCHW's is (the sequence models have no 4-D activations: the same step).
TEST_P(GpuTrainingReference, ChannelsLastMatchesPyTorch) {
  for (auto precision : {exec::Precision::kFp32, exec::Precision::kFp16}) {
    SCOPED_TRACE(exec::name(precision));
    auto options = gpu(precision);
    options.memory_format = exec::MemoryFormat::kChannelsLast;
    check_training_step(*ridge_cuda_engine(), GetParam(), options, cost::Optimizer::kSgd,
                        precision == exec::Precision::kFp32 ? 1e-3 : 2e-2);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, GpuTrainingReference,
                         ::testing::Values("resnet", "mobilenet_v2", "vgg", "bert", "lstm", "densenet", "yolo", "vit",
                                           "gpt2", "scripted_loop", "scripted_list"),
                         [](const auto& info) { return std::string(info.param); });

TEST(GpuTraining, AdamsFirstStepMovesEachWeightByTheLearningRate) {
  check_training_step(*ridge_cuda_engine(), "resnet", gpu(), cost::Optimizer::kAdam, 1e-3);
}

// Steps of plain gradient descent on one batch with a small learning rate lower the loss, eager or replayed; the
// profile has every executed node (forward and backward timed apart, mean_ms their sum; every convolution has both)
// and the optimizer's row.
TEST(GpuTraining, BenchStepsLowerTheLossEagerAndAsACudaGraph) {
  auto dir = source_path("tests/data/training/resnet");
  analysis::Request request;
  request.model_path = dir + "/model.onnx";
  request.max_typed_elements = int64_t{1} << 40;
  auto p = exec::prepare(request, dir);
  // Eager, replayed, and replayed channels-last (its backward's layout copies captured with the step).
  for (auto [mode, format] : {std::pair{exec::Mode::kEager, exec::MemoryFormat::kNchw},
                              std::pair{exec::Mode::kCudaGraph, exec::MemoryFormat::kNchw},
                              std::pair{exec::Mode::kCudaGraph, exec::MemoryFormat::kChannelsLast}}) {
    SCOPED_TRACE(exec::name(format));
    exec::BenchOptions options;
    options.exec = gpu();
    options.exec.mode = mode;
    options.exec.memory_format = format;
    options.exec.profile_nodes = true;
    options.training.enabled = true;
    options.training.learning_rate = 1e-3;
    options.fixed_iterations = 5;
    options.warmup_seconds = 0;
    auto result = ridge_cuda_engine()->bench(p.analysis.model, p.inputs, options);
    ASSERT_EQ(result.training_losses.size(), 5u) << exec::name(mode);
    for (double loss : result.training_losses) EXPECT_TRUE(std::isfinite(loss)) << exec::name(mode);
    EXPECT_LT(result.training_losses.back(), result.training_losses.front()) << exec::name(mode);
    EXPECT_TRUE(result.training);
    bool optimizer_row = false;
    int convolutions = 0;
    for (const auto& n : result.nodes) {
      optimizer_row = optimizer_row || n.name == "(optimizer step)";
      EXPECT_GE(n.mean_ms, 0) << n.name;
      if (n.op_type != "Conv") continue;
      ++convolutions;
      EXPECT_GT(n.forward_ms, 0) << n.name;
      EXPECT_GT(n.backward_ms, 0) << n.name;
      EXPECT_NEAR(n.mean_ms, n.forward_ms + n.backward_ms, 1e-9) << n.name;
    }
    EXPECT_TRUE(optimizer_row) << exec::name(mode);
    EXPECT_EQ(convolutions, 29) << exec::name(mode);
    bool layout_note = false;
    for (const auto& note : result.notes)
      layout_note = layout_note || note.rfind("channels-last training: 93 backward node(s) take NHWC", 0) == 0;
    EXPECT_EQ(layout_note, format == exec::MemoryFormat::kChannelsLast);
  }
}

}  // namespace
}  // namespace ridge::test
