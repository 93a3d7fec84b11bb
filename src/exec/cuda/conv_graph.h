#pragma once
// A convolution through cuDNN's graph (backend) API, its execution plan built once per layer. The legacy
// cudnnConvolutionForward works out an execution plan again inside every call: on an H200 host that took about 100 us
// per convolution and 200 us for MobileNetV2's, where the kernels themselves took a few (docs/benchmarks.md, issue 28).
// PyTorch and ONNX Runtime build the plan once and cache it; here a layer's plan lives in its node state, and a run
// only binds the tensors' addresses (a variant pack, rebuilt when they move) and executes.
#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exec/cuda/conv_plan.h"
#include "exec/options.h"
#include "graph/dtype.h"

namespace ridge::exec::cuda {

// A backend descriptor that destroys itself.
class BackendDescriptor {
 public:
  BackendDescriptor() = default;
  // Throws ridge::Error where cuDNN cannot create one of `type`.
  explicit BackendDescriptor(cudnnBackendDescriptorType_t type);
  ~BackendDescriptor();
  BackendDescriptor(BackendDescriptor&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  BackendDescriptor& operator=(BackendDescriptor&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  BackendDescriptor(const BackendDescriptor&) = delete;
  BackendDescriptor& operator=(const BackendDescriptor&) = delete;
  cudnnBackendDescriptor_t get() const { return handle_; }
  cudnnBackendDescriptor_t* address() { return &handle_; }

 private:
  cudnnBackendDescriptor_t handle_ = nullptr;
};

// One convolution's tensors and window as the graph API takes them: dims of at least rank 4 (a 1-D convolution is
// (N, C, L, 1), as the legacy descriptors have it), the pads cuDNN applies before and after each spatial dim.
struct GraphConvShape {
  std::vector<int64_t> x, w, y;
  std::vector<int64_t> pre_pads, post_pads, strides, dilations;
  bool channels_last = false;  // 4-D x, w and y held NHWC (tensor.h): their strides say so
};

// From the layer's geometry and the dims cuDNN sees (`x`: the input, or its padded copy where the pads are
// asymmetric); throws ridge::Error where the dims and the window disagree in rank.
GraphConvShape graph_conv_shape(const ConvGeometry& geometry, const std::vector<int64_t>& x,
                                const std::vector<int64_t>& w, const std::vector<int64_t>& y);

// Row-major strides of a dense tensor.
std::vector<int64_t> dense_strides(const std::vector<int64_t>& dims);

// Whether an engine with these numerical notes computes what `precision` promises, as the legacy path's math types
// do: fp32 never on tensor cores (TF32) and never with its inputs converted down; tf32 on tensor cores; no precision
// with a reduction in 16 bits.
bool engine_allowed(const std::vector<cudnnBackendNumericalNote_t>& notes, Precision precision);

// What the profile calls the engine: "engine-12", "engine-3-winograd", "engine-41-fft-tensor-core" (cuDNN's global
// engine index and what its notes say it does).
std::string engine_name(int64_t global_index, const std::vector<cudnnBackendNumericalNote_t>& notes);

// The finalized operation y = conv(x, w) with `data` tensors and fp32 accumulation; tensors carry the unique ids
// kConvX, kConvW and kConvY. Needs no GPU. Throws ridge::Error naming the descriptor cuDNN refused.
BackendDescriptor convolution_operation(const GraphConvShape& shape, graph::DType data);
inline constexpr int64_t kConvX = 1, kConvW = 2, kConvY = 3;

// The byte alignment the plan's tensors are declared with; a run whose addresses are not aligned so runs the legacy
// call instead (ConvGraphPlan::accepts).
inline constexpr int64_t kGraphTensorAlignment = 16;

class ConvGraphPlan {
 public:
  // The plan of the first engine cuDNN's heuristic (mode A) ranks for the operation that the precision allows, that
  // needs no runtime compilation and at most `workspace_limit` bytes; null with `why` set where none does. Needs a GPU.
  static std::unique_ptr<ConvGraphPlan> build(cudnnHandle_t handle, const GraphConvShape& shape, graph::DType data,
                                              Precision precision, size_t workspace_limit, std::string& why);

  size_t workspace_bytes() const { return workspace_bytes_; }
  const std::string& name() const { return name_; }
  // Whether the plan can run on these addresses (its declared alignment).
  static bool accepts(const void* x, const void* w, const void* y);
  // y = conv(x, w) on the handle's stream; cuDNN's status.
  cudnnStatus_t execute(cudnnHandle_t handle, const void* x, const void* w, void* y, void* workspace);

 private:
  BackendDescriptor graph_, plan_, pack_;
  const void* bound_[4] = {nullptr, nullptr, nullptr, nullptr};  // the pack's x, w, y and workspace
  size_t workspace_bytes_ = 0;
  std::string name_;
};

}  // namespace ridge::exec::cuda
