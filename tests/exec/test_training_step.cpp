// ridge's training step against PyTorch's (issue 30) on the CPU executor: small weighted models of the bundled
// architectures with PyTorch's loss and gradients for the same weights and inputs (support/training_reference.h).
// One SGD step must give PyTorch's loss, every parameter's gradient within 1e-3 of the gradient tensor's largest
// value, and the update learning rate x gradient.
#include <gtest/gtest.h>

#include "exec/engine.h"
#include "support/training_reference.h"

namespace ridge::test {
namespace {

class TrainingReference : public ::testing::TestWithParam<const char*> {};

TEST_P(TrainingReference, LossGradientsAndSgdUpdateMatchPyTorch) {
  check_training_step(exec::load_engine(), GetParam(), exec::ExecOptions{}, cost::Optimizer::kSgd, 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Models, TrainingReference,
                         ::testing::Values("resnet", "mobilenet_v2", "vgg", "bert", "lstm", "densenet", "yolo", "vit",
                                           "gpt2", "scripted_loop", "scripted_list"),
                         [](const auto& info) { return std::string(info.param); });

// --memory-format channels-last through the whole step (the CPU executor's NHWC convolutions, forward and backward)
// gives PyTorch's step as NCHW does, on every reference with 4-D activations.
TEST(TrainingReference, ChannelsLastMatchesPyTorch) {
  exec::ExecOptions options;
  options.memory_format = exec::MemoryFormat::kChannelsLast;
  for (const auto* name : {"resnet", "mobilenet_v2", "vgg", "densenet", "yolo", "vit"}) {
    SCOPED_TRACE(name);
    check_training_step(exec::load_engine(), name, options, cost::Optimizer::kSgd, 1e-3);
  }
}

// Adam's first step from fresh state moves every weight by learning rate x g / (|g| + 1e-8).
TEST(TrainingReference, AdamsFirstStepMovesEachWeightByTheLearningRate) {
  check_training_step(exec::load_engine(), "resnet", exec::ExecOptions{}, cost::Optimizer::kAdam, 1e-3);
}

}  // namespace
}  // namespace ridge::test
