// The GPU training step on a GPU (scripts/gpu-check.sh): the same PyTorch references as the CPU step
// (support/training_reference.h) for the CNNs and BERT: fp32 within 1e-3 of each gradient tensor's largest value,
// tf32 within 2e-2; Adam's first step; a 16-bit step and the LSTM (no GPU kernel) refused in one line.
#include <gtest/gtest.h>

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

TEST_P(GpuTrainingReference, Tf32StaysWithinTwoPercent) {
  check_training_step(*ridge_cuda_engine(), GetParam(), gpu(exec::Precision::kTf32), cost::Optimizer::kSgd, 2e-2);
}

INSTANTIATE_TEST_SUITE_P(Models, GpuTrainingReference, ::testing::Values("resnet", "mobilenet_v2", "vgg", "bert"),
                         [](const auto& info) { return std::string(info.param); });

TEST(GpuTraining, AdamsFirstStepMovesEachWeightByTheLearningRate) {
  check_training_step(*ridge_cuda_engine(), "resnet", gpu(), cost::Optimizer::kAdam, 1e-3);
}

TEST(GpuTraining, SixteenBitAndRecurrentStepsAreRefusedInOneLine) {
  auto dir = source_path("tests/data/training/");
  analysis::Request request;
  request.model_path = dir + "resnet/model.onnx";
  request.max_typed_elements = int64_t{1} << 40;
  auto resnet = exec::prepare(request, dir + "resnet");
  exec::TrainingOptions training;
  training.enabled = true;
  EXPECT_THROW(
      ridge_cuda_engine()->train_step(resnet.analysis.model, resnet.inputs, gpu(exec::Precision::kFp16), training),
      Error);
  request.model_path = dir + "lstm/model.onnx";
  auto lstm = exec::prepare(request, dir + "lstm");
  try {
    ridge_cuda_engine()->train_step(lstm.analysis.model, lstm.inputs, gpu(), training);
    ADD_FAILURE() << "the LSTM trained on the GPU";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("LSTM (2)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ridge::test
