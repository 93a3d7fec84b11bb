#pragma once
// A tensor in device memory: dtype, dims and a shared block. Reshapes and other views share the block.
#include <cstdint>
#include <memory>
#include <vector>

#include "graph/dtype.h"

namespace ridge::exec::cuda {

struct GpuTensor {
  graph::DType dtype = graph::DType::kUndefined;
  std::vector<int64_t> dims;
  std::shared_ptr<void> block;
  size_t offset_bytes = 0;
  // A 4-D tensor held channels-last (NHWC) in memory; its dims stay the logical (N, C, H, W). Set only where the
  // order differs from NCHW's (layout_differs).
  bool channels_last = false;

  bool defined() const { return block != nullptr; }
  int64_t numel() const {
    int64_t n = 1;
    for (auto d : dims) n *= d;
    return n;
  }
  size_t bytes() const { return static_cast<size_t>(graph::dtype_bytes(dtype, numel())); }
  void* data() const { return static_cast<char*>(block.get()) + offset_bytes; }
  template <class T>
  T* as() const {
    return static_cast<T*>(data());
  }
};

// Whether channels-last holds a tensor of these dims in another order than NCHW: 4-D, with more than one channel and
// more than one pixel (a [N, C, 1, 1] pooled tensor is the same bytes either way).
inline bool layout_differs(const std::vector<int64_t>& dims) {
  return dims.size() == 4 && dims[1] > 1 && dims[2] * dims[3] > 1;
}

// Logical (N, C, H, W) dims, or a 4-D padding's begins, in NHWC's memory order: (N, H, W, C).
inline std::vector<int64_t> nhwc_dims(const std::vector<int64_t>& dims) { return {dims[0], dims[2], dims[3], dims[1]}; }

// The element strides of a channels-last (NHWC) tensor of logical dims (N, C, H, W): HWC, 1, WC, C.
inline std::vector<int64_t> channels_last_strides(const std::vector<int64_t>& dims) {
  return {dims[1] * dims[2] * dims[3], 1, dims[3] * dims[1], dims[1]};
}

}  // namespace ridge::exec::cuda
