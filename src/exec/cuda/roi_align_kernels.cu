// RoiAlign: roi_align_cell.h's roi_align_at a thread per output element.
#include "exec/cuda/grid.cuh"
#include "exec/cuda/roi_align_kernels.h"

namespace ridge::exec::cuda {

namespace {

__global__ void roi_align_kernel(RoiAlignPlan p, const float* x, const float* rois, const int64_t* batch, float* y,
                                 int* bad) {
  const int64_t per_region = p.channels * p.out_height * p.out_width;
  RIDGE_GRID_LOOP(e, p.count()) {
    y[e] = roi_align_at(p, x, rois, batch, e);
    // Each region's batch index counted once, by its first element's thread.
    if (bad && e % per_region == 0 && (batch[e / per_region] < 0 || batch[e / per_region] >= p.images))
      atomicAdd(bad, 1);
  }
}

}  // namespace

void roi_align(const RoiAlignPlan& plan, const float* x, const float* rois, const int64_t* batch, float* y, int* bad,
               cudaStream_t stream) {
  if (plan.count() > 0)
    roi_align_kernel<<<blocks_for(plan.count()), kThreads, 0, stream>>>(plan, x, rois, batch, y, bad);
}

}  // namespace ridge::exec::cuda
