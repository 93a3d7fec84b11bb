// GridSample: grid_sample_cell.h's grid_sample_at a thread per output element.
#include "exec/cuda/grid.cuh"
#include "exec/cuda/grid_sample_kernels.h"

namespace ridge::exec::cuda {

namespace {

__global__ void grid_sample_kernel(GridSamplePlan p, const float* x, const float* grid, float* y) {
  RIDGE_GRID_LOOP(e, p.count()) { y[e] = grid_sample_at(p, x, grid, e); }
}

}  // namespace

void grid_sample(const GridSamplePlan& plan, const float* x, const float* grid, float* y, cudaStream_t stream) {
  if (plan.count() > 0) grid_sample_kernel<<<blocks_for(plan.count()), kThreads, 0, stream>>>(plan, x, grid, y);
}

}  // namespace ridge::exec::cuda
