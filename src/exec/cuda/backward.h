#pragma once
// A GPU op's backward: from its node's forward values (inputs and outputs, kept by the training step)
// and the gradients of its outputs, the gradients of the inputs that need one. Families register
// backward rows in their own files, beside the forward kernels whose per-node state they read (the
// convolution's descriptors, BatchNorm's batch statistics, Dropout's mask).
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exec/cuda/op_kernel.h"
#include "util/registry.h"

namespace ridge::exec::cuda {

struct BackwardContext {
  // The forward node as its kernel saw it: inputs, outputs, options and its per-node state.
  KernelContext& forward;
  std::vector<GpuTensor> output_grads;  // per output; undefined where no gradient reaches it
  std::vector<bool> needs_grad;         // per input
  std::vector<GpuTensor> input_grads;   // per input; set by the backward for those that need one
  std::unique_ptr<NodeState>& state;    // the backward's own state (algorithms, descriptors)

  bool wants(size_t i) const { return i < needs_grad.size() && needs_grad[i]; }
  // The gradient of output i; fails naming the node when none reached it.
  const GpuTensor& dy(size_t i = 0) const;
  // A fresh fp32 gradient for input i, with the input's dims.
  GpuTensor& grad(size_t i);
  // Input i's gradient is `g` viewed with the input's dims (same element count).
  void set_grad(size_t i, const GpuTensor& g);
  // `g` summed over the dims it was broadcast along to reach input i's dims (numpy rules), set as its gradient.
  void set_reduced_grad(size_t i, const GpuTensor& g);

  template <class State>
  State& forward_state() {
    if (!forward.state) forward.fail("the forward pass left no state for its backward");
    return static_cast<State&>(*forward.state);
  }
  template <class State>
  State& cached() {
    if (!state) state = std::make_unique<State>();
    return static_cast<State&>(*state);
  }
};

using Backward = void (*)(BackwardContext&);

// Why a node of this op cannot be differentiated, from the graph alone (its attributes and inferred dims), in one
// line; "" when it can. Checked for every node of the backward plan before the first step.
using BackwardRefusal = std::string (*)(const graph::Graph& g, const graph::Node& node);

struct BackwardRow {
  std::string_view op_type;
  Backward backward;
  std::string_view family = {};
  BackwardRefusal refusal = nullptr;
};

using BackwardRegistry = Registry<BackwardRow>;

// `g` (fp32, dense over g.dims) summed down to `dims` (numpy broadcasting: right-aligned, 1 or equal).
GpuTensor reduce_to(KernelContext& ctx, const GpuTensor& g, const std::vector<int64_t>& dims);

}  // namespace ridge::exec::cuda

namespace ridge {
template <>
const exec::cuda::BackwardRegistry& exec::cuda::BackwardRegistry::instance();  // backward.cpp: the families
}  // namespace ridge

namespace ridge::exec::cuda {

void register_conv_backward(BackwardRegistry& registry);
void register_matmul_backward(BackwardRegistry& registry);
void register_elementwise_backward(BackwardRegistry& registry);
void register_normalization_backward(BackwardRegistry& registry);
void register_pooling_backward(BackwardRegistry& registry);
void register_manipulation_backward(BackwardRegistry& registry);
void register_recurrent_backward(BackwardRegistry& registry);
void register_resize_backward(BackwardRegistry& registry);

}  // namespace ridge::exec::cuda
