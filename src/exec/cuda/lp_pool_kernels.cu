// Lp pooling: lp_pool_cell.h's lp_pool_at a thread per output element.
#include "exec/cuda/grid.cuh"
#include "exec/cuda/lp_pool_kernels.h"

namespace ridge::exec::cuda {

namespace {

__global__ void lp_pool_kernel(LpPoolPlan p, const float* x, float* y) {
  RIDGE_GRID_LOOP(e, p.count()) { y[e] = lp_pool_at(p, x, e); }
}

}  // namespace

void lp_pool(const LpPoolPlan& plan, const float* x, float* y, cudaStream_t stream) {
  if (plan.count() > 0) lp_pool_kernel<<<blocks_for(plan.count()), kThreads, 0, stream>>>(plan, x, y);
}

}  // namespace ridge::exec::cuda
