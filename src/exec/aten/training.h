#pragma once
// One training step on the executor: forward with gradients recorded for every float weight, a
// loss, backward, and an optimizer update (SGD, SGD with momentum 0.9, or Adam), through libtorch's
// autograd and torch::optim.
#include <memory>
#include <string>
#include <vector>

#include "exec/aten/interpreter.h"
#include "exec/options.h"

namespace ridge::exec::aten {

class TrainingStep {
 public:
  // Marks the interpreter's float weights as trainable.
  TrainingStep(Interpreter& interpreter, const TrainingOptions& options);
  ~TrainingStep();
  // Each weight's gradient and its value before and after the update (weights without a gradient are left out),
  // by the weight's value id.
  struct Trace {
    std::vector<std::pair<graph::ValueId, at::Tensor>> gradients, before, after;
  };
  // Where a step's time went, in seconds, added to by every step it is passed to: per graph node its forward and the
  // backward of what its forward recorded (autograd's functions, told apart by the sequence numbers they were
  // created with); the loss (forward and backward); the weights' gradient accumulation (autograd's AccumulateGrad,
  // which belongs to no node); the optimizer update.
  struct Profile {
    std::vector<double> forward_s, backward_s;
    double loss_s = 0, accumulate_s = 0, optimizer_s = 0;
  };
  // Forward, loss, backward, update; with `trace`, what the step computed is kept there. The loss is the mean of the
  // squared float outputs: a stand-in for the model's own loss whose cost is negligible beside the model's.
  double run(const std::vector<at::Tensor>& inputs, Trace* trace = nullptr, Profile* profile = nullptr);
  size_t parameters() const;

 private:
  struct State;
  Interpreter& interpreter_;
  std::unique_ptr<State> state_;
};

}  // namespace ridge::exec::aten
