#pragma once
// ONNX's MaxUnpool as the GPU computes it: the output zeroed, then X's element i written at the place its index I[i]
// names. An index is flat over the unpooled dims ([N, C, (D - 1) x stride + kernel - pads...], as MaxPool's indices are
// flat over its input); where output_shape is larger, the unpooled block sits in its leading corner, so the index's
// coordinates are kept and re-flattened over the output's dims. The plan is worked out on the host
// (max_unpool_plan.h); the kernel (max_unpool_kernels.cu) applies max_unpool_target a thread per element of X, and the
// host-side tests apply it to ONNX's node tests (tests/cuda/test_max_unpool_host.cpp). C++17 for nvcc.
#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

struct MaxUnpoolPlan {
  static constexpr int kMaxRank = 5;  // N, C and up to 3 spatial dims
  int rank = 0;
  int64_t unpooled[kMaxRank] = {};  // the dims the indices address
  int64_t output[kMaxRank] = {};    // Y's dims: the unpooled ones, or output_shape
  int64_t elements = 0;             // X's (and I's)
  int64_t unpooled_count = 0, output_count = 0;
};

// Where in Y an element of index `index` goes; -1 where the index is outside the unpooled tensor.
RIDGE_HOST_DEVICE inline int64_t max_unpool_target(const MaxUnpoolPlan& p, int64_t index) {
  if (index < 0 || index >= p.unpooled_count) return -1;
  int64_t offset = 0, stride = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    offset += (index % p.unpooled[d]) * stride;
    index /= p.unpooled[d];
    stride *= p.output[d];
  }
  return offset;
}

}  // namespace ridge::exec::cuda
