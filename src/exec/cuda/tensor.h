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

}  // namespace ridge::exec::cuda
