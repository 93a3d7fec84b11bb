#pragma once
// One training step on the GPU: forward with every value kept, the loss the CPU step uses (the mean of the
// squared float outputs), backward node by node from the family tables' backward rows (cuDNN's convolution,
// BatchNorm and pooling backward, cuBLAS products, the executor's own kernels), and an optimizer update
// (SGD, SGD with momentum 0.9, Adam) as kernels, in place on the weights the interpreter runs with. With fp16 or
// bf16, mixed precision as PyTorch's autocast: convolutions and products (forward and backward) in 16 bits, fp32
// master weights and gradients; fp16 adds dynamic loss scaling (torch.amp.GradScaler's rule), all on the device.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exec/cuda/backward_layout.h"
#include "exec/cuda/backward_plan.h"
#include "exec/cuda/interpreter.h"
#include "exec/options.h"

namespace ridge::exec::cuda {

// What a step is doing when a hook is called: a node's forward or backward (by its index in the graph), the loss,
// or the optimizer update (node 0).
enum class StepPhase { kForward, kLoss, kBackward, kOptimizer };
using StepHook = std::function<void(StepPhase phase, size_t node, bool after)>;

class TrainingStep {
 public:
  // Throws ridge::Error naming what the GPU step cannot do (ops without a backward, with counts; 16-bit
  // precisions; a model whose outputs do not depend on a weight).
  TrainingStep(Interpreter& interpreter, Gpu& gpu, const TrainingOptions& options);
  ~TrainingStep();

  // Each trained weight's gradient and its value before and after the update, by value id.
  struct Trace {
    std::vector<std::pair<graph::ValueId, GpuTensor>> gradients, before, after;
  };
  // Forward, loss, backward, update; returns the loss (waits for the step to finish). `hook` is called before and
  // after each part (the per-node profile records CUDA events there).
  double run(Trace* trace = nullptr, const StepHook& hook = {});
  // The same step launched without waiting (nothing synchronizes: a CUDA graph captures it), and its loss once
  // the stream has finished it: run() is enqueue() then finish().
  void enqueue(Trace* trace = nullptr, const StepHook& hook = {});
  double finish();
  // Weights trained by the last step.
  size_t parameters() const { return trained_; }
  // The last step's activations kept from the forward for the backward (the blocks its values held, weights and
  // constants left out), and the optimizer's state (momentum buffers, Adam's moments).
  int64_t saved_bytes() const { return saved_bytes_; }
  int64_t optimizer_state_bytes() const;
  // --memory-format channels-last: which backwards take NHWC, and the layout conversions the last step made (its
  // backward's and its weights' gradients'), for a run's notes ("" where the step is NCHW).
  std::string layout_summary() const { return layout_.summary(relayouts_); }

 private:
  void update(graph::ValueId id, const GpuTensor& weight, const GpuTensor& gradient, const int* skip);

  Interpreter& interpreter_;
  Gpu& gpu_;
  TrainingOptions options_;
  BackwardPlan plan_;
  BackwardLayout layout_;
  std::vector<std::unique_ptr<NodeState>> backward_states_;
  std::map<graph::ValueId, std::pair<GpuTensor, GpuTensor>> optimizer_state_;  // momentum, or Adam's m and v
  GpuTensor loss_;                                                             // one device double
  GpuTensor steps_;  // one device int64: the optimizer's step count
  // fp16's loss scaling: the scale (float), a non-finite gradient seen (int), clean steps in a row (int).
  GpuTensor loss_scale_, found_inf_, clean_steps_;
  std::shared_ptr<double> loss_host_;  // pinned: the loss is copied there inside the step
  size_t trained_ = 0;
  int64_t saved_bytes_ = 0;
  int64_t relayouts_ = 0;  // layout conversions in the last step (backward, and weights' gradients to NCHW)
};

}  // namespace ridge::exec::cuda
