#include "exec/cuda/memory.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

Allocator::~Allocator() { release_cached(); }

std::shared_ptr<void> Allocator::allocate(size_t bytes) {
  size_t size = rounded(std::max<size_t>(bytes, 1));
  void* pointer = nullptr;
  // A cached block up to twice the size: activations of one shape come back run after run.
  auto it = free_.lower_bound(size);
  if (it != free_.end() && it->first <= 2 * size) {
    size = it->first;
    pointer = it->second;
    free_.erase(it);
  } else {
    auto status = cudaMalloc(&pointer, size);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      release_cached();
      status = cudaMalloc(&pointer, size);
    }
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      size_t free_bytes = 0, total = 0;
      cudaMemGetInfo(&free_bytes, &total);
      throw Error(
          fmt::format("out of GPU memory: {:.1f} MB asked for with {:.1f} MB in use by this run, {:.1f} MB "
                      "free of {:.1f} MB; try a smaller --batch",
                      static_cast<double>(size) / 1e6, static_cast<double>(in_use_) / 1e6,
                      static_cast<double>(free_bytes) / 1e6, static_cast<double>(total) / 1e6));
    }
    check(status, "cudaMalloc");
    reserved_ += static_cast<int64_t>(size);
  }
  in_use_ += static_cast<int64_t>(size);
  peak_ = std::max(peak_, in_use_);
  return std::shared_ptr<void>(pointer, [this, size](void* p) { give_back(p, size); });
}

void Allocator::give_back(void* pointer, size_t bytes) {
  in_use_ -= static_cast<int64_t>(bytes);
  free_.emplace(bytes, pointer);
}

void Allocator::release_cached() {
  for (auto& [size, pointer] : free_) {
    cudaFree(pointer);
    reserved_ -= static_cast<int64_t>(size);
  }
  free_.clear();
}

}  // namespace ridge::exec::cuda
