#include "exec/aten/training.h"

#include <fmt/format.h>
#include <torch/optim.h>

#include "util/error.h"

namespace ridge::exec::aten {

struct TrainingStep::State {
  std::vector<at::Tensor> parameters;
  std::vector<graph::ValueId> ids;  // of each parameter
  std::unique_ptr<torch::optim::Optimizer> optimizer;
};

TrainingStep::TrainingStep(Interpreter& interpreter, const TrainingOptions& options)
    : interpreter_(interpreter), state_(std::make_unique<State>()) {
  for (auto& [id, tensor] : interpreter.trainable_weights()) {
    tensor->set_requires_grad(true);
    state_->parameters.push_back(*tensor);
    state_->ids.push_back(id);
  }
  if (state_->parameters.empty()) throw Error("training: the model has no float weights to train");
  // The same three optimizers the cost model counts: plain SGD, SGD with momentum (0.9), Adam.
  if (options.optimizer == cost::Optimizer::kAdam)
    state_->optimizer =
        std::make_unique<torch::optim::Adam>(state_->parameters, torch::optim::AdamOptions(options.learning_rate));
  else
    state_->optimizer = std::make_unique<torch::optim::SGD>(
        state_->parameters, torch::optim::SGDOptions(options.learning_rate)
                                .momentum(options.optimizer == cost::Optimizer::kMomentum ? 0.9 : 0.0));
}

TrainingStep::~TrainingStep() = default;

size_t TrainingStep::parameters() const { return state_->parameters.size(); }

double TrainingStep::run(const std::vector<at::Tensor>& inputs, Trace* trace) {
  state_->optimizer->zero_grad();
  auto outputs = interpreter_.run(inputs);
  at::Tensor loss;
  for (const auto& out : outputs) {
    if (!at::isFloatingType(out.scalar_type()) || !out.requires_grad()) continue;
    auto term = out.to(at::kFloat).pow(2).mean();
    loss = loss.defined() ? loss + term : term;
  }
  if (!loss.defined()) throw Error("training: no model output depends on the weights");
  loss.backward();
  std::vector<size_t> trained;  // parameters with a gradient
  if (trace) {
    at::NoGradGuard no_grad;
    for (size_t i = 0; i < state_->parameters.size(); ++i) {
      const auto& p = state_->parameters[i];
      if (!p.grad().defined()) continue;
      trained.push_back(i);
      trace->gradients.emplace_back(state_->ids[i], p.grad().clone());
      trace->before.emplace_back(state_->ids[i], p.detach().clone());
    }
  }
  state_->optimizer->step();
  for (auto i : trained) trace->after.emplace_back(state_->ids[i], state_->parameters[i].detach().clone());
  return loss.item<double>();
}

}  // namespace ridge::exec::aten
