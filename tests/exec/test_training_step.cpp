// ridge's training step against PyTorch's (issue 30): small weighted models of the bundled architectures, exported
// in training mode by tools/export_training_references.py with PyTorch's loss and gradients for the same weights
// and inputs (tests/data/training/<name>/). One SGD step on the CPU executor must give PyTorch's loss, every
// parameter's gradient within 1e-3 of the gradient tensor's largest value, and the update learning rate x gradient.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/paths.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

constexpr double kLearningRate = 0.1;

std::string tensor_name(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  ::onnx::TensorProto proto;
  EXPECT_TRUE(proto.ParseFromIstream(&in)) << path;
  return proto.name();
}

class TrainingReference : public ::testing::TestWithParam<const char*> {};

TEST_P(TrainingReference, LossGradientsAndSgdUpdateMatchPyTorch) {
  const auto dir = source_path("tests/data/training/") + GetParam();
  analysis::Request request;
  request.model_path = dir + "/model.onnx";
  request.max_typed_elements = int64_t{1} << 40;  // the executor needs every weight
  auto prepared = exec::prepare(request, dir);
  exec::TrainingOptions training;
  training.enabled = true;
  training.optimizer = cost::Optimizer::kSgd;
  training.learning_rate = kLearningRate;
  auto step = exec::load_engine().train_step(prepared.analysis.model, prepared.inputs, exec::ExecOptions{}, training);

  auto loss = read_expected(dir + "/loss.pb");
  ASSERT_TRUE(loss);
  EXPECT_NEAR(step.loss, loss->values.at(0), 1e-4 * std::fabs(loss->values.at(0)));

  std::map<std::string, size_t> index;
  for (size_t i = 0; i < step.gradients.size(); ++i) index[step.gradients[i].name] = i;
  ASSERT_EQ(step.before.size(), step.gradients.size());
  ASSERT_EQ(step.after.size(), step.gradients.size());
  struct Reference {
    std::string name;
    Expected values;
    double scale = 0;  // the largest |gradient|
  };
  std::vector<Reference> references;
  double model_scale = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("grad_", 0) != 0) continue;
    auto want = read_expected(entry.path().string());
    ASSERT_TRUE(want) << entry.path();
    Reference r{tensor_name(entry.path().string()), *want, 0};
    for (double v : want->values) r.scale = std::max(r.scale, std::fabs(v));
    model_scale = std::max(model_scale, r.scale);
    references.push_back(std::move(r));
  }
  ASSERT_FALSE(references.empty());
  for (const auto& [name, want, tensor_scale] : references) {
    auto it = index.find(name);
    ASSERT_NE(it, index.end()) << "no gradient for " << name;
    auto got = host_values(step.gradients[it->second]);
    auto before = host_values(step.before[it->second]), after = host_values(step.after[it->second]);
    ASSERT_EQ(got.size(), want.values.size()) << name;
    // Relative to the tensor's largest gradient; a tensor whose gradients are all a thousand times below the
    // model's largest is at fp32's rounding of the sums behind it (a bias before a training-mode BatchNorm, whose
    // true gradient is 0), and is compared at that level.
    const double scale = std::max(tensor_scale, 1e-3 * model_scale);
    double worst = 0, worst_update = 0, weight = 0;
    for (size_t k = 0; k < got.size(); ++k) {
      worst = std::max(worst, std::fabs(got[k] - want.values[k]));
      weight = std::max(weight, std::fabs(before[k]));
      worst_update = std::max(worst_update, std::fabs((before[k] - after[k]) - kLearningRate * want.values[k]));
    }
    EXPECT_LE(worst, 1e-3 * scale) << name << ": largest gradient " << tensor_scale;
    // The update in fp32: the weight's own rounding (2^-23 of it) comes on top of the gradient's error.
    EXPECT_LE(worst_update, kLearningRate * 1e-3 * scale + 4 * 1.2e-7 * weight) << name;
    index.erase(it);
  }
  // Nothing PyTorch leaves untrained (BatchNorm's running statistics, constants) gets a gradient in ridge.
  for (const auto& [name, i] : index) ADD_FAILURE() << "ridge trains " << name << ", PyTorch does not";
}

INSTANTIATE_TEST_SUITE_P(Models, TrainingReference, ::testing::Values("resnet", "mobilenet_v2", "vgg", "bert", "lstm"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace ridge::test
