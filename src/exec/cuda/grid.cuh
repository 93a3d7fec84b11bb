#pragma once
// The launch shape every kernel of the GPU executor uses (kernels.cu, training_kernels.cu): blocks of kThreads,
// a grid capped at 65535 x 16 blocks, and grid-stride loops over int64 indices, so a tensor of 2^31 elements or
// more is indexed correctly.
#include <cstdint>

namespace ridge::exec::cuda {

constexpr int kThreads = 256;

inline unsigned blocks_for(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks < 1) blocks = 1;
  return static_cast<unsigned>(blocks > 65535 * 16 ? 65535 * 16 : blocks);
}

}  // namespace ridge::exec::cuda

#define RIDGE_GRID_LOOP(i, n)                                                            \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)
