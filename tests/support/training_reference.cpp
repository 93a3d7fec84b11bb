#include "support/training_reference.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

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

// What one step of `optimizer` from fresh state does to a weight with gradient g.
double expected_step(cost::Optimizer optimizer, double g) {
  if (optimizer == cost::Optimizer::kAdam) return kLearningRate * g / (std::fabs(g) + 1e-8);
  return kLearningRate * g;  // SGD, and SGD with momentum, whose first step's buffer is the gradient
}

}  // namespace

void check_training_step(exec::Engine& engine, const std::string& name, const exec::ExecOptions& options,
                         cost::Optimizer optimizer, double tolerance) {
  const auto dir = source_path("tests/data/training/") + name;
  analysis::Request request;
  request.model_path = dir + "/model.onnx";
  request.max_typed_elements = int64_t{1} << 40;  // the executor needs every weight
  auto prepared = exec::prepare(request, dir);
  exec::TrainingOptions training;
  training.enabled = true;
  training.optimizer = optimizer;
  training.learning_rate = kLearningRate;
  auto step = engine.train_step(prepared.analysis.model, prepared.inputs, options, training);

  auto loss = read_expected(dir + "/loss.pb");
  ASSERT_TRUE(loss);
  EXPECT_NEAR(step.loss, loss->values.at(0), 1e-4 * std::fabs(loss->values.at(0))) << name;

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
  for (const auto& r : references) {
    auto it = index.find(r.name);
    ASSERT_NE(it, index.end()) << "no gradient for " << r.name;
    auto got = host_values(step.gradients[it->second]);
    auto before = host_values(step.before[it->second]), after = host_values(step.after[it->second]);
    ASSERT_EQ(got.size(), r.values.values.size()) << r.name;
    // Relative to the tensor's largest gradient; a tensor whose gradients are all a hundred times below the model's
    // largest is at fp32's rounding of the sums behind it (a bias before a training-mode BatchNorm, whose true
    // gradient is 0; VGG's deep convolutions, whose gradients sum many terms that cancel), and is compared at that
    // level. Those sums' order is the kernels' own: on an AMD EPYC, oneDNN's convolution gradients of VGG's layers at
    // 0.03-0.2% of the largest differ from the references' (PyTorch on an Intel Xeon) by up to 0.3% of themselves,
    // 6e-6 of the model's largest.
    const double scale = std::max(r.scale, 1e-2 * model_scale);
    double worst = 0, worst_update = 0, weight = 0;
    for (size_t k = 0; k < got.size(); ++k) {
      worst = std::max(worst, std::fabs(got[k] - r.values.values[k]));
      weight = std::max(weight, std::fabs(before[k]));
      // Adam's first step divides by |g|: it is checked against ridge's own gradient, whose error is checked above.
      double g = optimizer == cost::Optimizer::kAdam ? got[k] : r.values.values[k];
      worst_update = std::max(worst_update, std::fabs((before[k] - after[k]) - expected_step(optimizer, g)));
    }
    EXPECT_LE(worst, tolerance * scale) << name << " " << r.name << ": largest gradient " << r.scale;
    // The update in fp32: the weight's own rounding (2^-23 of it) comes on top of the step's error.
    double step_scale = optimizer == cost::Optimizer::kAdam ? kLearningRate : kLearningRate * scale;
    EXPECT_LE(worst_update, step_scale * tolerance + 4 * 1.2e-7 * weight) << name << " " << r.name;
    index.erase(it);
  }
  // Nothing PyTorch leaves untrained (BatchNorm's running statistics, constants) gets a gradient in ridge.
  for (const auto& [weight, i] : index) ADD_FAILURE() << name << ": ridge trains " << weight << ", PyTorch does not";
}

}  // namespace ridge::test
