// MaxUnpool: Y zeroed, then max_unpool_cell.h's max_unpool_target a thread per element of X.
#include "exec/cuda/grid.cuh"
#include "exec/cuda/max_unpool_kernels.h"

namespace ridge::exec::cuda {

namespace {

__global__ void max_unpool_kernel(MaxUnpoolPlan p, const float* x, const int64_t* indices, float* y, int* bad) {
  RIDGE_GRID_LOOP(i, p.elements) {
    const int64_t at = max_unpool_target(p, indices[i]);
    if (at >= 0)
      y[at] = x[i];
    else if (bad)
      atomicAdd(bad, 1);
  }
}

}  // namespace

void max_unpool(const MaxUnpoolPlan& plan, const float* x, const int64_t* indices, float* y, int* bad,
                cudaStream_t stream) {
  if (plan.output_count > 0) cudaMemsetAsync(y, 0, static_cast<size_t>(plan.output_count) * sizeof(float), stream);
  if (plan.elements > 0)
    max_unpool_kernel<<<blocks_for(plan.elements), kThreads, 0, stream>>>(plan, x, indices, y, bad);
}

}  // namespace ridge::exec::cuda
