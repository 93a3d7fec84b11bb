#include "exec/cuda/descriptors.h"

#include <fmt/format.h>

#include <limits>

#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

cudnnDataType_t cudnn_type(graph::DType dtype) {
  switch (dtype) {
    case graph::DType::kFloat32:
      return CUDNN_DATA_FLOAT;
    case graph::DType::kFloat16:
      return CUDNN_DATA_HALF;
    case graph::DType::kBFloat16:
      return CUDNN_DATA_BFLOAT16;
    case graph::DType::kFloat64:
      return CUDNN_DATA_DOUBLE;
    default:
      throw Error(fmt::format("cuDNN takes no {} tensors", graph::dtype_name(dtype)));
  }
}

namespace {

std::vector<int> as_int(const std::vector<int64_t>& dims, size_t min_rank) {
  std::vector<int> out;
  for (auto d : dims) {
    if (d > std::numeric_limits<int>::max()) throw Error(fmt::format("dim {} is above cuDNN's 2^31 - 1", d));
    out.push_back(static_cast<int>(d));
  }
  while (out.size() < min_rank) out.push_back(1);
  return out;
}

}  // namespace

TensorDescriptor tensor_descriptor(const std::vector<int64_t>& dims, graph::DType dtype, bool channels_last) {
  auto d = as_int(dims, 4);
  std::vector<int> strides(d.size());
  int64_t stride = 1;
  for (size_t i = d.size(); i-- > 0;) {
    if (stride > std::numeric_limits<int>::max()) throw Error("tensor too large for a cuDNN descriptor (2^31 strides)");
    strides[i] = static_cast<int>(stride);
    stride *= d[i];
  }
  if (channels_last && d.size() == 4) {  // HWC, 1, WC, C (stride above bounds the largest)
    strides = {d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]};
  }
  cudnnTensorDescriptor_t handle = nullptr;
  check(cudnnCreateTensorDescriptor(&handle), "cudnnCreateTensorDescriptor");
  TensorDescriptor desc(handle);
  check(cudnnSetTensorNdDescriptor(handle, cudnn_type(dtype), static_cast<int>(d.size()), d.data(), strides.data()),
        "cudnnSetTensorNdDescriptor");
  return desc;
}

FilterDescriptor filter_descriptor(const std::vector<int64_t>& dims, graph::DType dtype, bool channels_last) {
  auto d = as_int(dims, 4);
  cudnnFilterDescriptor_t handle = nullptr;
  check(cudnnCreateFilterDescriptor(&handle), "cudnnCreateFilterDescriptor");
  FilterDescriptor desc(handle);
  auto format = channels_last && d.size() == 4 ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  check(cudnnSetFilterNdDescriptor(handle, cudnn_type(dtype), format, static_cast<int>(d.size()), d.data()),
        "cudnnSetFilterNdDescriptor");
  return desc;
}

}  // namespace ridge::exec::cuda
