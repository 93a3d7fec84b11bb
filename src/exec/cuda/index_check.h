#pragma once
// Indices a GPU kernel reads from a tensor, widened to int64 and checked: out-of-range ones are counted on the node's
// first run (one synchronization) and refused by name, so a bad input is an error, not zeros or garbage; later runs
// of the same inputs skip the count (a CUDA-graph capture comes after the first run). The index family
// (indexing.cpp) and the losses' targets (loss.cpp) use them.
#include <memory>
#include <string>

#include "exec/cuda/op_kernel.h"

namespace ridge::exec::cuda {

// Input i as int64 indices (int32 ones widened on the device); other types fail the node.
GpuTensor int64_indices(KernelContext& ctx, size_t i);

// The count of indices out of range on the node's first run.
class BadIndices {
 public:
  // Whether the first run was counted is the node's per-node state.
  explicit BadIndices(KernelContext& ctx);
  // The same kept in a flag of a kernel's own per-node state.
  BadIndices(KernelContext& ctx, bool& checked);
  int* counter() const { return static_cast<int*>(counter_.get()); }  // null after the first run
  // Fails naming the count and the range where the first run found any.
  void verify(const std::string& range);

 private:
  KernelContext& ctx_;
  bool& checked_;
  std::shared_ptr<void> counter_;
};

}  // namespace ridge::exec::cuda
