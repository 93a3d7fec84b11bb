#pragma once
// cuDNN descriptors that destroy themselves, and the descriptor of a dense NCHW (or N-d) tensor.
#include <cudnn.h>

#include <cstdint>
#include <vector>

#include "graph/dtype.h"

namespace ridge::exec::cuda {

template <class Handle, cudnnStatus_t (*Destroy)(Handle)>
class Descriptor {
 public:
  Descriptor() = default;
  explicit Descriptor(Handle h) : handle_(h) {}
  ~Descriptor() {
    if (handle_) Destroy(handle_);
  }
  Descriptor(Descriptor&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  Descriptor& operator=(Descriptor&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Handle get() const { return handle_; }
  operator Handle() const { return handle_; }

 private:
  Handle handle_ = nullptr;
};

using TensorDescriptor = Descriptor<cudnnTensorDescriptor_t, cudnnDestroyTensorDescriptor>;
using FilterDescriptor = Descriptor<cudnnFilterDescriptor_t, cudnnDestroyFilterDescriptor>;
using ConvolutionDescriptor = Descriptor<cudnnConvolutionDescriptor_t, cudnnDestroyConvolutionDescriptor>;
using PoolingDescriptor = Descriptor<cudnnPoolingDescriptor_t, cudnnDestroyPoolingDescriptor>;
using LrnDescriptor = Descriptor<cudnnLRNDescriptor_t, cudnnDestroyLRNDescriptor>;
using ActivationDescriptor = Descriptor<cudnnActivationDescriptor_t, cudnnDestroyActivationDescriptor>;

// cuDNN's type for fp32, fp16, bf16 and fp64; throws ridge::Error for another.
cudnnDataType_t cudnn_type(graph::DType dtype);

// A dense tensor of `dims`, padded to at least 4 dims with trailing ones (cuDNN's minimum); `channels_last`: a 4-D
// tensor held NHWC (tensor.h).
TensorDescriptor tensor_descriptor(const std::vector<int64_t>& dims, graph::DType dtype, bool channels_last = false);
// A filter (K, C/group, spatial...) in NCHW, or 4-D in NHWC (K, R, S, C/group in memory) with `channels_last`.
FilterDescriptor filter_descriptor(const std::vector<int64_t>& dims, graph::DType dtype, bool channels_last = false);

}  // namespace ridge::exec::cuda
