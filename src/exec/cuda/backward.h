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
  // A fresh fp32 gradient for input i, with the input's dims and layout (channels-last where the input is held so).
  GpuTensor& grad(size_t i);
  // Input i's gradient is `g` viewed with the input's dims (same element count): as it is where the dims are the
  // same, else from an NCHW copy of a channels-last `g`.
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

// In a channels-last training step (--memory-format channels-last), a row with `channels_last` is given its node's
// tensors as the forward kernel read and wrote them (4-D activations NHWC where the forward row reads them so) and
// its output gradients in its outputs' layouts, and writes each input's gradient in that input's layout (every
// gradient's GpuTensor::channels_last says which). Any other row is given NCHW copies and writes NCHW. Gradients
// are fp32 in either case.
struct BackwardRow {
  std::string_view op_type;
  Backward backward;
  std::string_view family = {};
  BackwardRefusal refusal = nullptr;
  bool channels_last = false;
};

using BackwardRegistry = Registry<BackwardRow>;

// `g` (fp32, dense over g.dims in its layout) summed down to `dims` (numpy broadcasting: right-aligned, 1 or equal);
// NCHW where anything is summed or the dims change.
GpuTensor reduce_to(KernelContext& ctx, const GpuTensor& g, const std::vector<int64_t>& dims);

// `t` in NCHW order: itself where it is not held channels-last, else a dense copy.
GpuTensor nchw_copy(KernelContext& ctx, const GpuTensor& t);

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
